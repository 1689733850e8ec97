//! The reference evaluator's earlier evaluation, kept as the baseline the pattern
//! evaluation is measured against (`othello-arena bench eval`, `cargo test --test
//! reference`): a linear function of seven features (discs, mobility, potential
//! mobility, corners, X- and C-squares next to empty corners, stable discs) whose
//! weights were fitted by least squares to exact scores of 3,000 self-play positions
//! at 12-16 empties.

use super::midgame::Evaluator;
use super::pattern::SCALE;
use game::othello::bitboard::{adjacent, legal_moves, stable_discs};

/// Corner squares.
const CORNERS: u64 = 0x8100_0000_0000_0081;
/// X-squares (diagonal to a corner), in the order of [`CORNER_LIST`].
const X_SQUARES: [u64; 4] = [1 << 9, 1 << 14, 1 << 49, 1 << 54];
/// C-squares (beside a corner on the edge), in the order of [`CORNER_LIST`].
const C_SQUARES: [u64; 4] = [
    (1 << 1) | (1 << 8),
    (1 << 6) | (1 << 15),
    (1 << 48) | (1 << 57),
    (1 << 55) | (1 << 62),
];
/// The corners one by one: a1, h1, a8, h8.
const CORNER_LIST: [u64; 4] = [1, 1 << 7, 1 << 56, 1 << 63];

/// Number of evaluation features.
pub const FEATURES: usize = 7;

/// Weights of [`features`], fitted to exact scores (see the module docs).
pub const EVAL_WEIGHTS: [f64; FEATURES] = [-0.62, 3.55, -0.66, 6.54, -4.52, -2.61, 1.32];

/// Empty squares next to a disc of `bits`.
fn frontier(bits: u64, empty: u64) -> u64 {
    adjacent(bits) & empty
}

/// The evaluation features for the side to move, each as (own - opponent's).
pub fn features(player: u64, opponent: u64) -> [f64; FEATURES] {
    let empty = !(player | opponent);
    let count = |bits: u64| f64::from(bits.count_ones());
    let diff = |f: &dyn Fn(u64, u64) -> u64| count(f(player, opponent)) - count(f(opponent, player));
    let near_empty_corner = |own: u64, squares: &[u64; 4]| {
        CORNER_LIST
            .iter()
            .zip(squares)
            .filter(|(corner, _)| *corner & empty != 0)
            .map(|(_, sq)| (sq & own).count_ones())
            .sum::<u32>()
    };
    [
        count(player) - count(opponent),
        diff(&|p, o| legal_moves(p, o)),
        // Potential mobility: empty squares next to the opponent's discs.
        diff(&|p, o| frontier(o, !(p | o))),
        count(player & CORNERS) - count(opponent & CORNERS),
        f64::from(near_empty_corner(player, &X_SQUARES)) - f64::from(near_empty_corner(opponent, &X_SQUARES)),
        f64::from(near_empty_corner(player, &C_SQUARES)) - f64::from(near_empty_corner(opponent, &C_SQUARES)),
        diff(&|p, o| stable_discs(p, o)),
    ]
}

/// The heuristic value of a position for the side to move, in discs.
pub fn evaluate(player: u64, opponent: u64) -> f64 {
    features(player, opponent)
        .iter()
        .zip(EVAL_WEIGHTS)
        .map(|(f, w)| f * w)
        .sum()
}

/// The seven-feature linear evaluation as an [`Evaluator`].
#[derive(Clone, Copy, Debug, Default)]
pub struct LinearEval;

impl Evaluator for LinearEval {
    fn evaluate(&self, player: u64, opponent: u64) -> i32 {
        (evaluate(player, opponent) * f64::from(SCALE)).round() as i32
    }
}
