//! The lifecycle of intrinsic ratings, settled once for every face: which reference
//! values the runs and which values already there count ([`IntrinsicPlan`]: the
//! `--exact-empties` and `--reference-depth` given, else the calibration's own), the
//! runs that have no values valued ([`IntrinsicPlan::value_runs`]), a calibration
//! fitted on a ladder's rungs ([`IntrinsicPlan::fitted`], the text `--write-intrinsic`
//! writes), the intrinsic table through the calibration, and a run's stop rule judged
//! through the shipped calibration ([`stop_judge`]). The faces print and show progress;
//! the decisions are here.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use agent::ModelGame;
use runs::{
    intrinsic_table, Calibration, CalibrationError, CalibrationReference, DecisionFilter, Decisions, GameLogs,
    HeldScores, IntrinsicTable, Ladder, LoadCalibrationError, MoveScoresError,
};
use stats::StopRule;

use super::stop_judge::{StopJudge, StopJudgeError};
use super::valuing::{RunValues, ValueError, Valued, Valuing};

/// What `rate` was asked of the intrinsic ratings: its flags, as given.
#[derive(Clone, Copy, Debug)]
pub struct IntrinsicFlags<'a> {
    /// The runs rated (as given on the command line: a written calibration names them).
    pub runs: &'a [PathBuf],
    /// `--intrinsic`: the calibration file.
    pub calibration: &'a Path,
    /// `--exact-empties`, when given.
    pub exact_empties: Option<u32>,
    /// `--reference-depth`, when given.
    pub reference_depth: Option<u32>,
    /// `--no-value`: runs without values are not valued.
    pub no_value: bool,
    /// `--write-intrinsic`: where a calibration fitted on the ladder is written.
    pub write: Option<&'a Path>,
    /// `--intrinsic-exact` and `--intrinsic-min-spread`: the decisions that fit uses.
    pub filter: DecisionFilter,
}

/// The intrinsic ratings of a `rate`, every default settled: the calibration read, the
/// reference the runs are valued with, whether they are valued, and what a written
/// calibration is fitted on and says it came from.
#[derive(Debug)]
pub struct IntrinsicPlan {
    /// The calibration file (`--intrinsic`), read again for the table: a
    /// `--write-intrinsic` onto it rates through what it just wrote.
    pub calibration: PathBuf,
    /// The reference runs are valued with, and which values already there are kept.
    pub valuing: Valuing,
    /// Whether runs without values are valued (not with `--no-value`).
    pub value: bool,
    /// Where a calibration is written (`--write-intrinsic`), if anywhere.
    pub write: Option<PathBuf>,
    /// The decisions a written calibration is fitted on.
    pub filter: DecisionFilter,
    /// The command a written calibration names as its source, without `--ladder`'s
    /// value (the ladder is chosen apart): see [`IntrinsicPlan::fitted`].
    source: (String, String),
}

