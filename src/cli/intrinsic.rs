//! The intrinsic table of `rate`, `report`, `tournament` and `serve`
//! ([`runs::intrinsic_table`] through the calibration file), `rate`'s valuing of the
//! runs that have no values ([`arena::RunValues`]), and `rate --write-intrinsic`'s
//! calibration fitted and written.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, Result};

use super::args::RateArgs;
use super::args::DEFAULT_CALIBRATION;
use super::inputs::{read_or_built_in, SETTINGS_CAP};
use super::outputs::write_output;
use super::progress::scoring_progress;
use agent::ModelGame;
use arena::{RunValues, ScoringWatch, StopJudge, Valuing};
use runs::{
    intrinsic_table, read_game_logs, Calibration, CalibrationReference, DecisionFilter, Decisions, GameLogs,
    HeldScores, IntrinsicTable, Ladder,
};
use stats::StopRule;

/// The intrinsic table of the runs `args` names: the decisions of runs without values
/// valued first (unless `--no-value`), then the calibration written when
/// `--write-intrinsic` asks (from `ladder`'s rungs), then the table.
pub(super) fn table(args: &RateArgs, ladder: Option<(&str, &Ladder)>, bootstrap: usize) -> Result<IntrinsicTable> {
    let logs = read_game_logs(&args.paths)?;
    let valuing = valuing(args)?;
    let (held, notes) = if args.no_value || logs.game != game::Game::Othello {
        (HeldScores::new(), Vec::new())
    } else {
        value_runs(&logs, valuing)
    };
    if let (Some(path), Some((ladder_path, ladder)), game::Game::Othello) = (&args.write_intrinsic, ladder, logs.game) {
        let reference = CalibrationReference {
            exact_empties: valuing.exact_empties,
            depth: valuing.depth,
        };
        write_calibration(args, &logs, &held, (path, reference), (ladder_path, ladder))?;
    }
    let mut table = held_table(&logs, &held, &args.intrinsic, bootstrap, args.seed)?;
    table.notes.splice(0..0, notes);
    Ok(table)
}

/// The reference `rate` values with: `--exact-empties` and `--reference-depth`, each
/// by default the one the `--intrinsic` calibration names (a file that names none:
/// [`CalibrationReference::default`]); naming either makes the
/// values a run holds count only when that reference made them.
fn valuing(args: &RateArgs) -> Result<Valuing> {
    let named = load_calibration(&args.intrinsic)?.reference;
    Ok(Valuing {
        exact_empties: args.exact_empties.unwrap_or(named.exact_empties),
        depth: args.reference_depth.unwrap_or(named.depth),
        strict: args.exact_empties.is_some() || args.reference_depth.is_some(),
    })
}

/// Values the decisions of each run of `logs` that `valuing` does not find valued,
/// with a line on stderr per run valued and a progress line on a terminal, and writes
/// its `move-scores.jsonl`. Returns the moves of runs whose folder could not be
/// written (held in memory for the table), and notes for the table: such runs, and
/// runs that could not be valued (their table rows rest on the values they hold).
fn value_runs(logs: &GameLogs, valuing: Valuing) -> (HeldScores, Vec<String>) {
    let mut held = HeldScores::new();
    let mut notes = Vec::new();
    let mut by_run: BTreeMap<&Path, Vec<&Path>> = BTreeMap::new();
    for game in &logs.games {
        by_run.entry(game.run.as_path()).or_default().push(game.path.as_path());
    }
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    for (run, games) in by_run {
        let values = match RunValues::read(run, &games, valuing) {
            Ok(values) if values.games_to_value() == 0 => continue,
            Ok(values) => values,
            Err(err) => {
                notes.push(format!("{} was not valued: {err}", run.display()));
                continue;
            }
        };
        notes.extend_from_slice(values.notes());
        eprintln!(
            "valuing the decisions of {} game(s) of {} ({}; --no-value skips this)",
            values.games_to_value(),
            run.display(),
            valuing.describe()
        );
        match value_with_progress(values, cores) {
            Ok(valued) => {
                if let Some(err) = valued.unwritten {
                    notes.push(format!(
                        "{} was valued in memory only (the next rate values it again): {err}",
                        run.display()
                    ));
                    held.insert(PathBuf::from(run), valued.moves);
                }
            }
            Err(err) => notes.push(format!("{} was not valued: {err}", run.display())),
        }
    }
    (held, notes)
}

