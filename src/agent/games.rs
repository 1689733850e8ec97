//! What the model reads and calls in each game: the simulate tool, the board text and
//! the side names.

use engines::Engines;
use game::marubatsu::Board as MarubatsuBoard;
use game::othello::{Board, Color, TextStyle};
use game::{Marubatsu, Othello};

use crate::tools::{SimulateMark, SimulateMove, Tool};
use crate::LegalMoves;

/// A game the model can play: its engines (the fallback is one) and what the model
/// reads and calls.
pub trait ModelGame: Engines {
    /// The game's `simulate_move` tool for the agent.
    type Simulate: Tool<Position = Self::Position>;
    /// The tool, writing boards in `style`, naming legal moves unless they are hidden.
    fn simulate_tool(style: TextStyle, legal_moves: LegalMoves) -> Self::Simulate;
    /// The position as the model reads it: the board, the side to move, and the legal
    /// moves unless they are hidden.
    fn model_text(position: &Self::Position, style: TextStyle, legal_moves: LegalMoves) -> String;
    /// A side's name in prompts (`{color}` in a user template).
    fn side_name(color: Color) -> &'static str;
}

impl ModelGame for Othello {
    type Simulate = SimulateMove;

    fn simulate_tool(style: TextStyle, legal_moves: LegalMoves) -> SimulateMove {
        SimulateMove { style, legal_moves }
    }

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

impl ModelGame for Marubatsu {
    type Simulate = SimulateMark;

    fn simulate_tool(style: TextStyle, legal_moves: LegalMoves) -> SimulateMark {
        SimulateMark {
            labels: style.labels,
            legal_moves,
        }
    }

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
