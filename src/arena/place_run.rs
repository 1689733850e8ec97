//! A `place` run's life in its folder: opened (or resumed, its finished games read
//! back), recorded in run.json, played through [`Placement::play`], and its steps and
//! final rating written to place.json beside the game logs (which `rate` reads as it
//! reads any run).

use std::path::{Path, PathBuf};

use runs::{utc_now, PlaceRun, ReadRunError, Resume, RunFile, RunKind};
use serde::Serialize;

use super::lifecycle::{Resumed, Run, RunError, Start};
use super::place::{Chooser, PlaceStep, PlaceStop, Placed, Placement};
use super::schedule::MatchEvent;

/// Why the run `place --resume` names cannot be continued.
#[derive(Debug, thiserror::Error)]
pub enum RecordedPlaceError {
    /// Its run.json cannot be read.
    #[error("bad --resume: cannot read {}", .path.display())]
    Unreadable {
        /// The run.json.
        path: PathBuf,
        /// Why.
        #[source]
        source: ReadRunError,
    },
    /// It is a run of another command.
    #[error("bad --resume: {} is not a place run", .path.display())]
    NotPlace {
        /// The run.json.
        path: PathBuf,
    },
}

/// The place run in `dir` as its run.json recorded it (its `argv` the command line
/// that defines it, its `parallel` the games it played at once).
pub fn recorded_place(dir: &Path) -> Result<PlaceRun, RecordedPlaceError> {
    let path = dir.join("run.json");
    let run = RunFile::read(dir).map_err(|source| RecordedPlaceError::Unreadable {
        path: path.clone(),
        source,
    })?;
    match run.run {
        RunKind::Place(recorded) => Ok(recorded),
        _ => Err(RecordedPlaceError::NotPlace { path }),
    }
}

/// The file of a run folder that holds a placement's steps and result.
pub(crate) const PLACE_FILE: &str = "place.json";

/// A placement, open in its run folder (Ctrl-C armed).
pub struct OpenPlacement {
    /// The run.
    pub run: Run,
    /// What it plays (the games a resume read back in `run.finished`).
    pub placement: Placement,
    /// What a resume read back (`None`: a new run).
    pub resumed: Option<Resumed>,
}

/// A finished (or interrupted) placement as place.json holds it.
#[derive(Clone, Debug, Serialize)]
pub struct PlaceResult {
    /// The player placed.
    pub player: String,
    /// How its opponents were chosen.
    pub chooser: Chooser,
    /// The width asked for.
    pub width: f64,
    /// Why it stopped (`None`: interrupted; `place --resume` continues it).
    pub stop: Option<PlaceStop>,
    /// Games played.
    pub games: usize,
    /// The rating after the last pair, with its 95% interval.
    pub elo: Option<f64>,
    /// Its interval.
    pub interval: Option<[f64; 2]>,
    /// Every pair, in playing order.
    pub steps: Vec<PlaceStep>,
    /// The run folder.
    pub log_dir: String,
}

impl Placement {
    /// Opens the run folder (`dir`, else a new one under logs/), or continues the run
    /// in `dir` when `resume` (its finished games read back); records run.json
    /// (`argv`: the command line after the program's name) and arms Ctrl-C.
    pub fn open(mut self, dir: Option<&Path>, resume: bool, argv: Vec<String>) -> Result<OpenPlacement, RunError> {
        let schedule = self.plan().schedule;
        let openings = self.run.openings.record(&schedule);
        let label = self.player.to_string();
        let start = match (dir, resume) {
            (Some(dir), true) => Start::Resume(dir),
            (dir, _) => Start::New { dir, label: &label },
        };
        let run = Run::open("place", start)?;
        let parallel = self.run.parallel;
        self.run = run.options(self.run.openings.clone(), parallel);
        let resumed = if resume {
            let players = self.players();
            let state = run.resume((&players, &schedule, &self.run.openings), |state| Resume {
                created_utc: utc_now().0,
                parallel,
                fleet: None,
                games_finished_before: Some(state.finished.len()),
            })?;
            let resumed = Resumed {
                finished: state.finished.len(),
                set_aside: state.set_aside.len(),
            };
            self.run.finished = state.finished;
            Some(resumed)
        } else {
            run.record(&RunFile::new(RunKind::Place(PlaceRun {
                argv,
                players: self.players().iter().map(|p| p.run_player()).collect(),
                opponent_elos: self.opponents.iter().map(|(_, elo)| *elo).collect(),
                chooser: match self.chooser {
                    Chooser::Nearest => "nearest",
                    Chooser::InTurn => "in-turn",
                }
                .to_string(),
                width: self.width,
                max_pairs: self.max_pairs,
                openings,
                seed: self.seed,
                parallel,
            })))?;
            None
        };
        run.stop_on_ctrl_c();
        Ok(OpenPlacement {
            run,
            placement: self,
            resumed,
        })
    }
}

impl OpenPlacement {
    /// Plays the placement, each event to `report`, and writes place.json.
    pub async fn play(&self, report: &(dyn Fn(MatchEvent<'_>) + Sync)) -> Result<PlaceResult, RunError> {
        let placed = self.placement.play(report).await?;
        let result = self.result(placed);
        let text = serde_json::to_string_pretty(&result).expect("a placement's result is plain data");
        self.run.folder().write_text(PLACE_FILE, &format!("{text}\n"))?;
        Ok(result)
    }

    fn result(&self, placed: Placed) -> PlaceResult {
        let last = placed.steps.last();
        PlaceResult {
            player: self.placement.player.to_string(),
            chooser: self.placement.chooser,
            width: self.placement.width,
            stop: placed.stop,
            games: placed.records.iter().filter(|r| r.is_some()).count(),
            elo: last.map(|s| s.elo),
            interval: last.and_then(|s| s.interval),
            steps: placed.steps,
            log_dir: self.run.path().display().to_string(),
        }
    }
}
