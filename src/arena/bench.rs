//! `bench`'s speed figures of the rules and the searches: perft from the start,
//! seed 004's alpha-beta and seed 001's search on midgame positions, and the exact
//! solver on the FFO endgame suite (each score and best move checked). Each bench
//! returns a typed report whose `text` is what `bench` prints; the slow ones hand each
//! row over as it is measured.

use std::fmt::Write as _;
use std::time::Instant;

use engines::{AlphaBeta, Engine, Evaluation, Search, Solver};
use game::othello::{perft, Board, Color, Convention};
use game::Othello;

use super::play::random_opening;

/// The FFO endgame suite (id, board, side, best moves, score, empties per line).
const FFO: &str = include_str!("../../tests/data/ffo-endgames.txt");

/// Why a bench cannot run or found a wrong answer.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    /// `--ffo` is not a range of the suite's problems.
    #[error("bad --ffo {range:?}: {why}give problem numbers from {first} to {last}, such as 40-44 or 40")]
    FfoRange {
        /// The range as given.
        range: String,
        /// What is wrong with it, ending in `: ` (empty when it does not read).
        why: String,
        /// The suite's first problem.
        first: u32,
        /// Its last.
        last: u32,
    },
    /// The solver disagrees with the suite: a bug.
    #[error("FFO #{id}: {found} but the suite {listed}")]
    Wrong {
        /// The problem.
        id: u32,
        /// What the solver found.
        found: String,
        /// What the suite says.
        listed: String,
    },
    /// A line of the built-in suite does not read: a broken build.
    #[error("the built-in FFO suite does not read at problem {0}: a broken build")]
    Suite(String),
}

/// One depth of [`perft_bench`].
#[derive(Clone, Copy, Debug)]
pub struct PerftRow {
    /// The depth.
    pub depth: u32,
    /// Leaves counted.
    pub leaves: u64,
    /// Seconds taken.
    pub secs: f64,
}

impl PerftRow {
    /// The heading above the rows.
    pub const HEADING: &'static str = "perft from the start position, one thread, bulk counting at the last ply";

    /// The row as `bench perft` prints it.
    pub fn text(&self) -> String {
        format!(
            "  depth {:2}: {:>14} leaves in {:7.3} s = {:.3e} leaves/s",
            self.depth,
            self.leaves,
            self.secs,
            self.leaves as f64 / self.secs
        )
    }
}

/// Perft from the start position at the three depths up to `depth`, one thread, each
/// row handed to `each` as it is measured.
pub fn perft_bench(depth: u32, each: &mut dyn FnMut(&PerftRow)) {
    for depth in (depth.saturating_sub(2).max(1))..=depth {
        let start = Instant::now();
        let leaves = perft(&Board::new(), depth, Convention::A);
        each(&PerftRow {
            depth,
            leaves,
            secs: start.elapsed().as_secs_f64(),
        });
    }
}

/// Midgame positions: 20 random plies from the start (seeds 0..), as seed 004 measured.
fn midgame_positions(count: u64) -> Vec<Board> {
    (0..count)
        .map(|seed| *random_opening::<Othello>(Board::new(), 20, seed).board())
        .filter(|b| !b.legal_moves().is_empty())
        .collect()
}

/// Nodes of seed 004's alpha-beta over the midgame positions at one depth.
#[derive(Clone, Debug)]
pub struct MidgameNodes {
    /// The depth.
    pub depth: u32,
    /// Nodes per position, sorted.
    pub nodes: Vec<u64>,
    /// Seconds over all positions.
    pub secs: f64,
}

/// [`search_bench`]'s figures.
#[derive(Clone, Debug)]
pub struct SearchBench {
    /// Depth, nodes and seconds of alpha-beta from the start position.
    pub start: Vec<(u32, u64, f64)>,
    /// Alpha-beta over the midgame positions, per depth.
    pub midgame: Vec<MidgameNodes>,
    /// Seed 001's search over the same positions: nodes and seconds.
    pub search: (u64, f64),
}

