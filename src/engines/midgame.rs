//! Depth-limited negamax alpha-beta over a static evaluation, shared by the reference
//! evaluator, the solver's move ordering and the training of the pattern evaluation.
//! Values are in 1/[`SCALE`] discs of final disc difference for the side to move;
//! finished games score exactly (empties to the winner).

use super::pattern::{PatternWeights, SCALE};
use game::othello::bitboard::{flips, legal_moves};
use game::othello::{margin_with_empties, Bitboard};

/// A static evaluation in 1/[`SCALE`] discs for the side to move (`player`).
pub trait Evaluator: Sync {
    /// The value of a position where the side to move has a legal move.
    fn evaluate(&self, player: u64, opponent: u64) -> i32;
}

impl Evaluator for PatternWeights {
    #[inline]
    fn evaluate(&self, player: u64, opponent: u64) -> i32 {
        PatternWeights::evaluate(self, player, opponent)
    }
}

/// Corner squares.
const CORNERS: u64 = 0x8100_0000_0000_0081;
/// Beyond any value: 65 discs, in 1/SCALE discs.
pub(crate) const INFINITE: i32 = 65 * SCALE;

/// Final disc difference for the side to move with empties to the winner, in discs.
pub fn final_score(player: u64, opponent: u64) -> i32 {
    margin_with_empties(player.count_ones(), opponent.count_ones())
}

/// The value of a position for its side to move by a `depth`-ply search.
pub fn search_value<E: Evaluator + ?Sized>(eval: &E, player: u64, opponent: u64, depth: u32, nodes: &mut u64) -> i32 {
    negamax(eval, player, opponent, depth, -INFINITE, INFINITE, false, nodes)
}

/// The value of a position by a `depth`-ply search in the window (`alpha`, `beta`),
/// fail-soft: a value at or below `alpha` is an upper bound, at or above `beta` a lower
/// bound.
pub fn search_window<E: Evaluator + ?Sized>(
    eval: &E,
    player: u64,
    opponent: u64,
    depth: u32,
    (alpha, beta): (i32, i32),
    nodes: &mut u64,
) -> i32 {
    negamax(eval, player, opponent, depth, alpha, beta, false, nodes)
}

/// Negamax alpha-beta (fail-soft) to `depth` plies.
#[allow(clippy::too_many_arguments)]
fn negamax<E: Evaluator + ?Sized>(
    eval: &E,
    player: u64,
    opponent: u64,
    depth: u32,
    mut alpha: i32,
    beta: i32,
    passed: bool,
    nodes: &mut u64,
) -> i32 {
    *nodes += 1;
    let moves = legal_moves(player, opponent);
    if moves == 0 {
        if passed || legal_moves(opponent, player) == 0 {
            return final_score(player, opponent) * SCALE;
        }
        return -negamax(eval, opponent, player, depth, -beta, -alpha, true, nodes);
    }
    if depth == 0 {
        return eval.evaluate(player, opponent);
    }
    // Corners first, then by the opponent's replies, fewest first; higher up a
    // one-ply evaluation orders them. Above the leaves, in index order: each child is
    // one evaluation, no dearer than the key that would order it (on the stack: no
    // position has more than 33 legal moves).
    let mut ordered = [(0i32, 0u64, 0u64); 36];
    let mut count = 0;
    for square in Bitboard(moves) {
        let f = flips(player, opponent, square);
        let (p, o) = (opponent & !f, player | f | square.bit());
        let key = if depth >= 3 {
            eval_or_final(eval, p, o)
        } else if depth == 2 {
            let corner_first = if square.bit() & CORNERS != 0 { 0 } else { 32 };
            legal_moves(p, o).count_ones() as i32 + corner_first
        } else {
            0
        };
        ordered[count] = (key, p, o);
        count += 1;
    }
    if depth > 1 {
        ordered[..count].sort_unstable_by_key(|&(key, p, _)| (key, p));
    }
    let mut best = -INFINITE;
    for &(_, p, o) in &ordered[..count] {
        let value = -negamax(eval, p, o, depth - 1, -beta, -alpha, false, nodes);
        best = best.max(value);
        alpha = alpha.max(value);
        if alpha >= beta {
            break;
        }
    }
    best
}

/// The static value of a position whatever its state: exact when over, from the
/// opponent's view after a pass.
fn eval_or_final<E: Evaluator + ?Sized>(eval: &E, player: u64, opponent: u64) -> i32 {
    if legal_moves(player, opponent) != 0 {
        eval.evaluate(player, opponent)
    } else if legal_moves(opponent, player) != 0 {
        -eval.evaluate(opponent, player)
    } else {
        final_score(player, opponent) * SCALE
    }
}
