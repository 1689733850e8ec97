//! One of our engines served over GTP or NBoard, so GUIs (NBoard) and harnesses (ours
//! included) can load it as an engine process: [`serve`] reads commands from any
//! [`BufRead`] and writes replies to any [`Write`], until `quit` or the end of input.
//!
//! GTP is answered as Edax answers it (a side that must pass is passed when the next
//! `play` or `genmove` names the other colour; failures are `? text` replies). NBoard's
//! `hint N` gives the engine's own value of each candidate (the engines that score every
//! root move: `reference`, `alphabeta`, `search`...; the others give their chosen move's
//! score, or 0); NBoard has no failure reply, so refusals go to the error stream as
//! Edax's `Error: ...` lines. The engine plays at the strength its spec gives:
//! NBoard's `set depth N` is checked (1 to [`crate::nboard::MAX_DEPTH`]) and answered with the
//! engine's name, but does not change the search.
//!
//! Input is read through [`BoundedLines`]: a command line longer than
//! [`COMMAND_LINE_CAP`] bytes is refused (GTP `? ...`, NBoard `Error: ...`) and skipped
//! up to its newline without being kept, and the next line is answered.

mod gtp_session;
mod nboard_session;
#[cfg(test)]
mod tests;

use std::io::{self, BufRead, Write};

use engines::{Decision, Engine, EngineError, EngineSpec};
use game::othello::Board;

use crate::lines::{BoundedLines, LineError};
use crate::Protocol;

/// The longest command line read, in bytes (64 KiB): a GTP command is a few words, an
/// NBoard `set game` a GGF record of about a kilobyte, so every real command fits many
/// times over while no input makes the server hold more.
pub const COMMAND_LINE_CAP: usize = 64 * 1024;

/// Why the server stopped before `quit` or the end of its input.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// `human` was asked for: a person cannot answer on the protocol's input.
    #[error("engine human cannot be served: a person at this terminal cannot answer on the protocol's input; give an engine spec, as reference:4")]
    Person,
    /// The input could not be read.
    #[error(transparent)]
    Read(LineError),
    /// A reply or an error line could not be written.
    #[error("cannot write the {stream}")]
    Write {
        /// `replies` or `error lines`.
        stream: &'static str,
        /// Why.
        #[source]
        source: io::Error,
    },
    /// The engine failed to choose a move.
    #[error("engine {name} failed")]
    Engine {
        /// The engine's name as the server gives it.
        name: String,
        /// Why.
        #[source]
        source: EngineError,
    },
}

/// Serves the engine `spec` (its random choices seeded by `seed`) over `protocol`:
/// commands from `input`, replies to `output`, messages for a person (NBoard's
/// `Error: ...` lines) to `errors`. Returns at `quit` or the end of `input`.
pub fn serve<R: BufRead, W: Write, E: Write>(
    protocol: Protocol,
    spec: EngineSpec,
    seed: u64,
    input: R,
    mut output: W,
    mut errors: E,
) -> Result<(), ServeError> {
    if spec == EngineSpec::Human {
        return Err(ServeError::Person);
    }
    let served = Served {
        spec,
        engine: spec.build(seed),
        name: format!("othello-arena {spec}"),
    };
    let mut session: Box<dyn Session> = match protocol {
        Protocol::Gtp => Box::new(gtp_session::GtpSession::new(served)),
        Protocol::Nboard => Box::new(nboard_session::NboardSession::new(served)),
    };
    for line in BoundedLines::new(input, "input", COMMAND_LINE_CAP) {
        let answer = match line {
            Ok(line) => session.answer(&line.text)?,
            Err(err) if err.is_refused_line() => session.refuse(&err),
            Err(err) => return Err(ServeError::Read(err)),
        };
        answer.write(&mut output, &mut errors)?;
        if answer.quit {
            break;
        }
    }
    Ok(())
}

/// One protocol's side of the server: its position and how it answers lines.
trait Session {
    /// The answer to one command line.
    fn answer(&mut self, line: &str) -> Result<Answer, ServeError>;
    /// The answer to a line refused unread (too long, not UTF-8).
    fn refuse(&mut self, err: &LineError) -> Answer;
}

/// What the server writes for one line, and whether it stops.
#[derive(Debug, Default)]
struct Answer {
    /// Text for the output (complete lines), possibly empty.
    reply: String,
    /// A message for a person, written to the errors as `Error: MESSAGE`.
    error: Option<String>,
    /// Whether the server stops after this answer.
    quit: bool,
}

impl Answer {
    /// Only `reply`.
    fn reply(reply: String) -> Answer {
        Answer {
            reply,
            ..Answer::default()
        }
    }

    /// Only an error line.
    fn error(message: String) -> Answer {
        Answer {
            error: Some(message),
            ..Answer::default()
        }
    }

    fn write(&self, output: &mut impl Write, errors: &mut impl Write) -> Result<(), ServeError> {
        if let Some(message) = &self.error {
            writeln!(errors, "Error: {message}")
                .and_then(|()| errors.flush())
                .map_err(|source| ServeError::Write {
                    stream: "error lines",
                    source,
                })?;
        }
        if !self.reply.is_empty() {
            output
                .write_all(self.reply.as_bytes())
                .and_then(|()| output.flush())
                .map_err(|source| ServeError::Write {
                    stream: "replies",
                    source,
                })?;
        }
        Ok(())
    }
}

/// The engine served, under its name.
struct Served {
    spec: EngineSpec,
    engine: Box<dyn Engine>,
    name: String,
}

impl Served {
    /// The engine's move in `board` (a pass when it must).
    fn think(&mut self, board: &Board) -> Result<Decision, ServeError> {
        self.engine.choose(board).map_err(|source| ServeError::Engine {
            name: self.name.clone(),
            source,
        })
    }
}