/// Seed 004's alpha-beta (depths 4 and 6, nodes counted as seed 004 counts them) from
/// the start and on 100 midgame positions, and seed 001's search on the same positions.
pub fn search_bench() -> SearchBench {
    let nodes = |engine: &mut dyn Engine, board: &Board| engine.choose(board).map(|d| d.nodes).unwrap_or(0);
    let start = [4, 6]
        .map(|depth| {
            let timer = Instant::now();
            let n = nodes(&mut AlphaBeta::new(depth, Evaluation::Weight), &Board::new());
            (depth, n, timer.elapsed().as_secs_f64())
        })
        .to_vec();
    let positions = midgame_positions(100);
    let midgame = [4, 6]
        .map(|depth| {
            let timer = Instant::now();
            let mut counts: Vec<u64> = positions
                .iter()
                .map(|board| nodes(&mut AlphaBeta::new(depth, Evaluation::Weight), board))
                .collect();
            let secs = timer.elapsed().as_secs_f64();
            counts.sort_unstable();
            MidgameNodes {
                depth,
                nodes: counts,
                secs,
            }
        })
        .to_vec();
    let timer = Instant::now();
    let total = positions.iter().map(|board| nodes(&mut Search::new(), board)).sum();
    SearchBench {
        start,
        midgame,
        search: (total, timer.elapsed().as_secs_f64()),
    }
}

impl SearchBench {
    /// The report as `bench alphabeta` prints it.
    pub fn text(&self) -> String {
        let mut out = "seed 004 alpha-beta (alphabeta:D:weight), nodes counted as seed 004 counts them\n".to_string();
        for (depth, nodes, secs) in &self.start {
            let _ = writeln!(
                out,
                "  start position, depth {depth}: {nodes} nodes in {:.2} ms",
                secs * 1e3
            );
        }
        for m in &self.midgame {
            let (n, total) = (m.nodes.len(), m.nodes.iter().sum::<u64>());
            let _ = writeln!(
                out,
                "  {n} midgame positions (20 random plies), depth {}: nodes median {}, p90 {}, max {}, mean {:.0}; {:.3e} nodes/s",
                m.depth,
                m.nodes[n / 2],
                m.nodes[n * 9 / 10],
                m.nodes[n - 1],
                total as f64 / n as f64,
                total as f64 / m.secs
            );
        }
        let (total, secs) = self.search;
        let _ = writeln!(
            out,
            "seed 001 search on the same positions: {total} nodes in {secs:.3} s = {:.3e} nodes/s",
            total as f64 / secs
        );
        out
    }
}

/// One problem of the FFO suite.
struct FfoProblem<'a> {
    id: u32,
    board: Board,
    best: &'a str,
    score: i32,
}

/// The problems of the FFO suite.
fn ffo_problems() -> Result<Vec<FfoProblem<'static>>, BenchError> {
    FFO.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|line| {
            let f: Vec<&str> = line.split_whitespace().collect();
            let bad = || BenchError::Suite(line.to_string());
            let side = if f.get(2) == Some(&"X") {
                Color::Black
            } else {
                Color::White
            };
            Ok(FfoProblem {
                id: f[0].parse().map_err(|_| bad())?,
                board: Board::parse_squares(f.get(1).ok_or_else(bad)?, side).map_err(|_| bad())?,
                best: f.get(3).ok_or_else(bad)?,
                score: f.get(4).ok_or_else(bad)?.parse().map_err(|_| bad())?,
            })
        })
        .collect()
}

/// Reads `--ffo` (such as 40-44, or 40): a range that holds at least one problem.
pub fn ffo_range(range: &str) -> Result<(u32, u32), BenchError> {
    let ids: Vec<u32> = ffo_problems()?.iter().map(|p| p.id).collect();
    let (first, last) = (
        ids.iter().min().copied().unwrap_or(0),
        ids.iter().max().copied().unwrap_or(0),
    );
    let refuse = |why: String| BenchError::FfoRange {
        range: range.to_string(),
        why,
        first,
        last,
    };
    let (low, high) = range.split_once('-').unwrap_or((range, range));
    let (low, high): (u32, u32) = match (low.trim().parse(), high.trim().parse()) {
        (Ok(low), Ok(high)) => (low, high),
        _ => return Err(refuse(String::new())),
    };
    if low > high {
        return Err(refuse(format!("the range is empty ({low} is above {high}): ")));
    }
    if !ids.iter().any(|id| (low..=high).contains(id)) {
        return Err(refuse("the suite has no problem in it: ".to_string()));
    }
    Ok((low, high))
}

