//! NBoard protocol version 1, as Edax's `-nboard` speaks it. The GUI (here: the
//! client) sends `nboard 1`, `set depth N`, `set game <GGF>`, `go`, `hint N`,
//! `ping N`, `quit`; the engine answers `go` with `=== MOVE[/EVAL[/TIME]]` (Edax writes
//! `=== c6 0.00 0.0`), `hint N` with `search PV EVAL 0 DEPTH` lines (the PV's first
//! move first: Edax writes `search c6F4     0 0 4`), `ping N` with `pong N` (what a
//! client waits for to know every earlier line was read), `set depth` with
//! `set myname NAME`; `status` and `nodestats` lines may come at any time.

use std::fmt;
use std::str::FromStr;

use game::othello::Move;

use crate::ggf::{GgfGame, ParseGgfError};
use crate::{parse_move, ParseMoveError};

/// The deepest search `set depth` names: a game's 60 empty squares (deeper is the
/// same as solving); Edax takes levels up to 60 too.
pub const MAX_DEPTH: u32 = 60;

/// A line the GUI sends.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// `nboard VERSION`: Edax accepts only 1.
    Nboard(u32),
    /// `set depth N`.
    SetDepth(u32),
    /// `set game GGF`: the game so far.
    SetGame(GgfGame),
    /// `move MOVE`: one more move of the game.
    Move(Move),
    /// `go`: the engine's move in the game's position.
    Go,
    /// `hint N`: values of the N best moves.
    Hint(u32),
    /// `ping N`: answered `pong N` once every earlier line is done.
    Ping(u64),
    /// `quit`.
    Quit,
    /// Any other line (`set contempt`, `learn`, `analyze`...), ignored.
    Other(String),
}

impl fmt::Display for Command {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Command::Nboard(version) => write!(f, "nboard {version}"),
            Command::SetDepth(depth) => write!(f, "set depth {depth}"),
            Command::SetGame(game) => write!(f, "set game {game}"),
            Command::Move(mv) => write!(f, "move {}", move_text(*mv)),
            Command::Go => f.write_str("go"),
            Command::Hint(n) => write!(f, "hint {n}"),
            Command::Ping(n) => write!(f, "ping {n}"),
            Command::Quit => f.write_str("quit"),
            Command::Other(text) => f.write_str(text),
        }
    }
}

/// A move as NBoard writes it (`c6`, `PA`).
fn move_text(mv: Move) -> String {
    match mv {
        Move::Place(sq) => sq.to_string(),
        Move::Pass => "PA".to_string(),
    }
}

