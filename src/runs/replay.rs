//! Rebuilding a game, ply by ply, from its log: positions, the model's exchanges
//! (thinking, content, tool calls with their results, how the answer was read), the
//! moves and their sources, and a forfeit that ended the game. Also reads seed 000's
//! bare logs (one `{"request": ..., "response": ...}` per line), rebuilding each
//! position from the board text in the request.

use agent::ModelGame;
use serde::Serialize;
use serde_json::Value;

use agent::{parse_answer, parse_structured, recover_tool_calls, Answer, AnswerPolicy};
use game::othello::{Bitboard, Board, ByColor, Color, Outcome, TextStyle};
use game::{Game, Marubatsu, Othello};
use llm::{decode_reply, Role};
use record::{
    game_start, AgentDecision, Event, ExchangeRecord, ForfeitRecord, GameEnd, MoveSource, Notation, Record, Squares,
};

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
    /// The position before the move, as the log writes boards.
    pub board_before: Squares,
    /// The position after the move (the same as before for a forfeit).
    pub board_after: Squares,
    /// The side to move.
    pub color: Color,
    /// The mover's spec.
    pub player: String,
    /// The move (`None` in seed logs, which do not record it).
    #[serde(rename = "move")]
    pub mv: Option<Notation>,
    /// Where the move came from.
    pub source: Option<MoveSource>,
    /// The model's exchanges for this move.
    pub exchanges: Vec<ExchangeView>,
    /// The agent's decision record.
    pub agent: Option<AgentDecision>,
    /// Each side's pieces (discs, marks) after the move.
    #[serde(skip)]
    pub pieces_after: ByColor<u32>,
    /// Black's margin after the move in the game's unit ([`game::Rules::margin`]).
    #[serde(skip)]
    pub margin_after: i32,
    /// The position before the move as the model reads it.
    #[serde(skip)]
    pub text: String,
}

/// A game rebuilt from a log.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GameReplay {
    /// The game (`othello`, `marubatsu`).
    pub game: Game,
    /// Black's spec.
    pub black: String,
    /// White's spec.
    pub white: String,
    /// The position the game started from, as the log writes boards.
    #[serde(skip)]
    pub start_board: Squares,
    /// The side to move there.
    #[serde(skip)]
    pub start_to_move: Color,
    /// The opening moves (random or a suite's; not logged as plies).
    pub opening: Vec<Notation>,
    /// The suite line the game started from; absent for a random opening.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suite_opening: Option<String>,
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
    /// The result where the moves end, by the rules (the winner, or a draw); `None`
    /// while the game is not over.
    #[serde(skip)]
    pub outcome: Option<Outcome>,
    /// Black's margin in the game's unit by the rules (after a forfeit, the game's
    /// forfeit margin), once `game_end` is read and checked.
    pub margin: Option<i32>,
}

