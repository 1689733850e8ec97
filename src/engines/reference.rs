//! The reference evaluator that move-quality figures are measured against: it scores
//! every legal move of a position in final-disc-difference units.
//!
//! With at most `exact_empties` empty squares each move is solved exactly by the
//! [`Solver`] (empties to the winner). Earlier, each move is searched by negamax
//! alpha-beta, deepening one ply at a time to `depth` (or until a time limit), and the
//! leaves are scored by the pattern evaluation ([`super::pattern`]), trained on
//! positions labelled by the solver and by search. Those scores are estimates and are
//! always flagged as such ([`MoveScores::exact`]).

use std::time::{Duration, Instant};

use super::midgame::{search_value, Evaluator};
use super::pattern::{self, SCALE};
use super::solver::Solver;
use super::{Candidate, Decision, Engine, EngineError, ScoreUnit};
use game::othello::bitboard::{flips, legal_moves};
use game::othello::{Bitboard, Board, Move, Square};

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
    evaluator: &'static dyn Evaluator,
    solver: Solver,
    nodes: u64,
}

impl Default for Reference {
    fn default() -> Self {
        Reference::new(DEFAULT_EXACT_EMPTIES, DEFAULT_DEPTH)
    }
}

/// Positions with this many empties or fewer are solved by default.
pub const DEFAULT_EXACT_EMPTIES: u32 = 20;
/// Default search depth before that.
pub const DEFAULT_DEPTH: u32 = 8;

/// How far estimated regrets lie from exact ones at [`DEFAULT_DEPTH`]: the mean
/// |estimated - exact regret| in discs (each position's moves averaged, then the 40
/// self-play positions at 21-23 empties, the three just beyond
/// [`DEFAULT_EXACT_EMPTIES`]; 95% interval 4.09-6.48; `othello-arena bench eval`,
/// docs/engines.md).
pub const ESTIMATED_REGRET_ERROR: f64 = 5.29;

impl Reference {
    /// An evaluator that solves at `exact_empties` or fewer and searches `depth` plies before.
    pub fn new(exact_empties: u32, depth: u32) -> Reference {
        Reference {
            exact_empties,
            depth: depth.max(1),
            time_limit: None,
            evaluator: pattern::shipped_weights(),
            solver: Solver::new(),
            nodes: 0,
        }
    }

    /// The same evaluator searching over `evaluator` instead of the shipped pattern
    /// evaluation (to measure one evaluation against another).
    pub fn with_evaluator(self, evaluator: &'static dyn Evaluator) -> Reference {
        Reference { evaluator, ..self }
    }

    /// Scores every legal move of `board` for the side to move.
    pub fn score_moves(&mut self, board: &Board) -> MoveScores {
        self.nodes = 0;
        if board.empties() <= self.exact_empties {
            let scores = board
                .legal_moves()
                .squares()
                .map(|square| {
                    let (score, nodes) = self.solver.score(&board.play(Move::Place(square)));
                    self.nodes += nodes;
                    (square, f64::from(-score))
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
            let (nodes, evaluator) = (&mut self.nodes, self.evaluator);
            scores = children
                .iter()
                .map(|&(square, p, o)| {
                    let score = -search_value(evaluator, p, o, d - 1, nodes);
                    // Hundredths of a disc: finer digits are noise of the weights' sums.
                    let discs = f64::from(score) / f64::from(SCALE);
                    (square, (discs * 100.0).round() / 100.0 + 0.0)
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
            unit: Some(ScoreUnit::higher("discs of final margin")),
        })
    }
}
