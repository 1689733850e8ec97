//! `rate`'s intrinsic table, shown: the plan ([`arena::IntrinsicPlan`]) built from the
//! flags, the runs without values valued with a line on stderr per run and a progress
//! line on a terminal, the calibration `--write-intrinsic` asks for written.

use std::path::Path;
use std::sync::Arc;

use anyhow::Result;

use super::args::RateArgs;
use super::outputs::write_output;
use super::progress::scoring_progress;
use arena::{IntrinsicFlags, IntrinsicPlan, RunValues, ScoringWatch, Valued, Valuing};
use runs::{read_game_logs, DecisionFilter, IntrinsicTable, Ladder};

/// The intrinsic table of the runs `args` names: the decisions of runs without values
/// valued first (unless `--no-value`), then the calibration written when
/// `--write-intrinsic` asks (from `ladder`'s rungs), then the table.
pub(super) fn table(args: &RateArgs, ladder: Option<(&str, &Ladder)>, bootstrap: usize) -> Result<IntrinsicTable> {
    let logs = read_game_logs(&args.paths)?;
    let plan = IntrinsicPlan::new(&IntrinsicFlags {
        runs: &args.paths,
        calibration: &args.intrinsic,
        exact_empties: args.exact_empties,
        reference_depth: args.reference_depth,
        no_value: args.no_value,
        write: args.write_intrinsic.as_deref(),
        filter: DecisionFilter {
            exact_only: args.intrinsic_exact,
            min_spread: args.intrinsic_min_spread,
        },
    })?;
    let valuing = plan.valuing;
    let (held, notes) = plan.value_runs(&logs, &|run, values| value_with_progress(run, values, valuing));
    if let Some((path, text)) = plan.fitted(&logs, &held, ladder)? {
        write_output("--write-intrinsic", path, text.as_bytes())?;
    }
    let mut table = plan.table(&logs, &held, bootstrap, args.seed)?;
    table.notes.splice(0..0, notes);
    Ok(table)
}

/// [`RunValues::value`] on every core, said on stderr with a progress line on a
/// terminal.
fn value_with_progress(run: &Path, values: RunValues, valuing: Valuing) -> Result<Valued, arena::ValueError> {
    eprintln!(
        "valuing the decisions of {} game(s) of {} ({}; --no-value skips this)",
        values.games_to_value(),
        run.display(),
        valuing.describe()
    );
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let watch = Arc::new(ScoringWatch::default());
    let progress = scoring_progress("valuing decisions", watch.clone(), values.games_to_value(), true);
    let valued = values.value(cores, &watch);
    drop(progress);
    valued
}
