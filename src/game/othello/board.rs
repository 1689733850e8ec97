//! The position: discs of both colors and the side to move.

use super::bitboard::{self, Bitboard};
use super::square::{ByColor, Color, Move, Square};

/// A position: where the discs are and whose turn it is.
///
/// ```
/// use game::othello::{Board, Move};
/// let board = Board::new();
/// assert_eq!(board.legal_moves().to_string(), "d3, c4, f5, e6");
/// let next = board.try_play("d3".parse::<Move>().unwrap()).unwrap();
/// assert_eq!(next.count(game::othello::Color::Black), 4);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Board {
    discs: ByColor<u64>,
    side_to_move: Color,
}

/// A move that the position does not allow.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("illegal move {mv} for {side}: legal moves are [{legal}]{hint}", hint = pass_hint(*.legal, *.game_over))]
pub struct IllegalMove {
    /// The move that was refused.
    pub mv: Move,
    /// The side that tried it.
    pub side: Color,
    /// The placements the side could have made.
    pub legal: Bitboard,
    /// Whether the game was already over.
    pub game_over: bool,
}

fn pass_hint(legal: Bitboard, game_over: bool) -> &'static str {
    if game_over {
        " (the game is over)"
    } else if legal.is_empty() {
        " (no placement is possible: pass)"
    } else {
        ""
    }
}

/// Two discs on one square when building a board from bitboards.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("black and white discs overlap on [{overlap}]: each square holds at most one disc")]
pub struct OverlappingDiscs {
    /// The squares claimed by both colors.
    pub overlap: Bitboard,
}

/// How a finished game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The color with more discs.
    Win(Color),
    /// Equal disc counts.
    Draw,
}

/// `own` discs minus `theirs` at the end of a game, the empty squares given to the
/// winner (none on a draw): how engines, GGF records and the reference score a game
/// that ended before the board was full. The one place this rule is written.
///
/// ```
/// assert_eq!(game::othello::margin_with_empties(40, 20), 24);
/// assert_eq!(game::othello::margin_with_empties(13, 0), 64);
/// assert_eq!(game::othello::margin_with_empties(30, 30), 0);
/// ```
#[inline]
pub fn margin_with_empties(own: u32, theirs: u32) -> i32 {
    let (own, theirs) = (own as i32, theirs as i32);
    let empties = 64 - own - theirs;
    (own - theirs) + (own - theirs).signum() * empties
}

impl Outcome {
    /// The result of a game that Black finished `black_margin` discs ahead (negative
    /// when behind): the one place a margin's sign becomes a winner.
    pub fn from_black_margin(black_margin: i32) -> Outcome {
        match black_margin.cmp(&0) {
            std::cmp::Ordering::Greater => Outcome::Win(Color::Black),
            std::cmp::Ordering::Less => Outcome::Win(Color::White),
            std::cmp::Ordering::Equal => Outcome::Draw,
        }
    }
}

impl Default for Board {
    fn default() -> Self {
        Board::new()
    }
}

impl Board {
    /// The standard start: d4 and e5 white, e4 and d5 black, black to move.
    pub fn new() -> Board {
        // Bits: d4 = 27, e4 = 28, d5 = 35, e5 = 36.
        Board {
            discs: ByColor {
                black: 1 << 28 | 1 << 35,
                white: 1 << 27 | 1 << 36,
            },
            side_to_move: Color::Black,
        }
    }

    /// A board from black and white bitboards and the side to move.
    pub fn from_bitboards(black: u64, white: u64, side_to_move: Color) -> Result<Board, OverlappingDiscs> {
        if black & white != 0 {
            return Err(OverlappingDiscs {
                overlap: Bitboard(black & white),
            });
        }
        Ok(Board {
            discs: ByColor { black, white },
            side_to_move,
        })
    }

    /// The side to move.
    pub const fn side_to_move(&self) -> Color {
        self.side_to_move
    }

    /// The discs of `color`.
    pub fn discs(&self, color: Color) -> Bitboard {
        Bitboard(self.discs[color])
    }

    /// Discs of the side to move.
    pub fn player(&self) -> u64 {
        self.discs[self.side_to_move]
    }

    /// Discs of the side not to move.
    pub fn opponent(&self) -> u64 {
        self.discs[!self.side_to_move]
    }

    /// The empty squares.
    pub fn empty_squares(&self) -> Bitboard {
        Bitboard(!(self.discs.black | self.discs.white))
    }

    /// Number of empty squares.
    pub fn empties(&self) -> u32 {
        self.empty_squares().count()
    }

    /// Number of discs of `color`.
    pub fn count(&self, color: Color) -> u32 {
        self.discs[color].count_ones()
    }

    /// The color of the disc on `sq`, if any.
    pub fn disc_at(&self, sq: Square) -> Option<Color> {
        Color::BOTH.into_iter().find(|&c| self.discs[c] & sq.bit() != 0)
    }

