//! Opening suites on the command line: `--openings FILE` (and a tournament file's
//! `openings`) read and checked before any game, a resume held to the suite its run
//! recorded; `openings generate` and `openings check`.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::{bail, Context, Result};
use serde_json::json;

use super::args::{OpeningsArgs, OpeningsCheckArgs, OpeningsGenerateArgs};
use super::inputs::{read_user_file, DATA_CAP};
use super::outputs::{check_output_flag, write_output};
use super::progress::progress_bar;
use super::stats::print_notes;
use super::stdout::{out, outln};
use agent::ModelGame;
use arena::{balanced_openings, start_bias, suite_values, BalancedSettings, OpeningSuite, Openings, RatedOpening};
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
    let settings = BalancedSettings {
        plies: args.plies,
        count: args.count,
        max_abs: args.max_abs,
        depth: args.depth,
        seed: args.seed,
        max_candidates: args.count.saturating_mul(1000).max(10_000),
    };
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
    let mut text = format!(
        "# othello-arena openings generate --plies {} --count {} --max-abs {} --depth {} --seed {}\n\
         # {} distinct openings of {drawn} seeded candidates (symmetries removed) whose centred value by\n\
         # reference:{} lies within {} discs. The reference gives the side to move {:+.2} at the start;\n\
         # centred = value for black less that bias for the side to move. Comments: value, centred.\n",
        args.plies,
        args.count,
        args.max_abs,
        args.depth,
        args.seed,
        suite.len(),
        args.depth,
        args.max_abs,
        bias,
    );
    for opening in &suite {
        let _ = writeln!(
            text,
            "{}  # {:+.2} {:+.2}",
            opening.text, opening.value, opening.centred
        );
    }
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
    if args.json {
        let rows: Vec<_> = values
            .iter()
            .map(|o| json!({ "opening": o.text, "value": o.value, "centred": o.centred }))
            .collect();
        outln!(
            "{}",
            json!({ "file": args.file, "depth": args.depth, "openings": rows })
        )?;
        return Ok(());
    }
    outln!("{:<40} {:>7} {:>8}", "opening", "value", "centred")?;
    for opening in &values {
        outln!("{:<40} {:>+7.2} {:>+8.2}", opening.text, opening.value, opening.centred)?;
    }
    out!("{}", histogram(&values))?;
    Ok(())
}

/// The widest bar of the histogram, in `#`s.
const HISTOGRAM_WIDTH: usize = 60;

/// The centred values in one-disc bins, a bar of `#` each, scaled so the fullest bin
/// is [`HISTOGRAM_WIDTH`] wide (a suite of any size fits a terminal; a bin with any
/// opening shows at least one `#`).
fn histogram(openings: &[RatedOpening]) -> String {
    let mut bins = std::collections::BTreeMap::new();
    for opening in openings {
        *bins.entry(opening.centred.floor() as i64).or_insert(0usize) += 1;
    }
    let fullest = bins.values().copied().max().unwrap_or(1);
    let mut out = String::from("centred value (discs)  openings\n");
    for (low, count) in bins {
        let bar = (count * HISTOGRAM_WIDTH).div_ceil(fullest).min(HISTOGRAM_WIDTH);
        let _ = writeln!(out, "[{:+3}, {:+3})  {count:>5}  {}", low, low + 1, "#".repeat(bar));
    }
    out
}
