//! Squares, colors, moves and per-color storage.

use std::fmt;
use std::ops::{Index, IndexMut, Not};
use std::str::FromStr;

/// One of the 64 squares. Index = row * 8 + col; a1 = 0 is the top-left corner,
/// row 1 is the top row and column a the left column (seed 000's coordinates).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(u8);

impl Square {
    /// a1, the top-left corner.
    pub const A1: Square = Square(0);
    /// h8, the bottom-right corner.
    pub const H8: Square = Square(63);

    /// All 64 squares in row-major order (a1, b1, ..., h1, a2, ...).
    pub const ALL: [Square; 64] = {
        let mut all = [Square(0); 64];
        let mut i = 0;
        while i < 64 {
            all[i] = Square(i as u8);
            i += 1;
        }
        all
    };

    /// The square with this index, or `None` when `index >= 64`.
    pub const fn new(index: u8) -> Option<Square> {
        if index < 64 {
            Some(Square(index))
        } else {
            None
        }
    }

    /// The square at `row` and `col` (both 0..8), or `None` off the board.
    pub const fn from_row_col(row: u8, col: u8) -> Option<Square> {
        if row < 8 && col < 8 {
            Some(Square(row * 8 + col))
        } else {
            None
        }
    }

    /// The index 0..64 (row-major, a1 = 0).
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The row, 0 for row 1 (top) to 7 for row 8.
    pub const fn row(self) -> u8 {
        self.0 / 8
    }

    /// The column, 0 for column a to 7 for column h.
    pub const fn col(self) -> u8 {
        self.0 % 8
    }

    /// The single-bit mask of this square.
    pub const fn bit(self) -> u64 {
        1u64 << self.0
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", (b'a' + self.col()) as char, self.row() + 1)
    }
}

/// A coordinate that is not of the form `a1`..`h8`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid square {text:?}: expected a column a-h followed by a row 1-8, such as d3")]
pub struct ParseSquareError {
    /// The text that failed to parse.
    pub text: String,
}

impl FromStr for Square {
    type Err = ParseSquareError;

    /// Parses `d3` (either case, surrounding whitespace ignored).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let err = || ParseSquareError { text: s.to_string() };
        let bytes = s.trim().as_bytes();
        if bytes.len() != 2 {
            return Err(err());
        }
        let col = bytes[0].to_ascii_lowercase().wrapping_sub(b'a');
        let row = bytes[1].wrapping_sub(b'1');
        Square::from_row_col(row, col).ok_or_else(err)
    }
}

/// The color of a disc or of the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Color {
    /// Black moves first.
    Black,
    /// White.
    White,
}

impl Color {
    /// Both colors, black first.
    pub const BOTH: [Color; 2] = [Color::Black, Color::White];

    /// The lowercase English name, as used on the command line and in JSON.
    pub const fn name(self) -> &'static str {
        match self {
            Color::Black => "black",
            Color::White => "white",
        }
    }
}

impl Not for Color {
    type Output = Color;

    fn not(self) -> Color {
        match self {
            Color::Black => Color::White,
            Color::White => Color::Black,
        }
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A color name that is neither black nor white.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid color {text:?}: expected black or white (or b / w / X / O)")]
pub struct ParseColorError {
    /// The text that failed to parse.
    pub text: String,
}

impl FromStr for Color {
    type Err = ParseColorError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "black" | "b" | "x" => Ok(Color::Black),
            "white" | "w" | "o" => Ok(Color::White),
            _ => Err(ParseColorError { text: s.to_string() }),
        }
    }
}

/// One value per color.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ByColor<T> {
    /// Black's value.
    pub black: T,
    /// White's value.
    pub white: T,
}

impl<T> ByColor<T> {
    /// Each side's value through `f`.
    pub fn map<U>(self, mut f: impl FnMut(T) -> U) -> ByColor<U> {
        ByColor {
            black: f(self.black),
            white: f(self.white),
        }
    }

    /// References to each side's value.
    pub fn as_ref(&self) -> ByColor<&T> {
        ByColor {
            black: &self.black,
            white: &self.white,
        }
    }
}

impl<T> Index<Color> for ByColor<T> {
    type Output = T;

    fn index(&self, color: Color) -> &T {
        match color {
            Color::Black => &self.black,
            Color::White => &self.white,
        }
    }
}

impl<T> IndexMut<Color> for ByColor<T> {
    fn index_mut(&mut self, color: Color) -> &mut T {
        match color {
            Color::Black => &mut self.black,
            Color::White => &mut self.white,
        }
    }
}

/// A move: a disc placed on a square, or a pass (only when no placement is legal).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Move {
    /// Place a disc on the square.
    Place(Square),
    /// Pass the turn.
    Pass,
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Move::Place(sq) => sq.fmt(f),
            Move::Pass => f.write_str("pass"),
        }
    }
}

impl FromStr for Move {
    type Err = ParseSquareError;

    /// Parses `d3` or `pass`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s.trim().eq_ignore_ascii_case("pass") {
            Ok(Move::Pass)
        } else {
            s.parse().map(Move::Place)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coordinates_follow_seed_000() {
        let d3: Square = "d3".parse().unwrap();
        assert_eq!(d3.index(), 19);
        assert_eq!((d3.row(), d3.col()), (2, 3));
        assert_eq!(Square::A1.to_string(), "a1");
        assert_eq!(Square::H8.to_string(), "h8");
        assert_eq!(" H8 ".parse::<Square>().unwrap(), Square::H8);
        for sq in Square::ALL {
            assert_eq!(sq.to_string().parse::<Square>().unwrap(), sq);
        }
    }

    #[test]
    fn bad_squares_are_errors() {
        for bad in ["", "i1", "a9", "a0", "d33", "3d", "pass"] {
            let err = bad.parse::<Square>().unwrap_err();
            assert!(err.to_string().contains("such as d3"), "{err}");
        }
        assert_eq!("PASS".parse::<Move>().unwrap(), Move::Pass);
    }

    #[test]
    fn colors_and_by_color() {
        assert_eq!(!Color::Black, Color::White);
        assert_eq!("W".parse::<Color>().unwrap(), Color::White);
        assert!("red".parse::<Color>().is_err());
        let mut counts = ByColor { black: 1, white: 2 };
        counts[Color::White] += 1;
        assert_eq!(counts[Color::White], 3);
    }
}
