//! Running a schedule of games concurrently, each a tokio task with its own log file.

use agent::ModelGame;
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use tokio::sync::mpsc;
use tokio::task::JoinSet;

use super::engine_process::Halt;
use super::openings::Openings;
use super::play::{play_game, GameContext, GameError, GameRecord};
use super::player::{PlayError, Player};
use super::player_spec::PlayerSpec;
use super::scheduled::{Host, ScheduledGame, StartQueue};
use game::othello::{ByColor, Color};
use game::{Line, Othello};
use record::game_log_path;
use record::{GameLog, GameWriter, LogError, PlayerKind, StopReason};

/// How a schedule is played.
#[derive(Clone, Debug)]
pub struct RunOptions<R: ModelGame = Othello> {
    /// Where the games start (random plies, or a suite).
    pub openings: Openings<R>,
    /// Games played at once.
    pub parallel: usize,
    /// Where each game's JSONL log goes (`game-NNNN.jsonl`), if anywhere.
    pub log_dir: Option<PathBuf>,
    /// Games finished by an earlier, interrupted run, by schedule index: not played again.
    pub finished: BTreeMap<usize, GameRecord<R>>,
    /// When set, no new game starts and games in flight stop before their next move.
    pub stop: Option<Arc<AtomicBool>>,
    /// When set, only these schedule indices are played (the others come back `None`
    /// unless finished): a round of a sequential run.
    pub only: Option<BTreeSet<usize>>,
}

impl<R: ModelGame> Default for RunOptions<R> {
    fn default() -> Self {
        RunOptions {
            openings: Openings::random(0),
            parallel: 0,
            log_dir: None,
            finished: BTreeMap::new(),
            stop: None,
            only: None,
        }
    }
}

/// Progress reports from running games.
pub enum MatchEvent<'a, R: ModelGame = Othello> {
    /// A move was played in game `game` (schedule index), reaching `board`.
    Ply {
        /// Schedule index.
        game: usize,
        /// The position after the move.
        board: &'a R::Position,
        /// The move.
        mv: R::Move,
    },
    /// Game `game` finished.
    GameDone {
        /// Schedule index.
        game: usize,
        /// Its record.
        record: &'a GameRecord<R>,
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

/// What a game task needs of the run, shared by every game.
struct GameSettings<R: ModelGame> {
    players: Vec<PlayerSpec<R>>,
    openings: Openings<R>,
    log_dir: Option<PathBuf>,
    stop: Option<Arc<AtomicBool>>,
    /// Set by the first game that fails: games not yet started stay unplayed.
    failed: Arc<AtomicBool>,
}

impl<R: ModelGame> GameSettings<R> {
    fn stopped(&self) -> bool {
        self.failed.load(Ordering::Relaxed) || self.stop.as_ref().is_some_and(|s| s.load(Ordering::Relaxed))
    }

    /// What ends an external engine's waits early: the stop, and (for a process slot)
    /// a failed game.
    fn halt(&self) -> Halt {
        Halt {
            stop: self.stop.clone(),
            failed: Some(self.failed.clone()),
        }
    }
}

/// A move reported by a game task to the task that runs the schedule.
struct PlyEvent<R: ModelGame> {
    game: usize,
    board: R::Position,
    mv: R::Move,
}

async fn play_scheduled<R: ModelGame>(
    settings: &GameSettings<R>,
    index: usize,
    scheduled: &ScheduledGame,
    plies: &mpsc::UnboundedSender<PlyEvent<R>>,
) -> Result<GameRecord<R>, MatchError> {
    let players = &settings.players;
    let number = index + 1;
    let halt = settings.halt();
    let build = |index: usize| players[index].build_in_run(scheduled.player_seed(index), &halt);
    let mut black: Box<dyn Player<R>> = build(scheduled.black);
    let mut white: Box<dyn Player<R>> = build(scheduled.white);
    let opening = settings.openings.line(scheduled);
    let log_file = match &settings.log_dir {
        Some(dir) => Some(GameLog::create(&game_log_path(dir, number))?),
        None => None,
    };
    let mut observe = |board: &R::Position, mv: R::Move| {
        // The receiver outlives every game task; a send can only fail after it.
        let _ = plies.send(PlyEvent {
            game: index,
            board: *board,
            mv,
        });
    };
    let ctx = GameContext {
        log: GameWriter::new(log_file.as_ref(), number),
        observer: Some(&mut observe),
        stop: settings.stop.as_deref(),
        stop_reason: StopReason::Interrupted,
    };
    let seat = |index: usize| Seat {
        name: players[index].to_string(),
        kind: players[index].kind(),
    };
    let seats = ByColor {
        black: seat(scheduled.black),
        white: seat(scheduled.white),
    };
    let mut players: ByColor<&mut dyn Player<R>> = ByColor {
        black: black.as_mut(),
        white: white.as_mut(),
    };
    let suite_opening = settings.openings.name(scheduled);
    let opening = (opening, suite_opening.as_deref());
    let played = play_ready(opening, &mut players, seats, scheduled.seed, ctx).await;
    if played.is_err() {
        // Before the players are done: an engine's process slot, freed by `done`, must
        // not start another game.
        settings.failed.store(true, Ordering::Relaxed);
    }
    for color in Color::BOTH {
        players[color].done().await;
    }
    played.map_err(|source| MatchError::Game { number, source })
}

/// How a side appears in the log: its player's name and kind.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Seat {
    /// The player's spec string.
    pub name: String,
    /// Engine, person or model.
    pub kind: PlayerKind,
}

