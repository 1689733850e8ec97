//! What the model reads of a position in each game: the board text, with the legal
//! moves unless `--legal-moves hidden` withholds them, and the side names. The agent
//! writes its user message with it; replay rebuilds the same text from a log.

use engines::Engines;
use game::marubatsu::Board as MarubatsuBoard;
use game::othello::{Board, Color, TextStyle};
use game::{Marubatsu, Othello};

use crate::LegalMoves;

/// A game's position as the model reads it.
pub trait ModelText: Engines {
    /// The position as the model reads it: the board, the side to move, and the legal
    /// moves unless they are hidden.
    fn model_text(position: &Self::Position, style: TextStyle, legal_moves: LegalMoves) -> String;
    /// A side's name in prompts (`{color}` in a user template).
    fn side_name(color: Color) -> &'static str;
}

impl ModelText for Othello {
    fn model_text(position: &Board, style: TextStyle, legal_moves: LegalMoves) -> String {
        match legal_moves {
            LegalMoves::Shown => position.to_text(style),
            LegalMoves::Hidden => position.to_text_without_moves(style),
        }
    }

    fn side_name(color: Color) -> &'static str {
        color.name()
    }
}

impl ModelText for Marubatsu {
    /// The board with its marks (the side to move is named, so there is no relative
    /// rendering).
    fn model_text(position: &MarubatsuBoard, style: TextStyle, legal_moves: LegalMoves) -> String {
        match legal_moves {
            LegalMoves::Shown => position.to_text(style.labels),
            LegalMoves::Hidden => position.to_text_without_moves(style.labels),
        }
    }

    fn side_name(color: Color) -> &'static str {
        match color {
            Color::Black => "O",
            Color::White => "X",
        }
    }
}
