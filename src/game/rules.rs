//! The `Rules` trait: the shared parts of the harness see a game through it (Othello,
//! marubatsu). Both are two-player games in which the first player is
//! [`Color::Black`] and the second [`Color::White`].

use std::fmt::{Debug, Display};
use std::str::FromStr;

use crate::marubatsu::Marubatsu;
use crate::othello::{Bitboard, ByColor, Color, Othello, Outcome, Square};

/// A game's rules and positions, for the shared parts of the harness (rules only: its
/// engines are `engines::Engines`, its text for the model `agent::ModelGame`).
pub trait Rules: Copy + Debug + Default + Send + Sync + 'static {
    /// The game's name in `--game` and in logs.
    const NAME: &'static str;
    /// A position with its side to move.
    type Position: Copy + Debug + PartialEq + Send + Sync + 'static;
    /// A move, written and read in the game's notation.
    type Move: Copy + Debug + Display + Eq + FromStr + Send + Sync + 'static;
    /// Why a move was refused (it names the move and the legal ones).
    type Illegal: std::error::Error + Send + Sync + 'static;

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
    /// The letter of black's pieces in [`Rules::to_squares`] (white's is the other of
    /// `X` and `O`).
    const BLACK_MARK: char;
    /// Reads [`Rules::to_squares`] back, with the side to move.
    fn parse_squares(text: &str, to_move: Color) -> Result<Self::Position, String>;

    /// The most random opening plies that always leave the players a game (a longer
    /// opening could end it).
    const MAX_OPENING_PLIES: usize;

    /// A move's coordinate (a column letter, a row digit) on the 8x8 grid the answer
    /// parser reads; `None` for a move without one (a pass).
    fn coordinate(mv: Self::Move) -> Option<Square>;
    /// The move at a grid coordinate, when the board has that square.
    fn at_coordinate(square: Square) -> Option<Self::Move>;
    /// Every square of the board, as grid coordinates.
    fn board_coordinates() -> Bitboard;
    /// The squares that hold a piece in `position`, as grid coordinates (why a move
    /// there is refused, told to a model that named one).
    fn occupied_coordinates(position: &Self::Position) -> Bitboard;

    /// Empty squares in `position` (move quality's game phase).
    fn empties(position: &Self::Position) -> u32;
    /// Black's margin in a game that `forfeited` lost by forfeit: the opponent wins by
    /// [`Rules::FORFEIT_MARGIN`].
    fn forfeit_margin(forfeited: Color) -> i32 {
        match forfeited {
            Color::Black => -Self::FORFEIT_MARGIN,
            Color::White => Self::FORFEIT_MARGIN,
        }
    }

    /// The legal moves as grid coordinates.
    fn legal_coordinates(position: &Self::Position) -> Bitboard {
        Self::legal_moves(position)
            .into_iter()
            .filter_map(Self::coordinate)
            .fold(Bitboard::EMPTY, |set, square| Bitboard(set.0 | square.bit()))
    }
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
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Game {
    /// [`Othello`], the default.
    #[default]
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

/// How a viewer draws a game's boards and margins.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct BoardView {
    /// Squares per row of the (square) board string.
    pub columns: usize,
    /// The letter of black's pieces in board strings.
    pub black_mark: char,
    /// The largest margin a game can end with (a forfeit's).
    pub max_margin: i32,
    /// The most plies a game can have, passes aside.
    pub max_plies: u32,
}

impl BoardView {
    fn of<R: Rules>() -> BoardView {
        let start = R::start();
        BoardView {
            columns: (R::to_squares(&start).len() as f64).sqrt().round() as usize,
            black_mark: R::BLACK_MARK,
            max_margin: R::FORFEIT_MARGIN,
            max_plies: R::empties(&start),
        }
    }
}

impl Game {
    /// The game a log or positions file names (`None`: Othello, the default, which
    /// is never named).
    pub fn from_log(name: Option<&str>) -> Result<Game, String> {
        name.unwrap_or(Othello::NAME).parse()
    }

    /// Game `R`.
    pub fn of<R: Rules>() -> Game {
        R::NAME
            .parse()
            .expect("every game's rules are one of the games Game names")
    }

    /// How a log or positions file names game `R` (`None` for Othello).
    pub fn log_name<R: Rules>() -> Option<String> {
        (R::NAME != Othello::NAME).then(|| R::NAME.to_string())
    }

    /// How a viewer draws this game.
    pub fn board_view(self) -> BoardView {
        match self {
            Game::Othello => BoardView::of::<Othello>(),
            Game::Marubatsu => BoardView::of::<Marubatsu>(),
        }
    }

    /// What the game's margin counts, for table headers ([`Rules::MARGIN`]).
    pub fn margin_label(self) -> &'static str {
        match self {
            Game::Othello => Othello::MARGIN,
            Game::Marubatsu => Marubatsu::MARGIN,
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

/// Checks `--opening-random` against game `R`: the opening must leave a game to play.
pub fn check_opening<R: Rules>(plies: usize) -> Result<(), String> {
    if plies <= R::MAX_OPENING_PLIES {
        Ok(())
    } else {
        Err(format!(
            "{plies} random opening plies could end a game of {} before the players move: give at most {}",
            R::NAME,
            R::MAX_OPENING_PLIES
        ))
    }
}
