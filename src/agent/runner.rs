//! The conversation loop: sessions of turns, tool calls, answers, fallback.
//!
//! Per move: up to `max_sessions` sessions. A session starts from the system prompt
//! and the board; each turn is one request. Tool calls (structured, or recovered from
//! text) are run and answered, and the session goes on. A final answer with a legal
//! move ends the move. An answer without one fails the session (`retry`: its reason
//! kept in the decision's `ended_sessions`), or is answered with the legal moves and
//! the session goes on (`feedback`). Either way the
//! answer's [`Answer`] says why it did not count, and one function (`text::rejection`)
//! makes of it the reason the observer is told and the exchange that carries the feedback
//! records (`feedback_reason`), and the message the model is sent, so the two never
//! disagree. An answer the server cut off at the token limit is counted apart. A session
//! also ends when its turns are spent. When every session failed, the fallback
//! engine plays and the move is recorded as `fallback`; with the fallback `forfeit`
//! no move is played and the decision is recorded as `forfeit` (the game is lost).
//!
//! With `vote` K above 1 the decision is sampled K times (each sample its own
//! sessions, every request logged and counted) and the most frequent legal move is
//! played, ties to the earliest; the decision's `vote` keeps every sample's move.

use std::sync::Arc;

use tracing::Instrument;

use super::answer::{parse_answer, Answer};
use super::blocking::BlockingEngine;
use super::structured::{answer_schema, json_instruction, parse_structured};
use super::text;
use crate::tools::ToolRegistry;
use crate::ModelGame;
use crate::{AgentConfig, AnswerFormat, InvalidPolicy, Mode, ParseFallbackError};
use engines::EngineError;
use game::Othello;
use llm::{ChatBackend, ChatRequest, Exchange, LlmError, Message, Role, ToolCall};
use record::recover_tool_calls;
use record::{
    AgentDecision, AnswerKind, AttemptFailure, EndedSession, Exchanged, GameWriter, LogError, MoveSource, Notation,
    Ply, Vote,
};

/// Where the current decision sits, for the log.
#[derive(Clone, Copy, Debug)]
pub struct MoveContext<'a> {
    /// Ply being decided (from 1).
    pub ply: usize,
    /// The game's log (its writer knows the game's number).
    pub log: GameWriter<'a>,
}

/// A move with where it came from: what every player gives back for its turn (an
/// engine's move, a forced pass, the model's move or the fallback's).
#[derive(Clone, Debug, PartialEq)]
pub struct Played<R: ModelGame = Othello> {
    /// The move.
    pub mv: R::Move,
    /// Engine, forced pass, model or fallback.
    pub source: MoveSource,
    /// The agent's account (counts, tokens, latency), for LLM players.
    pub agent: Option<AgentDecision>,
}

/// What a player did with its turn: a move, or a forfeit that ends the game.
#[derive(Clone, Debug, PartialEq)]
pub enum Action<R: ModelGame = Othello> {
    /// A move.
    Move(Played<R>),
    /// No move: every session failed and the agent's fallback is `forfeit` (the
    /// decision's source is [`MoveSource::Forfeit`]). The game ends, lost by the mover.
    Forfeit(AgentDecision),
}

impl<R: ModelGame> Action<R> {
    /// The move played, or `None` for a forfeit.
    pub fn into_move(self) -> Option<Played<R>> {
        match self {
            Action::Move(played) => Some(played),
            Action::Forfeit(_) => None,
        }
    }
}

impl<R: ModelGame> Played<R> {
    /// The agent's move, with its decision (whose source says model or fallback).
    fn by_agent(mv: R::Move, decision: AgentDecision) -> Played<R> {
        Played {
            mv,
            source: decision.source.unwrap_or(MoveSource::Llm),
            agent: Some(decision),
        }
    }
}

