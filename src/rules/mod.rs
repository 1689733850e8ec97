//! The game a run plays, seen through one small trait: the arena, the players, the
//! agent and the logs work over any [`Rules`], and each game keeps its rules and
//! engines in its own module (`othello`, `marubatsu`). Both are two-player games in
//! which the first player is [`Color::Black`] and the second [`Color::White`].

mod marubatsu;
mod othello;

use std::fmt::{Debug, Display};
use std::str::FromStr;

pub use self::marubatsu::Marubatsu;
pub use self::othello::Othello;
use crate::engine::EngineError;
use crate::othello::{Bitboard, ByColor, Color, Outcome, Square, TextStyle};
use crate::tools::Tool;

/// A game's rules, positions, moves and engines, for the shared parts of the harness.
pub trait Rules: Copy + Debug + Default + Send + Sync + 'static {
    /// The game's name in `--game` and in logs.
    const NAME: &'static str;
    /// A position with its side to move.
    type Position: Copy + Debug + PartialEq + Send + Sync + 'static;
    /// A move, written and read in the game's notation.
    type Move: Copy + Debug + Display + Eq + FromStr + Send + Sync + 'static;
    /// Why a move was refused (it names the move and the legal ones).
    type Illegal: std::error::Error + Send + Sync + 'static;
    /// An engine spec (`greedy`, `ai8s` ...): parsed from the command line, shown in logs.
    type Spec: Clone + Debug + Display + FromStr<Err: Display> + PartialEq + Send + Sync + 'static;
    /// What an engine says about its move (the move, and its score where it has one).
    type Decision: Debug + Send + 'static;

    /// The start position.
    fn start() -> Self::Position;
    /// The side to move.
    fn to_move(position: &Self::Position) -> Color;
    /// The moves the side to move may choose among (empty when it must pass or the
    /// game is over).
    fn legal_moves(position: &Self::Position) -> Vec<Self::Move>;
    /// The move played without asking anyone, when the side to move has no choice
    /// but to pass (Othello's pass); `None` when it has a choice or the game is over.
    fn forced_move(position: &Self::Position) -> Option<Self::Move>;
    /// The position after `mv`, or why it is refused.
    fn play(position: &Self::Position, mv: Self::Move) -> Result<Self::Position, Self::Illegal>;
    /// Whether the game is over.
    fn is_over(position: &Self::Position) -> bool;
    /// The result of a finished game.
    fn outcome(position: &Self::Position) -> Outcome;
    /// The first player's margin at the end in the game's own unit (discs for
    /// Othello; 1, 0 or -1 for a game won, drawn or lost).
    fn margin(position: &Self::Position) -> i32;
    /// The margin a forfeit is scored as, for the winner.
    const FORFEIT_MARGIN: i32;
    /// What the margin counts, for table headers ("disc diff").
    const MARGIN: &'static str;
    /// Each side's pieces on the board (discs, marks), for the log.
    fn pieces(position: &Self::Position) -> ByColor<u32>;
    /// The position as one line of square characters, for the log.
    fn to_squares(position: &Self::Position) -> String;
    /// Reads [`Rules::to_squares`] back, with the side to move.
    fn parse_squares(text: &str, to_move: Color) -> Result<Self::Position, String>;

    /// The opponents an evaluation meets when none are given (comma-separated specs).
    const DEFAULT_OPPONENTS: &'static str;

    /// Builds the engine `spec` names; `seed` fixes its random choices.
    fn engine(spec: &Self::Spec, seed: u64) -> Box<dyn GameEngine<Self>>;
    /// Whether `spec` is a person (asked at the terminal).
    fn is_human(spec: &Self::Spec) -> bool;
    /// The move an engine's decision plays.
    fn decision_move(decision: &Self::Decision) -> Self::Move;

    /// The game's `simulate_move` tool for the agent.
    type Simulate: Tool<Position = Self::Position>;
    /// The tool, writing boards in `style`.
    fn simulate_tool(style: TextStyle) -> Self::Simulate;
    /// The position as the model reads it: the board, the side to move, the legal moves.
    fn model_text(position: &Self::Position, style: TextStyle) -> String;
    /// A side's name in prompts (`{color}` in a user template).
    fn side_name(color: Color) -> &'static str;
    /// A move's coordinate (a column letter, a row digit) on the 8x8 grid the answer
    /// parser reads; `None` for a move without one (a pass).
    fn coordinate(mv: Self::Move) -> Option<Square>;
    /// The move at a grid coordinate, when the board has that square.
    fn at_coordinate(square: Square) -> Option<Self::Move>;
    /// Every square of the board, as grid coordinates.
    fn board_coordinates() -> Bitboard;

    /// The legal moves as grid coordinates.
    fn legal_coordinates(position: &Self::Position) -> Bitboard {
        Self::legal_moves(position)
            .into_iter()
            .filter_map(Self::coordinate)
            .fold(Bitboard::EMPTY, |set, square| Bitboard(set.0 | square.bit()))
    }
}

