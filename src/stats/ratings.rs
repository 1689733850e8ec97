//! Ratings on one Elo scale from finished games: a Bradley-Terry fit by maximum
//! likelihood, fixed at an anchor player, with intervals from the bootstrap and the
//! likelihood. Pure and synchronous; the resamples run on rayon's global pool, so call
//! it from a blocking thread, never from an async worker.
//!
//! # Model
//!
//! Player `i` has a rating `R_i` and beats `j` with probability
//! `1 / (1 + 10^((R_j - R_i) / 400))`. A game's score (1 win, 0.5 draw, 0 loss for the
//! first player) counts as that many wins for the first player and the rest for the
//! second, so a draw is half a win for each side. A game of a player against itself
//! says nothing of its rating: it is left out, with a note ([`RatingFit::notes`]).
//!
//! # Solving
//!
//! The fit maximises the likelihood `Π p^s (1 - p)^(1 - s)` by Newton's method on the
//! natural-log odds scale. The Hessian is a weighted graph Laplacian over the pairings
//! that met (plus the prior's weights on its diagonal), so each Newton step is solved
//! by conjugate gradients preconditioned by that diagonal: every pass is one pass over
//! the pairings, and the cost grows with the games, not with the players squared (1,000
//! players with 20 games each: `othello-arena bench rate`). A step is halved until it
//! gains what its slope promises; before the first step, and after any step that had
//! to be cut, one sweep of one-player maximisations (each rating with the others held,
//! Newton's method kept in a bracket) brings in the players that are far from their
//! place, such as a clean sweep of a long ladder starting from level, or a player a
//! resample drew few games of. The objective is strictly concave, so this always
//! settles; the fit stops once the Newton step moves no rating by more than 1e-6 Elo
//! and gives up ([`RatingError::NoConvergence`], naming the players still moving) after
//! 100 steps. Every resample starts from the point estimate.
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
//! with [`RatingError::Disconnected`], naming such players. The fit is given the
//! players' names, and every error about a player names it.
//!
//! # Intervals
//!
//! Each player's interval is the union of two:
//!
//! - the percentile bootstrap: the games are resampled with replacement, the ratings
//!   refit from the point estimate, and the `(1 - confidence) / 2` and
//!   `(1 + confidence) / 2` percentiles (nearest rank) of each player's resampled
//!   ratings are its bounds. Games that share a `pair` id (the two colours of one
//!   opening) are drawn together as one unit, since their results are not
//!   independent; games without one are units of their own. (A resample that happens
//!   to leave out all of a player's few games leaves it to the prior, at the anchor's
//!   level; its interval widens, as it should.) Resample `k` draws from a generator
//!   seeded by `derive_seed(seed, k)`, so the result depends only on the input and the
//!   seed, never on the thread count. At least [`MIN_BOOTSTRAP`] resamples, or none.
//! - the likelihood interval of the player's own games, every other rating held at its
//!   estimate: the ratings whose log-likelihood is within `z² / 2` of the maximum
//!   (`z` the normal quantile of `(1 + confidence) / 2`: 1.92 at 95%), the prior's
//!   draw included. Holding the others makes it the narrowest interval the player's games
//!   allow (the profile interval, which lets them move, is wider), so it is a floor,
//!   not an estimate; it contains the estimate by construction, and the prior's draw
//!   keeps both its ends finite.
//!
//! The bootstrap alone fails where a player's games all went one way: a 20-0 sweep
//! resamples to 20-0 every time and reads "645 [645, 645]", and a handful of resamples
//! gives bounds that can exclude the estimate. The likelihood interval of that sweep is
//! [301, 1487]: the union is never narrower than the data allow and always holds the
//! estimate; where the bootstrap is healthy it is the wider of the two and the union is
//! the bootstrap's interval.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::elo::ELO_PER_NAT;
use crate::interval::percentile;
use game::derive_seed;
use solve::{normal_quantile, Graph, Stuck, Tally};

mod solve;

