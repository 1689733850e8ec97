//! JSONL run logs: this crate doc is the wire-format specification.
//!
//! A run folder (`logs/<run-id>/` by default) holds:
//! - `run.json`: the run's configuration (harness version, command, players, agent
//!   settings with each prompt's text and sha256, options, policy, seed);
//! - `game-<NNNN>.jsonl`: one file per game, one [`Record`] per line, flushed line by
//!   line, so a crash loses at most the line being written;
//! - `results.json` (and `results.csv` when asked): the end-of-run summary;
//! - `decisions.jsonl` (runs with `--stop` or a tournament `stop`): the stop rule's answer
//!   at every pair boundary of every pairing, one line each: `pairing`, `pairs`, and
//!   `decision` (`verdict`, `llr` with its `lower`/`upper` bounds for an SPRT, `elo` with
//!   its interval, `trials`, `unit`); rewritten whole, identically, by a resume.
//!
//! Every line is an object with `schema_version`, `time_ms` (Unix milliseconds) and
//! `type`, one of:
//! - `game_start`: `game`, `black`, `white` (player specs), `start_board` (a board),
//!   `start_to_move` (only when white moves first there: a suite's
//!   board), `opening` (the opening moves, random or a suite's), `suite_opening` (only
//!   for a suite's opening: its line, a transcript or a board and side), `seed`, `kinds` (`{"black":
//!   "llm", "white": "engine"}`: `engine`, `human` or `llm`; absent in older logs, where
//!   an `llm:` spec is the agent), and for an external engine's side `black_engine` /
//!   `white_engine` (`{"name", "version"}` as the engine's handshake answered them;
//!   absent for other players), `rules` (the game: `marubatsu`; absent for Othello, and
//!   in logs older than marubatsu);
//! - `exchange`: one LLM round trip: `game`, `ply`, `color`, `session`, `turn`,
//!   `latency_ms`, `retries`, `host` (the base URL of the server that answered),
//!   `failures` (when attempts failed first: `[{"host", "error"}]`, one per retry),
//!   `finish_reason` (why the server stopped: `length` means cut off at the token
//!   limit; absent when the server gave none and in older logs), `answered_by` (a
//!   warning: the model an Ollama reply names when it is not the one asked for; absent
//!   when they agree and in older logs), `feedback_reason` (on a request whose last
//!   message tells the model why its previous answer did not count: that reason, such as
//!   `several moves named: b5, g5`; absent on other requests and in older logs),
//!   `server` (what the server measured of the request by its own clock, a
//!   [`ServerWork`]: `requests` 1, `prompt_tokens` it processed after reusing its
//!   cache, `prompt_ms`, `generated_tokens`, `generation_ms`; read from llama-server's
//!   `timings` or Ollama's counts and durations; absent when the server sent none and
//!   in older logs), and the raw `request` and `response` bodies exactly as sent and received (seed 000's
//!   `{"request":..,"response":..}` shape, plus metadata), except that a request's
//!   messages are logged once: when the previous exchange of the same ply, colour and
//!   session sent the messages that lead this request, they are left out and
//!   `omitted_messages` says how many (absent when none are, and in older logs, which
//!   hold every request whole); [`read_game_log`] and [`read_game_log_prefix`] put
//!   them back, so a reader always sees whole requests. One move's exchange lines
//!   stop at [`MAX_MOVE_LOG_BYTES`] (the game fails, naming the cap);
//! - `move`: `game`, `ply`, `color`, `player`, `move` (a move), `source`
//!   (`engine`, `llm`, `fallback` or `forced_pass`), `board_after` (a board),
//!   and for the agent `agent` ([`AgentDecision`]: its `source` is `llm`, `fallback`
//!   or, in a `forfeit` record only, `forfeit`; `fallback_reason` says why the model's
//!   answers did not count; `ended_sessions`, under `--on-invalid retry`, each session
//!   an answer without a legal move ended: `{"session", "turn", "reason"}`, the reason
//!   in a `feedback_reason`'s words; absent when none, and in older logs; `server`,
//!   its exchanges' `server` summed, `requests` counting those the server timed;
//!   absent when it timed none, and in older logs);
//! - `forfeit`: `game`, `ply`, `color`, `player`, `agent` ([`AgentDecision`] with
//!   `source: "forfeit"`): the agent, whose fallback is `forfeit`, gave no legal move
//!   in any session, so no move was played at this ply (there is no `move` record for
//!   it) and the game ended there, lost by `color`. Written only in such a game, as its
//!   last record before `game_end` (older logs never hold one; a reader built before
//!   this type existed refuses the line instead of scoring the game by its discs);
//! - `game_end`: `game`, `black_discs`, `white_discs` (the discs on the board, also
//!   after a forfeit), `winner` (`black`, `white` or `draw`; after a forfeit, the
//!   forfeiting side's opponent), `moves` (every move of the game, opening included),
//!   `margin` (black's margin in the game's unit, written only where the record does
//!   not imply it: a marubatsu game's 1, 0 or -1; absent in older logs). A game that ended with a `forfeit` is scored as a wipeout: its winner's margin is
//!   64, whatever the discs on the board;
//! - `game_stopped`: `game`, `ply` (the next ply, never played), `reason`
//!   ([`StopReason`]: `interrupted`: the run was stopped; `abandoned`: the person
//!   playing in the browser did not move within `serve --move-wait`; `ended`: that
//!   person ended the game, leaving the page or giving up; `disconnected`: the MCP
//!   client playing it went away): the game is unfinished
//!   (`eval --resume` plays it again from the start and keeps this file as
//!   `game-<NNNN>.jsonl.unfinished-<k>`);
//! - `hint`: `game`, `ply`, `color`, `player`, `engine`, `exact`, `depth`, `values`
//!   (`[{"move", "value"}]`, each legal move's value): an engine's values of a person's
//!   moves, shown to them before they moved ([`HintRecord`]);
//! - `tool_call`: `game`, `ply` (the ply the game was at), `color`, `player`, `tool`,
//!   `arguments`, `result`, `is_error`: a tool an MCP client (`othello-arena mcp`)
//!   called on its game, with the arguments it sent and the structured result it got
//!   ([`ToolCallRecord`]); its moves are `move` records with source `llm` (or
//!   `fallback`, and a `forfeit` record, after too many illegal moves).
//!
//! A move is written `d3` (a square, in lower case) or `pass`, in both games
//! (marubatsu's squares are `a1` to `c3`): [`Notation`]. A board is one character a
//! square, row by row from `a1`: `X`, `O` or `-` (empty), 64 of them for Othello (`X`
//! black) and 9 for marubatsu (`O` black): [`Squares`]. A move, board, game name or
//! stop reason written otherwise makes its line unreadable (an error naming the file,
//! the line and the text).
//!
//! A line is written whole or not at all when the run is stopped with Ctrl-C; after a
//! crash or SIGKILL the last line may be torn (cut off before its end, so not a whole
//! JSON value). Readers that resume or report ([`read_game_log_prefix`]) treat such a
//! file as an unfinished game; a line that cannot be read anywhere else in the file,
//! or a last line that is whole JSON but not a record, is an error naming file and line.
//!
//! Readers refuse a record whose `schema_version` is not [`SCHEMA_VERSION`], naming
//! the version found and the one they read, rather than guess at its fields.
//!
//! Plies count from 1 at the start position of the game, opening moves included.
//!
//! Every file of a run folder (and every file a user names) is read through one
//! bounded reader, [`lines`]: a cap per line and per file, and only regular files.
//!
//! The workspace's crate map is in the `game` crate's documentation.

