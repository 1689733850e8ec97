//! `bench`: speed figures for the move generator, the searches and the rating fit,
//! measured by the library ([`arena::perft_bench`] and its siblings) and printed here.

use std::sync::Arc;
use std::time::Instant;

use anyhow::{bail, Context, Result};

use super::args::{BenchArgs, BenchTarget};
use super::positions::parse_empties;
use super::progress::{progress_bar, resamples_progress};
use super::stdout::{out, outln};
use arena::{PerftRow, PlayerSpec, ProbcutRow, SolveRow};
use engines::MAX_EXACT_EMPTIES;
use game::Othello;
use runs::{coverage_heading, coverage_text, read_game_logs, Decisions};
use stats::{check_resamples, Draws, RatingBench, RatingWatch};

/// Every target but `llm` (which [`llm`] measures, on the async runtime).
pub(super) fn run(args: BenchArgs) -> Result<()> {
    match args.what {
        BenchTarget::Llm => bail!("bench llm runs on the async runtime: call bench::llm"),
        BenchTarget::Perft => perft(args.perft_depth)?,
        BenchTarget::Alphabeta => out!("{}", arena::search_bench().text())?,
        BenchTarget::Solve => solve(&args.ffo)?,
        BenchTarget::Eval => {
            let empties = parse_empties(&args.empties, MAX_EXACT_EMPTIES)?;
            out!("{}", arena::eval_bench(args.positions, empties, args.seed).text())?;
        }
        BenchTarget::Probcut => probcut(&args)?,
        BenchTarget::Rate => rate(args.players, args.games_each, args.resamples, args.seed)?,
        BenchTarget::IntrinsicCoverage => intrinsic_coverage(&args)?,
        BenchTarget::All => {
            perft(args.perft_depth)?;
            out!("{}", arena::search_bench().text())?;
        }
    }
    Ok(())
}

/// `bench llm`: the agent asked for moves, measured by the server's clock and the wall's.
pub(super) async fn llm(args: BenchArgs, env: &dyn Fn(&str) -> Option<String>) -> Result<()> {
    let Some(spec) = &args.agent_spec else {
        bail!("bench llm measures a model server: give --agent llm:MODEL (and --host, --api as for eval)");
    };
    let connection = args.hosts.connect(&args.agent, env).await?;
    let player = PlayerSpec::<Othello>::parse_llm(spec, "--agent", &args.agent.source(), (&connection, "bench llm"))?;
    let bar = progress_bar(args.positions, false, "positions");
    let bench = arena::llm_bench(&player, args.positions, args.parallel, args.seed, &|| bar.inc(1)).await;
    bar.finish_and_clear();
    out!("{}", bench.text())?;
    if bench.stats.moves == 0 {
        bail!("every request failed: nothing was measured");
    }
    Ok(())
}

/// Prints each row as `bench` measures it (the first failure to print kept).
fn each_line<'a, T>(printed: &'a mut Result<()>, text: impl Fn(&T) -> String + 'a) -> impl FnMut(&T) + 'a {
    move |row| {
        if printed.is_ok() {
            *printed = outln!("{}", text(row)).map_err(Into::into);
        }
    }
}

fn perft(depth: u32) -> Result<()> {
    outln!("{}", PerftRow::HEADING)?;
    let mut printed = Ok(());
    arena::perft_bench(depth, &mut each_line(&mut printed, PerftRow::text));
    printed
}

fn solve(range: &str) -> Result<()> {
    let (low, high) = arena::ffo_range(range)?;
    outln!("{}", SolveRow::heading(low, high))?;
    let mut printed = Ok(());
    let rows = arena::solve_bench(low, high, &mut each_line(&mut printed, SolveRow::text));
    printed?;
    outln!("{}", SolveRow::total(&rows?))?;
    Ok(())
}

fn probcut(args: &BenchArgs) -> Result<()> {
    let empties = parse_empties(&args.empties, MAX_EXACT_EMPTIES)?;
    if args.positions < 2 {
        bail!(
            "bad --positions {}: a standard deviation needs at least 2 positions; ask for 2 or more",
            args.positions
        );
    }
    outln!("{}", ProbcutRow::heading(args.positions, args.seed))?;
    let mut printed = Ok(());
    let measured = arena::probcut_bench(
        args.positions,
        empties,
        args.seed,
        &mut each_line(&mut printed, ProbcutRow::text),
    );
    printed?;
    if let Err((e, found)) = measured {
        bail!(
            "bad --empties {:?}: self-play reached {found} distinct positions with {e} empties, \
             too few for a standard deviation; choose other empties",
            args.empties
        );
    }
    Ok(())
}

/// The calibration's coverage: each rung left out of the map in turn.
fn intrinsic_coverage(args: &BenchArgs) -> Result<()> {
    if args.runs.is_empty() {
        bail!("bench intrinsic-coverage needs --runs: the calibration's run folders (logs/intrinsic-calibration/*, written by scripts/intrinsic-calibration.sh)");
    }
    check_resamples(args.resamples).with_context(|| format!("bad --resamples {}", args.resamples))?;
    let calibration = runs::Calibration::load(&args.intrinsic)?;
    let decisions = Decisions::read(&read_game_logs(&args.runs)?, calibration.decisions)?;
    let draws = Draws {
        k: 0,
        samples: args.samples,
        resamples: args.resamples,
        seed: args.seed,
    };
    outln!("{}", coverage_heading(&args.intrinsic, &draws))?;
    let start = Instant::now();
    let rows = calibration.coverage(&decisions, &args.k, draws);
    outln!("{}", coverage_text(&rows, &args.k))?;
    outln!("  {:.1} s", start.elapsed().as_secs_f64())?;
    Ok(())
}

fn rate(players: usize, games_each: usize, resamples: usize, seed: u64) -> Result<()> {
    if players < 2 {
        bail!("bad --players {players}: a rating needs at least 2 players");
    }
    check_resamples(resamples).with_context(|| format!("bad --resamples {resamples}"))?;
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    outln!("{}", RatingBench::heading(players, games_each, seed, cores))?;
    let watch = Arc::new(RatingWatch::default());
    let progress = resamples_progress("bench rate", watch.clone(), resamples);
    let bench = stats::rating_bench(players, games_each, resamples, seed, &watch);
    drop(progress);
    out!("{}", bench?.text())?;
    Ok(())
}