/// An engine of game `R`: picks a move where the side to move has a choice.
pub trait GameEngine<R: Rules>: Send {
    /// The spec string this engine was built from.
    fn name(&self) -> String;
    /// The engine's move in `position` (not over; the side to move has a legal move,
    /// or for Othello must pass).
    fn choose(&mut self, position: &R::Position) -> Result<R::Decision, EngineError>;
}

/// A game from its start: the moves played and the position reached. Every move is
/// checked, so a line is always legal.
#[derive(Clone, Debug, PartialEq)]
pub struct Line<R: Rules = Othello> {
    start: R::Position,
    moves: Vec<R::Move>,
    position: R::Position,
}

impl<R: Rules> Line<R> {
    /// A line starting at `start`.
    pub fn new(start: R::Position) -> Line<R> {
        Line {
            start,
            moves: Vec::new(),
            position: start,
        }
    }

    /// The position the line started from.
    pub fn start(&self) -> &R::Position {
        &self.start
    }

    /// The current position.
    pub fn board(&self) -> &R::Position {
        &self.position
    }

    /// The moves played so far.
    pub fn moves(&self) -> &[R::Move] {
        &self.moves
    }

    /// Plays `mv` if it is legal in the current position.
    pub fn try_play(&mut self, mv: R::Move) -> Result<(), R::Illegal> {
        self.position = R::play(&self.position, mv)?;
        self.moves.push(mv);
        Ok(())
    }

    /// Whether the game is over.
    pub fn is_over(&self) -> bool {
        R::is_over(&self.position)
    }
}

impl<R: Rules> Default for Line<R> {
    fn default() -> Self {
        Line::new(R::start())
    }
}

/// The games the harness plays, by name (`--game`, a log's `rules`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Game {
    /// [`Othello`], the default.
    Othello,
    /// [`Marubatsu`], seed 003's tic-tac-toe.
    Marubatsu,
}

impl FromStr for Game {
    type Err = String;

    fn from_str(text: &str) -> Result<Game, String> {
        match text.trim() {
            Othello::NAME => Ok(Game::Othello),
            Marubatsu::NAME => Ok(Game::Marubatsu),
            other => Err(format!(
                "unknown game {other:?}: this build plays {} and {}",
                Othello::NAME,
                Marubatsu::NAME
            )),
        }
    }
}

impl Display for Game {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Game::Othello => Othello::NAME,
            Game::Marubatsu => Marubatsu::NAME,
        })
    }
}

/// Reads a move in `R`'s notation, naming the text when it is not one.
pub fn parse_move<R: Rules>(text: &str) -> Result<R::Move, String> {
    text.trim()
        .parse::<R::Move>()
        .map_err(|_| format!("{text:?} is not a {} move", R::NAME))
}