/// A failure of the harness (not of the model) while the agent decides.
#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    /// The server could not be used.
    #[error("model {model:?} on {backend}: the chat request failed")]
    Llm {
        /// The model.
        model: String,
        /// The backend description.
        backend: String,
        /// The failure.
        #[source]
        source: Box<LlmError>,
    },
    /// The log could not be written.
    #[error(transparent)]
    Log(#[from] LogError),
    /// The fallback engine failed.
    #[error("the fallback player failed")]
    Fallback(#[source] EngineError),
    /// The fallback is not an engine of the game being played.
    #[error("the fallback cannot play this game")]
    BadFallback(#[source] ParseFallbackError),
}

/// What happens while the agent decides, reported as it happens (a page that shows a
/// game live, a progress display): each reply of the model, each tool result and each
/// rejected answer.
#[derive(Clone, Debug)]
pub enum AgentEvent<'a> {
    /// The model answered one turn (its tool calls as it sent them; calls written as
    /// text are recovered afterwards and show up in the tool results).
    Reply {
        /// Session of the move (from 1).
        session: u32,
        /// Turn of the session (from 1).
        turn: u32,
        /// The reply.
        message: &'a Message,
    },
    /// A tool call was run and its result goes back to the model.
    ToolResult {
        /// The call.
        call: &'a ToolCall,
        /// The result sent to the model.
        content: &'a str,
        /// Whether the result is an error message.
        is_error: bool,
    },
    /// The reply of turn `turn` held no legal move: why, and what was sent back.
    Rejected {
        /// Session of the move (from 1).
        session: u32,
        /// Turn of the session whose reply was rejected (from 1).
        turn: u32,
        /// Why it did not count (`cut off at the token limit`, `several moves named: b5,
        /// g5`, ...): the words of the log's `feedback_reason`.
        reason: String,
        /// The message sent back to the model, or `None` when the session ended instead.
        feedback: Option<&'a str>,
    },
}

/// Receives an agent's [`AgentEvent`]s; called on the agent's task, so it must be quick.
pub(crate) type AgentObserver = Arc<dyn Fn(AgentEvent<'_>) + Send + Sync>;

/// The LLM player of game `R`.
pub struct Agent<R: ModelGame = Othello> {
    config: Arc<AgentConfig>,
    backend: Arc<dyn ChatBackend>,
    tools: ToolRegistry<R::Simulate>,
    /// The fallback engine (`None`: the agent forfeits), or why its spec is not one
    /// of the game's.
    fallback: Option<Result<BlockingEngine<R>, ParseFallbackError>>,
    /// The host that answered the last request: the next one goes there while it has
    /// room (a fleet's prompt-cache affinity).
    last_host: Option<String>,
    /// Sees each reply and tool result.
    observer: Option<AgentObserver>,
}

/// The most frequent move of the samples that gave one, ties to the earliest, with how
/// its first sample's answer was read; `None` when no sample gave a move.
fn majority<M: Copy + Eq, K: Copy>(picks: &[(M, K)]) -> Option<(M, K)> {
    let count = |mv: &M| picks.iter().filter(|(m, _)| m == mv).count();
    // `max_by_key` keeps the last of equal keys: search from the end for the earliest.
    picks.iter().rev().max_by_key(|(mv, _)| count(mv)).copied()
}

/// The model's reply to one request.
struct Reply {
    /// The assistant message.
    message: Message,
    /// Whether the server stopped it at the token limit.
    cut_off: bool,
}

/// A turn of a session: its place, and why the request's last message was sent when it
/// tells the model its previous answer did not count.
struct Turn<'a> {
    session: u32,
    turn: u32,
    feedback_reason: Option<&'a str>,
}

/// How a session ended without a move.
enum SessionEnd<M> {
    Decided(M),
    Failed(&'static str),
}

impl<R: ModelGame> Agent<R> {
    /// An agent using `backend`, with its fallback seeded by `seed`. The config's
    /// fallback is an engine of `R` (checked with [`Fallback::check`](crate::Fallback::check) when the config
    /// was made); an engine spec `R` does not know is reported when the fallback plays.
    pub fn new(config: Arc<AgentConfig>, backend: Arc<dyn ChatBackend>, seed: u64) -> Agent<R> {
        let tools = ToolRegistry::new(R::simulate_tool(config.style, config.legal_moves));
        let fallback = match config.fallback.spec::<R>() {
            Ok(Some(spec)) => Some(Ok(BlockingEngine::new(R::engine(&spec, seed)))),
            Ok(None) => None,
            Err(unknown) => Some(Err(unknown)),
        };
        Agent {
            config,
            backend,
            tools,
            fallback,
            last_host: None,
            observer: None,
        }
    }

    /// The same agent, reporting each reply and tool result to `observer`.
    pub fn with_observer(mut self, observer: AgentObserver) -> Agent<R> {
        self.observer = Some(observer);
        self
    }

    fn notify(&self, event: AgentEvent<'_>) {
        if let Some(observer) = &self.observer {
            observer(event);
        }
    }

    /// The agent's spec string (`llm:MODEL`).
    pub fn name(&self) -> String {
        self.config.spec()
    }

    /// Decides a move in `board`, where the side to move has a legal placement, or
    /// forfeits when every session failed and the fallback is `forfeit`.
    pub async fn decide(&mut self, board: &R::Position, ctx: MoveContext<'_>) -> Result<Action<R>, AgentError> {
        let span = tracing::debug_span!("turn", ply = ctx.ply, color = %R::to_move(board));
        self.decide_in_span(board, ctx).instrument(span).await
    }

    async fn decide_in_span(&mut self, board: &R::Position, ctx: MoveContext<'_>) -> Result<Action<R>, AgentError> {
        let mut decision = AgentDecision::default();
        let mut failures: Vec<&'static str> = Vec::new();
        let samples = self.config.vote.max(1);
        // Each sample is a whole decision (its own sessions); the log numbers the
        // sessions of all samples in one sequence.
        let mut picks: Vec<(R::Move, Option<AnswerKind>)> = Vec::new();
        for _ in 0..samples {
            if let Some(mv) = self.sample(board, ctx, &mut decision, &mut failures).await? {
                picks.push((mv, decision.answer_kind.take()));
            }
        }
        if samples > 1 {
            decision.vote = Some(Vote {
                samples,
                moves: picks.iter().map(|&(mv, _)| Notation::of::<R>(mv)).collect(),
            });
        }
        if let Some((mv, kind)) = majority(&picks) {
            decision.answer_kind = kind;
            decision.source = Some(MoveSource::Llm);
            return Ok(Action::Move(Played::by_agent(mv, decision)));
        }
        decision.answer_kind = None;
        let failed = format!(
            "no legal move from the model in {} session(s) ({})",
            failures.len(),
            failures.join(", ")
        );
        let Some(engine) = &self.fallback else {
            decision.source = Some(MoveSource::Forfeit);
            decision.fallback_reason = Some(format!("{failed}; the model forfeited the game"));
            return Ok(Action::Forfeit(decision));
        };
        let engine = engine.as_ref().map_err(|e| AgentError::BadFallback(e.clone()))?;
        let fallback = engine.choose(board).await.map_err(AgentError::Fallback)?;
        decision.source = Some(MoveSource::Fallback);
        decision.fallback_reason = Some(format!("{failed}; {} played", engine.name()));
        Ok(Action::Move(Played::by_agent(R::decision_move(&fallback), decision)))
    }

    /// One sample of the decision: up to `max_sessions` sessions, until one gives a
    /// legal move (`None`: every session failed, each failure's reason in `failures`).
    async fn sample(
        &mut self,
        board: &R::Position,
        ctx: MoveContext<'_>,
        decision: &mut AgentDecision,
        failures: &mut Vec<&'static str>,
    ) -> Result<Option<R::Move>, AgentError> {
        for _ in 0..self.config.max_sessions {
            decision.sessions += 1;
            match self.session(board, decision.sessions, ctx, decision).await? {
                SessionEnd::Decided(mv) => return Ok(Some(mv)),
                SessionEnd::Failed(why) => failures.push(why),
            }
        }
        Ok(None)
    }

    fn request(&self, messages: &[Message], offer_tools: bool, schema: Option<serde_json::Value>) -> ChatRequest {
        ChatRequest {
            format: schema,
            model: self.config.model.clone(),
            messages: messages.to_vec(),
            tools: if offer_tools { self.tools.specs() } else { Vec::new() },
            options: self.config.options.clone(),
            think: self.config.think.clone(),
            keep_alive: self.config.keep_alive.clone(),
            affinity: self.last_host.clone(),
        }
    }

    fn first_messages(&self, board: &R::Position) -> Vec<Message> {
        let mut messages = Vec::new();
        if let Some(prompt) = &self.config.system_prompt {
            messages.push(Message::new(Role::System, prompt.text.clone()));
        }
        let text = R::model_text(board, self.config.style, self.config.legal_moves);
        let user = match &self.config.user_template {
            Some(template) => {
                let filled = template
                    .text
                    .replace("{board}", &text)
                    .replace("{color}", R::side_name(R::to_move(board)));
                match self.shown_legal(board) {
                    Some(legal) => filled.replace("{legal_moves}", &legal),
                    // `AgentConfig::check` refuses such a template with hidden moves.
                    None => filled,
                }
            }
            None => text,
        };
        messages.push(Message::new(Role::User, user));
        messages
    }

    async fn session(
        &mut self,
        board: &R::Position,
        session: u32,
        ctx: MoveContext<'_>,
        decision: &mut AgentDecision,
    ) -> Result<SessionEnd<R::Move>, AgentError> {
        let mut messages = self.first_messages(board);
        let turns = match (self.config.mode, self.config.on_invalid) {
            (Mode::Direct, InvalidPolicy::Retry) => 1,
            _ => self.config.max_turns,
        };
        let mut tool_rounds = 0;
        let format = self.config.answer_format;
        // A free answer that was invalid is asked again once, held to the schema.
        let (mut reask, mut reasked) = (false, false);
        // Why the feedback the next request carries was sent.
        let mut feedback_reason: Option<String> = None;
        for turn in 1..=turns {
            let held = std::mem::take(&mut reask);
            let offer_tools = self.config.mode == Mode::Tool && tool_rounds < self.config.max_tool_rounds && !held;
            // Only the answering request is constrained: tool rounds stay free.
            let schema = if self.config.mode == Mode::Direct || !offer_tools {
                answer_schema(
                    format,
                    R::legal_coordinates(board),
                    R::board_coordinates(),
                    self.config.answer_reason,
                )
            } else {
                None
            };
            let constrained = schema.is_some();
            let request = self.request(&messages, offer_tools, schema);
            let sent_for = feedback_reason.take();
            let place = Turn {
                session,
                turn,
                feedback_reason: sent_for.as_deref(),
            };
            let Reply { mut message, cut_off } = self.exchange(board, &request, place, ctx, decision).await?;
            let reply = &mut message;
            if offer_tools {
                let calls = self.tool_calls(reply, decision);
                if !calls.is_empty() {
                    messages.push(message);
                    self.run_tools(board, &calls, &mut messages, decision);
                    tool_rounds += 1;
                    if tool_rounds == self.config.max_tool_rounds {
                        messages.push(Message::new(Role::User, self.answer_now(board)));
                    }
                    continue;
                }
            }
            let invalid = match self.read_answer(board, reply, cut_off, constrained, offer_tools) {
                Answer::Move { square, kind } => {
                    decision.answer_kind = Some(kind);
                    let mv = R::at_coordinate(square).expect("the answer's square is one of the legal coordinates");
                    return Ok(SessionEnd::Decided(mv));
                }
                invalid => invalid,
            };
            count_rejected(&invalid, decision);
            let told = text::rejection(
                self.config.style.labels,
                &invalid,
                self.config.cut_off_message.as_deref(),
            )
            .explained(&invalid, R::occupied_coordinates(board), R::board_coordinates());
            if format != AnswerFormat::Text && !constrained && !reasked {
                (reask, reasked) = (true, true);
            } else if self.config.on_invalid == InvalidPolicy::Retry {
                return Ok(self.end_session(&invalid, told, (session, turn), decision));
            }
            let (feedback, reason) = self.tell(board, told, (session, turn), reask);
            feedback_reason = Some(reason);
            messages.push(message);
            messages.push(Message::new(Role::User, feedback));
        }
        Ok(SessionEnd::Failed("turns used up"))
    }

    /// Sends one request of turn `place` and accounts for it: counts, tokens
    /// (thinking apart) and latency in `decision`, the exchange in the log, the reply
    /// to the observer. The reply comes back as an assistant message.
    async fn exchange(
        &mut self,
        board: &R::Position,
        request: &ChatRequest,
        place: Turn<'_>,
        ctx: MoveContext<'_>,
        decision: &mut AgentDecision,
    ) -> Result<Reply, AgentError> {
        let exchange = self.backend.chat(request).await.map_err(|source| AgentError::Llm {
            model: self.config.model.clone(),
            backend: self.backend.describe(),
            source: Box::new(source),
        })?;
        self.last_host = Some(exchange.host.clone());
        decision.turns += 1;
        // Saturating: a server's absurd count must not wrap the move's sum round.
        decision.prompt_tokens = decision
            .prompt_tokens
            .saturating_add(exchange.reply.prompt_tokens.unwrap_or(0));
        decision.completion_tokens = decision
            .completion_tokens
            .saturating_add(exchange.reply.completion_tokens.unwrap_or(0));
        if let Some(thinking) = exchange.reply.thinking_tokens() {
            decision.thinking_tokens = decision.thinking_tokens.saturating_add(thinking.tokens);
            decision.thinking_estimated += u32::from(thinking.estimated);
        }
        decision.latency_ms += exchange.latency_ms;
        if let Some(work) = exchange.reply.server {
            decision.server = Some(decision.server.unwrap_or_default().plus(work));
        }
        decision.other_model_replies += u32::from(exchange.answered_by().is_some());
        let cut_off = exchange.reply.cut_off();
        let at = Ply {
            number: ctx.ply,
            color: R::to_move(board),
        };
        let Turn {
            session,
            turn,
            feedback_reason,
        } = place;
        ctx.log
            .exchange(at, (session, turn), exchanged(&exchange), feedback_reason)?;
        let mut reply = exchange.reply.message;
        reply.role = Role::Assistant;
        self.notify(AgentEvent::Reply {
            session,
            turn,
            message: &reply,
        });
        Ok(Reply {
            message: reply,
            cut_off,
        })
    }

    /// Runs each tool call and puts its result after the call in `messages`.
    fn run_tools(
        &self,
        board: &R::Position,
        calls: &[ToolCall],
        messages: &mut Vec<Message>,
        decision: &mut AgentDecision,
    ) {
        for call in calls {
            let outcome = self.tools.call(board, &call.function.name, &call.function.arguments);
            decision.tool_errors += u32::from(outcome.is_error);
            self.notify(AgentEvent::ToolResult {
                call,
                content: &outcome.content,
                is_error: outcome.is_error,
            });
            messages.push(Message::tool_result(call, outcome.content));
        }
    }

    /// Reads a final answer: as JSON when the request was `constrained` to the
    /// schema, else as text (tool mode: once tools are withdrawn, a tool call written
    /// as text is no answer). A reply the server `cut_off` that gives no move is read
    /// as cut off (while thinking, or in its answer).
    fn read_answer(
        &self,
        board: &R::Position,
        reply: &Message,
        cut_off: bool,
        constrained: bool,
        offered_tools: bool,
    ) -> Answer {
        let (legal, content) = (R::legal_coordinates(board), reply.content.as_str());
        // Direct mode: the model's template may open the `<think>` block itself.
        let think_first = self.config.mode == Mode::Direct && !constrained;
        let answer = if constrained {
            parse_structured(content, legal)
        } else if self.config.mode == Mode::Tool && !offered_tools && !recover_tool_calls(content).is_empty() {
            // A tool call written as text once tools are withdrawn is not an answer:
            // its coordinate is a square to simulate, not a move.
            Answer::ToolCallText
        } else {
            parse_answer(content, legal, self.config.answer, think_first)
        };
        match answer {
            Answer::Move { .. } => answer,
            _ if cut_off => super::answer::cut_off(content, reply.thinking.as_deref(), think_first),
            _ => answer,
        }
    }

    /// The reply's tool calls: structured ones, or else ones recovered from its text.
    /// Recovered calls are written into the reply as structured calls with ids
    /// `recovered-N`, so the history stays valid for servers that pair tool results
    /// with calls; the raw response in the log keeps what the model wrote.
    fn tool_calls(&self, reply: &mut Message, decision: &mut AgentDecision) -> Vec<ToolCall> {
        if !reply.tool_calls.is_empty() {
            decision.tool_calls += reply.tool_calls.len() as u32;
            return reply.tool_calls.clone();
        }
        let mut recovered = recover_tool_calls(&reply.content);
        for (i, call) in recovered.iter_mut().enumerate() {
            call.id = Some(format!("recovered-{}", decision.recovered_tool_calls as usize + i + 1));
        }
        decision.recovered_tool_calls += recovered.len() as u32;
        reply.tool_calls = recovered.clone();
        recovered
    }

    /// The line asking for the JSON answer (empty with free-text answers).
    fn json_instruction(&self) -> &'static str {
        json_instruction(self.config.answer_format, self.config.style.labels)
    }

    /// The legal moves when the model is told them (`None`: blind play).
    fn shown_legal(&self, board: &R::Position) -> Option<String> {
        self.config
            .legal_moves
            .shown()
            .then(|| R::legal_coordinates(board).to_string())
    }

    /// The message sent once the tool budget is spent (tools are then withheld).
    fn answer_now(&self, board: &R::Position) -> String {
        let legal = self.shown_legal(board);
        let message = text::answer_now(self.config.style.labels, legal.as_deref());
        match self.config.answer_format {
            AnswerFormat::Text => message,
            _ => text::then_instruction(&message, self.json_instruction()),
        }
    }

    /// The message that tells the model why its answer of `(session, turn)` did not count
    /// (with the JSON instruction when it is asked again held to the schema: `reask`),
    /// reported to the observer, and the reason it states.
    fn tell(
        &self,
        board: &R::Position,
        told: text::Rejection,
        (session, turn): (u32, u32),
        reask: bool,
    ) -> (String, String) {
        let legal = self.shown_legal(board);
        let feedback = self.with_reask(told.message(legal.as_deref()), reask);
        self.notify(AgentEvent::Rejected {
            session,
            turn,
            reason: told.reason.clone(),
            feedback: Some(&feedback),
        });
        (feedback, told.reason)
    }

    /// Ends session `(session, turn)` on the invalid answer `invalid` (`--on-invalid
    /// retry`): the observer is told, and `decision` keeps why in its `ended_sessions`.
    fn end_session(
        &self,
        invalid: &Answer,
        told: text::Rejection,
        (session, turn): (u32, u32),
        decision: &mut AgentDecision,
    ) -> SessionEnd<R::Move> {
        self.notify(AgentEvent::Rejected {
            session,
            turn,
            reason: told.reason.clone(),
            feedback: None,
        });
        decision.ended_sessions.push(EndedSession {
            session,
            turn,
            reason: told.reason,
        });
        let cut = matches!(invalid, Answer::CutOff { .. });
        SessionEnd::Failed(if cut { "cut off" } else { "invalid answer" })
    }

    /// `feedback`, followed by the JSON instruction when the answer is asked again
    /// held to the schema (`reask`).
    fn with_reask(&self, feedback: String, reask: bool) -> String {
        if reask {
            text::then_instruction(&feedback, self.json_instruction())
        } else {
            feedback
        }
    }
}

/// Counts a rejected answer in `decision`: cut off at the token limit apart from the
/// invalid ones, and of those the schema violations.
fn count_rejected(answer: &Answer, decision: &mut AgentDecision) {
    match answer {
        Answer::CutOff { .. } => decision.cut_off_answers += 1,
        other => {
            decision.invalid_answers += 1;
            decision.schema_violations += u32::from(*other == Answer::SchemaViolation);
        }
    }
}

/// What the log keeps of an answered request (the log format knows no HTTP client).
pub fn exchanged(exchange: &Exchange) -> Exchanged {
    Exchanged {
        request: exchange.request.clone(),
        response: exchange.response.clone(),
        latency_ms: exchange.latency_ms,
        retries: exchange.retries,
        host: exchange.host.clone(),
        failures: exchange
            .failures
            .iter()
            .map(|failure| AttemptFailure {
                host: failure.host.clone(),
                error: failure.error.clone(),
            })
            .collect(),
        finish_reason: exchange.reply.done_reason.clone(),
        answered_by: exchange.answered_by().map(str::to_string),
        server: exchange.reply.server,
    }
}

#[cfg(test)]
mod tests {
    use super::majority;

    #[test]
    fn the_majority_move_wins_and_ties_go_to_the_earliest() {
        assert_eq!(majority(&[(1, 'a'), (2, 'b'), (2, 'c')]), Some((2, 'b')));
        assert_eq!(majority(&[(3, 'a'), (1, 'b'), (1, 'c'), (3, 'd')]), Some((3, 'a')));
        assert_eq!(majority(&[(5, 'a'), (6, 'b')]), Some((5, 'a')));
        assert_eq!(majority::<u8, char>(&[]), None);
    }
}
