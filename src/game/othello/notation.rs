//! Board text: seed 000's rendering (and its variants) and 64-character boards.
//!
//! Seed 000's text, which its fine-tuned models were trained on:
//! ```text
//!   a b c d e f g h
//! 1 . . . . . . . .
//! 2 . . . . . . . .
//! 3 . . . . . . . .
//! 4 . . . W B . . .
//! 5 . . . B W . . .
//! 6 . . . . . . . .
//! 7 . . . . . . . .
//! 8 . . . . . . . .
//! 黒の手番
//! 置ける位置: d3, c4, f5, e6
//! ```
//! `B` is black and `W` white. Legal moves are listed in row-major order (a1, b1, ...,
//! h1, a2, ...), as seed 000's Java loops produce them. When the side to move has no
//! legal move the list reads `なし` (`none` in English).

use std::fmt;

use super::board::Board;
use super::square::{Color, Square};

/// Which language the two lines under the diagram use.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Labels {
    /// `黒の手番` / `置ける位置: ...` (seed 000).
    #[default]
    Japanese,
    /// `Black to move` / `Legal moves: ...`.
    English,
}

/// Whose discs are drawn as `B`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Perspective {
    /// `B` is black, `W` is white (seed 000).
    #[default]
    Absolute,
    /// `B` is the side to move and `W` its opponent, so a prompt that says
    /// "B = your discs" is true for either color. The turn line says so.
    Relative,
}

/// How to render a board as text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TextStyle {
    /// Language of the turn and legal-move lines.
    pub labels: Labels,
    /// Whose discs are `B`.
    pub perspective: Perspective,
}

impl Board {
    /// The board as text in the given style (see the module docs).
    pub fn to_text(&self, style: TextStyle) -> String {
        let (moves_label, none) = match style.labels {
            Labels::Japanese => ("置ける位置: ", "なし"),
            Labels::English => ("Legal moves: ", "none"),
        };
        let legal = self.legal_moves();
        let mut out = self.to_text_without_moves(style);
        out.push('\n');
        out.push_str(moves_label);
        if legal.is_empty() {
            out.push_str(none);
        } else {
            out.push_str(&legal.to_string());
        }
        out
    }

    /// [`Board::to_text`] without its last line, the legal moves: the diagram and
    /// whose turn it is, for a reader who must find the legal moves itself.
    pub fn to_text_without_moves(&self, style: TextStyle) -> String {
        let side = self.side_to_move();
        let own_letter = |color: Color| match (style.perspective, color == side) {
            (Perspective::Relative, true) => 'B',
            (Perspective::Relative, false) => 'W',
            (Perspective::Absolute, _) if color == Color::Black => 'B',
            (Perspective::Absolute, _) => 'W',
        };
        let mut out = String::from("  a b c d e f g h\n");
        for row in 0..8u8 {
            out.push(char::from(b'1' + row));
            for col in 0..8u8 {
                let sq = Square::from_row_col(row, col).expect("row and col are below 8");
                out.push(' ');
                out.push(self.disc_at(sq).map_or('.', own_letter));
            }
            out.push_str(" \n");
        }
        let (turn, relative_note) = match style.labels {
            Labels::Japanese => (
                if side == Color::Black {
                    "黒の手番"
                } else {
                    "白の手番"
                },
                "（B=手番側の石, W=相手の石）",
            ),
            Labels::English => (
                if side == Color::Black {
                    "Black to move"
                } else {
                    "White to move"
                },
                " (B = discs of the side to move, W = the opponent's)",
            ),
        };
        out.push_str(turn);
        if style.perspective == Perspective::Relative {
            out.push_str(relative_note);
        }
        out
    }

    /// The 64-character form: a1..h8 row-major, `X` black, `O` white, `-` empty.
    pub fn to_squares_string(&self) -> String {
        Square::ALL
            .iter()
            .map(|&sq| match self.disc_at(sq) {
                Some(Color::Black) => 'X',
                Some(Color::White) => 'O',
                None => '-',
            })
            .collect()
    }

