//! One run's life, the same for every command that plays and logs (eval, tournament,
//! play, probe): open its run folder (a new one, or the one a resume continues,
//! locked), record the run in run.json or this resume beside it, stop on Ctrl-C, play
//! the schedule with progress events (pairing by pairing under a stop rule, whose
//! decisions go to decisions.jsonl), and write its results.
//!
//! Ctrl-C once stops a run whose gentle stop is armed ([`Run::stop_on_ctrl_c`]); the
//! signals themselves are the `interrupt` module's ([`crate::watch_signals`]).

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use agent::ModelGame;
use runs::{OpeningsRecord, PairingStop, Resume, RunFile, RunFolder, RunFolderError, RunResults};

use super::interrupt::arm;
use super::openings::Openings;
use super::play::GameRecord;
use super::player_spec::PlayerSpec;
use super::resume::{load_resume_state, ResumeError, ResumeState};
use super::schedule::{run_games, MatchError, MatchEvent, RunOptions};
use super::scheduled::ScheduledGame;
use super::sequential::{run_sequential, Pairing};
use super::stop_judge::StopJudge;

/// Where run folders go when no folder is named (`--log-dir`).
const LOGS: &str = "logs";

/// Which folder a run lives in.
#[derive(Clone, Copy, Debug)]
pub enum Start<'a> {
    /// A new run: in `dir` when given (new or empty), else a fresh
    /// `logs/<stamp>-<label>`.
    New {
        /// The folder asked for (`--log-dir`).
        dir: Option<&'a Path>,
        /// What the folder's name says after its time stamp.
        label: &'a str,
    },
    /// The run in this folder, continued (`--resume DIR`).
    Resume(&'a Path),
}

/// A run that cannot be opened, recorded or played on.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The folder asked for cannot hold a new run.
    #[error("bad --log-dir {}: continue a run with --resume, or give a new folder", .dir.display())]
    LogDir {
        /// The folder.
        dir: PathBuf,
        /// Why.
        #[source]
        source: RunFolderError,
    },
    /// No run folder could be made under `logs/`.
    #[error("cannot create a run folder under logs/")]
    Logs(#[source] RunFolderError),
    /// The folder to resume cannot be resumed.
    #[error("bad --resume {}", .dir.display())]
    Resume {
        /// The folder.
        dir: PathBuf,
        /// Why.
        #[source]
        source: RunFolderError,
    },
    /// A file of the run folder cannot be written.
    #[error(transparent)]
    Folder(#[from] RunFolderError),
    /// The finished games of the folder cannot be read back.
    #[error(transparent)]
    Read(#[from] ResumeError),
    /// A game failed (beyond an interrupt, which ends a run with unfinished games).
    #[error(transparent)]
    Match(#[from] MatchError),
    /// A resume whose settings are not the ones the run recorded: the rest of its games
    /// would be credited to settings they were not played with.
    #[error("bad --resume {}: {changed}; {restore}, or start a new run", .dir.display())]
    Changed {
        /// The run folder.
        dir: PathBuf,
        /// What changed.
        changed: String,
        /// What to restore (`restore them`).
        restore: &'static str,
    },
}

/// The run stopped at the user's request before every game finished.
#[derive(Debug, thiserror::Error)]
#[error(
    "interrupted: {finished} of {total} games finished (the table counts only those); continue with: {}",
    resume_command(.command, .dir)
)]
pub struct Interrupted {
    /// The command that resumes the run (`eval`, `tournament`).
    pub command: &'static str,
    /// Games finished.
    pub finished: usize,
    /// Games scheduled.
    pub total: usize,
    /// The run folder.
    pub dir: PathBuf,
}

/// What a resume read back: games finished before, and unfinished logs set aside.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Resumed {
    /// Games that had finished.
    pub finished: usize,
    /// Logs of unfinished games renamed `*.unfinished-N` (their games are played again).
    pub set_aside: usize,
}

/// The command that continues the run of `command` (`eval`, `tournament`) in `dir`.
pub(crate) fn resume_command(command: &str, dir: &Path) -> String {
    format!("othello-arena {command} --resume {}", dir.display())
}

/// A run being played: its locked folder and its stop flag.
#[derive(Debug)]
pub struct Run {
    folder: RunFolder,
    command: &'static str,
    stop: Arc<AtomicBool>,
}

/// What a run played: each scheduled game's record (`None`: not played, or not
/// finished) and, under a stop rule, where each pairing stopped.
#[derive(Debug)]
pub struct RunGames<R: ModelGame> {
    /// Per schedule index.
    pub records: Vec<Option<GameRecord<R>>>,
    /// Per pairing (empty without a stop rule).
    pub stops: Vec<Option<PairingStop>>,
}

impl<R: ModelGame> RunGames<R> {
    /// Per schedule index, whether the game was needed: under a stop rule, the games of
    /// a pairing after its stop were never needed (they are not unfinished games).
    pub fn needed(&self, pairings: &[Pairing]) -> Vec<bool> {
        let mut needed = vec![true; self.records.len()];
        for (pairing, stop) in pairings.iter().zip(&self.stops) {
            if let Some(stop) = stop {
                for pair in &pairing.pairs[stop.pairs as usize..] {
                    needed[pair[0]] = false;
                    needed[pair[1]] = false;
                }
            }
        }
        needed
    }

