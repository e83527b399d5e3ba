//! What a comparison is: a base scenario, its variants (each the base with a few fields
//! overridden by dotted path, as a sweep point is), the seeds every variant runs under,
//! the baseline, and the metrics to report. Read from a compare file or made from a
//! scenario and a list of policies.
//!
//! A compare file:
//!
//! ```toml
//! name = "philly-policies"
//! scenario = "../model_philly.toml"     # relative to this file
//! seeds = 5                              # the scenario's seed, +1, ...; or a list
//! baseline = "fifo"                      # default: the first variant
//! metrics = ["jct_all_s_mean", "queue_delay_all_s_p95"]   # default: a research set
//! log_x = true                           # CDF charts on a log time axis
//! bootstrap = 10000                      # paired intervals by percentile bootstrap
//! bootstrap_seed = 1                     #   (default: paired t)
//!
//! [[variant]]
//! name = "fifo"
//! set = { "scheduler.policy" = "fifo" }
//! ```

use super::CompareError;
use crate::scenario::Scenario;
use crate::sweep::{resolve_names, set_path, ParamValue};
use serde::Deserialize;
use std::path::{Path, PathBuf};
use toml::Spanned;

/// The metrics reported (terminal, charts) when the file names none: columns of
/// `runs.csv`, i.e. `summary.json` paths joined by `_`.
pub const DEFAULT_METRICS: &[&str] = &[
    "jct_all_s_mean",
    "jct_all_s_p95",
    "wait_all_s_mean",
    "queue_delay_all_s_mean",
    "queue_delay_all_s_p95",
    "bounded_slowdown_all_mean",
    "finish_time_fairness_share_above_1",
    "fairness_jain_bounded_slowdown",
    "makespan_s",
    "utilization",
];

/// One variant: a name, the overrides that make it, and the validated scenario.
#[derive(Debug, Clone)]
pub struct Variant {
    /// Name in outputs.
    pub name: String,
    /// `(dotted path, value as written)`, in the file's order.
    pub set: Vec<(String, String)>,
    /// The base scenario with the overrides applied, validated.
    pub scenario: Scenario,
}

/// A comparison ready to run.
#[derive(Debug, Clone)]
pub struct CompareSpec {
    /// Name (default: the file's stem).
    pub name: String,
    /// The base scenario file.
    pub scenario_file: PathBuf,
    /// The variants, baseline included.
    pub variants: Vec<Variant>,
    /// Index of the baseline variant.
    pub baseline: usize,
    /// Seeds every variant runs under (common random numbers).
    pub seeds: Vec<u64>,
    /// Metrics reported on the terminal and charted.
    pub metrics: Vec<String>,
    /// CDF charts on a log time axis.
    pub log_x: bool,
    /// Paired intervals by the bootstrap (`bootstrap = N`, `--bootstrap N`) instead of the
    /// paired t.
    pub bootstrap: Option<Bootstrap>,
}

/// A seeded percentile bootstrap of the paired differences.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bootstrap {
    /// Resamples of the seed pairs.
    pub resamples: usize,
    /// Seed of the resampling (each metric and variant draws from its own stream).
    pub seed: u64,
}

/// The most bootstrap resamples accepted.
pub const MAX_RESAMPLES: usize = 1_000_000;
/// The most variants a comparison may hold (each is a whole scenario, built before
/// anything runs; a table of more than this is no longer read).
pub const MAX_VARIANTS: usize = 1_000;
/// The most seeds a comparison may run each variant under.
pub const MAX_SEEDS: usize = 10_000;
/// The most runs (variants times seeds) a comparison may make.
pub const MAX_COMPARE_RUNS: usize = 1_000_000;
/// The most bootstrap draws (resamples x seeds x compared variants x metrics).
pub const MAX_BOOTSTRAP_DRAWS: f64 = 1e10;

