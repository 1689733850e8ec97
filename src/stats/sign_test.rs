//! The two-sided exact sign test, for paired comparisons (the same opening played by two
//! runs: which did better).

/// The probability, under no difference, of a split at least as uneven as `better`
/// against `worse` (ties dropped before calling).
///
/// ```
/// // 8 of 10 one way: 2 * (1 + 10 + 45) / 1024.
/// assert!((stats::sign_test(8, 2) - 0.109375).abs() < 1e-12);
/// ```
pub fn sign_test(better: u32, worse: u32) -> f64 {
    let n = better + worse;
    if n == 0 {
        return 1.0;
    }
    let k = better.min(worse);
    // P(X <= k) for X ~ Binomial(n, 1/2), summed in log space for large n.
    let ln_choose = |n: u32, r: u32| -> f64 { (1..=r).map(|i| (f64::from(n - r + i) / f64::from(i)).ln()).sum() };
    let tail: f64 = (0..=k)
        .map(|i| (ln_choose(n, i) - f64::from(n) * 2f64.ln()).exp())
        .sum();
    (2.0 * tail).min(1.0)
}

#[cfg(test)]
mod tests {
    use super::sign_test;

    #[test]
    fn sign_test_matches_the_binomial() {
        // 8 of 10 one way: P = 2 * (1 + 10 + 45) / 1024 = 0.109375.
        assert!((sign_test(8, 2) - 0.109375).abs() < 1e-12);
        assert!((sign_test(2, 8) - 0.109375).abs() < 1e-12);
        assert_eq!(sign_test(5, 5), 1.0);
        assert_eq!(sign_test(0, 0), 1.0);
        // 20 of 20: 2 / 2^20.
        assert!((sign_test(20, 0) - 2.0 / 1_048_576.0).abs() < 1e-15);
    }
}
