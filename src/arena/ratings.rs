//! Ratings on one Elo scale from finished games: a Bradley-Terry fit by maximum
//! likelihood, fixed at an anchor player, with bootstrap intervals. Pure and
//! synchronous; the resamples run on rayon's global pool, so call it from a blocking
//! thread, never from an async worker.
//!
//! # Model
//!
//! Player `i` has a rating `R_i` and beats `j` with probability
//! `1 / (1 + 10^((R_j - R_i) / 400))`. A game's score (1 win, 0.5 draw, 0 loss for the
//! first player) counts as that many wins for the first player and the rest for the
//! second, so a draw is half a win for each side. The fit maximises the likelihood
//! `Π p^s (1 - p)^(1 - s)` by Newton's method on the natural-log odds scale, with a
//! step that is halved until the likelihood does not fall. The objective is strictly
//! concave, so a handful of steps suffices; the fit stops once no rating moves by more
//! than 1e-6 Elo and gives up ([`RatingError::NoConvergence`]) after 100 steps.
//!
//! # Prior: one virtual draw at the anchor's level
//!
//! A player who won (or lost) every game has no finite maximum-likelihood rating. So
//! every player but the anchor is given one virtual draw against a phantom held at the
//! anchor's rating. In Bayesian terms that is a prior on each rating, centred on the
//! anchor, of hyperbolic-secant shape with a standard deviation of
//! `π · 400 / ln 10`, about 546 Elo: weak, but enough to keep a perfect score finite.
//! The virtual draws belong to the model, not to the data: every bootstrap resample
//! keeps them.
//!
//! How hard it pulls: between two players, the other one the anchor, `n` real games
//! with score share `f` read as `(n f + 0.5) / (n + 1)`. 7-3 in 10 games reads
//! +132 Elo instead of +147, and 70-30 in 100 games +146 instead of +147; lopsided
//! scores lose more, 9-1 reading +321 instead of +382 and 97-3 +578 instead of +604;
//! a 10-0 sweep reads +529 and a 100-0 sweep +921 instead of infinity. For an even-ish
//! pairing the pull is about `1 / (n + 1)` of the gap, a tenth at 10 games and a
//! hundredth at 100, well inside the interval either way. In a field the pulls add up
//! along the ladder and squeeze it a little toward the anchor: in a round robin of 30
//! players 50 Elo apart with 24 games per pairing, the top player, 1450 above the
//! anchor, comes out about 45 Elo low; and which player is the anchor moves the gaps
//! by a few Elo at 100 games per pairing (the tests measure both).
//!
//! The other common prior, one virtual draw for every two players who met, needs no
//! anchor, but its pull does not fade with the gap: a virtual draw between players
//! 1000 Elo apart argues as hard as one between equals, and a round robin gives a
//! player many such opponents. On the same 30-player ladder it put the top player
//! 240 Elo low, so it is not used.
//!
//! # Anchor and connectivity
//!
//! The likelihood only fixes differences. The `anchor` player is held at `anchor_elo`
//! in the fit and in every resample, so its interval has zero width. A player with no
//! chain of games to the anchor has no rating on its scale at all: the fit refuses
//! with [`RatingError::Disconnected`], naming such players.
//!
//! # Intervals
//!
//! Percentile bootstrap: the games are resampled with replacement, the ratings refit
//! from the point estimate, and the `(1 - confidence) / 2` and `(1 + confidence) / 2`
//! percentiles (nearest rank) of each player's resampled ratings are its bounds.
//! Games that share a `pair` id (the two colours of one opening) are drawn together as
//! one unit, since their results are not independent; games without one are units of
//! their own. (A resample that happens to leave out all of a player's few games leaves
//! it to the prior, at the anchor's level; its interval widens, as it should.)
//! Resample `k` draws from a generator seeded by `derive_seed(seed, k)`, so
//! the result depends only on the input and the seed, never on the thread count.

use std::collections::HashMap;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::stats::percentile;
use game::derive_seed;

