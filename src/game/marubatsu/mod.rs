//! Marubatsu (tic-tac-toe) from seed 003: its rules and text. Pure, synchronous, no I/O.
//!
//! 〇 moves first and is [`Color::Black`](crate::othello::Color); × is
//! [`Color::White`](crate::othello::Color), so per-side data uses
//! [`ByColor`](crate::othello::ByColor) as in Othello, and a finished game is an
//! [`Outcome`](crate::othello::Outcome). A [`Move`] is a square `a1`..`c3` (column
//! letter, row digit, a1 top-left; seed 003's `(x, y)` is column x, row y from 0).
//! Its players are in the engines crate.

mod board;
mod notation;
mod rules;

pub use board::{
    mark, mark_letter, Board, IllegalMove, InvalidBoard, MarkPattern, Move, MoveSet, ParseMoveError, PatternCounts,
};
pub use notation::ParseBoardError;
pub use rules::Marubatsu;

#[cfg(test)]
mod tests;
