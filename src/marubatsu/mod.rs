//! Marubatsu (tic-tac-toe) from seed 003: rules, text, and its rule-based players.
//! Pure, synchronous, no I/O.
//!
//! 〇 moves first and is [`Color::Black`](crate::othello::Color); × is
//! [`Color::White`](crate::othello::Color), so per-side data uses
//! [`ByColor`](crate::othello::ByColor) as in Othello, and a finished game is an
//! [`Outcome`](crate::othello::Outcome). A [`Move`] is a square `a1`..`c3` (column
//! letter, row digit, a1 top-left; seed 003's `(x, y)` is column x, row y from 0).
//!
//! | spec | player |
//! |---|---|
//! | `ai1` | the first free square from the top-left, row by row |
//! | `ai2`, `random` | a random square |
//! | `ai3` | the centre, else random |
//! | `ai4` | the centre, else the first free corner (a1, c1, a3, c3), else random |
//! | `ai5` | win, else random |
//! | `ai6` | win, else block, else random |
//! | `ai6s` | win, else avoid moves that let the opponent win, else random |
//! | `ai7`, `ai7s` | the centre, else as `ai6`, `ai6s` |
//! | `ai8s` | `ai7s`, then prefer making a 「自 2 敵 0 空 1」 |
//! | `ai9s` | `ai8s`, a fork (two or more) above a single one |
//! | `ai10s[:A]` | `ai9s`, plus the count of 「自 1 敵 0 空 2」 (single 「自 2 敵 0 空 1」 worth A) |
//! | `ai11s` | `ai10s`, minus the count of 「自 0 敵 1 空 2」 |
//! | `perfect` | full minimax: never loses |
//!
//! `ai1s` … `ai5s` are accepted as the plain rules (the seed reports them together).
//! `docs/marubatsu.md` has the definitions in full and the seed's published tables.

mod ai;
mod board;
mod notation;
mod perfect;
mod spec;

pub use ai::{ai_by_score, Rule, RuleEngine};
pub use board::{
    mark, mark_letter, Board, IllegalMove, InvalidBoard, MarkPattern, Move, MoveSet, ParseMoveError, PatternCounts,
};
pub use notation::ParseBoardError;
pub use perfect::Perfect;
pub use spec::{MarubatsuSpec, ParseMarubatsuSpecError, MAX_AI10S_BONUS, VALID_SPECS};

/// A marubatsu player.
pub trait MarubatsuEngine {
    /// The canonical spec string of this player.
    fn name(&self) -> String;

    /// Picks a move on a board where the side to move has a legal move (it panics
    /// on a finished game).
    fn choose(&mut self, board: &Board) -> Move;
}

#[cfg(test)]
mod tests;
