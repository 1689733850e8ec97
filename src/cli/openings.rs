//! Opening suites on the command line: `--openings FILE` read and checked before any
//! game by the library ([`Openings::from_flags`]), its notes printed; `openings
//! generate` and `openings check`.

use anyhow::{bail, Result};

use super::args::{OpeningsArgs, OpeningsCheckArgs, OpeningsGenerateArgs};
use super::outputs::{check_output_flag, write_output};
use super::progress::progress_bar;
use super::stats::print_notes;
use super::stdout::{out, outln};
use agent::ModelGame;
use arena::{
    balanced_openings, histogram, start_bias, suite_file_text, suite_values, suite_values_text, BalancedSettings,
    OpeningSuite, Openings,
};
use game::Othello;

/// The openings `args` ask for ([`Openings::from_flags`]): `--opening-random` plies,
/// or `--openings FILE` dealt in its order (shuffled by `seed`), its repeats noted.
pub(super) fn from_args<R: ModelGame>(args: &OpeningsArgs, seed: u64) -> Result<Openings<R>> {
    let deal = (args.openings_order, args.openings_cycle, seed);
    let (openings, notes) = Openings::from_flags(args.openings.as_deref(), args.opening_random, deal)?;
    print_notes(&notes);
    Ok(openings)
}

/// `openings generate`: a balanced suite, written with the command that made it, the
/// bias taken out and each opening's values as comments.
pub(super) fn run_generate(args: OpeningsGenerateArgs) -> Result<()> {
    check_output_flag("-o", &args.output, args.overwrite, &[], &[])?;
    let settings = BalancedSettings::new(args.plies, args.count, args.max_abs, args.depth, args.seed);
    let bar = progress_bar(args.count, false, "openings");
    let (suite, drawn) = balanced_openings(&settings, &|_, kept| bar.set_position(kept as u64));
    bar.finish_and_clear();
    if suite.len() < args.count {
        bail!(
            "only {} of {} openings lie within {} discs after {drawn} candidates: widen --max-abs or ask for fewer",
            suite.len(),
            args.count,
            args.max_abs
        );
    }
    let bias = start_bias(&mut engines::Reference::new(engines::DEFAULT_EXACT_EMPTIES, args.depth));
    let text = suite_file_text(&settings, &suite, drawn, bias);
    write_output("-o", &args.output, text.as_bytes())?;
    outln!(
        "wrote {} ({} openings of {drawn} candidates)",
        args.output.display(),
        suite.len()
    )?;
    out!("{}", histogram(&suite))?;
    Ok(())
}

/// `openings check`: each opening's value and centred value, and their histogram.
pub(super) fn run_check(args: OpeningsCheckArgs) -> Result<()> {
    let suite = OpeningSuite::<Othello>::read("FILE", &args.file)?;
    print_notes(&suite.repeats());
    let values = suite_values(&suite, args.depth);
    out!("{}", suite_values_text(&args.file, args.depth, &values, args.json))?;
    Ok(())
}
