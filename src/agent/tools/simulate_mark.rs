//! `simulate_move` for marubatsu: what would happen if the side to move took a square.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::Tool;
use crate::LegalMoves;
use game::marubatsu::{Board, Move};
use game::othello::Labels;

/// Arguments of marubatsu's `simulate_move`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SimulateMarkArgs {
    /// The square to try: a column a-c then a row 1-3, such as "b2".
    pub coord: String,
}

/// Result of marubatsu's `simulate_move`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SimulateMarkResult {
    /// The board text after the move, the opponent to move.
    pub board: String,
    /// The move completes a line of three: the game is won.
    pub wins: bool,
    /// The board is full without a line: the game is drawn.
    pub draw: bool,
    /// The squares where the opponent would complete a line on its reply.
    pub opponent_winning_replies: Vec<String>,
    /// The squares where the mover could complete a line on its next move.
    pub my_next_winning_moves: Vec<String>,
}

/// Marubatsu's `simulate_move`, rendering boards with `labels`.
#[derive(Clone, Copy, Debug, Default)]
pub struct SimulateMark {
    /// How the resulting board is written.
    pub labels: Labels,
    /// Hidden (blind play): no result names the legal moves (the board text without
    /// its list, an illegal square's error without them).
    pub legal_moves: LegalMoves,
}

impl SimulateMark {
    /// The result of taking `mv` in `board`, or a message for the model.
    pub fn simulate(&self, board: &Board, mv: Move) -> Result<SimulateMarkResult, String> {
        let me = board.side_to_move();
        let after = board.try_play(mv).map_err(|e| match self.legal_moves {
            LegalMoves::Shown => e.to_string(),
            LegalMoves::Hidden => format!("{mv} is not a legal move"),
        })?;
        let over = after.is_game_over();
        let squares = |set: game::marubatsu::MoveSet| set.iter().map(|m| m.to_string()).collect();
        Ok(SimulateMarkResult {
            board: if self.legal_moves.shown() {
                after.to_text(self.labels)
            } else {
                after.to_text_without_moves(self.labels)
            },
            wins: after.winner() == Some(me),
            draw: over && after.winner().is_none(),
            opponent_winning_replies: if over {
                Vec::new()
            } else {
                squares(after.winning_squares(!me))
            },
            my_next_winning_moves: if over {
                Vec::new()
            } else {
                squares(after.winning_squares(me))
            },
        })
    }
}

impl Tool for SimulateMark {
    const NAME: &'static str = "simulate_move";
    const DESCRIPTION: &'static str = "Simulate placing your mark on a square without playing it. Returns the board \
        after the move (opponent to move), whether the move wins or draws, the squares where the opponent would then \
        win at once, and the squares where you could win on your next move.";
    type Args = SimulateMarkArgs;
    type Position = Board;

    fn call(&self, board: &Board, args: SimulateMarkArgs) -> Result<Value, String> {
        let mv: Move = args
            .coord
            .parse()
            .map_err(|e: game::marubatsu::ParseMoveError| e.to_string())?;
        let result = self.simulate(board, mv)?;
        serde_json::to_value(result).map_err(|e| format!("internal error encoding the result: {e}"))
    }
}
