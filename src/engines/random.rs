//! `random`: a uniform choice among the legal moves.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use super::{pick_tied, Decision, Engine, EngineError};
use game::othello::{Board, Move, Square};

/// Plays a uniformly random legal move from a seeded generator.
pub struct Random {
    rng: ChaCha8Rng,
}

impl Random {
    /// A random player whose choices are fixed by `seed`.
    pub fn new(seed: u64) -> Random {
        Random {
            rng: ChaCha8Rng::seed_from_u64(seed),
        }
    }
}

impl Engine for Random {
    fn name(&self) -> String {
        "random".to_string()
    }

    fn decide(&mut self, board: &Board) -> Result<Decision, EngineError> {
        let moves: Vec<Square> = board.legal_moves().squares().collect();
        Ok(Decision::bare(Move::Place(pick_tied(&moves, &mut self.rng))))
    }
}
