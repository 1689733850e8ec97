//! The 3x3 board: squares (moves), sets of squares, lines, play, and the mark
//! patterns of seed 003.

use std::fmt;
use std::str::FromStr;

use crate::othello::{ByColor, Color, Outcome};

/// A square of the 3x3 board, which is also a move (marubatsu has no passes).
///
/// Squares are numbered 0..9 row by row from the top-left and written as a column
/// letter `a`-`c` and a row digit `1`-`3`, as Othello squares are:
///
/// ```text
///   a  b  c
/// 1 a1 b1 c1     0 1 2
/// 2 a2 b2 c2     3 4 5
/// 3 a3 b3 c3     6 7 8
/// ```
///
/// Seed 003 names a square by `(x, y)` from 0, `x` the column and `y` the row, so its
/// centre `(1, 1)` is `b2` and its `(2, 0)` is `c1`.
///
/// ```
/// use game::marubatsu::Move;
/// let b2: Move = "b2".parse().unwrap();
/// assert_eq!(b2, Move::CENTER);
/// assert_eq!((b2.index(), b2.row(), b2.col()), (4, 1, 1));
/// assert_eq!(Move::from_row_col(0, 2).unwrap().to_string(), "c1");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Move(u8);

impl Move {
    /// The nine squares in index order (a1, b1, c1, a2, ..., c3).
    pub const ALL: [Move; 9] = [
        Move(0),
        Move(1),
        Move(2),
        Move(3),
        Move(4),
        Move(5),
        Move(6),
        Move(7),
        Move(8),
    ];
    /// The centre, b2 (seed 003's `(1, 1)`).
    pub const CENTER: Move = Move(4);
    /// The corners a1, c1, a3, c3 (row-major order).
    pub const CORNERS: [Move; 4] = [Move(0), Move(2), Move(6), Move(8)];

    /// The square with this index (0..9), if any.
    pub const fn new(index: u8) -> Option<Move> {
        if index < 9 {
            Some(Move(index))
        } else {
            None
        }
    }

    /// The square on `row` and `col` (both 0..3), if any.
    pub const fn from_row_col(row: u8, col: u8) -> Option<Move> {
        if row < 3 && col < 3 {
            Some(Move(row * 3 + col))
        } else {
            None
        }
    }

    /// The index 0..9 (row-major from a1).
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The row 0..3 (seed 003's `y`).
    pub const fn row(self) -> u8 {
        self.0 / 3
    }

    /// The column 0..3 (seed 003's `x`).
    pub const fn col(self) -> u8 {
        self.0 % 3
    }

    /// The single-bit mask of this square.
    pub const fn bit(self) -> u16 {
        1 << self.0
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", char::from(b'a' + self.col()), self.row() + 1)
    }
}

/// Text that is not a square `a1`..`c3`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid square {text:?}: expected a column a-c followed by a row 1-3, such as b2")]
pub struct ParseMoveError {
    /// The text that failed to parse.
    pub text: String,
}

impl FromStr for Move {
    type Err = ParseMoveError;

    /// Parses `b2` (either case, surrounding whitespace ignored).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let err = || ParseMoveError { text: s.to_string() };
        let bytes = s.trim().as_bytes();
        if bytes.len() != 2 {
            return Err(err());
        }
        let col = bytes[0].to_ascii_lowercase().wrapping_sub(b'a');
        let row = bytes[1].wrapping_sub(b'1');
        Move::from_row_col(row, col).ok_or_else(err)
    }
}

/// A set of squares as a 9-bit mask (bit `i` is the square with index `i`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct MoveSet(u16);

impl MoveSet {
    /// No square.
    pub const EMPTY: MoveSet = MoveSet(0);
    /// All nine squares.
    pub const FULL: MoveSet = MoveSet(FULL_MASK);

    /// The set with these bits; bits above the ninth are dropped.
    pub const fn from_bits(bits: u16) -> MoveSet {
        MoveSet(bits & FULL_MASK)
    }

    /// The 9-bit mask.
    pub const fn bits(self) -> u16 {
        self.0
    }

