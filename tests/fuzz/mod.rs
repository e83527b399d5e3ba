//! Fuzzing, one target per parser: a proptest-driven byte mutator over the committed corpus
//! in `tests/fuzz/corpus/<target>/` (byte flips, insertions of troublesome tokens, deletions,
//! duplicated and spliced spans). Each mutated input goes through the real parser, in
//! process: it must answer (a value or an error with a message) without a panic and in
//! bounded time. Bounded for CI: `GPUFLEET_FUZZ_CASES` cases per target (default 48);
//! raise it for a longer local campaign (`GPUFLEET_FUZZ_CASES=20000 cargo test --release
//! fuzz`). A failure prints the minimised input; add it to the corpus once fixed.

use gpufleet::workload::{TraceFormat, TraceSpec};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Tokens that break naive parsers: extreme numbers, separators, quotes, NUL, nesting.
const TOKENS: &[&str] = &[
    "-1",
    "0",
    "1e308",
    "-1e308",
    "NaN",
    "inf",
    "-0",
    "9223372036854775807",
    "18446744073709551616",
    "99999999999999999999999",
    "4294967295",
    "\"",
    ",",
    "\n",
    "\r\n",
    "\0",
    "[[",
    "]]",
    "{",
    "=",
    "\u{feff}",
    "é",
    "1000000000d",
    "0s",
    "1e-300",
];

/// The longest one parse of a small input may take (generous: a loaded 2-core machine).
const SLOW: Duration = Duration::from_secs(10);

/// One mutation of the input's bytes (positions are taken modulo the length).
#[derive(Debug, Clone)]
enum Mutation {
    Flip(usize, u8),
    Token(usize, usize),
    Delete(usize, usize),
    Duplicate(usize, usize, usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), any::<u8>()).prop_map(|(p, b)| Mutation::Flip(p, b)),
        (any::<usize>(), 0..TOKENS.len()).prop_map(|(p, t)| Mutation::Token(p, t)),
        (any::<usize>(), 1usize..64).prop_map(|(p, n)| Mutation::Delete(p, n)),
        (any::<usize>(), 1usize..256, any::<usize>())
            .prop_map(|(p, n, at)| { Mutation::Duplicate(p, n, at) }),
    ]
}

fn apply(mut b: Vec<u8>, muts: &[Mutation]) -> Vec<u8> {
    for m in muts {
        let len = b.len().max(1);
        match *m {
            Mutation::Flip(p, x) => {
                if !b.is_empty() {
                    b[p % len] = x;
                }
            }
            Mutation::Token(p, t) => {
                let at = p % (b.len() + 1);
                b.splice(at..at, TOKENS[t].bytes());
            }
            Mutation::Delete(p, n) => {
                let at = p % len;
                let end = (at + n).min(b.len());
                if at < end {
                    b.drain(at..end);
                }
            }
            Mutation::Duplicate(p, n, to) => {
                let at = p % len;
                let end = (at + n).min(b.len());
                let span: Vec<u8> = b.get(at..end).unwrap_or_default().to_vec();
                let to = to % (b.len() + 1);
                b.splice(to..to, span);
            }
        }
    }
    b
}

/// The corpus of `target`: every file of `tests/fuzz/corpus/<target>/`, sorted.
fn corpus(target: &str) -> Vec<Vec<u8>> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fuzz/corpus")
        .join(target);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert!(!files.is_empty(), "empty corpus {}", dir.display());
    files.iter().map(|f| std::fs::read(f).unwrap()).collect()
}

