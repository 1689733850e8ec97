//! The reference evaluator that move-quality figures are measured against: it scores
//! every legal move of a position in final-disc-difference units.
//!
//! With at most `exact_empties` empty squares each move is solved exactly by the
//! [`Solver`] (empties to the winner). Earlier, each move is searched by negamax
//! alpha-beta, deepening one ply at a time to `depth` (or until a time limit), and the
//! leaves are scored by [`evaluate`]: a linear function of seven features (discs,
//! mobility, potential mobility, corners, X- and C-squares next to empty corners,
//! stable discs) whose weights were fitted by least squares to exact scores of
//! self-play positions (`cargo test --release --test reference -- --ignored
//! --nocapture` refits them and prints the fit). Those scores are estimates and are
//! always flagged as such ([`MoveScores::exact`]).

use std::time::{Duration, Instant};

use super::solver::Solver;
use super::{Candidate, Decision, Engine, EngineError};
use crate::othello::bitboard::{adjacent, flips, legal_moves, stable_discs};
use crate::othello::{Bitboard, Board, Move, Square};

/// Corner squares.
const CORNERS: u64 = 0x8100_0000_0000_0081;
/// X-squares (diagonal to a corner), in the order of [`CORNER_LIST`].
const X_SQUARES: [u64; 4] = [1 << 9, 1 << 14, 1 << 49, 1 << 54];
/// C-squares (beside a corner on the edge), in the order of [`CORNER_LIST`].
const C_SQUARES: [u64; 4] = [
    (1 << 1) | (1 << 8),
    (1 << 6) | (1 << 15),
    (1 << 48) | (1 << 57),
    (1 << 55) | (1 << 62),
];
/// The corners one by one: a1, h1, a8, h8.
const CORNER_LIST: [u64; 4] = [1, 1 << 7, 1 << 56, 1 << 63];

/// Number of evaluation features.
pub const FEATURES: usize = 7;

/// Weights of [`features`], fitted to exact scores (see the module docs).
pub const EVAL_WEIGHTS: [f64; FEATURES] = [-0.62, 3.55, -0.66, 6.54, -4.52, -2.61, 1.32];

/// Empty squares next to a disc of `bits`.
fn frontier(bits: u64, empty: u64) -> u64 {
    adjacent(bits) & empty
}

/// The evaluation features for the side to move, each as (own - opponent's).
pub fn features(player: u64, opponent: u64) -> [f64; FEATURES] {
    let empty = !(player | opponent);
    let count = |bits: u64| f64::from(bits.count_ones());
    let diff = |f: &dyn Fn(u64, u64) -> u64| count(f(player, opponent)) - count(f(opponent, player));
    let near_empty_corner = |own: u64, squares: &[u64; 4]| {
        CORNER_LIST
            .iter()
            .zip(squares)
            .filter(|(corner, _)| *corner & empty != 0)
            .map(|(_, sq)| (sq & own).count_ones())
            .sum::<u32>()
    };
    [
        count(player) - count(opponent),
        diff(&|p, o| legal_moves(p, o)),
        // Potential mobility: empty squares next to the opponent's discs.
        diff(&|p, o| frontier(o, !(p | o))),
        count(player & CORNERS) - count(opponent & CORNERS),
        f64::from(near_empty_corner(player, &X_SQUARES)) - f64::from(near_empty_corner(opponent, &X_SQUARES)),
        f64::from(near_empty_corner(player, &C_SQUARES)) - f64::from(near_empty_corner(opponent, &C_SQUARES)),
        diff(&|p, o| stable_discs(p, o)),
    ]
}

/// The heuristic value of a position for the side to move, in discs.
pub fn evaluate(player: u64, opponent: u64) -> f64 {
    features(player, opponent)
        .iter()
        .zip(EVAL_WEIGHTS)
        .map(|(f, w)| f * w)
        .sum()
}

/// Every legal move of a position with its score.
#[derive(Clone, Debug, PartialEq)]
pub struct MoveScores {
    /// Each legal move and its score (final disc difference for the mover), row-major.
    pub scores: Vec<(Square, f64)>,
    /// Solved exactly (true) or estimated by the depth-limited search (false).
    pub exact: bool,
    /// Search depth in plies (the number of empties when exact).
    pub depth: u32,
}

impl MoveScores {
    /// The best score (`None` without legal moves).
    pub fn best(&self) -> Option<f64> {
        self.scores.iter().map(|&(_, s)| s).reduce(f64::max)
    }

    /// Every move with the best score.
    pub fn best_moves(&self) -> Vec<Square> {
        let best = self.best();
        self.scores
            .iter()
            .filter(|&&(_, s)| Some(s) == best)
            .map(|&(sq, _)| sq)
            .collect()
    }

    /// The score of `square`, if it is a legal move.
    pub fn score_of(&self, square: Square) -> Option<f64> {
        self.scores.iter().find(|&&(sq, _)| sq == square).map(|&(_, s)| s)
    }

    /// Best score minus the score of `square` (0 for a best move), if it is legal.
    pub fn regret(&self, square: Square) -> Option<f64> {
        Some(self.best()? - self.score_of(square)?)
    }
}

/// The reference evaluator: exact at or below `exact_empties`, else iterative
/// deepening to `depth` plies, stopping early (at the last finished depth) once
/// `time_limit` is spent.
pub struct Reference {
    /// Positions with at most this many empties are solved exactly.
    pub exact_empties: u32,
    /// Deepest search for earlier positions.
    pub depth: u32,
    /// No new depth starts after this much time on one position.
    pub time_limit: Option<Duration>,
    solver: Solver,
    nodes: u64,
}

