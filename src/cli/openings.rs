//! Opening suites on the command line: `--openings FILE` (and a tournament file's
//! `openings`) read and checked before any game, a resume held to the suite its run
//! recorded; `openings generate` and `openings check`.

use std::path::Path;

use anyhow::{bail, Context, Result};

use super::args::{OpeningsArgs, OpeningsCheckArgs, OpeningsGenerateArgs};
use super::inputs::{read_user_file, DATA_CAP};
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
use runs::OpeningsOrder;

/// The openings `args` ask for: `--opening-random` plies, or `--openings FILE` dealt
/// in its order (shuffled by `seed`).
pub(super) fn from_args<R: ModelGame>(args: &OpeningsArgs, seed: u64) -> Result<Openings<R>> {
    match &args.openings {
        Some(file) => read_suite("--openings", file, args.openings_order, args.openings_cycle, seed),
        None => {
            game::check_opening::<R>(args.opening_random).map_err(|e| anyhow::anyhow!("bad --opening-random: {e}"))?;
            Ok(Openings::random(args.opening_random))
        }
    }
}

/// Reads the suite file `file` (named `what` in errors: the flag or the key), every
/// line checked against the rules of `R`.
pub(super) fn read_suite<R: ModelGame>(
    what: &str,
    file: &Path,
    order: OpeningsOrder,
    cycle: bool,
    seed: u64,
) -> Result<Openings<R>> {
    Ok(Openings::suite(suite_file(what, file)?, order, cycle, seed))
}

/// The openings of the suite file `file` (named `what` in errors), every line checked.
fn suite_file<R: ModelGame>(what: &str, file: &Path) -> Result<OpeningSuite<R>> {
    let text = read_user_file(what, file, DATA_CAP).with_context(|| format!("bad {what}: give a file of openings"))?;
    let suite = OpeningSuite::<R>::parse(&file.display().to_string(), &text).map_err(|e| {
        anyhow::anyhow!(
            "bad {what} {}: {e}; a line holds a move transcript (f5d6c3, -- or pa for a pass) \
             or a board with the side to move, # starts a comment",
            file.display()
        )
    })?;
    print_notes(&suite.repeats());
    Ok(suite)
}

/// The name run.json records for the built-in balanced suite.
pub(super) const BALANCED_SUITE: &str = "balanced-8 (built in: docs/openings/balanced-8.txt)";

/// The balanced suite that ships in the binary (docs/openings/balanced-8.txt, made by
/// `openings generate`), dealt in `order` (shuffled by `seed`).
pub(super) fn balanced_suite<R: ModelGame>(order: OpeningsOrder, cycle: bool, seed: u64) -> Result<Openings<R>> {
    let text = include_str!("../../docs/openings/balanced-8.txt");
    let suite = OpeningSuite::<R>::parse(BALANCED_SUITE, text)
        .map_err(|e| anyhow::anyhow!("the built-in suite {BALANCED_SUITE} does not read ({e}): a broken build"))?;
    Ok(Openings::suite(suite, order, cycle, seed))
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
    let suite = suite_file::<Othello>("FILE", &args.file)?;
    let values = suite_values(&suite, args.depth);
    out!("{}", suite_values_text(&args.file, args.depth, &values, args.json))?;
    Ok(())
}
