//! Checks a case states for its own results: `[check]` maps keys of `summary.json` to the
//! interval their value must fall in, e.g. the published ranges of a benchmark:
//!
//! ```toml
//! [check]
//! drag_coefficient_max = [3.22, 3.24]
//! strouhal_number = [0.295, 0.305]
//! ```
//!
//! `tumble check CASE` runs the case and reports each entry.

use super::{Case, CaseError};
use serde::Serialize;

/// One entry of `[check]`, evaluated.
#[derive(Debug, Clone, Serialize)]
pub struct CheckResult {
    /// The key of `summary.json`.
    pub key: String,
    /// The value the run reported (`None`: it reported none).
    pub value: Option<f64>,
    /// The interval `[low, high]`.
    pub range: [f64; 2],
    /// Whether the value lies in the interval.
    pub passed: bool,
}

impl Case {
    /// Checks that every key of `[check]` has a valid interval; an error names the key.
    pub fn check_ranges(&self) -> Result<Vec<(String, [f64; 2])>, CaseError> {
        let mut out = Vec::new();
        for (key, range) in self.file.check.iter().flatten() {
            if !(range[0].is_finite() && range[1].is_finite() && range[0] <= range[1]) {
                return Err(self.invalid(
                    format!("check.{key}"),
                    format!("expected [low, high] with low ≤ high, got {range:?}"),
                ));
            }
            out.push((key.clone(), *range));
        }
        Ok(out)
    }

    /// Evaluates `[check]` against a run's summary (as JSON): a key the summary does not have is
    /// an error listing the keys it has.
    pub fn check(&self, summary: &serde_json::Value) -> Result<Vec<CheckResult>, CaseError> {
        let fields = summary.as_object().cloned().unwrap_or_default();
        self.check_ranges()?
            .into_iter()
            .map(|(key, range)| {
                let Some(value) = fields.get(&key) else {
                    let known: Vec<&str> = fields
                        .iter()
                        .filter(|(_, v)| v.is_number() || v.is_null())
                        .map(|(k, _)| k.as_str())
                        .collect();
                    return Err(self.invalid(
                        format!("check.{key}"),
                        format!("summary.json has no `{key}`; its numbers are: {}", known.join(", ")),
                    ));
                };
                let value = value.as_f64();
                let passed = value.is_some_and(|v| range[0] <= v && v <= range[1]);
                Ok(CheckResult {
                    key,
                    value,
                    range,
                    passed,
                })
            })
            .collect()
    }
}