#![deny(missing_docs)]

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, RwLock, RwLockWriteGuard};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use game::othello::{Color, Outcome};
use game::{Game, Othello, Rules};

pub mod lines;
mod notation;
mod options;
mod recover;
mod reply;
mod writer;

pub use notation::{join_moves, Notation, ParseNotationError, ParseSquaresError, Squares};
pub use options::{by_its_parser, ChatOptions, ParseThinkError, Think};
pub use recover::recover_tool_calls;
pub use reply::{
    decode_ollama, decode_openai, decode_reply, ChatReply, FunctionCall, Message, Role, ThinkingTokens, ToolCall,
};
pub use writer::{GameWriter, Ply};

/// Serde `deserialize_with` for an optional key of a run file whose value may be
/// `null`: a key that is there, `null` too, reads as `Some`, so that `null` is written
/// back as `null` and a missing key (the field's default, `None`) stays missing.
pub fn present<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    T::deserialize(deserializer).map(Some)
}

/// Version of this format; bumped on any incompatible change.
pub const SCHEMA_VERSION: u32 = 1;

/// One line of a game log.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// The format version.
    pub schema_version: u32,
    /// When the line was written, Unix milliseconds.
    pub time_ms: u64,
    /// What happened.
    #[serde(flatten)]
    pub event: Event,
}

/// The kinds of log lines.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    /// A game begins.
    GameStart(GameStart),
    /// One request/response round trip with the model.
    Exchange(ExchangeRecord),
    /// A move was played.
    Move(MoveRecord),
    /// The agent gave no move and forfeited: the game ends.
    Forfeit(ForfeitRecord),
    /// The game is over.
    GameEnd(GameEnd),
    /// The run stopped before the game was over.
    GameStopped(GameStopped),
    /// A person asked an engine for the value of each of their legal moves (the play
    /// page's hints); written before that person's move. Replay and the tallies pass
    /// over it.
    Hint(HintRecord),
    /// An MCP client called one of the server's tools on the game (`othello-arena
    /// mcp`); written at the ply the game was at. Replay and the tallies pass over it.
    ToolCall(ToolCallRecord),
}

impl Event {
    /// Whether no more play follows this line in its log: the game ended, was stopped,
    /// or was forfeited (`game_end` follows a forfeit at once; a log that ends at the
    /// forfeit is a run that died in between, and its game is unfinished).
    pub fn ends_play(&self) -> bool {
        matches!(self, Event::GameEnd(_) | Event::GameStopped(_) | Event::Forfeit(_))
    }
}

/// `game_start`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameStart {
    /// Game number in the run (from 1).
    pub game: usize,
    /// Black's player spec.
    pub black: String,
    /// White's player spec.
    pub white: String,
    /// The start position.
    pub start_board: Squares,
    /// The side to move on `start_board` when it is not black (an opening suite's
    /// board with white to move); absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_to_move: Option<Color>,
    /// The opening moves played before the players took over (random, or a suite's).
    pub opening: Vec<Notation>,
    /// The opening suite's line the game started from (its transcript, or its board
    /// and side to move); absent for a random opening.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suite_opening: Option<String>,
    /// The game's seed.
    pub seed: u64,
    /// What kind of player each side is (absent in logs written before it was added).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kinds: Option<PlayerKinds>,
    /// The game (`marubatsu`); absent for Othello, the default ([`GameStart::game`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rules: Option<Game>,
    /// Black's external engine as its handshake named it; absent for other players.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub black_engine: Option<EngineId>,
    /// White's external engine, as `black_engine`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub white_engine: Option<EngineId>,
}

/// An external engine as it names itself (GTP `name` and `version`; NBoard's
/// `set myname`, which has no version).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EngineId {
    /// The engine's own name (`Edax`).
    pub name: String,
    /// Its version (`4.6`), when the protocol tells it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
}

/// What kind of player a side is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PlayerKind {
    /// A classical engine.
    Engine,
    /// A person at the terminal or in the browser.
    Human,
    /// The LLM agent.
    Llm,
}

/// The kind of each side's player.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlayerKinds {
    /// Black's.
    pub black: PlayerKind,
    /// White's.
    pub white: PlayerKind,
}

impl GameStart {
    /// The game played: the one `rules` names, or Othello where it names none.
    pub fn game(&self) -> Game {
        self.rules.unwrap_or(Game::Othello)
    }

    /// How `rules` names game `R`: `None` for Othello, which is never named.
    pub fn rules_of<R: Rules>() -> Option<Game> {
        Some(Game::of::<R>()).filter(|&game| game != Game::Othello)
    }

    /// The game's opening: its start position, side to move included, and its
    /// opening moves, each checked against the rules of `R`.
    pub fn opening_line<R: Rules>(&self) -> Result<game::Line<R>, String> {
        let to_move = self.start_to_move.unwrap_or(Color::Black);
        let board = self
            .start_board
            .to_position::<R>(to_move)
            .map_err(|e| format!("start board: {e}"))?;
        let mut line = game::Line::<R>::new(board);
        for (i, mv) in self.opening.iter().enumerate() {
            line.try_play(mv.to_move::<R>()?)
                .map_err(|e| format!("opening move {}: {e}", i + 1))?;
        }
        Ok(line)
    }