/// Virtual draws of each player against the phantom at the anchor's rating.
const PRIOR_DRAWS: f64 = 1.0;
/// The fewest bootstrap resamples (0 aside) for an interval: at 95%, the 2.5% and
/// 97.5% ranks of fewer than 40 resamples are their minimum and maximum, and of 100
/// the 3rd from each end.
pub const MIN_BOOTSTRAP: usize = 100;

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
    /// Bootstrap resamples for the intervals: at least [`MIN_BOOTSTRAP`] (1000 is
    /// plenty), or 0 for the likelihood intervals alone.
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

/// One player's rating with its interval and record.
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

/// The ratings of a fit, in player order, and what it left out.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RatingFit {
    /// One per player.
    pub ratings: Vec<Rating>,
    /// Positions in the game list of the games left out (a player against itself).
    pub skipped: Vec<usize>,
    /// What a reader should know of the games left out, one line each.
    pub notes: Vec<String>,
}

/// How far a fit is, for a progress line: the work publishes, the caller reads.
#[derive(Debug, Default)]
pub struct RatingWatch {
    /// Resamples refitted so far, over every fit that was given this watch.
    pub resamples_done: AtomicUsize,
    /// Resamples asked for so far: each fit adds its own when it starts them.
    pub resamples_total: AtomicUsize,
}

/// Why ratings could not be fitted.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum RatingError {
    /// The game list is empty (once the games of a player against itself are left out).
    #[error("no games to rate; play at least one game between two players")]
    NoGames,
    /// The anchor (or a held player) is not one of the players.
    #[error("anchor {anchor} is not a player (there are {players}); pick an index below {players}")]
    BadAnchor {
        /// The index asked for.
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
    /// Too few bootstrap resamples for their percentiles to mean anything.
    #[error(
        "too few bootstrap resamples ({resamples}) for an interval; ask for at least {min} \
         (1000 is plenty)"
    )]
    TooFewResamples {
        /// The resamples asked for.
        resamples: usize,
        /// The fewest taken.
        min: usize,
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
    /// A game's score is not a number from 0 to 1.
    #[error(
        "game {index} ({first} against {second}) has score {score}; give the first player's points \
         from 0 to 1 (1 win, 0.5 draw, 0 loss)"
    )]
    BadScore {
        /// Position of the game in the list.
        index: usize,
        /// The first player.
        first: String,
        /// The second player.
        second: String,
        /// The score it has.
        score: f64,
    },
    /// Some players have no chain of games to the anchor.
    #[error(
        "players {} have no chain of games to the anchor {anchor}; \
         play games that link them or rate each group on its own",
        players.join(", ")
    )]
    Disconnected {
        /// The players cut off, in player order.
        players: Vec<String>,
        /// The anchor.
        anchor: String,
    },
    /// The fit did not settle (it should always; report the games).
    #[error(
        "the rating fit did not converge in {iterations} steps (still moving: {}); \
         this is a bug, report the games that caused it",
        players.join(", ")
    )]
    NoConvergence {
        /// Newton steps taken.
        iterations: usize,
        /// The players the last step still moved.
        players: Vec<String>,
    },
}

/// Fits ratings for the players `players` (named, indexed by position) from `games`,
/// the `options.anchor` player fixed at `options.anchor_elo`, with intervals from the
/// bootstrap and the likelihood; the module doc gives the model, the prior and the
/// intervals. The ratings come back in player order. Each of `held` is held at its
/// rating beside the anchor (a published ladder's engines), so only the others are
/// fitted: a held player's interval has zero width, as the anchor's has; every other
/// player needs a chain of games to the anchor or to one of them, and its prior's
/// virtual draw is at the anchor's level. The resamples are counted on `watch` as they
/// finish.
///
/// ```
/// use stats::{fit_ratings, RatedGame, RatingOptions, RatingWatch};
///
/// // Player 1 scores 3 out of 4 against player 0, who is held at 1000.
/// let games: Vec<RatedGame> = [1.0, 1.0, 1.0, 0.0]
///     .iter()
///     .map(|&score| RatedGame { first: 1, second: 0, score, pair: None })
///     .collect();
/// let options = RatingOptions { anchor: 0, anchor_elo: 1000.0, ..RatingOptions::default() };
/// let ratings = fit_ratings(&["random", "greedy"], &games, &options, &[], &RatingWatch::default())
///     .unwrap()
///     .ratings;
/// assert_eq!(ratings[0].elo, 1000.0);
/// // With the prior's virtual draw at the anchor's level the fit sees 3.5 out of 5:
/// // 1000 + 400 log10(7/3).
/// assert!((ratings[1].elo - 1147.2).abs() < 0.1);
/// assert!(ratings[1].low < ratings[1].elo && ratings[1].elo < ratings[1].high);
/// ```
pub fn fit_ratings<S: AsRef<str>>(
    players: &[S],
    games: &[RatedGame],
    options: &RatingOptions,
    held: &[(usize, f64)],
    watch: &RatingWatch,
) -> Result<RatingFit, RatingError> {
    let names: Vec<&str> = players.iter().map(AsRef::as_ref).collect();
    fit_named(&names, games, options, held, watch)
}