    /// How many squares.
    pub const fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    /// True when the set holds no square.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Whether `mv` is in the set.
    pub const fn contains(self, mv: Move) -> bool {
        self.0 & mv.bit() != 0
    }

    /// The squares in index order.
    pub fn iter(self) -> impl Iterator<Item = Move> {
        Move::ALL.into_iter().filter(move |mv| self.contains(*mv))
    }

    /// The squares in index order, collected.
    pub fn to_vec(self) -> Vec<Move> {
        self.iter().collect()
    }
}

impl std::ops::BitAnd for MoveSet {
    type Output = MoveSet;

    /// The squares in both sets.
    fn bitand(self, other: MoveSet) -> MoveSet {
        MoveSet(self.0 & other.0)
    }
}

impl FromIterator<Move> for MoveSet {
    fn from_iter<I: IntoIterator<Item = Move>>(iter: I) -> Self {
        MoveSet(iter.into_iter().fold(0, |bits, mv| bits | mv.bit()))
    }
}

impl fmt::Display for MoveSet {
    /// `a1, b2, c3` in index order; nothing for the empty set.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, mv) in self.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{mv}")?;
        }
        Ok(())
    }
}

/// The nine squares' bits.
const FULL_MASK: u16 = 0x1ff;

/// The eight lines as masks: rows 1-3, columns a-c, the a1-c3 diagonal, the c1-a3 diagonal.
pub(crate) const LINE_MASKS: [u16; 8] = [
    0b000_000_111, // a1 b1 c1
    0b000_111_000, // a2 b2 c2
    0b111_000_000, // a3 b3 c3
    0b001_001_001, // a1 a2 a3
    0b010_010_010, // b1 b2 b3
    0b100_100_100, // c1 c2 c3
    0b100_010_001, // a1 b2 c3
    0b001_010_100, // c1 b2 a3
];

/// The name of a side's mark: 〇 for black (the first player), × for white.
pub const fn mark(color: Color) -> char {
    match color {
        Color::Black => '〇',
        Color::White => '×',
    }
}

/// The ASCII letter of a side's mark: `O` for black (〇), `X` for white (×).
pub const fn mark_letter(color: Color) -> char {
    match color {
        Color::Black => 'O',
        Color::White => 'X',
    }
}

/// A position: the marks of both sides. 〇 ([`Color::Black`]) moves first, so the
/// side to move follows from the counts: 〇 when they are equal, × otherwise.
///
/// ```
/// use game::marubatsu::{Board, Move};
/// use game::othello::{Color, Outcome};
/// let mut board = Board::new();
/// for mv in ["b2", "a1", "a3", "c1", "b1", "a2", "b3"] {
///     board = board.try_play(mv.parse::<Move>().unwrap()).unwrap();
/// }
/// assert_eq!(board.outcome(), Some(Outcome::Win(Color::Black)));
/// assert!(board.legal_moves().is_empty());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Board {
    marks: ByColor<u16>,
}

/// A move that the position does not allow.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("illegal move {mv} for {side_mark}: legal moves are [{legal}]{hint}", side_mark = mark(*.side), hint = illegal_hint(*.legal, *.game_over))]
pub struct IllegalMove {
    /// The move that was refused.
    pub mv: Move,
    /// The side that tried it.
    pub side: Color,
    /// The squares the side could have taken.
    pub legal: MoveSet,
    /// Whether the game was already over.
    pub game_over: bool,
}

fn illegal_hint(legal: MoveSet, game_over: bool) -> &'static str {
    if game_over {
        " (the game is over)"
    } else if legal.is_empty() {
        " (no square is free)"
    } else {
        " (the square is taken)"
    }
}

/// Marks that no game can produce.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum InvalidBoard {
    /// Both sides claim a square.
    #[error("〇 and × overlap on [{overlap}]: each square holds at most one mark")]
    Overlap {
        /// The squares claimed twice.
        overlap: MoveSet,
    },
    /// The counts do not alternate from 〇.
    #[error("the board has {o} 〇 and {x} ×: 〇 moves first, so it has as many marks as × or one more")]
    Counts {
        /// 〇's marks.
        o: u32,
        /// ×'s marks.
        x: u32,
    },
    /// Both sides have three in a row.
    #[error("both 〇 and × have three in a row: the game ends at the first line")]
    TwoWinners,
    /// The loser moved after the winner completed a line.
    #[error("{} has three in a row but {} moved after it", mark(*.winner), mark(!*.winner))]
    MoveAfterWin {
        /// The side with the line.
        winner: Color,
    },
}

