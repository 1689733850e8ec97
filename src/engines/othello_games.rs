//! Othello's engines through [`Engines`]: spec strings, the factory and the reference.

use game::othello::{Board, Move};
use game::Othello;

use std::io::{BufRead, Write};

use crate::{Decision, Engine, EngineError, EngineSpec, Engines, GameEngine, Human, MoveScores, Reference};

impl Engines for Othello {
    type Spec = EngineSpec;
    type Decision = Decision;
    const DEFAULT_OPPONENTS: &'static str = "n-hand:3,n-least:3,n-most:3,random";
    fn engine(spec: &EngineSpec, seed: u64) -> Box<dyn GameEngine<Othello>> {
        Box::new(spec.build(seed))
    }

    fn is_human(spec: &EngineSpec) -> bool {
        *spec == EngineSpec::Human
    }

    fn person(input: Box<dyn BufRead + Send>, output: Box<dyn Write + Send>) -> Option<Box<dyn GameEngine<Othello>>> {
        let person: Box<dyn Engine> = Box::new(Human::new(input, output));
        Some(Box::new(person))
    }

    fn decision_move(decision: &Decision) -> Move {
        decision.mv
    }

    type Reference = Reference;

    fn reference(exact_empties: u32, depth: u32) -> Reference {
        Reference::new(exact_empties, depth)
    }

    fn score_moves(reference: &mut Reference, position: &Board) -> MoveScores {
        reference.score_moves(position)
    }

    /// Ten discs: a move that gives away a corner or a whole edge.
    const BLUNDER: f64 = 10.0;

    fn describe_reference(exact_empties: u32, depth: u32) -> String {
        let calibration = if depth == crate::DEFAULT_DEPTH {
            format!(
                "estimated regrets lie {:.1} discs from exact ones on average where both exist",
                crate::ESTIMATED_REGRET_ERROR
            )
        } else {
            format!("calibrated at depth {} only", crate::DEFAULT_DEPTH)
        };
        format!(
            "exact at {exact_empties} or fewer empty squares, else estimated by a {depth}-ply search over the pattern evaluation ({calibration})"
        )
    }
}

impl GameEngine<Othello> for Box<dyn Engine> {
    fn name(&self) -> String {
        Engine::name(self.as_ref())
    }

    fn choose(&mut self, position: &Board) -> Result<Decision, EngineError> {
        Engine::choose(self.as_mut(), position)
    }
}
