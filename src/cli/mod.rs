//! The command line: parses arguments, runs a subcommand, prints its results.
//! The only module that prints to stdout or reads the environment.

mod agent_args;
mod args;
mod bench;
mod compare;
mod engine_server;
mod eval;
mod export;
mod external;
mod grid;
mod inputs;
mod intrinsic;
mod limits;
mod mcp;
mod modelfile;
mod openings;
mod outputs;
mod play;
mod positions;
mod progress;
mod quality;
mod rate;
mod replay;
mod report;
mod report_html;
mod serve;
mod stats;
mod stdout;
mod tournament;
mod train_eval;

pub use args::Cli;
pub use eval::Interrupted;
pub use stdout::closed_stdout;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

use anyhow::{bail, Context, Result};

use args::{AnalyzeArgs, Command, PerftArgs, PositionArgs, SolveArgs, WipeoutArgs};
use engines::lab::find_wipeouts_with_progress;
use engines::{EngineSpec, SolveWatch, Solver};
use game::othello::{perft_with_progress, Board, Color, Convention, Move, Outcome};
use stdout::outln;

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
        Command::Bench(args) => bench::run(args),
        Command::Solve(args) => run_solve(args),
        Command::TrainEval(args) => train_eval::run(args),
        Command::Replay(args) => replay::run(args),
        Command::Stats(args) => stats::run(args),
        Command::Rate(args) => rate::run(args),
        Command::Tournament(args) => runtime()?.block_on(watched(tournament::run(args, &env))),
        Command::Report(args) => report_html::run(args),
        Command::Export(args) => export::run(args),
        Command::Compare(args) => compare::run(args),
        Command::Modelfile(args) => runtime()?.block_on(modelfile::run(args, &env)),
        Command::Openings(args::OpeningsCommand::Generate(args)) => openings::run_generate(args),
        Command::Openings(args::OpeningsCommand::Check(args)) => openings::run_check(args),
        Command::Positions(args::PositionsCommand::Generate(args)) => positions::run_generate(args),
        Command::Probe(args) => runtime()?.block_on(watched(positions::run_probe_command(args, &env))),
        Command::Datagen(args) => positions::run_datagen(args),
        Command::Serve(args) => runtime()?.block_on(serve::run(args, &env)),
        Command::Engine(args) => engine_server::run(args),
        Command::Mcp(args) => runtime()?.block_on(mcp::run(args, &env)),
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
    fn board(&self) -> Result<Board> {
        let side = Color::from(self.side);
        let mut board = match &self.board {
            None => Board::new().with_side_to_move(side),
            Some(text) => Board::parse_squares(text, side).context("bad --board")?,
        };
        for (i, text) in self.moves.iter().flat_map(|m| m.split_whitespace()).enumerate() {
            let mv: Move = text
                .parse()
                .with_context(|| format!("bad --moves: move {} {text:?}", i + 1))?;
            board = board
                .try_play(mv)
                .with_context(|| format!("bad --moves: move {} {text:?}", i + 1))?;
        }
        Ok(board)
    }
}

fn run_perft(args: PerftArgs) -> Result<()> {
    let board = args.position.board()?;
    let convention = Convention::from(args.convention);
    let start = Instant::now();
    let done = Arc::new(AtomicU64::new(0));
    let total = Arc::new(AtomicU64::new(0));
    let (polled_done, polled_total) = (done.clone(), total.clone());
    let what = format!("perft depth {}", args.depth);
    let progress = progress::Progress::start(move |elapsed| {
        let (done, total) = (
            polled_done.load(Ordering::Relaxed),
            polled_total.load(Ordering::Relaxed),
        );
        progress::steps_line(&what, done, total, "subtrees", elapsed)
    });
    let leaves = perft_with_progress(&board, args.depth, convention, &mut |subtrees_done, subtrees| {
        total.store(subtrees as u64, Ordering::Relaxed);
        done.store(subtrees_done as u64, Ordering::Relaxed);
    });
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
    if spec == EngineSpec::Human {
        bail!("bad --engine: human cannot be analysed; choose an engine such as n-hand:3 or search");
    }
    let board = args.position.board()?;
    if board.is_game_over() {
        bail!("the game is over in this position: give a --board where a side can move");
    }
    let mut engine = spec.build(args.seed);
    let start = Instant::now();
    let decision = engine.choose(&board)?;
    let ms = start.elapsed().as_secs_f64() * 1000.0;
    if args.json {
        let mut value = serde_json::to_value(&decision)?;
        value["ms"] = serde_json::json!(ms);
        outln!("{value}")?;
        return Ok(());
    }
    outln!("{board}\n")?;
    outln!("engine:  {}", engine.name())?;
    outln!("move:    {}", decision.mv)?;
    match decision.score {
        Some(score) => outln!("score:   {score}")?,
        None => outln!("score:   (this engine gives none)")?,
    }
    outln!("nodes:   {}", decision.nodes)?;
    outln!("ms:      {ms:.3}")?;
    if !decision.candidates.is_empty() {
        outln!("candidates:")?;
        for c in &decision.candidates {
            let mark = if Move::Place(c.square) == decision.mv {
                "  <- chosen"
            } else {
                ""
            };
            outln!("  {}: {}{mark}", c.square, format_value(c.value))?;
        }
    }
    Ok(())
}

