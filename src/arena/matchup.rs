//! A match: N games between two engine specs, optionally swapping colors, in parallel.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use serde::Serialize;

use super::game::{play_game, random_opening, GameRecord};
use super::stats::Tally;
use crate::engine::{Engine, EngineError, EngineSpec};
use crate::othello::{Board, ByColor, Color, Move};

/// What a match plays.
#[derive(Clone, Debug)]
pub struct MatchConfig {
    /// The two players: the first starts as black, the second as white.
    pub players: [EngineSpec; 2],
    /// Number of games.
    pub games: usize,
    /// Alternate colors: the first player is black in even games and white in odd ones.
    /// With swap, games 2k and 2k+1 share their random opening (a paired comparison).
    pub swap: bool,
    /// Random opening plies before the engines take over.
    pub opening_plies: usize,
    /// Fixes every random choice (openings and seeded engines).
    pub seed: u64,
    /// Games played at once.
    pub parallel: usize,
}

/// Results of one player over the match.
#[derive(Clone, Debug, Default, Serialize)]
pub struct SpecTally {
    /// The player's spec string.
    pub spec: String,
    /// All games.
    pub overall: Tally,
    /// Games as black.
    pub as_black: Tally,
    /// Games as white.
    pub as_white: Tally,
}

/// A finished match.
#[derive(Clone, Debug)]
pub struct MatchResult {
    /// Every game in schedule order, with the color of the first player.
    pub games: Vec<(Color, GameRecord)>,
    /// The two players' tallies, in `MatchConfig::players` order.
    pub tallies: [SpecTally; 2],
}

/// A game that could not be finished.
#[derive(Debug, thiserror::Error)]
#[error("game {game} of the match failed")]
pub struct MatchError {
    /// Index of the game in the schedule.
    pub game: usize,
    /// What the engine reported.
    #[source]
    pub source: EngineError,
}

/// Progress reports from a running match.
pub enum MatchEvent<'a> {
    /// A move was played in game `game` (after the opening), reaching `board`.
    Ply {
        /// Schedule index.
        game: usize,
        /// The position after the move.
        board: &'a Board,
        /// The move.
        mv: Move,
    },
    /// Game `game` finished.
    GameDone {
        /// Schedule index.
        game: usize,
        /// Its record.
        record: &'a GameRecord,
    },
}

/// SplitMix64: derives independent seeds from the match seed and a stream number.
pub(crate) fn derive_seed(seed: u64, stream: u64) -> u64 {
    let mut z = seed
        ^ stream
            .wrapping_mul(0x9e37_79b9_7f4a_7c15)
            .wrapping_add(0x6a09_e667_f3bc_c909);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl MatchConfig {
    /// The first player's color in game `index`.
    pub fn first_player_color(&self, index: usize) -> Color {
        if self.swap && index % 2 == 1 {
            Color::White
        } else {
            Color::Black
        }
    }

    /// The seed of game `index`'s random opening (shared by a swapped pair).
    pub fn opening_seed(&self, index: usize) -> u64 {
        let pair = if self.swap { index / 2 } else { index };
        derive_seed(self.seed, pair as u64 * 2)
    }

    /// Plays game `index` of the schedule.
    fn play_one(&self, index: usize, report: &(dyn Fn(MatchEvent<'_>) + Sync)) -> Result<GameRecord, MatchError> {
        let first = self.first_player_color(index);
        let engine_seed = derive_seed(self.seed, index as u64 * 2 + 1);
        let mut first_engine = self.players[0].build(engine_seed);
        let mut second_engine = self.players[1].build(engine_seed.rotate_left(17));
        let players: ByColor<&mut dyn Engine> = if first == Color::Black {
            ByColor {
                black: first_engine.as_mut(),
                white: second_engine.as_mut(),
            }
        } else {
            ByColor {
                black: second_engine.as_mut(),
                white: first_engine.as_mut(),
            }
        };
        let opening = random_opening(Board::new(), self.opening_plies, self.opening_seed(index));
        let mut observe = |board: &Board, mv: Move| report(MatchEvent::Ply { game: index, board, mv });
        let record =
            play_game(opening, players, Some(&mut observe)).map_err(|source| MatchError { game: index, source })?;
        report(MatchEvent::GameDone {
            game: index,
            record: &record,
        });
        Ok(record)
    }
}

/// Plays the match, up to `config.parallel` games at once; `report` sees every move
/// and every finished game (from worker threads).
pub fn run_match(config: &MatchConfig, report: &(dyn Fn(MatchEvent<'_>) + Sync)) -> Result<MatchResult, MatchError> {
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<Result<GameRecord, MatchError>>>> =
        Mutex::new((0..config.games).map(|_| None).collect());
    let workers = config.parallel.clamp(1, config.games.max(1));
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| loop {
                let index = next.fetch_add(1, Ordering::Relaxed);
                if index >= config.games {
                    break;
                }
                let outcome = config.play_one(index, report);
                let failed = outcome.is_err();
                results.lock().unwrap_or_else(|poisoned| poisoned.into_inner())[index] = Some(outcome);
                if failed {
                    // Stop handing out games; others in flight finish.
                    next.store(config.games, Ordering::Relaxed);
                }
            });
        }
    });
    let mut games = Vec::with_capacity(config.games);
    for (index, slot) in results
        .into_inner()
        .unwrap_or_else(|p| p.into_inner())
        .into_iter()
        .enumerate()
    {
        match slot {
            Some(Ok(record)) => games.push((config.first_player_color(index), record)),
            Some(Err(err)) => return Err(err),
            None => {} // not started because another game failed (its error is returned first)
        }
    }
    let mut tallies: [SpecTally; 2] = Default::default();
    for (i, tally) in tallies.iter_mut().enumerate() {
        tally.spec = config.players[i].to_string();
    }
    for (first_color, record) in &games {
        for (i, tally) in tallies.iter_mut().enumerate() {
            let color = if i == 0 { *first_color } else { !*first_color };
            let margin = record.margin_for(color);
            tally.overall.record(margin);
            match color {
                Color::Black => tally.as_black.record(margin),
                Color::White => tally.as_white.record(margin),
            }
        }
    }
    Ok(MatchResult { games, tallies })
}