/// Elo points per unit of natural-log odds: `400 / ln 10`.
const ELO_PER_NAT: f64 = 400.0 / std::f64::consts::LN_10;
/// Virtual draws of each player against the phantom at the anchor's rating.
const PRIOR_DRAWS: f64 = 1.0;
/// The fit has converged when no rating moves by more than this many Elo.
const TOLERANCE_ELO: f64 = 1e-6;
/// Newton steps before the fit gives up.
const MAX_ITERATIONS: usize = 100;
/// Halvings of one Newton step before it is taken as lost in rounding.
const MAX_HALVINGS: usize = 40;

/// One finished game between two players, from the first player's side.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct RatedGame {
    /// Index of the first player (the one `score` is for).
    pub first: usize,
    /// Index of the second player.
    pub second: usize,
    /// The first player's points: 1 for a win, 0.5 for a draw, 0 for a loss.
    pub score: f64,
    /// The games of one colour-swapped pair share an id, and are resampled together.
    pub pair: Option<u64>,
}

/// How to fit: where to fix the scale and how to draw the intervals.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct RatingOptions {
    /// The player whose rating is fixed at `anchor_elo`.
    pub anchor: usize,
    /// The anchor's rating.
    pub anchor_elo: f64,
    /// Bootstrap resamples for the intervals (1000 is plenty); 0 skips them, leaving
    /// `low` and `high` equal to `elo`.
    pub bootstrap: usize,
    /// Seed of the resamples: the same games and seed give the same intervals.
    pub seed: u64,
    /// Coverage of the intervals, strictly between 0 and 1 (0.95 for 95%).
    pub confidence: f64,
}

impl Default for RatingOptions {
    /// Player 0 at 0 Elo, 1000 resamples with seed 0, 95% intervals.
    fn default() -> Self {
        RatingOptions {
            anchor: 0,
            anchor_elo: 0.0,
            bootstrap: 1000,
            seed: 0,
            confidence: 0.95,
        }
    }
}

/// One player's rating with its bootstrap interval and record.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Rating {
    /// The maximum-likelihood rating (with the prior), in Elo.
    pub elo: f64,
    /// Lower bound of the interval.
    pub low: f64,
    /// Upper bound of the interval.
    pub high: f64,
    /// Real games played (the prior's virtual draws are not counted).
    pub games: u32,
    /// Real points scored: a win 1, a draw 0.5.
    pub score: f64,
}

/// Why ratings could not be fitted.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum RatingError {
    /// The game list is empty.
    #[error("no games to rate; play at least one game between the players")]
    NoGames,
    /// The anchor is not one of the players.
    #[error("anchor {anchor} is not a player (there are {players}); pick an index below {players}")]
    BadAnchor {
        /// The anchor asked for.
        anchor: usize,
        /// The number of players.
        players: usize,
    },
    /// The confidence is not strictly between 0 and 1.
    #[error("confidence {confidence} is not strictly between 0 and 1; use e.g. 0.95 for 95% intervals")]
    BadConfidence {
        /// The confidence asked for.
        confidence: f64,
    },
    /// A game names a player index out of range.
    #[error("game {index} names player {player}, but there are {players} players; number them from 0")]
    UnknownPlayer {
        /// Position of the game in the list.
        index: usize,
        /// The index it names.
        player: usize,
        /// The number of players.
        players: usize,
    },
    /// A game pits a player against itself.
    #[error("game {index} pits player {player} against itself; leave it out")]
    SelfGame {
        /// Position of the game in the list.
        index: usize,
        /// The player.
        player: usize,
    },
    /// A game's score is not a number from 0 to 1.
    #[error("game {index} has score {score}; give the first player's points from 0 to 1 (1 win, 0.5 draw, 0 loss)")]
    BadScore {
        /// Position of the game in the list.
        index: usize,
        /// The score it has.
        score: f64,
    },
    /// Some players have no chain of games to the anchor.
    #[error(
        "players {players:?} have no chain of games to the anchor {anchor}; \
         play games that link them or rate each group on its own"
    )]
    Disconnected {
        /// The players cut off, in increasing order.
        players: Vec<usize>,
        /// The anchor.
        anchor: usize,
    },
    /// The fit did not settle (it should always; report the games).
    #[error("the rating fit did not converge in {iterations} steps; this is a bug, report the games that caused it")]
    NoConvergence {
        /// Newton steps taken.
        iterations: usize,
    },
}

