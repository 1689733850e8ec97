//! The text protocols Othello engines speak, as values, and our engines served over
//! them:
//! - [`gtp`]: the Go Text Protocol as Edax and Egaroucid answer it;
//! - [`nboard`]: NBoard protocol version 1;
//! - [`ggf`]: the GGF game records NBoard's `set game` carries and `export` writes;
//! - [`lines`]: lines of outside bytes read with a cap on each line's length (the
//!   `record` crate's, re-exported);
//! - [`server`]: one of our engines (the `engines` crate) served over GTP or NBoard on
//!   any reader and writer, behind `othello-arena engine`.
//!
//! Each command and reply parses from its line and writes it back
//! ([`std::str::FromStr`] and [`std::fmt::Display`]), for both sides: the arena's client
//! of an engine process and the server. Synchronous, over [`std::io::BufRead`] and
//! [`std::io::Write`] values the caller gives: no async runtime, HTTP, processes, flags
//! or environment.
//!
//! The workspace's crate map is in the `game` crate's documentation.

#![deny(missing_docs)]

pub mod ggf;
pub mod gtp;
pub mod nboard;
pub mod server;

/// Lines of outside bytes read with caps: the one bounded reader, kept in `record`
/// (the lowest crate that reads files) so that run folders are read through it too.
pub use record::lines;

use std::fmt;
use std::str::FromStr;

use game::othello::{Move, Square};

/// The protocol an engine process speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Protocol {
    /// GTP (`genmove`), as Edax's `-gtp` and Egaroucid's GTP mode.
    Gtp,
    /// NBoard version 1 (`set game`, `go`), as Edax's `-nboard`.
    Nboard,
}

impl Protocol {
    /// The protocol's name in files and flags.
    pub const fn name(self) -> &'static str {
        match self {
            Protocol::Gtp => "gtp",
            Protocol::Nboard => "nboard",
        }
    }
}

impl fmt::Display for Protocol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A protocol name that is neither `gtp` nor `nboard`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown protocol {text:?}: expected gtp or nboard")]
pub struct ParseProtocolError {
    /// The text given.
    pub text: String,
}

impl FromStr for Protocol {
    type Err = ParseProtocolError;

    fn from_str(text: &str) -> Result<Protocol, ParseProtocolError> {
        match text.trim().to_ascii_lowercase().as_str() {
            "gtp" => Ok(Protocol::Gtp),
            "nboard" => Ok(Protocol::Nboard),
            _ => Err(ParseProtocolError { text: text.to_string() }),
        }
    }
}

/// A move as engines write it that is none.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{text:?} is not a move: expected a square such as d3, or pass")]
pub struct ParseMoveError {
    /// The text given.
    pub text: String,
}

/// Reads a move as the engines write it: a square in either case (`c6`, `C6`), or a
/// pass in any of its spellings (`pass`, `PASS`, GGF's `PA`, `ps`).
pub fn parse_move(text: &str) -> Result<Move, ParseMoveError> {
    let trimmed = text.trim();
    if ["pass", "pa", "ps"].iter().any(|p| trimmed.eq_ignore_ascii_case(p)) {
        return Ok(Move::Pass);
    }
    trimmed
        .parse::<Square>()
        .map(Move::Place)
        .map_err(|_| ParseMoveError { text: text.to_string() })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moves_read_in_every_spelling_engines_use() {
        let c6 = Move::Place("c6".parse().unwrap());
        for text in ["c6", "C6", " c6 "] {
            assert_eq!(parse_move(text), Ok(c6), "{text}");
        }
        for text in ["pass", "PASS", "PA", "pa", "PS"] {
            assert_eq!(parse_move(text), Ok(Move::Pass), "{text}");
        }
        assert_eq!(
            parse_move("z9").unwrap_err().to_string(),
            "\"z9\" is not a move: expected a square such as d3, or pass"
        );
        assert_eq!("NBoard".parse::<Protocol>(), Ok(Protocol::Nboard));
        assert!("uci"
            .parse::<Protocol>()
            .unwrap_err()
            .to_string()
            .contains("gtp or nboard"));
    }
}