    /// Whether the run was interrupted: a needed game did not finish (under a stop
    /// rule: a pairing has no stop).
    pub fn interrupted(&self, sequential: bool) -> bool {
        if sequential {
            self.stops.iter().any(Option::is_none)
        } else {
            self.records.iter().any(Option::is_none)
        }
    }
}

impl Run {
    /// Opens the run folder of a run of `command` (`eval`, `tournament`, `play`,
    /// `probe`): a new one, or the one a resume continues, locked against a second
    /// writer either way.
    pub fn open(command: &'static str, start: Start<'_>) -> Result<Run, RunError> {
        let folder = match start {
            Start::New { dir: Some(dir), .. } => RunFolder::create_at(dir).map_err(|source| RunError::LogDir {
                dir: dir.to_path_buf(),
                source,
            })?,
            Start::New { dir: None, label } => RunFolder::create_in(Path::new(LOGS), label).map_err(RunError::Logs)?,
            Start::Resume(dir) => RunFolder::resume(dir).map_err(|source| RunError::Resume {
                dir: dir.to_path_buf(),
                source,
            })?,
        };
        Ok(Run {
            folder,
            command,
            stop: Arc::new(AtomicBool::new(false)),
        })
    }

    /// The run folder.
    pub fn folder(&self) -> &RunFolder {
        &self.folder
    }

    /// The run folder's path.
    pub fn path(&self) -> &Path {
        self.folder.path()
    }

    /// Writes run.json: what a new run is (its players and settings).
    pub fn record(&self, run: &RunFile) -> Result<(), RunError> {
        Ok(self.folder.write_run(run)?)
    }

    /// Reads back the games of the run that finished before, sets the logs of the
    /// unfinished ones aside (`*.unfinished-N`, played again) and records this resume
    /// in run.json (`entry` makes its record from what was read back).
    pub fn resume<R: ModelGame>(
        &self,
        (players, schedule, openings): (&[PlayerSpec<R>], &[ScheduledGame], &Openings<R>),
        entry: impl FnOnce(&ResumeState<R>) -> Resume,
    ) -> Result<ResumeState<R>, RunError> {
        let state = load_resume_state(self.path(), players, schedule, openings)?;
        self.folder.add_resume(entry(&state))?;
        Ok(state)
    }

    /// Refuses a resume whose openings (`now`) are not the ones the run recorded
    /// (`then`): its remaining games would start elsewhere than its finished ones.
    pub fn refuse_changed_openings(
        &self,
        then: Option<&OpeningsRecord>,
        now: Option<&OpeningsRecord>,
    ) -> Result<(), RunError> {
        match OpeningsRecord::changed_on_resume(then, now) {
            Some(changed) => Err(RunError::Changed {
                dir: self.path().to_path_buf(),
                changed,
                restore: "restore the file the run played",
            }),
            None => Ok(()),
        }
    }

    /// The options games of this run are played with: logged in its folder, stopped
    /// by its stop flag.
    pub fn options<R: ModelGame>(&self, openings: Openings<R>, parallel: usize) -> RunOptions<R> {
        RunOptions {
            openings,
            parallel,
            log_dir: Some(self.path().to_path_buf()),
            stop: Some(self.stop.clone()),
            ..RunOptions::default()
        }
    }

    /// Arms the run's gentle stop: from now on the first Ctrl-C sets its stop flag,
    /// and a quit names the command that continues it ([`crate::watch_signals`]
    /// listens).
    pub fn stop_on_ctrl_c(&self) {
        arm(self.stop.clone(), Some(resume_command(self.command, self.path())));
    }

    /// Plays `schedule` between `players` with `options` (each event to `report`):
    /// every game, or under `rule` pairing by pairing until its rule stops it, the
    /// rule's answers written to decisions.jsonl.
    pub async fn play<R: ModelGame>(
        &self,
        (players, schedule, pairings): (&[PlayerSpec<R>], &[ScheduledGame], &[Pairing]),
        rule: Option<&StopJudge>,
        options: &RunOptions<R>,
        report: &(dyn Fn(MatchEvent<'_, R>) + Sync),
    ) -> Result<RunGames<R>, RunError> {
        match rule {
            Some(rule) => {
                let played = run_sequential(players, schedule, pairings, rule, options, report).await?;
                self.folder.write_decisions(&played.decisions)?;
                Ok(RunGames {
                    records: played.records,
                    stops: played.stops,
                })
            }
            None => Ok(RunGames {
                records: run_games(players, schedule, options, report).await?,
                stops: Vec::new(),
            }),
        }
    }

    /// Writes results.json.
    pub fn finish(&self, results: &RunResults<'_>) -> Result<(), RunError> {
        Ok(self.folder.write_results(results)?)
    }
}