/// [`RunValues::value`] with a progress line on a terminal.
fn value_with_progress(values: RunValues, parallel: usize) -> Result<arena::Valued, arena::ValueError> {
    let watch = Arc::new(ScoringWatch::default());
    let progress = scoring_progress("valuing decisions", watch.clone(), values.games_to_value(), true);
    let valued = values.value(parallel, &watch);
    drop(progress);
    valued
}

/// The intrinsic table of `logs` through the calibration at `path` (`--intrinsic`;
/// the built-in one when it is [`DEFAULT_CALIBRATION`] and not in the working directory).
pub(super) fn logs_table(logs: &GameLogs, path: &Path, resamples: usize, seed: u64) -> Result<IntrinsicTable> {
    held_table(logs, &HeldScores::new(), path, resamples, seed)
}

/// [`logs_table`], with the scored moves of the runs in `held` taken from there.
fn held_table(logs: &GameLogs, held: &HeldScores, path: &Path, resamples: usize, seed: u64) -> Result<IntrinsicTable> {
    Ok(intrinsic_table(
        logs,
        held,
        Ok(&load_calibration(path)?),
        resamples,
        seed,
    )?)
}

/// The shipped calibration for `serve`'s leaderboard, or why there is none.
pub(super) fn shipped_calibration() -> Result<Calibration, String> {
    load_calibration(Path::new(DEFAULT_CALIBRATION)).map_err(|err| format!("{err:#}"))
}

/// A run's stop rule (`--stop`, a tournament's `stop`) as it plays: the intrinsic rule
/// rates through the shipped calibration, and is refused before any game without one.
pub(super) fn stop_judge<R: ModelGame>(rule: Option<StopRule>) -> Result<Option<StopJudge>> {
    Ok(rule
        .map(|rule| StopJudge::new::<R>(rule, shipped_calibration))
        .transpose()?)
}

/// `--write-intrinsic`: the calibration fitted on the rungs of `ladder` (its path, the
/// ladder) in `logs` (their scored moves from `held` where it has them), valued by
/// `output`'s reference, and written to `output`'s path.
fn write_calibration(
    args: &RateArgs,
    logs: &GameLogs,
    held: &HeldScores,
    (path, reference): (&Path, CalibrationReference),
    (ladder_path, ladder): (&str, &Ladder),
) -> Result<()> {
    let filter = DecisionFilter {
        exact_only: args.intrinsic_exact,
        min_spread: args.intrinsic_min_spread,
    };
    let runs: Vec<String> = args.paths.iter().map(|p| p.display().to_string()).collect();
    let mut source = format!(
        "othello-arena rate {} --ladder {} --write-intrinsic {}",
        runs.join(" "),
        ladder_path,
        path.display()
    );
    if filter.exact_only {
        source.push_str(" --intrinsic-exact");
    }
    if filter.min_spread > 0.0 {
        source.push_str(&format!(" --intrinsic-min-spread {}", filter.min_spread));
    }
    // The reference's flags, or the calibration it came from.
    if args.intrinsic != Path::new(DEFAULT_CALIBRATION) {
        source.push_str(&format!(" --intrinsic {}", args.intrinsic.display()));
    }
    for (flag, given) in [
        ("--exact-empties", args.exact_empties),
        ("--reference-depth", args.reference_depth),
    ] {
        if let Some(value) = given {
            source.push_str(&format!(" {flag} {value}"));
        }
    }
    let decisions = Decisions::read_held(logs, filter, held)?;
    let calibration =
        Calibration::fit(&decisions, filter, reference, ladder, source).context("bad --write-intrinsic")?;
    let text = format!(
        "# The calibration of intrinsic ratings (`othello-arena rate`): each rung's choice models fitted on\n\
         # its valued decisions, the model kept, and the map from its sensitivity to the ladder's Elo.\n{}",
        toml::to_string(&calibration).context("cannot write the calibration as TOML")?
    );
    write_output("--write-intrinsic", path, text.as_bytes())
}

/// The calibration file at `path` (`--intrinsic`): when that is [`DEFAULT_CALIBRATION`]
/// and the working directory has no such file, the built-in one.
pub(super) fn load_calibration(path: &Path) -> Result<Calibration> {
    let built_in = (path == Path::new(DEFAULT_CALIBRATION)).then_some(runs::SHIPPED_CALIBRATION);
    let text = read_or_built_in("--intrinsic", path, built_in, SETTINGS_CAP)?;
    Calibration::from_toml(&text).with_context(|| {
        format!(
            "bad --intrinsic {}: write one with `othello-arena rate RUNS --ladder --write-intrinsic FILE`",
            path.display()
        )
    })
}
