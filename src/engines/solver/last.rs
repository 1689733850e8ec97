//! The last few empties, where most of a solve's nodes lie: no transposition table,
//! fail-soft alpha-beta (most calls come with a null window).
//!
//! - [`shallow`]: 5 to [`SHALLOW_MAX_EMPTIES`] empties; legal moves from the move
//!   generator, in parity order (squares of quadrants holding an odd number of
//!   empties first) up to [`PARITY_MAX_EMPTIES`], fastest first above (measured on
//!   FFO #40-#44: a table and fastest-first at 7 empties cost more time than the
//!   nodes they save, parity alone at 7 searched 28% more nodes).
//! - [`solve_4`], [`solve_3`], [`solve_2`]: no move generation at all: each empty
//!   square next to an opponent disc is tried, and a placement that flips nothing is
//!   skipped. The parity order needs no counting below 5 empties: a move flips the
//!   parity of its quadrant, and with three empties the order changes only when two
//!   share a quadrant (the third comes first).
//! - [`last_1`]: the final move is counted, not made: with one empty square every
//!   other square is full, so the mover's flips alone give the score.
//!
//! Every position visited counts one node, as in the deeper search (a pass visits
//! the same discs again with the other side to move, and counts again).

use game::othello::bitboard::{flips, legal_moves};
use game::othello::Square;

use crate::bits::gather;
use crate::midgame::final_score;

/// The most empties searched here; more go to the solver's main search.
pub const SHALLOW_MAX_EMPTIES: u32 = 7;
/// Up to this many empties, moves go in parity order alone; above, fastest first.
const PARITY_MAX_EMPTIES: u32 = 6;

/// The four 4x4 quadrants.
const QUADRANTS: [u64; 4] = [
    0x0000_0000_0f0f_0f0f,
    0x0000_0000_f0f0_f0f0,
    0x0f0f_0f0f_0000_0000,
    0xf0f0_f0f0_0000_0000,
];

/// The quadrants holding an odd number of the squares of `empty`.
#[inline]
pub fn odd_quadrants(empty: u64) -> u64 {
    let mut odd = 0;
    for q in QUADRANTS {
        odd |= q & ((empty & q).count_ones() as u64 & 1).wrapping_neg();
    }
    odd
}

/// The square with index `index` (below 64).
#[inline]
fn square(index: u32) -> Square {
    Square::new(index as u8).expect("a square index is below 64")
}

/// For each square, the squares next to it.
const NEIGHBOURS: [u64; 64] = {
    let mut table = [0u64; 64];
    let mut i = 0;
    while i < 64 {
        let (row, col) = (i as i32 / 8, i as i32 % 8);
        let mut dr = -1;
        while dr <= 1 {
            let mut dc = -1;
            while dc <= 1 {
                let (r, c) = (row + dr, col + dc);
                if (dr != 0 || dc != 0) && r >= 0 && r < 8 && c >= 0 && c < 8 {
                    table[i] |= 1 << (r * 8 + c);
                }
                dc += 1;
            }
            dr += 1;
        }
        i += 1;
    }
    table
};

/// The discs `player` flips by playing `index`, 0 when it is not a legal move;
/// skips the flip computation when no opponent disc touches the square.
#[inline(always)]
fn flips_at(player: u64, opponent: u64, index: u32) -> u64 {
    if NEIGHBOURS[index as usize] & opponent == 0 {
        0
    } else {
        flips(player, opponent, square(index))
    }
}

/// For each square, its four lines (row, column, diagonal, anti-diagonal) as the
/// line's squares and the square's place among them in index order.
const LINES: [[(u64, u8); 4]; 64] = {
    let mut lines = [[(0u64, 0u8); 4]; 64];
    let mut square = 0;
    while square < 64 {
        let (row, col) = (square as i32 / 8, square as i32 % 8);
        let mut masks = [0u64; 4];
        let mut other = 0;
        while other < 64 {
            let (r, c) = (other / 8, other % 8);
            let on = [r == row, c == col, r - c == row - col, r + c == row + col];
            let mut k = 0;
            while k < 4 {
                if on[k] {
                    masks[k] |= 1 << other;
                }
                k += 1;
            }
            other += 1;
        }
        let mut k = 0;
        while k < 4 {
            let below = masks[k] & ((1u64 << square) - 1);
            lines[square][k] = (masks[k], below.count_ones() as u8);
            k += 1;
        }
        square += 1;
    }
    lines
};

