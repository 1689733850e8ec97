//! Board text for a model, and the 9-character board of the logs.
//!
//! The text a model reads (Japanese labels, the default):
//! ```text
//!   a b c
//! 1 X . .
//! 2 . O .
//! 3 . . .
//! O（〇）の手番
//! 置ける位置: b1, c1, a2, c2, a3, b3, c3
//! ```
//! The grid uses ASCII `O` for 〇 and `X` for ×, as seed 003's own printout does;
//! `.` is a free square. With English labels the two lines read `O to move` and
//! `Legal moves: ...`. Legal moves are listed in index order (a1, b1, c1, a2, ...).
//! A finished board says who won (`O（〇）の勝ち` / `O wins`) or that it is a draw
//! (`引き分け` / `Draw`), and lists the legal moves as `なし` / `none`.

use std::fmt;

use super::board::{mark, mark_letter, Board, InvalidBoard, Move};
use crate::othello::{Color, Labels, Outcome};

impl Board {
    /// The board as text with the given labels (see the module docs).
    ///
    /// ```
    /// use game::marubatsu::Board;
    /// use game::othello::Labels;
    /// let board = Board::parse_squares("X---O----").unwrap();
    /// let text = board.to_text(Labels::English);
    /// assert_eq!(text, "  a b c\n1 X . .\n2 . O .\n3 . . .\nO to move\nLegal moves: b1, c1, a2, c2, a3, b3, c3");
    /// ```
    pub fn to_text(&self, labels: Labels) -> String {
        let mut out = self.to_text_without_moves(labels);
        out.push('\n');
        let (moves_label, none) = match labels {
            Labels::Japanese => ("置ける位置: ", "なし"),
            Labels::English => ("Legal moves: ", "none"),
        };
        out.push_str(moves_label);
        let legal = self.legal_moves();
        if legal.is_empty() {
            out.push_str(none);
        } else {
            out.push_str(&legal.to_string());
        }
        out
    }

    /// [`Board::to_text`] without its last line, the legal moves: the diagram and
    /// the side to move (or the outcome), for a reader who must find them itself.
    pub fn to_text_without_moves(&self, labels: Labels) -> String {
        let mut out = String::from("  a b c\n");
        for row in 0..3u8 {
            out.push(char::from(b'1' + row));
            for col in 0..3u8 {
                let mv = Move::from_row_col(row, col).expect("row and col are below 3");
                out.push(' ');
                out.push(self.mark_at(mv).map_or('.', mark_letter));
            }
            out.push('\n');
        }
        let side_name = |color: Color| match labels {
            Labels::Japanese => format!("{}（{}）", mark_letter(color), mark(color)),
            Labels::English => mark_letter(color).to_string(),
        };
        let status = match (self.outcome(), labels) {
            (None, Labels::Japanese) => format!("{}の手番", side_name(self.side_to_move())),
            (None, Labels::English) => format!("{} to move", side_name(self.side_to_move())),
            (Some(Outcome::Win(color)), Labels::Japanese) => format!("{}の勝ち", side_name(color)),
            (Some(Outcome::Win(color)), Labels::English) => format!("{} wins", side_name(color)),
            (Some(Outcome::Draw), Labels::Japanese) => "引き分け".to_string(),
            (Some(Outcome::Draw), Labels::English) => "Draw".to_string(),
        };
        out.push_str(&status);
        out
    }

    /// The 9-character form for logs: a1..c3 row by row, `O` 〇, `X` ×, `-` free.
    pub fn to_squares_string(&self) -> String {
        Move::ALL
            .iter()
            .map(|&mv| self.mark_at(mv).map_or('-', mark_letter))
            .collect()
    }

    /// Parses a 9-character board (a1..c3 row by row; `O`/`o`/`〇`/`○` for 〇,
    /// `X`/`x`/`×` for ×, `-`/`.`/`_` free; whitespace ignored). The side to move
    /// follows from the counts, and the marks must be reachable in a game.
    ///
    /// ```
    /// use game::marubatsu::{Board, Move};
    /// let board = Board::parse_squares("--- -O- ---").unwrap();
    /// assert_eq!(board, Board::new().play(Move::CENTER));
    /// assert_eq!(board.to_squares_string(), "----O----");
    /// ```
    pub fn parse_squares(text: &str) -> Result<Board, ParseBoardError> {
        let cells: Vec<char> = text.chars().filter(|c| !c.is_whitespace()).collect();
        if cells.len() != 9 {
            return Err(ParseBoardError::Length {
                found: cells.len(),
                text: text.to_string(),
            });
        }
        let (mut black, mut white) = (0u16, 0u16);
        for (&ch, mv) in cells.iter().zip(Move::ALL) {
            match ch {
                'O' | 'o' | '〇' | '○' => black |= mv.bit(),
                'X' | 'x' | '×' => white |= mv.bit(),
                '-' | '.' | '_' => {}
                _ => {
                    return Err(ParseBoardError::Char {
                        ch,
                        square: mv,
                        text: text.to_string(),
                    })
                }
            }
        }
        Board::from_marks(black, white).map_err(|source| ParseBoardError::Invalid {
            text: text.to_string(),
            source,
        })
    }
}

impl fmt::Display for Board {
    /// The model text with Japanese labels.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_text(Labels::Japanese))
    }
}

/// A 9-character board that cannot be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParseBoardError {
    /// Not nine squares.
    #[error("board {text:?} has {found} squares, expected 9: give a1..c3 row by row with O = 〇, X = ×, - = free")]
    Length {
        /// How many non-whitespace characters were found.
        found: usize,
        /// The text as given.
        text: String,
    },
    /// A character that is neither a mark nor a free square.
    #[error("board {text:?} has {ch:?} at {square}: use O (〇), X (×) or - (free)")]
    Char {
        /// The character.
        ch: char,
        /// Where it stands.
        square: Move,
        /// The text as given.
        text: String,
    },
    /// Marks that no game reaches.
    #[error("board {text:?} cannot occur in a game")]
    Invalid {
        /// The text as given.
        text: String,
        /// Why not.
        #[source]
        source: InvalidBoard,
    },
}