    /// The kind of `color`'s player: as recorded, or for logs written before kinds were
    /// recorded, read from its spec (`llm:MODEL` is the agent, `human` a person).
    pub fn kind(&self, color: Color) -> PlayerKind {
        use Color;
        match (self.kinds, color) {
            (Some(kinds), Color::Black) => kinds.black,
            (Some(kinds), Color::White) => kinds.white,
            (None, _) => {
                let spec = match color {
                    Color::Black => &self.black,
                    Color::White => &self.white,
                };
                if spec.starts_with("llm:") {
                    PlayerKind::Llm
                } else if spec == "human" {
                    PlayerKind::Human
                } else {
                    PlayerKind::Engine
                }
            }
        }
    }
}

/// `exchange`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ExchangeRecord {
    /// Game number.
    pub game: usize,
    /// The ply being decided.
    pub ply: usize,
    /// The agent's color.
    pub color: Color,
    /// Session (tool mode) or attempt (direct mode), from 1.
    pub session: u32,
    /// Turn within the session, from 1.
    pub turn: u32,
    /// Wall time of the successful HTTP attempt.
    pub latency_ms: f64,
    /// Transient failures retried first.
    pub retries: u32,
    /// The base URL of the server that answered (absent in logs written before fleets).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    /// The failed attempts before the answer, with the host each went to.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub failures: Vec<AttemptFailure>,
    /// Why the server stopped generating (`stop`, `length`: cut off at the token
    /// limit, ...), as it said it; absent when it said nothing and in older logs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finish_reason: Option<String>,
    /// A warning: the model the reply names, when it is not the one asked for (the
    /// host may serve another model); absent when they agree and in older logs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answered_by: Option<String>,
    /// Why the request's last message was sent: the reply before it in the session gave
    /// no move that counted, for this reason (`several moves named: b5, g5`), and that
    /// message told the model so. Absent on other requests and in older logs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub feedback_reason: Option<String>,
    /// What the server itself measured of this request (llama-server's `timings`,
    /// Ollama's counts and durations); absent when it reported none and in older logs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server: Option<ServerWork>,
    /// In the file only: how many messages lead the request unwritten, because the
    /// previous exchange's request (same ply, colour and session) held them whole.
    /// Readers put them back ([`read_game_log`] does, leaving this `None`); absent in
    /// older logs, whose requests are whole.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub omitted_messages: Option<usize>,
    /// The request body as sent (in the file, its `messages` after the omitted ones).
    pub request: Value,
    /// The response body exactly as received.
    pub response: Value,
}

/// An attempt that failed before a request was answered (on the same host or another),
/// as an exchange record keeps it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AttemptFailure {
    /// The base URL of the server tried.
    pub host: String,
    /// What went wrong.
    pub error: String,
}

/// One answered request as the model's client saw it: what an exchange record keeps
/// of it beside the game, ply and turn ([`GameWriter::exchange`] writes it). The agent
/// builds it from its chat backend's answer; the log format knows no HTTP client.
#[derive(Clone, Debug, PartialEq)]
pub struct Exchanged {
    /// The request body as sent.
    pub request: Value,
    /// The response body as received (a JSON string value when it was not JSON).
    pub response: Value,
    /// Wall time of the successful HTTP attempt, in milliseconds.
    pub latency_ms: f64,
    /// Transient failures retried before this answer.
    pub retries: u32,
    /// The base URL of the server that answered.
    pub host: String,
    /// The failed attempts before the answer, in order.
    pub failures: Vec<AttemptFailure>,
    /// Why the server stopped generating, as it said it.
    pub finish_reason: Option<String>,
    /// The model the reply names when it is not the one asked for.
    pub answered_by: Option<String>,
    /// What the server measured of the request, when it said.
    pub server: Option<ServerWork>,
}

/// The work a model server reports having done, by its own clock: the prompt tokens it
/// processed (those it could not reuse from its cache), the tokens it generated, and
/// the time each took. One request's (an exchange's `server`) or a decision's sum over
/// the requests the server timed (a decision's `server`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ServerWork {
    /// Requests summed (1 for one exchange).
    pub requests: u32,
    /// Prompt tokens the server processed, after reusing what its cache held
    /// (llama-server's `timings.prompt_n`; Ollama's `prompt_eval_count`, which counts
    /// only the tokens it evaluated).
    pub prompt_tokens: u64,
    /// Milliseconds spent processing them (prefill).
    pub prompt_ms: f64,
    /// Tokens generated (`timings.predicted_n`; Ollama's `eval_count`).
    pub generated_tokens: u64,
    /// Milliseconds spent generating them (decode).
    pub generation_ms: f64,
}

impl ServerWork {
    /// The sum of two accounts (counts saturate rather than wrap).
    #[must_use]
    pub fn plus(self, other: ServerWork) -> ServerWork {
        ServerWork {
            requests: self.requests.saturating_add(other.requests),
            prompt_tokens: self.prompt_tokens.saturating_add(other.prompt_tokens),
            prompt_ms: self.prompt_ms + other.prompt_ms,
            generated_tokens: self.generated_tokens.saturating_add(other.generated_tokens),
            generation_ms: self.generation_ms + other.generation_ms,
        }
    }

    /// Milliseconds the server was busy with the requests (prefill and decode).
    pub fn busy_ms(&self) -> f64 {
        self.prompt_ms + self.generation_ms
    }

    /// Prompt tokens processed a second (`None`: no prompt time reported).
    pub fn prefill_tokens_per_s(&self) -> Option<f64> {
        (self.prompt_ms > 0.0).then(|| self.prompt_tokens as f64 * 1000.0 / self.prompt_ms)
    }

    /// Tokens generated a second (`None`: no generation time reported).
    pub fn decode_tokens_per_s(&self) -> Option<f64> {
        (self.generation_ms > 0.0).then(|| self.generated_tokens as f64 * 1000.0 / self.generation_ms)
    }

    /// Prompt tokens processed a request (`None`: no request).
    pub fn prompt_tokens_per_request(&self) -> Option<f64> {
        (self.requests > 0).then(|| self.prompt_tokens as f64 / f64::from(self.requests))
    }
}

/// `hint`: the values an engine gave a person's legal moves before they moved.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HintRecord {
    /// Game number.
    pub game: usize,
    /// The ply the person was deciding.
    pub ply: usize,
    /// The person's colour.
    pub color: Color,
    /// The person's spec (`human`).
    pub player: String,
    /// The engine that gave the values (`reference:8:18`).
    pub engine: String,
    /// Solved to the end (true) or estimated by a depth-limited search (false).
    pub exact: bool,
    /// The search depth reached, in plies (the empties when exact).
    pub depth: u32,
    /// Each legal move with its value (final disc difference for the person), row-major.
    pub values: Vec<HintValue>,
}

