//! The logistic Elo curve, written once: a rating difference `d` gives the stronger side
//! an expected score of `1 / (1 + 10^(-d / 400))`.

/// Elo points per unit of natural-log odds: `400 / ln 10`.
pub const ELO_PER_NAT: f64 = 400.0 / std::f64::consts::LN_10;

/// Expected score at a logistic Elo difference `elo`: `1 / (1 + 10^(-elo / 400))`.
///
/// ```
/// assert!((stats::elo_to_score(0.0) - 0.5).abs() < 1e-12);
/// assert!((stats::elo_to_score(400.0) - 10.0 / 11.0).abs() < 1e-12);
/// ```
pub fn elo_to_score(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// The logistic Elo difference of an expected score in (0, 1), the inverse of
/// [`elo_to_score`] (infinite at 0 and 1: callers that may meet them clamp first).
pub fn score_to_elo(score: f64) -> f64 {
    -400.0 * (1.0 / score - 1.0).log10()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_curve_and_its_inverse_agree() {
        for elo in [-1200.0, -400.0, -35.5, 0.0, 120.0, 800.0] {
            assert!((score_to_elo(elo_to_score(elo)) - elo).abs() < 1e-9, "{elo}");
        }
        // One natural-log unit of odds is ELO_PER_NAT Elo.
        let score = 1.0 / (1.0 + (-1.0f64).exp());
        assert!((score_to_elo(score) - ELO_PER_NAT).abs() < 1e-9);
    }
}
