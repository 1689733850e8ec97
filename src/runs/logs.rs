//! The game logs a user points the reports at (`stats`, `report`, `compare`, `rate`,
//! tournament ratings), read in one place: run folders and game files expanded into
//! logs, each log read once however many paths reach it, read forgivingly at its tail
//! (a line cut off by a crash makes the game unfinished, with a note) and strictly
//! everywhere else (another `schema_version`, a bad line before the last, a move the
//! rules do not allow: an error naming the file, and the line or ply).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use super::replay::{replay_records, GameReplay, ReplayError};
use super::tally::{GameSummary, NotAGameLog};
use game::Game;
use record::{read_game_log_prefix, ReadLogError};

/// One game read from its log.
#[derive(Clone, Debug)]
pub struct LoggedGame {
    /// The log, as first reached from the paths given.
    pub path: PathBuf,
    /// The folder the log lies in, links resolved: the game's run.
    pub run: PathBuf,
    /// The game as the tallies count it (unfinished when its last line was cut off).
    pub summary: GameSummary,
    /// The game ply by ply, its moves checked against the rules.
    pub replay: GameReplay,
}

/// The games under a set of paths, and what the reader noticed on the way.
#[derive(Clone, Debug, Default)]
pub struct GameLogs {
    /// Each game once, in the order the paths reach them (a folder's logs by name).
    pub games: Vec<LoggedGame>,
    /// Things the user should know that did not stop the reading (a game cut off by a
    /// crash, a log reached twice), one sentence each, naming the file.
    pub notes: Vec<String>,
    /// The game every log plays (Othello when there are none).
    pub game: Game,
}

impl GameLogs {
    /// The run folders the games came from, each once, sorted.
    pub fn runs(&self) -> Vec<&Path> {
        let mut runs: Vec<&Path> = self.games.iter().map(|g| g.run.as_path()).collect();
        runs.sort();
        runs.dedup();
        runs
    }
}

/// Paths that do not lead to game logs that can be counted.
#[derive(Debug, thiserror::Error)]
pub enum LogsError {
    /// A path that is neither a folder nor a file.
    #[error("{path} does not exist: give run folders or game logs")]
    Missing {
        /// The path given.
        path: PathBuf,
    },
    /// A folder that cannot be listed, or a log whose real path cannot be found.
    #[error("cannot read {path}")]
    Io {
        /// The folder or file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// A folder without game logs.
    #[error(
        "{path} holds no game-NNNN.jsonl logs, nor run folders that do: give a run folder or a folder of runs (logs/)"
    )]
    NoLogs {
        /// The folder.
        path: PathBuf,
    },
    /// A log with a line that cannot be read (before its last), or of another version.
    #[error(transparent)]
    Read(#[from] ReadLogError),
    /// A log whose records tell no game.
    #[error("{path} is not a game log")]
    NotAGame {
        /// The file.
        path: PathBuf,
        /// What is missing.
        #[source]
        source: NotAGameLog,
    },
    /// Logs of two games: their tables and ratings would mix them.
    #[error("{path} is a game of {game}, the logs before it of {first}: give the runs of one game at a time")]
    MixedGames {
        /// The first log of the second game.
        path: PathBuf,
        /// Its game.
        game: Game,
        /// The game of the logs before it.
        first: Game,
    },
    /// A log whose moves break the rules: it cannot be counted.
    #[error("{path}: the log does not follow the rules of the game, so it is not counted")]
    Rules {
        /// The file.
        path: PathBuf,
        /// The line and ply, and what is wrong.
        #[source]
        source: ReplayError,
    },
}

/// Reads every game log under `paths` (run folders: their `game-*.jsonl`; files: as
/// given), each log once by its real path and once by its content (the same game
/// submitted twice, in two bundles or a bundle and its folder, counts once), and checks
/// it against the rules. A log whose last line was cut off is an unfinished game; one
/// with no whole record at all (cut off at its first line) is left out; both with a
/// note.
pub fn read_game_logs(paths: &[PathBuf]) -> Result<GameLogs, LogsError> {
    let mut logs = GameLogs::default();
    let mut seen = BTreeSet::new();
    let mut contents = BTreeSet::new();
    let mut repeated: Vec<PathBuf> = Vec::new();
    let mut copies: Vec<PathBuf> = Vec::new();
    for path in paths {
        for file in log_files(path, &mut logs.notes)? {
            let real = std::fs::canonicalize(&file).map_err(|source| LogsError::Io {
                path: file.clone(),
                source,
            })?;
            if !seen.insert(real.clone()) {
                repeated.push(file);
                continue;
            }
            let run = real.parent().map_or_else(|| PathBuf::from("/"), Path::to_path_buf);
            if let Some(game) = read_one(file.clone(), run, &mut logs.notes)? {
                // Read whole already (a plain file within the log's caps): hashed now.
                let bytes = std::fs::read(&real).map_err(|source| LogsError::Io {
                    path: file.clone(),
                    source,
                })?;
                if !contents.insert(crate::sha256_bytes(&bytes)) {
                    copies.push(file);
                    continue;
                }
                if let Some(first) = logs.games.first().filter(|g| g.replay.game != game.replay.game) {
                    return Err(LogsError::MixedGames {
                        path: file,
                        game: game.replay.game,
                        first: first.replay.game,
                    });
                }
                logs.games.push(game);
            }
        }
    }
    logs.game = logs.games.first().map_or(Game::Othello, |g| g.replay.game);
    if let Some(first) = copies.first() {
        logs.notes.push(format!(
            "{} game log(s) with the same bytes as one read before (the first: {}): the same game \
             given twice, counted once",
            copies.len(),
            first.display()
        ));
    }
    if let Some(first) = repeated.first() {
        logs.notes.push(format!(
            "{} game log(s) reached by more than one of the paths given (the first: {}) \
             counted once",
            repeated.len(),
            first.display()
        ));
    }
    Ok(logs)
}

