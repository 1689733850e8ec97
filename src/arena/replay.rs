//! Rebuilding a game, ply by ply, from its log: positions, the model's exchanges
//! (thinking, content, tool calls with their results, how the answer was read), the
//! moves and their sources, and a forfeit that ended the game. Also reads seed 000's
//! bare logs (one `{"request": ..., "response": ...}` per line), rebuilding each
//! position from the board text in the request.

use serde::Serialize;
use serde_json::Value;

use crate::agent::{parse_answer, parse_structured, recover_tool_calls, Answer, AnswerPolicy};
use crate::llm::{decode_reply, Role};
use crate::othello::{Board, Color, Move};
use crate::record::{game_start, AgentDecision, Event, ExchangeRecord, MoveSource, Record};

/// One tool call and what it returned.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ToolView {
    /// The tool's name.
    pub name: String,
    /// Its arguments as sent by the model.
    pub arguments: Value,
    /// The result sent back (absent when the log does not hold it).
    pub result: Option<String>,
    /// Whether the call was written as text in `content` rather than structured.
    pub recovered: bool,
}

/// One request/response round trip, decoded.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ExchangeView {
    /// Session (or attempt), from 1.
    pub session: u32,
    /// Turn within the session, from 1.
    pub turn: u32,
    /// The model's separate reasoning, if any.
    pub thinking: Option<String>,
    /// The model's text.
    pub content: String,
    /// Tool calls in this reply.
    pub tool_calls: Vec<ToolView>,
    /// How a final answer was read (`None` when the reply was tool calls).
    pub answer: Option<String>,
    /// Prompt and generated tokens.
    pub tokens: (Option<u64>, Option<u64>),
    /// Latency in milliseconds (not in seed logs).
    pub latency_ms: Option<f64>,
}

/// One ply of the game.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PlyView {
    /// Ply number (from 1).
    pub ply: usize,
    /// The position before the move, 64 characters.
    pub board_before: String,
    /// The side to move.
    pub color: String,
    /// The mover's spec.
    pub player: String,
    /// The move (`None` in seed logs, which do not record it).
    #[serde(rename = "move")]
    pub mv: Option<String>,
    /// Where the move came from.
    pub source: Option<MoveSource>,
    /// The model's exchanges for this move.
    pub exchanges: Vec<ExchangeView>,
    /// The agent's decision record.
    pub agent: Option<AgentDecision>,
    #[serde(skip)]
    board: Board,
}

impl PlyView {
    /// The position before the move.
    pub fn board(&self) -> &Board {
        &self.board
    }
}

/// A game rebuilt from a log.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GameReplay {
    /// Black's spec.
    pub black: String,
    /// White's spec.
    pub white: String,
    /// Random opening moves (not logged as plies).
    pub opening: Vec<String>,
    /// Every logged ply, in order.
    pub plies: Vec<PlyView>,
    /// The ply at which the agent forfeited, ending the game: its position, exchanges
    /// and decision, with no move (source `forfeit`). Not among `plies`, which all
    /// hold a move.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub forfeit: Option<PlyView>,
    /// Final discs (black, white), when the game ended in the log (after a forfeit,
    /// the discs on the board; the forfeiting side lost).
    pub final_discs: Option<(u32, u32)>,
}

impl GameReplay {
    /// The winner as the log's `game_end` tells it (`black`, `white` or `draw`): the
    /// forfeiting side's opponent, or else the side with more discs.
    pub fn winner(&self) -> Option<String> {
        if let Some(forfeit) = &self.forfeit {
            return Some(
                forfeit
                    .color
                    .parse::<Color>()
                    .map_or_else(|_| "?".to_string(), |c| (!c).to_string()),
            );
        }
        self.final_discs.map(|(black, white)| match black.cmp(&white) {
            std::cmp::Ordering::Greater => Color::Black.to_string(),
            std::cmp::Ordering::Less => Color::White.to_string(),
            std::cmp::Ordering::Equal => "draw".to_string(),
        })
    }
}