/// On a full line (but for the square placed on), the discs a placement at place
/// `place` flips given the mover's discs `line` (bit `j`: the line's `j`-th square;
/// every other square is the opponent's, or off the board beyond the line's end,
/// which closes nothing).
const LAST_FLIPS: [[u8; 256]; 8] = {
    let mut table = [[0u8; 256]; 8];
    let mut place = 0;
    while place < 8 {
        let mut line = 0;
        while line < 256 {
            let mut count = 0;
            let mut j = place + 1;
            while j < 8 && line >> j & 1 == 0 {
                j += 1;
            }
            if j < 8 {
                count += j - place - 1;
            }
            let mut j = place as i32 - 1;
            while j >= 0 && line >> j & 1 == 0 {
                j -= 1;
            }
            if j >= 0 {
                count += place - j as usize - 1;
            }
            table[place][line] = count as u8;
            line += 1;
        }
        place += 1;
    }
    table
};

/// The discs the owner of `discs` flips by placing on `index`, the only empty square.
#[inline]
pub(super) fn last_flips(discs: u64, index: u32) -> i32 {
    LINES[index as usize]
        .iter()
        .map(|&(mask, place)| i32::from(LAST_FLIPS[place as usize][gather(discs, mask) as usize]))
        .sum()
}

/// The exact score for the side to move (`player`) with one empty square left,
/// `empty`: every other square is full, so each side's flips there come from its
/// own discs on the square's four lines, read from a table.
#[inline(always)]
pub fn last_1(player: u64, empty: u64, nodes: &mut u64) -> i32 {
    *nodes += 1;
    let index = empty.trailing_zeros();
    // player - opponent before the last move: 63 discs, so the difference is odd.
    let diff = 2 * player.count_ones() as i32 - 63;
    let mine = last_flips(player, index);
    if mine > 0 {
        return diff + 2 * mine + 1;
    }
    // A pass: the opponent takes the square if it can.
    *nodes += 1;
    let theirs = last_flips(!player & !empty, index);
    if theirs > 0 {
        diff - 2 * theirs - 1
    } else if diff > 0 {
        diff + 1
    } else {
        diff - 1
    }
}

/// Two empty squares: each tried in turn (parity says nothing with two).
pub fn solve_2(player: u64, opponent: u64, alpha: i32, beta: i32, nodes: &mut u64) -> i32 {
    *nodes += 1;
    let empty = !(player | opponent);
    let first = empty.trailing_zeros();
    let second = 63 - empty.leading_zeros();
    let mut best = -65;
    let mut alpha = alpha;
    for (index, other) in [(first, second), (second, first)] {
        let f = flips_at(player, opponent, index);
        if f != 0 {
            let value = -last_1(opponent & !f, 1u64 << other, nodes);
            if value > best {
                best = value;
                if value >= beta {
                    return value;
                }
                alpha = alpha.max(value);
            }
        }
    }
    if best > -65 {
        return best;
    }
    // No move: the opponent's turn, or the end.
    *nodes += 1;
    let mut best = 65;
    let mut beta = beta;
    for (index, other) in [(first, second), (second, first)] {
        let f = flips_at(opponent, player, index);
        if f != 0 {
            // The player, to move after the opponent's move, has one empty square.
            let value = last_1(player & !f, 1u64 << other, nodes);
            if value < best {
                best = value;
                if value <= alpha {
                    return value;
                }
                beta = beta.min(value);
            }
        }
    }
    if best < 65 {
        best
    } else {
        final_score(player, opponent)
    }
}

/// The empty squares of `empty` in parity order: those of the quadrants of `odd`
/// (see [`odd_quadrants`]) first, then the rest, each by index; returns how many
/// there are.
#[inline]
fn parity_squares(empty: u64, odd: u64, out: &mut [u32; 4]) -> usize {
    let mut count = 0;
    for group in [empty & odd, empty & !odd] {
        let mut bits = group;
        while bits != 0 {
            out[count] = bits.trailing_zeros();
            count += 1;
            bits &= bits - 1;
        }
    }
    count
}

