//! The tables `probe` prints: a move probe's grades, mean regret and fallbacks
//! ([`ProbeResults::text`]), a rules probe's shares ([`RulesProbeResults::text`]).

use std::fmt::Write as _;

use crate::results_file::{GradeCounts, ProbeResults, RulesProbeResults};

/// One line of grades: each count with its share, the accuracy with its interval.
fn grades_line(out: &mut String, label: &str, grades: &GradeCounts) {
    let total = grades.correct + grades.wrong + grades.invalid + grades.error;
    let pct = |k: u32| {
        if total == 0 {
            0.0
        } else {
            100.0 * f64::from(k) / f64::from(total)
        }
    };
    let _ = writeln!(
        out,
        "  {label}: correct {} ({:.1}% [{:.1}, {:.1}]), wrong {} ({:.1}%), invalid {} ({:.1}%), error {} ({:.1}%)",
        grades.correct,
        pct(grades.correct),
        100.0 * grades.accuracy_ci_low,
        100.0 * grades.accuracy_ci_high,
        grades.wrong,
        pct(grades.wrong),
        grades.invalid,
        pct(grades.invalid),
        grades.error,
        pct(grades.error)
    );
}

impl ProbeResults {
    /// The probe's table for player `who` on the positions of `source`: the grades,
    /// the mean regret, fallbacks and invalid answers.
    pub fn text(&self, who: &str, source: &str) -> String {
        let n = self.positions;
        let mut out = format!("{who} on {n} positions from {source}:\n");
        grades_line(&mut out, "against the reference's best moves", &self.against_best);
        if let (Some(name), Some(counts)) = (&self.teacher, &self.against_teacher) {
            grades_line(
                &mut out,
                &format!("against {name}'s move (seed 000's test_inference)"),
                counts,
            );
        }
        if let Some(m) = &self.mean_regret {
            let _ = writeln!(
                out,
                "  mean regret of the model's own moves: {:.2} discs [{:.2}, {:.2}] over {} moves ({} scored exactly)",
                m.mean, m.ci_low, m.ci_high, self.model_moves, m.exact_moves
            );
        }
        let (fallback, invalid_answers) = (self.fallback_moves, self.invalid_answers);
        let _ = writeln!(
            out,
            "  fallback moves (invalid): {fallback} of {n} ({:.1}% [{:.1}, {:.1}]); invalid answers {invalid_answers} ({:.2} per position)",
            100.0 * f64::from(fallback) / f64::from(n.max(1)),
            100.0 * self.fallback_ci_low,
            100.0 * self.fallback_ci_high,
            f64::from(invalid_answers) / f64::from(n.max(1))
        );
        out
    }
}

impl RulesProbeResults {
    /// The rules probe's table for player `who` on the positions of `source`: each
    /// share with its interval, then the answers not scored.
    pub fn text(&self, who: &str, source: &str) -> String {
        let mut out = format!(
            "{who} on {} positions from {source} (--ask {}):\n",
            self.positions, self.ask
        );
        for share in &self.shares {
            let _ = writeln!(
                out,
                "  {:14} {:5.1}% [{:5.1}, {:5.1}]  ({} of {})",
                share.name,
                100.0 * share.rate,
                100.0 * share.ci_low,
                100.0 * share.ci_high,
                share.hits,
                share.of
            );
        }
        let _ = writeln!(
            out,
            "  unreadable answers {} (scored as wrong); cut off at the token limit {}, failed requests {} (not scored)",
            self.unreadable, self.cut_off, self.errors
        );
        out
    }
}
