//! `bench`: speed figures for the move generator and the searches.

use std::time::Instant;

use anyhow::{bail, Result};

use super::args::BenchArgs;
use crate::arena::random_opening;
use crate::engine::{AlphaBeta, Engine, Evaluation, Search};
use crate::othello::{perft, Board, Convention};

pub(super) fn run(args: BenchArgs) -> Result<()> {
    match args.what.as_str() {
        "perft" => bench_perft(args.perft_depth),
        "alphabeta" => bench_search(),
        "all" => {
            bench_perft(args.perft_depth);
            bench_search();
        }
        other => bail!("bad bench {other:?}: choose perft, alphabeta or all"),
    }
    Ok(())
}

fn bench_perft(depth: u32) {
    println!("perft from the start position, one thread, bulk counting at the last ply");
    for d in (depth.saturating_sub(2).max(1))..=depth {
        let start = Instant::now();
        let leaves = perft(&Board::new(), d, Convention::A);
        let secs = start.elapsed().as_secs_f64();
        println!(
            "  depth {d:2}: {leaves:>14} leaves in {secs:7.3} s = {:.3e} leaves/s",
            leaves as f64 / secs
        );
    }
}

/// Midgame positions: 20 random plies from the start (seeds 0..), as seed 004 measured.
fn midgame_positions(count: u64) -> Vec<Board> {
    (0..count)
        .map(|seed| *random_opening(Board::new(), 20, seed).board())
        .filter(|b| !b.legal_moves().is_empty())
        .collect()
}

fn bench_search() {
    println!("seed 004 alpha-beta (alphabeta:D:weight), nodes counted as seed 004 counts them");
    for depth in [4, 6] {
        let mut engine = AlphaBeta::new(depth, Evaluation::Weight);
        let start = Instant::now();
        let decision = engine.choose(&Board::new()).map(|d| d.nodes).unwrap_or(0);
        let secs = start.elapsed().as_secs_f64();
        println!(
            "  start position, depth {depth}: {decision} nodes in {:.2} ms",
            secs * 1e3
        );
    }
    let positions = midgame_positions(100);
    for depth in [4, 6] {
        let mut nodes: Vec<u64> = Vec::new();
        let start = Instant::now();
        for board in &positions {
            let mut engine = AlphaBeta::new(depth, Evaluation::Weight);
            nodes.push(engine.choose(board).map(|d| d.nodes).unwrap_or(0));
        }
        let secs = start.elapsed().as_secs_f64();
        let total: u64 = nodes.iter().sum();
        nodes.sort_unstable();
        println!(
            "  {} midgame positions (20 random plies), depth {depth}: nodes median {}, p90 {}, max {}, mean {:.0}; {:.3e} nodes/s",
            positions.len(),
            nodes[nodes.len() / 2],
            nodes[nodes.len() * 9 / 10],
            nodes[nodes.len() - 1],
            total as f64 / nodes.len() as f64,
            total as f64 / secs
        );
    }
    let start = Instant::now();
    let mut total = 0;
    for board in &positions {
        total += Search::new().choose(board).map(|d| d.nodes).unwrap_or(0);
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "seed 001 search on the same positions: {total} nodes in {secs:.3} s = {:.3e} nodes/s",
        total as f64 / secs
    );
}
