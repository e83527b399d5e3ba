//! Expanding a sweep file into points (each a complete, validated scenario) and runs
//! (point x seed). Every problem is found and reported with the sweep file's line before
//! anything runs.

use super::overrides::set_path;
use super::spec::{param_values, Mode, RawSweep, Values};
use super::value::ParamValue;
use super::SweepError;
use crate::engine::RngStreams;
use crate::scenario::{count, Scenario};

use rand::seq::SliceRandom;
use rand::Rng;
use std::path::{Path, PathBuf};

/// Points whose scenarios are made in parallel at a time (see `Plan::parse`).
const POINT_CHUNK: usize = 512;

/// The most points a sweep may have: each is a scenario parsed and held in memory (about
/// 6 KB and 0.2 ms to check), so 100,000 take about 0.6 GB and 20 s before anything runs.
pub const MAX_POINTS: usize = 100_000;
/// The most runs (points times seeds) a sweep may have.
pub const MAX_RUNS: u64 = 10_000_000;

/// One point of the sweep: parameter values and the scenario they make.
#[derive(Debug, Clone)]
pub struct Point {
    /// Parameter values, in the order of [`Plan::params`].
    pub values: Vec<ParamValue>,
    /// The validated scenario.
    pub scenario: Scenario,
}

/// A whole sweep, ready to run.
#[derive(Debug, Clone)]
pub struct Plan {
    /// Name.
    pub name: String,
    /// The sweep file.
    pub file: PathBuf,
    /// Parameter paths.
    pub params: Vec<String>,
    /// Parameter names on charts (the `label`, or the path).
    pub labels: Vec<String>,
    /// Points, in order.
    pub points: Vec<Point>,
    /// Seeds of the repetitions.
    pub seeds: Vec<u64>,
    /// Hash of everything that decides the runs' results.
    pub hash: String,
    /// Metrics the charts show.
    pub chart_metrics: Vec<String>,
    /// CDF charts on a log time axis (`[charts] log_x`).
    pub log_x: bool,
}

/// One run: a point under one seed. Run `id` is `point * seeds + repetition`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunId {
    /// Run number.
    pub id: usize,
    /// Point number.
    pub point: usize,
    /// Seed.
    pub seed: u64,
}

impl Plan {
    /// Number of runs.
    pub fn runs(&self) -> usize {
        self.points.len() * self.seeds.len()
    }

    /// Run `id`.
    pub fn run(&self, id: usize) -> RunId {
        let r = self.seeds.len();
        RunId {
            id,
            point: id / r,
            seed: self.seeds[id % r],
        }
    }

    /// Reads, expands and validates a sweep file.
    pub fn load(path: &Path) -> Result<Plan, SweepError> {
        let text = crate::workload::read_small_text(path, crate::workload::MAX_SCENARIO_BYTES)
            .map_err(|e| SweepError::one(path, None, format!("cannot read: {e}")))?;
        let base = path.parent().map(Path::to_path_buf).unwrap_or_default();
        Plan::parse(&text, path, &base)
    }

