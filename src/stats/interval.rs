//! Intervals and summaries of samples: Wilson's interval of a proportion, the normal
//! interval of a mean, percentiles.

/// z for a two-sided 95% interval.
pub const Z_95: f64 = 1.959_963_984_540_054;

/// `x` rounded to a whole number for printing, never as negative zero (a rating of
/// -0.3 prints `0`, not `-0`).
pub fn whole(x: f64) -> f64 {
    x.round() + 0.0
}

/// The Wilson score 95% interval for `successes` out of `trials`; (0, 1) with no trials.
///
/// ```
/// let (low, high) = stats::wilson_interval(50, 100);
/// assert!((low - 0.4038).abs() < 1e-4 && (high - 0.5962).abs() < 1e-4);
/// ```
pub fn wilson_interval(successes: u32, trials: u32) -> (f64, f64) {
    if trials == 0 {
        return (0.0, 1.0);
    }
    let n = f64::from(trials);
    let p = f64::from(successes) / n;
    let z2 = Z_95 * Z_95;
    let center = (p + z2 / (2.0 * n)) / (1.0 + z2 / n);
    let half = Z_95 * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt() / (1.0 + z2 / n);
    // The bounds are exactly 0 with no successes and 1 with no failures; the
    // arithmetic above leaves rounding noise there.
    let low = if successes == 0 { 0.0 } else { (center - half).max(0.0) };
    let high = if successes >= trials {
        1.0
    } else {
        (center + half).min(1.0)
    };
    (low, high)
}

/// The mean of `values` with its normal-approximation 95% interval (`None` when
/// empty; a single value has a zero-width interval).
pub fn mean_interval(values: &[f64]) -> Option<(f64, f64, f64)> {
    let n = values.len() as f64;
    if values.is_empty() {
        return None;
    }
    let mean = values.iter().sum::<f64>() / n;
    let variance = if values.len() > 1 {
        sample_variance(values, mean)
    } else {
        0.0
    };
    let half = Z_95 * (variance / n).sqrt();
    Some((mean, mean - half, mean + half))
}

/// The mean of `values` and their sample standard deviation (n - 1 in the divisor);
/// `None` with fewer than two values, whose spread is unknown.
pub fn mean_and_sd(values: &[f64]) -> Option<(f64, f64)> {
    if values.len() < 2 {
        return None;
    }
    let mean = values.iter().sum::<f64>() / values.len() as f64;
    Some((mean, sample_variance(values, mean).sqrt()))
}

/// The sample variance of two or more `values` about their `mean`.
fn sample_variance(values: &[f64], mean: f64) -> f64 {
    values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (values.len() as f64 - 1.0)
}

/// The sum of `values` in ascending order, so that the same values give the same
/// sum in whatever order they were gathered (a run's own tally and one rebuilt from
/// its logs add timings in different orders, and must print the same figure).
pub fn order_free_sum(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted.iter().sum()
}

/// The `p`-th percentile (0..=100) of `values` by nearest rank; `None` when empty.
pub fn percentile(values: &[f64], p: f64) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    Some(sorted[rank.clamp(1, sorted.len()) - 1])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_numbers_never_print_as_negative_zero() {
        let shown: Vec<String> = [-0.3, -0.0, 0.4, -0.6, 2.5]
            .iter()
            .map(|&x| format!("{:.0}", whole(x)))
            .collect();
        assert_eq!(shown, ["0", "0", "0", "-1", "3"]);
    }

    #[test]
    fn wilson_matches_published_values() {
        // Reference values from the Wilson formula (e.g. Newcombe 1998, table I: 81/263).
        let (low, high) = wilson_interval(81, 263);
        assert!(
            (low - 0.2553).abs() < 5e-4 && (high - 0.3662).abs() < 5e-4,
            "{low} {high}"
        );
        let (low, high) = wilson_interval(0, 10);
        assert!(low.abs() < 1e-12 && (high - 0.2775).abs() < 5e-4, "{low} {high}");
        let (low, high) = wilson_interval(10, 10);
        assert!(
            (low - 0.7225).abs() < 5e-4 && (high - 1.0).abs() < 1e-12,
            "{low} {high}"
        );
        assert_eq!(wilson_interval(0, 0), (0.0, 1.0));
    }

    #[test]
    fn a_sum_does_not_depend_on_the_order_of_its_values() {
        let values = [0.1, 1e16, 0.2, -1e16, 0.3, 7.7];
        let mut reversed = values;
        reversed.reverse();
        assert_eq!(order_free_sum(&values).to_bits(), order_free_sum(&reversed).to_bits());
        assert_ne!(
            values.iter().sum::<f64>(),
            reversed.iter().sum::<f64>(),
            "the naive sum does"
        );
    }

    #[test]
    fn percentiles_by_nearest_rank() {
        let values = [5.0, 1.0, 4.0, 2.0, 3.0];
        assert_eq!(percentile(&values, 50.0), Some(3.0));
        assert_eq!(percentile(&values, 95.0), Some(5.0));
        assert_eq!(percentile(&values, 0.0), Some(1.0));
        assert_eq!(percentile(&[], 50.0), None);
    }

    #[test]
    fn mean_intervals_by_the_normal_approximation() {
        // 1..=5: mean 3, sample sd sqrt(2.5), half-width 1.96 * sqrt(2.5 / 5).
        let (mean, low, high) = mean_interval(&[1.0, 2.0, 3.0, 4.0, 5.0]).unwrap();
        let half = 1.959_964 * 0.5f64.sqrt();
        assert!((mean - 3.0).abs() < 1e-12 && (low - (3.0 - half)).abs() < 1e-4 && (high - (3.0 + half)).abs() < 1e-4);
        assert_eq!(mean_interval(&[7.0]), Some((7.0, 7.0, 7.0)));
        assert_eq!(mean_interval(&[]), None);
    }
}
