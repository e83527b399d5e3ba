//! Reading and checking a plan file: every problem is reported with the plan file's line
//! before anything runs, and the fleets at the corners of the decision space are assembled
//! and validated as scenarios, so a range that makes an invalid scenario is found at once.

use super::fleet::assemble;
use super::spec::{RawDecision, RawPlanFile, RawTarget};
use super::types::{
    Bound, Decision, DecisionOption, Derived, Objective, Per, PlanSpec, Replications,
    SearchSettings, Target, Unit,
};
use super::PlanError;
use crate::engine::parse_duration;
use crate::scenario::{text_hash, Scenario};
use crate::sweep::{get_path, param_values, resolve_names, set_path, ParamValue, RawParam};
use std::path::Path;

/// Problems found so far: (line, message).
type Problems = Vec<(Option<usize>, String)>;

/// Most fleets a plan's decision space may hold.
const MAX_GRID: f64 = 1e12;

impl PlanSpec {
    /// Reads and checks a plan file.
    pub fn load(path: &Path) -> Result<PlanSpec, PlanError> {
        let text = crate::workload::read_small_text(path, crate::workload::MAX_SCENARIO_BYTES)
            .map_err(|e| PlanError::one(path, None, format!("cannot read: {e}")))?;
        let base = path.parent().map(Path::to_path_buf).unwrap_or_default();
        PlanSpec::parse(&text, path, &base)
    }

