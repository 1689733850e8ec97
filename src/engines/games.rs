//! The engines of each game, seen through one trait: spec strings, the engine factory,
//! and the reference that scores moves for move quality.

use std::fmt::{Debug, Display};
use std::io::{BufRead, Write};
use std::str::FromStr;

use game::{Game, Marubatsu, Othello, Rules};

use crate::{EngineError, MoveScores};

/// A game's classical players and its reference, on top of its [`Rules`].
pub trait Engines: Rules {
    /// An engine spec (`greedy`, `ai8s` ...): parsed from the command line, shown in logs.
    type Spec: Clone + Debug + Display + FromStr<Err: Display> + PartialEq + Send + Sync + 'static;
    /// What an engine says about its move (the move, and its score where it has one).
    type Decision: Debug + Send + 'static;
    /// The opponents an evaluation meets when none are given (comma-separated specs).
    const DEFAULT_OPPONENTS: &'static str;

    /// Builds the engine `spec` names; `seed` fixes its random choices.
    fn engine(spec: &Self::Spec, seed: u64) -> Box<dyn GameEngine<Self>>;
    /// Whether `spec` is a person (asked at the terminal).
    fn is_human(spec: &Self::Spec) -> bool;
    /// A person playing at a terminal: moves read from `input`, prompts written to
    /// `output` (the caller opens them: this crate does no I/O). `None` where the game
    /// has no person to play it.
    fn person(input: Box<dyn BufRead + Send>, output: Box<dyn Write + Send>) -> Option<Box<dyn GameEngine<Self>>> {
        let _ = (input, output);
        None
    }
    /// The move an engine's decision plays.
    fn decision_move(decision: &Self::Decision) -> Self::Move;

    /// What scores moves for move quality: Othello's reference evaluator, marubatsu's
    /// perfect player.
    type Reference: Send;
    /// The reference, exact at `exact_empties` or fewer empty squares and searching
    /// `depth` plies before that (games solved outright ignore both).
    fn reference(exact_empties: u32, depth: u32) -> Self::Reference;
    /// Each legal move's score for the mover by the reference, on grid coordinates.
    fn score_moves(reference: &mut Self::Reference, position: &Self::Position) -> MoveScores;
    /// The regret from which a move is a blunder, in the game's unit.
    const BLUNDER: f64;
    /// How the reference scores moves, in a sentence.
    fn describe_reference(exact_empties: u32, depth: u32) -> String;
}

/// An engine of game `R`: picks a move where the side to move has a choice.
pub trait GameEngine<R: Engines>: Send {
    /// The spec string this engine was built from.
    fn name(&self) -> String;
    /// The engine's move in `position` (not over; the side to move has a legal move,
    /// or for Othello must pass).
    fn choose(&mut self, position: &R::Position) -> Result<R::Decision, EngineError>;
}

/// An engine spec of `game` in the canonical form its logs write, or why it is no spec
/// of the game.
pub fn canonical_spec(game: Game, text: &str) -> Result<String, String> {
    fn canonical<R: Engines>(text: &str) -> Result<String, String> {
        text.parse::<R::Spec>()
            .map(|s| s.to_string())
            .map_err(|e| e.to_string())
    }
    match game {
        Game::Othello => canonical::<Othello>(text),
        Game::Marubatsu => canonical::<Marubatsu>(text),
    }
}
