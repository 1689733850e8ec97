//! Resuming an interrupted run: finished games are read back from their logs,
//! unfinished ones are moved aside to be played again.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::game::{GameRecord, PlyRecord};
use super::player::{Played, PlayerSpec};
use super::schedule::ScheduledGame;
use crate::othello::{Board, Color, Game, Move};
use crate::record::{game_start, read_game_log_prefix, Event, ReadLogError, Record};

/// What an interrupted run left behind.
#[derive(Clone, Debug, Default)]
pub struct ResumeState {
    /// Finished games, by schedule index.
    pub finished: BTreeMap<usize, GameRecord>,
    /// Logs of unfinished games, each renamed to `game-NNNN.jsonl.unfinished-K`.
    pub set_aside: Vec<PathBuf>,
}

/// A run folder that cannot be resumed.
#[derive(Debug, thiserror::Error)]
pub enum ResumeError {
    /// A log cannot be read.
    #[error(transparent)]
    Read(#[from] ReadLogError),
    /// A finished log does not belong to this run's schedule.
    #[error(
        "{path}: game {game} was played by {found} but this run schedules {expected}: \
         resume the run with the settings in its run.json"
    )]
    Mismatch {
        /// The log.
        path: PathBuf,
        /// Game number.
        game: usize,
        /// Players and seed in the log.
        found: String,
        /// Players and seed the schedule expects.
        expected: String,
    },
    /// A finished log whose moves cannot be replayed, or whose end record disagrees with them.
    #[error("{path}: {reason}; move the file aside to play this game again")]
    Corrupt {
        /// The log.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// An unfinished log cannot be renamed.
    #[error("cannot move the unfinished log {path} aside")]
    Rename {
        /// The log.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
}

/// The log file of game `number` in `dir`.
pub fn game_log_path(dir: &Path, number: usize) -> PathBuf {
    dir.join(format!("game-{number:04}.jsonl"))
}

/// Reads the logs in `dir` for `schedule` (played by `players`): a game whose log ends
/// with `game_end` is rebuilt and kept; a log without one (stopped, killed, torn last
/// line) is renamed so the game is played again from its start and nothing written is lost.
pub fn load_resume_state(
    dir: &Path,
    players: &[PlayerSpec],
    schedule: &[ScheduledGame],
) -> Result<ResumeState, ResumeError> {
    let mut state = ResumeState::default();
    for (index, scheduled) in schedule.iter().enumerate() {
        let number = index + 1;
        let path = game_log_path(dir, number);
        if !path.exists() {
            continue;
        }
        let log = read_game_log_prefix(&path)?;
        let finished = !log.torn_tail && log.records.iter().any(|r| matches!(r.event, Event::GameEnd(_)));
        if !finished {
            state.set_aside.push(set_aside(&path)?);
            continue;
        }
        check_players(&path, number, &log.records, players, scheduled)?;
        let record = rebuild_game(&log.records).map_err(|reason| ResumeError::Corrupt {
            path: path.clone(),
            reason,
        })?;
        state.finished.insert(index, record);
    }
    Ok(state)
}

fn set_aside(path: &Path) -> Result<PathBuf, ResumeError> {
    let mut k = 1;
    let target = loop {
        let candidate = PathBuf::from(format!("{}.unfinished-{k}", path.display()));
        if !candidate.exists() {
            break candidate;
        }
        k += 1;
    };
    std::fs::rename(path, &target).map_err(|source| ResumeError::Rename {
        path: path.to_path_buf(),
        source,
    })?;
    Ok(target)
}

fn check_players(
    path: &Path,
    number: usize,
    records: &[Record],
    players: &[PlayerSpec],
    scheduled: &ScheduledGame,
) -> Result<(), ResumeError> {
    let expected = format!(
        "{} (black) vs {} (white), seed {}",
        players[scheduled.black], players[scheduled.white], scheduled.seed
    );
    let found = game_start(records).map_or_else(
        || "no game_start record".to_string(),
        |s| format!("{} (black) vs {} (white), seed {}", s.black, s.white, s.seed),
    );
    if found == expected {
        Ok(())
    } else {
        Err(ResumeError::Mismatch {
            path: path.to_path_buf(),
            game: number,
            found,
            expected,
        })
    }
}

/// Rebuilds a finished game from its records; the error says what does not add up.
pub fn rebuild_game(records: &[Record]) -> Result<GameRecord, String> {
    let start = game_start(records).ok_or("no game_start record")?;
    let board = Board::parse_squares(&start.start_board, Color::Black).map_err(|e| format!("start board: {e}"))?;
    let mut game = Game::new(board);
    let parse_move = |text: &str| text.parse::<Move>().map_err(|e| format!("move {text:?}: {e}"));
    for text in &start.opening {
        game.try_play(parse_move(text)?).map_err(|e| format!("opening: {e}"))?;
    }
    let opening_plies = game.moves().len();
    let mut plies = Vec::new();
    let mut end = None;
    for record in records {
        match &record.event {
            Event::Move(m) => {
                let mv = parse_move(&m.mv)?;
                let color: Color = m.color.parse().map_err(|e| format!("ply {}: {e}", m.ply))?;
                game.try_play(mv).map_err(|e| format!("ply {}: {e}", m.ply))?;
                plies.push(PlyRecord {
                    color,
                    played: Played {
                        mv,
                        source: m.source,
                        agent: m.agent.clone(),
                    },
                });
            }
            Event::GameEnd(e) => end = Some(e),
            _ => {}
        }
    }
    let end = end.ok_or("no game_end record")?;
    let board = game.board();
    if !game.is_over() || (board.count(Color::Black), board.count(Color::White)) != (end.black_discs, end.white_discs) {
        return Err(format!(
            "the moves end at {}-{} ({}), the game_end record says {}-{}",
            board.count(Color::Black),
            board.count(Color::White),
            if game.is_over() { "game over" } else { "game not over" },
            end.black_discs,
            end.white_discs
        ));
    }
    Ok(GameRecord {
        opening_plies,
        plies,
        outcome: board.leader(),
        disc_difference: game.disc_difference(),
        game,
    })
}