impl Default for Board {
    fn default() -> Self {
        Board::new()
    }
}

impl Board {
    /// The empty board, 〇 to move.
    pub const fn new() -> Board {
        Board {
            marks: ByColor { black: 0, white: 0 },
        }
    }

    /// A board from 〇's (black's) and ×'s (white's) 9-bit masks (bit `i` is the
    /// square with index `i`; higher bits are ignored), checked to be a position
    /// some game reaches or ends in.
    pub fn from_marks(black: u16, white: u16) -> Result<Board, InvalidBoard> {
        let (black, white) = (black & FULL_MASK, white & FULL_MASK);
        if black & white != 0 {
            return Err(InvalidBoard::Overlap {
                overlap: MoveSet(black & white),
            });
        }
        let (o, x) = (black.count_ones(), white.count_ones());
        if o != x && o != x + 1 {
            return Err(InvalidBoard::Counts { o, x });
        }
        let board = Board {
            marks: ByColor { black, white },
        };
        match (board.has_line(Color::Black), board.has_line(Color::White)) {
            (true, true) => Err(InvalidBoard::TwoWinners),
            (true, false) if o == x => Err(InvalidBoard::MoveAfterWin { winner: Color::Black }),
            (false, true) if o != x => Err(InvalidBoard::MoveAfterWin { winner: Color::White }),
            _ => Ok(board),
        }
    }

    /// The squares marked by `color`.
    pub fn marks(&self, color: Color) -> MoveSet {
        MoveSet(self.marks[color])
    }

    /// The mark on `mv`, if any.
    pub fn mark_at(&self, mv: Move) -> Option<Color> {
        Color::BOTH.into_iter().find(|&c| self.marks[c] & mv.bit() != 0)
    }

    /// The free squares (whether or not the game is over).
    pub fn empty_squares(&self) -> MoveSet {
        MoveSet(!(self.marks.black | self.marks.white) & FULL_MASK)
    }

    /// How many squares are free.
    pub fn empties(&self) -> u32 {
        self.empty_squares().len() as u32
    }

    /// The side to move: 〇 (black) when the counts are equal, × (white) otherwise.
    pub fn side_to_move(&self) -> Color {
        if self.marks.black.count_ones() == self.marks.white.count_ones() {
            Color::Black
        } else {
            Color::White
        }
    }

    fn has_line(&self, color: Color) -> bool {
        LINE_MASKS.iter().any(|&line| self.marks[color] & line == line)
    }

    /// The side with three in a row, if any.
    pub fn winner(&self) -> Option<Color> {
        Color::BOTH.into_iter().find(|&c| self.has_line(c))
    }

    /// True when a side has three in a row or the board is full.
    pub fn is_game_over(&self) -> bool {
        self.winner().is_some() || self.empty_squares().is_empty()
    }

    /// The result once the game is over; `None` while it goes on.
    pub fn outcome(&self) -> Option<Outcome> {
        match self.winner() {
            Some(color) => Some(Outcome::Win(color)),
            None if self.empty_squares().is_empty() => Some(Outcome::Draw),
            None => None,
        }
    }

    /// The free squares while the game goes on; none once it is over.
    pub fn legal_moves(&self) -> MoveSet {
        if self.winner().is_some() {
            MoveSet::EMPTY
        } else {
            self.empty_squares()
        }
    }

    /// Whether the side to move may take `mv`.
    pub fn is_legal(&self, mv: Move) -> bool {
        self.legal_moves().contains(mv)
    }

    checked_play!();

    /// The position after `mv`, which the caller guarantees legal (checked only in debug builds).
    #[must_use]
    #[inline]
    pub fn play_unchecked(&self, mv: Move) -> Board {
        debug_assert!(self.is_legal(mv), "illegal move {mv} in\n{self}");
        let mut next = *self;
        next.marks[self.side_to_move()] |= mv.bit();
        next
    }

