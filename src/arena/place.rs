//! `place`: one player placed on the published ladder with as few games as it takes.
//!
//! The player meets rungs of the ladder (docs/ladder-ratings.toml, held at their
//! ratings) one colour-swapped pair at a time. The first pair is against the rung
//! nearest [`START_ELO`], the middle of the weak ladder; after every pair the player is
//! rated on the ladder from all its games so far ([`runs::rate_games`], as `rate`
//! rates its run), and the next pair is against the rung nearest that estimate, where a
//! game tells the most (at even odds a game carries about twice the information it
//! carries 300 Elo away). It stops once the rating's 95% interval is no wider than
//! asked, or at the cap on pairs. [`Chooser::InTurn`] plays a fixed gauntlet instead
//! (its opponents in turn, the same stop), the yardstick the adaptive choice is
//! measured against.
//!
//! Every choice depends only on the pairs before it, so a resumed run (its finished
//! games read back) reaches the same choices at the same pairs, as a sequential run
//! does ([`crate::sequential`]).

use std::collections::BTreeSet;
use std::path::PathBuf;

use game::othello::ByColor;
use runs::{published_ladder, rate_games, LadderChoice, OpeningsOrder, RateSettings, RunGame, PUBLISHED_LADDER_PATH};
use serde::Serialize;
use stats::RatingWatch;

use super::openings::Openings;
use super::plan::Plan;
use super::play::GameRecord;
use super::player_spec::PlayerSpec;
use super::schedule::{run_games, MatchError, MatchEvent, RunOptions};
use super::scheduled::ScheduledGame;
use super::suite_file::SuiteFileError;

/// Where the first pair is played: the middle of the weak ladder, between `random` (0)
/// and `alphabeta:2` (391).
pub const START_ELO: f64 = 200.0;

/// The interval width `place` stops at when none is asked for.
pub const DEFAULT_WIDTH: f64 = 200.0;

/// The most colour-swapped pairs `place` plays when no cap is asked for.
pub const DEFAULT_MAX_PAIRS: usize = 60;

/// How a placement rates its player: as `rate --ladder` rates its run, every rung that
/// played held at the published ladder's rating, even a rung alone (plain `rate` holds a
/// ladder only when two of its rungs played).
pub fn published_rating() -> RateSettings {
    RateSettings {
        ladder: LadderChoice::File(PUBLISHED_LADDER_PATH.to_string(), published_ladder().clone()),
        ..RateSettings::default()
    }
}

/// How the next opponent is chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Chooser {
    /// The rung nearest the current estimate (the first pair: nearest [`START_ELO`]).
    Nearest,
    /// The opponents in turn, as a fixed gauntlet plays them.
    InTurn,
}

/// A placement: the player, its candidate opponents with their ladder ratings, and
/// when to stop.
#[derive(Clone)]
pub struct Placement {
    /// The player placed.
    pub player: PlayerSpec,
    /// The opponents it may meet, with their ratings on the ladder that holds them.
    pub opponents: Vec<(PlayerSpec, f64)>,
    /// How the next opponent is chosen.
    pub chooser: Chooser,
    /// Stop once the player's 95% interval is at most this wide (Elo).
    pub width: f64,
    /// The most colour-swapped pairs played in all.
    pub max_pairs: usize,
    /// Fixes the players' random choices.
    pub seed: u64,
    /// Fixes the openings: pair p of every opponent starts from the same one.
    pub opening_seed: u64,
    /// How the player is rated after each pair (the ladder that holds the rungs).
    pub rating: RateSettings,
    /// Openings, parallelism, logging, and the games a resume read back.
    pub run: RunOptions,
}