/// One problem solved by [`solve_bench`].
#[derive(Clone, Debug)]
pub struct SolveRow {
    /// The problem number.
    pub id: u32,
    /// Its empty squares.
    pub empties: u32,
    /// The exact score.
    pub score: i32,
    /// Every best move.
    pub best: Vec<String>,
    /// Legal moves.
    pub moves: u32,
    /// Nodes, those of the ordering searches included.
    pub nodes: u64,
    /// Nodes of the midgame searches that ordered moves.
    pub ordering_nodes: u64,
    /// Seconds.
    pub secs: f64,
}

impl SolveRow {
    /// The heading above the rows of FFO problems `low` to `high`.
    pub fn heading(low: u32, high: u32) -> String {
        format!(
            "exact solve of FFO #{low}-#{high}, one thread (score and every best move, both checked against the suite)\n\
             \x20 (nodes include those of the midgame searches that order moves, also shown apart)\n\
             \x20 {:<4} {:>7}  {:>5}  {:<9} {:>5}  {:>13}  {:>11}  {:>8}  {:>9}",
            "id", "empties", "score", "best", "moves", "nodes", "of ordering", "time (s)", "Mnodes/s"
        )
    }

    /// The row as `bench solve` prints it.
    pub fn text(&self) -> String {
        format!(
            "  #{:<3} {:>7}  {:>+5}  {:<9} {:>5}  {:>13}  {:>11}  {:>8.2}  {:>9.2}",
            self.id,
            self.empties,
            self.score,
            self.best.join(","),
            self.moves,
            self.nodes,
            self.ordering_nodes,
            self.secs,
            self.nodes as f64 / self.secs / 1e6
        )
    }

    /// The line under the rows: the totals of `rows`.
    pub fn total(rows: &[SolveRow]) -> String {
        let secs: f64 = rows.iter().map(|r| r.secs).sum();
        let nodes: u64 = rows.iter().map(|r| r.nodes).sum();
        format!(
            "  total {secs:.2} s, {nodes} nodes, {:.2} Mnodes/s",
            nodes as f64 / secs / 1e6
        )
    }
}

/// Solves FFO problems `low` to `high` one after another with one solver, checking
/// each score and best move against the suite; each row handed to `each` as it is
/// solved.
pub fn solve_bench(low: u32, high: u32, each: &mut dyn FnMut(&SolveRow)) -> Result<Vec<SolveRow>, BenchError> {
    let mut solver = Solver::new();
    let mut rows = Vec::new();
    for problem in ffo_problems()?.into_iter().filter(|p| (low..=high).contains(&p.id)) {
        let (id, board) = (problem.id, problem.board);
        let start = Instant::now();
        let solution = solver.solve(&board);
        let secs = start.elapsed().as_secs_f64();
        if solution.score != problem.score {
            return Err(BenchError::Wrong {
                id,
                found: format!("solved {}", solution.score),
                listed: format!("says {}", problem.score),
            });
        }
        let best: Vec<String> = solution.best_moves.iter().map(ToString::to_string).collect();
        let mut listed: Vec<String> = problem.best.split(',').map(str::to_lowercase).collect();
        let mut found = best.clone();
        listed.sort();
        found.sort();
        if found != listed {
            return Err(BenchError::Wrong {
                id,
                found: format!("best moves {}", best.join(",")),
                listed: format!("lists {}", problem.best),
            });
        }
        let row = SolveRow {
            id,
            empties: board.empties(),
            score: solution.score,
            best,
            moves: board.legal_moves().count(),
            nodes: solution.nodes,
            ordering_nodes: solution.ordering_nodes,
            secs,
        };
        each(&row);
        rows.push(row);
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ffo_ranges_hold_a_problem() {
        assert_eq!(ffo_range("40-44").unwrap(), (40, 44));
        assert_eq!(ffo_range("41").unwrap(), (41, 41));
        for bad in ["45-40", "80-90", "0", "x-3", ""] {
            assert!(ffo_range(bad).is_err(), "{bad}");
        }
        assert_eq!(
            ffo_range("45-40").unwrap_err().to_string(),
            "bad --ffo \"45-40\": the range is empty (45 is above 40): give problem numbers from 1 to 59, such as 40-44 or 40"
        );
    }
}
