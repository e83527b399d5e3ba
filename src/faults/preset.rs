//! Failure presets derived from published fleet statistics.

use super::{FailureDist, FailureProcess, Scope};

/// A failure cause with its relative frequency.
#[derive(Debug, Clone, PartialEq)]
pub struct Cause {
    /// Component or reason ("Faulty GPU").
    pub name: String,
    /// Category ("GPU", "Host", "Network", ...).
    pub category: String,
    /// Relative weight.
    pub weight: f64,
}

/// A named failure preset.
#[derive(Debug, Clone, PartialEq)]
pub struct FailurePreset {
    /// Name used in scenarios.
    pub name: &'static str,
    /// The process.
    pub process: FailureProcess,
}

/// Llama 3 405B pre-training ("The Llama 3 Herd of Models", Meta 2024, Table 5):
/// 419 unexpected interruptions in 54 days on 16,384 H100 GPUs, so
/// 419 / (16,384 x 54) = 4.736e-4 failures per GPU-day, exponential, with the causes'
/// counts as weights (`data/reliability/llama3_405b_unexpected_interruptions.csv`; the
/// counts, not the published percentages, which do not equal count / 419).
pub fn llama3_h100() -> FailurePreset {
    let csv = include_str!("../../data/reliability/llama3_405b_unexpected_interruptions.csv");
    let causes = csv
        .lines()
        .skip(1)
        .filter_map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            let count: f64 = f.get(2)?.trim().parse().ok()?;
            Some(Cause {
                name: f[0].to_string(),
                category: f.get(1)?.to_string(),
                weight: count,
            })
        })
        .collect();
    FailurePreset {
        name: "llama3-h100",
        process: FailureProcess {
            rate_per_day: 419.0 / (16_384.0 * 54.0),
            scope: Scope::Gpu,
            dist: FailureDist::Exponential,
            causes,
        },
    }
}

/// Looks up a preset by name.
pub fn by_name(name: &str) -> Option<FailurePreset> {
    match name {
        "llama3-h100" => Some(llama3_h100()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn llama3_preset_counts() {
        let p = llama3_h100();
        // 18 causes whose counts add to 419 (the paper's total).
        assert_eq!(p.process.causes.len(), 18);
        assert_eq!(
            p.process.causes.iter().map(|c| c.weight).sum::<f64>(),
            419.0
        );
        assert_eq!(p.process.causes[0].name, "Faulty GPU");
        assert_eq!(p.process.causes[0].weight, 148.0);
    }
}
