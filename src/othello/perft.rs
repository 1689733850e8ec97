//! Perft: counting the leaves of the game tree to a fixed depth.
//!
//! Three conventions are in use (see `shared/data/perft.md` in the project notes):
//! - **A** (aartbik, Egaroucid "mode 1", the default): a pass is one ply; a finished
//!   game reached before the depth counts as one leaf.
//! - **B** (OEIS A124004, Edax): a pass is one ply; only paths of full length count,
//!   so finished games before the depth are dropped.
//! - **C** (Egaroucid "mode 2"): a pass takes no ply; finished games count as one leaf.
//!
//! All three count at the last ply by popcount (bulk counting).

use std::fmt;
use std::str::FromStr;

use super::bitboard::{flips, legal_moves};
use super::board::Board;

/// A perft counting convention (see the module docs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Convention {
    /// Pass = 1 ply, finished games stay as leaves.
    #[default]
    A,
    /// Pass = 1 ply, finished games before the depth dropped.
    B,
    /// Pass = 0 ply, finished games stay as leaves.
    C,
}

impl fmt::Display for Convention {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Convention::A => "a",
            Convention::B => "b",
            Convention::C => "c",
        })
    }
}

/// A convention name other than a, b or c.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid perft convention {text:?}: expected a (pass = 1 ply, finished games are leaves), b (exact depth) or c (pass = 0 ply)")]
pub struct ParseConventionError {
    /// The text that failed to parse.
    pub text: String,
}

impl FromStr for Convention {
    type Err = ParseConventionError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "a" => Ok(Convention::A),
            "b" => Ok(Convention::B),
            "c" => Ok(Convention::C),
            _ => Err(ParseConventionError { text: s.to_string() }),
        }
    }
}

/// Number of leaves `depth` plies below `board` under `convention`.
///
/// ```
/// use othello_arena::othello::{perft, Board, Convention};
/// assert_eq!(perft(&Board::new(), 4, Convention::A), 244);
/// ```
pub fn perft(board: &Board, depth: u32, convention: Convention) -> u64 {
    count(board.player(), board.opponent(), depth, convention)
}

fn count(player: u64, opponent: u64, depth: u32, convention: Convention) -> u64 {
    if depth == 0 {
        return 1;
    }
    let moves = legal_moves(player, opponent);
    if moves == 0 {
        let game_over = legal_moves(opponent, player) == 0;
        return match (game_over, convention) {
            (true, Convention::B) => 0,
            (true, _) => 1,
            (false, Convention::C) => count(opponent, player, depth, convention),
            (false, _) => count(opponent, player, depth - 1, convention),
        };
    }
    if depth == 1 {
        return u64::from(moves.count_ones());
    }
    let mut total = 0;
    let mut rest = moves;
    while rest != 0 {
        let index = rest.trailing_zeros();
        rest &= rest - 1;
        let placed = 1u64 << index;
        let square = super::Square::new(index as u8).expect("a u64 bit index is below 64");
        let flipped = flips(player, opponent, square);
        total += count(opponent & !flipped, player | flipped | placed, depth - 1, convention);
    }
    total
}