impl Default for Reference {
    fn default() -> Self {
        Reference::new(DEFAULT_EXACT_EMPTIES, DEFAULT_DEPTH)
    }
}

/// Positions with this many empties or fewer are solved by default.
pub const DEFAULT_EXACT_EMPTIES: u32 = 18;
/// Default search depth before that.
pub const DEFAULT_DEPTH: u32 = 8;

/// Final disc difference for the side to move, empties to the winner.
fn final_score(player: u64, opponent: u64) -> f64 {
    let (p, o) = (f64::from(player.count_ones()), f64::from(opponent.count_ones()));
    let empties = 64.0 - p - o;
    (p - o) + (p - o).signum() * empties
}

impl Reference {
    /// An evaluator that solves at `exact_empties` or fewer and searches `depth` plies before.
    pub fn new(exact_empties: u32, depth: u32) -> Reference {
        Reference {
            exact_empties,
            depth: depth.max(1),
            time_limit: None,
            solver: Solver::new(),
            nodes: 0,
        }
    }

    /// Scores every legal move of `board` for the side to move.
    pub fn score_moves(&mut self, board: &Board) -> MoveScores {
        self.nodes = 0;
        if board.empties() <= self.exact_empties {
            let scores = board
                .legal_moves()
                .squares()
                .map(|square| {
                    let solved = self.solver.solve(&board.play(Move::Place(square)));
                    self.nodes += solved.nodes;
                    (square, f64::from(-solved.score))
                })
                .collect();
            return MoveScores {
                scores,
                exact: true,
                depth: board.empties(),
            };
        }
        let (player, opponent) = (board.player(), board.opponent());
        let children: Vec<(Square, u64, u64)> = Bitboard(legal_moves(player, opponent))
            .squares()
            .map(|square| {
                let f = flips(player, opponent, square);
                (square, opponent & !f, player | f | square.bit())
            })
            .collect();
        let start = Instant::now();
        let mut scores = Vec::new();
        let mut depth = 0;
        for d in 1..=self.depth {
            let nodes = &mut self.nodes;
            scores = children
                .iter()
                .map(|&(square, p, o)| {
                    let score = -negamax(p, o, d - 1, -f64::INFINITY, f64::INFINITY, false, nodes);
                    // Hundredths of a disc: finer digits are noise of the weights' sums.
                    (square, (score * 100.0).round() / 100.0 + 0.0)
                })
                .collect();
            depth = d;
            if self.time_limit.is_some_and(|limit| start.elapsed() >= limit) {
                break;
            }
        }
        MoveScores {
            scores,
            exact: false,
            depth,
        }
    }
}

/// The value of a position for its side to move by a `depth`-ply search over
/// [`evaluate`] (game ends score exactly); the solver orders moves with it.
pub(crate) fn search_value(player: u64, opponent: u64, depth: u32) -> f64 {
    negamax(player, opponent, depth, f64::NEG_INFINITY, f64::INFINITY, false, &mut 0)
}

/// Depth-limited negamax alpha-beta over [`evaluate`]; game ends score exactly.
fn negamax(player: u64, opponent: u64, depth: u32, mut alpha: f64, beta: f64, passed: bool, nodes: &mut u64) -> f64 {
    *nodes += 1;
    let moves = legal_moves(player, opponent);
    if moves == 0 {
        if passed || legal_moves(opponent, player) == 0 {
            return final_score(player, opponent);
        }
        return -negamax(opponent, player, depth, -beta, -alpha, true, nodes);
    }
    if depth == 0 {
        return evaluate(player, opponent);
    }
    // Corners first, then by the opponent's replies, fewest first (on the stack: no
    // position has more than 33 legal moves).
    let mut ordered = [(0u32, 0u64, 0u64); 36];
    let mut count = 0;
    for square in Bitboard(moves) {
        let f = flips(player, opponent, square);
        let (p, o) = (opponent & !f, player | f | square.bit());
        let corner_first = if square.bit() & CORNERS != 0 { 0 } else { 32 };
        ordered[count] = (legal_moves(p, o).count_ones() + corner_first, p, o);
        count += 1;
    }
    ordered[..count].sort_unstable_by_key(|&(key, p, _)| (key, p));
    let mut best = -f64::INFINITY;
    for &(_, p, o) in &ordered[..count] {
        let value = -negamax(p, o, depth - 1, -beta, -alpha, false, nodes);
        best = best.max(value);
        alpha = alpha.max(value);
        if alpha >= beta {
            break;
        }
    }
    best
}

impl Engine for Reference {
    fn name(&self) -> String {
        format!("reference:{}:{}", self.depth, self.exact_empties)
    }

    /// The first best move in row-major order; every move's score as a candidate.
    fn decide(&mut self, board: &Board) -> Result<Decision, EngineError> {
        let scores = self.score_moves(board);
        let Some(&best) = scores.best_moves().first() else {
            return Ok(Decision::bare(Move::Pass));
        };
        Ok(Decision {
            mv: Move::Place(best),
            score: scores.best(),
            nodes: self.nodes,
            candidates: scores
                .scores
                .iter()
                .map(|&(square, value)| Candidate { square, value })
                .collect(),
        })
    }
}
