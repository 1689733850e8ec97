//! What the model calls in each game: the simulate tool (what it reads, the board
//! text and the side names, is [`ModelText`]'s).

use game::othello::TextStyle;
use game::{Marubatsu, Othello};
use settings::ModelText;

use crate::tools::{SimulateMark, SimulateMove, Tool};
use crate::LegalMoves;

/// A game the model can play: its engines (the fallback is one), what the model reads
/// ([`ModelText`]) and the tool it calls.
pub trait ModelGame: ModelText {
    /// The game's `simulate_move` tool for the agent.
    type Simulate: Tool<Position = Self::Position>;
    /// The shipped prompt an MCP server offers its clients when `--system` names none
    /// (its `-blind` twin when legal moves are hidden).
    const CLIENT_PROMPT: &'static str;
    /// The tool, writing boards in `style`, naming legal moves unless they are hidden.
    fn simulate_tool(style: TextStyle, legal_moves: LegalMoves) -> Self::Simulate;
}

impl ModelGame for Othello {
    type Simulate = SimulateMove;
    const CLIENT_PROMPT: &'static str = "tool-en";

    fn simulate_tool(style: TextStyle, legal_moves: LegalMoves) -> SimulateMove {
        SimulateMove { style, legal_moves }
    }
}

impl ModelGame for Marubatsu {
    type Simulate = SimulateMark;
    const CLIENT_PROMPT: &'static str = "marubatsu-tool-en";

    fn simulate_tool(style: TextStyle, legal_moves: LegalMoves) -> SimulateMark {
        SimulateMark {
            labels: style.labels,
            legal_moves,
        }
    }
}