/// Why the intrinsic ratings cannot be made.
#[derive(Debug, thiserror::Error)]
pub enum IntrinsicError {
    /// The calibration file cannot be used.
    #[error(transparent)]
    Load(#[from] LoadCalibrationError),
    /// The runs' values cannot be read.
    #[error(transparent)]
    Scores(#[from] MoveScoresError),
    /// No calibration can be fitted on these runs.
    #[error("bad --write-intrinsic")]
    Fit(#[source] CalibrationError),
    /// The fitted calibration does not write as TOML.
    #[error("cannot write the calibration as TOML")]
    Toml(#[source] toml::ser::Error),
}

impl IntrinsicPlan {
    /// The plan `flags` ask for: the calibration read, and the reference each of
    /// `--exact-empties` and `--reference-depth` sets, by default the one the
    /// calibration names (a file that names none: [`CalibrationReference::default`]);
    /// naming either makes the values a run holds count only when that reference made
    /// them.
    pub fn new(flags: &IntrinsicFlags<'_>) -> Result<IntrinsicPlan, IntrinsicError> {
        let calibration = Calibration::load(flags.calibration)?;
        let named = calibration.reference;
        let valuing = Valuing {
            exact_empties: flags.exact_empties.unwrap_or(named.exact_empties),
            depth: flags.reference_depth.unwrap_or(named.depth),
            strict: flags.exact_empties.is_some() || flags.reference_depth.is_some(),
        };
        Ok(IntrinsicPlan {
            calibration: flags.calibration.to_path_buf(),
            valuing,
            value: !flags.no_value,
            write: flags.write.map(Path::to_path_buf),
            filter: flags.filter,
            source: source(flags),
        })
    }

    /// Values the decisions of each run of `logs` that the plan's [`Valuing`] does not
    /// find valued (none with `--no-value`, or for a game other than Othello) by
    /// `value` (the face's: [`RunValues::value`] with what it shows), which writes each
    /// run's `move-scores.jsonl`. Returns the moves of runs whose folder could not be
    /// written (held in memory for the table), and notes for the table: such runs, and
    /// runs that could not be valued (their rows rest on the values they hold).
    pub fn value_runs(
        &self,
        logs: &GameLogs,
        value: &dyn Fn(&Path, RunValues) -> Result<Valued, ValueError>,
    ) -> (HeldScores, Vec<String>) {
        let mut held = HeldScores::new();
        let mut notes = Vec::new();
        if !self.value || logs.game != game::Game::Othello {
            return (held, notes);
        }
        let mut by_run: BTreeMap<&Path, Vec<&Path>> = BTreeMap::new();
        for game in &logs.games {
            by_run.entry(game.run.as_path()).or_default().push(game.path.as_path());
        }
        for (run, games) in by_run {
            let values = match RunValues::read(run, &games, self.valuing) {
                Ok(values) if values.games_to_value() == 0 => continue,
                Ok(values) => values,
                Err(err) => {
                    notes.push(format!("{} was not valued: {err}", run.display()));
                    continue;
                }
            };
            notes.extend_from_slice(values.notes());
            match value(run, values) {
                Ok(Valued {
                    unwritten: Some(err),
                    moves,
                }) => {
                    notes.push(format!(
                        "{} was valued in memory only (the next rate values it again): {err}",
                        run.display()
                    ));
                    held.insert(PathBuf::from(run), moves);
                }
                Ok(_) => {}
                Err(err) => notes.push(format!("{} was not valued: {err}", run.display())),
            }
        }
        (held, notes)
    }

    /// `--write-intrinsic`'s path and text: the calibration fitted on the rungs of
    /// `ladder` (its path, the ladder) in `logs` (their scored moves from `held` where
    /// it has them), valued by the plan's reference; `None` when nothing is to be
    /// written (no `--write-intrinsic`, no ladder, or a game other than Othello).
    pub fn fitted(
        &self,
        logs: &GameLogs,
        held: &HeldScores,
        ladder: Option<(&str, &Ladder)>,
    ) -> Result<Option<(&Path, String)>, IntrinsicError> {
        let (Some(path), Some((ladder_path, ladder)), game::Game::Othello) = (&self.write, ladder, logs.game) else {
            return Ok(None);
        };
        let reference = CalibrationReference {
            exact_empties: self.valuing.exact_empties,
            depth: self.valuing.depth,
        };
        let source = format!("{} --ladder {ladder_path}{}", self.source.0, self.source.1);
        let decisions = Decisions::read_held(logs, self.filter, held)?;
        let calibration =
            Calibration::fit(&decisions, self.filter, reference, ladder, source).map_err(IntrinsicError::Fit)?;
        let text = calibration.to_file_text().map_err(IntrinsicError::Toml)?;
        Ok(Some((path, text)))
    }

    /// The intrinsic table of `logs` through the plan's calibration file (read now,
    /// after any `--write-intrinsic`), the scored moves of the runs in `held` taken
    /// from there, with `resamples` bootstrap fits seeded from `seed`.
    pub fn table(
        &self,
        logs: &GameLogs,
        held: &HeldScores,
        resamples: usize,
        seed: u64,
    ) -> Result<IntrinsicTable, IntrinsicError> {
        held_table(logs, held, &self.calibration, resamples, seed)
    }
}

/// The command a calibration written from `flags` names as its source, around the
/// `--ladder` it is fitted on: the runs and `--write-intrinsic` before, the filter's
/// and the reference's flags (or the calibration it came from) after.
fn source(flags: &IntrinsicFlags<'_>) -> (String, String) {
    let runs: Vec<String> = flags.runs.iter().map(|p| p.display().to_string()).collect();
    let before = format!("othello-arena rate {}", runs.join(" "));
    let mut after = match flags.write {
        Some(path) => format!(" --write-intrinsic {}", path.display()),
        None => String::new(),
    };
    if flags.filter.exact_only {
        after.push_str(" --intrinsic-exact");
    }
    if flags.filter.min_spread > 0.0 {
        after.push_str(&format!(" --intrinsic-min-spread {}", flags.filter.min_spread));
    }
    if flags.calibration != Path::new(runs::SHIPPED_CALIBRATION_PATH) {
        after.push_str(&format!(" --intrinsic {}", flags.calibration.display()));
    }
    for (flag, given) in [
        ("--exact-empties", flags.exact_empties),
        ("--reference-depth", flags.reference_depth),
    ] {
        if let Some(value) = given {
            after.push_str(&format!(" {flag} {value}"));
        }
    }
    (before, after)
}

/// The intrinsic table of `logs` as `report` and `tournament` show it: through the
/// shipped calibration ([`runs::SHIPPED_CALIBRATION_PATH`], [`Calibration::load`]),
/// with the default bootstrap ([`runs::DEFAULT_BOOTSTRAP`] resamples, its seed).
pub fn logs_table(logs: &GameLogs) -> Result<IntrinsicTable, IntrinsicError> {
    let path = Path::new(runs::SHIPPED_CALIBRATION_PATH);
    let resamples = runs::DEFAULT_BOOTSTRAP as usize;
    held_table(logs, &HeldScores::new(), path, resamples, runs::DEFAULT_BOOTSTRAP_SEED)
}

/// [`logs_table`], with the scored moves of the runs in `held` taken from there.
fn held_table(
    logs: &GameLogs,
    held: &HeldScores,
    path: &Path,
    resamples: usize,
    seed: u64,
) -> Result<IntrinsicTable, IntrinsicError> {
    let calibration = Calibration::load(path)?;
    Ok(intrinsic_table(logs, held, Ok(&calibration), resamples, seed)?)
}

/// A run's stop rule (`--stop`, a tournament's `stop`) as it plays: the intrinsic rule
/// rates through the shipped calibration ([`Calibration::shipped`]), and is refused
/// before any game without one.
pub fn stop_judge<R: ModelGame>(rule: Option<StopRule>) -> Result<Option<StopJudge>, StopJudgeError> {
    rule.map(|rule| StopJudge::new::<R>(rule, Calibration::shipped))
        .transpose()
}