/// Fits ratings for `players` players (indices `0..players`) from `games`, the
/// `options.anchor` player fixed at `options.anchor_elo`, with percentile-bootstrap
/// intervals; the module doc gives the model and the prior. The ratings come back in
/// player order.
///
/// ```
/// use arena::{fit_ratings, RatedGame, RatingOptions};
///
/// // Player 1 scores 3 out of 4 against player 0, who is held at 1000.
/// let games: Vec<RatedGame> = [1.0, 1.0, 1.0, 0.0]
///     .iter()
///     .map(|&score| RatedGame { first: 1, second: 0, score, pair: None })
///     .collect();
/// let options = RatingOptions { anchor: 0, anchor_elo: 1000.0, ..RatingOptions::default() };
/// let ratings = fit_ratings(2, &games, &options).unwrap();
/// assert_eq!(ratings[0].elo, 1000.0);
/// // With the prior's virtual draw at the anchor's level the fit sees 3.5 out of 5:
/// // 1000 + 400 log10(7/3).
/// assert!((ratings[1].elo - 1147.2).abs() < 0.1);
/// assert!(ratings[1].low < ratings[1].elo && ratings[1].elo < ratings[1].high);
/// ```
pub fn fit_ratings(players: usize, games: &[RatedGame], options: &RatingOptions) -> Result<Vec<Rating>, RatingError> {
    fit_ratings_held(players, games, options, &[])
}

/// [`fit_ratings`] with more players held fixed beside the anchor: each of `held` at
/// its rating (a published ladder's engines), so only the others are fitted. A held
/// player's interval has zero width, as the anchor's has; every other player needs a
/// chain of games to the anchor or to one of them, and its prior's virtual draw is at
/// the anchor's level.
pub fn fit_ratings_held(
    players: usize,
    games: &[RatedGame],
    options: &RatingOptions,
    held: &[(usize, f64)],
) -> Result<Vec<Rating>, RatingError> {
    validate(players, games, options)?;
    let anchor = options.anchor;
    if let Some(&(player, _)) = held.iter().find(|(player, _)| *player >= players) {
        return Err(RatingError::BadAnchor {
            anchor: player,
            players,
        });
    }
    let mut fixed = vec![false; players];
    fixed[anchor] = true;
    // Natural-log odds from the anchor's rating: the fit's own units.
    let mut start = vec![0.0; players + 1];
    for &(player, elo) in held.iter().filter(|(player, _)| *player != anchor) {
        fixed[player] = true;
        start[player] = (elo - options.anchor_elo) / ELO_PER_NAT;
    }
    let cut_off = unreached(games, &fixed);
    if !cut_off.is_empty() {
        return Err(RatingError::Disconnected {
            players: cut_off,
            anchor,
        });
    }

    let units = Units::new(&fixed, games);
    let all: Vec<usize> = (0..units.units.len()).collect();
    let point = fit(&fixed, &units.tally(&all), start)?;

    let samples: Vec<Vec<f64>> = (0..options.bootstrap)
        .into_par_iter()
        .map(|k| {
            let mut rng = ChaCha8Rng::seed_from_u64(derive_seed(options.seed, k as u64));
            let picks: Vec<usize> = (0..all.len()).map(|_| rng.gen_range(0..all.len())).collect();
            fit(&fixed, &units.tally(&picks), point.clone())
        })
        .collect::<Result<_, _>>()?;

    let to_elo = |theta: f64| options.anchor_elo + theta * ELO_PER_NAT;
    let low_rank = 50.0 * (1.0 - options.confidence);
    let high_rank = 50.0 * (1.0 + options.confidence);
    let mut ratings: Vec<Rating> = (0..players)
        .map(|player| {
            let elo = to_elo(point[player]);
            let resampled: Vec<f64> = samples.iter().map(|sample| to_elo(sample[player])).collect();
            Rating {
                elo,
                low: percentile(&resampled, low_rank).unwrap_or(elo),
                high: percentile(&resampled, high_rank).unwrap_or(elo),
                games: 0,
                score: 0.0,
            }
        })
        .collect();
    // Exactly as given (the round trip through log odds may move the last digit).
    for &(player, elo) in held.iter().filter(|(player, _)| *player != anchor) {
        (ratings[player].elo, ratings[player].low, ratings[player].high) = (elo, elo, elo);
    }
    for game in games {
        ratings[game.first].games += 1;
        ratings[game.first].score += game.score;
        ratings[game.second].games += 1;
        ratings[game.second].score += 1.0 - game.score;
    }
    Ok(ratings)
}

