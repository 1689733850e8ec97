//! Two players (or two settings of one) compared on the same colour-swapped pairs: the
//! Elo difference between them, pooled over every pair they both played, with its 95%
//! interval (what `compare` publishes beside the sign test).
//!
//! Each pair gives A's and B's per-game score on it (0, ¼, ½, ¾ or 1: a pair's points
//! halved, as [`crate::Trials`] scales a pentanomial trial). The estimate is
//! `elo(mean B) - elo(mean A)`; the interval is that of the mean paired difference
//! `d = B - A` (normal, its variance taken with [`INTERVAL_PRIOR`] pseudo-pairs at each
//! extreme `d = ±1`, as the stopping rules' interval does, so a few identical pairs
//! claim no certainty), mapped to Elo from A's mean: `elo(mean A + d) - elo(mean A)`.
//! Scores are clamped as the stopping rules clamp them (±1200 Elo).

use crate::interval::Z_95;
use crate::stopping::{clamped_elo, INTERVAL_PRIOR};
use crate::EloInterval;

/// The pooled Elo difference B minus A over `pairs`, each `(A's score, B's score)` per
/// game on one colour-swapped pair (each in `[0, 1]`), with its 95% interval; `None`
/// without a pair.
pub fn paired_elo(pairs: &[(f64, f64)]) -> Option<EloInterval> {
    if pairs.is_empty() {
        return None;
    }
    let n = pairs.len() as f64;
    let mean_a = pairs.iter().map(|p| p.0).sum::<f64>() / n;
    let mean_b = pairs.iter().map(|p| p.1).sum::<f64>() / n;
    let diffs: Vec<f64> = pairs.iter().map(|(a, b)| b - a).collect();
    // The interval's mean and variance with the pseudo-pairs at d = -1 and d = +1.
    let total = n + 2.0 * INTERVAL_PRIOR;
    let mean = diffs.iter().sum::<f64>() / total;
    let squares = diffs.iter().map(|d| (d - mean).powi(2)).sum::<f64>()
        + INTERVAL_PRIOR * ((1.0 - mean).powi(2) + (1.0 + mean).powi(2));
    let half = Z_95 * (squares / total / total).sqrt();
    let from_a = |d: f64| clamped_elo(mean_a + d) - clamped_elo(mean_a) + 0.0;
    Some(EloInterval {
        estimate: clamped_elo(mean_b) - clamped_elo(mean_a) + 0.0,
        low: from_a(mean - half),
        high: from_a(mean + half),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::elo::score_to_elo;

    #[test]
    fn equal_pairs_differ_by_nothing_with_an_interval_around_zero() {
        let elo = paired_elo(&[(0.5, 0.5); 10]).unwrap();
        assert_eq!(elo.estimate, 0.0);
        assert!(elo.low < -50.0 && elo.high > 50.0, "{elo:?}");
        assert_eq!(paired_elo(&[]), None);
    }

    #[test]
    fn a_better_b_is_ahead_by_the_curve_and_the_interval_narrows_with_pairs() {
        let few = [(0.5, 0.75), (0.25, 0.5), (0.5, 0.5), (0.75, 1.0)];
        let elo = paired_elo(&few).unwrap();
        let expected = score_to_elo(0.6875) - score_to_elo(0.5);
        assert!((elo.estimate - expected).abs() < 1e-9, "{elo:?}");
        assert!(elo.low < elo.estimate && elo.estimate < elo.high);
        let many: Vec<(f64, f64)> = few.iter().cycle().take(400).copied().collect();
        let narrow = paired_elo(&many).unwrap();
        assert!(narrow.width() < elo.width() / 5.0 && narrow.low > 0.0, "{narrow:?}");
    }
}
