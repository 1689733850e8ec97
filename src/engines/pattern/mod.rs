//! The pattern evaluation: Logistello's design. A position's value for the side to
//! move is a sum of weights, one per placed shape (each filling of an edge, corner
//! block, line or diagonal has its own weight, and the shape's copies under the
//! board's symmetries share one table), plus weights for both sides' mobility and a
//! bias, with a separate set of weights for each game phase (four empty squares wide).
//!
//! The weights are trained by `othello-arena train-eval` ([`crate::lab::train_pattern_eval`])
//! from self-play positions it labels itself, and ship in `weights.bin` beside this
//! file, built into the binary and checked against [`SHIPPED_SHA256`] when first used.
//! Values are in 1/[`SCALE`] discs of final disc difference.

mod file;

use std::sync::OnceLock;

use crate::bits::gather;
use game::othello::{transform_square, Square};

pub use file::{sha256_hex, LoadWeightsError, SHIPPED_SHA256};

/// Weights are stored in units of 1/SCALE disc.
pub const SCALE: i32 = 64;
/// Number of game phases.
pub const PHASES: usize = 15;
/// Mobility counts at or above this share the last mobility weight.
const MOBILITY_CAP: usize = 31;

/// The phase of a position with `empties` empty squares: four empties per phase (the
/// last also holds the start position's 60).
pub fn phase(empties: u32) -> usize {
    (empties.min(59) / 4) as usize
}

/// The empty-square counts of `phase`.
pub fn phase_empties(phase: usize) -> std::ops::RangeInclusive<u32> {
    let low = 4 * phase as u32;
    low..=if phase + 1 == PHASES { 60 } else { low + 3 }
}

/// A shape of squares, drawn in the a1 corner (squares row-major from a1 = 0).
struct Shape {
    name: &'static str,
    squares: &'static [u8],
}

/// The shapes: edges with their X-squares, two corner blocks, the second to fourth
/// lines and the diagonals of four to eight squares.
const SHAPES: [Shape; 11] = [
    Shape {
        name: "edge + 2 X-squares",
        squares: &[0, 1, 2, 3, 4, 5, 6, 7, 9, 14],
    },
    Shape {
        name: "corner 3x3",
        squares: &[0, 1, 2, 8, 9, 10, 16, 17, 18],
    },
    Shape {
        name: "corner 2x5",
        squares: &[0, 1, 2, 3, 4, 8, 9, 10, 11, 12],
    },
    Shape {
        name: "line 2",
        squares: &[8, 9, 10, 11, 12, 13, 14, 15],
    },
    Shape {
        name: "line 3",
        squares: &[16, 17, 18, 19, 20, 21, 22, 23],
    },
    Shape {
        name: "line 4",
        squares: &[24, 25, 26, 27, 28, 29, 30, 31],
    },
    Shape {
        name: "diagonal 8",
        squares: &[0, 9, 18, 27, 36, 45, 54, 63],
    },
    Shape {
        name: "diagonal 7",
        squares: &[1, 10, 19, 28, 37, 46, 55],
    },
    Shape {
        name: "diagonal 6",
        squares: &[2, 11, 20, 29, 38, 47],
    },
    Shape {
        name: "diagonal 5",
        squares: &[3, 12, 21, 30, 39],
    },
    Shape {
        name: "diagonal 4",
        squares: &[4, 13, 22, 31],
    },
];

/// The longest shape.
const MAX_SHAPE: usize = 10;

/// One copy of a shape on the board: its squares in reading order and where its
/// shape's table starts.
#[derive(Clone, Copy)]
struct Placement {
    offset: u32,
    len: u8,
    squares: [u8; MAX_SHAPE],
    /// The placement's squares as a set.
    mask: u64,
    /// Where its table of base-3 values starts in [`Layout::ternary`].
    ternary: u32,
}

/// Where everything lives in one phase's table, and which entries share a weight.
pub struct Layout {
    placements: Vec<Placement>,
    /// Copies of each shape on the board.
    copies: Vec<usize>,
    /// Offset of the mover's mobility weights (then the opponent's, then the bias).
    mobility: u32,
    /// Entries per phase.
    size: usize,
    /// For each entry, its class of entries that must share one weight (the same
    /// filling seen through a symmetry that maps the shape onto itself).
    canonical: Vec<u32>,
    /// Number of classes.
    classes: usize,
    /// For each placement, the base-3 value (in its reading order) of each subset of
    /// its squares taken as the bits of the set's squares in index order: a
    /// placement's filling is then two lookups (see [`filling`]).
    ternary: Vec<u16>,
}

/// Number of weights a position reads: one per placement, two mobilities, the bias.
pub fn features_per_position() -> usize {
    layout().placements.len() + 3
}