/// `tool_call`: a tool an MCP client called on a game in play, with its arguments and
/// result as the client sent and received them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ToolCallRecord {
    /// Game number.
    pub game: usize,
    /// The ply the game was at (the next to be played).
    pub ply: usize,
    /// The client's colour.
    pub color: Color,
    /// The client's player name (`mcp:NAME`).
    pub player: String,
    /// The tool's name (`play_move`, `simulate_move`, ...).
    pub tool: String,
    /// Its arguments as sent.
    pub arguments: Value,
    /// The result's structured content as returned (for an error, `{"error": ...}`).
    pub result: Value,
    /// Whether the result was an error (an illegal move, a bad square).
    pub is_error: bool,
}

/// One legal move's value in a [`HintRecord`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HintValue {
    /// The square, `d3`.
    #[serde(rename = "move")]
    pub mv: Notation,
    /// Its value in discs.
    pub value: f64,
}

/// Where a move came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MoveSource {
    /// A classical engine or a person.
    Engine,
    /// The model's own answer.
    Llm,
    /// The fallback player, after the model failed.
    Fallback,
    /// A pass with no alternative (nobody was asked).
    ForcedPass,
    /// No move: the model failed and the agent's fallback is `forfeit` (the source of
    /// a forfeiting [`AgentDecision`]; never of a played move).
    Forfeit,
}

/// `move`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MoveRecord {
    /// Game number.
    pub game: usize,
    /// Ply number (from 1).
    pub ply: usize,
    /// The mover.
    pub color: Color,
    /// The mover's spec.
    pub player: String,
    /// `d3` or `pass`.
    #[serde(rename = "move")]
    pub mv: Notation,
    /// Where the move came from.
    pub source: MoveSource,
    /// The position after the move.
    pub board_after: Squares,
    /// The agent's account of the decision, for LLM players.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<AgentDecision>,
}

/// `forfeit`: the agent played no move and lost the game.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ForfeitRecord {
    /// Game number.
    pub game: usize,
    /// The ply at which no move was played (from 1).
    pub ply: usize,
    /// The forfeiting side.
    pub color: Color,
    /// Its player's spec.
    pub player: String,
    /// The agent's account of the failed decision (`source: "forfeit"`).
    pub agent: AgentDecision,
}

/// How the agent reached a move (or a forfeit): everything the statistics are computed
/// from.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct AgentDecision {
    /// `llm`, `fallback` or `forfeit`.
    pub source: Option<MoveSource>,
    /// Sessions (tool mode) or attempts (direct mode) started.
    pub sessions: u32,
    /// Requests sent.
    pub turns: u32,
    /// Structured tool calls (`tool_calls`).
    pub tool_calls: u32,
    /// Tool calls recovered from JSON text in `content`.
    pub recovered_tool_calls: u32,
    /// Tool calls that returned an error (bad square, bad arguments, unknown tool).
    pub tool_errors: u32,
    /// Final answers without a legal move.
    pub invalid_answers: u32,
    /// Of those, structured answers that were not JSON against the schema.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub schema_violations: u32,
    /// Final answers without a legal move that the server cut off at the token limit
    /// (counted here, not in `invalid_answers`; older logs count them there).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cut_off_answers: u32,
    /// How the chosen move was read (`clean` or `extracted`), for model moves.
    pub answer_kind: Option<AnswerKind>,
    /// Prompt tokens over all requests.
    pub prompt_tokens: u64,
    /// Generated tokens over all requests.
    pub completion_tokens: u64,
    /// Of those, the tokens spent thinking (absent: none, or an older log).
    #[serde(default, skip_serializing_if = "is_zero_u64")]
    pub thinking_tokens: u64,
    /// Replies whose thinking tokens were estimated from the share of characters that
    /// are thinking, because the server does not count them apart (Ollama).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub thinking_estimated: u32,
    /// Replies that named another model than the one asked for (each exchange's
    /// `answered_by`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub other_model_replies: u32,
    /// Sum of request latencies.
    pub latency_ms: f64,
    /// What the server measured of the decision's requests, summed over those it timed
    /// (absent when it timed none, and in older logs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server: Option<ServerWork>,
    /// Why the fallback played, or why the agent forfeited.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fallback_reason: Option<String>,
    /// With `--vote K` (K above 1): the samples and the move each gave.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vote: Option<Vote>,
    /// The sessions an answer without a legal move ended (`--on-invalid retry`), in
    /// order, each with why that answer did not count. Absent when none did, and in
    /// older logs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ended_sessions: Vec<EndedSession>,
}

/// A session ended by an answer without a legal move (`--on-invalid retry`; under
/// `feedback` the same reason is the next exchange's `feedback_reason`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EndedSession {
    /// The session (from 1; a vote's samples number theirs in one sequence, as the
    /// exchanges do).
    pub session: u32,
    /// The turn whose answer ended it (from 1).
    pub turn: u32,
    /// Why the answer did not count (`no coordinate read`, `cut off at the token
    /// limit`, ...: the words of a `feedback_reason`).
    pub reason: String,
}

/// A decision sampled several times, the most frequent legal move played.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Vote {
    /// Samples taken (K).
    pub samples: u32,
    /// The move each sample that gave one gave, in order (a failed sample gave none).
    pub moves: Vec<Notation>,
}

impl Vote {
    /// Whether every sample gave a move, and the same one.
    pub fn unanimous(&self) -> bool {
        self.moves.len() == self.samples as usize && self.moves.windows(2).all(|w| w[0] == w[1])
    }
}

impl AgentDecision {
    /// The decision in one line, as `replay` and the report show it: requests, tool
    /// calls, invalid and cut-off answers, tokens (thinking apart), time, and why the
    /// fallback played; for a client's move over MCP (no session of ours), its
    /// simulations, illegal tries and time, its tokens not measured.
    pub fn account(&self) -> String {
        if self.sessions == 0 && self.turns == 0 {
            // A client's move over MCP: its requests to its own model are not ours to see.
            return format!(
                "by MCP tool calls: {} simulate_move call(s), {} illegal play_move call(s), tokens not measured, \
                 {:.0} ms from the position to the move{}",
                self.tool_calls,
                self.invalid_answers,
                self.latency_ms,
                self.fallback_reason
                    .as_deref()
                    .map_or(String::new(), |r| format!("; {r}"))
            );
        }
        let cut_off = match self.cut_off_answers {
            0 => String::new(),
            n => format!(", {n} cut off at the token limit"),
        };
        let thinking = match (self.thinking_tokens, self.thinking_estimated) {
            (0, _) => String::new(),
            (n, 0) => format!(" ({n} thinking)"),
            (n, _) => format!(" (~{n} thinking)"),
        };
        let vote = self.vote.as_ref().map_or(String::new(), |v| {
            format!("; vote of {}: {}", v.samples, join_moves(&v.moves))
        });
        format!(
            "{} request(s), {} tool call(s) + {} recovered, {} invalid answer(s){cut_off}, {} / {} tokens{thinking}, \
             {:.0} ms{vote}{}",
            self.turns,
            self.tool_calls,
            self.recovered_tool_calls,
            self.invalid_answers,
            self.prompt_tokens,
            self.completion_tokens,
            self.latency_ms,
            self.fallback_reason
                .as_deref()
                .map_or(String::new(), |r| format!("; {r}"))
        )
    }
}