    /// Expands sweep `text`; `file` names it in errors; `base` resolves the scenario path.
    pub fn parse(text: &str, file: &Path, base: &Path) -> Result<Plan, SweepError> {
        let line = |off: usize| text[..off.min(text.len())].matches('\n').count() + 1;
        let raw: RawSweep = toml::from_str(text).map_err(|e| {
            SweepError::one(
                file,
                e.span().map(|s| line(s.start)),
                e.message().trim().to_string(),
            )
        })?;
        let lost = super::lost_float_lines(text);
        if !lost.is_empty() {
            return Err(SweepError::many(file, lost));
        }
        let mut problems: Vec<(Option<usize>, String)> = Vec::new();
        let scen_path = base.join(raw.scenario.get_ref());
        let scen_line = Some(line(raw.scenario.span().start));
        let scen_text =
            match crate::workload::read_small_text(&scen_path, crate::workload::MAX_SCENARIO_BYTES)
            {
                Ok(t) => t,
                Err(e) => {
                    return Err(SweepError::one(
                        file,
                        scen_line,
                        format!("scenario {}: cannot read: {e}", scen_path.display()),
                    ))
                }
            };
        let doc: toml_edit::DocumentMut = scen_text.parse().map_err(|e| {
            SweepError::one(
                file,
                scen_line,
                format!("scenario {}: {e}", scen_path.display()),
            )
        })?;
        let base_scenario = Scenario::parse(
            &scen_text,
            &scen_path,
            scen_path.parent().unwrap_or(Path::new(".")),
        )
        .map_err(|e| SweepError::one(file, scen_line, format!("base scenario is invalid: {e}")))?;

        // Parameters.
        let mut paths = Vec::new();
        let mut values = Vec::new();
        let mut lines = Vec::new();
        let mut labels = Vec::new();
        for p in &raw.params {
            let l = Some(line(p.span().start));
            let p = p.get_ref();
            match param_values(p) {
                Ok(v) => values.push(v),
                Err(e) => {
                    problems.push((l, format!("param `{}`: {e}", p.path)));
                    values.push(Values::List(vec![]));
                }
            }
            if let Err(e) = super::overrides::parse_path(&p.path) {
                problems.push((l, format!("param `{}`: {e}", p.path)));
            }
            if paths.contains(&p.path) {
                problems.push((l, format!("param `{}` is given twice", p.path)));
            }
            paths.push(p.path.clone());
            labels.push(p.label.clone().unwrap_or_else(|| p.path.clone()));
            lines.push(l);
        }
        let seeds: Vec<u64> = match raw
            .seeds
            .as_ref()
            .map(|s| (s.get_ref(), line(s.span().start)))
        {
            None => vec![base_scenario.seed],
            Some((super::spec::RawSeeds::Count(n), l)) => {
                if *n < 1 || *n > 100_000 {
                    problems.push((
                        Some(l),
                        format!("`seeds` must be between 1 and 100000, got {n}"),
                    ));
                }
                (0..(*n).clamp(1, 100_000) as u64)
                    .map(|r| base_scenario.seed.wrapping_add(r))
                    .collect()
            }
            Some((super::spec::RawSeeds::List(v), l)) => {
                if v.is_empty() {
                    problems.push((Some(l), "`seeds` is empty".into()));
                }
                let mut s = v.clone();
                s.sort_unstable();
                s.dedup();
                if s.len() != v.len() {
                    problems.push((Some(l), "`seeds` lists a seed twice".into()));
                }
                v.clone()
            }
        };
        if !problems.is_empty() {
            return Err(SweepError::many(file, problems));
        }

        // The size of the sweep, counted before any point is built: every point is a
        // scenario held in memory (about 6 KB and 0.2 ms to check each), so a grid of
        // long ranges is refused here, not by the allocator.
        if raw.mode == Mode::Grid {
            let n = values
                .iter()
                .fold(1u128, |n, v| n.saturating_mul(v.grid().len() as u128));
            if n > MAX_POINTS as u128 {
                let sizes: Vec<String> =
                    values.iter().map(|v| v.grid().len().to_string()).collect();
                return Err(SweepError::one(
                    file,
                    lines.first().copied().flatten(),
                    format!(
                        "the grid has {} points ({}), more than {}: each point is a scenario held in memory; use fewer values, split the sweep into several files, or sample it with mode = \"latin_hypercube\"",
                        count(n as f64),
                        sizes.join(" x "),
                        count(MAX_POINTS as f64),
                    ),
                ));
            }
        }

        // Combinations.
        let combos: Vec<Vec<ParamValue>> = match raw.mode {
            Mode::Grid => {
                let mut out = vec![vec![]];
                for v in &values {
                    let mut next = Vec::with_capacity(out.len() * v.grid().len());
                    for prefix in &out {
                        for x in v.grid() {
                            let mut p = prefix.clone();
                            p.push(x.clone());
                            next.push(p);
                        }
                    }
                    out = next;
                }
                out
            }
            Mode::Zip => {
                let n = values.first().map(|v| v.grid().len()).unwrap_or(1);
                for (i, v) in values.iter().enumerate() {
                    if v.grid().len() != n {
                        problems.push((lines[i], format!(
                            "param `{}` has {} values but `{}` has {n}; zipped parameters need the same number",
                            paths[i], v.grid().len(), paths[0]
                        )));
                    }
                }
                if n > MAX_POINTS {
                    problems.push((lines.first().copied().flatten(), format!(
                        "zipped parameters give {} points, more than {}: each point is a scenario held in memory; use fewer values or split the sweep into several files",
                        count(n as f64), count(MAX_POINTS as f64)
                    )));
                }
                if !problems.is_empty() {
                    return Err(SweepError::many(file, problems));
                }
                (0..n)
                    .map(|i| values.iter().map(|v| v.grid()[i].clone()).collect())
                    .collect()
            }
            Mode::LatinHypercube => {
                let n = match &raw.samples {
                    Some(s) if *s.get_ref() >= 1 && *s.get_ref() <= MAX_POINTS as i64 => {
                        *s.get_ref() as usize
                    }
                    Some(s) => {
                        return Err(SweepError::one(
                            file,
                            Some(line(s.span().start)),
                            format!(
                                "`samples` must be between 1 and {MAX_POINTS}, got {}",
                                s.get_ref()
                            ),
                        ))
                    }
                    None => {
                        return Err(SweepError::one(
                            file,
                            None,
                            "mode = \"latin_hypercube\" needs `samples`".into(),
                        ))
                    }
                };
                latin_hypercube(&values, n, raw.sample_seed.unwrap_or(1))
            }
        };

        let runs = combos.len() as u128 * seeds.len() as u128;
        if runs > MAX_RUNS as u128 {
            return Err(SweepError::one(
                file,
                None,
                format!(
                    "{} points x {} seeds is {} runs, more than {}: use fewer seeds or points, or split the sweep into several files",
                    count(combos.len() as f64),
                    count(seeds.len() as f64),
                    count(runs as f64),
                    count(MAX_RUNS as f64)
                ),
            ));
        }

        // Scenarios: apply, then validate each point.
        let scen_dir = scen_path.parent().unwrap_or(Path::new(".")).to_path_buf();
        let mut points = Vec::with_capacity(combos.len());
        let mut hash_input = crate::scenario::TextHasher::default();
        // Each point's scenario is made and checked on its own (in parallel, a chunk at a
        // time), then taken in point order as before: the same points, problems and hash
        // at any thread count, and no more than a chunk past the 50th problem is built.
        let build = |combo: &Vec<ParamValue>| {
            let mut d = doc.clone();
            let mut unset = Vec::new();
            for (k, v) in combo.iter().enumerate() {
                if let Err(e) = set_path(&mut d, &paths[k], &mut |old| Ok(v.to_edit(old)?)) {
                    unset.push((lines[k], format!("param `{}` = {v}: {e}", paths[k])));
                }
            }
            if !unset.is_empty() {
                return Err(unset);
            }
            let t = d.to_string();
            let parsed = Scenario::parse(&t, &scen_path, &scen_dir);
            Ok((t, parsed))
        };
        let mut combos = combos.into_iter();
        let mut pi = 0usize;
        'chunks: loop {
            let chunk: Vec<Vec<ParamValue>> = combos.by_ref().take(POINT_CHUNK).collect();
            if chunk.is_empty() {
                break;
            }
            let built: Vec<_> = {
                use rayon::prelude::*;
                chunk.par_iter().map(build).collect()
            };
            for (combo, b) in chunk.into_iter().zip(built) {
                let this = pi;
                pi += 1;
                let (t, parsed) = match b {
                    Ok(x) => x,
                    Err(unset) => {
                        problems.extend(unset);
                        continue;
                    }
                };
                match parsed {
                    Ok(s) => {
                        hash_input.push(&t);
                        points.push(Point {
                            values: combo,
                            scenario: s,
                        });
                    }
                    Err(e) => {
                        let label = describe(&paths, &combo);
                        for p in e.problems {
                            // Blame the parameter whose path the problem names, else the first.
                            let k = paths
                                .iter()
                                .position(|x| {
                                    p.path.starts_with(x.as_str())
                                        || x.starts_with(&p.path) && !p.path.is_empty()
                                })
                                .unwrap_or(0);
                            let at = if p.path.is_empty() {
                                String::new()
                            } else {
                                format!("{}: ", p.path)
                            };
                            problems.push((
                                lines.get(k).copied().flatten(),
                                format!("point {this} ({label}): {at}{}", p.message),
                            ));
                        }
                    }
                }
                if problems.len() > 50 {
                    break 'chunks;
                }
            }
        }
        if !problems.is_empty() {
            problems.sort_by_key(|p| p.0.unwrap_or(usize::MAX));
            let mut seen = std::collections::BTreeSet::new();
            problems.retain(|p| seen.insert(p.clone()));
            return Err(SweepError::many(file, problems));
        }
        for s in &seeds {
            hash_input.push(&format!("\nseed {s}"));
        }
        hash_input.push(&format!("\nparams {paths:?}\nversion {}", crate::VERSION));
        let name = raw.name.clone().unwrap_or_else(|| {
            file.file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| "sweep".into())
        });
        let log_x = raw.charts.as_ref().is_some_and(|c| c.log_x);
        let chart_metrics = match raw.charts {
            Some(c) if !c.metrics.is_empty() => c.metrics,
            _ => vec!["cost_usd_total".into(), "wait_s_p95".into()],
        };
        Ok(Plan {
            name,
            file: file.to_path_buf(),
            params: paths,
            labels,
            points,
            seeds,
            hash: hash_input.finish(),
            chart_metrics,
            log_x,
        })
    }
}

