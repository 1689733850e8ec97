//! Intrinsic ratings (Regan and Haworth, "Intrinsic Chess Ratings", AAAI 2011): a
//! player rated by how it chooses among moves of known value, not by its results.
//!
//! A [`Choice`] is one decision: the gap of every legal move to the best one
//! (`δ_i ≥ 0`, in the values' unit) and the move chosen. A [`ChoiceModel`] gives the
//! chance of each move from its gap and the player's parameters: the one-parameter
//! softmax (Boltzmann) `p_i ∝ exp(-δ_i / s)`, or Regan's two-parameter form
//! `p_i ∝ exp(-(δ_i / s)^c)`. [`fit_choices`] finds the parameters by maximum
//! likelihood within [`S_RANGE`] and [`C_RANGE`] (a player that always plays a best
//! move, or one that chooses uniformly, ends on a bound and is said to: its
//! likelihood has no interior maximum). [`held_out_log_loss`] compares models by
//! predicting held-out games, [`bootstrap_fits`] resamples whole games, and
//! [`EloMap`] carries a fitted sensitivity to the Elo scale, calibrated on players of
//! known rating, with its residual error (see the `map` module).
//! [`Mixture`] models blunders apart from fine choices (a weak-end direction tried on
//! the calibration's games and compared by the same held-out loss; not a model the
//! calibration keeps).

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use game::derive_seed;

mod coverage;
mod map;
mod mixture;

pub use coverage::{interval_coverage, Coverage, Draws};

pub use map::{EloMap, IntrinsicElo, MapError, MapPoint};
pub use mixture::{fit_mixture, mixture_held_out_log_loss, Mixture, E_RANGE};

/// The sensitivities `s` a fit searches, in the values' unit (discs): below, a player
/// is indistinguishable from one that always plays a best move; above, from one that
/// chooses uniformly.
pub const S_RANGE: (f64, f64) = (0.05, 500.0);
/// The consistencies `c` Regan's form searches.
pub(crate) const C_RANGE: (f64, f64) = (0.2, 5.0);

/// Golden-section steps of each one-dimensional search (the bracket shrinks by 0.618
/// a step: 32 steps leave 2e-7 of it, a millionth of a natural-log unit here).
const SEARCH_STEPS: usize = 32;

/// One decision: every legal move's gap to the best, and the move chosen.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Choice {
    /// Each legal move's value below the best (0 for a best move), never negative.
    pub gaps: Vec<f64>,
    /// Index of the chosen move in `gaps`.
    pub chosen: usize,
}

impl Choice {
    /// The decision among moves of `values` (higher is better) where `chosen` was
    /// played; `None` when it carries no information (fewer than two moves, or every
    /// move of the same value: [`Choice::is_level`]), when `chosen` is not one of
    /// them, or when a value is not a number.
    ///
    /// ```
    /// let c = stats::Choice::from_values(&[2.0, -4.0, 0.0], 2).unwrap();
    /// assert_eq!(c.gaps, vec![0.0, 6.0, 2.0]);
    /// assert!(stats::Choice::from_values(&[3.0], 0).is_none());
    /// assert!(stats::Choice::from_values(&[1.0, 1.0, 1.0], 0).is_none());
    /// ```
    pub fn from_values(values: &[f64], chosen: usize) -> Option<Choice> {
        if values.len() < 2 || chosen >= values.len() || values.iter().any(|v| !v.is_finite()) {
            return None;
        }
        if Choice::is_level(values) {
            return None;
        }
        let best = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        Some(Choice {
            gaps: values.iter().map(|v| best - v).collect(),
            chosen,
        })
    }

    /// Whether `values` (two or more) are all the same: every move is a best one, each
    /// equally likely under any parameters, so the choice carries no information. Fitted,
    /// such decisions alone have a flat likelihood whose search ends on the sharpest
    /// bound: a player would read as sharper than the strongest rung.
    pub fn is_level(values: &[f64]) -> bool {
        values.len() >= 2 && values.iter().all(|&v| v == values[0])
    }

    /// The chosen move's gap.
    pub fn gap(&self) -> f64 {
        self.gaps[self.chosen]
    }
}