/// How a model's move was read from its answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AnswerKind {
    /// The answer was exactly one coordinate.
    Clean,
    /// The coordinate was picked out of longer text.
    Extracted,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

fn is_zero_u64(n: &u64) -> bool {
    *n == 0
}

/// `game_end`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameEnd {
    /// Game number.
    pub game: usize,
    /// Black's discs.
    pub black_discs: u32,
    /// White's discs.
    pub white_discs: u32,
    /// `black`, `white` or `draw`.
    pub winner: Outcome,
    /// Black's margin in the game's unit, written only where it is not the one the
    /// record implies ([`GameEnd::implied_margin`]: the disc difference, or a 64-disc
    /// win after a forfeit), as in a marubatsu game (1, 0 or -1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub margin: Option<i32>,
    /// Every move, opening included.
    pub moves: Vec<Notation>,
}

impl GameEnd {
    /// Black's margin where the record does not write one: the disc difference, or after
    /// `forfeited`'s forfeit a 64-disc win for the other side (how logs written before
    /// `margin` existed are scored).
    pub fn implied_margin(black_discs: u32, white_discs: u32, forfeited: Option<Color>) -> i32 {
        // Logs without `margin` are Othello's, where a forfeit is a 64-disc wipeout.
        forfeited.map_or(black_discs as i32 - white_discs as i32, Othello::forfeit_margin)
    }

    /// Black's margin as this record tells it (`forfeited`: the side whose forfeit
    /// ended the game, if one did).
    pub fn black_margin(&self, forfeited: Option<Color>) -> i32 {
        self.margin
            .unwrap_or_else(|| GameEnd::implied_margin(self.black_discs, self.white_discs, forfeited))
    }
}

/// `game_stopped`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameStopped {
    /// Game number.
    pub game: usize,
    /// The ply that was not played.
    pub ply: usize,
    /// Why.
    pub reason: StopReason,
}

/// Why a game stopped before it was over (`game_stopped`'s `reason`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopReason {
    /// The run was stopped (Ctrl-C).
    Interrupted,
    /// The person playing in the browser did not move within `serve --move-wait`, or
    /// the MCP client made no call at its turn within `mcp --http --move-wait`.
    Abandoned,
    /// The person playing in the browser ended the game (left the page, gave up).
    Ended,
    /// The MCP client playing the game went away (its connection closed) before the
    /// game was over.
    Disconnected,
}

impl StopReason {
    /// Every reason.
    pub const ALL: [StopReason; 4] = [
        StopReason::Interrupted,
        StopReason::Abandoned,
        StopReason::Ended,
        StopReason::Disconnected,
    ];

    /// The reason as the log writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            StopReason::Interrupted => "interrupted",
            StopReason::Abandoned => "abandoned",
            StopReason::Ended => "ended",
            StopReason::Disconnected => "disconnected",
        }
    }
}

impl std::fmt::Display for StopReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Text that is not a reason a game stopped for.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown stop reason {text:?}: expected interrupted, abandoned, ended or disconnected")]
pub struct ParseStopReasonError {
    /// The text that failed to parse.
    pub text: String,
}

impl std::str::FromStr for StopReason {
    type Err = ParseStopReasonError;

    fn from_str(text: &str) -> Result<StopReason, ParseStopReasonError> {
        StopReason::ALL
            .into_iter()
            .find(|reason| reason.as_str() == text)
            .ok_or_else(|| ParseStopReasonError { text: text.to_string() })
    }
}

game::serde_as_text!(StopReason);

/// Milliseconds since the Unix epoch.
pub(crate) fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// Held (shared) by every log write; [`hold_log_writes`] takes it exclusively.
static LOG_WRITES: RwLock<()> = RwLock::new(());

/// Waits until no log line is being written and keeps new writes from starting while
/// the guard lives: take it before exiting the process so that no line is torn.
pub fn hold_log_writes() -> RwLockWriteGuard<'static, ()> {
    LOG_WRITES.write().unwrap_or_else(|p| p.into_inner())
}

/// The log file of game `number` in `dir`: `game-NNNN.jsonl`.
pub fn game_log_path(dir: &Path, number: usize) -> PathBuf {
    dir.join(format!("game-{number:04}.jsonl"))
}

/// Whether `path` is named as a game's log (`game-*.jsonl`; not a set-aside
/// `*.jsonl.unfinished-N`).
pub fn is_game_log(path: &Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.starts_with("game-") && n.ends_with(".jsonl"))
}

/// Whether `path` is named as a game's log or one a resume set aside
/// (`game-*.jsonl.unfinished-N`): the files that make a folder a run and whose requests
/// count in its host usage.
pub fn is_game_or_set_aside_log(path: &Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.starts_with("game-") && n.contains(".jsonl"))
}

/// A game's JSONL file, written and flushed one line at a time. Shared by the two
/// players and the game loop of one game.
#[derive(Debug)]
pub struct GameLog {
    path: PathBuf,
    writer: Mutex<BufWriter<File>>,
    /// The decision whose exchanges are being written: its last request's messages
    /// and the bytes its exchanges wrote so far.
    decision: Mutex<Option<Decision>>,
    /// Whether a line has been written.
    written: AtomicBool,
}

/// The exchanges of one decision as written so far: what the next one may refer to,
/// and what the cap counts.
#[derive(Debug)]
struct Decision {
    /// Ply, colour and session of the last exchange.
    at: (usize, Color, u32),
    /// The messages of its request, whole.
    messages: Vec<Value>,
    /// Bytes of exchange lines written for the ply and colour (every session).
    bytes: usize,
}