/// What `place`'s flags give beside the player: the fixed gauntlet (none: every rung,
/// chosen by the rating), the stop, the seed, games at once, and the openings.
#[derive(Clone, Debug, Default)]
pub struct PlaceFlags {
    /// `--gauntlet`: the rungs to play in turn (none: every rung, the nearest first).
    pub gauntlet: Vec<String>,
    /// `--width`: the interval width to stop at (Elo).
    pub width: f64,
    /// `--max-pairs`.
    pub max_pairs: usize,
    /// `--seed`: the players' and the openings'.
    pub seed: u64,
    /// `--parallel` (none: [`DEFAULT_PARALLEL`]).
    pub parallel: Option<usize>,
    /// `--openings`: a suite file, dealt in its order, not cycled.
    pub openings: Option<PathBuf>,
    /// `--opening-random`: random plies, when no suite is given.
    pub opening_random: usize,
}

/// Games at once when `place --parallel` is not given.
pub const DEFAULT_PARALLEL: usize = 2;

/// Why `place`'s flags name no placement.
#[derive(Debug, thiserror::Error)]
pub enum PlaceFlagsError {
    /// The player or the gauntlet, on the ladder.
    #[error(transparent)]
    Place(#[from] PlaceError),
    /// The openings.
    #[error(transparent)]
    Openings(#[from] SuiteFileError),
}

impl Placement {
    /// `player` placed on the published ladder as `flags` say: against every rung, the
    /// one nearest its rating each pair ([`Chooser::Nearest`]), or against the
    /// gauntlet's rungs in turn ([`Chooser::InTurn`]); rated as
    /// [`published_rating`]; its openings (`--openings` dealt in order without
    /// cycling, else random plies) seeded by its seed. With the openings' notes.
    pub fn on_published_ladder(
        player: PlayerSpec,
        flags: &PlaceFlags,
    ) -> Result<(Placement, Vec<String>), PlaceFlagsError> {
        let opponents = ladder_opponents(&player.to_string(), published_ladder(), &flags.gauntlet)?;
        let deal = (OpeningsOrder::Sequential, false, flags.seed);
        let (openings, notes) = Openings::from_flags(flags.openings.as_deref(), flags.opening_random, deal)?;
        let placement = Placement {
            player,
            opponents,
            chooser: match flags.gauntlet.is_empty() {
                true => Chooser::Nearest,
                false => Chooser::InTurn,
            },
            width: flags.width,
            max_pairs: flags.max_pairs,
            seed: flags.seed,
            opening_seed: flags.seed,
            rating: published_rating(),
            run: RunOptions {
                openings,
                parallel: flags.parallel.unwrap_or(DEFAULT_PARALLEL),
                ..RunOptions::default()
            },
        };
        Ok((placement, notes))
    }
}

/// One pair of a placement and where the player stood after it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PlaceStep {
    /// The opponent.
    pub opponent: String,
    /// Its rating on the ladder.
    pub opponent_elo: f64,
    /// The pair's games, by schedule number (game-NNNN.jsonl).
    pub games: [usize; 2],
    /// The player's points in the pair (a win 1, a draw 0.5).
    pub points: f64,
    /// The player's rating after the pair.
    pub elo: f64,
    /// Its 95% interval (`None`: too few games for one).
    pub interval: Option<[f64; 2]>,
}

/// Why a placement stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum PlaceStop {
    /// The interval is as narrow as asked.
    Width,
    /// The cap on pairs was reached first.
    Cap,
    /// No opponent was left (every one played the cap's pairs).
    NoOpponent,
}

/// What a placement played.
#[derive(Clone, Debug)]
pub struct Placed {
    /// Per schedule index: the game, or `None` when it was not played.
    pub records: Vec<Option<GameRecord>>,
    /// Every pair, in playing order.
    pub steps: Vec<PlaceStep>,
    /// Why it stopped; `None` when it was interrupted first.
    pub stop: Option<PlaceStop>,
}

impl Placement {
    /// The players list: the player first, then the opponents.
    pub fn players(&self) -> Vec<PlayerSpec> {
        std::iter::once(self.player.clone())
            .chain(self.opponents.iter().map(|(o, _)| o.clone()))
            .collect()
    }

