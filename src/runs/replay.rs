//! Rebuilding a game, ply by ply, from its log: positions, the model's exchanges (the
//! messages as sent, thinking, content, tool calls with their results, and what the
//! agent did with each reply as the log records it), the moves and their sources, and a
//! forfeit that ended the game. Also reads seed 000's bare logs (one `{"request": ...,
//! "response": ...}` per line), rebuilding each position from the board text in the
//! request.
//!
//! The reading of a reply is never worked out again here with a rule of the replay's
//! own: it is what the agent recorded ([`Reading`]). A reply was rejected when the next
//! request of its session carries `feedback_reason`; its tool calls were run when that
//! request carries their results; the last reply of a decision gave the move when the
//! move record says the model made it. What the log does not record is said so.

use std::fmt;
use std::path::Path;

use serde::Serialize;
use serde_json::Value;
use settings::{LegalMoves, ModelText};

use game::othello::{Board, ByColor, Color, Outcome, TextStyle};
use game::{Game, Marubatsu, Othello};
use record::recover_tool_calls;
use record::{decode_reply, Role};
use record::{
    game_start, AgentDecision, AnswerKind, Event, ExchangeRecord, ForfeitRecord, GameEnd, MoveSource, Notation, Record,
    Squares, ToolCallRecord,
};

use super::run_file::RunFile;

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

/// A message of a request, as sent.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SentMessage {
    /// `system`, `user` (the board, or the harness's feedback or instruction), ...
    pub role: String,
    /// Its text.
    pub content: String,
}

/// What the agent did with a reply, as its log records it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum Reading {
    /// Its tool calls were run (their results went back in the next request).
    ToolCalls,
    /// Its answer gave the move played.
    Accepted {
        /// The move.
        #[serde(rename = "move")]
        mv: Notation,
        /// How the move was read from the answer (absent in logs that do not say).
        kind: Option<AnswerKind>,
    },
    /// Its answer did not count, and the next request told the model why.
    Rejected {
        /// Why, as the log's `feedback_reason` records it.
        reason: String,
    },
    /// Its session ended on it without a move (the answer rejected under
    /// `--on-invalid retry`, or the session's turns used up): the model was told
    /// nothing, and the log records no reason.
    SessionEnded,
    /// It ended its session in a vote: the log keeps the samples' moves, not which
    /// session gave which.
    VoteSample,
    /// The log does not record it: a log older than `feedback_reason`, or a seed log.
    NotRecorded,
}

impl fmt::Display for Reading {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reading::ToolCalls => f.write_str("tool calls run, their results sent back"),
            Reading::Accepted { mv, kind: Some(kind) } => {
                write!(f, "accepted: {mv} ({})", format!("{kind:?}").to_lowercase())
            }
            Reading::Accepted { mv, kind: None } => write!(f, "accepted: {mv}"),
            Reading::Rejected { reason } => write!(f, "rejected: {reason}"),
            Reading::SessionEnded => f.write_str(
                "no move; the session ended here (rejected under --on-invalid retry, or its turns used up: \
                 the model was told nothing, and no reason is recorded)",
            ),
            Reading::VoteSample => {
                f.write_str("ended its session, a sample of the vote (the log does not say whether it gave a move)")
            }
            Reading::NotRecorded => f.write_str("reading not recorded by this version"),
        }
    }
}

/// One request/response round trip, decoded.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ExchangeView {
    /// Session (or attempt), from 1.
    pub session: u32,
    /// Turn within the session, from 1.
    pub turn: u32,
    /// The messages this request added (the system prompt is the game's
    /// [`GameReplay::system_prompt`], given here only where it differs; tool results
    /// are with the calls they answer): a session's first request, its user message; a
    /// later one, the feedback or instruction after the reply before it.
    pub sent: Vec<SentMessage>,
    /// Why the request's last message was sent, as the log records it: the reply before
    /// it gave no move that counted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub feedback_reason: Option<String>,
    /// The model's separate reasoning, if any.
    pub thinking: Option<String>,
    /// The model's text.
    pub content: String,
    /// Tool calls in this reply.
    pub tool_calls: Vec<ToolView>,
    /// What the agent did with the reply, as the log records it.
    pub reading: Reading,
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
    /// The tools an MCP client called while this ply was its to play, in order, with
    /// their arguments and results as it sent and received them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCallRecord>,
    /// Each side's pieces (discs, marks) after the move.
    #[serde(skip)]
    pub pieces_after: ByColor<u32>,
    /// Black's margin after the move in the game's unit ([`game::Rules::margin`]).
    #[serde(skip)]
    pub margin_after: i32,
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
    /// The system prompt the game's first request sent (shown once; an exchange whose
    /// request sent another gives it in its `sent`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub system_prompt: Option<String>,
    /// How each side's model was shown boards (labels, perspective): the run's agent
    /// settings ([`GameReplay::with_run`]); the default where none is known.
    #[serde(skip)]
    pub styles: ByColor<TextStyle>,
    /// Whether each side was shown its legal moves (hidden: blind play), from the run's
    /// settings as `styles` are (an engine's side as its opponent's); shown where none
    /// is known.
    #[serde(skip)]
    pub legal_moves: ByColor<LegalMoves>,
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
    /// Tool calls an MCP client made after its last ply (a resignation, a look at the
    /// final state).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tool_calls_after: Vec<ToolCallRecord>,
}