/// `a=1, b=x`.
pub fn describe(paths: &[String], values: &[ParamValue]) -> String {
    paths
        .iter()
        .zip(values)
        .map(|(p, v)| format!("{p}={v}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `n` Latin-hypercube samples: each parameter's range is cut into `n` equal strata and
/// every stratum is used exactly once, in an independent random order per parameter.
pub fn latin_hypercube(values: &[Values], n: usize, seed: u64) -> Vec<Vec<ParamValue>> {
    let streams = RngStreams::new(seed);
    let mut cols: Vec<Vec<ParamValue>> = Vec::new();
    for (k, v) in values.iter().enumerate() {
        let mut rng = streams.stream(&format!("lhs-{k}"));
        let mut strata: Vec<usize> = (0..n).collect();
        strata.shuffle(&mut rng);
        let col = strata
            .iter()
            .map(|&s| {
                let u = (s as f64 + rng.random::<f64>()) / n as f64;
                match v {
                    Values::List(list) => {
                        list[((u * list.len() as f64) as usize).min(list.len() - 1)].clone()
                    }
                    Values::Interval {
                        lo,
                        hi,
                        log,
                        integer,
                        ..
                    } => {
                        let x = if *log {
                            (lo.ln() + u * (hi.ln() - lo.ln())).exp()
                        } else {
                            lo + u * (hi - lo)
                        };
                        if *integer {
                            ParamValue::Int(x.round() as i64)
                        } else {
                            ParamValue::Float(super::value::clean(x))
                        }
                    }
                }
            })
            .collect();
        cols.push(col);
    }
    (0..n)
        .map(|i| cols.iter().map(|c| c[i].clone()).collect())
        .collect()
}