/// The quadrant of square `index`, 0 to 3 as in [`QUADRANTS`].
#[inline(always)]
fn quadrant(index: u32) -> u32 {
    (index >> 2 & 1) | (index >> 4 & 2)
}

/// The three squares of `empty` in parity order, as [`parity_squares`] gives them:
/// with three empties a quadrant is even only when it holds two, and then the third
/// square, alone in its quadrant, comes first.
#[inline(always)]
fn parity_order_3(empty: u64) -> [u32; 3] {
    let a = empty.trailing_zeros();
    let b = (empty & (empty - 1)).trailing_zeros();
    let c = 63 - empty.leading_zeros();
    let (qa, qb, qc) = (quadrant(a), quadrant(b), quadrant(c));
    if qa == qb && qa != qc {
        [c, a, b]
    } else if qa == qc && qa != qb {
        [b, a, c]
    } else {
        [a, b, c]
    }
}

/// Three or four empty squares, `squares` in parity order: each tried in turn,
/// fail-soft alpha-beta, `child` solving the position after a move (given the square
/// played); a pass hands the same squares to the opponent.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn solve_few<C: Fn(u64, u64, i32, i32, u32, &mut u64) -> i32 + Copy>(
    player: u64,
    opponent: u64,
    mut alpha: i32,
    beta: i32,
    squares: &[u32],
    passed: bool,
    nodes: &mut u64,
    child: C,
) -> i32 {
    *nodes += 1;
    let mut best = -65;
    for &index in squares {
        let f = flips_at(player, opponent, index);
        if f != 0 {
            let value = -child(opponent & !f, player | f | (1u64 << index), -beta, -alpha, index, nodes);
            if value > best {
                best = value;
                if value >= beta {
                    return value;
                }
                alpha = alpha.max(value);
            }
        }
    }
    if best > -65 {
        return best;
    }
    if passed {
        return final_score(player, opponent);
    }
    -solve_few(opponent, player, -beta, -alpha, squares, true, nodes, child)
}

/// Three empty squares in parity order (`squares`, from [`parity_order_3`]).
fn solve_3_in(player: u64, opponent: u64, alpha: i32, beta: i32, squares: [u32; 3], nodes: &mut u64) -> i32 {
    solve_few(
        player,
        opponent,
        alpha,
        beta,
        &squares,
        false,
        nodes,
        |p, o, alpha, beta, _, nodes| solve_2(p, o, alpha, beta, nodes),
    )
}

/// Three empty squares.
pub fn solve_3(player: u64, opponent: u64, alpha: i32, beta: i32, nodes: &mut u64) -> i32 {
    solve_3_in(
        player,
        opponent,
        alpha,
        beta,
        parity_order_3(!(player | opponent)),
        nodes,
    )
}

/// Four empty squares in parity order (`odd`: the odd quadrants, see
/// [`odd_quadrants`]), each child's three squares put in order without counting
/// quadrants again.
fn solve_4_in(player: u64, opponent: u64, alpha: i32, beta: i32, odd: u64, nodes: &mut u64) -> i32 {
    let empty = !(player | opponent);
    let mut squares = [0u32; 4];
    let count = parity_squares(empty, odd, &mut squares);
    solve_few(
        player,
        opponent,
        alpha,
        beta,
        &squares[..count],
        false,
        nodes,
        |p, o, alpha, beta, index, nodes| {
            solve_3_in(p, o, alpha, beta, parity_order_3(empty & !(1u64 << index)), nodes)
        },
    )
}

/// Four empty squares.
pub fn solve_4(player: u64, opponent: u64, alpha: i32, beta: i32, nodes: &mut u64) -> i32 {
    solve_4_in(
        player,
        opponent,
        alpha,
        beta,
        odd_quadrants(!(player | opponent)),
        nodes,
    )
}

