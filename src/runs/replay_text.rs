//! A game log replayed as `replay` shows it: the log read whichever of the two formats
//! it is ([`GameReplay::read`]: ours, checked against the rules, or the seed's bare
//! exchange lines) and the game as text, ply by ply ([`GameReplay::text`]).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use record::lines::LineError;
use record::{join_moves, read_game_log_prefix, MoveSource, ReadLogError, ToolCallRecord};
use serde_json::Value;

use crate::logs::cut_off_note;
use crate::replay::{replay_records, replay_seed_lines, ExchangeView, GameReplay, PlyView, ReplayError};

/// Why a game log cannot be replayed.
#[derive(Debug, thiserror::Error)]
pub enum ReadReplayError {
    /// The file cannot be read.
    #[error("cannot read {}", .path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: LineError,
    },
    /// Its first line is not JSON.
    #[error("{} is not JSONL: give a game log from a run folder", .path.display())]
    NotJsonl {
        /// The file.
        path: PathBuf,
        /// The parse error.
        #[source]
        source: serde_json::Error,
    },
    /// A game log of ours that does not read.
    #[error(transparent)]
    Log(#[from] ReadLogError),
    /// A seed log with a line that is not JSON.
    #[error("{} has a line that is not JSON", .path.display())]
    SeedLine {
        /// The file.
        path: PathBuf,
        /// The parse error.
        #[source]
        source: serde_json::Error,
    },
    /// Neither format.
    #[error(
        "{} is neither a game log (schema_version) nor a seed log ({{\"request\", \"response\"}} lines)",
        .path.display()
    )]
    Neither {
        /// The file.
        path: PathBuf,
    },
    /// The game cannot be replayed.
    #[error("cannot replay {}", .path.display())]
    Replay {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: ReplayError,
    },
}

impl GameReplay {
    /// Reads our game log at `path` (its moves checked against the rules; a last line
    /// cut off by a crash leaves the game unfinished, with a note), or a seed 000 log of
    /// bare exchange lines; returns the game and the notes.
    pub fn read(path: &Path) -> Result<(GameReplay, Vec<String>), ReadReplayError> {
        let file = || path.to_path_buf();
        let bytes = record::lines::read_file_bytes(path, record::LOG_LINE_CAP, record::LOG_FILE_CAP)
            .map_err(|source| ReadReplayError::Read { path: file(), source })?;
        // Lossy: a crash can cut a log inside a character (its last line is torn anyway).
        let text = String::from_utf8_lossy(&bytes);
        let first: Value = text
            .lines()
            .find(|l| !l.trim().is_empty())
            .map(serde_json::from_str)
            .transpose()
            .map_err(|source| ReadReplayError::NotJsonl { path: file(), source })?
            .unwrap_or(Value::Null);
        let mut notes = Vec::new();
        let replay = if first.get("schema_version").is_some() {
            let log = read_game_log_prefix(path)?;
            if log.torn_tail {
                notes.push(cut_off_note(path));
            }
            let dir = path
                .parent()
                .filter(|d| !d.as_os_str().is_empty())
                .unwrap_or(Path::new("."));
            replay_records(&log.records).map(|replay| {
                let (replay, note) = replay.with_run_folder(dir);
                notes.extend(note);
                replay
            })
        } else if first.get("request").is_some() && first.get("response").is_some() {
            let lines = text
                .lines()
                .filter(|l| !l.trim().is_empty())
                .map(serde_json::from_str)
                .collect::<Result<Vec<Value>, _>>()
                .map_err(|source| ReadReplayError::SeedLine { path: file(), source })?;
            replay_seed_lines(&lines)
        } else {
            return Err(ReadReplayError::Neither { path: file() });
        };
        let replay = replay.map_err(|source| ReadReplayError::Replay { path: file(), source })?;
        Ok((replay, notes))
    }
}

/// A compact one-line view of a tool result.
fn compact_result(result: &str) -> String {
    let Ok(value) = serde_json::from_str::<Value>(result) else {
        return result.to_string();
    };
    if let Some(error) = value["error"].as_str() {
        return format!("error: {error}");
    }
    let list = |key: &str| {
        value[key].as_array().map_or(String::new(), |a| {
            a.iter().filter_map(Value::as_str).collect::<Vec<_>>().join(" ")
        })
    };
    format!(
        "mine {}, theirs {}, stable {:+}, flipped [{}], opponent moves [{}]",
        value["my_stones"],
        value["opponent_stones"],
        value["stable_gained"].as_i64().unwrap_or(0),
        list("flipped"),
        list("opponent_valid_moves")
    )
}

/// `text` with `prefix` before each line.
fn indent(text: &str, prefix: &str) -> String {
    text.trim_end().lines().map(|l| format!("{prefix}{l}\n")).collect()
}

