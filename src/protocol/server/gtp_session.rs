//! The GTP side of the server: commands answered as Edax answers them.

use game::othello::{Board, Color, Move};

use super::{Answer, ServeError, Served, Session};
use crate::gtp::{self, CommandLine, Reply};
use crate::lines::LineError;

/// A GTP session: the engine and the game's position (the start until `play`s).
pub(super) struct GtpSession {
    served: Served,
    board: Board,
}

/// A command's outcome: its answer text (`?TEXT` for a failure), or `quit`.
enum Outcome {
    Text(String),
    Quit,
}

impl GtpSession {
    pub(super) fn new(served: Served) -> GtpSession {
        GtpSession {
            served,
            board: Board::new(),
        }
    }

    /// Passes for the side to move when it must and `color` is the other side's: GTP's
    /// way to say a pass. `false` when `color` cannot move now.
    fn turn_of(&mut self, color: Color) -> bool {
        if self.board.side_to_move() != color && self.board.must_pass() {
            self.board = self.board.play(Move::Pass);
        }
        self.board.side_to_move() == color
    }

    fn command(&mut self, command: gtp::Command) -> Result<Outcome, ServeError> {
        use gtp::Command as C;
        let text = match command {
            C::ProtocolVersion => "2".to_string(),
            C::Name => self.served.name.clone(),
            C::Version => env!("CARGO_PKG_VERSION").to_string(),
            C::KnownCommand(name) => gtp::Command::NAMES.contains(&name.as_str()).to_string(),
            C::ListCommands => gtp::Command::NAMES.join("\n"),
            C::Boardsize(8) | C::Komi(_) | C::TimeSettings { .. } => String::new(),
            C::Boardsize(_) => "?unacceptable size".to_string(),
            C::ClearBoard => {
                self.board = Board::new();
                String::new()
            }
            C::Play(color, mv) => {
                if !self.turn_of(color) {
                    "?wrong color".to_string()
                } else {
                    match self.board.try_play(mv) {
                        Ok(board) => {
                            self.board = board;
                            String::new()
                        }
                        Err(_) => "?illegal move".to_string(),
                    }
                }
            }
            C::Genmove(color) => {
                if !self.turn_of(color) {
                    "?wrong color".to_string()
                } else if self.board.is_game_over() {
                    "pass".to_string()
                } else {
                    let mv = self.served.think(&self.board)?.mv;
                    self.board = self.board.play(mv);
                    mv.to_string()
                }
            }
            C::Showboard => format!("\n{}", self.board),
            C::Quit => return Ok(Outcome::Quit),
            C::Other(_) => "?unknown command".to_string(),
        };
        Ok(Outcome::Text(text))
    }
}

impl Session for GtpSession {
    fn answer(&mut self, line: &str) -> Result<Answer, ServeError> {
        let Some(CommandLine { id, command }) = CommandLine::parse(line) else {
            return Ok(Answer::default());
        };
        let (ok, text, quit) = match command {
            Err(err) => (false, err.to_string(), false),
            Ok(command) => match self.command(command)? {
                Outcome::Text(text) => (true, text, false),
                Outcome::Quit => (true, String::new(), true),
            },
        };
        let (ok, text) = match text.strip_prefix('?') {
            Some(failure) => (false, failure.to_string()),
            None => (ok, text),
        };
        Ok(Answer {
            reply: Reply { ok, id, text }.to_string(),
            error: None,
            quit,
        })
    }

    fn refuse(&mut self, err: &LineError) -> Answer {
        let reply = Reply {
            ok: false,
            id: None,
            text: err.to_string(),
        };
        Answer::reply(reply.to_string())
    }
}
