//! `train-eval`: trains the pattern evaluation and writes the weights file.

use std::time::Instant;

use anyhow::Result;

use super::args::TrainEvalArgs;
use super::outputs::{check_output_flag, write_output};
use super::stdout::{outln, StdoutError};
use engines::lab::{train_pattern_eval, TrainProgress, TrainSettings};
use engines::pattern::{self, sha256_hex};

pub(super) fn run(args: TrainEvalArgs) -> Result<()> {
    check_output_flag("-o", &args.output, args.overwrite, &[], &[])?;
    let settings = TrainSettings {
        games: args.games,
        seed: args.seed,
        exact_empties: args.exact_empties,
        search_depth: args.search_depth,
        epochs: args.epochs,
    };
    outln!(
        "train-eval --games {} --seed {} --exact-empties {} --search-depth {} --epochs {}",
        settings.games,
        settings.seed,
        settings.exact_empties,
        settings.search_depth,
        settings.epochs
    )?;
    let start = Instant::now();
    // Training goes on when stdout fails: the weights are written, then the error told.
    let mut printed = Ok(());
    let (weights, _) = train_pattern_eval(&settings, &mut |step| {
        if printed.is_ok() {
            printed = print_step(&step, settings.games);
        }
    });
    let bytes = weights.to_bytes();
    write_output("-o", &args.output, &bytes)?;
    printed?;
    outln!(
        "wrote {} ({} bytes, {} weights per phase, {} phases) in {:.0} s",
        args.output.display(),
        bytes.len(),
        pattern::layout().classes(),
        pattern::PHASES,
        start.elapsed().as_secs_f64()
    )?;
    outln!("sha256 {}", sha256_hex(&bytes))?;
    Ok(())
}

/// One step of the training, printed: the positions' count and the table's heading,
/// then a row for each phase.
fn print_step(step: &TrainProgress, games: usize) -> Result<(), StdoutError> {
    match step {
        TrainProgress::Positions(count) => {
            outln!("{count} distinct positions from {games} self-play games")?;
            outln!(
                "phase  empties  exact  searched  fitted  held  fit MAE  held MAE  linear held MAE  best epoch  label s"
            )?;
        }
        TrainProgress::Phase(fit) => {
            let e = &fit.errors;
            outln!(
                "{:>5}  {:>7}  {:>5}  {:>8}  {:>6}  {:>4}  {:>7.2}  {:>8.2}  {:>15.2}  {:>10}  {:>7.1}",
                fit.phase,
                format!("{}-{}", fit.empties.start(), fit.empties.end()),
                fit.exact,
                fit.searched,
                e.train,
                e.held,
                e.train_error,
                e.held_error,
                e.held_error_linear,
                e.best_epoch,
                fit.label_seconds
            )?;
        }
    }
    Ok(())
}