    /// The plan: the player against every opponent, up to the cap's pairs each (only
    /// the pairs chosen are played); pair p of each on the same opening.
    pub fn plan(&self) -> Plan {
        let names: Vec<String> = self.players().iter().map(ToString::to_string).collect();
        let meetings: Vec<(usize, usize)> = (1..names.len()).map(|k| (0, k)).collect();
        Plan::new(&names, &meetings, self.max_pairs, true, self.opening_seed, self.seed)
    }

    /// The opponent of the next pair (an index into [`Placement::opponents`]), given the
    /// player's current estimate and the pairs each opponent has played; `None` when
    /// every opponent has played the cap's pairs.
    pub fn next_opponent(&self, estimate: f64, used: &[usize]) -> Option<usize> {
        let open: Vec<usize> = (0..self.opponents.len())
            .filter(|&k| used[k] < self.max_pairs)
            .collect();
        match self.chooser {
            Chooser::Nearest => open.into_iter().min_by(|&a, &b| {
                let gap = |k: usize| (self.opponents[k].1 - estimate).abs();
                gap(a).total_cmp(&gap(b))
            }),
            Chooser::InTurn => {
                let played: usize = used.iter().sum();
                let turn = played % self.opponents.len().max(1);
                open.iter().copied().find(|&k| k >= turn).or(open.first().copied())
            }
        }
    }

    /// The player's rating from the games `done` (schedule indices) of `records`,
    /// rated as `rate` rates them; `None` when the fit fails.
    fn rate(
        &self,
        schedule: &[ScheduledGame],
        records: &[Option<GameRecord>],
        done: &[usize],
    ) -> Option<stats::Rating> {
        let players = self.players();
        let games: Vec<RunGame> = done
            .iter()
            .filter_map(|&i| {
                let record = records[i].as_ref()?;
                let scheduled = &schedule[i];
                let sides = ByColor {
                    black: &players[scheduled.black],
                    white: &players[scheduled.white],
                };
                Some(RunGame {
                    run: 0,
                    game: record.summary(i + 1, sides),
                })
            })
            .collect();
        let rated = rate_games(&games, game::Game::Othello, &self.rating, &RatingWatch::default()).ok()?;
        let name = self.player.to_string();
        rated
            .as_played
            .rows
            .into_iter()
            .find(|r| r.player == name)
            .map(|r| r.rating)
    }

