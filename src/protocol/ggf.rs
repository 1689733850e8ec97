//! GGF game records, the form NBoard's `set game` carries:
//! `(;GM[Othello]PC[..]PB[..]PW[..]RE[?]BO[8 <64 squares> <side>]B[f5]W[d6]...;)`.
//! Squares are written `*` black, `O` white, `-` empty, row by row from a1; the side
//! to move is `*` or `O`; a pass is `PA`. A move may carry `/eval/time` after it
//! (`B[f5/0.00/1]`), which reading drops.
//!
//! Free text (the players' names, the comment) is written so that every GGF reader
//! reads the record, since readers such as Edax honour no escapes: `[` and `]` become
//! `(` and `)`, `\` becomes `/`, `;` becomes `,` (`;)` ends a game), and control
//! characters, newlines included, become spaces (NBoard's `set game` is one line).
//! A name is also cut to [`MAX_NAME_BYTES`] bytes: Edax's `set game` stops reading a
//! record at a longer value and plays what it read before (the start position, for a
//! name). The comment is written whole: it comes after the moves, and Edax's file
//! reader takes values up to 999 bytes. Reading keeps a value as written, from its `[`
//! to the next `]`.

use std::fmt;
use std::str::FromStr;

use game::othello::{Board, Color, IllegalMove, Move, Square};

use crate::{parse_move, ParseMoveError};

/// A game as a GGF record holds it: the start position and the moves from it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GgfGame {
    /// Black's name (`PB`).
    pub black: String,
    /// White's name (`PW`).
    pub white: String,
    /// The position the moves start from (`BO`).
    pub start: Board,
    /// The moves, passes included.
    pub moves: Vec<Move>,
}

impl GgfGame {
    /// The position after every move, or the first move that is illegal there.
    pub fn position(&self) -> Result<Board, IllegalMove> {
        self.moves.iter().try_fold(self.start, |board, &mv| board.try_play(mv))
    }
}

/// The mark of `color` in a GGF board.
fn mark(color: Color) -> char {
    match color {
        Color::Black => '*',
        Color::White => 'O',
    }
}

impl GgfGame {
    /// The finished game's record, one line: `result` in `RE` (`+12.000`, black's
    /// view), `comment` in a `C` tag when given; names and comment made safe as the
    /// module's doc says.
    pub fn record(&self, result: &str, comment: Option<&str>) -> String {
        let mut out = String::new();
        let _ = self.write(&mut out, result, comment);
        out
    }

    fn write(&self, f: &mut dyn fmt::Write, result: &str, comment: Option<&str>) -> fmt::Result {
        let squares: String = Square::ALL
            .iter()
            .map(|&sq| self.start.disc_at(sq).map_or('-', mark))
            .collect();
        let to_move = self.start.side_to_move();
        write!(
            f,
            "(;GM[Othello]PC[othello-arena]PB[{}]PW[{}]RE[{result}]BO[8 {squares} {}]",
            name(&self.black),
            name(&self.white),
            mark(to_move)
        )?;
        let mut mover = to_move;
        for mv in &self.moves {
            let tag = if mover == Color::Black { 'B' } else { 'W' };
            match mv {
                Move::Place(sq) => write!(f, "{tag}[{sq}]")?,
                Move::Pass => write!(f, "{tag}[PA]")?,
            }
            mover = !mover;
        }
        if let Some(comment) = comment {
            write!(f, "C[{}]", safe_text(comment))?;
        }
        f.write_str(";)")
    }
}

/// The longest name written, in bytes: Edax's `set game` reads values of at most 255.
pub const MAX_NAME_BYTES: usize = 255;

/// `text` with the characters that end or split a GGF value replaced (see the module's
/// doc).
fn safe_text(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '[' => '(',
            ']' => ')',
            '\\' => '/',
            ';' => ',',
            c if c.is_control() => ' ',
            c => c,
        })
        .collect()
}

/// A player's name as written: safe text, cut to [`MAX_NAME_BYTES`] at a character's
/// boundary.
fn name(text: &str) -> String {
    let mut safe = safe_text(text);
    let mut end = safe.len().min(MAX_NAME_BYTES);
    while !safe.is_char_boundary(end) {
        end -= 1;
    }
    safe.truncate(end);
    safe
}

impl fmt::Display for GgfGame {
    /// One line, as `set game` sends it (the result unknown: `RE[?]`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write(f, "?", None)
    }
}

/// A GGF record that cannot be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParseGgfError {
    /// It does not open with `(;` and close with `;)`.
    #[error("not a GGF game: expected (;GM[Othello]...;)")]
    Frame,
    /// A property is not closed by `]`.
    #[error("property {tag} is not closed by ]")]
    Unclosed {
        /// The property's tag.
        tag: String,
    },
    /// No `BO[8 ...]`, or one that is not 64 squares and a side.
    #[error("bad or missing BO[8 <64 squares> <* or O>]: {reason}")]
    Board {
        /// What is wrong.
        reason: String,
    },
    /// A `B[..]` or `W[..]` that is no move.
    #[error("move {index}: {source}")]
    Move {
        /// The move's place in the record (from 1).
        index: usize,
        /// Why.
        #[source]
        source: ParseMoveError,
    },
}