fn cases() -> u32 {
    std::env::var("GPUFLEET_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(48)
}

/// Mutates `target`'s corpus `cases()` times and feeds each input to `parse` (given the
/// input's path in a scratch folder that also holds what the corpus refers to); `parse`
/// returns the error message, if any, which must not be empty.
fn fuzz(target: &str, file: &str, parse: impl Fn(&Path) -> Option<String>) {
    let seeds = corpus(target);
    let dir = tempfile::tempdir().unwrap();
    // What scenarios and sweeps of the corpus refer to.
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    std::fs::copy(
        root.join("data/tiresias/60_job.csv"),
        dir.path().join("t.csv"),
    )
    .unwrap();
    std::fs::create_dir_all(dir.path().join("data")).unwrap();
    std::fs::copy(
        root.join("scenarios/data/llama3-405b-job.csv"),
        dir.path().join("data/llama3-405b-job.csv"),
    )
    .unwrap();
    std::fs::copy(
        root.join("scenarios/quickstart.toml"),
        dir.path().join("base.toml"),
    )
    .unwrap();
    let path = dir.path().join(file);
    let mut runner = TestRunner::new(Config {
        cases: cases(),
        failure_persistence: None,
        ..Config::default()
    });
    let strategy = (0..seeds.len(), proptest::collection::vec(mutation(), 1..8));
    runner
        .run(&strategy, |(seed, muts)| {
            let input = apply(seeds[seed].clone(), &muts);
            std::fs::write(&path, &input).unwrap();
            let clock = Instant::now();
            let message = parse(&path);
            let took = clock.elapsed();
            prop_assert!(
                took < SLOW,
                "{target}: {took:?} on {:?}",
                String::from_utf8_lossy(&input)
            );
            if let Some(m) = message {
                prop_assert!(!m.trim().is_empty(), "{target}: an empty error");
            }
            Ok(())
        })
        .unwrap_or_else(|e| panic!("fuzz {target}: {e}"));
}

fn trace(format: TraceFormat) -> impl Fn(&Path) -> Option<String> {
    move |p| {
        TraceSpec::new(p, format)
            .read()
            .err()
            .map(|e| e.to_string())
    }
}

#[test]
fn fuzz_scenario() {
    fuzz("scenario", "s.toml", |p| {
        match gpufleet::scenario::Scenario::load(p) {
            // A scenario that parses is validated too (limits, estimates, its trace).
            Ok(s) => gpufleet::run::validate(&s).err().map(|e| e.to_string()),
            Err(e) => Some(e.to_string()),
        }
    });
}

#[test]
fn fuzz_sweep() {
    fuzz("sweep", "w.toml", |p| {
        gpufleet::sweep::Plan::load(p).err().map(|e| e.to_string())
    });
}

#[test]
fn fuzz_generic() {
    fuzz("generic", "t.trace", trace(TraceFormat::Generic));
}

#[test]
fn fuzz_swf() {
    fuzz("swf", "t.trace", trace(TraceFormat::Swf));
}

#[test]
fn fuzz_helios() {
    fuzz("helios", "t.trace", trace(TraceFormat::Helios));
}

#[test]
fn fuzz_pai() {
    fuzz("pai", "t.trace", trace(TraceFormat::Pai));
}

#[test]
fn fuzz_philly() {
    fuzz("philly", "t.trace", trace(TraceFormat::Philly));
}

#[test]
fn fuzz_tiresias() {
    fuzz("tiresias", "t.trace", trace(TraceFormat::Tiresias));
}

#[test]
fn fuzz_openb() {
    fuzz("openb", "t.trace", trace(TraceFormat::Openb));
}

#[test]
fn fuzz_compare() {
    fuzz(
        "compare",
        "c.toml",
        |p| match gpufleet::compare::CompareSpec::load(p) {
            Ok(spec) => spec.check_size().err().map(|e| e.to_string()),
            Err(e) => Some(e.to_string()),
        },
    );
}

#[test]
fn fuzz_plan() {
    fuzz("plan", "p.toml", |p| {
        gpufleet::plan::PlanSpec::load(p)
            .err()
            .map(|e| e.to_string())
    });
}

#[test]
fn fuzz_failure_trace() {
    fuzz("failure_trace", "f.csv", |p| {
        gpufleet::faults::read_failure_trace(p)
            .err()
            .map(|e| e.to_string())
    });
}

#[test]
fn fuzz_spot_prices() {
    fuzz("spot_prices", "p.json", |p| {
        let tick = gpufleet::engine::SimTime::from_secs(195);
        gpufleet::pricing::read_spot_price_json(p, "z1", tick)
            .err()
            .map(|e| e.to_string())
    });
}

#[test]
fn fuzz_spot_availability() {
    fuzz("spot_availability", "a.csv", |p| {
        gpufleet::pricing::read_availability_csv(p)
            .err()
            .map(|e| e.to_string())
    });
}

#[test]
fn fuzz_pai_sim() {
    fuzz("pai_sim", "t.csv", |p| {
        let opts = gpufleet::workload::PaiSimOptions::default();
        gpufleet::workload::read_pai_sim_csv(p, opts)
            .err()
            .map(|e| e.to_string())
    });
}

#[test]
fn fuzz_pai_job_table() {
    fuzz("pai_job_table", "j.csv", |p| {
        gpufleet::workload::read_pai_job_table(p, gpufleet::workload::BadRows::Stop, None)
            .err()
            .map(|e| e.to_string())
    });
}

#[test]
fn fuzz_pai_machines() {
    fuzz("pai_machines", "m.csv", |p| {
        gpufleet::workload::read_pai_machines(p, gpufleet::workload::BadRows::Stop)
            .err()
            .map(|e| e.to_string())
    });
}

#[test]
fn fuzz_openb_nodes() {
    fuzz("openb_nodes", "n.csv", |p| {
        gpufleet::workload::read_openb_nodes(p, gpufleet::workload::BadRows::Stop)
            .err()
            .map(|e| e.to_string())
    });
}

#[test]
fn fuzz_fgd_expected() {
    fuzz("fgd_expected", "e.csv", |p| {
        gpufleet::workload::read_expected_curves(p, Some("openb_pod_list_default"))
            .err()
            .map(|e| e.to_string())
    });
}

#[test]
fn fuzz_duration_column() {
    fuzz("duration_column", "d.csv", |p| {
        gpufleet::workload::read_duration_column(p, Some("runtime"))
            .err()
            .map(|e| e.to_string())
    });
}

#[test]
fn fuzz_gcp_probes() {
    fuzz("gcp_probes", "g.csv", |p| {
        gpufleet::pricing::read_gcp_probes(p, "us-central1-a")
            .err()
            .map(|e| e.to_string())
    });
}
