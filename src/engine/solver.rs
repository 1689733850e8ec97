//! Exact endgame solver: negamax with principal-variation search, a transposition
//! table, fastest-first move ordering (fewest opponent replies first) and parity
//! ordering near the end. Scores are final disc differences for the side to move
//! with empty squares awarded to the winner (the FFO / tournament convention).

use crate::othello::bitboard::{flips, legal_moves};
use crate::othello::{Bitboard, Board, Square};

/// The result of solving a position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Solution {
    /// Every move that reaches the optimum, row-major (empty when the side must pass
    /// or the game is over).
    pub best_moves: Vec<Square>,
    /// The exact final disc difference for the side to move under perfect play.
    pub score: i32,
    /// Positions visited.
    pub nodes: u64,
}

/// Below this many empties, moves are ordered by parity instead of mobility.
const FASTEST_FIRST_MIN_EMPTIES: u32 = 7;
/// Transposition table size (entries, a power of two).
const TABLE_SIZE: usize = 1 << 20;

#[derive(Clone, Copy, Default)]
struct Entry {
    player: u64,
    opponent: u64,
    lower: i8,
    upper: i8,
    best: u8,
}

/// An endgame solver with its own transposition table.
pub struct Solver {
    table: Vec<Entry>,
    nodes: u64,
}

impl Default for Solver {
    fn default() -> Self {
        Solver::new()
    }
}

/// Final score from the side to move's view: discs, with empties to the winner.
fn final_score(player: u64, opponent: u64) -> i32 {
    let (p, o) = (player.count_ones() as i32, opponent.count_ones() as i32);
    let empties = 64 - p - o;
    match p.cmp(&o) {
        std::cmp::Ordering::Greater => p - o + empties,
        std::cmp::Ordering::Less => p - o - empties,
        std::cmp::Ordering::Equal => 0,
    }
}

fn slot(player: u64, opponent: u64) -> usize {
    let h = player.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ opponent.wrapping_mul(0xc2b2_ae3d_27d4_eb4f).rotate_left(29);
    (h >> 44) as usize & (TABLE_SIZE - 1)
}

/// Squares of `bits` in quadrants holding an odd number of empties first (parity).
fn parity_order(moves: u64, empty: u64) -> [u64; 2] {
    const QUADRANTS: [u64; 4] = [
        0x0000_0000_0f0f_0f0f,
        0x0000_0000_f0f0_f0f0,
        0x0f0f_0f0f_0000_0000,
        0xf0f0_f0f0_0000_0000,
    ];
    let mut odd = 0;
    for q in QUADRANTS {
        if (empty & q).count_ones() % 2 == 1 {
            odd |= q;
        }
    }
    [moves & odd, moves & !odd]
}

/// An ordering penalty from the square weights: corners low, X-squares high.
fn weight_penalty(square: Square) -> i32 {
    -crate::engine::WEIGHTS[square.index()] / 10
}

impl Solver {
    /// A solver with an empty table.
    pub fn new() -> Solver {
        Solver {
            table: vec![Entry::default(); TABLE_SIZE],
            nodes: 0,
        }
    }

    /// Solves `board` exactly.
    pub fn solve(&mut self, board: &Board) -> Solution {
        self.nodes = 0;
        let (player, opponent) = (board.player(), board.opponent());
        let moves = legal_moves(player, opponent);
        if moves == 0 {
            let score = if legal_moves(opponent, player) == 0 {
                final_score(player, opponent)
            } else {
                -self.search(opponent, player, -64, 64, false)
            };
            return Solution {
                best_moves: Vec::new(),
                score,
                nodes: self.nodes,
            };
        }
        let score = self.search(player, opponent, -64, 64, false);
        // Every move that reaches the optimum: a null-window test each.
        let mut best_moves = Vec::new();
        for square in Bitboard(moves) {
            let f = flips(player, opponent, square);
            let value = -self.search(opponent & !f, player | f | square.bit(), -score, -score + 1, false);
            if value >= score {
                best_moves.push(square);
            }
        }
        Solution {
            best_moves,
            score,
            nodes: self.nodes,
        }
    }

    fn search(&mut self, player: u64, opponent: u64, mut alpha: i32, mut beta: i32, passed: bool) -> i32 {
        self.nodes += 1;
        let empty = !(player | opponent);
        let empties = empty.count_ones();
        if empties == 0 {
            return final_score(player, opponent);
        }
        let moves = legal_moves(player, opponent);
        if moves == 0 {
            if passed {
                return final_score(player, opponent);
            }
            return -self.search(opponent, player, -beta, -alpha, true);
        }
        if empties == 1 {
            let square = Square::new(empty.trailing_zeros() as u8).expect("one empty square");
            let f = flips(player, opponent, square);
            return final_score(player | f | square.bit(), opponent & !f);
        }
        let use_table = empties > 6;
        let index = slot(player, opponent);
        let mut hint = 64u8;
        if use_table {
            let e = self.table[index];
            if e.player == player && e.opponent == opponent && (e.lower != 0 || e.upper != 0 || e.best != 0) {
                let (lower, upper) = (i32::from(e.lower), i32::from(e.upper));
                if lower >= beta {
                    return lower;
                }
                if upper <= alpha {
                    return upper;
                }
                if lower == upper {
                    return lower;
                }
                alpha = alpha.max(lower);
                beta = beta.min(upper);
                hint = e.best;
            }
        }
        let original_alpha = alpha;
        let mut ordered: Vec<(i32, u64)> = Vec::with_capacity(16);
        if empties >= FASTEST_FIRST_MIN_EMPTIES {
            for square in Bitboard(moves) {
                let f = flips(player, opponent, square);
                let replies = legal_moves(opponent & !f, player | f | square.bit()).count_ones() as i32;
                // Fewest opponent replies first; among equals, corners before X-squares.
                let key = if u32::from(hint) == square.index() as u32 {
                    -1000
                } else {
                    16 * replies + 2 * weight_penalty(square)
                };
                ordered.push((key, square.bit()));
            }
            ordered.sort_by_key(|&(key, _)| key);
        } else {
            for group in parity_order(moves, empty) {
                for square in Bitboard(group) {
                    ordered.push((0, square.bit()));
                }
            }
        }
        let mut best = -65;
        let mut best_square = 64u8;
        for (i, &(_, bit)) in ordered.iter().enumerate() {
            let square = Square::new(bit.trailing_zeros() as u8).expect("a bit of the move set");
            let f = flips(player, opponent, square);
            let (child_player, child_opponent) = (opponent & !f, player | f | bit);
            let mut value;
            if i == 0 {
                value = -self.search(child_player, child_opponent, -beta, -alpha, false);
            } else {
                value = -self.search(child_player, child_opponent, -alpha - 1, -alpha, false);
                if value > alpha && value < beta {
                    value = -self.search(child_player, child_opponent, -beta, -value, false);
                }
            }
            if value > best {
                best = value;
                best_square = square.index() as u8;
            }
            alpha = alpha.max(value);
            if alpha >= beta {
                break;
            }
        }
        if use_table {
            let (lower, upper) = if best <= original_alpha {
                (-64, best)
            } else if best >= beta {
                (best, 64)
            } else {
                (best, best)
            };
            self.table[index] = Entry {
                player,
                opponent,
                lower: lower as i8,
                upper: upper as i8,
                best: best_square,
            };
        }
        best
    }
}
