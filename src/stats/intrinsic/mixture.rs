//! Blunders modelled apart from fine choices (one of the weak-end directions):
//! with chance `e` the player picks a legal move uniformly (a blunder, blind to the
//! values), else by the softmax on the gaps, `p_i = e / n + (1 - e) · softmax_i(s)`.
//! Fitted by maximum likelihood like the other models, and compared with them by the
//! same held-out log loss ([`mixture_held_out_log_loss`]).

use serde::{Deserialize, Serialize};

use super::{golden_max, held_out, log_prob, Choice, Params, S_RANGE};

/// The blunder chances a fit searches: from none to all but certain.
pub const E_RANGE: (f64, f64) = (0.0, 0.999);

/// The mixture's parameters.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Mixture {
    /// The chance of a uniform (blind) pick.
    pub e: f64,
    /// The softmax's sensitivity on the other picks, in the values' unit.
    pub s: f64,
}

impl Mixture {
    /// Log-probability of the chosen move of `choice`.
    pub fn log_prob(&self, choice: &Choice) -> f64 {
        let fine = log_prob(choice, Params { s: self.s, c: 1.0 }).exp();
        (self.e / choice.gaps.len() as f64 + (1.0 - self.e) * fine).ln()
    }

    /// Sum of [`Mixture::log_prob`] over `choices`.
    pub fn log_likelihood<'a>(&self, choices: impl IntoIterator<Item = &'a Choice>) -> f64 {
        choices.into_iter().map(|c| self.log_prob(c)).sum()
    }
}

/// The maximum-likelihood mixture for `choices`: golden section on `e` within
/// [`E_RANGE`], around the best `ln s` within [`S_RANGE`] for each `e`. Returns the
/// parameters and the log-likelihood (a uniform chooser has no unique fit: any `e`
/// near 1, or a flat `s`, does as well).
pub fn fit_mixture<'a>(choices: impl IntoIterator<Item = &'a Choice>) -> (Mixture, f64) {
    let choices: Vec<&Choice> = choices.into_iter().collect();
    let best_s = |e: f64| {
        golden_max(S_RANGE.0.ln(), S_RANGE.1.ln(), |ln_s| {
            Mixture { e, s: ln_s.exp() }.log_likelihood(choices.iter().copied())
        })
    };
    let (e, _) = golden_max(E_RANGE.0, E_RANGE.1, |e| best_s(e).1);
    let (ln_s, ll) = best_s(e);
    (Mixture { e, s: ln_s.exp() }, ll)
}

/// The mixture's mean held-out log loss per decision on `games`, folded as
/// [`super::held_out_log_loss`] folds (so the three models' losses compare).
pub fn mixture_held_out_log_loss(games: &[Vec<Choice>]) -> Option<f64> {
    held_out(
        games,
        |rest| fit_mixture(rest.iter().copied()).0,
        |fit, choice| fit.log_prob(choice),
    )
}