/// A square index under one of the board's 8 symmetries.
fn transform(square: u8, symmetry: u8) -> u8 {
    let square = Square::new(square).expect("shapes name squares of the board");
    transform_square(square, symmetry).index() as u8
}

impl Layout {
    fn new() -> Layout {
        let mut placements = Vec::new();
        let mut copies = Vec::new();
        let mut canonical = Vec::new();
        for shape in &SHAPES {
            let offset = canonical.len() as u32;
            let entries = 3usize.pow(shape.squares.len() as u32);
            let mut seen: Vec<u64> = Vec::new();
            // Reorderings of the shape's own squares by the symmetries that map it
            // onto itself: fillings related by them share a weight.
            let mut reorderings: Vec<Vec<usize>> = Vec::new();
            for symmetry in 0..8 {
                let squares: Vec<u8> = shape.squares.iter().map(|&s| transform(s, symmetry)).collect();
                let set = squares.iter().fold(0u64, |acc, &s| acc | 1 << s);
                if set == shape.squares.iter().fold(0u64, |acc, &s| acc | 1 << s) {
                    reorderings.push(
                        squares
                            .iter()
                            .map(|s| {
                                shape
                                    .squares
                                    .iter()
                                    .position(|t| t == s)
                                    .expect("a square of the shape")
                            })
                            .collect(),
                    );
                }
                if !seen.contains(&set) {
                    seen.push(set);
                    let mut padded = [0u8; MAX_SHAPE];
                    padded[..squares.len()].copy_from_slice(&squares);
                    placements.push(Placement {
                        offset,
                        len: squares.len() as u8,
                        squares: padded,
                        mask: set,
                        ternary: 0,
                    });
                }
            }
            copies.push(seen.len());
            for index in 0..entries {
                let digits = digits(index, shape.squares.len());
                let class = reorderings
                    .iter()
                    .map(|order| order.iter().fold(0usize, |acc, &from| acc * 3 + digits[from]))
                    .min()
                    .expect("the identity maps a shape onto itself");
                canonical.push(offset + class as u32);
            }
        }
        let mobility = canonical.len() as u32;
        for i in 0..2 * (MOBILITY_CAP + 1) + 1 {
            canonical.push(mobility + i as u32);
        }
        // Number the classes densely in order of first appearance.
        let mut dense = vec![u32::MAX; canonical.len()];
        let mut classes = 0;
        for class in canonical.iter_mut() {
            let slot = &mut dense[*class as usize];
            if *slot == u32::MAX {
                *slot = classes;
                classes += 1;
            }
            *class = *slot;
        }
        let mut ternary = Vec::new();
        for placement in &mut placements {
            placement.ternary = ternary.len() as u32;
            ternary.extend(ternary_table(placement));
        }
        Layout {
            placements,
            copies,
            ternary,
            mobility,
            size: canonical.len(),
            canonical,
            classes: classes as usize,
        }
    }

    /// The shared-weight class of each entry of a phase's table.
    pub fn canonical(&self) -> &[u32] {
        &self.canonical
    }

    /// Number of distinct weights per phase.
    pub fn classes(&self) -> usize {
        self.classes
    }

    /// Entries per phase.
    pub fn size(&self) -> usize {
        self.size
    }

    /// The table entries a position reads, for the side to move (`player`).
    pub fn features(&self, player: u64, opponent: u64, out: &mut Vec<u32>) {
        out.clear();
        self.read_entries(player, opponent, |entry| out.push(entry as u32));
    }

    /// A placement's filling as a base-3 number (0 empty, 1 the mover's, 2 the
    /// opponent's, first square most significant): each side's discs on it gathered
    /// into a small number, each looked up.
    #[inline]
    fn filling(&self, placement: &Placement, player: u64, opponent: u64) -> u32 {
        let table = &self.ternary[placement.ternary as usize..];
        let own = table[gather(player, placement.mask) as usize];
        let theirs = table[gather(opponent, placement.mask) as usize];
        u32::from(own) + 2 * u32::from(theirs)
    }

    /// Calls `read` with each table entry a position reads: one per placement, both
    /// sides' mobility and the bias.
    #[inline]
    fn read_entries(&self, player: u64, opponent: u64, mut read: impl FnMut(usize)) {
        for placement in &self.placements {
            read((placement.offset + self.filling(placement, player, opponent)) as usize);
        }
        let (own, theirs) = mobilities(player, opponent);
        let mobility = self.mobility as usize;
        read(mobility + own);
        read(mobility + MOBILITY_CAP + 1 + theirs);
        read(mobility + 2 * (MOBILITY_CAP + 1));
    }
}

/// The base-3 digits of `index` (most significant first) for `len` squares.
fn digits(mut index: usize, len: usize) -> Vec<usize> {
    let mut out = vec![0; len];
    for digit in out.iter_mut().rev() {
        *digit = index % 3;
        index /= 3;
    }
    out
}