/// Five to [`SHALLOW_MAX_EMPTIES`] empties: the legal moves in parity order.
pub fn shallow(player: u64, opponent: u64, mut alpha: i32, beta: i32, nodes: &mut u64) -> i32 {
    *nodes += 1;
    let empty = !(player | opponent);
    let empties = empty.count_ones();
    let moves = legal_moves(player, opponent);
    if moves == 0 {
        if legal_moves(opponent, player) == 0 {
            return final_score(player, opponent);
        }
        return -shallow(opponent, player, -beta, -alpha, nodes);
    }
    let odd = odd_quadrants(empty);
    if empties > PARITY_MAX_EMPTIES {
        return fastest_first(player, opponent, moves, odd, alpha, beta, nodes);
    }
    let mut best = -65;
    for group in [moves & odd, moves & !odd] {
        let mut bits = group;
        while bits != 0 {
            let index = bits.trailing_zeros();
            bits &= bits - 1;
            let f = flips(player, opponent, square(index));
            let (p, o) = (opponent & !f, player | f | (1u64 << index));
            let value = if empties == 5 {
                // Playing a square flips the parity of its quadrant.
                let odd = odd ^ QUADRANTS[quadrant(index) as usize];
                -solve_4_in(p, o, -beta, -alpha, odd, nodes)
            } else {
                -shallow(p, o, -beta, -alpha, nodes)
            };
            if value > best {
                best = value;
                if value >= beta {
                    return value;
                }
                alpha = alpha.max(value);
            }
        }
    }
    best
}

/// Moves ordered by the opponent's replies (corners counted twice), fewest first,
/// a move into an odd quadrant first among equals; each picked when it is needed.
fn fastest_first(player: u64, opponent: u64, moves: u64, odd: u64, mut alpha: i32, beta: i32, nodes: &mut u64) -> i32 {
    const CORNERS: u64 = 0x8100_0000_0000_0081;
    // A move per empty square at most.
    let mut ordered = [(0u32, 0u64, 0u64); SHALLOW_MAX_EMPTIES as usize];
    let mut count = 0;
    let mut bits = moves;
    while bits != 0 {
        let index = bits.trailing_zeros();
        bits &= bits - 1;
        let f = flips(player, opponent, square(index));
        let (p, o) = (opponent & !f, player | f | (1u64 << index));
        let replies = legal_moves(p, o);
        let even = u32::from((1u64 << index) & odd == 0);
        ordered[count] = (
            4 * (replies.count_ones() + (replies & CORNERS).count_ones()) + even,
            p,
            o,
        );
        count += 1;
    }
    let mut best = -65;
    for i in 0..count {
        let next = (i..count).min_by_key(|&j| ordered[j].0).expect("a move is left");
        ordered.swap(i, next);
        let (_, p, o) = ordered[i];
        let value = -shallow(p, o, -beta, -alpha, nodes);
        if value > best {
            best = value;
            if value >= beta {
                return value;
            }
            alpha = alpha.max(value);
        }
    }
    best
}

/// The exact score of a position with at most [`SHALLOW_MAX_EMPTIES`] empties, by the
/// solver for its number of empties.
pub fn solve_small(player: u64, opponent: u64, alpha: i32, beta: i32, nodes: &mut u64) -> i32 {
    let empty = !(player | opponent);
    match empty.count_ones() {
        0 => {
            *nodes += 1;
            final_score(player, opponent)
        }
        1 => last_1(player, empty, nodes),
        2 => solve_2(player, opponent, alpha, beta, nodes),
        3 => solve_3(player, opponent, alpha, beta, nodes),
        4 => solve_4(player, opponent, alpha, beta, nodes),
        _ => shallow(player, opponent, alpha, beta, nodes),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each set of three empty squares, as a bitboard.
    fn triples() -> impl Iterator<Item = u64> {
        (0..64).flat_map(|a| (a + 1..64).flat_map(move |b| (b + 1..64).map(move |c| 1u64 << a | 1u64 << b | 1u64 << c)))
    }

    #[test]
    fn the_parity_order_of_three_squares_needs_no_counting() {
        for empty in triples() {
            let mut counted = [0u32; 4];
            assert_eq!(parity_squares(empty, odd_quadrants(empty), &mut counted), 3);
            assert_eq!(parity_order_3(empty), counted[..3], "empties {empty:#018x}");
        }
    }

    #[test]
    fn a_move_flips_the_parity_of_its_quadrant() {
        for empty in triples() {
            let odd = odd_quadrants(empty);
            let mut bits = empty;
            while bits != 0 {
                let index = bits.trailing_zeros();
                bits &= bits - 1;
                let after = empty & !(1u64 << index);
                assert_eq!(odd ^ QUADRANTS[quadrant(index) as usize], odd_quadrants(after));
            }
        }
    }
}
