//! How the log writes moves and positions: as text of a fixed form, read back by
//! checking that form (shakmaty's `UciMove` is the model: notation is a type, and turning
//! it into a game's move is a second, checked step).
//!
//! - [`Notation`]: a move, `d3` (a square of the 8x8 grid, in lower case) or `pass`.
//!   Both games write their moves so (marubatsu's squares are `a1`..`c3`); which game's
//!   move it is, and whether that game has it, is [`Notation::to_move`]'s question.
//! - [`Squares`]: a position, one character a square row by row from `a1` (`X`, `O`
//!   or `-`), 64 of them for Othello and 9 for marubatsu.

use std::fmt;
use std::str::FromStr;

use game::{Color, Game, Rules, Square};

/// A move as the log writes it: a square (`d3`) or `pass`.
///
/// ```
/// use record::Notation;
/// use game::{Marubatsu, Othello};
/// let mv: Notation = "b2".parse().unwrap();
/// assert_eq!(mv.to_string(), "b2");
/// assert!(mv.to_move::<Marubatsu>().is_ok());
/// assert!("pass".parse::<Notation>().unwrap().to_move::<Marubatsu>().is_err());
/// assert_eq!(Notation::of::<Othello>(game::othello::Move::Pass), Notation::Pass);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Notation {
    /// A piece placed on this square of the 8x8 grid.
    Square(Square),
    /// The turn passed.
    Pass,
}

/// Text that is not a move as the log writes one.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid move {text:?}: expected a square in lower case, a1 to h8 (such as d3), or pass")]
pub struct ParseNotationError {
    /// The text that failed to parse.
    pub text: String,
}

impl Notation {
    /// How the log writes `mv`, a move of game `R`.
    pub fn of<R: Rules>(mv: R::Move) -> Notation {
        R::coordinate(mv).map_or(Notation::Pass, Notation::Square)
    }

    /// The move of game `R` this notation names, or why `R` has no such move (a
    /// marubatsu log naming `d3` or `pass`). Whether it is legal is the position's
    /// question ([`Rules::play`]).
    pub fn to_move<R: Rules>(self) -> Result<R::Move, String> {
        game::parse_move::<R>(&self.to_string())
    }
}

impl fmt::Display for Notation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Notation::Square(square) => square.fmt(f),
            Notation::Pass => f.write_str("pass"),
        }
    }
}

impl FromStr for Notation {
    type Err = ParseNotationError;

    /// Reads exactly what [`Display`](fmt::Display) writes: `pass`, or a square in
    /// lower case with no space around it.
    fn from_str(text: &str) -> Result<Notation, ParseNotationError> {
        if text == "pass" {
            return Ok(Notation::Pass);
        }
        match text.parse::<Square>() {
            Ok(square) if square.to_string() == text => Ok(Notation::Square(square)),
            _ => Err(ParseNotationError { text: text.to_string() }),
        }
    }
}

/// Moves as the log lists them, one space between two (`f5 d6 c3`).
pub fn join_moves(moves: &[Notation]) -> String {
    moves.iter().map(ToString::to_string).collect::<Vec<_>>().join(" ")
}

/// A position as the log writes it: one character a square, row by row from `a1`: `X`
/// and `O` for the two sides' pieces (which is black's is the game's:
/// [`Rules::BLACK_MARK`]), `-` for an empty square; as many as the game has squares.
///
/// ```
/// use record::Squares;
/// use game::{Color, Othello, Rules};
/// let start = Squares::of::<Othello>(&Othello::start());
/// assert_eq!(start.as_str(), "---------------------------OX------XO---------------------------");
/// assert_eq!(start.to_position::<Othello>(Color::Black).unwrap(), Othello::start());
/// assert!("---X".parse::<Squares>().is_err());
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Squares(String);

/// Text that is not a position as the log writes one.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParseSquaresError {
    /// A length that is no game's number of squares.
    #[error("invalid board {text:?}: {found} squares, where an Othello board has 64 and a marubatsu board 9")]
    Length {
        /// The text.
        text: String,
        /// Its characters.
        found: usize,
    },
    /// A character that is neither a piece nor an empty square.
    #[error("invalid board {text:?}: {ch:?} is not X, O or - (an empty square)")]
    Char {
        /// The text.
        text: String,
        /// The first character refused.
        ch: char,
    },
}

