//! What the model reads and calls in each game: the simulate tool, the board text and
//! the side names.

use engines::Engines;
use game::marubatsu::Board as MarubatsuBoard;
use game::othello::{Board, Color, TextStyle};
use game::{Marubatsu, Othello};

use crate::tools::{SimulateMark, SimulateMove, Tool};

/// A game the model can play: its engines (the fallback is one) and what the model
/// reads and calls.
pub trait ModelGame: Engines {
    /// The game's `simulate_move` tool for the agent.
    type Simulate: Tool<Position = Self::Position>;
    /// The tool, writing boards in `style`.
    fn simulate_tool(style: TextStyle) -> Self::Simulate;
    /// The position as the model reads it: the board, the side to move, the legal moves.
    fn model_text(position: &Self::Position, style: TextStyle) -> String;
    /// A side's name in prompts (`{color}` in a user template).
    fn side_name(color: Color) -> &'static str;
}

impl ModelGame for Othello {
    type Simulate = SimulateMove;

    fn simulate_tool(style: TextStyle) -> SimulateMove {
        SimulateMove { style }
    }

    fn model_text(position: &Board, style: TextStyle) -> String {
        position.to_text(style)
    }

    fn side_name(color: Color) -> &'static str {
        color.name()
    }
}

impl ModelGame for Marubatsu {
    type Simulate = SimulateMark;

    fn simulate_tool(style: TextStyle) -> SimulateMark {
        SimulateMark { labels: style.labels }
    }

    /// The board with its marks (the side to move is named, so there is no relative
    /// rendering).
    fn model_text(position: &MarubatsuBoard, style: TextStyle) -> String {
        position.to_text(style.labels)
    }

    fn side_name(color: Color) -> &'static str {
        match color {
            Color::Black => "O",
            Color::White => "X",
        }
    }
}
