//! How close an evaluation comes to the truth: static values, searched values and
//! searched choices against exact scores from the solver, and the reference's
//! estimated regrets against exact regrets. `othello-arena bench eval` prints these
//! ([`eval_bench`]), and `bench probcut` the error of shallow searches
//! ([`probcut_bench`]); docs/engines.md quotes them.

use std::fmt::Write as _;
use std::ops::RangeInclusive;
use std::time::Instant;

use rayon::prelude::*;

use engines::lab::self_play_positions;
use engines::midgame::{search_value, Evaluator};
use engines::pattern::shipped_weights;
use engines::pattern::SCALE;
use engines::{LinearEval, MoveScores, Reference, Solver, DEFAULT_DEPTH, DEFAULT_EXACT_EMPTIES};
use game::othello::{Board, Move};
use stats::{mean_and_sd, mean_interval};

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

/// The evaluations `bench eval` measures: the linear one the pattern evaluation
/// replaced, and the shipped pattern evaluation.
fn evaluations() -> [(&'static str, &'static dyn Evaluator); 2] {
    [
        ("linear (7 features)", &LinearEval),
        ("pattern (shipped)", shipped_weights()),
    ]
}

/// [`eval_bench`]'s figures.
#[derive(Clone, Debug)]
pub struct EvalBench {
    /// Self-play positions solved, their empties and seed.
    pub positions: usize,
    /// Their empties.
    pub empties: RangeInclusive<u32>,
    /// Their seed.
    pub seed: u64,
    /// Seconds to solve them on every core.
    pub solve_secs: f64,
    /// Each evaluation's [`accuracy`] at depth 4 on them.
    pub accuracy: Vec<(&'static str, Accuracy)>,
    /// Positions just above the reference's exact empties, for the calibration.
    pub estimated: usize,
    /// Their lowest number of empties (the highest is 2 more).
    pub estimated_low: u32,
    /// Each evaluation's [`calibration`] as the reference's estimator.
    pub calibration: Vec<(&'static str, Calibration)>,
}

/// The shipped pattern evaluation and the linear one it replaced, against exact
/// scores: on `positions` self-play positions at `empties` (seed `seed`), and the
/// reference's estimated regrets just above its exact empties.
pub fn eval_bench(positions: usize, empties: RangeInclusive<u32>, seed: u64) -> EvalBench {
    let boards = self_play_positions(positions, empties.clone(), seed);
    let start = Instant::now();
    let solved = solve_all(&boards);
    let solve_secs = start.elapsed().as_secs_f64();
    let accuracy = evaluations()
        .map(|(name, evaluator)| (name, accuracy(&solved, evaluator, 4)))
        .to_vec();
    let low = DEFAULT_EXACT_EMPTIES + 1;
    let estimated = self_play_positions(positions, low..=low + 2, seed);
    let calibration = evaluations()
        .map(|(name, evaluator)| {
            let c = calibration(&estimated, || {
                Reference::new(0, DEFAULT_DEPTH).with_evaluator(evaluator)
            });
            (name, c)
        })
        .to_vec();
    EvalBench {
        positions: boards.len(),
        empties,
        seed,
        solve_secs,
        accuracy,
        estimated: estimated.len(),
        estimated_low: low,
        calibration,
    }
}

impl EvalBench {
    /// The report as `bench eval` prints it.
    pub fn text(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "{} self-play positions at {}-{} empties (seed {}), solved exactly\n  solved in {:.1} s on every core",
            self.positions,
            self.empties.start(),
            self.empties.end(),
            self.seed,
            self.solve_secs
        );
        let _ = writeln!(
            out,
            "  {:<20}  {:>10}  {:>12}  {:>22}",
            "evaluation", "static MAE", "depth-4 MAE", "depth-4 choice regret"
        );
        for (name, a) in &self.accuracy {
            let _ = writeln!(
                out,
                "  {name:<20}  {:>10.2}  {:>12.2}  {:>22.2}",
                a.static_error, a.search_error, a.choice_regret
            );
        }
        let _ = writeln!(
            out,
            "the reference's estimates (depth {DEFAULT_DEPTH}) against every move solved: {} positions at {}-{} empties (seed {})\n  (means over positions, 95% intervals)",
            self.estimated,
            self.estimated_low,
            self.estimated_low + 2,
            self.seed
        );
        let _ = writeln!(
            out,
            "  {:<20}  {:>26}  {:>21}  {:>20}  {:>11}",
            "evaluation", "|estimated - exact regret|", "estimated - exact", "regret of its choice", "random move"
        );
        let interval = |(mean, low, high): (f64, f64, f64)| format!("{mean:+.2} [{low:+.2}, {high:+.2}]");
        for (name, c) in &self.calibration {
            let _ = writeln!(
                out,
                "  {name:<20}  {:>26}  {:>21}  {:>20.2}  {:>11.2}",
                interval(c.regret_error).replace('+', ""),
                interval(c.regret_bias),
                c.choice_regret,
                c.random_regret
            );
        }
        out
    }
}

/// The depths [`probcut_bench`] measures.
const PROBCUT_DEPTHS: RangeInclusive<u32> = 1..=6;

/// One number of empties of [`probcut_bench`]: per depth of `PROBCUT_DEPTHS`, the
/// mean and standard deviation of (exact score - search value), in discs.
#[derive(Clone, Debug)]
pub struct ProbcutRow {
    /// The empties.
    pub empties: u32,
    /// Per depth.
    pub errors: Vec<(f64, f64)>,
}

impl ProbcutRow {
    /// The heading above the rows, for `positions` positions of seed `seed`.
    pub fn heading(positions: usize, seed: u64) -> String {
        let header: Vec<String> = PROBCUT_DEPTHS
            .map(|d| format!("{:>13}", format!("depth {d}")))
            .collect();
        format!(
            "exact score - shallow search with the pattern evaluation, in discs: {positions} self-play positions \
             at each number of empties (seed {seed})\n  (mean and standard deviation per search depth)\n  {:>7}  {}",
            "empties",
            header.join("  ")
        )
    }

    /// The row as `bench probcut` prints it.
    pub fn text(&self) -> String {
        let cells: Vec<String> = self
            .errors
            .iter()
            .map(|(mean, sd)| format!("{:>13}", format!("{mean:+.2} {sd:.2}")))
            .collect();
        format!("  {:>7}  {}", self.empties, cells.join("  "))
    }
}

/// The error of shallow searches against exact scores, empties by empties (`positions`
/// self-play positions of seed `seed` each): what the solver's selective passes assume
/// when a shallow search cuts a node. Each row goes to `each` as it is measured; an
/// `Err` names the empties where self-play found fewer than 2 positions, and how many.
pub fn probcut_bench(
    positions: usize,
    empties: RangeInclusive<u32>,
    seed: u64,
    each: &mut dyn FnMut(&ProbcutRow),
) -> Result<(), (u32, usize)> {
    let pattern = shipped_weights();
    for e in empties {
        let solved = solve_all(&self_play_positions(positions, e..=e, seed));
        let mut errors = Vec::new();
        for depth in PROBCUT_DEPTHS {
            let diffs: Vec<f64> = solved
                .iter()
                .map(|s| {
                    let value = search_value(pattern, s.board.player(), s.board.opponent(), depth, &mut 0);
                    f64::from(s.score) - f64::from(value) / f64::from(SCALE)
                })
                .collect();
            errors.push(mean_and_sd(&diffs).ok_or((e, diffs.len()))?);
        }
        each(&ProbcutRow { empties: e, errors });
    }
    Ok(())
}
