//! How often intrinsic intervals hold the truth: players of known rating rated again
//! and again from a few of their games, drawn at random.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use game::derive_seed;

use super::{bootstrap_fits, fit_choices, Choice, ChoiceModel, EloMap};

/// The outcome of [`interval_coverage`]: of `samples` draws, how many got a number,
/// how many of those intervals held the true rating, and their summed width.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Coverage {
    /// Draws of games made.
    pub samples: usize,
    /// Draws whose fit the map rated (inside its range, not on a bound).
    pub rated: usize,
    /// Rated draws whose 95% interval held the true rating.
    pub held: usize,
    /// The rated draws' interval widths, summed (Elo).
    pub width_sum: f64,
}

impl Coverage {
    /// The share of rated draws whose interval held the truth (`None` with none rated).
    pub fn held_share(&self) -> Option<f64> {
        (self.rated > 0).then(|| self.held as f64 / self.rated as f64)
    }

    /// The share of draws the map rated (`None` with no draws).
    pub fn rated_share(&self) -> Option<f64> {
        (self.samples > 0).then(|| self.rated as f64 / self.samples as f64)
    }

    /// The mean width of the rated draws' intervals (`None` with none rated).
    pub fn mean_width(&self) -> Option<f64> {
        (self.rated > 0).then(|| self.width_sum / self.rated as f64)
    }
}

/// Two tallies together.
impl std::ops::Add for Coverage {
    type Output = Coverage;

    fn add(self, other: Coverage) -> Coverage {
        Coverage {
            samples: self.samples + other.samples,
            rated: self.rated + other.rated,
            held: self.held + other.held,
            width_sum: self.width_sum + other.width_sum,
        }
    }
}

/// How [`interval_coverage`] draws: `samples` sets of `k` games, each rated with
/// `resamples` bootstrap fits, seeded from `seed`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Draws {
    /// Games in each set.
    pub k: usize,
    /// Sets drawn.
    pub samples: usize,
    /// Bootstrap fits of each set's interval.
    pub resamples: usize,
    /// The seed of the first draw (each draw's own is derived from it and its index).
    pub seed: u64,
}

/// Draws `draws.samples` sets of `draws.k` whole games from `games` (with
/// replacement: a player's games stand for the games it would play), rates each set as
/// `rate` would (the `model` fitted, bootstrap fits over the set's games, through
/// `map`), and counts how often the 95% interval holds `truth`. The same on every
/// machine. No games or `k` = 0 draws nothing.
pub fn interval_coverage(
    games: &[Vec<Choice>],
    model: ChoiceModel,
    map: &EloMap,
    truth: f64,
    draws: Draws,
) -> Coverage {
    let Draws {
        k,
        samples,
        resamples,
        seed,
    } = draws;
    if games.is_empty() || k == 0 {
        return Coverage::default();
    }
    (0..samples)
        .into_par_iter()
        .map(|draw| {
            let draw_seed = derive_seed(seed, draw as u64);
            let mut rng = ChaCha8Rng::seed_from_u64(draw_seed);
            let drawn: Vec<Vec<Choice>> = (0..k).map(|_| games[rng.gen_range(0..games.len())].clone()).collect();
            let fit = fit_choices(drawn.iter().flatten(), model);
            let resampled = bootstrap_fits(&drawn, model, resamples, derive_seed(draw_seed, 1));
            let rated = map.rate(&fit, &resampled);
            match (rated.low, rated.high) {
                (Some(low), Some(high)) => Coverage {
                    samples: 1,
                    rated: 1,
                    held: usize::from((low..=high).contains(&truth)),
                    width_sum: high - low,
                },
                _ => Coverage {
                    samples: 1,
                    ..Coverage::default()
                },
            }
        })
        .collect::<Vec<_>>()
        .into_iter()
        .fold(Coverage::default(), std::ops::Add::add)
}