fn parse_board(value: &str) -> Result<Board, ParseGgfError> {
    let bad = |reason: &str| ParseGgfError::Board {
        reason: reason.to_string(),
    };
    let mut words = value.split_whitespace();
    if words.next() != Some("8") {
        return Err(bad("only 8x8 boards are played"));
    }
    let rest: Vec<&str> = words.collect();
    let (side, squares) = rest.split_last().ok_or_else(|| bad("no squares"))?;
    let side = match *side {
        "*" | "B" | "X" => Color::Black,
        "O" | "W" => Color::White,
        other => return Err(bad(&format!("side to move {other:?} is neither * nor O"))),
    };
    Board::parse_squares(&squares.concat(), side).map_err(|e| bad(&e.to_string()))
}

impl FromStr for GgfGame {
    type Err = ParseGgfError;

    fn from_str(text: &str) -> Result<GgfGame, ParseGgfError> {
        let body = text
            .trim()
            .strip_prefix("(;")
            .and_then(|rest| rest.strip_suffix(";)"))
            .ok_or(ParseGgfError::Frame)?;
        let (mut black, mut white, mut start, mut moves) = (String::new(), String::new(), None, Vec::new());
        let mut rest = body;
        while let Some(open) = rest.find('[') {
            let tag = rest[..open].trim().trim_start_matches(';').to_string();
            let close = rest[open..]
                .find(']')
                .ok_or(ParseGgfError::Unclosed { tag: tag.clone() })?
                + open;
            let value = &rest[open + 1..close];
            match tag.as_str() {
                "PB" => black = value.to_string(),
                "PW" => white = value.to_string(),
                "BO" => start = Some(parse_board(value)?),
                "B" | "W" => {
                    let text = value.split('/').next().unwrap_or_default();
                    let mv = parse_move(text).map_err(|source| ParseGgfError::Move {
                        index: moves.len() + 1,
                        source,
                    })?;
                    moves.push(mv);
                }
                _ => {}
            }
            rest = &rest[close + 1..];
        }
        let start = start.ok_or_else(|| ParseGgfError::Board {
            reason: "the record has none".to_string(),
        })?;
        Ok(GgfGame {
            black,
            white,
            start,
            moves,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const EDAX_START: &str =
        "(;GM[Othello]PC[othello-arena]PB[a]PW[b]RE[?]BO[8 ---------------------------O*------*O--------------------------- *]B[f5]W[d6];)";

    fn place(text: &str) -> Move {
        Move::Place(text.parse().unwrap())
    }

    #[test]
    fn a_game_is_written_as_edax_reads_it_and_read_back() {
        let game = GgfGame {
            black: "a".to_string(),
            white: "b".to_string(),
            start: Board::new(),
            moves: vec![place("f5"), place("d6")],
        };
        assert_eq!(game.to_string(), EDAX_START);
        assert_eq!(EDAX_START.parse::<GgfGame>(), Ok(game.clone()));
        assert_eq!(
            game.position().unwrap(),
            Board::new().play(place("f5")).play(place("d6"))
        );
    }

    #[test]
    fn any_name_is_written_as_one_readable_line() {
        let game = GgfGame {
            black: "llm:a]B[c4;)\\x\nW[d3]\r\tend".to_string(),
            white: "é".repeat(200),
            start: Board::new(),
            moves: vec![place("f5")],
        };
        let text = game.record("+2.000", Some("black [x]; \\ \n ok"));
        assert!(!text.contains('\n') && !text.contains('\\'), "{text}");
        assert!(text.contains("PB[llm:a)B(c4,)/x W(d3)  end]PW[é"), "{text}");
        assert!(text.ends_with("C[black (x), /   ok];)"), "{text}");
        let read: GgfGame = text.parse().unwrap();
        assert_eq!(read.black, "llm:a)B(c4,)/x W(d3)  end");
        assert_eq!(read.white, "é".repeat(127), "cut at a character within 255 bytes");
        assert_eq!(read.moves, game.moves);
    }

    #[test]
    fn passes_evals_and_other_tags_are_read() {
        let text = "(;GM[Othello]PC[NBoard]DT[2026]BO[8 ---------------------------O*------*O--------------------------- O]W[PA]B[f5/1.00/2.5];)";
        let game: GgfGame = text.parse().unwrap();
        assert_eq!(game.start.side_to_move(), Color::White);
        assert_eq!(game.moves, vec![Move::Pass, place("f5")]);
        assert!(game.to_string().contains("W[PA]B[f5];)"));
    }

    #[test]
    fn bad_records_name_what_is_wrong() {
        assert_eq!("GM[Othello]".parse::<GgfGame>(), Err(ParseGgfError::Frame));
        let no_board = "(;GM[Othello]B[f5];)".parse::<GgfGame>().unwrap_err().to_string();
        assert!(no_board.contains("BO[8"), "{no_board}");
        let bad_move = "(;BO[8 ---------------------------O*------*O--------------------------- *]B[z9];)"
            .parse::<GgfGame>()
            .unwrap_err()
            .to_string();
        assert!(bad_move.starts_with("move 1: \"z9\""), "{bad_move}");
        let ten = "(;BO[10 -- *];)".parse::<GgfGame>().unwrap_err().to_string();
        assert!(ten.contains("8x8"), "{ten}");
    }
}
