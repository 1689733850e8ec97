//! An eval settled from its flags ([`EvalPlan`]: every default and interaction decided
//! here once, as ripgrep's high arguments are from its low ones): the opponents and
//! the opening seed a command line leaves out, how the agent's decisions are valued and
//! whether their quality is reported ([`MoveValuing`]), the stop rule's judge, the caps
//! a resume keeps; and the run's end written in its folder ([`OpenEval::value`],
//! [`OpenEval::finish`]): the decisions valued into move-scores.jsonl, results.json,
//! and the seed's results.csv; the table the terminal shows ([`EvalResult::text`]).
//! The face maps its flags to the plan and prints.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use agent::ModelGame;
use runs::{agent_lines, opponent_rows, tally_header, utc_now, EvalResults, EvalRun, PairingStop, RunResults};
use stats::StopRule;

use super::engines_file::{reference_engine, ReferenceError};
use super::eval::EvalResult;
use super::eval_run::{EvalRunError, EvalSettings, OpenEval};
use super::external_engine::ExternalEngine;
use super::intrinsic::stop_judge;
use super::quality::{MoveQuality, ScoredMove, ScoringWatch};
use super::scoring::{Scoring, ValueMovesError};
use super::stop_judge::{StopJudge, StopJudgeError};

/// The opponents of an eval of game `R`: the specs `--vs` gives, else the game's
/// default ladder of engines.
pub fn eval_opponents<R: ModelGame>(vs: &[String]) -> Vec<String> {
    if vs.is_empty() {
        R::DEFAULT_OPPONENTS.split(',').map(str::to_string).collect()
    } else {
        vs.to_vec()
    }
}

/// The seed's table an eval writes in its run folder when every game is played.
pub const RESULTS_CSV: &str = "results.csv";

/// Checks `eval --csv FILE` before any work ([`runs::check_output_file`]): of the run's
/// own folder `log_dir`, it may name only the run's [`RESULTS_CSV`]; `force` replaces
/// a file that holds something.
pub fn check_eval_csv(csv: &Path, force: bool, log_dir: Option<&Path>) -> Result<(), runs::OutputFileError> {
    let run: Vec<&Path> = log_dir.into_iter().collect();
    let owned: Vec<PathBuf> = run.iter().map(|dir| dir.join(RESULTS_CSV)).collect();
    runs::check_output_file("--csv", csv, force, (&run, &owned))
}

/// A resume that asks for the contrary of its run's `--score-moves` or
/// `--no-score-moves` ([`resumed_scoring`]).
#[derive(Debug, thiserror::Error)]
#[error("bad --resume: the run was started with {recorded} ({}'s argv), so {keep}; resume it without {given}", .path.display())]
pub struct ContraryScoringError {
    /// The flag the run was started with.
    pub recorded: &'static str,
    /// The contrary flag given now.
    pub given: &'static str,
    /// What the run's flag means for it.
    pub keep: &'static str,
    /// The run's run.json.
    pub path: PathBuf,
}

/// `--score-moves` and `--no-score-moves` of a resumed eval: the run's own (`run`, as
/// the argv its run.json at `path` keeps gives them) with the ones given `now` added;
/// the contrary of the run's is refused, which clap cannot see (one of the two would
/// be dropped without a word).
pub fn resumed_scoring(
    run: (bool, bool),
    now: (bool, bool),
    path: &Path,
) -> Result<(bool, bool), ContraryScoringError> {
    let refused = |recorded, given, keep| ContraryScoringError {
        recorded,
        given,
        keep,
        path: path.to_path_buf(),
    };
    match (run, now) {
        ((true, _), (_, true)) => Err(refused("--score-moves", "--no-score-moves", "its moves are scored")),
        ((_, true), (true, _)) => Err(refused(
            "--no-score-moves",
            "--score-moves",
            "its decisions are not valued",
        )),
        _ => Ok((run.0 | now.0, run.1 | now.1)),
    }
}

