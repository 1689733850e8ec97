//! GTP as Othello engines speak it (Edax's `-gtp`): one command per line, an optional
//! numeric id before it; each answer is `=[id] text` (success) or `?[id] text`
//! (failure) and ends with a blank line. Colours are `black`/`white` (`b`/`w`), moves
//! are squares (`c6`) or `pass`. A side that must pass is passed by the engine itself
//! when the next `play` or `genmove` names the other colour (Edax refuses
//! `play white pass`), so a client sends only the placements.

use std::fmt;
use std::str::FromStr;

use game::othello::{Color, Move};

use crate::{parse_move, ParseMoveError};

/// A GTP command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// `protocol_version`: answered `2`.
    ProtocolVersion,
    /// `name`: the engine's name.
    Name,
    /// `version`: the engine's version.
    Version,
    /// `known_command NAME`: `true` or `false`.
    KnownCommand(String),
    /// `list_commands`: one command per line.
    ListCommands,
    /// `boardsize N`: only 8 is accepted.
    Boardsize(u32),
    /// `clear_board`: back to the start position.
    ClearBoard,
    /// `komi X`: accepted and ignored.
    Komi(String),
    /// `play COLOR MOVE`.
    Play(Color, Move),
    /// `genmove COLOR`: the engine plays its move and answers it.
    Genmove(Color),
    /// `time_settings MAIN BYO_YOMI STONES` (seconds; `0 T 1` is T seconds a move).
    TimeSettings {
        /// Main time.
        main: u32,
        /// Byo-yomi period.
        byo_yomi: u32,
        /// Stones per period.
        stones: u32,
    },
    /// `showboard`.
    Showboard,
    /// `quit`.
    Quit,
    /// Any other command, as sent (answered `? unknown command`).
    Other(String),
}

impl Command {
    /// The names of the commands this module reads, for `list_commands`.
    pub const NAMES: [&'static str; 13] = [
        "protocol_version",
        "name",
        "version",
        "known_command",
        "list_commands",
        "boardsize",
        "clear_board",
        "komi",
        "play",
        "genmove",
        "time_settings",
        "showboard",
        "quit",
    ];
}

fn color_word(color: Color) -> &'static str {
    color.name()
}

impl fmt::Display for Command {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Command::ProtocolVersion => f.write_str("protocol_version"),
            Command::Name => f.write_str("name"),
            Command::Version => f.write_str("version"),
            Command::KnownCommand(name) => write!(f, "known_command {name}"),
            Command::ListCommands => f.write_str("list_commands"),
            Command::Boardsize(n) => write!(f, "boardsize {n}"),
            Command::ClearBoard => f.write_str("clear_board"),
            Command::Komi(komi) => write!(f, "komi {komi}"),
            Command::Play(color, mv) => write!(f, "play {} {mv}", color_word(*color)),
            Command::Genmove(color) => write!(f, "genmove {}", color_word(*color)),
            Command::TimeSettings { main, byo_yomi, stones } => write!(f, "time_settings {main} {byo_yomi} {stones}"),
            Command::Showboard => f.write_str("showboard"),
            Command::Quit => f.write_str("quit"),
            Command::Other(text) => f.write_str(text),
        }
    }
}

/// A command line that names a known command with bad arguments.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParseCommandError {
    /// A colour that is neither black nor white.
    #[error("syntax error (wrong or missing color): {text:?}")]
    Color {
        /// The argument.
        text: String,
    },
    /// A move that is no square nor pass.
    #[error("syntax error: {0}")]
    Move(#[from] ParseMoveError),
    /// A number that is none.
    #[error("syntax error: {text:?} is not a whole number")]
    Number {
        /// The argument.
        text: String,
    },
}

fn parse_color(text: Option<&str>) -> Result<Color, ParseCommandError> {
    let text = text.unwrap_or_default();
    text.parse()
        .map_err(|_| ParseCommandError::Color { text: text.to_string() })
}

fn parse_number(text: Option<&str>) -> Result<u32, ParseCommandError> {
    let text = text.unwrap_or_default();
    text.parse()
        .map_err(|_| ParseCommandError::Number { text: text.to_string() })
}

/// A command line: its id, if any, and the command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CommandLine {
    /// The numeric id the answer repeats.
    pub id: Option<u32>,
    /// The command, or why its arguments are bad (answered with `?`).
    pub command: Result<Command, ParseCommandError>,
}

impl CommandLine {
    /// Reads one line; `None` for a blank line or a `#` comment, which GTP ignores.
    pub fn parse(line: &str) -> Option<CommandLine> {
        let line = line.split('#').next().unwrap_or_default().trim();
        let mut words = line.split_whitespace().peekable();
        let id = match words.peek().map(|w| w.parse::<u32>()) {
            Some(Ok(id)) => {
                words.next();
                Some(id)
            }
            _ => None,
        };
        let name = words.next()?;
        let command = match name.to_ascii_lowercase().as_str() {
            "protocol_version" => Ok(Command::ProtocolVersion),
            "name" => Ok(Command::Name),
            "version" => Ok(Command::Version),
            "known_command" => Ok(Command::KnownCommand(words.next().unwrap_or_default().to_string())),
            "list_commands" => Ok(Command::ListCommands),
            "boardsize" => parse_number(words.next()).map(Command::Boardsize),
            "clear_board" => Ok(Command::ClearBoard),
            "komi" => Ok(Command::Komi(words.next().unwrap_or_default().to_string())),
            "play" => parse_color(words.next()).and_then(|color| {
                let mv = parse_move(words.next().unwrap_or_default())?;
                Ok(Command::Play(color, mv))
            }),
            "genmove" => parse_color(words.next()).map(Command::Genmove),
            "time_settings" => (|| {
                Ok(Command::TimeSettings {
                    main: parse_number(words.next())?,
                    byo_yomi: parse_number(words.next())?,
                    stones: parse_number(words.next())?,
                })
            })(),
            "showboard" => Ok(Command::Showboard),
            "quit" => Ok(Command::Quit),
            _ => Ok(Command::Other(line.to_string())),
        };
        Some(CommandLine { id, command })
    }
}