/// A placement's filling as a base-3 number: 0 empty, 1 the mover's, 2 the opponent's
/// (square by square; the reference for [`Layout::filling`]'s lookups).
#[cfg(test)]
fn filling(placement: &Placement, player: u64, opponent: u64) -> u32 {
    let mut index = 0;
    for &square in &placement.squares[..placement.len as usize] {
        index = index * 3 + ((player >> square) & 1) as u32 + 2 * ((opponent >> square) & 1) as u32;
    }
    index
}

/// For each subset of a placement's squares (bit `j`: its `j`-th square in index
/// order), the base-3 value with a 1 on each square of the subset, in reading order.
fn ternary_table(placement: &Placement) -> Vec<u16> {
    let squares = &placement.squares[..placement.len as usize];
    let mut by_index: Vec<u8> = squares.to_vec();
    by_index.sort_unstable();
    // The weight of each square: 3 to the power of the squares read after it.
    let weight = |square: u8| {
        let position = squares
            .iter()
            .position(|&s| s == square)
            .expect("a square of the placement");
        3u16.pow((squares.len() - 1 - position) as u32)
    };
    (0..1usize << squares.len())
        .map(|subset| {
            by_index
                .iter()
                .enumerate()
                .filter(|&(j, _)| subset >> j & 1 == 1)
                .map(|(_, &square)| weight(square))
                .sum()
        })
        .collect()
}

/// Both sides' legal-move counts, capped.
#[inline]
fn mobilities(player: u64, opponent: u64) -> (usize, usize) {
    use game::othello::bitboard::legal_moves;
    let own = legal_moves(player, opponent).count_ones() as usize;
    let theirs = legal_moves(opponent, player).count_ones() as usize;
    (own.min(MOBILITY_CAP), theirs.min(MOBILITY_CAP))
}

/// The layout of this build's shapes.
pub fn layout() -> &'static Layout {
    static LAYOUT: OnceLock<Layout> = OnceLock::new();
    LAYOUT.get_or_init(Layout::new)
}

/// Each shape's name, number of squares and number of copies on the board.
pub fn shape_summary() -> Vec<(&'static str, usize, usize)> {
    SHAPES
        .iter()
        .zip(&layout().copies)
        .map(|(shape, &copies)| (shape.name, shape.squares.len(), copies))
        .collect()
}

/// A full set of weights: one table per phase, in 1/[`SCALE`] discs.
#[derive(Clone, Debug, PartialEq)]
pub struct PatternWeights {
    tables: Vec<Vec<i16>>,
}

impl PatternWeights {
    /// All weights zero.
    pub fn zero() -> PatternWeights {
        PatternWeights {
            tables: vec![vec![0; layout().size()]; PHASES],
        }
    }

    /// Weights from one value per shared-weight class and phase.
    pub fn from_classes(classes: &[Vec<i16>]) -> PatternWeights {
        let layout = layout();
        PatternWeights {
            tables: classes
                .iter()
                .map(|values| layout.canonical().iter().map(|&c| values[c as usize]).collect())
                .collect(),
        }
    }

    /// One value per shared-weight class, per phase (the form stored on disk).
    pub fn to_classes(&self) -> Vec<Vec<i16>> {
        let layout = layout();
        self.tables
            .iter()
            .map(|table| {
                let mut values = vec![0; layout.classes()];
                for (entry, &class) in layout.canonical().iter().enumerate() {
                    values[class as usize] = table[entry];
                }
                values
            })
            .collect()
    }

    /// The value of a position for the side to move, in 1/[`SCALE`] discs.
    #[inline]
    pub fn evaluate(&self, player: u64, opponent: u64) -> i32 {
        let empties = (!(player | opponent)).count_ones();
        let table = &self.tables[phase(empties)];
        let mut sum = 0i32;
        layout().read_entries(player, opponent, |entry| sum += i32::from(table[entry]));
        sum
    }
}

/// The weights built into this binary (`weights.bin`), checked against their hash.
pub fn shipped() -> Result<&'static PatternWeights, &'static LoadWeightsError> {
    static SHIPPED: OnceLock<Result<PatternWeights, LoadWeightsError>> = OnceLock::new();
    SHIPPED
        .get_or_init(|| file::load(include_bytes!("weights.bin"), SHIPPED_SHA256))
        .as_ref()
}

/// The shipped weights. A build whose `weights.bin` fails its check stops here with
/// the reason; `cli` checks [`shipped`] before any work and reports it as an error.
pub fn shipped_weights() -> &'static PatternWeights {
    shipped().unwrap_or_else(|e| panic!("{e}"))
}

#[cfg(test)]
mod tests;