impl GameReplay {
    /// The replay with each side's boards in the text style its agent settings in
    /// `run` (the game's run.json) give, with or without the legal moves as it was
    /// shown them; an engine's side as its opponent's (the run's model's), and the
    /// default where neither side is a recorded agent or MCP client.
    #[must_use]
    pub fn with_run(mut self, run: &RunFile) -> GameReplay {
        let style = |spec: &str| run.style_of(spec);
        let (black, white) = (style(&self.black), style(&self.white));
        let either = black.or(white).unwrap_or_default();
        self.styles = ByColor {
            black: black.unwrap_or(either),
            white: white.unwrap_or(either),
        };
        let (black, white) = (run.legal_moves_of(&self.black), run.legal_moves_of(&self.white));
        let either = black.or(white).unwrap_or_default();
        self.legal_moves = ByColor {
            black: black.unwrap_or(either),
            white: white.unwrap_or(either),
        };
        self
    }

    /// [`GameReplay::with_run`] with the run.json of `dir`, the folder of the game's
    /// log, and a note when a model's boards are shown in the default style because
    /// that file cannot be read.
    pub fn with_run_folder(self, dir: &Path) -> (GameReplay, Option<String>) {
        match RunFile::read(dir) {
            Ok(run) => (self.with_run(&run), None),
            Err(_) if !self.plies.iter().any(|p| !p.exchanges.is_empty()) => (self, None),
            Err(err) => {
                let mut why = err.to_string();
                let mut source = std::error::Error::source(&err);
                while let Some(cause) = source {
                    why.push_str(&format!(": {cause}"));
                    source = cause.source();
                }
                let note = format!(
                    "{why}; boards are shown with the default labels, which need not be the ones the model was shown \
                     (its messages below are as sent)"
                );
                (self, Some(note))
            }
        }
    }