/// How a run values its LLM players' decisions once their games are played.
#[derive(Clone, Debug)]
pub struct MoveValuing {
    /// The reference that values them (`None`: not valued, `--no-score-moves`).
    pub scoring: Option<Scoring>,
    /// Whether their quality is reported (`--score-moves`: tables, results.json,
    /// run.json); otherwise the values feed the intrinsic ratings (`rate`) only.
    pub reported: bool,
}

impl MoveValuing {
    /// The default: valued, not reported, by the shipped intrinsic calibration's
    /// reference, as `rate`'s, so that the values are of the kind its map was fitted on
    /// (and cheap: exact only from 14 empties).
    pub fn calibration() -> MoveValuing {
        MoveValuing {
            scoring: Some(Scoring::ours(runs::CALIBRATION_EXACT_EMPTIES, runs::CALIBRATION_DEPTH)),
            reported: false,
        }
    }

    /// What the flags ask: `--no-score-moves`, none; `--score-moves`, reported, by our
    /// reference at `reference` (exact empties, depth), or by `external` (its handshake
    /// checked); neither, [`MoveValuing::calibration`].
    pub fn new(
        (score_moves, no_score_moves): (bool, bool),
        (exact_empties, depth): (u32, u32),
        external: Option<ExternalEngine>,
    ) -> MoveValuing {
        if no_score_moves {
            return MoveValuing {
                scoring: None,
                reported: false,
            };
        }
        if !score_moves {
            return MoveValuing::calibration();
        }
        let scoring = match external {
            Some(engine) => Scoring::external(exact_empties, depth, engine),
            None => Scoring::ours(exact_empties, depth),
        };
        MoveValuing {
            scoring: Some(scoring),
            reported: true,
        }
    }

    /// What the flags ask ([`MoveValuing::new`]), the external reference
    /// `reference_engine` (`--reference ext:NAME`, heeded with `--score-moves` only)
    /// found in the `--engines` file `engines` and its handshake checked
    /// ([`reference_engine`]).
    pub async fn from_flags<R: ModelGame>(
        score: (bool, bool),
        reference: (u32, u32),
        (reference_engine, engines): (Option<&str>, Option<&Path>),
    ) -> Result<MoveValuing, Box<ReferenceError>> {
        let external = match reference_engine.filter(|_| score.0) {
            Some(spec) => Some(self::reference_engine::<R>(spec, engines).await?),
            None => None,
        };
        Ok(MoveValuing::new(score, reference, external))
    }

    /// The scoring whose quality is reported, if it is.
    pub fn reported(&self) -> Option<&Scoring> {
        self.scoring.as_ref().filter(|_| self.reported)
    }
}

/// An eval, every default settled: the run it plays, how its decisions are valued,
/// its stop rule judged, and where its folder is.
pub struct EvalPlan<R: ModelGame> {
    /// What it plays and records (the reported reference in `reference` and
    /// `score_moves`).
    pub settings: EvalSettings<R>,
    /// How the agent's decisions are valued.
    pub valuing: MoveValuing,
    /// The stop rule (`--stop`), and its judge.
    pub stop: Option<(StopRule, StopJudge)>,
    /// The run's folder (`--log-dir`, or the one `--resume` continues), else one made
    /// under logs/.
    pub log_dir: Option<PathBuf>,
    /// What the run a resume continues recorded.
    pub recorded: Option<EvalRun>,
}

impl<R: ModelGame> EvalPlan<R> {
    /// The plan of `settings`, valued as `valuing` says, stopped under `stop`, in
    /// `log_dir`; a resume (`recorded`) keeps the caps the run recorded.
    pub fn new(
        mut settings: EvalSettings<R>,
        valuing: MoveValuing,
        stop: Option<StopRule>,
        (log_dir, recorded): (Option<PathBuf>, Option<EvalRun>),
    ) -> Result<EvalPlan<R>, StopJudgeError> {
        if let Some(recorded) = &recorded {
            settings.config.agent.keep_recorded_cap(&recorded.agent);
            settings.agent.keep_recorded_cap(&recorded.agent);
        }
        let reported = valuing.reported();
        settings.reference = reported.and_then(Scoring::run_engine);
        settings.score_moves = reported.map(Scoring::to_json::<R>);
        let judge = stop_judge::<R>(stop)?;
        Ok(EvalPlan {
            settings,
            valuing,
            stop: stop.zip(judge),
            log_dir,
            recorded,
        })
    }