/// A line of a known command with a bad argument.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParseCommandError {
    /// A number that is none.
    #[error("{command}: {text:?} is not a whole number")]
    Number {
        /// The command.
        command: String,
        /// The argument.
        text: String,
    },
    /// A game that is no GGF record.
    #[error("set game: {0}")]
    Game(#[from] ParseGgfError),
    /// A move that is none.
    #[error("move: {0}")]
    Move(#[from] ParseMoveError),
}

impl FromStr for Command {
    type Err = ParseCommandError;

    fn from_str(line: &str) -> Result<Command, ParseCommandError> {
        let line = line.trim();
        let (word, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
        let rest = rest.trim();
        let number = |command: &str, text: &str| {
            text.split_whitespace()
                .next()
                .unwrap_or_default()
                .parse()
                .map_err(|_| ParseCommandError::Number {
                    command: command.to_string(),
                    text: text.to_string(),
                })
        };
        match word {
            "nboard" => Ok(Command::Nboard(number(word, rest)?)),
            "set" => {
                let (what, value) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
                match what {
                    "depth" => Ok(Command::SetDepth(number("set depth", value)?)),
                    "game" => Ok(Command::SetGame(value.trim().parse()?)),
                    _ => Ok(Command::Other(line.to_string())),
                }
            }
            "move" => Ok(Command::Move(parse_move(rest.split('/').next().unwrap_or_default())?)),
            "go" => Ok(Command::Go),
            "hint" => Ok(Command::Hint(number(word, rest)?)),
            "ping" => Ok(Command::Ping(u64::from(number(word, rest)?))),
            "quit" => Ok(Command::Quit),
            _ => Ok(Command::Other(line.to_string())),
        }
    }
}

/// The largest value an engine may give a move, either way: engines write discs or
/// units of their own (a move-scoring reference is held to discs where it is used).
pub const MAX_EVAL: f64 = 1e6;
/// The longest time an engine may report for a move, in seconds (a day).
const MAX_SECONDS: f64 = 86_400.0;

/// A line the engine sends.
#[derive(Clone, Debug, PartialEq)]
pub enum Reply {
    /// `=== MOVE EVAL TIME`: the answer to `go` (eval and time may be absent).
    Best {
        /// The move.
        mv: Move,
        /// The engine's evaluation, in discs for the mover.
        eval: Option<f64>,
        /// Seconds spent.
        time: Option<f64>,
    },
    /// `search PV EVAL 0 DEPTH`: one move's value, answering `hint`.
    Search {
        /// The PV's first move.
        mv: Move,
        /// Its value, in discs for the mover.
        eval: f64,
        /// The depth as the engine writes it (`4`, `60@99%`, `book`).
        depth: String,
    },
    /// `pong N`.
    Pong(u64),
    /// `set myname NAME`.
    MyName(String),
    /// `status TEXT`.
    Status(String),
    /// `nodestats NODES SECONDS`, or any other line.
    Other(String),
}

impl fmt::Display for Reply {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reply::Best { mv, eval, time } => {
                write!(f, "=== {}", move_text(*mv))?;
                if let Some(eval) = eval {
                    write!(f, " {eval:.2}")?;
                    if let Some(time) = time {
                        write!(f, " {time:.1}")?;
                    }
                }
                Ok(())
            }
            Reply::Search { mv, eval, depth } => write!(f, "search {} {eval:.2} 0 {depth}", move_text(*mv)),
            Reply::Pong(n) => write!(f, "pong {n}"),
            Reply::MyName(name) => write!(f, "set myname {name}"),
            Reply::Status(text) => write!(f, "status {text}"),
            Reply::Other(text) => f.write_str(text),
        }
    }
}

/// An engine's line that starts as a known reply but does not parse.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unreadable {kind} line {line:?}: {reason}")]
pub struct ParseReplyError {
    /// Which reply it starts as.
    pub kind: &'static str,
    /// The line.
    pub line: String,
    /// What is wrong.
    pub reason: String,
}

impl FromStr for Reply {
    type Err = ParseReplyError;