fn fit_named(
    names: &[&str],
    games: &[RatedGame],
    options: &RatingOptions,
    held: &[(usize, f64)],
    watch: &RatingWatch,
) -> Result<RatingFit, RatingError> {
    let players = names.len();
    let name_all = |list: &[usize]| -> Vec<String> { list.iter().map(|&p| names[p].to_string()).collect() };
    validate(names, games, options)?;
    let (kept, skipped, notes) = leave_out_self_play(names, games);
    if kept.is_empty() {
        return Err(RatingError::NoGames);
    }
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
    let cut_off = unreached(&kept, &fixed);
    if !cut_off.is_empty() {
        return Err(RatingError::Disconnected {
            players: name_all(&cut_off),
            anchor: names[anchor].to_string(),
        });
    }

    let units = Units::new(&fixed, &kept);
    let stuck = |stuck: Stuck| RatingError::NoConvergence {
        iterations: stuck.iterations,
        players: name_all(&stuck.moving),
    };
    let whole = units.tally(&(0..units.units.len()).collect::<Vec<_>>());
    let point = units.graph.maximise(&whole, start).map_err(stuck)?;

    let samples = resample(&units, &point, options, watch).map_err(stuck)?;

    let to_elo = |theta: f64| options.anchor_elo + theta * ELO_PER_NAT;
    let low_rank = 50.0 * (1.0 - options.confidence);
    let high_rank = 50.0 * (1.0 + options.confidence);
    let z = normal_quantile(0.5 * (1.0 + options.confidence));
    let mut ratings: Vec<Rating> = (0..players)
        .map(|player| {
            let elo = to_elo(point[player]);
            let (mut low, mut high) = (elo, elo);
            if !fixed[player] {
                let (from, to) = units.graph.likelihood_interval(&whole, &point, player, 0.5 * z * z);
                (low, high) = (to_elo(from).min(elo), to_elo(to).max(elo));
                let resampled: Vec<f64> = samples.iter().map(|sample| to_elo(sample[player])).collect();
                if let (Some(from), Some(to)) = (percentile(&resampled, low_rank), percentile(&resampled, high_rank)) {
                    (low, high) = (low.min(from), high.max(to));
                }
            }
            Rating {
                elo,
                low,
                high,
                games: 0,
                score: 0.0,
            }
        })
        .collect();
    // Exactly as given (the round trip through log odds may move the last digit).
    for &(player, elo) in held.iter().filter(|(player, _)| *player != anchor) {
        (ratings[player].elo, ratings[player].low, ratings[player].high) = (elo, elo, elo);
    }
    for game in &kept {
        ratings[game.first].games += 1;
        ratings[game.first].score += game.score;
        ratings[game.second].games += 1;
        ratings[game.second].score += 1.0 - game.score;
    }
    Ok(RatingFit {
        ratings,
        skipped,
        notes,
    })
}

/// The fit's bootstrap: `options.bootstrap` resamples of the units (colour-swapped
/// pairs or single games), each fitted from the point estimate and counted on `watch`.
fn resample(
    units: &Units,
    point: &[f64],
    options: &RatingOptions,
    watch: &RatingWatch,
) -> Result<Vec<Vec<f64>>, Stuck> {
    let count = units.units.len();
    watch.resamples_total.fetch_add(options.bootstrap, Ordering::Relaxed);
    (0..options.bootstrap)
        .into_par_iter()
        .map(|k| {
            let mut rng = ChaCha8Rng::seed_from_u64(derive_seed(options.seed, k as u64));
            let picks: Vec<usize> = (0..count).map(|_| rng.gen_range(0..count)).collect();
            let sample = units.graph.maximise(&units.tally(&picks), point.to_vec());
            watch.resamples_done.fetch_add(1, Ordering::Relaxed);
            sample
        })
        .collect()
}

