//! Othello through [`Rules`]: the rules core of this module seen as a game.

use super::{Bitboard, Board, ByColor, Color, IllegalMove, Move, Outcome, Square};
use crate::Rules;

/// Othello (the default game).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Othello;

impl Rules for Othello {
    const NAME: &'static str = "othello";
    type Position = Board;
    type Move = Move;
    type Illegal = IllegalMove;
    /// Fifty of the sixty moves (a draw that ends the game is drawn again).
    const MAX_OPENING_PLIES: usize = 50;
    const MARGIN: &'static str = "disc diff";
    /// A wipeout: a forfeit must never look like a close game.
    const FORFEIT_MARGIN: i32 = 64;

    fn start() -> Board {
        Board::new()
    }

    fn to_move(position: &Board) -> Color {
        position.side_to_move()
    }

    fn legal_moves(position: &Board) -> Vec<Move> {
        position.legal_moves().squares().map(Move::Place).collect()
    }

    fn forced_move(position: &Board) -> Option<Move> {
        position.must_pass().then_some(Move::Pass)
    }

    fn play(position: &Board, mv: Move) -> Result<Board, IllegalMove> {
        position.try_play(mv)
    }

    fn is_over(position: &Board) -> bool {
        position.is_game_over()
    }

    fn outcome(position: &Board) -> Outcome {
        position.leader()
    }

    fn margin(position: &Board) -> i32 {
        position.count(Color::Black) as i32 - position.count(Color::White) as i32
    }

    fn pieces(position: &Board) -> ByColor<u32> {
        ByColor {
            black: position.count(Color::Black),
            white: position.count(Color::White),
        }
    }

    fn to_squares(position: &Board) -> String {
        position.to_squares_string()
    }

    const BLACK_MARK: char = 'X';

    fn parse_squares(text: &str, to_move: Color) -> Result<Board, String> {
        Board::parse_squares(text, to_move).map_err(|e| e.to_string())
    }

    fn coordinate(mv: Move) -> Option<Square> {
        match mv {
            Move::Place(square) => Some(square),
            Move::Pass => None,
        }
    }

    fn at_coordinate(square: Square) -> Option<Move> {
        Some(Move::Place(square))
    }

    fn board_coordinates() -> Bitboard {
        Bitboard(u64::MAX)
    }

    fn occupied_coordinates(position: &Board) -> Bitboard {
        Bitboard(position.player() | position.opponent())
    }

    fn empties(position: &Board) -> u32 {
        position.empties()
    }

    fn legal_coordinates(position: &Board) -> Bitboard {
        position.legal_moves()
    }
}
