//! Tactical positions for probes: every position a game can reach in which the side
//! to move either wins at once or must block the opponent's immediate win.

use std::collections::BTreeSet;
use std::ops::RangeInclusive;

use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use game::marubatsu::Board;

/// What a tactical position asks of the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Motif {
    /// A move completes a line of its own.
    Win,
    /// The opponent threatens a line and the mover cannot win first: it must block.
    Block,
}

impl Motif {
    /// The motif's name in position files (`win`, `block`).
    pub fn name(self) -> &'static str {
        match self {
            Motif::Win => "win",
            Motif::Block => "block",
        }
    }
}

/// What `board` asks of the side to move, if it is tactical.
pub fn motif(board: &Board) -> Option<Motif> {
    if board.is_game_over() {
        return None;
    }
    let me = board.side_to_move();
    if !board.winning_squares(me).is_empty() {
        Some(Motif::Win)
    } else if !board.winning_squares(!me).is_empty() {
        Some(Motif::Block)
    } else {
        None
    }
}

/// Every reachable position with a [`Motif`], in a fixed order (by their square
/// strings), with its motif.
pub fn tactical_positions() -> Vec<(Board, Motif)> {
    let mut seen = BTreeSet::new();
    let mut stack = vec![Board::new()];
    while let Some(board) = stack.pop() {
        if !seen.insert(board.to_squares_string()) {
            continue;
        }
        stack.extend(board.legal_moves().iter().map(|mv| board.play(mv)));
    }
    seen.into_iter()
        .filter_map(|squares| {
            let board = Board::parse_squares(&squares).expect("the square strings were written by the boards");
            motif(&board).map(|m| (board, m))
        })
        .collect()
}

/// At most `count` of the [`tactical_positions`] with a number of empties in
/// `empties` (any, when `None`), drawn in an order shuffled by `seed`.
pub fn tactical_sample(count: usize, empties: Option<&RangeInclusive<u32>>, seed: u64) -> Vec<(Board, Motif)> {
    let mut found: Vec<_> = tactical_positions()
        .into_iter()
        .filter(|(board, _)| empties.is_none_or(|e| e.contains(&board.empties())))
        .collect();
    found.shuffle(&mut ChaCha8Rng::seed_from_u64(seed));
    found.truncate(count);
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::marubatsu::Perfect;

    #[test]
    fn every_tactical_position_is_decided_by_its_motif() {
        let positions = tactical_positions();
        assert!(positions.len() > 1000, "{} positions", positions.len());
        for (board, motif) in &positions {
            let best = Perfect::score_moves(board).into_iter().map(|(_, v)| v).max().unwrap();
            let me = board.side_to_move();
            match motif {
                Motif::Win => assert_eq!(best, 1, "{board}"),
                // A block is forced: every other move loses at once.
                Motif::Block => {
                    for (mv, value) in Perfect::score_moves(board) {
                        if !board.winning_squares(!me).contains(mv) {
                            assert_eq!(value, -1, "{board}: {mv} does not block");
                        }
                    }
                }
            }
        }
        let wins = positions.iter().filter(|(_, m)| *m == Motif::Win).count();
        assert!(wins > 0 && wins < positions.len(), "both motifs occur");
    }
}