/// The most bytes of exchange lines one move may write (thousands of times what a
/// move's exchanges take; a host whose replies run to megabytes stops the game here).
pub const MAX_MOVE_LOG_BYTES: usize = 32 << 20;

/// Writing a log failed.
#[derive(Debug, thiserror::Error)]
pub enum LogError {
    /// The file could not be written.
    #[error("cannot write log {path}: check that the folder is writable and the disk not full")]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// One move's exchanges passed [`MAX_MOVE_LOG_BYTES`].
    #[error(
        "the model's exchanges for ply {ply} ({color}) reached {written} bytes of log {path}, past the cap of {} MiB a move: \
         its replies are far longer than a move needs (lower num_predict in the agent's [options], or --max-turns)",
        MAX_MOVE_LOG_BYTES >> 20
    )]
    MoveTooLarge {
        /// The file.
        path: PathBuf,
        /// The ply.
        ply: usize,
        /// The side deciding it.
        color: Color,
        /// Bytes its exchanges would have written with this line.
        written: usize,
    },
}

impl GameLog {
    /// Creates (truncates) the log at `path`.
    pub fn create(path: &Path) -> Result<GameLog, LogError> {
        let file = File::create(path).map_err(|source| LogError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        Ok(GameLog {
            path: path.to_path_buf(),
            writer: Mutex::new(BufWriter::new(file)),
            decision: Mutex::new(None),
            written: AtomicBool::new(false),
        })
    }

    /// Writes an exchange: the messages that lead its request exactly as the whole
    /// messages of the previous exchange's request (same ply, colour and session) did
    /// are not repeated (`omitted_messages` counts them), and one move's exchanges stay
    /// under [`MAX_MOVE_LOG_BYTES`].
    pub(crate) fn write_exchange(&self, mut exchange: ExchangeRecord) -> Result<(), LogError> {
        let at = (exchange.ply, exchange.color, exchange.session);
        let mut decision = self.decision.lock().unwrap_or_else(|p| p.into_inner());
        let messages: Vec<Value> = exchange.request["messages"].as_array().cloned().unwrap_or_default();
        let before = decision.as_ref().filter(|d| d.at == at).map(|d| &d.messages);
        if let Some(before) = before.filter(|b| !b.is_empty() && messages.starts_with(b)) {
            exchange.omitted_messages = Some(before.len());
            exchange.request["messages"] = Value::Array(messages[before.len()..].to_vec());
        }
        let same_move = decision.as_ref().filter(|d| (d.at.0, d.at.1) == (at.0, at.1));
        let line = self.line(Event::Exchange(exchange))?;
        let written = same_move.map_or(0, |d| d.bytes) + line.len() + 1;
        if written > MAX_MOVE_LOG_BYTES {
            return Err(LogError::MoveTooLarge {
                path: self.path.clone(),
                ply: at.0,
                color: at.1,
                written,
            });
        }
        *decision = Some(Decision {
            at,
            messages,
            bytes: written,
        });
        self.write_line(&line)
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether no line has been written yet (a game stopped before it began logs
    /// nothing more).
    pub fn is_empty(&self) -> bool {
        !self.written.load(Ordering::Acquire)
    }

    /// Appends one record and flushes it (lines are built by [`GameWriter`]).
    pub(crate) fn write(&self, event: Event) -> Result<(), LogError> {
        let line = self.line(event)?;
        self.write_line(&line)
    }

    /// `event` as a line of this log.
    fn line(&self, event: Event) -> Result<String, LogError> {
        let record = Record {
            schema_version: SCHEMA_VERSION,
            time_ms: now_ms(),
            event,
        };
        serde_json::to_string(&record).map_err(|e| LogError::Io {
            path: self.path.clone(),
            source: e.into(),
        })
    }

    fn write_line(&self, line: &str) -> Result<(), LogError> {
        let _writing = LOG_WRITES.read().unwrap_or_else(|p| p.into_inner());
        let mut writer = self.writer.lock().unwrap_or_else(|p| p.into_inner());
        writeln!(writer, "{line}")
            .and_then(|()| writer.flush())
            .map_err(|source| LogError::Io {
                path: self.path.clone(),
                source,
            })?;
        self.written.store(true, Ordering::Release);
        Ok(())
    }
}

/// A log line that cannot be read back.
#[derive(Debug, thiserror::Error)]
pub enum ReadLogError {
    /// The file cannot be opened or read, is not a regular file, or passes a cap
    /// ([`LOG_LINE_CAP`], [`LOG_FILE_CAP`]); the error names the file and the cap.
    #[error(transparent)]
    Read(#[from] lines::LineError),
    /// A line is not a record of this format.
    #[error("{path}:{line}: not a log record ({source}): {}", shorten(.text))]
    Line {
        /// The file.
        path: PathBuf,
        /// Line number from 1.
        line: usize,
        /// The text of the line.
        text: String,
        /// The decode error.
        #[source]
        source: serde_json::Error,
    },
    /// An exchange that leaves out messages no exchange before it holds.
    #[error(
        "{path}: an exchange at ply {ply} leaves out its first {omitted} messages, but the exchange before it is not \
         of its session: the log was edited or cut; restore it from a copy"
    )]
    Omitted {
        /// The file.
        path: PathBuf,
        /// The exchange's ply.
        ply: usize,
        /// The messages it leaves out.
        omitted: usize,
    },
    /// A record of a format version this build does not read.
    #[error(
        "{path}:{line}: schema_version {found} is not one this build reads (it reads \
         version {SCHEMA_VERSION}): read the log with the othello-arena that wrote it"
    )]
    Version {
        /// The file.
        path: PathBuf,
        /// Line number from 1.
        line: usize,
        /// The version the line carries.
        found: u64,
    },
}

/// At most 200 characters of a line, for a message (the error keeps it whole).
fn shorten(text: &str) -> String {
    match text.char_indices().nth(200) {
        Some((end, _)) => format!("{}... ({} bytes)", &text[..end], text.len()),
        None => text.to_string(),
    }
}

/// Decodes line `line` (from 1) of `path`: a record of this format version. Every
/// reader of log lines goes through it.
pub fn decode_line(path: &Path, line: usize, bytes: &[u8]) -> Result<Record, ReadLogError> {
    /// Just the version, to tell an unknown version from a bad line.
    #[derive(Deserialize)]
    struct Version {
        schema_version: u64,
    }
    let version = |found: u64| ReadLogError::Version {
        path: path.to_path_buf(),
        line,
        found,
    };
    match serde_json::from_slice::<Record>(bytes) {
        Ok(record) if record.schema_version == SCHEMA_VERSION => Ok(record),
        Ok(record) => Err(version(record.schema_version.into())),
        Err(source) => match serde_json::from_slice::<Version>(bytes) {
            Ok(v) if v.schema_version != u64::from(SCHEMA_VERSION) => Err(version(v.schema_version)),
            _ => Err(ReadLogError::Line {
                path: path.to_path_buf(),
                line,
                text: String::from_utf8_lossy(bytes).into_owned(),
                source,
            }),
        },
    }
}