/// How many folders below a folder of runs [`run_folders`] looks for runs
/// (`logs/intrinsic-calibration/<run>` is two).
const RUNS_DEPTH: usize = 4;

/// The run folders `path` stands for: itself when it is a file or a folder that holds
/// game logs or a run.json (a run folder); else, a folder of runs (`logs/`, as `serve
/// --runs` reads it), every folder below it that holds game logs, by path, with a note
/// that says so.
pub fn run_folders(path: &Path) -> Result<(Vec<PathBuf>, Option<String>), LogsError> {
    if !path.is_dir() || path.join("run.json").exists() || !game_logs_in(path)?.is_empty() {
        return Ok((vec![path.to_path_buf()], None));
    }
    let mut runs = Vec::new();
    let mut below = vec![(path.to_path_buf(), 0)];
    while let Some((dir, depth)) = below.pop() {
        for entry in std::fs::read_dir(&dir).map_err(|source| LogsError::Io {
            path: dir.clone(),
            source,
        })? {
            let sub = entry
                .map_err(|source| LogsError::Io {
                    path: dir.clone(),
                    source,
                })?
                .path();
            if !sub.is_dir() {
                continue;
            }
            if !game_logs_in(&sub)?.is_empty() {
                runs.push(sub);
            } else if depth + 1 < RUNS_DEPTH {
                below.push((sub, depth + 1));
            }
        }
    }
    if runs.is_empty() {
        return Err(LogsError::NoLogs {
            path: path.to_path_buf(),
        });
    }
    runs.sort();
    let note = format!(
        "{} is a folder of runs: every run folder under it is read ({} runs)",
        path.display(),
        runs.len()
    );
    Ok((runs, Some(note)))
}

/// The `game-*.jsonl` logs directly in the folder `dir`, by name.
fn game_logs_in(dir: &Path) -> Result<Vec<PathBuf>, LogsError> {
    let io = |source| LogsError::Io {
        path: dir.to_path_buf(),
        source,
    };
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(io)? {
        let file = entry.map_err(io)?.path();
        if record::is_game_log(&file) {
            found.push(file);
        }
    }
    found.sort();
    Ok(found)
}

/// The game logs a path stands for: a run folder's `game-*.jsonl` by name, those of
/// every run under a folder of runs ([`run_folders`], with its note), or the file (a
/// FIFO or a device too, which the reader then refuses by what it is).
fn log_files(path: &Path, notes: &mut Vec<String>) -> Result<Vec<PathBuf>, LogsError> {
    if path.exists() && !path.is_dir() {
        return Ok(vec![path.to_path_buf()]);
    }
    if !path.is_dir() {
        return Err(LogsError::Missing {
            path: path.to_path_buf(),
        });
    }
    let (runs, note) = run_folders(path)?;
    notes.extend(note);
    let mut found = Vec::new();
    for run in &runs {
        found.extend(game_logs_in(run)?);
    }
    if found.is_empty() {
        return Err(LogsError::NoLogs {
            path: path.to_path_buf(),
        });
    }
    Ok(found)
}

/// Reads one log, or `None` (with a note) when it holds no whole record.
fn read_one(path: PathBuf, run: PathBuf, notes: &mut Vec<String>) -> Result<Option<LoggedGame>, LogsError> {
    let log = read_game_log_prefix(&path)?;
    if log.records.is_empty() {
        notes.push(format!(
            "{}: no whole record (the run stopped as the game began): left out",
            path.display()
        ));
        return Ok(None);
    }
    let mut summary = GameSummary::from_log(&log.records).map_err(|source| LogsError::NotAGame {
        path: path.clone(),
        source,
    })?;
    let replay = replay_records(&log.records).map_err(|source| LogsError::Rules {
        path: path.clone(),
        source,
    })?;
    if log.torn_tail {
        notes.push(cut_off_note(&path));
        summary.black_margin = None;
    }
    Ok(Some(LoggedGame {
        path,
        run,
        summary,
        replay,
    }))
}

/// The note for a log whose last line a crash cut off (see [`LogPrefix`]).
///
/// [`LogPrefix`]: record::LogPrefix
pub(crate) fn cut_off_note(path: &Path) -> String {
    format!(
        "{}: the last line was cut off (the run stopped mid-write): the game is read as unfinished",
        path.display()
    )
}