    /// Squares where the side to move may place a disc.
    pub fn legal_moves(&self) -> Bitboard {
        Bitboard(bitboard::legal_moves(self.player(), self.opponent()))
    }

    /// Squares where `color` could place a disc if it were its turn.
    pub fn legal_moves_for(&self, color: Color) -> Bitboard {
        Bitboard(bitboard::legal_moves(self.discs[color], self.discs[!color]))
    }

    /// Number of legal placements of `color` (its mobility).
    pub fn mobility(&self, color: Color) -> u32 {
        self.legal_moves_for(color).count()
    }

    /// True when the side to move cannot place but the opponent can: it must pass.
    pub fn must_pass(&self) -> bool {
        self.legal_moves().is_empty() && !self.legal_moves_for(!self.side_to_move).is_empty()
    }

    /// True when neither side can place a disc.
    pub fn is_game_over(&self) -> bool {
        (bitboard::legal_moves(self.player(), self.opponent()) | bitboard::legal_moves(self.opponent(), self.player()))
            == 0
    }

    /// The result when the game is over, by disc count; `None` while it goes on.
    pub fn outcome(&self) -> Option<Outcome> {
        if !self.is_game_over() {
            return None;
        }
        Some(self.leader())
    }

    /// Who has more discs right now (the result if the game ended here).
    pub fn leader(&self) -> Outcome {
        Outcome::from_black_margin(self.count(Color::Black) as i32 - self.count(Color::White) as i32)
    }

    /// The discs the side to move would flip by placing on `sq` (empty when illegal).
    pub fn flips(&self, sq: Square) -> Bitboard {
        if (self.player() | self.opponent()) & sq.bit() != 0 {
            return Bitboard::EMPTY;
        }
        Bitboard(bitboard::flips(self.player(), self.opponent(), sq))
    }

    /// Whether `mv` is legal: a placement that flips, or a pass when no placement is
    /// possible and the game is not over.
    pub fn is_legal(&self, mv: Move) -> bool {
        match mv {
            Move::Place(sq) => self.legal_moves().contains(sq),
            Move::Pass => self.must_pass(),
        }
    }

    checked_play!();

    /// The position after `mv`, which the caller guarantees legal (checked only in debug builds).
    #[must_use]
    #[inline]
    pub fn play_unchecked(&self, mv: Move) -> Board {
        debug_assert!(self.is_legal(mv), "illegal move {mv} in\n{self}");
        let mut next = *self;
        if let Move::Place(sq) = mv {
            let (player, opponent) = (self.player(), self.opponent());
            let flipped = bitboard::flips(player, opponent, sq);
            next.discs[self.side_to_move] = player | flipped | sq.bit();
            next.discs[!self.side_to_move] = opponent & !flipped;
        }
        next.side_to_move = !self.side_to_move;
        next
    }

    /// The same discs with the other side to move.
    #[must_use]
    pub fn with_side_to_move(&self, side: Color) -> Board {
        Board {
            side_to_move: side,
            ..*self
        }
    }

    /// Stable discs of `color` (seed 000's definition: on every line through the disc,
    /// its own discs reach an edge in one direction, or the line is full).
    pub fn stable_discs(&self, color: Color) -> Bitboard {
        Bitboard(bitboard::stable_discs(self.discs[color], self.discs[!color]))
    }

    /// The board mapped by one of the 8 symmetries of the square (0 = identity).
    #[must_use]
    pub fn transformed(&self, symmetry: u8) -> Board {
        let map = |bits: u64| -> u64 {
            Bitboard(bits)
                .squares()
                .map(|sq| transform_square(sq, symmetry).bit())
                .fold(0, |acc, b| acc | b)
        };
        Board {
            discs: ByColor {
                black: map(self.discs.black),
                white: map(self.discs.white),
            },
            side_to_move: self.side_to_move,
        }
    }

    /// The position under its eight symmetries, the smallest, as (black's discs,
    /// white's discs, black to move): two positions that are mirrored or rotated
    /// copies of each other (with the same side to move) have one key.
    pub fn symmetry_key(&self) -> (u64, u64, bool) {
        (0..8)
            .map(|s| {
                let b = self.transformed(s);
                (b.discs.black, b.discs.white, b.side_to_move == Color::Black)
            })
            .min()
            .expect("eight symmetries")
    }
}

/// `sq` under symmetry `symmetry` (bit 0: mirror columns, bit 1: mirror rows,
/// bit 2: transpose), one of the 8 symmetries of the square.
pub fn transform_square(sq: Square, symmetry: u8) -> Square {
    let (mut row, mut col) = (sq.row(), sq.col());
    if symmetry & 1 != 0 {
        col = 7 - col;
    }
    if symmetry & 2 != 0 {
        row = 7 - row;
    }
    if symmetry & 4 != 0 {
        std::mem::swap(&mut row, &mut col);
    }
    Square::from_row_col(row, col).unwrap_or(sq)
}