/// The games of `games` between two players; the positions of those of a player
/// against itself, and a note for each such player.
fn leave_out_self_play(names: &[&str], games: &[RatedGame]) -> (Vec<RatedGame>, Vec<usize>, Vec<String>) {
    let skipped: Vec<usize> = (0..games.len())
        .filter(|&i| games[i].first == games[i].second)
        .collect();
    let kept = games.iter().filter(|g| g.first != g.second).copied().collect();
    let mut counts: Vec<(usize, usize)> = Vec::new();
    for &i in &skipped {
        let player = games[i].first;
        match counts.iter_mut().find(|(p, _)| *p == player) {
            Some((_, count)) => *count += 1,
            None => counts.push((player, 1)),
        }
    }
    let notes = counts
        .iter()
        .map(|&(player, count)| {
            let games = if count == 1 { "game" } else { "games" };
            format!(
                "left out {count} {games} of {} against itself: a player's games against itself say nothing \
                 of its rating",
                names[player]
            )
        })
        .collect();
    (kept, skipped, notes)
}

/// Where `elo` falls on a ladder of named ratings (in any order), for a report line:
/// "between alphabeta:1 (812) and greedy (905)", "above reference (1450)",
/// "below random (0)", or "level with greedy (905)" on an exact tie.
///
/// ```
/// use stats::ladder_position;
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

/// Refuses a count of bootstrap resamples below [`MIN_BOOTSTRAP`] (0, no bootstrap,
/// aside).
pub fn check_resamples(resamples: usize) -> Result<(), RatingError> {
    if resamples > 0 && resamples < MIN_BOOTSTRAP {
        return Err(RatingError::TooFewResamples {
            resamples,
            min: MIN_BOOTSTRAP,
        });
    }
    Ok(())
}

fn validate(names: &[&str], games: &[RatedGame], options: &RatingOptions) -> Result<(), RatingError> {
    let players = names.len();
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
    check_resamples(options.bootstrap)?;
    if games.is_empty() {
        return Err(RatingError::NoGames);
    }
    for (index, game) in games.iter().enumerate() {
        for player in [game.first, game.second] {
            if player >= players {
                return Err(RatingError::UnknownPlayer { index, player, players });
            }
        }
        if !(0.0..=1.0).contains(&game.score) {
            return Err(RatingError::BadScore {
                index,
                first: names[game.first].to_string(),
                second: names[game.second].to_string(),
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

/// The games as resampling units: a colour-swapped pair, or a game without a pair id.
struct Units {
    /// The pairings that met, each as (a, b) with `a < b`, then the phantom's pairing
    /// with every player not held fixed (the players held, the anchor among them, get
    /// no virtual draw).
    graph: Graph,
    /// The pairings that met (the phantom's come after them in the graph).
    met: usize,
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
        let met = pairings.len();
        let phantom = fixed.len();
        pairings.extend((0..phantom).filter(|&a| !fixed[a]).map(|a| (a, phantom)));
        Units {
            graph: Graph::new(fixed, pairings),
            met,
            units,
        }
    }

    /// The records of every pairing over the units `picks` (repeats count again),
    /// then the prior's virtual draws against the phantom.
    fn tally(&self, picks: &[usize]) -> Tally {
        let pairings = self.graph.ends.len();
        let mut tally = Tally {
            games: vec![0.0; pairings],
            points: vec![0.0; pairings],
        };
        for &unit in picks {
            for &(pairing, points) in &self.units[unit] {
                tally.games[pairing] += 1.0;
                tally.points[pairing] += points;
            }
        }
        for pairing in self.met..pairings {
            tally.games[pairing] = PRIOR_DRAWS;
            tally.points[pairing] = 0.5 * PRIOR_DRAWS;
        }
        tally
    }
}

#[cfg(test)]
mod tests;
