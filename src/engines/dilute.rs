//! `dilute:P:ENGINE`: an engine diluted with random moves, as Tom Murphy VII's "Elo
//! World" dilutes Stockfish: before each decision a seeded draw plays a uniformly
//! random legal move with probability P percent, else ENGINE's move. P = 100 is
//! `random`, P = 0 is ENGINE, and the strength in between moves smoothly with P, so
//! one family gives opponents (and calibration rungs) at any strength between them.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::{pick_tied, Decision, Engine, EngineError};
use game::othello::{Board, Move, Square};

/// Keeps the dilution's draws apart from the base engine's own seeded choices.
const DRAW_STREAM: u64 = 0x6469_6c75_7465;

/// An engine that plays a random legal move on a share of its decisions.
pub struct Dilute {
    name: String,
    random_percent: u32,
    base: Box<dyn Engine>,
    rng: ChaCha8Rng,
}

impl Dilute {
    /// `base` diluted with random moves on `random_percent` percent of its decisions
    /// (at most 100); `name` is the spec it was built from; `seed` fixes the draws.
    pub fn new(name: String, random_percent: u32, base: Box<dyn Engine>, seed: u64) -> Dilute {
        Dilute {
            name,
            random_percent: random_percent.min(100),
            base,
            rng: ChaCha8Rng::seed_from_u64(seed ^ DRAW_STREAM),
        }
    }
}

impl Engine for Dilute {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn decide(&mut self, board: &Board) -> Result<Decision, EngineError> {
        // One draw per decision, whatever the outcome, so the stream of draws does not
        // depend on the base engine.
        let draw: u32 = self.rng.gen_range(0..100);
        if draw < self.random_percent {
            let moves: Vec<Square> = board.legal_moves().squares().collect();
            return Ok(Decision::bare(Move::Place(pick_tied(&moves, &mut self.rng))));
        }
        self.base.decide(board)
    }
}