    /// The free squares where `color` would complete a line of its own (the game
    /// going on or not).
    pub fn winning_squares(&self, color: Color) -> MoveSet {
        let (own, opp) = (self.marks[color], self.marks[!color]);
        let bits = LINE_MASKS
            .iter()
            .filter(|&&line| (own & line).count_ones() == 2 && opp & line == 0)
            .fold(0, |bits, &line| bits | (line & !own));
        MoveSet(bits)
    }

    /// Each line's pattern seen from `side` (rows 1-3, columns a-c, a1-c3, c1-a3).
    pub fn line_patterns(&self, side: Color) -> [MarkPattern; 8] {
        let (own, opp) = (self.marks[side], self.marks[!side]);
        LINE_MASKS.map(|line| {
            let own = (own & line).count_ones() as u8;
            let opp = (opp & line).count_ones() as u8;
            MarkPattern {
                own,
                opp,
                empty: 3 - own - opp,
            }
        })
    }

    /// How many lines show each pattern from `side`'s view (seed 003's `count_markpats`).
    ///
    /// ```
    /// use game::marubatsu::{Board, MarkPattern, Move};
    /// use game::othello::Color;
    /// let board = Board::new().play(Move::CENTER);
    /// let counts = board.count_patterns(Color::Black);
    /// assert_eq!(counts.get(MarkPattern::new(1, 0, 2)), 4);
    /// assert_eq!(counts.get(MarkPattern::new(0, 0, 3)), 4);
    /// ```
    pub fn count_patterns(&self, side: Color) -> PatternCounts {
        let mut counts = PatternCounts::default();
        for pattern in self.line_patterns(side) {
            counts.0[pattern.slot()] += 1;
        }
        counts
    }
}

/// The marks on one line from one side's view: seed 003's 「自 own 敵 opp 空 empty」.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MarkPattern {
    /// The side's own marks (自).
    pub own: u8,
    /// The opponent's marks (敵).
    pub opp: u8,
    /// Free squares (空).
    pub empty: u8,
}

impl MarkPattern {
    /// 「自 2 敵 0 空 1」: the side wins on this line next move.
    pub const OWN_TWO: MarkPattern = MarkPattern::new(2, 0, 1);
    /// 「自 0 敵 2 空 1」: the opponent wins on this line next move.
    pub const OPP_TWO: MarkPattern = MarkPattern::new(0, 2, 1);
    /// 「自 1 敵 0 空 2」: a line only the side can still use, one mark in.
    pub const OWN_ONE: MarkPattern = MarkPattern::new(1, 0, 2);
    /// 「自 0 敵 1 空 2」: a line only the opponent can still use, one mark in.
    pub const OPP_ONE: MarkPattern = MarkPattern::new(0, 1, 2);

    /// The pattern with these counts; they must add up to 3.
    pub const fn new(own: u8, opp: u8, empty: u8) -> MarkPattern {
        assert!(own + opp + empty == 3, "a line has three squares");
        MarkPattern { own, opp, empty }
    }

    const fn slot(self) -> usize {
        (self.own * 4 + self.opp) as usize
    }
}

impl fmt::Display for MarkPattern {
    /// Seed 003's words: `自2敵0空1`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "自{}敵{}空{}", self.own, self.opp, self.empty)
    }
}

/// Lines per [`MarkPattern`] (eight lines in all).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PatternCounts([u8; 16]);

impl PatternCounts {
    /// How many lines show `pattern`.
    pub const fn get(&self, pattern: MarkPattern) -> u8 {
        self.0[pattern.slot()]
    }

    /// The patterns that occur, with their counts, in (own, opp) order.
    pub fn iter(&self) -> impl Iterator<Item = (MarkPattern, u8)> + '_ {
        (0..=3u8)
            .flat_map(|own| (0..=3 - own).map(move |opp| MarkPattern::new(own, opp, 3 - own - opp)))
            .map(|pattern| (pattern, self.get(pattern)))
            .filter(|&(_, count)| count > 0)
    }
}
