//! Values by playouts: a move's worth against a kind of player rather than against
//! perfect play. Each legal move is followed by games played out to the end by one
//! continuation policy for both sides; the move's value is the mover's mean score in
//! them (win 1, draw ½, loss 0) and its mean final margin in discs.
//!
//! Issue 54 asks for values that rank weak players, whom perfect play's values cannot
//! tell apart (docs/intrinsic.md). Every move of a position is played out from the same
//! seeds, so the differences between its moves' values carry less noise than each value.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::greedy::Greedy;
use game::othello::{margin_with_empties, Board, Move, Square};

/// How both sides play after the move being valued.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Continuation {
    /// A uniformly random legal move.
    Random,
    /// Seed 001's one-ply `greedy`, replaced by a random move on `random_percent` of
    /// the moves (0: greedy itself; its ties go to the first in row-major order).
    Greedy {
        /// Percent of moves played at random instead.
        random_percent: u32,
    },
}

/// One legal move's value by playouts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlayoutValue {
    /// The move.
    pub square: Square,
    /// The mover's mean score over the playouts (win 1, draw ½, loss 0).
    pub score: f64,
    /// The mover's mean final margin, discs (empties to the winner).
    pub margin: f64,
}

/// Every legal move of `board` valued by `playouts` games each, continued by
/// `continuation` for both sides from seeds derived from `seed` (the same seeds for
/// every move). Row-major order; empty when the side to move has no placement.
pub fn playout_values(board: &Board, playouts: u32, continuation: Continuation, seed: u64) -> Vec<PlayoutValue> {
    let me = board.side_to_move();
    board
        .legal_moves()
        .squares()
        .map(|square| {
            let after = board.play_unchecked(Move::Place(square));
            let (mut score, mut margin) = (0.0, 0.0);
            for playout in 0..playouts {
                let mut rng = ChaCha8Rng::seed_from_u64(seed ^ (u64::from(playout) << 20));
                let end = play_out(after, continuation, &mut rng);
                let m = margin_with_empties(end.count(me), end.count(!me));
                margin += f64::from(m);
                score += match m.signum() {
                    1 => 1.0,
                    0 => 0.5,
                    _ => 0.0,
                };
            }
            let n = f64::from(playouts.max(1));
            PlayoutValue {
                square,
                score: score / n,
                margin: margin / n,
            }
        })
        .collect()
}

/// The position at the end of a game continued from `board` by `continuation`.
fn play_out(mut board: Board, continuation: Continuation, rng: &mut ChaCha8Rng) -> Board {
    loop {
        let moves = board.legal_moves();
        if moves.is_empty() {
            if board.legal_moves_for(!board.side_to_move()).is_empty() {
                return board;
            }
            board = board.play_unchecked(Move::Pass);
            continue;
        }
        let square = match continuation {
            Continuation::Greedy { random_percent } if rng.gen_range(0..100) >= random_percent => best_greedy(&board),
            _ => nth_square(moves.0, rng.gen_range(0..moves.count())),
        };
        board = board.play_unchecked(Move::Place(square));
    }
}

/// Greedy's choice: its first best move in row-major order.
fn best_greedy(board: &Board) -> Square {
    let candidates = Greedy::evaluate(board);
    let mut best = &candidates[0];
    for c in &candidates[1..] {
        if c.value > best.value {
            best = c;
        }
    }
    best.square
}

/// The `n`-th set square of `bits` in row-major order.
fn nth_square(mut bits: u64, n: u32) -> Square {
    for _ in 0..n {
        bits &= bits - 1;
    }
    Square::new(bits.trailing_zeros() as u8).expect("a set bit is a square")
}

#[cfg(test)]
mod tests {
    use super::*;
    use game::othello::Color;

    #[test]
    fn the_last_empty_square_is_valued_by_the_final_count() {
        // Black fills a1 on a board otherwise full: a1 flips b1 and the game ends
        // 33-31 for black; every playout is that one game.
        let board = Board::parse_squares(&format!("-O{}{}", "X".repeat(31), "O".repeat(31)), Color::Black).unwrap();
        let values = playout_values(&board, 8, Continuation::Random, 1);
        assert_eq!(values.len(), 1);
        assert_eq!(
            (values[0].square.to_string().as_str(), values[0].score, values[0].margin),
            ("a1", 1.0, 2.0)
        );
    }

    #[test]
    fn values_are_seeded_and_bounded() {
        let board = Board::new();
        for continuation in [Continuation::Random, Continuation::Greedy { random_percent: 20 }] {
            let values = playout_values(&board, 16, continuation, 7);
            assert_eq!(values, playout_values(&board, 16, continuation, 7));
            assert_eq!(values.len(), 4);
            assert!(values
                .iter()
                .all(|v| (0.0..=1.0).contains(&v.score) && v.margin.abs() <= 64.0));
        }
    }
}
