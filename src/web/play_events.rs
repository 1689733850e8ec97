//! The play page's events, one JSON object each with its `kind` (the list is in
//! `play`'s module doc). Built only here, from the typed values the game gives.

use agent::AgentEvent;
use arena::{ClientResult, ClientState};
use engines::Decision;
use game::othello::{Bitboard, Board, Color, Move};
use record::{AgentDecision, MoveSource, StopReason};
use serde::Serialize;

use super::clip;

/// The longest model text sent to the page (the log keeps everything).
const MAX_TEXT: usize = 32 * 1024;

/// One event of a browser game.
#[derive(Debug, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub(crate) enum PlayEvent<'a> {
    /// The events that follow are the whole game again (a page that reconnected).
    Reset,
    /// The page fell behind the feed: it should reconnect.
    Lagged,
    /// The game begins: the person's colour, both players and the log's file name.
    Start {
        /// The person's colour.
        human: String,
        /// Black's name.
        black: &'a str,
        /// White's name.
        white: &'a str,
        /// The game log's file name.
        log: Option<String>,
    },
    /// A position: after each move, and the start.
    State(StateEvent),
    /// The side to move passed at `ply`.
    Pass {
        /// Who passed.
        color: String,
        /// The ply of the pass.
        ply: usize,
    },
    /// An engine's move with its score, nodes and candidates.
    Engine {
        /// The engine's name.
        player: String,
        /// What it decided.
        #[serde(flatten)]
        decision: &'a Decision,
    },
    /// One turn of the model's reply.
    LlmReply {
        /// Session of the move (from 1).
        session: u32,
        /// Turn of the session (from 1).
        turn: u32,
        /// Its thinking, clipped.
        thinking: Option<String>,
        /// Its text, clipped.
        content: String,
        /// Its tool calls as sent.
        tool_calls: Vec<ToolCallEvent>,
    },
    /// A tool call run and its result.
    ToolResult {
        /// The tool's name, clipped.
        name: String,
        /// Its arguments as JSON text, clipped.
        arguments: String,
        /// The result sent back, clipped.
        content: String,
        /// Whether the result is an error.
        is_error: bool,
    },
    /// A reply that held no legal move: why, and what was sent back.
    Rejected {
        /// Session of the move (from 1).
        session: u32,
        /// Turn of the session (from 1).
        turn: u32,
        /// Why it did not count.
        reason: String,
        /// The message sent back, clipped (`None` when the session ended instead).
        feedback: Option<String>,
    },
    /// How the model's move was made.
    Decision(DecisionEvent<'a>),
    /// The model server failed: the fallback plays.
    Error {
        /// What failed and who played instead.
        message: &'a str,
    },
    /// The game is over.
    End {
        /// Black's discs.
        black: u32,
        /// White's discs.
        white: u32,
        /// `black`, `white` or `draw`.
        winner: String,
        /// The colour that forfeited, if one did.
        forfeit: Option<String>,
    },
    /// The game could not go on.
    Failed {
        /// What happened.
        message: String,
        /// The log's stop reason, when the game was stopped rather than broken.
        #[serde(skip_serializing_if = "Option::is_none")]
        reason: Option<StopReason>,
    },
}

/// A position the page draws.
#[derive(Debug, Serialize)]
pub(crate) struct StateEvent {
    board: String,
    to_move: String,
    legal: Vec<String>,
    last: Option<String>,
    flips: Vec<String>,
    black: u32,
    white: u32,
    ply: usize,
    over: bool,
}

/// A tool call of a reply.
#[derive(Debug, Serialize)]
pub(crate) struct ToolCallEvent {
    name: String,
    arguments: String,
}

/// How the model's move was made (the log's decision record, as shown).
#[derive(Debug, Serialize)]
pub(crate) struct DecisionEvent<'a> {
    source: Option<MoveSource>,
    turns: u32,
    tool_calls: u32,
    recovered_tool_calls: u32,
    invalid_answers: u32,
    cut_off_answers: u32,
    thinking_tokens: u64,
    latency_ms: f64,
    fallback_reason: Option<&'a str>,
}