/// One exchange: what was sent, the reply (thinking, content, tool calls) and what the
/// agent read in it.
fn render_exchange(out: &mut String, e: &ExchangeView) {
    let tokens = match e.tokens {
        (Some(p), Some(c)) => format!(", tokens {p} in / {c} out"),
        _ => String::new(),
    };
    let latency = e
        .latency_ms
        .map_or("latency not logged".to_string(), |ms| format!("{ms:.0} ms"));
    let _ = writeln!(
        out,
        "  exchange: session {}, turn {}, {latency}{tokens}",
        e.session, e.turn
    );
    let last = e.sent.len().saturating_sub(1);
    for (i, message) in e.sent.iter().enumerate() {
        let feedback = match &e.feedback_reason {
            Some(reason) if i == last => format!(", feedback for: {reason}"),
            _ => String::new(),
        };
        let _ = write!(
            out,
            "    sent ({}{feedback}):\n{}",
            message.role,
            indent(&message.content, "      ")
        );
    }
    if let Some(thinking) = &e.thinking {
        let _ = write!(out, "    thinking:\n{}", indent(thinking, "      "));
    }
    if !e.content.trim().is_empty() {
        let _ = write!(out, "    content:\n{}", indent(&e.content, "      "));
    }
    for call in &e.tool_calls {
        let how = if call.recovered {
            " (written as text, recovered)"
        } else {
            ""
        };
        let result = call
            .result
            .as_deref()
            .map_or("(no result in the log)".to_string(), compact_result);
        let _ = writeln!(out, "    tool {} {}{how} -> {result}", call.name, call.arguments);
    }
    let _ = writeln!(out, "    agent's reading: {}", e.reading);
}

/// A ply: the board as the mover's model is shown it (for a model's ply, its messages
/// as sent show it), the exchanges, and the move.
fn render_ply(out: &mut String, replay: &GameReplay, ply: &PlyView) {
    let _ = writeln!(out, "\nply {}: {} ({}) to move", ply.ply, ply.color, ply.player);
    if ply.exchanges.is_empty() {
        let _ = write!(out, "{}", indent(&replay.board_text(ply), "  "));
    }
    for exchange in &ply.exchanges {
        render_exchange(out, exchange);
    }
    render_tool_calls(out, &ply.tool_calls);
    let source = ply
        .source
        .map_or("model answer".to_string(), |s| format!("{s:?}").to_lowercase());
    let detail = ply
        .agent
        .as_ref()
        .map_or(String::new(), |a| format!("; {}", a.account()));
    if ply.mv.is_none() && ply.source.is_none() {
        let _ = writeln!(out, "  move: not in the log (a seed log records none)");
    } else if ply.source == Some(MoveSource::Forfeit) {
        let _ = writeln!(out, "  forfeit: no move, the game ends ({source}{detail})");
    } else {
        let _ = writeln!(
            out,
            "  move: {} ({source}{detail})",
            ply.mv.map_or("?".to_string(), |mv| mv.to_string())
        );
    }
}

/// An MCP client's tool calls on a ply, in order: the tool, its arguments, and what it
/// was answered (simulate_move's result compact, an error as one, a state as its move
/// list and legal moves).
fn render_tool_calls(out: &mut String, calls: &[ToolCallRecord]) {
    for call in calls {
        let result = if call.tool == "simulate_move" {
            compact_result(&call.result.to_string())
        } else if call.is_error {
            format!(
                "error: {}",
                call.result["error"].as_str().unwrap_or(&call.result.to_string())
            )
        } else {
            call.result.to_string()
        };
        let _ = writeln!(out, "  mcp tool {} {} -> {result}", call.tool, call.arguments);
    }
}

impl GameReplay {
    /// The game as `replay` prints it: the players and the opening, the system prompt,
    /// `plies` (each with its board, exchanges and move) and the `forfeit` ply; when the
    /// `whole` game is shown, the tool calls after its last ply and how it ended.
    pub fn text(&self, plies: &[&PlyView], forfeit: Option<&PlyView>, whole: bool) -> String {
        render(self, plies, forfeit, whole)
    }

    /// The plies the game has, `A to B` (a forfeit counts), or `none`.
    pub fn ply_range(&self) -> String {
        let last = self.forfeit.as_ref().or(self.plies.last());
        match (self.plies.first().or(last), last) {
            (Some(a), Some(b)) => format!("{} to {}", a.ply, b.ply),
            _ => "none".to_string(),
        }
    }
}

/// [`GameReplay::text`].
fn render(replay: &GameReplay, plies: &[&PlyView], forfeit: Option<&PlyView>, whole: bool) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "black: {}  white: {}", replay.black, replay.white);
    if let Some(line) = &replay.suite_opening {
        let _ = writeln!(out, "opening from the suite: {line}");
    } else if !replay.opening.is_empty() {
        let _ = writeln!(out, "random opening: {}", join_moves(&replay.opening));
    }
    if let Some(prompt) = &replay.system_prompt {
        let _ = write!(
            out,
            "system prompt (the first message of every request):\n{}",
            indent(prompt, "  ")
        );
    }
    for ply in plies {
        render_ply(&mut out, replay, ply);
    }
    if let Some(ply) = forfeit {
        render_ply(&mut out, replay, ply);
    }
    if whole && !replay.tool_calls_after.is_empty() {
        let _ = writeln!(out, "\nafter its last ply, the client called:");
        render_tool_calls(&mut out, &replay.tool_calls_after);
    }
    if whole {
        match (replay.final_discs, &replay.forfeit, replay.winner()) {
            (Some((black, white)), Some(forfeit), Some(winner)) => {
                let _ = writeln!(
                    out,
                    "\nfinal: {} ({}) forfeited at ply {}: {winner} wins by forfeit, scored as a margin \
                     of {} (the game's forfeit margin; on the board: black {black}, white {white})",
                    forfeit.color,
                    forfeit.player,
                    forfeit.ply,
                    replay.margin.map_or(0, i32::abs)
                );
            }
            (Some((black, white)), _, Some(winner)) => {
                let _ = writeln!(out, "\nfinal: black {black}, white {white} ({winner})");
            }
            _ => {
                let _ = writeln!(out, "\nthe log ends before the game does");
            }
        }
    }
    out
}