    /// Opens the run ([`EvalSettings::open`]): made, or the one `--resume` continues.
    pub async fn open(self) -> Result<(OpenEval<R>, EvalEnd), EvalRunError> {
        let end = EvalEnd {
            model: self.settings.agent.model.clone(),
            valuing: self.valuing,
            stop: self.stop,
        };
        let eval = self
            .settings
            .open(self.log_dir.as_deref(), self.recorded.as_ref())
            .await?;
        Ok((eval, end))
    }
}

/// What an open eval's end needs of its plan: the model, the valuing, the stop rule.
pub struct EvalEnd {
    /// The agent's model.
    pub model: String,
    /// How the agent's decisions are valued.
    pub valuing: MoveValuing,
    /// The stop rule and its judge.
    pub stop: Option<(StopRule, StopJudge)>,
}

impl EvalEnd {
    /// The stop rule's judge, if there is a rule.
    pub fn judge(&self) -> Option<&StopJudge> {
        self.stop.as_ref().map(|(_, judge)| judge)
    }

    /// The scoring that values the agent's decisions of `result` now: none when they
    /// are not valued, or while games are unfinished (an interrupted run is valued
    /// when it is resumed and complete).
    pub fn scoring<R: ModelGame>(&self, result: &EvalResult<R>) -> Option<&Scoring> {
        self.valuing.scoring.as_ref().filter(|_| result.unfinished == 0)
    }
}

/// The end of an eval, written: results.json, and the seed's table when complete.
pub struct EvalWritten {
    /// results.json's content.
    pub results: EvalResults,
    /// The seed's CSV (written as the folder's results.csv), when every game finished.
    pub csv: Option<String>,
}

impl<R: ModelGame> OpenEval<R> {
    /// The agent's decisions of `result` valued by `scoring` ([`EvalEnd::scoring`]) on
    /// `cores` workers (counted in `watch`; the run's Ctrl-C stops it) and written to
    /// move-scores.jsonl. Blocks: call it off the async workers.
    pub fn value(
        &self,
        result: &EvalResult<R>,
        scoring: &Scoring,
        (cores, watch): (usize, &ScoringWatch),
    ) -> Result<Vec<ScoredMove>, ValueMovesError> {
        let never = AtomicBool::new(false);
        let stop = self.config.run.stop.as_deref().unwrap_or(&never);
        scoring.value(&result.games_to_score(), (cores, watch, stop), Some(self.run.path()))
    }

    /// The quality of the agent's valued `moves` of `result`, over all games and per
    /// opponent.
    pub fn quality(&self, result: &EvalResult<R>, moves: &[ScoredMove]) -> (MoveQuality, Vec<MoveQuality>) {
        result.move_quality(moves, self.config.opponents.len())
    }

    /// Writes the run's results: results.json (the hosts' usage, each opponent's stop
    /// in `stops`, and the quality `end` reports when `quality` is there) and, when
    /// every game finished, the seed's results.csv.
    pub fn finish(
        &self,
        end: &EvalEnd,
        (result, stops): (&EvalResult<R>, &[Option<PairingStop>]),
        quality: Option<&(MoveQuality, Vec<MoveQuality>)>,
    ) -> Result<EvalWritten, EvalFinishError> {
        let log_dir = self.run.path();
        let hosts = runs::folder_host_usage(log_dir)?;
        let reported = end.valuing.reported().zip(quality);
        let reference = reported.map(|(scoring, quality)| (scoring.to_json::<R>(), quality));
        let stopping = (end.stop.as_ref().map(|(rule, _)| rule), stops);
        let games = self.config.games_per_color;
        let results = result.results(games, stopping, &hosts, reference, log_dir);
        self.run.finish(&RunResults::Eval(&results))?;
        let csv = (result.unfinished == 0).then(|| result.seed_csv(&end.model, games, &utc_now().0[..10]));
        if let Some(csv) = &csv {
            // The seed's table always lies in the run folder.
            self.run.folder().write_text(RESULTS_CSV, csv)?;
        }
        Ok(EvalWritten { results, csv })
    }

