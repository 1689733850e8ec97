//! Marubatsu (seed 003's tic-tac-toe) through [`Rules`].

use super::{Board, IllegalMove, Move};
use crate::othello::{Bitboard, ByColor, Color, Outcome, Square};
use crate::Rules;

/// Marubatsu: 〇 (black, first) and × (white).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Marubatsu;

impl Rules for Marubatsu {
    const NAME: &'static str = "marubatsu";
    type Position = Board;
    type Move = Move;
    type Illegal = IllegalMove;
    /// The earliest win is on the fifth move.
    const MAX_OPENING_PLIES: usize = 4;
    const MARGIN: &'static str = "margin (win 1, loss -1)";
    /// A forfeit is a lost game, as any other.
    const FORFEIT_MARGIN: i32 = 1;

    fn start() -> Board {
        Board::new()
    }

    fn to_move(position: &Board) -> Color {
        position.side_to_move()
    }

    fn legal_moves(position: &Board) -> Vec<Move> {
        position.legal_moves().to_vec()
    }

    fn forced_move(_position: &Board) -> Option<Move> {
        None
    }

    fn play(position: &Board, mv: Move) -> Result<Board, IllegalMove> {
        position.try_play(mv)
    }

    fn is_over(position: &Board) -> bool {
        position.is_game_over()
    }

    fn outcome(position: &Board) -> Outcome {
        position.outcome().unwrap_or(Outcome::Draw)
    }

    fn margin(position: &Board) -> i32 {
        match position.winner() {
            Some(Color::Black) => 1,
            Some(Color::White) => -1,
            None => 0,
        }
    }

    fn pieces(position: &Board) -> ByColor<u32> {
        ByColor {
            black: position.marks(Color::Black).len() as u32,
            white: position.marks(Color::White).len() as u32,
        }
    }

    fn to_squares(position: &Board) -> String {
        position.to_squares_string()
    }

    const BLACK_MARK: char = 'O';

    fn parse_squares(text: &str, to_move: Color) -> Result<Board, String> {
        let board = Board::parse_squares(text).map_err(|e| e.to_string())?;
        if board.side_to_move() != to_move {
            return Err(format!(
                "the marks say {} is to move, not {to_move}",
                board.side_to_move()
            ));
        }
        Ok(board)
    }

    /// a1..c3 are the top-left corner of the 8x8 grid.
    fn coordinate(mv: Move) -> Option<Square> {
        Square::from_row_col(mv.row(), mv.col())
    }

    fn at_coordinate(square: Square) -> Option<Move> {
        Move::from_row_col(square.row(), square.col())
    }

    fn empties(position: &Board) -> u32 {
        position.empties()
    }

    fn board_coordinates() -> Bitboard {
        Move::ALL
            .iter()
            .filter_map(|&mv| Marubatsu::coordinate(mv))
            .fold(Bitboard::EMPTY, |set, square| Bitboard(set.0 | square.bit()))
    }

    fn occupied_coordinates(position: &Board) -> Bitboard {
        Move::ALL
            .iter()
            .filter(|&&mv| position.mark_at(mv).is_some())
            .filter_map(|&mv| Marubatsu::coordinate(mv))
            .fold(Bitboard::EMPTY, |set, square| Bitboard(set.0 | square.bit()))
    }
}