/// A log that does not describe a game.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    /// A line is neither a record of this format nor a seed `{request, response}` line.
    #[error("line {line}: {reason}")]
    Line {
        /// Line number from 1.
        line: usize,
        /// Why it cannot be used.
        reason: String,
    },
    /// The log holds no game.
    #[error("the log holds no game_start record and no seed exchange lines")]
    Empty,
}

/// Decodes one exchange; `request` is its own request (were tools offered?) and
/// `request_next` the next request of the same session (it carries the tool results).
fn decode_exchange(
    (session, turn): (u32, u32),
    request: &Value,
    request_next: Option<&Value>,
    response: &Value,
    latency_ms: Option<f64>,
    board: &Board,
) -> ExchangeView {
    let reply = decode_reply(response).unwrap_or_default();
    let message = reply.message;
    let recovered = message.tool_calls.is_empty();
    let calls = if recovered {
        recover_tool_calls(&message.content)
    } else {
        message.tool_calls.clone()
    };
    // Tool results are the tool messages after the last assistant message of the next
    // request of the session.
    let results: Vec<String> = request_next
        .and_then(|r| r["messages"].as_array())
        .map(|messages| {
            let after = messages
                .iter()
                .rposition(|m| m["role"] == "assistant")
                .map_or(messages.len(), |i| i + 1);
            messages[after..]
                .iter()
                .take_while(|m| m["role"] == "tool")
                .filter_map(|m| m["content"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    let tool_calls: Vec<ToolView> = calls
        .iter()
        .enumerate()
        .map(|(i, c)| ToolView {
            name: c.function.name.clone(),
            arguments: c.function.arguments.clone(),
            result: results.get(i).cloned(),
            recovered,
        })
        .collect();
    let tools_offered = request.get("tools").is_some();
    let answer = if !tool_calls.is_empty() && tools_offered {
        None
    } else if !tool_calls.is_empty() {
        Some("a tool call written as text while no tools were offered: not a move".to_string())
    } else {
        // A request that carried a schema asked for a structured answer.
        let structured = request.get("format").is_some() || request.get("response_format").is_some();
        let read = if structured {
            parse_structured(&message.content, board.legal_moves())
        } else {
            parse_answer(&message.content, board.legal_moves(), AnswerPolicy::Last, false)
        };
        Some(match read {
            Answer::Move { square, kind } => format!("{square} ({kind:?})").to_lowercase(),
            Answer::Illegal { found } => {
                format!(
                    "illegal: {}",
                    found.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ")
                )
            }
            Answer::NotStrict => "not a single coordinate".to_string(),
            Answer::NoCoordinate | Answer::ToolCallText => "no coordinate".to_string(),
            Answer::SchemaViolation => "not JSON against the schema".to_string(),
        })
    };
    ExchangeView {
        session,
        turn,
        thinking: message.thinking,
        content: message.content,
        tool_calls,
        answer,
        tokens: (reply.prompt_tokens, reply.completion_tokens),
        latency_ms,
    }
}

/// Rebuilds a game from the records of one of our game logs.
pub fn replay_records(records: &[Record]) -> Result<GameReplay, ReplayError> {
    let start = game_start(records).ok_or(ReplayError::Empty)?;
    let mut board = Board::parse_squares(&start.start_board, Color::Black).map_err(|e| ReplayError::Line {
        line: 1,
        reason: e.to_string(),
    })?;
    for (i, text) in start.opening.iter().enumerate() {
        let mv: Move = text
            .parse()
            .map_err(|e: crate::othello::ParseSquareError| ReplayError::Line {
                line: 1,
                reason: e.to_string(),
            })?;
        board = board.try_play(mv).map_err(|e| ReplayError::Line {
            line: 1,
            reason: format!("opening move {}: {e}", i + 1),
        })?;
    }
    let mut replay = GameReplay {
        black: start.black.clone(),
        white: start.white.clone(),
        opening: start.opening.clone(),
        plies: Vec::new(),
        forfeit: None,
        final_discs: None,
    };
    let mut pending = Vec::new();
    for (index, record) in records.iter().enumerate() {
        match &record.event {
            Event::Exchange(e) => pending.push(e.clone()),
            Event::Move(m) => {
                replay.plies.push(PlyView {
                    ply: m.ply,
                    board_before: board.to_squares_string(),
                    color: m.color.clone(),
                    player: m.player.clone(),
                    mv: Some(m.mv.clone()),
                    source: Some(m.source),
                    exchanges: decode_pending(&mut pending, &board),
                    agent: m.agent.clone(),
                    board,
                });
                let mv: Move =
                    m.mv.parse()
                        .map_err(|e: crate::othello::ParseSquareError| ReplayError::Line {
                            line: index + 1,
                            reason: e.to_string(),
                        })?;
                board = board.try_play(mv).map_err(|e| ReplayError::Line {
                    line: index + 1,
                    reason: e.to_string(),
                })?;
            }
            Event::Forfeit(f) => {
                replay.forfeit = Some(PlyView {
                    ply: f.ply,
                    board_before: board.to_squares_string(),
                    color: f.color.clone(),
                    player: f.player.clone(),
                    mv: None,
                    source: Some(MoveSource::Forfeit),
                    exchanges: decode_pending(&mut pending, &board),
                    agent: Some(f.agent.clone()),
                    board,
                });
            }
            Event::GameEnd(end) => replay.final_discs = Some((end.black_discs, end.white_discs)),
            Event::GameStart(_) | Event::GameStopped(_) => {}
        }
    }
    Ok(replay)
}

/// Decodes the exchanges logged for one ply (in `board`) and clears them.
fn decode_pending(pending: &mut Vec<ExchangeRecord>, board: &Board) -> Vec<ExchangeView> {
    let exchanges = pending
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let next = pending
                .get(i + 1)
                .filter(|n| n.session == e.session)
                .map(|n| &n.request);
            decode_exchange(
                (e.session, e.turn),
                &e.request,
                next,
                &e.response,
                Some(e.latency_ms),
                board,
            )
        })
        .collect();
    pending.clear();
    exchanges
}

/// Rebuilds the decisions of a seed 000 bare log: one line per exchange; consecutive
/// lines asking about the same position form one ply.
pub fn replay_seed_lines(lines: &[Value]) -> Result<GameReplay, ReplayError> {
    let mut replay = GameReplay {
        black: "(not in a seed log)".into(),
        white: "(not in a seed log)".into(),
        opening: Vec::new(),
        plies: Vec::new(),
        forfeit: None,
        final_discs: None,
    };
    for (index, line) in lines.iter().enumerate() {
        let request = &line["request"];
        let messages = request["messages"].as_array().ok_or_else(|| ReplayError::Line {
            line: index + 1,
            reason: "no request.messages".into(),
        })?;
        let user = messages
            .iter()
            .find(|m| m["role"] == serde_json::json!(Role::User))
            .and_then(|m| m["content"].as_str())
            .ok_or_else(|| ReplayError::Line {
                line: index + 1,
                reason: "no user message with the board".into(),
            })?;
        let board = Board::parse_text(user).map_err(|e| ReplayError::Line {
            line: index + 1,
            reason: e.to_string(),
        })?;
        let new_ply = replay
            .plies
            .last()
            .is_none_or(|p| p.board != board || messages.len() <= 1);
        if new_ply {
            replay.plies.push(PlyView {
                ply: replay.plies.len() + 1,
                board_before: board.to_squares_string(),
                color: board.side_to_move().to_string(),
                player: request["model"].as_str().map_or("llm".into(), |m| format!("llm:{m}")),
                mv: None,
                source: None,
                exchanges: Vec::new(),
                agent: None,
                board,
            });
        }
        let ply = replay.plies.last_mut().expect("pushed above");
        let turn = ply.exchanges.len() as u32 + 1;
        let next = lines.get(index + 1).map(|l| &l["request"]);
        let view = decode_exchange((1, turn), request, next, &line["response"], None, &board);
        if let Some(answer) = view
            .answer
            .as_deref()
            .and_then(|a| a.split(' ').next())
            .filter(|a| a.len() == 2)
        {
            ply.mv = Some(answer.to_string());
        }
        ply.exchanges.push(view);
    }
    if replay.plies.is_empty() {
        return Err(ReplayError::Empty);
    }
    Ok(replay)
}
