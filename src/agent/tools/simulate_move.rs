//! `simulate_move`: what would happen if the side to move played a square.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::Tool;
use crate::LegalMoves;
use game::othello::{Board, Move, Square, TextStyle};

/// Arguments of `simulate_move`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SimulateMoveArgs {
    /// The square to try: a column a-h then a row 1-8, such as "d3".
    pub coord: String,
}

/// Result of `simulate_move`, with seed 000's field names.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SimulateResult {
    /// The board text after the move, the opponent to move.
    pub board: String,
    /// The mover's discs after the move.
    pub my_stones: u32,
    /// The opponent's discs after the move.
    pub opponent_stones: u32,
    /// How many more stable discs the mover has (seed 000's definition).
    pub stable_gained: i32,
    /// The discs flipped, row-major.
    pub flipped: Vec<String>,
    /// Where the opponent could play next, row-major (`None` in blind play, which
    /// names no legal move: left out of the result).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub opponent_valid_moves: Option<Vec<String>>,
}

/// The `simulate_move` tool, rendering boards in `style`.
#[derive(Clone, Copy, Debug, Default)]
pub struct SimulateMove {
    /// How the resulting board is written.
    pub style: TextStyle,
    /// Hidden (blind play): no result names a legal move (the board text without its
    /// list, no opponent replies, an illegal square's error without the legal moves).
    pub legal_moves: LegalMoves,
}

impl SimulateMove {
    /// The result of playing `square` in `board`, or a message for the model.
    pub fn simulate(&self, board: &Board, square: Square) -> Result<SimulateResult, String> {
        let me = board.side_to_move();
        let legal = board.legal_moves();
        if !legal.contains(square) {
            let why = if board.disc_at(square).is_some() {
                "the square is occupied"
            } else {
                "it flips no disc"
            };
            return Err(match self.legal_moves {
                LegalMoves::Shown => format!("{square} is not a legal move for {me} ({why}); legal moves: {legal}"),
                LegalMoves::Hidden => format!("{square} is not a legal move for {me} ({why})"),
            });
        }
        let shown = self.legal_moves.shown();
        let after = board.play_unchecked(Move::Place(square));
        let stable_before = board.stable_discs(me).count() as i32;
        Ok(SimulateResult {
            board: if shown {
                after.to_text(self.style)
            } else {
                after.to_text_without_moves(self.style)
            },
            my_stones: after.count(me),
            opponent_stones: after.count(!me),
            stable_gained: after.stable_discs(me).count() as i32 - stable_before,
            flipped: board.flips(square).squares().map(|s| s.to_string()).collect(),
            opponent_valid_moves: shown.then(|| after.legal_moves_for(!me).squares().map(|s| s.to_string()).collect()),
        })
    }
}

/// `simulate_move`'s description in blind play (`--legal-moves hidden`): what its
/// result holds then, and that it names no legal move.
pub const BLIND_DESCRIPTION: &str = "Simulate placing your disc on a square without playing it. Returns the board \
    after the move (opponent to move), both disc counts, the stable discs gained and the flipped discs, but no \
    legal moves (neither yours nor the opponent's replies: find them from the board); a square you cannot play is \
    an error.";

impl Tool for SimulateMove {
    const NAME: &'static str = "simulate_move";
    const DESCRIPTION: &'static str = "Simulate placing your disc on a square without playing it. Returns the board \
        after the move (opponent to move), both disc counts, the stable discs gained, the flipped discs and the \
        opponent's legal replies.";
    type Args = SimulateMoveArgs;
    type Position = Board;

    /// In blind play the result names no legal move, and the description promises none.
    fn description(&self) -> &'static str {
        match self.legal_moves {
            LegalMoves::Shown => Self::DESCRIPTION,
            LegalMoves::Hidden => BLIND_DESCRIPTION,
        }
    }

    fn call(&self, board: &Board, args: SimulateMoveArgs) -> Result<Value, String> {
        let square: Square = args
            .coord
            .parse()
            .map_err(|e: game::othello::ParseSquareError| e.to_string())?;
        let result = self.simulate(board, square)?;
        serde_json::to_value(result).map_err(|e| format!("internal error encoding the result: {e}"))
    }
}