/// Where `elo` falls on a ladder of named ratings (in any order), for a report line:
/// "between alphabeta:1 (812) and greedy (905)", "above reference (1450)",
/// "below random (0)", or "level with greedy (905)" on an exact tie.
///
/// ```
/// use arena::ladder_position;
///
/// let ladder = [("random".to_string(), 0.0), ("greedy".to_string(), 905.0), ("alphabeta:1".to_string(), 812.4)];
/// assert_eq!(ladder_position(&ladder, 850.0), "between alphabeta:1 (812) and greedy (905)");
/// assert_eq!(ladder_position(&ladder, -30.0), "below random (0)");
/// ```
pub fn ladder_position(ratings: &[(String, f64)], elo: f64) -> String {
    let mut ladder: Vec<&(String, f64)> = ratings.iter().collect();
    ladder.sort_by(|a, b| a.1.total_cmp(&b.1));
    let level: Vec<String> = ladder
        .iter()
        .filter(|rung| rung.1 == elo)
        .map(|rung| named(rung))
        .collect();
    if !level.is_empty() {
        return format!("level with {}", level.join(" and "));
    }
    let below = ladder.iter().rev().find(|rung| rung.1 < elo);
    let above = ladder.iter().find(|rung| rung.1 > elo);
    match (below, above) {
        (Some(below), Some(above)) => format!("between {} and {}", named(below), named(above)),
        (Some(below), None) => format!("above {}", named(below)),
        (None, Some(above)) => format!("below {}", named(above)),
        // An empty ladder, or a rating that is not a number.
        (None, None) => "not on the ladder".to_string(),
    }
}

/// "name (rating)", the rating rounded to a whole number (never "-0").
fn named((name, elo): &(String, f64)) -> String {
    format!("{name} ({:.0})", elo.round() + 0.0)
}

fn validate(players: usize, games: &[RatedGame], options: &RatingOptions) -> Result<(), RatingError> {
    if options.anchor >= players {
        return Err(RatingError::BadAnchor {
            anchor: options.anchor,
            players,
        });
    }
    // Also refuses NaN.
    if !(options.confidence > 0.0 && options.confidence < 1.0) {
        return Err(RatingError::BadConfidence {
            confidence: options.confidence,
        });
    }
    if games.is_empty() {
        return Err(RatingError::NoGames);
    }
    for (index, game) in games.iter().enumerate() {
        for player in [game.first, game.second] {
            if player >= players {
                return Err(RatingError::UnknownPlayer { index, player, players });
            }
        }
        if game.first == game.second {
            return Err(RatingError::SelfGame {
                index,
                player: game.first,
            });
        }
        if !(0.0..=1.0).contains(&game.score) {
            return Err(RatingError::BadScore {
                index,
                score: game.score,
            });
        }
    }
    Ok(())
}

