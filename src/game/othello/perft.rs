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
/// use game::othello::{perft, Board, Convention};
/// assert_eq!(perft(&Board::new(), 4, Convention::A), 244);
/// ```
pub fn perft(board: &Board, depth: u32, convention: Convention) -> u64 {
    count(board.player(), board.opponent(), depth, convention)
}

/// Plies below the root at which [`perft_with_progress`] splits the tree.
const SPLIT_PLIES: u32 = 3;

/// [`perft`] that says how far it is: the tree is split into the subtrees
/// `SPLIT_PLIES` plies down, counted one after another, and `on_subtree(done, total)`
/// is called after each (`done` from 1 to `total`). The count is [`perft`]'s.
///
/// ```
/// use game::othello::{perft, perft_with_progress, Board, Convention};
/// let mut calls = 0;
/// let leaves = perft_with_progress(&Board::new(), 6, Convention::A, &mut |_, _| calls += 1);
/// assert_eq!(leaves, perft(&Board::new(), 6, Convention::A));
/// assert_eq!(calls, 56); // the positions 3 plies from the start
/// ```
pub fn perft_with_progress(
    board: &Board,
    depth: u32,
    convention: Convention,
    on_subtree: &mut dyn FnMut(usize, usize),
) -> u64 {
    let mut subtrees = Vec::new();
    split(
        board.player(),
        board.opponent(),
        depth,
        convention,
        SPLIT_PLIES,
        &mut subtrees,
    );
    let total = subtrees.len();
    let mut leaves = 0;
    for (i, &(player, opponent, depth)) in subtrees.iter().enumerate() {
        leaves += count(player, opponent, depth, convention);
        on_subtree(i + 1, total);
    }
    leaves
}

/// The positions (with their remaining depth) `plies` plies below this one whose
/// counts sum to its count: the same walk as [`count`], stopping early where [`count`]
/// needs no recursion (depth 1 or less, a finished game).
fn split(player: u64, opponent: u64, depth: u32, convention: Convention, plies: u32, out: &mut Vec<(u64, u64, u32)>) {
    let moves = legal_moves(player, opponent);
    if plies == 0 || depth <= 1 || (moves == 0 && legal_moves(opponent, player) == 0) {
        out.push((player, opponent, depth));
        return;
    }
    if moves == 0 {
        let depth = if convention == Convention::C { depth } else { depth - 1 };
        split(opponent, player, depth, convention, plies - 1, out);
        return;
    }
    let mut rest = moves;
    while rest != 0 {
        let index = rest.trailing_zeros();
        rest &= rest - 1;
        let square = super::Square::new(index as u8).expect("a u64 bit index is below 64");
        let flipped = flips(player, opponent, square);
        split(
            opponent & !flipped,
            player | flipped | (1u64 << index),
            depth - 1,
            convention,
            plies - 1,
            out,
        );
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::othello::Move;

    #[test]
    fn counting_by_subtrees_gives_the_same_counts() {
        // Positions from the start to the last plies (passes and finished games
        // inside the horizon), by a fixed pseudo-random walk.
        let mut board = Board::new();
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut positions = vec![board];
        while !board.is_game_over() {
            let moves: Vec<_> = board.legal_moves().squares().collect();
            board = if moves.is_empty() {
                board.play(Move::Pass)
            } else {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                board.play(Move::Place(moves[(state % moves.len() as u64) as usize]))
            };
            if board.empties() < 14 || board.empties().is_multiple_of(9) {
                positions.push(board);
            }
        }
        for board in positions {
            for convention in [Convention::A, Convention::B, Convention::C] {
                for depth in 0..=6 {
                    let mut last = (0, 0);
                    let split = perft_with_progress(&board, depth, convention, &mut |done, total| last = (done, total));
                    assert_eq!(
                        split,
                        perft(&board, depth, convention),
                        "{board:?} {convention} {depth}"
                    );
                    assert_eq!(last.0, last.1, "every subtree was reported");
                }
            }
        }
    }
}
