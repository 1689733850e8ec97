//! How close an evaluation comes to the truth: static values, searched values and
//! searched choices against exact scores from the solver, and the reference's
//! estimated regrets against exact regrets. `othello-arena bench eval` prints these;
//! docs/engines.md quotes them.

use rayon::prelude::*;

use engines::midgame::{search_value, Evaluator};
use engines::pattern::SCALE;
use engines::{MoveScores, Reference, Solver};
use game::othello::{Board, Move};
use stats::mean_interval;

/// An evaluation measured against exact scores on a set of positions.
#[derive(Clone, Debug, PartialEq)]
pub struct Accuracy {
    /// Positions measured.
    pub positions: usize,
    /// Mean absolute error of the static evaluation, in discs.
    pub static_error: f64,
    /// Mean absolute error of the `depth`-ply search value, in discs.
    pub search_error: f64,
    /// Mean exact regret of the move the `depth`-ply search prefers, in discs.
    pub choice_regret: f64,
}

/// A position with its exact score for the side to move.
#[derive(Clone, Copy, Debug)]
pub struct Solved {
    /// The position.
    pub board: Board,
    /// Its exact final disc difference (empties to the winner).
    pub score: i32,
}

/// Solves `boards` exactly, on every core.
pub fn solve_all(boards: &[Board]) -> Vec<Solved> {
    boards
        .par_iter()
        .map_init(Solver::new, |solver, board| Solved {
            board: *board,
            score: solver.score(board).0,
        })
        .collect()
}

/// Measures `evaluator` (static, and searched `depth` plies) on `positions`, solving
/// the position after each preferred move to find its regret.
pub fn accuracy(positions: &[Solved], evaluator: &'static dyn Evaluator, depth: u32) -> Accuracy {
    let discs = |value: i32| f64::from(value) / f64::from(SCALE);
    let rows: Vec<(f64, f64, f64)> = positions
        .par_iter()
        .map_init(
            || (Solver::new(), Reference::new(0, depth).with_evaluator(evaluator)),
            |(solver, searcher), solved| {
                let (player, opponent) = (solved.board.player(), solved.board.opponent());
                let exact = f64::from(solved.score);
                let static_value = discs(evaluator.evaluate(player, opponent));
                let searched = discs(search_value(evaluator, player, opponent, depth, &mut 0));
                let choice = searcher.score_moves(&solved.board).best_moves()[0];
                let after = -solver.score(&solved.board.play(Move::Place(choice))).0;
                (
                    (static_value - exact).abs(),
                    (searched - exact).abs(),
                    exact - f64::from(after),
                )
            },
        )
        .collect();
    let mean = |pick: fn(&(f64, f64, f64)) -> f64| rows.iter().map(pick).sum::<f64>() / rows.len().max(1) as f64;
    Accuracy {
        positions: rows.len(),
        static_error: mean(|r| r.0),
        search_error: mean(|r| r.1),
        choice_regret: mean(|r| r.2),
    }
}

/// The reference's estimated regrets against exact ones, move by move. Figures are
/// means over positions (each position's moves averaged first: positions, not moves,
/// are the independent draws), with 95% intervals.
#[derive(Clone, Debug, PartialEq)]
pub struct Calibration {
    /// Positions measured.
    pub positions: usize,
    /// Legal moves measured.
    pub moves: usize,
    /// Mean |estimated regret - exact regret|, in discs, and its 95% interval.
    pub regret_error: (f64, f64, f64),
    /// Mean (estimated regret - exact regret): above 0, estimates overstate regrets.
    pub regret_bias: (f64, f64, f64),
    /// Mean exact regret of the estimate's best move.
    pub choice_regret: f64,
    /// Mean exact regret of a uniformly random legal move.
    pub random_regret: f64,
}

/// Scores every move of `boards` exactly and by `estimate` and compares the regrets.
pub fn calibration(boards: &[Board], estimate: impl Fn() -> Reference + Sync) -> Calibration {
    let rows: Vec<(MoveScores, MoveScores)> = boards
        .par_iter()
        .map_init(
            || (Reference::new(engines::MAX_EXACT_EMPTIES, 1), estimate()),
            |(exact, estimated), board| (exact.score_moves(board), estimated.score_moves(board)),
        )
        .collect();
    let (mut errors, mut biases, mut choice, mut random, mut moves) = (Vec::new(), Vec::new(), 0.0, 0.0, 0);
    for (exact, estimated) in &rows {
        let differences: Vec<f64> = exact
            .scores
            .iter()
            .map(|&(square, _)| estimated.regret(square).unwrap_or(0.0) - exact.regret(square).unwrap_or(0.0))
            .collect();
        let n = differences.len() as f64;
        errors.push(differences.iter().map(|d| d.abs()).sum::<f64>() / n);
        biases.push(differences.iter().sum::<f64>() / n);
        random += exact
            .scores
            .iter()
            .map(|&(sq, _)| exact.regret(sq).unwrap_or(0.0))
            .sum::<f64>()
            / n;
        choice += exact.regret(estimated.best_moves()[0]).unwrap_or(0.0);
        moves += differences.len();
    }
    let n = rows.len().max(1) as f64;
    let none = (0.0, 0.0, 0.0);
    Calibration {
        positions: rows.len(),
        moves,
        regret_error: mean_interval(&errors).unwrap_or(none),
        regret_bias: mean_interval(&biases).unwrap_or(none),
        choice_regret: choice / n,
        random_regret: random / n,
    }
}