/// The lines of a file's bytes, with their numbers from 1, blank ones left out.
fn lines(bytes: &[u8]) -> impl Iterator<Item = (usize, &[u8])> {
    bytes
        .split(|&b| b == b'\n')
        .enumerate()
        .map(|(index, line)| (index + 1, line))
        .filter(|(_, line)| !line.iter().all(u8::is_ascii_whitespace))
}

/// The longest line a game log may hold: no exchange line is written past
/// [`MAX_MOVE_LOG_BYTES`], and every other record is far shorter.
pub const LOG_LINE_CAP: usize = MAX_MOVE_LOG_BYTES;

/// The largest game log read (thousands of times a long game's log).
pub const LOG_FILE_CAP: u64 = 1 << 30;

/// A game log's bytes, through the one bounded reader ([`lines::read_file_bytes`]).
fn read_bytes(path: &Path) -> Result<Vec<u8>, ReadLogError> {
    Ok(lines::read_file_bytes(path, LOG_LINE_CAP, LOG_FILE_CAP)?)
}

/// Reads every record of a game log, strictly: every line must be a whole record of
/// this format version.
pub fn read_game_log(path: &Path) -> Result<Vec<Record>, ReadLogError> {
    let mut records = lines(&read_bytes(path)?)
        .map(|(line, bytes)| decode_line(path, line, bytes))
        .collect::<Result<Vec<_>, _>>()?;
    restore_requests(path, &mut records)?;
    Ok(records)
}

/// Puts back the messages each exchange's request left out
/// ([`ExchangeRecord::omitted_messages`]): those of the previous exchange's request.
fn restore_requests(path: &Path, records: &mut [Record]) -> Result<(), ReadLogError> {
    let mut before: Option<((usize, Color, u32), Vec<Value>)> = None;
    for record in records {
        let Event::Exchange(exchange) = &mut record.event else {
            continue;
        };
        let at = (exchange.ply, exchange.color, exchange.session);
        if let Some(omitted) = exchange.omitted_messages.take() {
            let shown = exchange.request["messages"].as_array().cloned().unwrap_or_default();
            let lead = match &before {
                Some((then, messages)) if *then == at && messages.len() >= omitted => &messages[..omitted],
                _ => {
                    return Err(ReadLogError::Omitted {
                        path: path.to_path_buf(),
                        ply: at.0,
                        omitted,
                    })
                }
            };
            exchange.request["messages"] = Value::Array(lead.iter().cloned().chain(shown).collect());
        }
        let messages = exchange.request["messages"].as_array().cloned().unwrap_or_default();
        before = Some((at, messages));
    }
    Ok(())
}

/// The `game_start` record among `records`, if there is one.
pub fn game_start(records: &[Record]) -> Option<&GameStart> {
    records.iter().find_map(|r| match &r.event {
        Event::GameStart(start) => Some(start),
        _ => None,
    })
}

/// A game log as far as it can be read: every whole record, and whether the file ends
/// in a line that is not one (torn by a crash).
#[derive(Clone, Debug, PartialEq)]
pub struct LogPrefix {
    /// The records before any torn line.
    pub records: Vec<Record>,
    /// The last line was cut off: not a whole JSON value.
    pub torn_tail: bool,
}

/// Reads a game log that a crash may have cut short: a *last* line that is not a whole
/// JSON value (cut off mid-write) is reported as `torn_tail`; any other bad line, a
/// last line that is whole JSON but not a record, and a record of another
/// `schema_version` are errors.
pub fn read_game_log_prefix(path: &Path) -> Result<LogPrefix, ReadLogError> {
    let bytes = read_bytes(path)?;
    let last = lines(&bytes).last().map(|(line, _)| line);
    let mut records = Vec::new();
    for (line, text) in lines(&bytes) {
        match decode_line(path, line, text) {
            Ok(record) => records.push(record),
            Err(ReadLogError::Line { source, .. }) if Some(line) == last && is_cut_off(&source) => {
                restore_requests(path, &mut records)?;
                return Ok(LogPrefix {
                    records,
                    torn_tail: true,
                });
            }
            Err(err) => return Err(err),
        }
    }
    restore_requests(path, &mut records)?;
    Ok(LogPrefix {
        records,
        torn_tail: false,
    })
}

