//! Bitboards and the shift-based move generator.
//!
//! Bit `i` is square `i` (a1 = bit 0, h1 = bit 7, a8 = bit 56). Shifting left by 1
//! moves a disc one column right, by 8 one row down. Masks stop runs from wrapping
//! around the board edges.

use std::fmt;

use super::square::Square;

/// Every square except those in columns a and h: masks horizontal and diagonal runs.
const NOT_EDGE_COLUMNS: u64 = 0x7e7e_7e7e_7e7e_7e7e;
/// Every square except those in rows 1 and 8: masks vertical and diagonal runs.
const NOT_EDGE_ROWS: u64 = 0x00ff_ffff_ffff_ff00;
/// Column a.
const COLUMN_A: u64 = 0x0101_0101_0101_0101;
/// Column h.
const COLUMN_H: u64 = 0x8080_8080_8080_8080;
/// Row 1 (the top row).
const ROW_1: u64 = 0x0000_0000_0000_00ff;
/// Row 8 (the bottom row).
const ROW_8: u64 = 0xff00_0000_0000_0000;

/// A set of squares.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Bitboard(pub u64);

impl Bitboard {
    /// The empty set.
    pub const EMPTY: Bitboard = Bitboard(0);

    /// Number of squares in the set.
    pub const fn count(self) -> u32 {
        self.0.count_ones()
    }

    /// Whether the set is empty.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Whether `sq` is in the set.
    pub const fn contains(self, sq: Square) -> bool {
        self.0 & sq.bit() != 0
    }

    /// The squares in row-major order (a1, b1, ..., h8).
    pub fn squares(self) -> Squares {
        Squares(self.0)
    }
}

impl fmt::Display for Bitboard {
    /// Squares separated by ", " in row-major order (seed 000's list format).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, sq) in self.squares().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{sq}")?;
        }
        Ok(())
    }
}

impl IntoIterator for Bitboard {
    type Item = Square;
    type IntoIter = Squares;

    fn into_iter(self) -> Squares {
        self.squares()
    }
}

/// Iterator over the squares of a [`Bitboard`], lowest index first.
#[derive(Clone, Debug)]
pub struct Squares(u64);

impl Iterator for Squares {
    type Item = Square;

    fn next(&mut self) -> Option<Square> {
        if self.0 == 0 {
            return None;
        }
        let index = self.0.trailing_zeros() as u8;
        self.0 &= self.0 - 1;
        Square::new(index)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for Squares {}

/// The four line directions as (shift, mask for the opponent discs a run may cross).
/// Each is used both ways: `<<` and `>>`.
const DIRECTIONS: [(u32, u64); 4] = [
    (1, NOT_EDGE_COLUMNS),
    (8, NOT_EDGE_ROWS),
    (7, NOT_EDGE_COLUMNS & NOT_EDGE_ROWS),
    (9, NOT_EDGE_COLUMNS & NOT_EDGE_ROWS),
];

/// Squares where the player owning `player` may place a disc, given the opponent's
/// discs `opponent` (Kogge-Stone style fills along the 8 directions).
#[inline]
pub fn legal_moves(player: u64, opponent: u64) -> u64 {
    let empty = !(player | opponent);
    let mut moves = 0;
    for (shift, mask) in DIRECTIONS {
        let crossable = opponent & mask;
        let shift2 = shift * 2;

        let pairs = crossable & (crossable << shift);
        let mut run = crossable & (player << shift);
        run |= crossable & (run << shift);
        run |= pairs & (run << shift2);
        run |= pairs & (run << shift2);
        moves |= run << shift;

        let pairs = crossable & (crossable >> shift);
        let mut run = crossable & (player >> shift);
        run |= crossable & (run >> shift);
        run |= pairs & (run >> shift2);
        run |= pairs & (run >> shift2);
        moves |= run >> shift;
    }
    moves & empty
}

/// Squares next to (in any of the 8 directions) a square of `bits`.
#[inline]
pub fn adjacent(bits: u64) -> u64 {
    const NOT_A: u64 = 0xfefe_fefe_fefe_fefe;
    const NOT_H: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    let vertical = (bits << 8) | (bits >> 8);
    let east = ((bits << 1) | (bits << 9) | (bits >> 7)) & NOT_A;
    let west = ((bits >> 1) | (bits >> 9) | (bits << 7)) & NOT_H;
    vertical | east | west
}

/// For each square, its rays: the squares beyond it in each of the 8 directions up to
/// the board edge. The first four run toward higher bits (east, south-west, south,
/// south-east), the last four toward lower bits.
const RAYS: [[u64; 8]; 64] = {
    const STEPS: [(i32, i32); 8] = [(0, 1), (1, -1), (1, 0), (1, 1), (0, -1), (-1, 1), (-1, 0), (-1, -1)];
    let mut rays = [[0u64; 8]; 64];
    let mut square = 0;
    while square < 64 {
        let mut direction = 0;
        while direction < 8 {
            let (row_step, col_step) = STEPS[direction];
            let (mut row, mut col) = (square as i32 / 8 + row_step, square as i32 % 8 + col_step);
            while row >= 0 && row < 8 && col >= 0 && col < 8 {
                rays[square][direction] |= 1 << (row * 8 + col);
                row += row_step;
                col += col_step;
            }
            direction += 1;
        }
        square += 1;
    }
    rays
};

/// The opponent discs flipped when the player places a disc on `square`.
/// Returns 0 when the placement flips nothing (it is then illegal).
///
/// Along each ray the first square that is not the opponent's closes the run when
/// it holds a player disc. With AVX2 the four rays of each half run side by side in
/// one vector register (`flips_avx2`); elsewhere, one ray at a time
/// (`flips_by_ray`). Both give the same flips.
#[inline(always)]
pub fn flips(player: u64, opponent: u64, square: Square) -> u64 {
    #[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
    {
        flips_avx2(player, opponent, &RAYS[square.index()])
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "avx2")))]
    {
        flips_by_ray(player, opponent, square)
    }
}