impl Squares {
    /// How the log writes `position`, a position of game `R`.
    pub fn of<R: Rules>(position: &R::Position) -> Squares {
        Squares(R::to_squares(position))
    }

    /// The position of game `R` with `to_move` to move, or why `R` has no such position.
    pub fn to_position<R: Rules>(&self, to_move: Color) -> Result<R::Position, String> {
        R::parse_squares(&self.0, to_move)
    }

    /// The text, as the log writes it.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Squares {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl FromStr for Squares {
    type Err = ParseSquaresError;

    /// Reads exactly what [`Display`](fmt::Display) writes: `X`, `O` and `-`, as many
    /// as one of the games has squares.
    fn from_str(text: &str) -> Result<Squares, ParseSquaresError> {
        if let Some(ch) = text.chars().find(|c| !matches!(c, 'X' | 'O' | '-')) {
            return Err(ParseSquaresError::Char {
                text: text.to_string(),
                ch,
            });
        }
        let sizes = [Game::Othello, Game::Marubatsu].map(|game| game.board_view().columns.pow(2));
        if !sizes.contains(&text.len()) {
            return Err(ParseSquaresError::Length {
                text: text.to_string(),
                found: text.len(),
            });
        }
        Ok(Squares(text.to_string()))
    }
}

game::serde_as_text!(Notation, Squares);

#[cfg(test)]
mod tests {
    use super::*;
    use game::{Marubatsu, Othello};

    #[test]
    fn moves_round_trip_as_their_text_in_both_games() {
        for text in ["d3", "a1", "h8", "pass", "b2", "c3"] {
            let mv: Notation = serde_json::from_str(&format!("\"{text}\"")).unwrap();
            assert_eq!(serde_json::to_string(&mv).unwrap(), format!("\"{text}\""));
        }
        for mv in [game::othello::Move::Pass, game::othello::Move::Place(Square::H8)] {
            assert_eq!(Notation::of::<Othello>(mv).to_move::<Othello>(), Ok(mv));
        }
        for mv in game::marubatsu::Move::ALL {
            let logged = Notation::of::<Marubatsu>(mv);
            assert_eq!(logged.to_string(), mv.to_string());
            assert_eq!(logged.to_move::<Marubatsu>(), Ok(mv));
        }
    }

    #[test]
    fn a_move_that_is_not_the_log_s_text_is_refused_naming_it() {
        for bad in ["z9", "D3", " d3", "i1", "a0", "", "Pass", "d33"] {
            let err = serde_json::from_str::<Notation>(&format!("\"{bad}\""))
                .unwrap_err()
                .to_string();
            assert!(err.contains(&format!("invalid move {bad:?}")), "{err}");
        }
        // A square the game does not have, and a pass in a game without passes.
        let d3: Notation = "d3".parse().unwrap();
        assert_eq!(d3.to_move::<Marubatsu>(), Err("\"d3\" is not a marubatsu move".into()));
        assert!(Notation::Pass.to_move::<Marubatsu>().unwrap_err().contains("\"pass\""));
        assert_eq!(join_moves(&[d3, Notation::Pass]), "d3 pass");
    }

    #[test]
    fn boards_round_trip_and_a_bad_one_is_refused_naming_it() {
        let start = Squares::of::<Othello>(&Othello::start());
        let text = serde_json::to_string(&start).unwrap();
        assert_eq!(serde_json::from_str::<Squares>(&text).unwrap(), start);
        let after = Othello::play(&Othello::start(), "d3".parse().unwrap()).unwrap();
        let logged = Squares::of::<Othello>(&after);
        assert_eq!(logged.to_position::<Othello>(Color::White), Ok(after));
        let marks = Squares::of::<Marubatsu>(&Marubatsu::start());
        assert_eq!(marks.as_str(), "---------");
        assert_eq!(marks.to_position::<Marubatsu>(Color::Black), Ok(Marubatsu::start()));
        let err = serde_json::from_str::<Squares>("\"---x-----\"")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("invalid board \"---x-----\": 'x' is not X, O or -"),
            "{err}"
        );
        let err = serde_json::from_str::<Squares>("\"XO-\"").unwrap_err().to_string();
        assert!(err.contains("3 squares"), "{err}");
        assert!(marks.to_position::<Othello>(Color::Black).is_err());
    }
}