/// Whether a line failed as a cut-off write does: the JSON ends early or turns into
/// bytes that are not JSON (a crash can leave zeros), rather than being whole JSON of
/// the wrong shape.
fn is_cut_off(error: &serde_json::Error) -> bool {
    matches!(
        error.classify(),
        serde_json::error::Category::Eof | serde_json::error::Category::Syntax
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file in the temporary folder holding `text`.
    fn log_file(name: &str, text: &str) -> PathBuf {
        let path = std::env::temp_dir().join(format!("othello-record-{name}-{}.jsonl", std::process::id()));
        std::fs::write(&path, text).unwrap();
        path
    }

    fn stopped_line(version: u32) -> String {
        let record = Record {
            schema_version: version,
            time_ms: 1,
            event: Event::GameStopped(GameStopped {
                game: 1,
                ply: 5,
                reason: StopReason::Interrupted,
            }),
        };
        serde_json::to_string(&record).unwrap()
    }

    #[test]
    fn a_record_of_another_schema_version_is_refused_naming_it() {
        let line = stopped_line(SCHEMA_VERSION);
        let path = log_file("version", &format!("{line}\n{}\n", stopped_line(7)));
        for err in [
            read_game_log(&path).unwrap_err(),
            read_game_log_prefix(&path).unwrap_err(),
        ] {
            assert!(
                matches!(err, ReadLogError::Version { line: 2, found: 7, .. }),
                "{err:?}"
            );
            let text = err.to_string();
            assert!(
                text.contains("schema_version 7") && text.contains("reads version 1"),
                "{text}"
            );
        }
        // A version too large for the field is named as well.
        let path = log_file(
            "version-big",
            &line.replace("\"schema_version\":1", "\"schema_version\":99999999999"),
        );
        let err = read_game_log(&path).unwrap_err();
        assert!(err.to_string().contains("schema_version 99999999999"), "{err}");
    }

    #[test]
    fn only_a_cut_off_last_line_is_a_torn_tail() {
        let line = stopped_line(SCHEMA_VERSION);
        let cut = &line[..line.len() / 2];
        let torn = log_file("torn", &format!("{line}\n{cut}"));
        let prefix = read_game_log_prefix(&torn).unwrap();
        assert!(prefix.torn_tail);
        assert_eq!(prefix.records.len(), 1);
        assert!(matches!(read_game_log(&torn), Err(ReadLogError::Line { line: 2, .. })));
        // Cut in the middle of the file: an error naming the line.
        let middle = log_file("middle", &format!("{line}\n{cut}\n{line}\n"));
        let err = read_game_log_prefix(&middle).unwrap_err();
        assert!(matches!(err, ReadLogError::Line { line: 2, .. }), "{err:?}");
        // Whole JSON that is not a record is not a cut.
        let wrong = log_file(
            "wrong",
            &format!("{line}\n{{\"schema_version\":1,\"type\":\"nope\"}}\n"),
        );
        assert!(matches!(
            read_game_log_prefix(&wrong),
            Err(ReadLogError::Line { line: 2, .. })
        ));
        // A whole file is not torn, blank lines or not.
        let whole = log_file("whole", &format!("{line}\n\n{line}\n\n"));
        assert_eq!(read_game_log_prefix(&whole).unwrap().records.len(), 2);
    }

    #[test]
    fn a_forfeit_line_reads_back_and_names_its_source() {
        let record = Record {
            schema_version: SCHEMA_VERSION,
            time_ms: 1,
            event: Event::Forfeit(ForfeitRecord {
                game: 3,
                ply: 5,
                color: Color::Black,
                player: "llm:m".into(),
                agent: AgentDecision {
                    source: Some(MoveSource::Forfeit),
                    fallback_reason: Some("no legal move; the model forfeited the game".into()),
                    ..AgentDecision::default()
                },
            }),
        };
        let value = serde_json::to_value(&record).unwrap();
        assert_eq!(value["type"], "forfeit");
        assert_eq!(value["agent"]["source"], "forfeit");
        assert_eq!((&value["color"], &value["player"]), (&"black".into(), &"llm:m".into()));
        assert_eq!(serde_json::from_value::<Record>(value).unwrap(), record);
    }

    /// An exchange of `messages` (each a user message of that text) in `session`.
    fn exchange(messages: &[&str], reply: &str) -> Exchanged {
        let messages: Vec<Value> = messages
            .iter()
            .map(|m| serde_json::json!({"role": "user", "content": m}))
            .collect();
        Exchanged {
            request: serde_json::json!({"model": "m", "messages": messages}),
            response: serde_json::json!({"message": {"role": "assistant", "content": reply}}),
            latency_ms: 1.0,
            retries: 0,
            host: "http://127.0.0.1:1".into(),
            failures: Vec::new(),
            finish_reason: None,
            answered_by: None,
            server: None,
        }
    }

    fn exchanges_of(records: &[Record]) -> Vec<&ExchangeRecord> {
        records
            .iter()
            .filter_map(|r| match &r.event {
                Event::Exchange(x) => Some(x),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn an_exchange_writes_only_the_messages_its_session_has_not_sent_and_readers_restore_them() {
        let path = log_file("dedup", "");
        let log = GameLog::create(&path).unwrap();
        let writer = GameWriter::new(Some(&log), 1);
        let at = Ply {
            number: 3,
            color: Color::Black,
        };
        let turns = [
            ((1, 1), vec!["system", "board"]),
            ((1, 2), vec!["system", "board", "reply 1", "tool result"]),
            (
                (1, 3),
                vec!["system", "board", "reply 1", "tool result", "reply 2", "answer now"],
            ),
            // A new session starts over: written whole.
            ((2, 1), vec!["system", "board"]),
        ];
        for (turn, messages) in &turns {
            writer.exchange(at, *turn, exchange(messages, "ok"), None).unwrap();
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let written: Vec<Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        let shown = |i: usize| written[i]["request"]["messages"].as_array().unwrap().len();
        assert_eq!((shown(0), shown(1), shown(2), shown(3)), (2, 2, 2, 2));
        assert_eq!(written[1]["omitted_messages"], 2);
        assert_eq!(written[2]["omitted_messages"], 4);
        assert!(written[0].get("omitted_messages").is_none() && written[3].get("omitted_messages").is_none());
        // Every reader sees each request whole, as it was sent.
        for records in [
            read_game_log(&path).unwrap(),
            read_game_log_prefix(&path).unwrap().records,
        ] {
            let read = exchanges_of(&records);
            for (x, (_, messages)) in read.iter().zip(&turns) {
                assert_eq!(x.request, exchange(messages, "ok").request);
                assert_eq!(x.omitted_messages, None);
            }
        }
        // A log whose earlier exchange is gone cannot be read as if whole.
        let cut: Vec<&str> = text
            .lines()
            .enumerate()
            .filter(|(i, _)| *i != 1)
            .map(|(_, l)| l)
            .collect();
        std::fs::write(&path, cut.join("\n") + "\n").unwrap();
        let err = read_game_log(&path).unwrap_err().to_string();
        assert!(err.contains("leaves out its first 4 messages"), "{err}");
    }

    #[test]
    fn a_move_whose_exchanges_pass_the_cap_is_refused_naming_it() {
        let path = log_file("cap", "");
        let log = GameLog::create(&path).unwrap();
        let writer = GameWriter::new(Some(&log), 1);
        let at = Ply {
            number: 5,
            color: Color::White,
        };
        let huge = "x".repeat(MAX_MOVE_LOG_BYTES / 3);
        writer.exchange(at, (1, 1), exchange(&["board"], &huge), None).unwrap();
        writer.exchange(at, (2, 1), exchange(&["board"], &huge), None).unwrap();
        let err = writer
            .exchange(at, (3, 1), exchange(&["board"], &huge), None)
            .unwrap_err();
        assert!(matches!(err, LogError::MoveTooLarge { ply: 5, .. }), "{err}");
        assert!(err.to_string().contains("past the cap of 32 MiB a move"), "{err}");
        // The next move starts its count again; nothing refused was written.
        let next = Ply {
            number: 7,
            color: Color::White,
        };
        writer
            .exchange(next, (1, 1), exchange(&["board"], &huge), None)
            .unwrap();
        assert_eq!(read_game_log(&path).unwrap().len(), 3);
    }
}