/// The players with no chain of games to a `fixed` one, in increasing order.
fn unreached(games: &[RatedGame], fixed: &[bool]) -> Vec<usize> {
    let players = fixed.len();
    let mut opponents = vec![Vec::new(); players];
    for game in games {
        opponents[game.first].push(game.second);
        opponents[game.second].push(game.first);
    }
    let mut reached = fixed.to_vec();
    let mut stack: Vec<usize> = (0..players).filter(|&player| fixed[player]).collect();
    while let Some(player) = stack.pop() {
        for &opponent in &opponents[player] {
            if !reached[opponent] {
                reached[opponent] = true;
                stack.push(opponent);
            }
        }
    }
    (0..players).filter(|&player| !reached[player]).collect()
}

/// The head-to-head record of two players, `a < b`, as the fit sees it.
#[derive(Clone, Copy, Debug)]
struct Pairing {
    a: usize,
    b: usize,
    /// Games, virtual draws included.
    games: f64,
    /// Points of `a`, virtual draws included.
    points: f64,
}

/// The games as resampling units: a colour-swapped pair, or a game without a pair id.
struct Units {
    /// The players held fixed (the anchor among them): they get no virtual draw.
    fixed: Vec<bool>,
    /// The pairings that met, each as (a, b) with `a < b`.
    pairings: Vec<(usize, usize)>,
    /// Each unit's games, as (pairing, points of its `a`).
    units: Vec<Vec<(usize, f64)>>,
}

impl Units {
    fn new(fixed: &[bool], games: &[RatedGame]) -> Units {
        let mut pairings = Vec::new();
        let mut pairing_of = HashMap::new();
        let mut units: Vec<Vec<(usize, f64)>> = Vec::new();
        let mut unit_of = HashMap::new();
        for game in games {
            let (a, b, points) = if game.first < game.second {
                (game.first, game.second, game.score)
            } else {
                (game.second, game.first, 1.0 - game.score)
            };
            let pairing = *pairing_of.entry((a, b)).or_insert_with(|| {
                pairings.push((a, b));
                pairings.len() - 1
            });
            let unit = match game.pair {
                Some(id) => *unit_of.entry(id).or_insert_with(|| {
                    units.push(Vec::new());
                    units.len() - 1
                }),
                None => {
                    units.push(Vec::new());
                    units.len() - 1
                }
            };
            units[unit].push((pairing, points));
        }
        Units {
            fixed: fixed.to_vec(),
            pairings,
            units,
        }
    }

    /// The records of every pairing over the units `picks` (repeats count again),
    /// then the prior's virtual draws against the phantom (the player after the last)
    /// for every player not held fixed.
    fn tally(&self, picks: &[usize]) -> Vec<Pairing> {
        let mut records: Vec<Pairing> = self
            .pairings
            .iter()
            .map(|&(a, b)| Pairing {
                a,
                b,
                games: 0.0,
                points: 0.0,
            })
            .collect();
        for &unit in picks {
            for &(pairing, points) in &self.units[unit] {
                records[pairing].games += 1.0;
                records[pairing].points += points;
            }
        }
        let phantom = self.fixed.len();
        records.extend((0..phantom).filter(|&a| !self.fixed[a]).map(|a| Pairing {
            a,
            b: phantom,
            games: PRIOR_DRAWS,
            points: 0.5 * PRIOR_DRAWS,
        }));
        records
    }
}

