//! The command line: parses arguments, runs a subcommand, prints its results.
//! The only module that prints to stdout or reads the environment.

mod agent_args;
mod args;
mod bench;
mod bundle;
mod compare;
mod engine_server;
mod eval;
mod export;
mod external;
mod inputs;
mod intrinsic;
mod limits;
mod mcp;
mod modelfile;
mod openings;
mod outputs;
mod place;
mod play;
mod positions;
mod progress;
mod prompts;
mod quality;
mod rate;
mod replay;
mod report_html;
mod serve;
mod stats;
mod stdout;
mod tournament;
mod train_eval;

pub use args::Cli;
pub use eval::Interrupted;
pub use stdout::closed_stdout;

use std::sync::Arc;
use std::time::Instant;

use anyhow::{bail, Context, Result};

use args::{AnalyzeArgs, Command, PerftArgs, PositionArgs, SolveArgs, WipeoutArgs};
use engines::lab::Wipeouts;
use engines::{check_solvable, Analysis, EngineSpec, SolveWatch, Solved, Solver};
use game::othello::{perft_with_progress, Board, Color, Convention};
use stdout::{out, outln};

/// `command`, with Ctrl-C and SIGTERM handled for it ([`arena::watch_signals`], told
/// on stderr by [`eval::tell_interrupt`]): the commands that play games, whose engine
/// processes must end with them.
async fn watched(command: impl std::future::Future<Output = Result<()>>) -> Result<()> {
    arena::watch_signals(eval::tell_interrupt).context("cannot listen for Ctrl-C and SIGTERM")?;
    command.await
}

/// Runs the parsed command line.
pub fn run(cli: Cli) -> Result<()> {
    let _ = tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .with_writer(std::io::stderr)
        .try_init();
    let env = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
    // The built-in evaluation is checked before any work, so a broken build says so
    // instead of failing in the middle of a run.
    engines::pattern::shipped()?;
    match cli.command {
        Command::Perft(args) => run_perft(args),
        Command::Analyze(args) => run_analyze(args),
        Command::Play(args) => runtime()?.block_on(watched(play::run(args, &env))),
        Command::Eval(args) => runtime()?.block_on(watched(eval::run(args, &env))),
        Command::Wipeouts(args) => run_wipeouts(args),
        Command::Bench(args) if args.what == args::BenchTarget::Llm => {
            runtime()?.block_on(watched(bench::llm(args, &env)))
        }
        Command::Bench(args) => bench::run(args),
        Command::Solve(args) => run_solve(args),
        Command::TrainEval(args) => train_eval::run(args),
        Command::Replay(args) => replay::run(args),
        Command::Stats(args) => stats::run(args),
        Command::Rate(args) => rate::run(args),
        Command::Place(args) => runtime()?.block_on(watched(place::run(args, &env))),
        Command::Tournament(args) => runtime()?.block_on(watched(tournament::run(args, &env))),
        Command::Report(args) => report_html::run(args),
        Command::Export(args) => export::run(args),
        Command::Compare(args) => compare::run(args),
        Command::Bundle(args) => bundle::run_bundle(args),
        Command::Verify(args) => bundle::run_verify(args),
        Command::Modelfile(args) => runtime()?.block_on(modelfile::run(args, &env)),
        Command::Prompts => prompts::run(),
        Command::Openings(args::OpeningsCommand::Generate(args)) => openings::run_generate(args),
        Command::Openings(args::OpeningsCommand::Check(args)) => openings::run_check(args),
        Command::Positions(args::PositionsCommand::Generate(args)) => positions::run_generate(args),
        Command::Probe(args) => runtime()?.block_on(watched(positions::run_probe_command(args, &env))),
        Command::Datagen(args) => positions::run_datagen(args),
        Command::Serve(args) => runtime()?.block_on(watched(serve::run(args, &env))),
        Command::Engine(args) => engine_server::run(args),
        Command::Mcp(args) => runtime()?.block_on(watched(mcp::run(args, &env))),
    }
}

/// The process's one tokio runtime, for the commands that talk to model servers (the
/// others are CPU-bound and run on plain threads).
fn runtime() -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime (threads or file descriptors exhausted?)")
}

fn parse_spec(text: &str, flag: &str) -> Result<EngineSpec> {
    text.parse().with_context(|| format!("bad {flag}"))
}

impl PositionArgs {
    /// The position these flags give ([`engines::position_from_flags`]).
    fn board(&self) -> Result<Board> {
        Ok(engines::position_from_flags(
            self.board.as_deref(),
            Color::from(self.side),
            self.moves.as_deref(),
        )?)
    }
}

fn run_perft(args: PerftArgs) -> Result<()> {
    let board = args.position.board()?;
    let convention = Convention::from(args.convention);
    let start = Instant::now();
    let steps = Arc::new(progress::Steps::default());
    let progress = steps.progress(format!("perft depth {}", args.depth), "subtrees");
    let mut on_subtree = |done, total| steps.set(done, total);
    let leaves = perft_with_progress(&board, args.depth, convention, &mut on_subtree);
    drop(progress);
    let secs = start.elapsed().as_secs_f64();
    eprintln!(
        "perft depth {} convention {convention}: {:.3} s, {:.3e} leaves/s",
        args.depth,
        secs,
        leaves as f64 / secs.max(1e-9)
    );
    outln!("{leaves}")?;
    Ok(())
}

fn run_analyze(args: AnalyzeArgs) -> Result<()> {
    let spec = parse_spec(&args.engine, "--engine")?;
    let board = args.position.board()?;
    let (analysis, engine) = Analysis::of(&spec, &board, args.seed)?;
    if args.json {
        outln!("{}", analysis.to_json())?;
    } else {
        out!("{}", analysis.text(&board, &engine))?;
    }
    Ok(())
}

fn run_solve(args: SolveArgs) -> Result<()> {
    let board = args.position.board()?;
    check_solvable(&board)?;
    let watch = Arc::new(SolveWatch::default());
    let mut solver = Solver::new();
    solver.watch(watch.clone());
    let progress = progress::solve_progress(watch, board.empties());
    let solved = Solved::run(&mut solver, &board);
    drop(progress);
    if args.json {
        outln!("{}", solved.to_json())?;
    } else {
        out!("{}", solved.text(&board))?;
    }
    Ok(())
}

fn run_wipeouts(args: WipeoutArgs) -> Result<()> {
    let spec = parse_spec(&args.vs, "--vs")?;
    if spec == EngineSpec::Human {
        bail!("bad --vs: the wipeout search needs an engine that answers by itself, not human");
    }
    let attacker = Color::from(args.attacker);
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let steps = Arc::new(progress::Steps::default());
    let progress = steps.progress(
        format!("wipeouts of {spec} within {} plies", args.max_plies),
        "subtrees",
    );
    let on_subtree = |done: usize, total: usize| steps.set(done, total);
    let found = Wipeouts::find(&spec, attacker, args.max_plies, args.seed, threads, &on_subtree);
    drop(progress);
    let found = found?;
    if args.json {
        outln!("{}", found.to_json())?;
    } else {
        out!("{}", found.text(&spec, attacker, args.max_plies))?;
    }
    Ok(())
}