    /// The run's folder.
    pub fn dir(&self) -> &Path {
        self.run.path()
    }
}

/// Why an eval's results could not be written.
#[derive(Debug, thiserror::Error)]
pub enum EvalFinishError {
    /// The hosts' usage could not be read from the logs.
    #[error(transparent)]
    Hosts(#[from] runs::LogsError),
    /// results.json could not be written.
    #[error(transparent)]
    Run(#[from] super::lifecycle::RunError),
    /// results.csv could not be written.
    #[error(transparent)]
    Folder(#[from] runs::RunFolderError),
}

impl<R: ModelGame> EvalResult<R> {
    /// The eval's table as the terminal shows it: the model and the games, a line for
    /// unfinished games, each opponent's rows with the model-decided share, and what
    /// the agent did over all games.
    pub fn text(&self, model: &str, games_per_color: usize) -> String {
        let result = self;
        let mut out = String::new();
        let _ = writeln!(
            out,
            "llm:{model}: {games_per_color} game(s) as black and as white against each opponent"
        );
        if result.unfinished > 0 {
            let _ = writeln!(
                out,
                "PARTIAL: {} scheduled game(s) did not finish and are not counted below",
                result.unfinished
            );
        }
        let width = result
            .opponents
            .iter()
            .map(|o| o.opponent.len())
            .max()
            .unwrap_or(8)
            .max(8);
        let _ = writeln!(
            out,
            "{}  model-decided moves",
            tally_header("opponent", width, R::MARGIN)
        );
        for o in &result.opponents {
            opponent_rows(
                &mut out,
                &o.opponent,
                width,
                [o.matchup.as_black, o.matchup.as_white],
                &o.matchup.agent,
                "",
            );
        }
        let _ = writeln!(
            out,
            "Agent, all games (a move the fallback played is never counted as the model's):"
        );
        let games = result
            .opponents
            .iter()
            .map(|o| o.matchup.overall().games() + o.matchup.unfinished)
            .sum();
        agent_lines(&result.agent, games, &mut out);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A resume adds the scoring flags given now to the run's, and refuses the
    /// contrary of the run's, naming both flags and the run.json.
    #[test]
    fn a_resume_adds_scoring_flags_and_refuses_the_contrary() {
        let path = Path::new("run/run.json");
        assert_eq!(
            resumed_scoring((false, false), (true, false), path).unwrap(),
            (true, false)
        );
        assert_eq!(
            resumed_scoring((true, false), (false, false), path).unwrap(),
            (true, false)
        );
        assert_eq!(
            resumed_scoring((false, true), (false, true), path).unwrap(),
            (false, true)
        );
        let refused = resumed_scoring((true, false), (false, true), path)
            .unwrap_err()
            .to_string();
        assert_eq!(
            refused,
            "bad --resume: the run was started with --score-moves (run/run.json's argv), so its moves are scored; \
             resume it without --no-score-moves"
        );
        assert!(resumed_scoring((false, true), (true, false), path).is_err());
    }

    /// `--csv` may name the run's own results.csv, no other file of its folder.
    #[test]
    fn eval_csv_may_name_the_runs_own_table_only() {
        let dir = std::env::temp_dir().join(format!("othello-arena-eval-csv-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let own = check_eval_csv(&dir.join(RESULTS_CSV), false, Some(&dir));
        let other = check_eval_csv(&dir.join("game-0001.jsonl"), false, Some(&dir));
        std::fs::remove_dir_all(&dir).unwrap();
        own.unwrap();
        assert!(other.unwrap_err().to_string().contains("--csv"));
    }
}