/// [`flips`] one ray at a time, for targets without AVX2 (the move-generation test
/// checks it in every build): the nearest stop is the ray's lowest bit for the rays
/// toward higher bits, its highest bit for the others.
#[cfg_attr(all(target_arch = "x86_64", target_feature = "avx2", not(test)), allow(dead_code))]
#[inline(always)]
pub(crate) fn flips_by_ray(player: u64, opponent: u64, square: Square) -> u64 {
    let rays = &RAYS[square.index()];
    let mut flipped = 0;
    for &ray in &rays[..4] {
        let stops = ray & !opponent;
        let first = stops & stops.wrapping_neg();
        let closed = ((first & player) != 0) as u64;
        flipped |= ray & first.wrapping_sub(1) & closed.wrapping_neg();
    }
    for &ray in &rays[4..] {
        let stops = ray & !opponent;
        let first = (1u64 << 63).checked_shr(stops.leading_zeros()).unwrap_or(0);
        let closed = ((first & player) != 0) as u64;
        flipped |= ray & !(first << 1).wrapping_sub(1) & closed.wrapping_neg();
    }
    flipped
}

/// [`flips`] with the four rays of each half in one AVX2 register. Toward higher
/// bits the nearest stop is the lowest bit (`x & -x`). Toward lower bits, which have
/// no vector leading-zero count, every stop is smeared away from the square along
/// its ray (shifts of 1, 2 and 4 steps cover the longest ray, 7 squares): the
/// squares left unsmeared lie between the square and its nearest stop.
#[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
#[inline(always)]
fn flips_avx2(player: u64, opponent: u64, rays: &[u64; 8]) -> u64 {
    use std::arch::x86_64::*;
    // SAFETY: this code is compiled only for targets with AVX2 (the cfg above), and
    // the two loads read the eight rays of `rays`, 32 bytes each half.
    unsafe {
        let player = _mm256_set1_epi64x(player as i64);
        let opponent = _mm256_set1_epi64x(opponent as i64);
        let zero = _mm256_setzero_si256();

        let up = _mm256_loadu_si256(rays.as_ptr().cast());
        let stops = _mm256_andnot_si256(opponent, up);
        let first = _mm256_and_si256(stops, _mm256_sub_epi64(zero, stops));
        let open = _mm256_cmpeq_epi64(_mm256_and_si256(first, player), zero);
        let run = _mm256_and_si256(up, _mm256_add_epi64(first, _mm256_set1_epi64x(-1)));
        let flipped_up = _mm256_andnot_si256(open, run);

        // The steps of the rays toward lower bits (west, north-east, north, north-west).
        let step = _mm256_set_epi64x(9, 8, 7, 1);
        let down = _mm256_loadu_si256(rays.as_ptr().add(4).cast());
        let stops = _mm256_andnot_si256(opponent, down);
        let mut beyond = _mm256_or_si256(stops, _mm256_srlv_epi64(stops, step));
        beyond = _mm256_or_si256(beyond, _mm256_srlv_epi64(beyond, _mm256_add_epi64(step, step)));
        beyond = _mm256_or_si256(beyond, _mm256_srlv_epi64(beyond, _mm256_slli_epi64::<2>(step)));
        let first = _mm256_andnot_si256(_mm256_srlv_epi64(beyond, step), stops);
        let open = _mm256_cmpeq_epi64(_mm256_and_si256(first, player), zero);
        let flipped_down = _mm256_andnot_si256(open, _mm256_andnot_si256(beyond, down));

        let flipped = _mm256_or_si256(flipped_up, flipped_down);
        let half = _mm_or_si128(_mm256_castsi256_si128(flipped), _mm256_extracti128_si256::<1>(flipped));
        (_mm_cvtsi128_si64(half) | _mm_extract_epi64::<1>(half)) as u64
    }
}

