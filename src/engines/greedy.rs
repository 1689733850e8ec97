//! `greedy`: seed 001's one-ply AI, as shipped in the public web build.
//!
//! For each legal move the score is
//! ```text
//! 4 * W[sq] + (all discs after) + 3 * (mine - theirs) - 2 * (opponent's legal moves after) + (40 if a corner)
//! ```
//! and the first maximum in row-major order wins.

use super::weights::weight;
use super::{Candidate, Decision, Engine, EngineError, ScoreUnit};
use game::othello::{Board, Move};

/// Seed 001's one-ply AI. Deterministic.
#[derive(Clone, Copy, Debug, Default)]
pub struct Greedy;

impl Greedy {
    /// The score of every legal move, in row-major order.
    pub fn evaluate(board: &Board) -> Vec<Candidate> {
        let me = board.side_to_move();
        board
            .legal_moves()
            .squares()
            .map(|square| {
                let after = board.play_unchecked(Move::Place(square));
                let (mine, theirs) = (after.count(me) as i32, after.count(!me) as i32);
                let corner = matches!((square.row(), square.col()), (0 | 7, 0 | 7));
                let score = 4 * weight(square) + (mine + theirs) + 3 * (mine - theirs) - 2 * after.mobility(!me) as i32
                    + if corner { 40 } else { 0 };
                Candidate {
                    square,
                    value: f64::from(score),
                }
            })
            .collect()
    }
}

impl Engine for Greedy {
    fn name(&self) -> String {
        "greedy".to_string()
    }

    fn decide(&mut self, board: &Board) -> Result<Decision, EngineError> {
        let candidates = Greedy::evaluate(board);
        let mut best: Option<&Candidate> = None;
        for c in &candidates {
            if best.is_none_or(|b| c.value > b.value) {
                best = Some(c);
            }
        }
        let Some(best) = best.cloned() else {
            return Ok(Decision::bare(Move::Pass));
        };
        Ok(Decision {
            mv: Move::Place(best.square),
            score: Some(best.value),
            nodes: candidates.len() as u64,
            candidates,
            unit: Some(ScoreUnit::higher("greedy points")),
        })
    }
}