    /// The position before `ply` as the mover's model is shown boards
    /// ([`GameReplay::styles`]).
    pub fn board_text(&self, ply: &PlyView) -> String {
        let (style, legal) = (self.styles[ply.color], self.legal_moves[ply.color]);
        match self.game {
            Game::Othello => board_text::<Othello>(&ply.board_before, ply.color, style, legal),
            Game::Marubatsu => board_text::<Marubatsu>(&ply.board_before, ply.color, style, legal),
        }
    }

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

/// `board` with `to_move` to move, as a model of game `R` is shown it in `style`.
fn board_text<R: ModelText>(board: &Squares, to_move: Color, style: TextStyle, legal: LegalMoves) -> String {
    board.to_position::<R>(to_move).map_or_else(
        |reason| format!("(the board {board} cannot be shown: {reason})\n"),
        // As the mover was shown it: a blind player's board names no legal move.
        |position| R::model_text(&position, style, legal),
    )
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

/// One logged exchange, with what the log says around it.
struct Logged<'a> {
    /// Session (or attempt) and turn.
    place: (u32, u32),
    /// The request as sent (whole).
    request: &'a Value,
    /// The response as received.
    response: &'a Value,
    /// Latency (not in seed logs).
    latency_ms: Option<f64>,
    /// Why this request's last message was sent (`feedback_reason`).
    feedback_reason: Option<&'a str>,
    /// Whether an earlier request of the same session went before it.
    follows: bool,
    /// The next request of the same session, with its `feedback_reason`.
    next: Option<(&'a Value, Option<&'a str>)>,
    /// Whether the log records readings (`false`: a seed log).
    recorded: bool,
}

/// A request's messages.
fn messages(request: &Value) -> &[Value] {
    request["messages"].as_array().map_or(&[], Vec::as_slice)
}

/// The messages of a request after the last assistant message (none without one).
fn after_reply(messages: &[Value]) -> &[Value] {
    let after = messages
        .iter()
        .rposition(|m| m["role"] == "assistant")
        .map_or(messages.len(), |i| i + 1);
    &messages[after..]
}

/// A message's text (an absent or non-text content as its JSON).
fn content_of(message: &Value) -> String {
    match &message["content"] {
        Value::String(text) => text.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// The messages a request added, as [`ExchangeView::sent`] says; the first system
/// prompt seen becomes the game's (`system`).
fn sent(request: &Value, follows: bool, system: &mut Option<String>) -> Vec<SentMessage> {
    let all = messages(request);
    let added = if follows && all.iter().any(|m| m["role"] == "assistant") {
        after_reply(all)
    } else {
        all
    };
    let mut sent = Vec::new();
    for message in added {
        let (role, content) = (message["role"].as_str().unwrap_or_default(), content_of(message));
        if role == "tool" {
            continue;
        }
        if role == "system" {
            match system {
                None => {
                    *system = Some(content);
                    continue;
                }
                Some(prompt) if *prompt == content => continue,
                Some(_) => {}
            }
        }
        sent.push(SentMessage {
            role: role.to_string(),
            content,
        });
    }
    sent
}

/// What the agent did with a reply, from what the log records around it (a reply's
/// last word in its decision, when it gave the move, is settled by [`settle`]).
fn reading(logged: &Logged<'_>, ran_tools: bool) -> Reading {
    match logged.next {
        Some((_, Some(reason))) => Reading::Rejected {
            reason: reason.to_string(),
        },
        Some((next, None)) if after_reply(messages(next)).first().is_some_and(|m| m["role"] == "tool") => {
            Reading::ToolCalls
        }
        Some(_) => Reading::NotRecorded,
        None if ran_tools => Reading::ToolCalls,
        None if !logged.recorded => Reading::NotRecorded,
        None => Reading::SessionEnded,
    }
}

/// Decodes one exchange (`system`: the game's system prompt, see [`sent`]).
fn decode_exchange(logged: &Logged<'_>, system: &mut Option<String>) -> ExchangeView {
    let reply = decode_reply(logged.response).unwrap_or_default();
    let message = reply.message;
    let offered = logged.request.get("tools").is_some();
    let recovered = message.tool_calls.is_empty();
    // A call written as text is one only while tools are offered (else the agent reads
    // the text as an answer, and the content shows it).
    let calls = match (recovered, offered) {
        (true, true) => recover_tool_calls(&message.content),
        (true, false) => Vec::new(),
        (false, _) => message.tool_calls.clone(),
    };
    // Tool results are the tool messages after the last assistant message of the next
    // request of the session.
    let results: Vec<String> = logged
        .next
        .map(|(next, _)| {
            after_reply(messages(next))
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
    let ran_tools = !tool_calls.is_empty() && offered;
    ExchangeView {
        session: logged.place.0,
        turn: logged.place.1,
        sent: sent(logged.request, logged.follows, system),
        feedback_reason: logged.feedback_reason.map(str::to_string),
        thinking: message.thinking,
        content: message.content,
        tool_calls,
        reading: reading(logged, ran_tools),
        tokens: (reply.prompt_tokens, reply.completion_tokens),
        latency_ms: logged.latency_ms,
    }
}

/// The last reply of a decision the model made gave its move (the move record says so):
/// its reading becomes [`Reading::Accepted`]; in a vote, every session's last reply is a
/// [`Reading::VoteSample`].
fn settle(ply: &mut PlyView) {
    let kind = ply.agent.as_ref().and_then(|a| a.answer_kind);
    if ply.agent.as_ref().is_some_and(|a| a.vote.is_some()) {
        for exchange in ply.exchanges.iter_mut().filter(|e| e.reading == Reading::SessionEnded) {
            exchange.reading = Reading::VoteSample;
        }
    } else if let (Some(MoveSource::Llm), Some(mv), Some(last)) = (ply.source, ply.mv, ply.exchanges.last_mut()) {
        if last.reading == Reading::SessionEnded {
            last.reading = Reading::Accepted { mv, kind };
        }
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
fn replay_game<R: ModelText>(records: &[Record]) -> Result<GameReplay, ReplayError> {
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
        system_prompt: None,
        styles: ByColor::default(),
        legal_moves: ByColor::default(),
        suite_opening: start.suite_opening.clone(),
        plies: Vec::new(),
        forfeit: None,
        final_discs: None,
        outcome: None,
        margin: None,
        tool_calls_after: Vec::new(),
    };
    let mut pending = Vec::new();
    let mut tool_calls = Vec::new();
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
                let mut view = ply_view::<R>(m.ply, &board, &next, (m.color, &m.player));
                view.exchanges = decode_pending(&mut pending, &mut replay.system_prompt);
                (view.mv, view.source, view.agent) = (Some(m.mv), Some(m.source), m.agent.clone());
                settle(&mut view);
                replay.plies.push(view);
                board = next;
            }
            Event::Forfeit(f) => {
                if let Some(reason) = forfeit_problem::<R>(&board, f, after) {
                    return Err(broken(f.ply, reason));
                }
                let mut view = ply_view::<R>(f.ply, &board, &board, (f.color, &f.player));
                view.exchanges = decode_pending(&mut pending, &mut replay.system_prompt);
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
            Event::ToolCall(call) => tool_calls.push(call.clone()),
            Event::GameStart(_) | Event::GameStopped(_) | Event::Hint(_) => {}
        }
    }
    attach_tool_calls(&mut replay, tool_calls);
    Ok(replay)
}

/// Gives each MCP tool call to the ply it was made on: the first ply, from the one the
/// game was at, that its caller played (a `play_move` is logged after the moves it
/// made); calls after the caller's last ply go to [`GameReplay::tool_calls_after`].
fn attach_tool_calls(replay: &mut GameReplay, calls: Vec<ToolCallRecord>) {
    for call in calls {
        let ply = replay
            .plies
            .iter_mut()
            .chain(replay.forfeit.as_mut())
            .find(|p| p.ply >= call.ply && p.color == call.color);
        match ply {
            Some(ply) => ply.tool_calls.push(call),
            None => replay.tool_calls_after.push(call),
        }
    }
}

/// A ply from `before` to `after`, by `mover` (color and spec as logged); its
/// exchanges, move, source and decision are filled in by the caller.
fn ply_view<R: ModelText>(
    ply: usize,
    before: &R::Position,
    after: &R::Position,
    (color, player): (Color, &str),
) -> PlyView {
    PlyView {
        ply,
        board_before: Squares::of::<R>(before),
        board_after: Squares::of::<R>(after),
        color,
        player: player.to_string(),
        mv: None,
        source: None,
        exchanges: Vec::new(),
        agent: None,
        tool_calls: Vec::new(),
        pieces_after: R::pieces(after),
        margin_after: R::margin(after),
    }
}

/// Why a forfeit record cannot stand where the moves leave `board` (`after`: the
/// record that already ended the game), if it cannot.
fn forfeit_problem<R: ModelText>(board: &R::Position, f: &ForfeitRecord, after: Option<&str>) -> Option<String> {
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
fn check_margin<R: ModelText>(board: &R::Position, replay: &GameReplay, end: &GameEnd) -> Result<i32, String> {
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
fn check_mover<R: ModelText>(board: &R::Position, color: Color) -> Result<(), String> {
    if color == R::to_move(board) {
        Ok(())
    } else {
        Err(format!("{color} moves, but {} is to move", R::to_move(board)))
    }
}

/// Checks a `game_end` record (already in `replay`) against `board`, where the moves end.
fn check_end<R: ModelText>(board: &R::Position, replay: &GameReplay, winner: Outcome) -> Result<(), String> {
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

/// Decodes the exchanges logged for one ply and clears them (`system`: the game's
/// system prompt, see [`sent`]).
fn decode_pending(pending: &mut Vec<&ExchangeRecord>, system: &mut Option<String>) -> Vec<ExchangeView> {
    let same_session = |i: usize, e: &ExchangeRecord| pending.get(i).filter(|n| n.session == e.session);
    let exchanges = pending
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let logged = Logged {
                place: (e.session, e.turn),
                request: &e.request,
                response: &e.response,
                latency_ms: Some(e.latency_ms),
                feedback_reason: e.feedback_reason.as_deref(),
                follows: i.checked_sub(1).and_then(|p| same_session(p, e)).is_some(),
                next: same_session(i + 1, e).map(|n| (&n.request, n.feedback_reason.as_deref())),
                recorded: true,
            };
            decode_exchange(&logged, system)
        })
        .collect();
    pending.clear();
    exchanges
}

/// Rebuilds the decisions of a seed 000 bare log: one line per exchange; consecutive
/// lines asking about the same position form one ply.
pub(crate) fn replay_seed_lines(lines: &[Value]) -> Result<GameReplay, ReplayError> {
    let mut replay = GameReplay {
        game: Game::Othello,
        black: "(not in a seed log)".into(),
        white: "(not in a seed log)".into(),
        start_board: Squares::of::<Othello>(&Board::new()),
        start_to_move: Color::Black,
        opening: Vec::new(),
        system_prompt: None,
        styles: ByColor::default(),
        legal_moves: ByColor::default(),
        suite_opening: None,
        plies: Vec::new(),
        forfeit: None,
        final_discs: None,
        outcome: None,
        margin: None,
        tool_calls_after: Vec::new(),
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
            ));
            last_board = Some(board);
        }
        let ply = replay.plies.last_mut().expect("pushed above");
        let turn = ply.exchanges.len() as u32 + 1;
        // A seed log records no reading and no move: they are not guessed.
        let logged = Logged {
            place: (1, turn),
            request,
            response: &line["response"],
            latency_ms: None,
            feedback_reason: None,
            follows: turn > 1,
            next: lines.get(index + 1).map(|l| (&l["request"], None)),
            recorded: false,
        };
        ply.exchanges.push(decode_exchange(&logged, &mut replay.system_prompt));
    }
    if replay.plies.is_empty() {
        return Err(ReplayError::Empty);
    }
    Ok(replay)
}