/// An answer: success (`=`) or failure (`?`), its id and text (lines joined by `\n`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reply {
    /// Whether the command succeeded.
    pub ok: bool,
    /// The id of the command answered.
    pub id: Option<u32>,
    /// The answer's text, without the mark and id.
    pub text: String,
}

impl fmt::Display for Reply {
    /// The answer as sent: its lines, then the blank line that ends it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.ok { "=" } else { "?" })?;
        if let Some(id) = self.id {
            write!(f, "{id}")?;
        }
        write!(f, " {}\n\n", self.text)
    }
}

/// Reads answers line by line (a client's side): lines before an answer's mark are
/// skipped (an engine's chatter), the answer ends at a blank line.
#[derive(Debug, Default)]
pub struct ReplyReader {
    open: Option<Reply>,
}

impl ReplyReader {
    /// Takes the next line; returns the answer it completes.
    pub fn push(&mut self, line: &str) -> Option<Reply> {
        let line = line.trim_end_matches(['\r', '\n']);
        match self.open.as_mut() {
            None => {
                let ok = match line.chars().next() {
                    Some('=') => true,
                    Some('?') => false,
                    _ => return None,
                };
                let rest = &line[1..];
                let digits = rest.chars().take_while(char::is_ascii_digit).count();
                let id = rest[..digits].parse().ok();
                self.open = Some(Reply {
                    ok,
                    id,
                    text: rest[digits..].trim().to_string(),
                });
                None
            }
            Some(_) if line.trim().is_empty() => self.open.take(),
            Some(open) => {
                if !open.text.is_empty() {
                    open.text.push('\n');
                }
                open.text.push_str(line);
                None
            }
        }
    }
}

impl FromStr for Reply {
    type Err = String;

    /// One complete answer, its ending blank line included.
    fn from_str(text: &str) -> Result<Reply, String> {
        let mut reader = ReplyReader::default();
        text.lines()
            .chain(std::iter::once(""))
            .find_map(|line| reader.push(line))
            .ok_or_else(|| format!("no GTP answer in {text:?}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_write_as_edax_reads_them_and_read_back() {
        let c6 = Move::Place("c6".parse().unwrap());
        for (command, text) in [
            (Command::Play(Color::White, c6), "play white c6"),
            (Command::Genmove(Color::Black), "genmove black"),
            (Command::Boardsize(8), "boardsize 8"),
            (
                Command::TimeSettings {
                    main: 0,
                    byo_yomi: 2,
                    stones: 1,
                },
                "time_settings 0 2 1",
            ),
            (Command::ClearBoard, "clear_board"),
        ] {
            assert_eq!(command.to_string(), text);
            let line = CommandLine::parse(text).unwrap();
            assert_eq!((line.id, line.command), (None, Ok(command)));
        }
        let with_id = CommandLine::parse("7 play b PASS  # a comment").unwrap();
        assert_eq!(
            (with_id.id, with_id.command),
            (Some(7), Ok(Command::Play(Color::Black, Move::Pass)))
        );
        assert_eq!(CommandLine::parse("   # only a comment"), None);
        let bad = CommandLine::parse("genmove red").unwrap().command.unwrap_err();
        assert_eq!(bad.to_string(), "syntax error (wrong or missing color): \"red\"");
        let other = CommandLine::parse("boxsize 8").unwrap().command;
        assert_eq!(other, Ok(Command::Other("boxsize 8".to_string())));
    }

    #[test]
    fn answers_are_read_as_edax_writes_them() {
        let reply: Reply = "= c6\n\n".parse().unwrap();
        assert_eq!((reply.ok, reply.id, reply.text.as_str()), (true, None, "c6"));
        let failed: Reply = "?3 unknown command\n\n".parse().unwrap();
        assert_eq!(
            (failed.ok, failed.id, failed.text.as_str()),
            (false, Some(3), "unknown command")
        );
        let mut reader = ReplyReader::default();
        let lines = ["chatter", "= ", "  A B", "1 . .", ""];
        let answers: Vec<Reply> = lines.iter().filter_map(|l| reader.push(l)).collect();
        assert_eq!(answers.len(), 1);
        assert_eq!(answers[0].text, "  A B\n1 . .");
        assert_eq!(answers[0].to_string(), "=   A B\n1 . .\n\n");
        let empty = Reply {
            ok: true,
            id: Some(2),
            text: String::new(),
        };
        assert_eq!(empty.to_string(), "=2 \n\n");
    }
}
