//! The rules of Othello on bitboards: pure, synchronous, no I/O.
//!
//! [`Board`] holds the discs and the side to move; [`Move`] is a placement on a
//! [`Square`] or a pass. Moves are generated with shifts on `u64` bitboards
//! ([`bitboard`]), text goes through [`TextStyle`] and [`Board::parse_squares`],
//! and [`perft`] counts the game tree to verify it all.

pub mod bitboard;
mod board;
mod notation;
mod perft;
mod rules;
mod square;
mod wire;

pub use bitboard::Bitboard;
pub use board::{margin_with_empties, transform_square, Board, IllegalMove, Outcome, OverlappingDiscs};
pub use notation::{Labels, ParseBoardError, Perspective, TextStyle};
pub use perft::{perft, perft_with_progress, Convention, ParseConventionError};
pub use rules::Othello;
pub use square::{ByColor, Color, Move, ParseColorError, ParseSquareError, Square};
pub use wire::{ParseOutcomeError, ParseStyleError};

#[cfg(test)]
mod tests;