/// Plays `opening` to the end (as [`play_game`]) between `players`, logging the game's
/// start (with `seats`, `seed` and the suite line the opening is, if it is one) and end to `ctx.log` around its moves: the log of a
/// game of a run, for games played by other drivers too (a person in the browser).
pub async fn play_logged<R: ModelGame>(
    (opening, suite_opening): (Line<R>, Option<&str>),
    players: ByColor<&mut dyn Player<R>>,
    seats: ByColor<Seat>,
    seed: u64,
    ctx: GameContext<'_, R>,
) -> Result<GameRecord<R>, GameError> {
    let mut players = players;
    let played = play_ready((opening, suite_opening), &mut players, seats, seed, ctx).await;
    for color in Color::BOTH {
        players[color].done().await;
    }
    played
}

/// [`play_logged`]'s game, the players' `done` left to the caller.
async fn play_ready<R: ModelGame>(
    (opening, suite_opening): (Line<R>, Option<&str>),
    players: &mut ByColor<&mut dyn Player<R>>,
    seats: ByColor<Seat>,
    seed: u64,
    ctx: GameContext<'_, R>,
) -> Result<GameRecord<R>, GameError> {
    let log = ctx.log;
    let names = seats.as_ref().map(|seat| seat.name.as_str());
    let kinds = seats.as_ref().map(|seat| seat.kind);
    let ply = opening.moves().len() + 1;
    let mut engines = ByColor::default();
    // In name order: two games that need the same two engine processes take their
    // slots in one order, so neither holds one while waiting for the other's.
    let mut order = Color::BOTH;
    if players.white.name() < players.black.name() {
        order.reverse();
    }
    for color in order {
        let player = &mut *players[color];
        engines[color] = player.ready(log).await.map_err(|source| match source {
            // Stopped before the game began: nothing of it is logged.
            PlayError::Stopped => GameError::Stopped { ply },
            source => GameError::Player {
                player: player.name(),
                ply,
                source,
            },
        })?;
    }
    log.start(&opening, suite_opening, names, kinds, engines, seed)?;
    // Reborrowed for the game (each a coercion to the shorter borrow).
    let black: &mut dyn Player<R> = &mut *players.black;
    let white: &mut dyn Player<R> = &mut *players.white;
    let players = ByColor { black, white };
    let record = play_game(opening, players, ctx).await?;
    let forfeited = record.forfeit.as_ref().map(|f| f.color);
    log.end(&record.game, record.outcome, record.disc_difference, forfeited)?;
    Ok(record)
}