    /// Plays the placement: pair by pair, each against the opponent chosen from the
    /// pairs before it (games `self.run.finished` holds are read, never played again),
    /// until the interval is narrow enough, the cap, or an interruption.
    pub async fn play(&self, report: &(dyn Fn(MatchEvent<'_>) + Sync)) -> Result<Placed, MatchError> {
        let Plan { schedule, pairings } = self.plan();
        let players = self.players();
        let mut records: Vec<Option<GameRecord>> = vec![None; schedule.len()];
        let mut used = vec![0; self.opponents.len()];
        let mut done = Vec::new();
        let mut steps = Vec::new();
        let mut estimate = START_ELO;
        let stop = loop {
            if steps.len() >= self.max_pairs {
                break Some(PlaceStop::Cap);
            }
            let Some(k) = self.next_opponent(estimate, &used) else {
                break Some(PlaceStop::NoOpponent);
            };
            let pair = pairings[k].pairs[used[k]];
            if !self.play_pair(&players, &schedule, pair, &mut records, report).await? {
                break None;
            }
            used[k] += 1;
            done.extend(pair);
            let rating = self.rate(&schedule, &records, &done);
            let (elo, interval) = match &rating {
                Some(r) if r.low.is_finite() && r.high.is_finite() => (r.elo, Some([r.low, r.high])),
                Some(r) => (r.elo, None),
                None => (estimate, None),
            };
            estimate = elo;
            let points = pair
                .iter()
                .filter_map(|&i| Some(record_points(records[i].as_ref()?, &schedule[i])))
                .sum();
            let (opponent, opponent_elo) = &self.opponents[k];
            steps.push(PlaceStep {
                opponent: opponent.to_string(),
                opponent_elo: *opponent_elo,
                games: pair.map(|i| i + 1),
                points,
                elo,
                interval,
            });
            if interval.is_some_and(|[low, high]| high - low <= self.width) {
                break Some(PlaceStop::Width);
            }
        };
        Ok(Placed { records, steps, stop })
    }

    /// Plays (or reads back) the two games of `pair` into `records`; `false` when the
    /// run was stopped before both finished.
    async fn play_pair(
        &self,
        players: &[PlayerSpec],
        schedule: &[ScheduledGame],
        pair: [usize; 2],
        records: &mut [Option<GameRecord>],
        report: &(dyn Fn(MatchEvent<'_>) + Sync),
    ) -> Result<bool, MatchError> {
        let mut to_play = BTreeSet::new();
        for index in pair {
            match self.run.finished.get(&index) {
                Some(record) => {
                    report(MatchEvent::GameDone { game: index, record });
                    records[index] = Some(record.clone());
                }
                None => {
                    to_play.insert(index);
                }
            }
        }
        if to_play.is_empty() {
            return Ok(true);
        }
        let round = RunOptions {
            finished: Default::default(),
            only: Some(to_play.clone()),
            ..self.run.clone()
        };
        let played = run_games(players, schedule, &round, report).await?;
        for index in &to_play {
            records[*index] = played[*index].clone();
        }
        Ok(pair.iter().all(|&i| records[i].is_some()))
    }
}

/// The placed player's (player 0's) points in a finished game.
fn record_points(record: &GameRecord, scheduled: &ScheduledGame) -> f64 {
    let margin = record.margin_for(scheduled.color_of(0));
    stats::GameScore::from_margin(margin).points()
}

/// Why a player cannot be placed on a ladder.
#[derive(Debug, thiserror::Error)]
pub enum PlaceError {
    /// The player is a rung of the ladder: it is already placed, held at its rating.
    #[error("{player} is a rung of the ladder, held at {elo:.0}: place a player that is not on it")]
    OnLadder {
        /// The player.
        player: String,
        /// Its rating there.
        elo: f64,
    },
    /// A gauntlet opponent is not a rung, so it has no rating to hold.
    #[error("bad --gauntlet: {opponent} is not a rung of the ladder (its rungs: {rungs})")]
    NotRung {
        /// The opponent given.
        opponent: String,
        /// The rungs there are.
        rungs: String,
    },
    /// A rung is not an engine spec of this build.
    #[error("the ladder's rung {rung} is not an engine spec: {why}")]
    Rung {
        /// The rung.
        rung: String,
        /// Why.
        why: String,
    },
}

/// The opponents `player` (its name as the logs write it) meets on `ladder`: every
/// rung, weakest first, or the rungs `gauntlet` names (canonical engine specs, in the
/// order given) for a fixed gauntlet.
pub fn ladder_opponents(
    player: &str,
    ladder: &runs::Ladder,
    gauntlet: &[String],
) -> Result<Vec<(PlayerSpec, f64)>, PlaceError> {
    if let Some(rung) = ladder.rungs.iter().find(|r| r.player == player) {
        return Err(PlaceError::OnLadder {
            player: player.to_string(),
            elo: rung.elo,
        });
    }
    let rung = |name: &str| -> Result<(PlayerSpec, f64), PlaceError> {
        let canonical = engines::canonical_spec(game::Game::Othello, name).unwrap_or_else(|_| name.to_string());
        let found = ladder.rungs.iter().find(|r| r.player == canonical);
        let found = found.ok_or_else(|| PlaceError::NotRung {
            opponent: name.to_string(),
            rungs: ladder
                .rungs
                .iter()
                .map(|r| r.player.as_str())
                .collect::<Vec<_>>()
                .join(", "),
        })?;
        let spec: engines::EngineSpec =
            found
                .player
                .parse()
                .map_err(|e: engines::ParseSpecError| PlaceError::Rung {
                    rung: found.player.clone(),
                    why: e.reason,
                })?;
        Ok((PlayerSpec::Engine(spec), found.elo))
    };
    if gauntlet.is_empty() {
        let mut all: Vec<(PlayerSpec, f64)> = ladder.rungs.iter().map(|r| rung(&r.player)).collect::<Result<_, _>>()?;
        all.sort_by(|a, b| a.1.total_cmp(&b.1));
        Ok(all)
    } else {
        gauntlet.iter().map(|name| rung(name)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use engines::EngineSpec;

    fn engine(spec: &str) -> PlayerSpec {
        PlayerSpec::Engine(spec.parse::<EngineSpec>().unwrap())
    }

    fn placement(chooser: Chooser, width: f64, max_pairs: usize) -> Placement {
        Placement {
            player: engine("n-most:1"),
            opponents: vec![
                (engine("random"), 0.0),
                (engine("n-hand:2"), 117.4),
                (engine("greedy"), 300.1),
            ],
            chooser,
            width,
            max_pairs,
            seed: 3,
            opening_seed: 3,
            rating: RateSettings {
                bootstrap: 100,
                ..published_rating()
            },
            run: RunOptions {
                openings: crate::Openings::random(4),
                parallel: 2,
                ..RunOptions::default()
            },
        }
    }

    #[test]
    fn the_next_opponent_is_the_rung_nearest_the_estimate_or_the_next_in_turn() {
        let nearest = placement(Chooser::Nearest, 200.0, 2);
        assert_eq!(
            nearest.next_opponent(START_ELO, &[0, 0, 0]),
            Some(1),
            "n-hand:2 (117) is nearest 200"
        );
        assert_eq!(nearest.next_opponent(260.0, &[0, 0, 0]), Some(2));
        assert_eq!(nearest.next_opponent(40.0, &[0, 0, 0]), Some(0));
        assert_eq!(
            nearest.next_opponent(40.0, &[2, 0, 0]),
            Some(1),
            "random played the cap"
        );
        assert_eq!(nearest.next_opponent(40.0, &[2, 2, 2]), None);
        let in_turn = placement(Chooser::InTurn, 200.0, 2);
        let order: Vec<Option<usize>> = [[0, 0, 0], [1, 0, 0], [1, 1, 0], [1, 1, 1]]
            .iter()
            .map(|used| in_turn.next_opponent(900.0, used))
            .collect();
        assert_eq!(order, [Some(0), Some(1), Some(2), Some(0)]);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_placement_stops_at_its_cap_and_a_resume_replays_the_same_choices() {
        // A width no interval of 3 pairs reaches: it stops at the cap.
        let first = placement(Chooser::Nearest, 1.0, 3);
        let placed = first.play(&|_| {}).await.unwrap();
        assert_eq!(placed.stop, Some(PlaceStop::Cap));
        assert_eq!(placed.steps.len(), 3);
        assert_eq!(placed.steps[0].opponent, "n-hand:2", "the rung nearest the start");
        assert_eq!(placed.records.iter().filter(|r| r.is_some()).count(), 6);
        // Its games read back (a resume): the same steps, and no game played again.
        let mut again = first.clone();
        again.run.finished = placed
            .records
            .iter()
            .enumerate()
            .filter_map(|(i, r)| Some((i, r.clone()?)))
            .collect();
        let replayed = again.play(&|_| {}).await.unwrap();
        assert_eq!(replayed.steps, placed.steps);
        // A width the first pairs already give stops there.
        let wide = placement(Chooser::Nearest, 4000.0, 3);
        let placed = wide.play(&|_| {}).await.unwrap();
        assert_eq!((placed.stop, placed.steps.len()), (Some(PlaceStop::Width), 2));
    }
}