/// A bootstrap of `n` resamples with `seed`, if `n` is in 100..=[`MAX_RESAMPLES`].
pub fn bootstrap_of(n: i64, seed: u64) -> Result<Bootstrap, String> {
    if (100..=MAX_RESAMPLES as i64).contains(&n) {
        Ok(Bootstrap {
            resamples: n as usize,
            seed,
        })
    } else {
        Err(format!(
            "`bootstrap` must be between 100 and {MAX_RESAMPLES} resamples, got {n}"
        ))
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCompare {
    #[serde(default)]
    name: Option<String>,
    scenario: Spanned<String>,
    #[serde(default)]
    seeds: Option<Spanned<RawSeeds>>,
    #[serde(default)]
    baseline: Option<Spanned<String>>,
    #[serde(default)]
    metrics: Vec<String>,
    #[serde(default)]
    log_x: bool,
    #[serde(default)]
    bootstrap: Option<Spanned<i64>>,
    #[serde(default)]
    bootstrap_seed: Option<u64>,
    #[serde(default, rename = "variant")]
    variants: Vec<Spanned<RawVariant>>,
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum RawSeeds {
    Count(i64),
    List(Vec<u64>),
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawVariant {
    name: String,
    #[serde(default)]
    set: toml::Table,
}

/// True when `text` is a compare file (it has `[[variant]]` tables and no pools).
pub fn is_compare_file_text(text: &str) -> bool {
    match text.parse::<toml::Table>() {
        Ok(t) => t.contains_key("variant") && !t.contains_key("pools"),
        Err(_) => false,
    }
}

/// Seeds from a count (the scenario's seed, +1, ...) or a list.
fn too_many_variants(n: usize) -> String {
    format!(
        "{n} variants, more than {MAX_VARIANTS} (each is a whole scenario); split the comparison"
    )
}

fn seeds_of(count: Option<i64>, list: Option<&[u64]>, base: u64) -> Result<Vec<u64>, String> {
    match (count, list) {
        (_, Some(v)) if v.len() > MAX_SEEDS => Err(format!(
            "`seeds` lists {} seeds, more than {MAX_SEEDS}",
            v.len()
        )),
        (_, Some(v)) => {
            let mut s = v.to_vec();
            s.sort_unstable();
            s.dedup();
            if v.is_empty() {
                Err("`seeds` is empty".into())
            } else if s.len() != v.len() {
                Err("`seeds` lists a seed twice".into())
            } else {
                Ok(v.to_vec())
            }
        }
        (Some(n), None) if (1..=MAX_SEEDS as i64).contains(&n) => {
            Ok((0..n as u64).map(|r| base.wrapping_add(r)).collect())
        }
        (Some(n), None) => Err(format!(
            "`seeds` must be between 1 and {MAX_SEEDS}, got {n}"
        )),
        (None, None) => Ok(vec![base]),
    }
}

impl CompareSpec {
    /// Reads and validates a compare file: every variant's scenario is built and checked
    /// before anything runs; problems name the file's line.
    pub fn load(path: &Path) -> Result<CompareSpec, CompareError> {
        let text = crate::workload::read_small_text(path, crate::workload::MAX_SCENARIO_BYTES)
            .map_err(|e| CompareError::one(path, None, format!("cannot read: {e}")))?;
        let line = |off: usize| text[..off.min(text.len())].matches('\n').count() + 1;
        let raw: RawCompare = toml::from_str(&text).map_err(|e| {
            CompareError::one(
                path,
                e.span().map(|s| line(s.start)),
                e.message().trim().to_string(),
            )
        })?;
        let lost = crate::sweep::lost_float_lines(&text);
        if !lost.is_empty() {
            return Err(CompareError::many(path, lost));
        }
        let base = path.parent().unwrap_or(Path::new("."));
        let scen_path = base.join(raw.scenario.get_ref());
        let scen_line = Some(line(raw.scenario.span().start));
        let mut problems = Vec::new();
        if raw.variants.is_empty() {
            problems.push((None, "a compare file needs at least one [[variant]]".into()));
        }
        if raw.variants.len() > MAX_VARIANTS {
            return Err(CompareError::one(
                path,
                Some(line(raw.variants[MAX_VARIANTS].span().start)),
                too_many_variants(raw.variants.len()),
            ));
        }
        let mut variants = Vec::new();
        let mut names = std::collections::HashSet::new();
        for v in &raw.variants {
            let l = Some(line(v.span().start));
            let v = v.get_ref();
            if !names.insert(v.name.as_str()) {
                problems.push((l, format!("variant `{}` is given twice", v.name)));
            }
            if v.name.trim().is_empty() {
                problems.push((l, "a variant needs a name".into()));
            }
            let set = v
                .set
                .iter()
                .map(|(k, x)| (k.clone(), ParamValue::from_toml(x)))
                .collect();
            variants.push((v.name.clone(), set));
        }
        let lines: Vec<Option<usize>> = raw
            .variants
            .iter()
            .map(|v| Some(line(v.span().start)))
            .collect();
        if !problems.is_empty() {
            return Err(CompareError::many(path, problems));
        }
        let name = raw.name.clone().unwrap_or_else(|| stem(path));
        let (count, list) = match raw.seeds.as_ref().map(|s| s.get_ref()) {
            Some(RawSeeds::Count(n)) => (Some(*n), None),
            Some(RawSeeds::List(v)) => (None, Some(v.as_slice())),
            None => (None, None),
        };
        let mut spec = build(&name, &scen_path, variants, &lines, path, scen_line)?;
        let seed_line = raw.seeds.as_ref().map(|s| line(s.span().start));
        spec.seeds = seeds_of(count, list, spec.variants[0].scenario.seed)
            .map_err(|m| CompareError::one(path, seed_line, m))?;
        if let Some(b) = &raw.baseline {
            spec.baseline = spec
                .variants
                .iter()
                .position(|v| &v.name == b.get_ref())
                .ok_or_else(|| {
                    CompareError::one(
                        path,
                        Some(line(b.span().start)),
                        format!("baseline `{}` is not a variant", b.get_ref()),
                    )
                })?;
        }
        if !raw.metrics.is_empty() {
            if let Some(m) = raw.metrics.iter().find(|m| !is_run_metric(m)) {
                return Err(CompareError::one(
                    path,
                    None,
                    format!("metrics: {}", unknown_metric(m)),
                ));
            }
            spec.metrics = raw.metrics.clone();
        }
        spec.log_x = raw.log_x;
        if let Some(b) = &raw.bootstrap {
            spec.bootstrap = Some(
                bootstrap_of(*b.get_ref(), raw.bootstrap_seed.unwrap_or(1))
                    .map_err(|m| CompareError::one(path, Some(line(b.span().start)), m))?,
            );
        } else if raw.bootstrap_seed.is_some() {
            return Err(CompareError::one(
                path,
                None,
                "`bootstrap_seed` needs `bootstrap = N` (resamples)".into(),
            ));
        }
        Ok(spec)
    }

    /// A comparison of `policies` (queue policy names) on the scenario at `path`, one
    /// variant per policy, under `seeds` seeds from the scenario's own.
    pub fn of_policies(
        path: &Path,
        policies: &[String],
        seeds: usize,
    ) -> Result<CompareSpec, CompareError> {
        if policies.is_empty() {
            return Err(CompareError::BadInput(
                "--policies: name at least one policy".into(),
            ));
        }
        // `--policies fifo,fifo` ran the same variant twice under one name, exit 0.
        if let Some((i, p)) = policies
            .iter()
            .enumerate()
            .find(|(i, p)| policies[..*i].contains(p))
        {
            return Err(CompareError::BadInput(format!(
                "--policies: {p:?} is given twice (entries {} and {}): each policy once",
                policies[..i].iter().position(|q| q == p).unwrap_or(0) + 1,
                i + 1
            )));
        }
        let variants = policies
            .iter()
            .map(|p| {
                (
                    p.clone(),
                    vec![("scheduler.policy".to_string(), ParamValue::Str(p.clone()))],
                )
            })
            .collect();
        let lines = vec![None; policies.len()];
        let mut spec = build(&stem(path), path, variants, &lines, path, None)?;
        spec.seeds = seeds_of(Some(seeds as i64), None, spec.variants[0].scenario.seed)
            .map_err(|m| CompareError::BadInput(format!("--seeds: {m}")))?;
        Ok(spec)
    }

    /// Refuses a comparison too large to finish in bounded time: more than
    /// [`MAX_COMPARE_RUNS`] runs, or a bootstrap of more than [`MAX_BOOTSTRAP_DRAWS`] draws.
    pub fn check_size(&self) -> Result<(), CompareError> {
        let (v, n) = (self.variants.len(), self.seeds.len());
        if v.saturating_mul(n) > MAX_COMPARE_RUNS {
            return Err(CompareError::BadInput(format!(
                "{v} variants x {n} seeds = {} runs, more than {MAX_COMPARE_RUNS}",
                v * n
            )));
        }
        if let Some(m) = self.metrics.iter().find(|m| !is_run_metric(m)) {
            // A misspelt metric was run for nothing: no run reports it, and under -q the
            // comparison ended with exit 0 and no word of it.
            return Err(CompareError::BadInput(unknown_metric(m)));
        }
        if let Some(b) = &self.bootstrap {
            let draws = b.resamples as f64
                * n as f64
                * v.saturating_sub(1).max(1) as f64
                * self.metrics.len().max(1) as f64;
            if draws > MAX_BOOTSTRAP_DRAWS {
                return Err(CompareError::BadInput(format!(
                    "a bootstrap of {} resamples x {n} seeds x {} compared variants x {} metrics = {draws:.2e} draws, more than {MAX_BOOTSTRAP_DRAWS:.0e}; use fewer resamples",
                    b.resamples,
                    v.saturating_sub(1).max(1),
                    self.metrics.len().max(1)
                )));
            }
        }
        Ok(())
    }

    /// Replaces the seeds by `n` seeds from the base scenario's (the `--seeds` flag).
    pub fn set_seed_count(&mut self, n: usize) -> Result<(), CompareError> {
        self.seeds = seeds_of(Some(n as i64), None, self.variants[0].scenario.seed)
            .map_err(|m| CompareError::BadInput(format!("--seeds: {m}")))?;
        Ok(())
    }

    /// Makes the variant named `name` the baseline (the `--baseline` flag).
    pub fn set_baseline(&mut self, name: &str) -> Result<(), CompareError> {
        self.baseline = self
            .variants
            .iter()
            .position(|v| v.name == name)
            .ok_or_else(|| {
                let known: Vec<&str> = self.variants.iter().map(|v| v.name.as_str()).collect();
                CompareError::BadInput(format!(
                    "--baseline {name}: not a variant (variants: {})",
                    known.join(", ")
                ))
            })?;
        Ok(())
    }
}

fn stem(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "compare".into())
}

/// Applies each variant's overrides to the base scenario and validates the result.
fn build(
    name: &str,
    scen_path: &Path,
    variants: Vec<(String, Vec<(String, ParamValue)>)>,
    lines: &[Option<usize>],
    file: &Path,
    scen_line: Option<usize>,
) -> Result<CompareSpec, CompareError> {
    let scen_text =
        crate::workload::read_small_text(scen_path, crate::workload::MAX_SCENARIO_BYTES).map_err(
            |e| {
                CompareError::one(
                    file,
                    scen_line,
                    format!("scenario {}: cannot read: {e}", scen_path.display()),
                )
            },
        )?;
    let doc: toml_edit::DocumentMut = scen_text.parse().map_err(|e| {
        CompareError::one(
            file,
            scen_line,
            format!("scenario {}: {e}", scen_path.display()),
        )
    })?;
    if variants.len() > MAX_VARIANTS {
        return Err(CompareError::one(
            file,
            lines.get(MAX_VARIANTS).copied().flatten(),
            too_many_variants(variants.len()),
        ));
    }
    let dir = scen_path.parent().unwrap_or(Path::new(".")).to_path_buf();
    let mut problems = Vec::new();
    let mut out = Vec::new();
    for (k, (vname, set)) in variants.into_iter().enumerate() {
        let l = lines.get(k).copied().flatten();
        let mut d = doc.clone();
        let mut ok = true;
        for (p, v) in &set {
            // A name where an index would stand (`pools[owned-h100].nodes`), as in sweeps.
            let done = resolve_names(&doc, p)
                .and_then(|r| set_path(&mut d, &r, &mut |old| Ok(v.to_edit(old)?)));
            if let Err(e) = done {
                problems.push((l, format!("variant `{vname}`: `{p}` = {v}: {e}")));
                ok = false;
            }
        }
        if !ok {
            continue;
        }
        match Scenario::parse(&d.to_string(), scen_path, &dir) {
            Ok(s) => out.push(Variant {
                name: vname,
                set: set
                    .iter()
                    .map(|(p, v)| (p.clone(), v.to_string()))
                    .collect(),
                scenario: s,
            }),
            Err(e) => {
                for p in e.problems {
                    let at = if p.path.is_empty() {
                        String::new()
                    } else {
                        format!("{}: ", p.path)
                    };
                    problems.push((l, format!("variant `{vname}`: {at}{}", p.message)));
                }
            }
        }
    }
    if !problems.is_empty() {
        return Err(CompareError::many(file, problems));
    }
    Ok(CompareSpec {
        name: name.to_string(),
        scenario_file: scen_path.to_path_buf(),
        variants: out,
        baseline: 0,
        seeds: Vec::new(),
        metrics: DEFAULT_METRICS.iter().map(|m| m.to_string()).collect(),
        log_x: false,
        bootstrap: None,
    })
}

/// True when `m` can be a column of `runs.csv`: a figure of `summary.json` joined by
/// `_`, or a key under one of its maps (per pool, kind, tenant, cause).
pub fn is_run_metric(m: &str) -> bool {
    crate::metrics::SummaryShape::get().knows(m)
}

/// The message of a metric no run reports.
pub fn unknown_metric(m: &str) -> String {
    format!(
        "{m:?} is not a figure a run reports (a runs.csv column: a summary.json path joined by `_`, such as wait_s_p95 or jct_all_s_mean)"
    )
}