    /// Parses a 64-character board (a1..h8 row-major; `X`/`x`/`B`/`*` black,
    /// `O`/`o`/`W` white, `-`/`.`/`_` empty; whitespace ignored) with `side` to move.
    ///
    /// ```
    /// use game::othello::{Board, Color};
    /// let start = "---------------------------OX------XO---------------------------";
    /// assert_eq!(Board::parse_squares(start, Color::Black).unwrap(), Board::new());
    /// ```
    pub fn parse_squares(text: &str, side: Color) -> Result<Board, ParseBoardError> {
        let cells: Vec<char> = text.chars().filter(|c| !c.is_whitespace()).collect();
        if cells.len() != 64 {
            return Err(ParseBoardError::Length { found: cells.len() });
        }
        let (mut black, mut white) = (0u64, 0u64);
        for (index, &ch) in cells.iter().enumerate() {
            let bit = 1u64 << index;
            match ch {
                'X' | 'x' | 'B' | '*' | '●' => black |= bit,
                'O' | 'o' | 'W' | '○' => white |= bit,
                '-' | '.' | '_' => {}
                _ => {
                    let square = Square::ALL[index];
                    return Err(ParseBoardError::Char { ch, square });
                }
            }
        }
        Ok(Board::from_bitboards(black, white, side).expect("a square takes one character, so colors cannot overlap"))
    }
}

impl Board {
    /// Parses the board text this module writes (either labels, either perspective),
    /// such as the user message of a logged request.
    ///
    /// ```
    /// use game::othello::Board;
    /// let text = Board::new().to_string();
    /// assert_eq!(Board::parse_text(&text).unwrap(), Board::new());
    /// ```
    pub fn parse_text(text: &str) -> Result<Board, ParseBoardError> {
        let side = if text.contains("黒の手番") || text.contains("Black to move") {
            Color::Black
        } else if text.contains("白の手番") || text.contains("White to move") {
            Color::White
        } else {
            return Err(ParseBoardError::Text {
                reason: "no turn line (黒の手番 / 白の手番 / Black to move / White to move)",
            });
        };
        let relative = text.contains("B=手番側") || text.contains("B = discs of the side to move");
        let mut cells = String::new();
        for row in 1..=8u8 {
            let line = text
                .lines()
                .find(|l| l.trim_start().starts_with(char::from(b'0' + row)))
                .ok_or(ParseBoardError::Text {
                    reason: "a row line 1-8 is missing",
                })?;
            let row_cells: String = line.trim_start()[1..].chars().filter(|c| !c.is_whitespace()).collect();
            if row_cells.chars().count() != 8 {
                return Err(ParseBoardError::Text {
                    reason: "a row does not have 8 squares",
                });
            }
            cells.push_str(&row_cells);
        }
        let board = Board::parse_squares(&cells, Color::Black)?;
        let (b, w) = (board.discs(Color::Black).0, board.discs(Color::White).0);
        let (black, white) = if relative && side == Color::White {
            (w, b)
        } else {
            (b, w)
        };
        Ok(Board::from_bitboards(black, white, side).expect("the two letters never share a square"))
    }
}

impl fmt::Display for Board {
    /// Seed 000's text (absolute colors, Japanese labels).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_text(TextStyle::default()))
    }
}

/// A 64-character board that cannot be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParseBoardError {
    /// Not 64 squares.
    #[error("board has {found} squares, expected 64: give a1..h8 row by row with X = black, O = white, - = empty")]
    Length {
        /// How many non-whitespace characters were found.
        found: usize,
    },
    /// Board text without the expected lines.
    #[error("cannot read the board text: {reason}")]
    Text {
        /// What is missing.
        reason: &'static str,
    },
    /// A character that is not a disc or an empty square.
    #[error("board has {ch:?} at {square}: use X (black), O (white) or - (empty)")]
    Char {
        /// The character.
        ch: char,
        /// Where it stands.
        square: Square,
    },
}