/// How a player's chance of each move depends on its gap.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChoiceModel {
    /// `p_i ∝ exp(-δ_i / s)`: one parameter, the sensitivity (a temperature in discs).
    Softmax,
    /// `p_i ∝ exp(-(δ_i / s)^c)`: Regan and Haworth's sensitivity and consistency.
    Regan,
}

impl ChoiceModel {
    /// Both models, the simpler first.
    pub const ALL: [ChoiceModel; 2] = [ChoiceModel::Softmax, ChoiceModel::Regan];

    /// Its name as files and tables write it.
    pub fn name(self) -> &'static str {
        match self {
            ChoiceModel::Softmax => "softmax",
            ChoiceModel::Regan => "regan",
        }
    }
}

/// A model's parameters: sensitivity `s` (smaller is sharper) and consistency `c`
/// (1 for the softmax).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Params {
    /// Sensitivity, in the values' unit.
    pub s: f64,
    /// Consistency (exponent on the scaled gap).
    pub c: f64,
}

/// Which bound of [`S_RANGE`] a fit ended on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Bound {
    /// The smallest sensitivity: as sharp as the search allows (best moves only).
    Sharpest,
    /// The largest: no better than a uniform choice.
    Flattest,
}

/// A maximum-likelihood fit of one player's decisions.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChoiceFit {
    /// The model fitted.
    pub model: ChoiceModel,
    /// Its parameters.
    pub params: Params,
    /// The log-likelihood of the decisions at `params`.
    pub log_likelihood: f64,
    /// Decisions fitted.
    pub decisions: usize,
    /// The sensitivity's bound the fit ended on, if any: the decisions place the
    /// player beyond what the search resolves.
    pub at_bound: Option<Bound>,
}

/// Log-probability of the chosen move of `choice` under `params`: the weights
/// `exp(-(δ/s)^c)` have their largest term (a best move, δ = 0) at 1, so the sum is
/// never below 1 and its logarithm is safe.
pub(crate) fn log_prob(choice: &Choice, params: Params) -> f64 {
    let exponent = |gap: f64| {
        if params.c == 1.0 {
            -gap / params.s
        } else {
            -(gap / params.s).powf(params.c)
        }
    };
    let total: f64 = choice.gaps.iter().map(|&g| exponent(g).exp()).sum();
    exponent(choice.gap()) - total.ln()
}

/// Sum of [`log_prob`] over `choices`.
pub(crate) fn log_likelihood<'a>(choices: impl IntoIterator<Item = &'a Choice>, params: Params) -> f64 {
    choices.into_iter().map(|c| log_prob(c, params)).sum()
}

/// The argument in `[low, high]` that maximises the unimodal `f`, by golden section.
fn golden_max(low: f64, high: f64, f: impl Fn(f64) -> f64) -> (f64, f64) {
    let ratio = (5f64.sqrt() - 1.0) / 2.0;
    let (mut a, mut b) = (low, high);
    let mut x1 = b - ratio * (b - a);
    let mut x2 = a + ratio * (b - a);
    let (mut f1, mut f2) = (f(x1), f(x2));
    for _ in 0..SEARCH_STEPS {
        if f1 >= f2 {
            b = x2;
            (x2, f2) = (x1, f1);
            x1 = b - ratio * (b - a);
            f1 = f(x1);
        } else {
            a = x1;
            (x1, f1) = (x2, f2);
            x2 = a + ratio * (b - a);
            f2 = f(x2);
        }
    }
    // The ends are candidates too: the maximum may lie on a bound.
    [(low, f(low)), (high, f(high)), (x1, f1), (x2, f2)]
        .into_iter()
        .fold(
            (f64::NAN, f64::NEG_INFINITY),
            |best, p| if p.1 > best.1 { p } else { best },
        )
}

/// The best sensitivity for consistency `c`, searched on `ln s`.
fn best_s(choices: &[&Choice], c: f64) -> (f64, f64) {
    let (ln_s, ll) = golden_max(S_RANGE.0.ln(), S_RANGE.1.ln(), |ln_s| {
        log_likelihood(choices.iter().copied(), Params { s: ln_s.exp(), c })
    });
    (ln_s.exp(), ll)
}