/// Squares of `set` from which every square up to the board edge, walking along
/// `shift` toward lower indices (or higher ones when `toward_lower` is false),
/// is also in `set`, the square itself included.
fn runs_to_edge(set: u64, shift: u32, toward_lower: bool) -> u64 {
    // A run toward lower indices starts at the edge it walks off and grows by
    // stepping to higher indices; squares a step would reach only by wrapping
    // around a side edge are masked out.
    let (edge, wrapped) = match (shift, toward_lower) {
        (1, true) => (COLUMN_A, COLUMN_A),
        (1, false) => (COLUMN_H, COLUMN_H),
        (8, true) => (ROW_1, 0),
        (8, false) => (ROW_8, 0),
        (9, true) => (COLUMN_A | ROW_1, COLUMN_A),
        (9, false) => (COLUMN_H | ROW_8, COLUMN_H),
        (7, true) => (COLUMN_H | ROW_1, COLUMN_H),
        (7, false) => (COLUMN_A | ROW_8, COLUMN_A),
        _ => unreachable!("line shifts are 1, 7, 8 and 9"),
    };
    let mut run = set & edge;
    for _ in 0..7 {
        let step = if toward_lower { run << shift } else { run >> shift };
        run |= set & step & !wrapped;
    }
    run
}

/// Stable discs of `player` by seed 000's definition: a disc is stable when, on each
/// of its four lines (row, column, two diagonals), either its own discs run unbroken
/// from it to an edge in one of the two directions, or the whole line is filled.
pub fn stable_discs(player: u64, opponent: u64) -> u64 {
    let occupied = player | opponent;
    let mut stable = player;
    for (shift, _) in DIRECTIONS {
        let own_to_edge = runs_to_edge(player, shift, true) | runs_to_edge(player, shift, false);
        let line_full = runs_to_edge(occupied, shift, true) & runs_to_edge(occupied, shift, false);
        stable &= own_to_edge | line_full;
    }
    stable
}

/// Squares of each full diagonal (`row - col` constant) and anti-diagonal (`row + col`
/// constant) of length 3 or more.
const DIAGONALS: [u64; 22] = {
    let mut lines = [0u64; 22];
    let mut n = 0;
    let mut k = 0;
    while k < 15 {
        let (mut diagonal, mut anti) = (0u64, 0u64);
        let mut sq = 0;
        while sq < 64 {
            let (row, col) = (sq / 8, sq % 8);
            if row + 7 - col == k {
                diagonal |= 1 << sq;
            }
            if row + col == k {
                anti |= 1 << sq;
            }
            sq += 1;
        }
        if diagonal.count_ones() >= 3 {
            lines[n] = diagonal;
            lines[n + 1] = anti;
            n += 2;
        }
        k += 1;
    }
    lines
};

/// Discs of `player` that no sequence of moves can flip: on each of its four lines
/// (row, column, two diagonals) the disc either has the board edge or a disc of this
/// set beside it, or the line is full (no move can land on it). Found by growing the
/// set from the corners. Unlike [`stable_discs`] (seed 000's looser definition) this
/// set is sound, so a search may bound scores with it.
pub fn provably_stable(player: u64, opponent: u64) -> u64 {
    const NOT_A: u64 = !COLUMN_A;
    const NOT_H: u64 = !COLUMN_H;
    const EDGES: u64 = COLUMN_A | COLUMN_H | ROW_1 | ROW_8;
    let filled = player | opponent;
    let mut full_rows = 0;
    let mut full_columns = 0;
    for i in 0..8 {
        let row = ROW_1 << (8 * i);
        if filled & row == row {
            full_rows |= row;
        }
        let column = COLUMN_A << i;
        if filled & column == column {
            full_columns |= column;
        }
    }
    let mut full_diagonals = 0;
    let mut full_antis = 0;
    for pair in DIAGONALS.chunks(2) {
        if filled & pair[0] == pair[0] {
            full_diagonals |= pair[0];
        }
        if filled & pair[1] == pair[1] {
            full_antis |= pair[1];
        }
    }
    // Diagonals of one or two squares lie on the edges, which settle them anyway.
    let (row_ok, column_ok) = (full_rows | COLUMN_A | COLUMN_H, full_columns | ROW_1 | ROW_8);
    let (diagonal_ok, anti_ok) = (full_diagonals | EDGES, full_antis | EDGES);
    let mut stable = 0;
    loop {
        let horizontal = row_ok | ((stable << 1) & NOT_A) | ((stable >> 1) & NOT_H);
        let vertical = column_ok | (stable << 8) | (stable >> 8);
        let diagonal = diagonal_ok | ((stable << 9) & NOT_A) | ((stable >> 9) & NOT_H);
        let anti = anti_ok | ((stable << 7) & NOT_H) | ((stable >> 7) & NOT_A);
        let grown = player & horizontal & vertical & diagonal & anti;
        if grown == stable {
            return stable;
        }
        stable = grown;
    }
}