    /// Checks plan `text`; `file` names it in errors, `base` resolves the scenario path.
    pub fn parse(text: &str, file: &Path, base: &Path) -> Result<PlanSpec, PlanError> {
        let line = |off: usize| text[..off.min(text.len())].matches('\n').count() + 1;
        let raw: RawPlanFile = toml::from_str(text).map_err(|e| {
            PlanError::one(
                file,
                e.span().map(|s| line(s.start)),
                e.message().trim().to_string(),
            )
        })?;
        let lost = crate::sweep::lost_float_lines(text);
        if !lost.is_empty() {
            return Err(PlanError::many(file, lost));
        }
        let scen_line = Some(line(raw.scenario.span().start));
        let scenario_path = base.join(raw.scenario.get_ref());
        let scenario_text =
            crate::workload::read_small_text(&scenario_path, crate::workload::MAX_SCENARIO_BYTES)
                .map_err(|e| {
                PlanError::one(
                    file,
                    scen_line,
                    format!("scenario {}: cannot read: {e}", scenario_path.display()),
                )
            })?;
        let doc: toml_edit::DocumentMut = scenario_text.parse().map_err(|e| {
            PlanError::one(
                file,
                scen_line,
                format!("scenario {}: {e}", scenario_path.display()),
            )
        })?;
        let scen_dir = scenario_path.parent().unwrap_or(Path::new("."));
        let base_scenario =
            Scenario::parse(&scenario_text, &scenario_path, scen_dir).map_err(|e| {
                PlanError::one(file, scen_line, format!("base scenario is invalid: {e}"))
            })?;

        let mut problems: Problems = Vec::new();
        let mut decisions = Vec::new();
        for d in &raw.decisions {
            let l = Some(line(d.span().start));
            if let Some(d) = decision(d.get_ref(), l, &doc, &mut problems) {
                decisions.push(d);
            }
        }
        if raw.decisions.is_empty() {
            problems.push((None, "a plan needs at least one [[decision]]".into()));
        }
        let mut owner: std::collections::BTreeMap<&str, usize> = Default::default();
        for (k, d) in decisions.iter().enumerate() {
            for (p, _) in d.options.iter().flat_map(|o| o.sets.iter()) {
                match owner.get(p.as_str()) {
                    Some(&j) if j != k => problems.push((
                        d.line,
                        format!(
                            "`{p}` is also set by the decision on line {}",
                            decisions[j].line.unwrap_or(0)
                        ),
                    )),
                    _ => {
                        owner.insert(p, k);
                    }
                }
            }
        }
        let mut targets = Vec::new();
        for t in &raw.targets {
            let l = Some(line(t.span().start));
            if let Some(t) = target(t.get_ref(), l, &mut problems) {
                targets.push(t);
            }
        }
        if raw.targets.is_empty() {
            problems.push((
                None,
                "a plan needs at least one [[target]] (e.g. metric = \"wait_all_s.p95\", max = \"1h\")".into(),
            ));
        }
        let allow_rejected = raw
            .search
            .as_ref()
            .and_then(|s| s.get_ref().allow_rejected)
            .unwrap_or(false);
        if !allow_rejected
            && !targets.is_empty()
            && !targets.iter().any(|t| t.key == "jobs_rejected")
        {
            // A fleet too small for some job would otherwise look good: `wait_all_s`
            // leaves out the jobs it rejects.
            targets.push(Target {
                metric: "jobs.rejected".into(),
                key: "jobs_rejected".into(),
                bound: Bound::Max(0.0),
                bound_text: "0".into(),
                label: "jobs that never fit the fleet".into(),
                unit: Unit::Number,
                derived: None,
                line: None,
            });
        }
        let objective = objective(&raw, &line, &mut problems);
        for t in targets.iter().filter(|t| t.derived.is_none()) {
            if let Some(m) = unknown(&t.key) {
                problems.push((t.line, format!("target `{}`: {m}", t.metric)));
            }
        }
        if let Some(m) = unknown(&objective.key) {
            problems.push((
                objective.line,
                format!("objective `{}`: {m}", objective.metric),
            ));
        }
        let reps = replications(&raw, &line, base_scenario.seed, &mut problems);
        let search = search(&raw, &line, &mut problems);
        let grid: f64 = decisions.iter().map(|d| d.options.len() as f64).product();
        if grid > MAX_GRID {
            problems.push((
                None,
                format!("the decisions make {grid:.3e} fleets, more than {MAX_GRID:.0e}"),
            ));
        }
        if search.grid && grid > search.max_fleets as f64 {
            problems.push((
                None,
                format!(
                    "search.method = \"grid\" would simulate {grid} fleets, more than search.max_fleets = {}",
                    search.max_fleets
                ),
            ));
        }
        if !problems.is_empty() {
            return Err(PlanError::many(file, problems));
        }
        let name = raw.name.clone().unwrap_or_else(|| {
            file.file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| "plan".into())
        });
        let mut hash_input = scenario_text.clone();
        for d in &decisions {
            hash_input.push_str(&format!("\ndecision {:?}", d.options));
        }
        for t in &targets {
            if let Some(x) = &t.derived {
                hash_input.push_str(&format!("\nderived {x:?}"));
            }
        }
        hash_input.push_str(&format!(
            "\nseed {} max {}\nversion {}",
            reps.seed,
            reps.max,
            crate::VERSION
        ));
        let spec = PlanSpec {
            name,
            question: raw.question.clone(),
            file: file.to_path_buf(),
            scenario_path,
            scenario_given: raw.scenario.get_ref().clone(),
            scenario_text,
            base: base_scenario,
            decisions,
            targets,
            objective,
            reps,
            search,
            hash: text_hash(&hash_input),
        };
        check_fleets(&spec)?;
        Ok(spec)
    }

    /// The fleet every search starts from: monotone decisions at their largest option, the
    /// others at the base scenario's.
    pub fn top(&self) -> Vec<usize> {
        self.decisions
            .iter()
            .map(|d| {
                if d.monotone {
                    d.options.len() - 1
                } else {
                    d.start
                }
            })
            .collect()
    }

    /// Number of fleets in the decision space.
    pub fn grid_size(&self) -> u64 {
        self.decisions
            .iter()
            .map(|d| d.options.len() as u64)
            .product()
    }

    /// A fleet's number in the grid (mixed radix, the first decision varying slowest).
    pub fn fleet_index(&self, fleet: &[usize]) -> u64 {
        let mut i = 0u64;
        for (d, &x) in self.decisions.iter().zip(fleet) {
            i = i * d.options.len() as u64 + x as u64;
        }
        i
    }

    /// The fleet with grid number `i`.
    pub fn fleet_at(&self, mut i: u64) -> Vec<usize> {
        let mut out = vec![0; self.decisions.len()];
        for (k, d) in self.decisions.iter().enumerate().rev() {
            let n = d.options.len() as u64;
            out[k] = (i % n) as usize;
            i /= n;
        }
        out
    }

    /// A fleet in words: "6 owned nodes, 2 on-demand nodes at most".
    pub fn describe(&self, fleet: &[usize]) -> String {
        self.decisions
            .iter()
            .zip(fleet)
            .map(|(d, &x)| d.words(x))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// A fleet for a chart label: "6 owned, 2 on-demand".
    pub fn describe_short(&self, fleet: &[usize]) -> String {
        self.decisions
            .iter()
            .zip(fleet)
            .map(|(d, &x)| d.short_words(x))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// Checks that the fleets at the corners (and each option of each decision, with the
/// others at the top) make valid scenarios; blames the decision whose path a problem names.
fn check_fleets(spec: &PlanSpec) -> Result<(), PlanError> {
    let top = spec.top();
    let mut fleets = vec![top.clone(), vec![0; spec.decisions.len()]];
    let options: usize = spec.decisions.iter().map(|d| d.options.len()).sum();
    if options <= 400 {
        for (k, d) in spec.decisions.iter().enumerate() {
            for i in 0..d.options.len() {
                let mut f = top.clone();
                f[k] = i;
                fleets.push(f);
            }
        }
    }
    let mut problems: Problems = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    for f in fleets {
        if !seen.insert(f.clone()) {
            continue;
        }
        let Err(e) = assemble(spec, &f) else {
            continue;
        };
        if let super::fleet::FleetError::Empty = e {
            continue;
        }
        let blame = |path: &str| {
            spec.decisions
                .iter()
                .find(|d| {
                    d.options.iter().any(|o| {
                        o.sets.iter().any(|(p, _)| {
                            !path.is_empty()
                                && (path.starts_with(p.as_str()) || p.starts_with(path))
                        })
                    })
                })
                .or(spec.decisions.first())
                .and_then(|d| d.line)
        };
        for (path, msg) in e.problems() {
            let at = if path.is_empty() {
                String::new()
            } else {
                format!("{path}: ")
            };
            problems.push((
                blame(&path),
                format!("fleet ({}): {at}{msg}", spec.describe(&f)),
            ));
        }
        if problems.len() > 30 {
            break;
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        problems.sort_by_key(|p| p.0.unwrap_or(usize::MAX));
        problems.dedup();
        Err(PlanError::many(&spec.file, problems))
    }
}

/// Checks one decision.
fn decision(
    d: &RawDecision,
    l: Option<usize>,
    doc: &toml_edit::DocumentMut,
    problems: &mut Problems,
) -> Option<Decision> {
    let named = d.path.as_deref().unwrap_or("choice");
    let mut bad = |m: String| problems.push((l, format!("decision `{named}`: {m}")));
    let label = d
        .label
        .clone()
        .or_else(|| d.path.clone())
        .unwrap_or_else(|| "choice".into());
    let short = d.short.clone().unwrap_or_else(|| label.clone());
    if d.words.as_ref().is_some_and(|w| !w.contains("{}")) {
        bad("`words` needs `{}` where the value goes (\"at most {} spot nodes\")".into());
    }
    if let Some(choices) = &d.choice {
        if d.path.is_some() || d.range.is_some() || d.values.is_some() || d.linspace.is_some() {
            bad(
                "give either `path` with `range`/`values`/`linspace`, or `choice`, not both".into(),
            );
            return None;
        }
        if d.monotone == Some(true) {
            bad("a choice cannot be monotone (its options have no order)".into());
        }
        if choices.is_empty() {
            bad("`choice` is empty".into());
            return None;
        }
        let mut options = Vec::new();
        for c in choices {
            if c.set.is_empty() {
                bad(format!("choice {:?}: `set` is empty", c.name));
            }
            let mut sets = Vec::new();
            for (p, v) in &c.set {
                match settable(doc, p) {
                    Ok(p) => sets.push((p, ParamValue::from_toml(v))),
                    Err(e) => bad(format!("choice {:?}: `{p}`: {e}", c.name)),
                }
            }
            if options.iter().any(|o: &DecisionOption| o.value == c.name) {
                bad(format!("choice {:?} is given twice", c.name));
            }
            options.push(DecisionOption {
                value: c.name.clone(),
                sets,
            });
        }
        let start = options
            .iter()
            .position(|o| {
                o.sets
                    .iter()
                    .all(|(p, v)| get_path(doc, p).is_some_and(|old| same(&old, v)))
            })
            .unwrap_or(0);
        return Some(Decision {
            label: d.label.clone().unwrap_or_else(|| "choice".into()),
            short,
            template: d.words.clone(),
            zero: d.zero.clone(),
            one: d.one.clone(),
            path: None,
            monotone: false,
            count: false,
            options,
            start,
            line: l,
        });
    }
    let Some(path) = &d.path else {
        bad("needs `path` (with `range`, `values` or `linspace`) or `choice`".into());
        return None;
    };
    let resolved = match settable(doc, path) {
        Ok(p) => p,
        Err(e) => {
            bad(e);
            return None;
        }
    };
    let raw = RawParam {
        path: path.clone(),
        label: None,
        values: d.values.clone(),
        range: d.range.as_ref().map(|r| crate::sweep::RawRange {
            start: r.start.clone(),
            end: r.end.clone(),
            step: r.step.clone(),
        }),
        linspace: d.linspace.as_ref().map(|s| crate::sweep::RawSpace {
            start: s.start,
            end: s.end,
            num: s.num,
        }),
        logspace: None,
    };
    let values = match param_values(&raw) {
        Ok(v) => v.grid().to_vec(),
        Err(e) => {
            bad(e.to_string());
            return None;
        }
    };
    if values.len() > 100_000 {
        bad(format!(
            "{} values; a decision may have at most 100000",
            values.len()
        ));
        return None;
    }
    let count = values.iter().all(|v| matches!(v, ParamValue::Int(_)));
    let nums: Vec<Option<f64>> = values.iter().map(ParamValue::as_f64).collect();
    let ascending = nums.iter().all(Option::is_some) && nums.windows(2).all(|w| w[0] < w[1]);
    let node_count = resolved.ends_with(".nodes") && resolved.starts_with("pools[");
    let monotone = d.monotone.unwrap_or(node_count && count && ascending);
    if monotone && !ascending {
        bad("a monotone decision needs numbers in increasing order".into());
    }
    let start = get_path(doc, &resolved)
        .and_then(|old| values.iter().position(|v| same(&old, v)))
        .unwrap_or(if monotone { values.len() - 1 } else { 0 });
    let options = values
        .into_iter()
        .map(|v| DecisionOption {
            value: v.to_string(),
            sets: vec![(resolved.clone(), v)],
        })
        .collect();
    Some(Decision {
        label,
        short,
        template: d.words.clone(),
        zero: d.zero.clone(),
        one: d.one.clone(),
        path: Some(resolved),
        monotone,
        count,
        options,
        start,
        line: l,
    })
}

/// `path` with names resolved, checked to be settable in `doc`.
fn settable(doc: &toml_edit::DocumentMut, path: &str) -> Result<String, String> {
    let resolved = resolve_names(doc, path).map_err(|e| e.to_string())?;
    let mut copy = doc.clone();
    set_path(&mut copy, &resolved, &mut |_| {
        Ok(toml_edit::Value::from(0i64))
    })
    .map_err(|e| e.to_string())?;
    Ok(resolved)
}

/// True when the scenario's value `old` is the option value `v`.
fn same(old: &toml_edit::Value, v: &ParamValue) -> bool {
    match (old, v) {
        (toml_edit::Value::Integer(a), _) => v.as_f64() == Some(*a.value() as f64),
        (toml_edit::Value::Float(a), _) => v.as_f64() == Some(*a.value()),
        (toml_edit::Value::String(a), ParamValue::Str(b)) => a.value() == b,
        (toml_edit::Value::Boolean(a), ParamValue::Bool(b)) => a.value() == b,
        _ => false,
    }
}

/// A bound as written: a number, a duration ("1h", in seconds) or a share ("1%").
fn bound_value(v: &toml::Value) -> Result<(f64, Option<Unit>), String> {
    match v {
        toml::Value::Integer(i) => Ok((*i as f64, None)),
        toml::Value::Float(f) if f.is_finite() => Ok((*f, None)),
        toml::Value::String(s) => {
            let t = s.trim();
            if let Some(p) = t.strip_suffix('%') {
                return p
                    .trim()
                    .parse::<f64>()
                    .ok()
                    .filter(|x| x.is_finite())
                    .map(|x| (x / 100.0, Some(Unit::Share)))
                    .ok_or_else(|| format!("{s:?} is not a percentage"));
            }
            parse_duration(t)
                .map(|d| (d.secs_f64(), Some(Unit::Seconds)))
                .map_err(|e| e.to_string())
        }
        other => Err(format!(
            "{other} is not a number, a duration or a percentage"
        )),
    }
}

/// Checks one target.
fn target(t: &RawTarget, l: Option<usize>, problems: &mut Problems) -> Option<Target> {
    let mut bad = |m: String| problems.push((l, format!("target `{}`: {m}", t.metric)));
    let (raw_bound, is_max) = match (&t.max, &t.min) {
        (Some(v), None) => (v, true),
        (None, Some(v)) => (v, false),
        _ => {
            bad("give exactly one of `max` and `min`".into());
            return None;
        }
    };
    let (b, unit_of_bound) = match bound_value(raw_bound) {
        Ok(x) => x,
        Err(e) => {
            bad(e);
            return None;
        }
    };
    let metric = t.metric.trim();
    if metric.is_empty()
        || !metric
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-.".contains(c))
    {
        bad("the metric must be a dotted path of summary.json (e.g. wait_all_s.p95)".into());
        return None;
    }
    let (key, derived, unit) = match (&t.over, metric) {
        (Some(over), "wait_all_s" | "jct_all_s") => match parse_duration(over) {
            Ok(d) => {
                let secs = d.secs_f64();
                // A column name, not a table cell: whole seconds without a decimal point.
                let text = crate::sweep::fmt6(secs);
                let text = text.strip_suffix(".0").unwrap_or(&text);
                (
                    format!("{metric}_over_{text}s_share"),
                    Some(Derived::Over {
                        of: metric.to_string(),
                        secs,
                    }),
                    Unit::Share,
                )
            }
            Err(e) => {
                bad(format!("`over`: {e}"));
                return None;
            }
        },
        (Some(_), _) => {
            bad(
                "`over` applies to wait_all_s or jct_all_s (the censored figures of every job)"
                    .into(),
            );
            return None;
        }
        (None, "deadline_missed") => (
            "deadline_missed_share".into(),
            Some(Derived::DeadlineMissed),
            Unit::Share,
        ),
        (None, m) => {
            let key = m.replace('.', "_");
            let unit = if m.starts_with("cost") {
                Unit::Dollars
            } else if m.contains("_s.") || m.ends_with("_s") {
                Unit::Seconds
            } else {
                Unit::Number
            };
            (key, None, unit)
        }
    };
    if derived.is_some() && unit_of_bound == Some(Unit::Seconds) {
        bad("the figure is a share of jobs: give the bound as a share (\"1%\" or 0.01)".into());
        return None;
    }
    if unit == Unit::Seconds && unit_of_bound == Some(Unit::Share) {
        bad("the figure is a time: give the bound as a duration (\"1h\") or in seconds".into());
        return None;
    }
    let metric_words = match (&t.over, &derived) {
        (Some(o), _) => format!("{metric} over {o}"),
        (None, _) => metric.to_string(),
    };
    let bound_text = match raw_bound {
        toml::Value::String(s) => s.clone(),
        v => v.to_string(),
    };
    Some(Target {
        label: t.label.clone().unwrap_or_else(|| metric_words.clone()),
        metric: metric_words,
        key,
        bound: if is_max { Bound::Max(b) } else { Bound::Min(b) },
        bound_text,
        unit,
        derived,
        line: l,
    })
}

/// Why `key` (a metric with `_` for `.`) cannot be a figure of the summary, with the
/// nearest names; `None` when it can (a name under a pool or tenant is checked after the
/// first replication).
fn unknown(key: &str) -> Option<String> {
    let shape = crate::metrics::SummaryShape::get();
    if shape.knows(key) {
        return None;
    }
    Some(format!(
        "summary.json has no such figure (figures near it: {} ...)",
        shape.near(key).join(", ")
    ))
}

fn objective(
    raw: &RawPlanFile,
    line: &dyn Fn(usize) -> usize,
    problems: &mut Problems,
) -> Objective {
    let Some(o) = &raw.objective else {
        return Objective {
            metric: "cost_usd.total".into(),
            key: "cost_usd_total".into(),
            per: Per::Run,
            line: None,
        };
    };
    let l = Some(line(o.span().start));
    let o = o.get_ref();
    let metric = o
        .minimize
        .clone()
        .unwrap_or_else(|| "cost_usd.total".into());
    let per = match (o.per.as_deref(), o.years) {
        (None | Some("run"), None) => Per::Run,
        (Some("month"), None) => Per::Month,
        (Some("year"), None) => Per::Years(1.0),
        (Some("year") | None, Some(y)) if y.is_finite() && y > 0.0 && y <= 100.0 => Per::Years(y),
        (_, Some(y)) if !(y.is_finite() && y > 0.0 && y <= 100.0) => {
            problems.push((
                l,
                format!("objective.years must be above 0 and at most 100, got {y}"),
            ));
            Per::Run
        }
        (p, _) => {
            let p = p.unwrap_or("");
            problems.push((
                l,
                format!("objective.per: {p:?} is not one of \"run\", \"month\", \"year\" (years = N goes with \"year\")"),
            ));
            Per::Run
        }
    };
    Objective {
        key: metric.replace('.', "_"),
        metric,
        per,
        line: l,
    }
}

fn replications(
    raw: &RawPlanFile,
    line: &dyn Fn(usize) -> usize,
    scenario_seed: u64,
    problems: &mut Problems,
) -> Replications {
    let (l, r) = match &raw.replications {
        Some(r) => (Some(line(r.span().start)), Some(r.get_ref())),
        None => (None, None),
    };
    let min = r.and_then(|r| r.min).unwrap_or(3);
    let max = r.and_then(|r| r.max).unwrap_or(10.max(min));
    let step = r.and_then(|r| r.step).unwrap_or(2);
    let confidence = r.and_then(|r| r.confidence).unwrap_or(0.95);
    if !(1..=1000).contains(&min) {
        problems.push((
            l,
            format!("replications.min must be between 1 and 1000, got {min}"),
        ));
    }
    if max < min || max > 1000 {
        problems.push((
            l,
            format!("replications.max must be between min ({min}) and 1000, got {max}"),
        ));
    }
    if !(1..=1000).contains(&step) {
        problems.push((
            l,
            format!("replications.step must be between 1 and 1000, got {step}"),
        ));
    }
    if !(confidence > 0.5 && confidence < 1.0) {
        problems.push((
            l,
            format!("replications.confidence must be above 0.5 and below 1, got {confidence}"),
        ));
    }
    let confident = match r.and_then(|r| r.decide.as_deref()) {
        None | Some("mean") => false,
        Some("confident") => true,
        Some(d) => {
            problems.push((
                l,
                format!("replications.decide: {d:?} is not \"mean\" or \"confident\""),
            ));
            false
        }
    };
    Replications {
        confident,
        min: min.clamp(1, 1000) as usize,
        max: max.clamp(1, 1000).max(min.clamp(1, 1000)) as usize,
        step: step.clamp(1, 1000) as usize,
        seed: r.and_then(|r| r.seed).unwrap_or(scenario_seed),
        confidence: if confidence > 0.5 && confidence < 1.0 {
            confidence
        } else {
            0.95
        },
    }
}

fn search(
    raw: &RawPlanFile,
    line: &dyn Fn(usize) -> usize,
    problems: &mut Problems,
) -> SearchSettings {
    let (l, s) = match &raw.search {
        Some(s) => (Some(line(s.span().start)), Some(s.get_ref())),
        None => (None, None),
    };
    let grid = match s.and_then(|s| s.method.as_deref()) {
        None | Some("auto") => false,
        Some("grid") => true,
        Some(m) => {
            problems.push((
                l,
                format!("search.method: {m:?} is not \"auto\" or \"grid\""),
            ));
            false
        }
    };
    let runner_ups = s.and_then(|s| s.runner_ups).unwrap_or(3);
    if !(0..=50).contains(&runner_ups) {
        problems.push((
            l,
            format!("search.runner_ups must be between 0 and 50, got {runner_ups}"),
        ));
    }
    let max_fleets = s.and_then(|s| s.max_fleets).unwrap_or(2000);
    if !(1..=1_000_000).contains(&max_fleets) {
        problems.push((
            l,
            format!("search.max_fleets must be between 1 and 1000000, got {max_fleets}"),
        ));
    }
    SearchSettings {
        grid,
        runner_ups: runner_ups.clamp(0, 50) as usize,
        max_fleets: max_fleets.clamp(1, 1_000_000) as usize,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every figure real runs record (data staging, spread, spot, failures by cause,
    /// tenants, pools) is a column the shape accepts: it misses no part a run names.
    #[test]
    fn the_shape_accepts_every_figure_of_real_runs() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
        for name in [
            "data-gravity",
            "topology",
            "spot-checkpointing",
            "llama3-scale-failures",
            "quickstart-mix",
        ] {
            let s = Scenario::load(&root.join(format!("{name}.toml"))).unwrap();
            let e = crate::run::execute(&s, &crate::engine::RngStreams::new(s.seed)).unwrap();
            let cols = crate::sweep::flatten_summary(&e.summary);
            assert!(cols.len() > 40, "{name}: {}", cols.len());
            for (k, _) in cols {
                assert_eq!(unknown(&k), None, "{name}: {k}");
            }
        }
    }

    #[test]
    fn the_shape_refuses_a_figure_no_summary_has() {
        for bad in [
            "costs_total",
            "wait_all_s_p96",
            "utilisation",
            "jobs_rejectd",
        ] {
            let m = unknown(bad).unwrap();
            assert!(m.contains("no such figure"), "{m}");
        }
        assert!(unknown("wait_all_s_p96")
            .unwrap()
            .contains("wait_all_s.p95"));
        for good in [
            "cost_usd_total",
            "wait_all_s_p95",
            "utilization",
            "jobs_rejected",
        ] {
            assert_eq!(unknown(good), None, "{good}");
        }
    }
}