/// The maximum-likelihood fit of `model` to `choices` (searched on `ln s`, and for
/// Regan's form on `ln c` around it). Without choices the fit is uniform (the
/// flattest bound) with a log-likelihood of 0.
pub fn fit_choices<'a>(choices: impl IntoIterator<Item = &'a Choice>, model: ChoiceModel) -> ChoiceFit {
    let choices: Vec<&Choice> = choices.into_iter().collect();
    let (s, c, log_likelihood) = match model {
        ChoiceModel::Softmax => {
            let (s, ll) = best_s(&choices, 1.0);
            (s, 1.0, ll)
        }
        ChoiceModel::Regan => {
            let (ln_c, _) = golden_max(C_RANGE.0.ln(), C_RANGE.1.ln(), |ln_c| best_s(&choices, ln_c.exp()).1);
            let c = ln_c.exp();
            let (s, ll) = best_s(&choices, c);
            (s, c, ll)
        }
    };
    // Within a hundredth of a natural-log unit of a bound counts as on it.
    let near = |bound: f64| (s.ln() - bound.ln()).abs() < 0.01;
    let at_bound = if choices.is_empty() || near(S_RANGE.1) {
        Some(Bound::Flattest)
    } else if near(S_RANGE.0) {
        Some(Bound::Sharpest)
    } else {
        None
    };
    ChoiceFit {
        model,
        params: Params { s, c },
        log_likelihood,
        decisions: choices.len(),
        at_bound,
    }
}

/// Folds of [`held_out_log_loss`]: game `i` lies in fold `i % HELD_OUT_FOLDS`.
pub const HELD_OUT_FOLDS: usize = 8;

/// The mean log loss per decision of `model` on `games` (each game a list of
/// decisions), each game predicted by the fit to the games of the other folds
/// ([`HELD_OUT_FOLDS`]; with fewer games, leave one game out): lower is better.
/// `None` with fewer than two games or no decisions.
pub fn held_out_log_loss(games: &[Vec<Choice>], model: ChoiceModel) -> Option<f64> {
    held_out(
        games,
        |rest| fit_choices(rest.iter().copied(), model).params,
        |params, choice| log_prob(choice, *params),
    )
}

/// The mean log loss per decision on `games` of the model that `fit` fits to the
/// other folds' decisions and `log_prob` scores, as [`held_out_log_loss`] folds them.
fn held_out<P>(
    games: &[Vec<Choice>],
    fit: impl Fn(&[&Choice]) -> P + Sync,
    log_prob: impl Fn(&P, &Choice) -> f64 + Sync,
) -> Option<f64> {
    let decisions: usize = games.iter().map(Vec::len).sum();
    if games.len() < 2 || decisions == 0 {
        return None;
    }
    let folds = games.len().min(HELD_OUT_FOLDS);
    let losses: Vec<f64> = (0..folds)
        .into_par_iter()
        .map(|fold| {
            let (out, rest): (Vec<_>, Vec<_>) = games.iter().enumerate().partition(|(i, _)| i % folds == fold);
            let rest: Vec<&Choice> = rest.into_iter().flat_map(|(_, g)| g).collect();
            let fitted = fit(&rest);
            -out.into_iter()
                .flat_map(|(_, g)| g)
                .map(|c| log_prob(&fitted, c))
                .sum::<f64>()
        })
        .collect();
    // Summed in fold order: the same digits on every machine.
    Some(losses.iter().sum::<f64>() / decisions as f64)
}

/// `resamples` fits of `model` to whole games drawn with replacement from `games`,
/// each resample seeded from `seed` and its index (the same on every machine).
pub fn bootstrap_fits(games: &[Vec<Choice>], model: ChoiceModel, resamples: usize, seed: u64) -> Vec<ChoiceFit> {
    (0..resamples)
        .into_par_iter()
        .map(|k| {
            let mut rng = ChaCha8Rng::seed_from_u64(derive_seed(seed, k as u64));
            let picks: Vec<usize> = (0..games.len()).map(|_| rng.gen_range(0..games.len())).collect();
            fit_choices(picks.iter().flat_map(|&i| &games[i]), model)
        })
        .collect()
}

#[cfg(test)]
#[path = "intrinsic_tests.rs"]
mod tests;