/// Plays every scheduled game that `options.finished` does not already hold, each as a
/// tokio task, up to `options.parallel` at once, and returns the records in schedule
/// order: `None` for a game that `options.stop` kept from finishing. The next game to
/// start is the first, in schedule order, whose players' hosts have room (a
/// start queue), so every model server works from the start; only the order of
/// starting depends on it. On a failure no new game starts, games in flight finish,
/// and the first failure in schedule order is returned. `report` is called from the
/// caller's task, never from a game's.
pub async fn run_games<R: ModelGame>(
    players: &[PlayerSpec<R>],
    schedule: &[ScheduledGame],
    options: &RunOptions<R>,
    report: &(dyn Fn(MatchEvent<'_, R>) + Sync),
) -> Result<Vec<Option<GameRecord<R>>>, MatchError> {
    type Slot<R> = Option<Result<GameRecord<R>, MatchError>>;
    let mut slots: Vec<Slot<R>> = (0..schedule.len()).map(|_| None).collect();
    for (&index, record) in &options.finished {
        if let Some(slot) = slots.get_mut(index) {
            report(MatchEvent::GameDone { game: index, record });
            *slot = Some(Ok(record.clone()));
        }
    }
    let settings = Arc::new(GameSettings {
        players: players.to_vec(),
        openings: options.openings.clone(),
        log_dir: options.log_dir.clone(),
        stop: options.stop.clone(),
        failed: Arc::new(AtomicBool::new(false)),
    });
    let (plies, mut ply_events) = mpsc::unbounded_channel::<PlyEvent<R>>();
    let mut plies = Some(plies);
    let mut games = JoinSet::new();
    let wanted = |i: &usize| options.only.as_ref().is_none_or(|only| only.contains(i));
    let pending = (0..schedule.len()).filter(|i| slots[*i].is_none() && wanted(i));
    let mut queue = StartQueue::new(pending, |i| game_hosts(players, &schedule[i]));
    loop {
        // Games start while there is room (a game that failed meanwhile keeps the
        // rest unplayed); meanwhile moves and finished games are reported as they come.
        while games.len() < options.parallel.max(1) && !settings.stopped() {
            let Some(index) = queue.next() else { break };
            let settings = settings.clone();
            let plies = plies.clone().expect("the sender lives while games are left to start");
            let scheduled = schedule[index].clone();
            games.spawn(async move {
                let outcome = play_scheduled(&settings, index, &scheduled, &plies).await;
                if outcome.is_err() {
                    settings.failed.store(true, Ordering::Relaxed);
                }
                (index, outcome)
            });
        }
        if queue.is_empty() || settings.stopped() {
            // Every game has started (or none will): the channel closes with the last.
            plies = None;
        }
        tokio::select! {
            biased;
            Some(ply) = ply_events.recv() => report(MatchEvent::Ply { game: ply.game, board: &ply.board, mv: ply.mv }),
            Some(joined) = games.join_next() => {
                let (index, outcome) = joined.unwrap_or_else(|err| std::panic::resume_unwind(err.into_panic()));
                queue.finished(index);
                match outcome {
                    Err(MatchError::Game {
                        source: GameError::Stopped { .. },
                        ..
                    }) => {}
                    Ok(record) => {
                        while let Ok(ply) = ply_events.try_recv() {
                            report(MatchEvent::Ply { game: ply.game, board: &ply.board, mv: ply.mv });
                        }
                        report(MatchEvent::GameDone { game: index, record: &record });
                        slots[index] = Some(Ok(record));
                    }
                    Err(err) => slots[index] = Some(Err(err)),
                }
            }
            else => break,
        }
    }
    slots.into_iter().map(Option::transpose).collect()
}

/// The hosts a game waits on: its players', each once.
fn game_hosts<R: ModelGame>(players: &[PlayerSpec<R>], game: &ScheduledGame) -> Vec<Host> {
    let mut hosts: Vec<Host> = [game.black, game.white]
        .iter()
        .filter_map(|&p| players[p].host())
        .collect();
    hosts.sort();
    hosts.dedup_by_key(|h| h.id);
    hosts
}
