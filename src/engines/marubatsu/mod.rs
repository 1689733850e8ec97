//! Marubatsu's players (seed 003): rule-based ones and a perfect one. Pure, synchronous,
//! no I/O. The rules are `game::marubatsu`.
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
mod perfect;
mod spec;
mod tactics;

pub use ai::{ai_by_score, Rule, RuleEngine};
pub use perfect::Perfect;
pub use spec::{MarubatsuSpec, ParseMarubatsuSpecError, MAX_AI10S_BONUS, VALID_SPECS};
pub use tactics::{motif, tactical_positions, tactical_sample, Motif};

use game::marubatsu::{Board, Move};

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
