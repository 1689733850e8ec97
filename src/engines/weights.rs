//! The 8x8 square-weight table shared by seeds 001 and 004.

use game::othello::Square;

/// Square weights, row-major from a1: corners +100, X-squares -50, C-squares -20.
pub(crate) const WEIGHTS: [i32; 64] = [
    100, -20, 10, 5, 5, 10, -20, 100, //
    -20, -50, -2, -2, -2, -2, -50, -20, //
    10, -2, 1, 1, 1, 1, -2, 10, //
    5, -2, 1, 0, 0, 1, -2, 5, //
    5, -2, 1, 0, 0, 1, -2, 5, //
    10, -2, 1, 1, 1, 1, -2, 10, //
    -20, -50, -2, -2, -2, -2, -50, -20, //
    100, -20, 10, 5, 5, 10, -20, 100,
];

/// The weight of `sq`.
pub fn weight(sq: Square) -> i32 {
    WEIGHTS[sq.index()]
}

/// Sum of the weights of the squares in `bits`.
pub fn weighted_sum(bits: u64) -> i32 {
    game::othello::Bitboard(bits).squares().map(weight).sum()
}
