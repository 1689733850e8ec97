//! A game: the starting position and the moves played from it.

use super::board::{Board, IllegalMove, Outcome};
use super::square::{Color, Move};

/// A game in progress or finished: start position, moves (passes included) and the
/// current position. Every move is checked, so a `Game` always holds a legal line.
///
/// ```
/// use othello_arena::othello::{Game, Move};
/// let mut game = Game::default();
/// game.try_play("f5".parse::<Move>().unwrap()).unwrap();
/// assert_eq!(game.moves().len(), 1);
/// assert!(!game.is_over());
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Game {
    start: Board,
    moves: Vec<Move>,
    board: Board,
}

impl Game {
    /// A game starting at `start`.
    pub fn new(start: Board) -> Game {
        Game {
            start,
            moves: Vec::new(),
            board: start,
        }
    }

    /// The position the game started from.
    pub fn start(&self) -> &Board {
        &self.start
    }

    /// The current position.
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// Moves played so far, passes included.
    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    /// Plays `mv` if it is legal in the current position.
    pub fn try_play(&mut self, mv: Move) -> Result<(), IllegalMove> {
        self.board = self.board.try_play(mv)?;
        self.moves.push(mv);
        Ok(())
    }

    /// Whether neither side can move.
    pub fn is_over(&self) -> bool {
        self.board.is_game_over()
    }

    /// The result once the game is over.
    pub fn outcome(&self) -> Option<Outcome> {
        self.board.outcome()
    }

    /// Black's discs minus white's in the current position.
    pub fn disc_difference(&self) -> i32 {
        self.board.count(Color::Black) as i32 - self.board.count(Color::White) as i32
    }
}
