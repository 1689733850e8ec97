//! Marubatsu's engines through [`Engines`]: spec strings, the factory and the perfect
//! player as the reference.

use game::marubatsu::{Board, Move};
use game::{Marubatsu, Rules};

use crate::marubatsu::{MarubatsuEngine, MarubatsuSpec, Perfect};
use crate::{EngineError, Engines, GameEngine, MoveScores};

impl Engines for Marubatsu {
    type Spec = MarubatsuSpec;
    type Decision = Move;
    const DEFAULT_OPPONENTS: &'static str = "ai2,ai8s,perfect";
    fn engine(spec: &MarubatsuSpec, seed: u64) -> Box<dyn GameEngine<Marubatsu>> {
        Box::new(Engine(spec.build(seed)))
    }

    fn is_human(_spec: &MarubatsuSpec) -> bool {
        false
    }

    fn decision_move(decision: &Move) -> Move {
        *decision
    }

    /// The perfect player needs no state: every score is exact.
    type Reference = ();

    fn reference(_exact_empties: u32, _depth: u32) {}

    /// The game value of each move (1 a win, 0 a draw, -1 a loss), solved exactly.
    fn score_moves(_reference: &mut (), position: &Board) -> MoveScores {
        MoveScores {
            scores: Perfect::score_moves(position)
                .into_iter()
                .filter_map(|(mv, value)| Some((Marubatsu::coordinate(mv)?, f64::from(value))))
                .collect(),
            exact: true,
            depth: position.empties(),
        }
    }

    /// Any lost value: a drawn game thrown away, or a won one drawn.
    const BLUNDER: f64 = 1.0;

    fn describe_reference(_exact_empties: u32, _depth: u32) -> String {
        "the perfect player, every score exact: 1 a win, 0 a draw, -1 a loss".to_string()
    }
}

/// A marubatsu engine as the arena calls it.
struct Engine(Box<dyn MarubatsuEngine + Send>);

impl GameEngine<Marubatsu> for Engine {
    fn name(&self) -> String {
        self.0.name()
    }

    fn choose(&mut self, position: &Board) -> Result<Move, EngineError> {
        Ok(self.0.choose(position))
    }
}