    fn from_str(line: &str) -> Result<Reply, ParseReplyError> {
        let line = line.trim();
        let err = |kind: &'static str, reason: String| ParseReplyError {
            kind,
            line: line.to_string(),
            reason,
        };
        // A value and a time are finite and bounded: `nan`, `inf` or `1e300` are
        // refused, never carried into a table.
        let number = |kind, text: Option<&str>, bound: f64| -> Result<Option<f64>, ParseReplyError> {
            text.map(|t| match t.parse::<f64>() {
                Ok(x) if x.is_finite() && x.abs() <= bound => Ok(x),
                Ok(_) => Err(err(kind, format!("{t:?} is not a number from -{bound} to {bound}"))),
                Err(_) => Err(err(kind, format!("{t:?} is not a number"))),
            })
            .transpose()
        };
        if let Some(rest) = line.strip_prefix("===") {
            // `=== c6 0.00 0.0` (Edax) or `=== c6/0.00/0.0` (the protocol's document).
            let mut parts = rest
                .split(|c: char| c == '/' || c.is_whitespace())
                .filter(|p| !p.is_empty());
            let mv = parse_move(parts.next().unwrap_or_default()).map_err(|e| err("===", e.to_string()))?;
            let eval = number("===", parts.next(), MAX_EVAL)?;
            let time = number("===", parts.next(), MAX_SECONDS)?;
            return Ok(Reply::Best { mv, eval, time });
        }
        let (word, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
        let rest = rest.trim();
        match word {
            "search" => {
                let mut parts = rest.split_whitespace();
                let pv = parts.next().unwrap_or_default();
                let first = pv.get(..2).unwrap_or(pv);
                let mv = parse_move(first).map_err(|e| err("search", e.to_string()))?;
                let eval =
                    number("search", parts.next(), MAX_EVAL)?.ok_or_else(|| err("search", "no value".to_string()))?;
                let depth = parts.nth(1).unwrap_or_default().to_string();
                Ok(Reply::Search { mv, eval, depth })
            }
            "pong" => rest
                .parse()
                .map(Reply::Pong)
                .map_err(|_| err("pong", format!("{rest:?} is not a whole number"))),
            "set" => match rest.strip_prefix("myname") {
                Some(name) => Ok(Reply::MyName(name.trim().to_string())),
                None => Ok(Reply::Other(line.to_string())),
            },
            "status" => Ok(Reply::Status(rest.to_string())),
            _ => Ok(Reply::Other(line.to_string())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use game::othello::Board;

    fn place(text: &str) -> Move {
        Move::Place(text.parse().unwrap())
    }

    #[test]
    fn values_that_are_not_disc_margins_are_refused() {
        for line in [
            "search c4 nan 0 4",
            "search c4 inf 0 4",
            "search c4 1e300 0 4",
            "=== c4 -1e7 0.0",
            "=== c4 0 nan",
        ] {
            let err = line.parse::<Reply>().unwrap_err().to_string();
            assert!(err.contains("is not a number"), "{line}: {err}");
        }
        assert!("search c4 -66.5 0 4".parse::<Reply>().is_ok());
    }

    #[test]
    fn edax_lines_are_read() {
        let best = "=== c6 0.00 0.0".parse::<Reply>().unwrap();
        assert_eq!(
            best,
            Reply::Best {
                mv: place("c6"),
                eval: Some(0.0),
                time: Some(0.0)
            }
        );
        assert_eq!(
            "=== PA".parse::<Reply>().unwrap(),
            Reply::Best {
                mv: Move::Pass,
                eval: None,
                time: None
            }
        );
        assert_eq!(
            "=== d3/-2.50/1.5".parse::<Reply>().unwrap(),
            Reply::Best {
                mv: place("d3"),
                eval: Some(-2.5),
                time: Some(1.5)
            }
        );
        assert_eq!(
            "search c6F4     0 0 4".parse::<Reply>().unwrap(),
            Reply::Search {
                mv: place("c6"),
                eval: 0.0,
                depth: "4".to_string()
            }
        );
        assert_eq!("pong 12".parse::<Reply>().unwrap(), Reply::Pong(12));
        assert_eq!(
            "set myname Edax4".parse::<Reply>().unwrap(),
            Reply::MyName("Edax4".to_string())
        );
        assert_eq!(
            "status Edax is thinking".parse::<Reply>().unwrap(),
            Reply::Status("Edax is thinking".to_string())
        );
        assert!(matches!(
            "nodestats 455 0.00".parse::<Reply>().unwrap(),
            Reply::Other(_)
        ));
        let bad = "=== z9".parse::<Reply>().unwrap_err().to_string();
        assert!(bad.starts_with("unreadable === line \"=== z9\""), "{bad}");
    }

    #[test]
    fn replies_and_commands_round_trip() {
        for reply in [
            Reply::Best {
                mv: place("c6"),
                eval: Some(-1.0),
                time: Some(0.5),
            },
            Reply::Search {
                mv: place("f4"),
                eval: 3.0,
                depth: "4".to_string(),
            },
            Reply::Pong(3),
            Reply::MyName("reference:4:8".to_string()),
        ] {
            assert_eq!(reply.to_string().parse::<Reply>().unwrap(), reply);
        }
        let game = GgfGame {
            black: String::new(),
            white: String::new(),
            start: Board::new(),
            moves: vec![place("f5")],
        };
        for command in [
            Command::Nboard(1),
            Command::SetDepth(4),
            Command::SetGame(game),
            Command::Move(Move::Pass),
            Command::Go,
            Command::Hint(3),
            Command::Ping(9),
            Command::Quit,
        ] {
            assert_eq!(command.to_string().parse::<Command>().unwrap(), command);
        }
        assert_eq!(
            "set contempt 0".parse::<Command>().unwrap(),
            Command::Other("set contempt 0".to_string())
        );
        let bad = "set depth deep".parse::<Command>().unwrap_err().to_string();
        assert_eq!(bad, "set depth: \"deep\" is not a whole number");
    }
}
