//! Running a schedule of games in parallel, each with its own log file.

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use super::game::{play_game, random_opening, GameContext, GameError, GameRecord};
use super::player::{Player, PlayerSpec};
use crate::othello::{Board, ByColor, Move, Outcome};
use crate::record::{Event, GameEnd, GameLog, GameStart, LogError};

/// One game to play: who has which color, and its seeds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScheduledGame {
    /// Index of black's player in the players list.
    pub black: usize,
    /// Index of white's player.
    pub white: usize,
    /// Seed of the random opening (shared by games that should meet the same positions).
    pub opening_seed: u64,
    /// Seed of the players' random choices (the player at list index i uses it rotated by 17 i bits).
    pub seed: u64,
}

/// How a schedule is played.
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    /// Random opening plies before the players take over.
    pub opening_plies: usize,
    /// Games played at once.
    pub parallel: usize,
    /// Where each game's JSONL log goes (`game-NNNN.jsonl`), if anywhere.
    pub log_dir: Option<PathBuf>,
}

/// Progress reports from running games.
pub enum MatchEvent<'a> {
    /// A move was played in game `game` (schedule index), reaching `board`.
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

/// A game of the schedule that could not be played.
#[derive(Debug, thiserror::Error)]
pub enum MatchError {
    /// The game failed.
    #[error("game {number} failed")]
    Game {
        /// Game number (from 1).
        number: usize,
        /// Why.
        #[source]
        source: GameError,
    },
    /// Its log could not be created.
    #[error(transparent)]
    Log(#[from] LogError),
}

/// SplitMix64: derives independent seeds from a run seed and a stream number.
pub fn derive_seed(seed: u64, stream: u64) -> u64 {
    let mut z = seed
        ^ stream
            .wrapping_mul(0x9e37_79b9_7f4a_7c15)
            .wrapping_add(0x6a09_e667_f3bc_c909);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

fn play_scheduled(
    players: &[PlayerSpec],
    index: usize,
    scheduled: &ScheduledGame,
    options: &RunOptions,
    report: &(dyn Fn(MatchEvent<'_>) + Sync),
) -> Result<GameRecord, MatchError> {
    let number = index + 1;
    // A player's seed depends on its place in the players list, not on its color.
    let player_seed = |index: usize| scheduled.seed.rotate_left(17 * index as u32);
    let mut black: Box<dyn Player> = players[scheduled.black].build(player_seed(scheduled.black));
    let mut white: Box<dyn Player> = players[scheduled.white].build(player_seed(scheduled.white));
    let opening = random_opening(Board::new(), options.opening_plies, scheduled.opening_seed);
    let log = match &options.log_dir {
        Some(dir) => Some(GameLog::create(&dir.join(format!("game-{number:04}.jsonl")))?),
        None => None,
    };
    if let Some(log) = &log {
        log.write(Event::GameStart(GameStart {
            game: number,
            black: players[scheduled.black].to_string(),
            white: players[scheduled.white].to_string(),
            start_board: opening.start().to_squares_string(),
            opening: opening.moves().iter().map(ToString::to_string).collect(),
            seed: scheduled.seed,
        }))?;
    }
    let mut observe = |board: &Board, mv: Move| report(MatchEvent::Ply { game: index, board, mv });
    let ctx = GameContext {
        number,
        log: log.as_ref(),
        observer: Some(&mut observe),
    };
    let record = play_game(
        opening,
        ByColor {
            black: black.as_mut(),
            white: white.as_mut(),
        },
        ctx,
    )
    .map_err(|source| MatchError::Game { number, source })?;
    if let Some(log) = &log {
        let board = record.game.board();
        log.write(Event::GameEnd(GameEnd {
            game: number,
            black_discs: board.count(crate::othello::Color::Black),
            white_discs: board.count(crate::othello::Color::White),
            winner: match record.outcome {
                Outcome::Win(color) => color.to_string(),
                Outcome::Draw => "draw".to_string(),
            },
            moves: record.game.moves().iter().map(ToString::to_string).collect(),
        }))?;
    }
    report(MatchEvent::GameDone {
        game: index,
        record: &record,
    });
    Ok(record)
}

/// Plays every scheduled game, up to `options.parallel` at once, and returns the
/// records in schedule order. On a failure no new game starts, games in flight
/// finish, and the first failure in schedule order is returned.
pub fn run_games(
    players: &[PlayerSpec],
    schedule: &[ScheduledGame],
    options: &RunOptions,
    report: &(dyn Fn(MatchEvent<'_>) + Sync),
) -> Result<Vec<GameRecord>, MatchError> {
    type Slot = Option<Result<GameRecord, MatchError>>;
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Slot>> = Mutex::new((0..schedule.len()).map(|_| None).collect());
    let workers = options.parallel.clamp(1, schedule.len().max(1));
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| loop {
                let index = next.fetch_add(1, Ordering::Relaxed);
                let Some(scheduled) = schedule.get(index) else { break };
                let outcome = play_scheduled(players, index, scheduled, options, report);
                if outcome.is_err() {
                    next.store(schedule.len(), Ordering::Relaxed);
                }
                results.lock().unwrap_or_else(|p| p.into_inner())[index] = Some(outcome);
            });
        }
    });
    let mut records = Vec::with_capacity(schedule.len());
    for slot in results
        .into_inner()
        .unwrap_or_else(|p| p.into_inner())
        .into_iter()
        .flatten()
    {
        records.push(slot?);
    }
    Ok(records)
}