impl PlayEvent<'_> {
    /// The event as the JSON text sent to the page.
    pub(crate) fn to_text(&self) -> String {
        // Every field is a string, number, bool or list of them: it always serializes.
        serde_json::to_string(self).unwrap_or_default()
    }

    /// A failed game with `message`.
    pub(crate) fn failed(message: String) -> PlayEvent<'static> {
        PlayEvent::Failed { message, reason: None }
    }

    /// The position after `last` (with its `flips`), the next ply to be played.
    pub(crate) fn state(board: &Board, last: Option<Move>, flips: Bitboard, next_ply: usize) -> PlayEvent<'static> {
        PlayEvent::State(StateEvent {
            board: board.to_squares_string(),
            to_move: board.side_to_move().to_string(),
            legal: board.legal_moves().squares().map(|s| s.to_string()).collect(),
            last: last.map(|m| m.to_string()),
            flips: flips.squares().map(|s| s.to_string()).collect(),
            black: board.count(Color::Black),
            white: board.count(Color::White),
            ply: next_ply,
            over: board.is_game_over(),
        })
    }

    /// The game's last event, from its state as its client (the person) is told it:
    /// `end` with the score and winner of a finished game (a forfeit named), or `failed`
    /// with why it stopped.
    pub(crate) fn ended(state: &ClientState, stopped: Option<StopReason>) -> PlayEvent<'static> {
        match (state.result, state.discs) {
            (Some(result), Some(discs)) => PlayEvent::End {
                black: discs.black,
                white: discs.white,
                winner: match result {
                    ClientResult::Win => state.your_color.to_string(),
                    ClientResult::Loss => (!state.your_color).to_string(),
                    ClientResult::Draw => "draw".to_string(),
                },
                forfeit: state.forfeit.map(|color| color.to_string()),
            },
            _ => PlayEvent::Failed {
                message: state.failed.clone().unwrap_or_else(|| "the game stopped".to_string()),
                reason: stopped,
            },
        }
    }

    pub(crate) fn from_agent(event: AgentEvent<'_>) -> PlayEvent<'static> {
        match event {
            AgentEvent::Reply { session, turn, message } => PlayEvent::LlmReply {
                session,
                turn,
                thinking: message.thinking.as_deref().map(clip_text),
                content: clip_text(&message.content),
                tool_calls: message
                    .tool_calls
                    .iter()
                    .map(|c| ToolCallEvent {
                        name: clip_text(&c.function.name),
                        arguments: clip_text(&c.function.arguments.to_string()),
                    })
                    .collect(),
            },
            AgentEvent::ToolResult {
                call,
                content,
                is_error,
            } => PlayEvent::ToolResult {
                name: clip_text(&call.function.name),
                arguments: clip_text(&call.function.arguments.to_string()),
                content: clip_text(content),
                is_error,
            },
            AgentEvent::Rejected {
                session,
                turn,
                reason,
                feedback,
            } => PlayEvent::Rejected {
                session,
                turn,
                reason,
                feedback: feedback.map(clip_text),
            },
        }
    }

    /// How the model's move was made.
    pub(crate) fn decision(decision: &AgentDecision) -> PlayEvent<'_> {
        PlayEvent::Decision(DecisionEvent {
            source: decision.source,
            turns: decision.turns,
            tool_calls: decision.tool_calls,
            recovered_tool_calls: decision.recovered_tool_calls,
            invalid_answers: decision.invalid_answers,
            cut_off_answers: decision.cut_off_answers,
            thinking_tokens: decision.thinking_tokens,
            latency_ms: decision.latency_ms,
            fallback_reason: decision.fallback_reason.as_deref(),
        })
    }
}

fn clip_text(text: &str) -> String {
    clip(text, MAX_TEXT)
}