impl GameReplay {
    /// The winner as the log's `game_end` tells it (`black`, `white` or `draw`): the
    /// forfeiting side's opponent, or else the rules' result where the moves end.
    pub fn winner(&self) -> Option<Outcome> {
        if let Some(forfeit) = &self.forfeit {
            return Some(Outcome::Win(!forfeit.color));
        }
        self.final_discs?;
        self.outcome
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
    /// A move, forfeit or end of the game that the rules do not allow where it stands.
    #[error("line {line}, ply {ply}: {reason}")]
    Ply {
        /// Line number from 1 (the record's position among the log's records).
        line: usize,
        /// The ply of the record.
        ply: usize,
        /// What the rules say.
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
    legal: Bitboard,
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
            parse_structured(&message.content, legal)
        } else {
            parse_answer(&message.content, legal, AnswerPolicy::Last, false)
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
            rejected => rejected.why_rejected(),
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

/// Rebuilds a game from the records of one of our game logs, checking it against the
/// rules (every log reader that counts games relies on this check): each move must be
/// legal and made by the side to move; a `forfeit` only by the side to move, with legal
/// moves left, and nothing played after it; `game_end` only where the game is over (or
/// after a forfeit), with the discs on the board and the winner they give (after a
/// forfeit, the forfeiting side's opponent), and no move after it.
pub fn replay_records(records: &[Record]) -> Result<GameReplay, ReplayError> {
    let start = game_start(records).ok_or(ReplayError::Empty)?;
    match start.game() {
        Game::Othello => replay_game::<Othello>(records),
        Game::Marubatsu => replay_game::<Marubatsu>(records),
    }
}

/// [`replay_records`] for a log of game `R`.
fn replay_game<R: ModelGame>(records: &[Record]) -> Result<GameReplay, ReplayError> {
    let start = game_start(records).ok_or(ReplayError::Empty)?;
    let mut board = *start
        .opening_line::<R>()
        .map_err(|reason| ReplayError::Line { line: 1, reason })?
        .board();
    let mut replay = GameReplay {
        game: Game::of::<R>(),
        black: start.black.clone(),
        white: start.white.clone(),
        start_board: start.start_board.clone(),
        start_to_move: start.start_to_move.unwrap_or(Color::Black),
        opening: start.opening.clone(),
        suite_opening: start.suite_opening.clone(),
        plies: Vec::new(),
        forfeit: None,
        final_discs: None,
        outcome: None,
        margin: None,
    };
    let mut pending = Vec::new();
    for (index, record) in records.iter().enumerate() {
        let broken = |ply: usize, reason: String| ReplayError::Ply {
            line: index + 1,
            ply,
            reason,
        };
        let after = if replay.final_discs.is_some() {
            Some("game_end")
        } else if replay.forfeit.is_some() {
            Some("the forfeit")
        } else {
            None
        };
        match &record.event {
            Event::Exchange(e) => pending.push(e),
            Event::Move(m) => {
                if let Some(after) = after {
                    return Err(broken(m.ply, format!("a move after {after}")));
                }
                check_mover::<R>(&board, m.color).map_err(|reason| broken(m.ply, reason))?;
                let mv = m.mv.to_move::<R>().map_err(|reason| broken(m.ply, reason))?;
                let next = R::play(&board, mv).map_err(|e| broken(m.ply, e.to_string()))?;
                replay
                    .plies
                    .push(ply_view::<R>(m.ply, &board, &next, (m.color, &m.player), &mut pending));
                let ply = replay.plies.last_mut().expect("pushed above");
                (ply.mv, ply.source, ply.agent) = (Some(m.mv), Some(m.source), m.agent.clone());
                board = next;
            }
            Event::Forfeit(f) => {
                if let Some(reason) = forfeit_problem::<R>(&board, f, after) {
                    return Err(broken(f.ply, reason));
                }
                let mut view = ply_view::<R>(f.ply, &board, &board, (f.color, &f.player), &mut pending);
                (view.source, view.agent) = (Some(MoveSource::Forfeit), Some(f.agent.clone()));
                replay.forfeit = Some(view);
            }
            Event::GameEnd(end) => {
                let ply = start.opening.len() + replay.plies.len() + 1;
                if replay.final_discs.is_some() {
                    return Err(broken(ply, "a second game_end record".into()));
                }
                replay.final_discs = Some((end.black_discs, end.white_discs));
                replay.outcome = R::is_over(&board).then(|| R::outcome(&board));
                check_end::<R>(&board, &replay, end.winner).map_err(|reason| broken(ply, reason))?;
                replay.margin = Some(check_margin::<R>(&board, &replay, end).map_err(|reason| broken(ply, reason))?);
            }
            Event::GameStart(_) | Event::GameStopped(_) | Event::Hint(_) => {}
        }
    }
    Ok(replay)
}

/// A ply from `before` to `after`, by `mover` (color and spec as logged), with the
/// exchanges logged for it (then cleared); its move, source and decision are filled
/// in by the caller.
fn ply_view<R: ModelGame>(
    ply: usize,
    before: &R::Position,
    after: &R::Position,
    (color, player): (Color, &str),
    pending: &mut Vec<&ExchangeRecord>,
) -> PlyView {
    PlyView {
        ply,
        board_before: Squares::of::<R>(before),
        board_after: Squares::of::<R>(after),
        color,
        player: player.to_string(),
        mv: None,
        source: None,
        exchanges: decode_pending(pending, R::legal_coordinates(before)),
        agent: None,
        pieces_after: R::pieces(after),
        margin_after: R::margin(after),
        text: R::model_text(before, TextStyle::default(), agent::LegalMoves::Shown),
    }
}

/// Why a forfeit record cannot stand where the moves leave `board` (`after`: the
/// record that already ended the game), if it cannot.
fn forfeit_problem<R: ModelGame>(board: &R::Position, f: &ForfeitRecord, after: Option<&str>) -> Option<String> {
    if let Some(after) = after {
        Some(format!("a forfeit after {after}"))
    } else if R::is_over(board) {
        Some(format!("forfeit by {} at ply {} in a finished game", f.color, f.ply))
    } else if R::forced_move(board).is_some() {
        Some(format!(
            "forfeit by {} at ply {}, but the moves leave {} to move with no legal move",
            f.color,
            f.ply,
            R::to_move(board)
        ))
    } else {
        check_mover::<R>(board, f.color).err().map(|_| {
            format!(
                "forfeit by {} at ply {}, but the moves leave {} to move",
                f.color,
                f.ply,
                R::to_move(board)
            )
        })
    }
}

/// Black's margin by the rules where the moves end (after a forfeit, the game's
/// forfeit margin), checked against the one `end` scores.
fn check_margin<R: ModelGame>(board: &R::Position, replay: &GameReplay, end: &GameEnd) -> Result<i32, String> {
    let forfeited = replay.forfeit.as_ref().map(|f| f.color);
    let margin = forfeited.map_or_else(|| R::margin(board), R::forfeit_margin);
    let logged = end.black_margin(forfeited);
    if logged == margin {
        Ok(margin)
    } else {
        Err(format!(
            "the game_end record scores black's margin {logged}, the rules {margin}"
        ))
    }
}

/// Checks that `color` (as logged) is the side to move on `board`.
fn check_mover<R: ModelGame>(board: &R::Position, color: Color) -> Result<(), String> {
    if color == R::to_move(board) {
        Ok(())
    } else {
        Err(format!("{color} moves, but {} is to move", R::to_move(board)))
    }
}

/// Checks a `game_end` record (already in `replay`) against `board`, where the moves end.
fn check_end<R: ModelGame>(board: &R::Position, replay: &GameReplay, winner: Outcome) -> Result<(), String> {
    let pieces = R::pieces(board);
    let discs = (pieces.black, pieces.white);
    let over = R::is_over(board);
    let (black, white) = replay.final_discs.unwrap_or_default();
    if !(over || replay.forfeit.is_some()) || discs != (black, white) {
        return Err(format!(
            "the moves end at {}-{} ({}), the game_end record says {black}-{white}",
            discs.0,
            discs.1,
            if over { "game over" } else { "game not over" },
        ));
    }
    let Some(expected) = replay.winner() else {
        return Err(format!(
            "the game_end record says the winner is {winner}, but the game has no result"
        ));
    };
    if winner == expected {
        return Ok(());
    }
    Err(match &replay.forfeit {
        Some(forfeit) => format!(
            "{} forfeited, the game_end record says the winner is {winner} (expected {expected})",
            forfeit.color
        ),
        None => format!("the game_end record says the winner is {winner}, the discs say {expected}"),
    })
}

/// Decodes the exchanges logged for one ply (in `board`) and clears them.
fn decode_pending(pending: &mut Vec<&ExchangeRecord>, legal: Bitboard) -> Vec<ExchangeView> {
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
                legal,
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
        game: Game::Othello,
        black: "(not in a seed log)".into(),
        white: "(not in a seed log)".into(),
        start_board: Squares::of::<Othello>(&Board::new()),
        start_to_move: Color::Black,
        opening: Vec::new(),
        suite_opening: None,
        plies: Vec::new(),
        forfeit: None,
        final_discs: None,
        outcome: None,
        margin: None,
    };
    let mut last_board: Option<Board> = None;
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
        let new_ply = last_board != Some(board) || messages.len() <= 1;
        if new_ply {
            let player = request["model"].as_str().map_or("llm".into(), |m| format!("llm:{m}"));
            replay.plies.push(ply_view::<Othello>(
                replay.plies.len() + 1,
                &board,
                &board,
                (board.side_to_move(), &player),
                &mut Vec::new(),
            ));
            last_board = Some(board);
        }
        let ply = replay.plies.last_mut().expect("pushed above");
        let turn = ply.exchanges.len() as u32 + 1;
        let next = lines.get(index + 1).map(|l| &l["request"]);
        let view = decode_exchange((1, turn), request, next, &line["response"], None, board.legal_moves());
        // The answer as read starts with its square (`d3 (clean)`) when it was a move.
        if let Some(answer) = view.answer.as_deref().and_then(|a| a.split(' ').next()?.parse().ok()) {
            ply.mv = Some(answer);
        }
        ply.exchanges.push(view);
    }
    if replay.plies.is_empty() {
        return Err(ReplayError::Empty);
    }
    Ok(replay)
}