/// The maximum-likelihood ratings in natural-log odds by Newton's method from
/// `start`: one entry per player, then the phantom's. The `fixed` players (the anchor
/// at 0, held ones at their ratings) and the phantom (at 0) stay where `start` puts
/// them. The phantom's draws tie every other player to a fixed point, so each step's
/// system is positive definite.
fn fit(fixed: &[bool], records: &[Pairing], start: Vec<f64>) -> Result<Vec<f64>, RatingError> {
    // Row of each free player in the reduced system; fixed ones and the phantom have none.
    let mut free = 0;
    let row: Vec<Option<usize>> = fixed
        .iter()
        .chain(std::iter::once(&true))
        .map(|&held| {
            (!held).then(|| {
                free += 1;
                free - 1
            })
        })
        .collect();
    let n = free;
    let mut theta = start;
    let mut likelihood = log_likelihood(records, &theta);
    for iteration in 0..MAX_ITERATIONS {
        // Gradient and Fisher information (minus the Hessian) of the log-likelihood.
        let mut gradient = vec![0.0; n];
        let mut information = vec![0.0; n * n];
        for record in records {
            let p = sigmoid(theta[record.a] - theta[record.b]);
            let slope = record.points - record.games * p;
            let weight = record.games * p * (1.0 - p);
            let (ra, rb) = (row[record.a], row[record.b]);
            if let Some(i) = ra {
                gradient[i] += slope;
                information[i * n + i] += weight;
            }
            if let Some(j) = rb {
                gradient[j] -= slope;
                information[j * n + j] += weight;
            }
            if let (Some(i), Some(j)) = (ra, rb) {
                information[i * n + j] -= weight;
                information[j * n + i] -= weight;
            }
        }
        let step = solve_positive_definite(information, gradient, n)
            .ok_or(RatingError::NoConvergence { iterations: iteration })?;
        let largest = step.iter().fold(0.0f64, |m, s| m.max(s.abs())) * ELO_PER_NAT;
        let moved = |scale: f64| -> Vec<f64> {
            let mut next = theta.clone();
            for (player, r) in row.iter().enumerate() {
                if let Some(r) = r {
                    next[player] += scale * step[*r];
                }
            }
            next
        };
        if largest < TOLERANCE_ELO {
            return Ok(moved(1.0));
        }
        // Halve the step until the likelihood does not fall (allowing for rounding).
        let slack = 1e-12 * likelihood.abs().max(1.0);
        let mut scale = 1.0;
        let mut taken = None;
        for _ in 0..MAX_HALVINGS {
            let next = moved(scale);
            let next_likelihood = log_likelihood(records, &next);
            if next_likelihood >= likelihood - slack {
                taken = Some((next, next_likelihood));
                break;
            }
            scale *= 0.5;
        }
        match taken {
            Some((next, next_likelihood)) => {
                theta = next;
                likelihood = next_likelihood;
            }
            // No step helps: the maximum is within rounding of here.
            None => return Ok(theta),
        }
    }
    Err(RatingError::NoConvergence {
        iterations: MAX_ITERATIONS,
    })
}

fn log_likelihood(records: &[Pairing], theta: &[f64]) -> f64 {
    records
        .iter()
        .map(|record| {
            let d = theta[record.a] - theta[record.b];
            record.points * log_sigmoid(d) + (record.games - record.points) * log_sigmoid(-d)
        })
        .sum()
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// `ln(sigmoid(x))` without overflow: `-softplus(-x)`.
fn log_sigmoid(x: f64) -> f64 {
    x.min(0.0) - (-x.abs()).exp().ln_1p()
}

/// Solves `a x = b` for a symmetric positive definite `n` by `n` matrix `a` (row
/// major) by Cholesky factorisation; `None` when `a` is not positive definite.
fn solve_positive_definite(mut a: Vec<f64>, mut b: Vec<f64>, n: usize) -> Option<Vec<f64>> {
    // a = L L^T, L written over the lower triangle.
    for j in 0..n {
        let diagonal = a[j * n + j] - (0..j).map(|k| a[j * n + k] * a[j * n + k]).sum::<f64>();
        if !(diagonal > 0.0 && diagonal.is_finite()) {
            return None;
        }
        let diagonal = diagonal.sqrt();
        a[j * n + j] = diagonal;
        for i in j + 1..n {
            let dot = (0..j).map(|k| a[i * n + k] * a[j * n + k]).sum::<f64>();
            a[i * n + j] = (a[i * n + j] - dot) / diagonal;
        }
    }
    // L y = b, then L^T x = y, both over b.
    for i in 0..n {
        let dot = (0..i).map(|k| a[i * n + k] * b[k]).sum::<f64>();
        b[i] = (b[i] - dot) / a[i * n + i];
    }
    for i in (0..n).rev() {
        let dot = (i + 1..n).map(|k| a[k * n + i] * b[k]).sum::<f64>();
        b[i] = (b[i] - dot) / a[i * n + i];
    }
    Some(b)
}

#[cfg(test)]
mod tests;