/// A value with at most three decimals and no trailing zeros.
fn format_value(value: f64) -> String {
    let text = format!("{value:.3}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

fn run_solve(args: SolveArgs) -> Result<()> {
    let board = args.position.board()?;
    if board.is_game_over() {
        let (black, white) = (board.count(Color::Black), board.count(Color::White));
        let result = match board.leader() {
            Outcome::Win(Color::Black) => format!("black wins by {}", black - white),
            Outcome::Win(Color::White) => format!("white wins by {}", white - black),
            Outcome::Draw => "a draw".to_string(),
        };
        bail!(
            "the game is over in this position: black {black}, white {white} ({result}); there is nothing to \
             solve: give a --board or --moves where a side can move"
        );
    }
    if board.empties() > 30 {
        bail!(
            "{} empty squares is too many to solve exactly here: give a position with at most 30",
            board.empties()
        );
    }
    let start = Instant::now();
    let watch = Arc::new(SolveWatch::default());
    let mut solver = Solver::new();
    solver.watch(watch.clone());
    let empties = board.empties();
    let progress = progress::Progress::start(move |elapsed| {
        let load = |counter: &std::sync::atomic::AtomicU32| counter.load(Ordering::Relaxed);
        let nodes = watch.nodes.load(Ordering::Relaxed);
        progress::solve_line(empties, nodes, load(&watch.moves_checked), load(&watch.moves), elapsed)
    });
    let solution = solver.solve(&board);
    drop(progress);
    let ms = start.elapsed().as_secs_f64() * 1000.0;
    let best: Vec<String> = solution.best_moves.iter().map(ToString::to_string).collect();
    if args.json {
        outln!(
            "{}",
            serde_json::json!({ "best_moves": best, "score": solution.score, "nodes": solution.nodes, "ms": ms })
        )?;
    } else {
        outln!("{board}\n")?;
        outln!(
            "best moves: {}",
            if best.is_empty() {
                "(none: the side to move must pass)".to_string()
            } else {
                best.join(", ")
            }
        )?;
        outln!(
            "score:      {:+} (final disc difference for {}, empties to the winner)",
            solution.score,
            board.side_to_move()
        )?;
        outln!("nodes:      {}", solution.nodes)?;
        outln!(
            "ms:         {ms:.1} ({:.2e} nodes/s)",
            solution.nodes as f64 / (ms / 1000.0).max(1e-9)
        )?;
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
    let start = Instant::now();
    let done = Arc::new(AtomicU64::new(0));
    let total = Arc::new(AtomicU64::new(0));
    let (polled_done, polled_total) = (done.clone(), total.clone());
    let what = format!("wipeouts of {spec} within {} plies", args.max_plies);
    let progress = progress::Progress::start(move |elapsed| {
        let (done, total) = (
            polled_done.load(Ordering::Relaxed),
            polled_total.load(Ordering::Relaxed),
        );
        progress::steps_line(&what, done, total, "subtrees", elapsed)
    });
    let on_subtree = |subtrees_done: usize, subtrees: usize| {
        total.store(subtrees as u64, Ordering::Relaxed);
        done.fetch_max(subtrees_done as u64, Ordering::Relaxed);
    };
    let lines = find_wipeouts_with_progress(&spec, attacker, args.max_plies, args.seed, threads, &on_subtree);
    drop(progress);
    let lines = lines?;
    let text: Vec<String> = lines
        .iter()
        .map(|line| line.iter().map(ToString::to_string).collect::<Vec<_>>().join(" "))
        .collect();
    if args.json {
        outln!("{}", serde_json::json!({ "count": lines.len(), "sequences": text }))?;
    } else {
        for line in &text {
            outln!("{line}")?;
        }
        outln!(
            "{} line(s) in which {attacker} wipes out {spec} within {} plies ({:.1} s)",
            lines.len(),
            args.max_plies,
            start.elapsed().as_secs_f64()
        )?;
    }
    Ok(())
}
