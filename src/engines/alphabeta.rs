//! `alphabeta:D[:weight|count]`: seed 004's fail-hard alpha-beta, exactly as written.
//!
//! The root tries each legal move in index order with a full window and keeps the
//! first strict maximum. Below it, `search` counts one node per call, returns the
//! evaluation at depth 0, scores a finished game as 100 times the evaluation, lets a
//! pass consume one ply, and returns `alpha` (fail-hard). The evaluation is the sum
//! of the square weights (or of the discs, with `count`) of the side to move minus
//! the opponent's. Reproducing this shape reproduces seed 004's node counts.

use super::weights::weighted_sum;
use super::{Candidate, Decision, Engine, EngineError, ScoreUnit};
use game::othello::bitboard::{flips, legal_moves};
use game::othello::{Bitboard, Board, Move};

/// Seed 004's two ways to score a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Evaluation {
    /// Sum of square weights (own minus opponent's).
    Weight,
    /// Disc count (own minus opponent's).
    Count,
}

impl Evaluation {
    /// The spec suffix.
    pub fn name(self) -> &'static str {
        match self {
            Evaluation::Weight => "weight",
            Evaluation::Count => "count",
        }
    }

    fn score(self, player: u64, opponent: u64) -> i64 {
        match self {
            Evaluation::Weight => i64::from(weighted_sum(player) - weighted_sum(opponent)),
            Evaluation::Count => i64::from(player.count_ones()) - i64::from(opponent.count_ones()),
        }
    }
}

/// Stands in for JavaScript's `Infinity`: larger than any score (at most 100 * 1000).
const INFINITY: i64 = 1 << 40;

/// Seed 004's alpha-beta player. Deterministic.
#[derive(Clone, Debug)]
pub struct AlphaBeta {
    depth: u32,
    evaluation: Evaluation,
    nodes: u64,
}

impl AlphaBeta {
    /// A player searching `depth` plies (at least 1) with `evaluation`.
    pub fn new(depth: u32, evaluation: Evaluation) -> AlphaBeta {
        AlphaBeta {
            depth: depth.max(1),
            evaluation,
            nodes: 0,
        }
    }

    fn search(&mut self, player: u64, opponent: u64, depth: u32, mut alpha: i64, beta: i64) -> i64 {
        self.nodes += 1;
        let moves = legal_moves(player, opponent);
        if depth == 0 {
            return self.evaluation.score(player, opponent);
        }
        if moves == 0 {
            if legal_moves(opponent, player) == 0 {
                return self.evaluation.score(player, opponent) * 100;
            }
            return -self.search(opponent, player, depth - 1, -beta, -alpha);
        }
        for square in Bitboard(moves) {
            let flipped = flips(player, opponent, square);
            let child_player = opponent & !flipped;
            let child_opponent = player | flipped | square.bit();
            let score = -self.search(child_player, child_opponent, depth - 1, -beta, -alpha);
            if score > alpha {
                alpha = score;
            }
            if alpha >= beta {
                break;
            }
        }
        alpha
    }
}

impl Engine for AlphaBeta {
    fn name(&self) -> String {
        format!("alphabeta:{}:{}", self.depth, self.evaluation.name())
    }

    fn decide(&mut self, board: &Board) -> Result<Decision, EngineError> {
        self.nodes = 0;
        let (player, opponent) = (board.player(), board.opponent());
        let mut best: Option<Candidate> = None;
        let mut candidates = Vec::new();
        for square in board.legal_moves() {
            let flipped = flips(player, opponent, square);
            let score = -self.search(
                opponent & !flipped,
                player | flipped | square.bit(),
                self.depth - 1,
                -INFINITY,
                INFINITY,
            );
            let candidate = Candidate {
                square,
                value: score as f64,
            };
            if best.as_ref().is_none_or(|b| candidate.value > b.value) {
                best = Some(candidate.clone());
            }
            candidates.push(candidate);
        }
        let Some(best) = best else {
            return Ok(Decision::bare(Move::Pass));
        };
        Ok(Decision {
            mv: Move::Place(best.square),
            score: Some(best.value),
            nodes: self.nodes,
            candidates,
            unit: Some(ScoreUnit::higher(match self.evaluation {
                Evaluation::Weight => "square-weight points",
                Evaluation::Count => "discs (x100 for a finished game)",
            })),
        })
    }
}
