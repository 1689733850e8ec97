//! The command line: parses arguments, runs a subcommand, prints its results.
//! The only module that prints to stdout or reads the environment.

mod agent_args;
mod args;
mod bench;
mod compare;
mod eval;
mod modelfile;
mod play;
mod positions;
mod quality;
mod rate;
mod replay;
mod report;
mod report_html;
mod run_dir;
mod serve;
mod stats;
mod tournament;

pub use args::Cli;
pub use eval::Interrupted;

use std::time::Instant;

use anyhow::{bail, Context, Result};

use crate::arena::find_wipeouts;
use crate::engine::EngineSpec;
use crate::othello::{perft, Board, Color, Convention, Move};
use args::{AnalyzeArgs, Command, PerftArgs, PositionArgs, SolveArgs, WipeoutArgs};

/// Runs the parsed command line.
pub fn run(cli: Cli) -> Result<()> {
    let _ = tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .with_writer(std::io::stderr)
        .try_init();
    let env = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
    match cli.command {
        Command::Perft(args) => run_perft(args),
        Command::Analyze(args) => run_analyze(args),
        Command::Play(args) => runtime()?.block_on(play::run(args, &env)),
        Command::Eval(args) => runtime()?.block_on(eval::run(args, &env)),
        Command::Wipeouts(args) => run_wipeouts(args),
        Command::Bench(args) => bench::run(args),
        Command::Solve(args) => run_solve(args),
        Command::Replay(args) => replay::run(args),
        Command::Stats(args) => stats::run(args),
        Command::Rate(args) => rate::run(args),
        Command::Tournament(args) => runtime()?.block_on(tournament::run(args, &env)),
        Command::Report(args) => report_html::run(args),
        Command::Compare(args) => compare::run(args),
        Command::Modelfile(args) => runtime()?.block_on(modelfile::run(args, &env)),
        Command::Positions(args::PositionsCommand::Generate(args)) => positions::run_generate(args),
        Command::Probe(args) => runtime()?.block_on(positions::run_probe_command(args, &env)),
        Command::Datagen(args) => positions::run_datagen(args),
        Command::Serve(args) => runtime()?.block_on(serve::run(args)),
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

fn parse_color(text: &str, flag: &str) -> Result<Color> {
    text.parse().with_context(|| format!("bad {flag}"))
}

fn parse_spec(text: &str, flag: &str) -> Result<EngineSpec> {
    text.parse().with_context(|| format!("bad {flag}"))
}

impl PositionArgs {
    fn board(&self) -> Result<Board> {
        let side = parse_color(&self.side, "--side")?;
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
    let convention: Convention = args.convention.parse().context("bad --convention")?;
    let start = Instant::now();
    let leaves = perft(&board, args.depth, convention);
    let secs = start.elapsed().as_secs_f64();
    eprintln!(
        "perft depth {} convention {convention}: {:.3} s, {:.3e} leaves/s",
        args.depth,
        secs,
        leaves as f64 / secs.max(1e-9)
    );
    println!("{leaves}");
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
        println!("{value}");
        return Ok(());
    }
    println!("{board}\n");
    println!("engine:  {}", engine.name());
    println!("move:    {}", decision.mv);
    match decision.score {
        Some(score) => println!("score:   {score}"),
        None => println!("score:   (this engine gives none)"),
    }
    println!("nodes:   {}", decision.nodes);
    println!("ms:      {ms:.3}");
    if !decision.candidates.is_empty() {
        println!("candidates:");
        for c in &decision.candidates {
            let mark = if Move::Place(c.square) == decision.mv {
                "  <- chosen"
            } else {
                ""
            };
            println!("  {}: {}{mark}", c.square, format_value(c.value));
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
    if board.empties() > 30 {
        bail!(
            "{} empty squares is too many to solve exactly here: give a position with at most 30",
            board.empties()
        );
    }
    let start = Instant::now();
    let solution = crate::engine::Solver::new().solve(&board);
    let ms = start.elapsed().as_secs_f64() * 1000.0;
    let best: Vec<String> = solution.best_moves.iter().map(ToString::to_string).collect();
    if args.json {
        println!(
            "{}",
            serde_json::json!({ "best_moves": best, "score": solution.score, "nodes": solution.nodes, "ms": ms })
        );
    } else {
        println!("{board}\n");
        println!(
            "best moves: {}",
            if best.is_empty() {
                "(none: pass or game over)".to_string()
            } else {
                best.join(", ")
            }
        );
        println!(
            "score:      {:+} (final disc difference for {}, empties to the winner)",
            solution.score,
            board.side_to_move()
        );
        println!("nodes:      {}", solution.nodes);
        println!(
            "ms:         {ms:.1} ({:.2e} nodes/s)",
            solution.nodes as f64 / (ms / 1000.0).max(1e-9)
        );
    }
    Ok(())
}

fn run_wipeouts(args: WipeoutArgs) -> Result<()> {
    let spec = parse_spec(&args.vs, "--vs")?;
    if spec == EngineSpec::Human {
        bail!("bad --vs: the wipeout search needs an engine that answers by itself, not human");
    }
    let attacker = parse_color(&args.attacker, "--attacker")?;
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let start = Instant::now();
    let lines = find_wipeouts(&spec, attacker, args.max_plies, args.seed, threads)?;
    let text: Vec<String> = lines
        .iter()
        .map(|line| line.iter().map(ToString::to_string).collect::<Vec<_>>().join(" "))
        .collect();
    if args.json {
        println!("{}", serde_json::json!({ "count": lines.len(), "sequences": text }));
    } else {
        for line in &text {
            println!("{line}");
        }
        println!(
            "{} line(s) in which {attacker} wipes out {spec} within {} plies ({:.1} s)",
            lines.len(),
            args.max_plies,
            start.elapsed().as_secs_f64()
        );
    }
    Ok(())
}
