//! What `--score-moves` scores against ([`Scoring`]): our reference evaluator with its
//! settings, or an external engine's NBoard `hint` values; as run.json and the results
//! record it, the scorers a scoring runs on, and a valuing written into a run's
//! `move-scores.jsonl` ([`Scoring::value`]).

use std::path::Path;
use std::sync::atomic::AtomicBool;

use agent::ModelGame;
use serde::Serialize;
use serde_json::Value;

use super::engine_process::ExternalError;
use super::external::ExternalScorer;
use super::external_engine::ExternalEngine;
use super::quality::{score_games, GameToScore, MoveScorer, ScoredMove, ScoringError, ScoringStopped, ScoringWatch};
use record::EngineId;
use runs::{MoveScoresError, RunEngine};

/// Why decisions were not valued (the game logs are complete either way).
#[derive(Debug, thiserror::Error)]
pub enum ValueMovesError {
    /// The external reference could not be set up.
    #[error(transparent)]
    Scorer(#[from] ExternalError),
    /// A Ctrl-C stopped the valuing.
    #[error("stopped by Ctrl-C: no move scores were written (the game logs are complete)")]
    Stopped(#[source] ScoringStopped),
    /// The valuing failed.
    #[error("no move scores were written (the game logs are complete)")]
    Failed(#[source] ScoringError),
    /// The values could not be written.
    #[error(transparent)]
    Write(#[from] MoveScoresError),
}

/// Builds one move scorer for each worker of a scoring.
pub(crate) type Scorers<R> = Box<dyn Fn() -> MoveScorer<R> + Sync>;

/// What moves are scored against: our reference (exact at `exact_empties` or fewer,
/// else a `depth`-ply search), or an external engine.
#[derive(Clone, Debug)]
pub struct Scoring {
    exact_empties: u32,
    depth: u32,
    external: Option<ExternalEngine>,
}

/// [`Scoring::to_json`] for our reference (its keys in their order).
#[derive(Serialize)]
struct OursJson {
    blunder_regret: f64,
    depth: u32,
    exact_empties: u32,
    reference: String,
}

/// [`Scoring::to_json`] for an external engine (its keys in their order).
#[derive(Serialize)]
struct ExternalJson<'a> {
    blunder_regret: f64,
    engine: String,
    engine_id: Option<&'a EngineId>,
    reference: String,
}

impl Scoring {
    /// Our reference: exact at `exact_empties` or fewer, else a `depth`-ply search.
    pub fn ours(exact_empties: u32, depth: u32) -> Scoring {
        Scoring {
            exact_empties,
            depth,
            external: None,
        }
    }

    /// The external engine `engine` (its handshake checked by the caller).
    pub fn external(exact_empties: u32, depth: u32, engine: ExternalEngine) -> Scoring {
        Scoring {
            external: Some(engine),
            ..Scoring::ours(exact_empties, depth)
        }
    }

    /// The external reference as run.json records it (so a resume refuses a changed
    /// table), if there is one.
    pub fn run_engine(&self) -> Option<RunEngine> {
        self.external.as_ref().map(ExternalEngine::run_engine)
    }

    /// The settings as JSON, for run.json and results, for game `R`.
    pub fn to_json<R: ModelGame>(&self) -> Value {
        let written = match &self.external {
            None => serde_json::to_value(OursJson {
                blunder_regret: R::BLUNDER,
                depth: self.depth,
                exact_empties: self.exact_empties,
                reference: self.describe::<R>(),
            }),
            Some(engine) => serde_json::to_value(ExternalJson {
                blunder_regret: R::BLUNDER,
                engine: engine.name(),
                engine_id: engine.identity(),
                reference: self.describe::<R>(),
            }),
        };
        written.unwrap_or_default()
    }

    /// One line saying how scores were obtained in game `R`.
    pub fn describe<R: ModelGame>(&self) -> String {
        match &self.external {
            None => R::describe_reference(self.exact_empties, self.depth),
            Some(engine) => format!(
                "{}'s NBoard hint values, read as final discs for the mover; exact where it searched to the end",
                engine.name()
            ),
        }
    }

    /// The heading above a quality table of player `who`, in game `R`.
    pub fn heading<R: ModelGame>(&self, who: &str) -> String {
        format!(
            "Move quality of {who}, regret in {} against the reference ({}):\n",
            R::MARGIN,
            self.describe::<R>()
        )
    }

    /// Values every move of `games` of game `R` (on `cores` workers with our reference,
    /// on as many processes as an external one's `max_in_flight` allows, their stderr
    /// appended to `log_dir`), counted in `watch`, stopping before the next move once
    /// `stop` is set; the values written to `log_dir`'s `move-scores.jsonl` when there
    /// is a run folder. Blocks: call it off the async workers.
    pub fn value<R: ModelGame>(
        &self,
        games: &[GameToScore<'_, R>],
        (cores, watch, stop): (usize, &ScoringWatch, &AtomicBool),
        log_dir: Option<&Path>,
    ) -> Result<Vec<ScoredMove>, ValueMovesError> {
        let (build, parallel) = self.scorers::<R>(cores, log_dir)?;
        let moves = score_games(games, &*build, parallel, watch, stop).map_err(|err| match err {
            ScoringError::Stopped(stopped) => ValueMovesError::Stopped(stopped),
            failed => ValueMovesError::Failed(failed),
        })?;
        if let Some(dir) = log_dir {
            runs::write_move_scores(dir, &moves)?;
        }
        Ok(moves)
    }

    /// A scorer for each worker (our reference, or a process of the external engine,
    /// its stderr appended to `log_dir`), and how many workers at most (`cores` for
    /// ours, as many as the engine's `max_in_flight` allows for an external one).
    pub fn scorers<R: ModelGame>(
        &self,
        cores: usize,
        log_dir: Option<&Path>,
    ) -> Result<(Scorers<R>, usize), ExternalError> {
        match &self.external {
            None => {
                let (exact_empties, depth) = (self.exact_empties, self.depth);
                Ok((
                    Box::new(move || MoveScorer::Ours(R::reference(exact_empties, depth))),
                    cores,
                ))
            }
            Some(engine) => {
                let stderr = log_dir.map(|dir| dir.join(format!("engine-{}-scoring.stderr", engine.table().name)));
                let scorer = ExternalScorer::new(engine, stderr)?;
                let build = move || MoveScorer::External(Box::new(scorer.clone()));
                Ok((Box::new(build), cores.min(engine.max_in_flight())))
            }
        }
    }
}
