//! The client's side of the game loop: a player whose moves are the client's calls,
//! answered at its turn, with its tries, its fallback and its forfeit.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tokio::sync::mpsc;

use agent::LegalMoves;

use super::client::{Command, MAX_CALLS_PER_PLY};
use super::client_calls::{ClientAnswer, ClientCall, ClientError};
use super::client_game::{End, OutOfTries, Pending, Reply, Shared};
use super::player::{Action, PlayError, Player};
use agent::tools::{decode_args, Tool};
use agent::{BlockingEngine, ModelGame, MoveContext};
use engines::EngineError;
use game::othello::Outcome;
use record::{AgentDecision, GameWriter, MoveSource, Notation, Squares, StopReason};

/// The client's side of the game loop: waits for its calls.
pub(crate) struct ClientPlayer<R: ModelGame> {
    pub(crate) shared: Arc<Shared<R>>,
    pub(crate) inbox: mpsc::Receiver<Command>,
    pub(crate) fallback: Option<BlockingEngine<R>>,
    pub(crate) max_invalid: u32,
    pub(crate) move_wait: Option<Duration>,
    pub(crate) interrupted: Arc<AtomicBool>,
}

/// The client's account of one ply so far.
#[derive(Default)]
struct Turn {
    calls: usize,
    decision: AgentDecision,
}

#[async_trait::async_trait]
impl<R: ModelGame> Player<R> for ClientPlayer<R> {
    fn name(&self) -> String {
        self.shared.seat.name.clone()
    }

    async fn act(&mut self, position: &R::Position, ctx: MoveContext<'_>) -> Result<Action<R>, PlayError> {
        let started = Instant::now();
        self.shared.settle(ctx.log);
        let mut turn = Turn::default();
        loop {
            let received = match self.move_wait {
                Some(wait) => tokio::time::timeout(wait, self.inbox.recv()).await.ok(),
                None => Some(self.inbox.recv().await),
            };
            let Some(Some(Command { call, reply })) = received else {
                let reason = match received {
                    None => StopReason::Abandoned,
                    Some(_) if self.interrupted.load(Ordering::SeqCst) => StopReason::Interrupted,
                    Some(_) => StopReason::Disconnected,
                };
                ctx.log.stopped(ctx.ply, reason).map_err(agent::AgentError::from)?;
                self.shared.lock().end = Some(End::stopped(reason, ctx.ply, &self.shared.seat));
                return Err(PlayError::Engine(EngineError::InputClosed));
            };
            turn.calls += 1;
            if turn.calls > MAX_CALLS_PER_PLY {
                let _ = reply.send(Err(ClientError::TooManyCalls {
                    id: self.shared.id,
                    ply: ctx.ply,
                }));
                continue;
            }
            turn.decision.latency_ms = started.elapsed().as_secs_f64() * 1000.0;
            if let Some(action) = self.answer(position, &ctx, (call, reply), &mut turn).await? {
                return Ok(action);
            }
        }
    }
}

impl<R: ModelGame> ClientPlayer<R> {
    /// Answers one call at the client's turn; a move or a forfeit ends the turn.
    async fn answer(
        &mut self,
        position: &R::Position,
        ctx: &MoveContext<'_>,
        (call, reply): (ClientCall, Reply),
        turn: &mut Turn,
    ) -> Result<Option<Action<R>>, PlayError> {
        let shared = &self.shared;
        let arguments = call.arguments(shared.id);
        let logged = |answer: ClientAnswer| -> Result<ClientAnswer, ClientError> {
            shared.log_call(ctx.log, ctx.ply, (call.tool(), &arguments), &answer)?;
            Ok(answer)
        };
        if let Some(asked) = call.ply().filter(|&ply| ply != ctx.ply) {
            let _ = reply.send(Err(ClientError::Moved {
                id: shared.id,
                asked,
                now: ctx.ply,
            }));
            return Ok(None);
        }
        match &call {
            ClientCall::Hint(hint) => {
                let logged = ctx.log.hint(hint).map_err(ClientError::from);
                let _ = reply.send(logged.map(|()| shared.answer()));
                Ok(None)
            }
            ClientCall::State => {
                let _ = reply.send(logged(shared.answer()));
                Ok(None)
            }
            ClientCall::Simulate(coord) => {
                turn.decision.tool_calls += 1;
                let tool = R::simulate_tool(shared.style, shared.legal);
                let result = decode_args(&json!({ "coord": coord })).and_then(|args| tool.call(position, args));
                turn.decision.tool_errors += u32::from(result.is_err());
                let result = result.map(|value| one_board_shape::<R>(position, coord, value));
                let _ = reply.send(logged(tool_answer(result)));
                Ok(None)
            }
            ClientCall::Play(coord) | ClientCall::PlayAt(coord, _) => {
                match legal_move::<R>(position, coord, shared.legal) {
                    Ok(mv) => {
                        self.wait_with(call.tool(), arguments, ctx.ply, reply);
                        turn.decision.source = Some(MoveSource::Llm);
                        Ok(Some(shared.played(mv, MoveSource::Llm, &turn.decision)))
                    }
                    Err(message) => {
                        turn.decision.invalid_answers += 1;
                        let answer = tool_answer(Err(message.clone()));
                        if turn.decision.invalid_answers < self.max_invalid {
                            let _ = reply.send(logged(answer));
                            return Ok(None);
                        }
                        // Answered once, when the fallback has moved (or the client forfeits).
                        self.wait_with(call.tool(), arguments, ctx.ply, reply);
                        self.out_of_tries(position, ctx.log, message, turn).await.map(Some)
                    }
                }
            }
            ClientCall::Resign => {
                self.wait_with(call.tool(), arguments, ctx.ply, reply);
                turn.decision.source = Some(MoveSource::Forfeit);
                turn.decision.fallback_reason = Some("the client resigned".to_string());
                Ok(Some(self.forfeit(ctx.log, turn)))
            }
        }
    }

    /// The client's forfeit: the game is over, lost by the client, and the pending call
    /// is answered (and logged) before the loop logs the forfeit and the end.
    fn forfeit(&self, log: GameWriter<'_>, turn: &Turn) -> Action<R> {
        self.shared.lock().end = Some(End {
            outcome: Some(Outcome::Win(!self.shared.you)),
            forfeit: Some(self.shared.you),
            ..End::default()
        });
        self.shared.settle(log);
        Action::Forfeit(turn.decision.clone())
    }

    /// Answers `reply` with the state at the client's next turn (or the game's end).
    fn wait_with(&self, tool: &'static str, arguments: Value, ply: usize, reply: Reply) {
        self.shared.lock().pending = Some(Pending {
            call: (tool, arguments),
            ply,
            reply,
            out_of_tries: None,
        });
    }

    /// Marks the pending call as the ply's last illegal try (see [`OutOfTries`]).
    fn mark_out_of_tries(&self, error: String, fallback: Option<String>) {
        if let Some(pending) = self.shared.lock().pending.as_mut() {
            pending.out_of_tries = Some(OutOfTries { error, fallback });
        }
    }

    /// The client's last legal try failed: the fallback moves for it, or it forfeits.
    async fn out_of_tries(
        &self,
        position: &R::Position,
        log: GameWriter<'_>,
        why: String,
        turn: &mut Turn,
    ) -> Result<Action<R>, PlayError> {
        let reason = format!(
            "{} illegal moves at this ply; the last: {why}",
            turn.decision.invalid_answers
        );
        turn.decision.fallback_reason = Some(reason);
        let Some(fallback) = &self.fallback else {
            turn.decision.source = Some(MoveSource::Forfeit);
            self.mark_out_of_tries(why, None);
            return Ok(self.forfeit(log, turn));
        };
        let decision = fallback.choose(position).await?;
        let mv = R::decision_move(&decision);
        self.mark_out_of_tries(why, Some(Notation::of::<R>(mv).to_string()));
        turn.decision.source = Some(MoveSource::Fallback);
        Ok(self.shared.played(mv, MoveSource::Fallback, &turn.decision))
    }
}

/// The agent's `simulate_move` result in the shapes every tool answers a client in:
/// `board` is the position (after the move) as every state writes it, 64 characters
/// (`X`, `O`, `-`); the drawn board the agent's tool gives its models is `board_text`.
/// (Logs before this wrote the drawing as `board`.)
fn one_board_shape<R: ModelGame>(position: &R::Position, coord: &str, mut value: Value) -> Value {
    let after = coord
        .trim()
        .to_ascii_lowercase()
        .parse::<R::Move>()
        .ok()
        .and_then(|mv| R::play(position, mv).ok());
    if let (Value::Object(fields), Some(after)) = (&mut value, after) {
        if let Some(text) = fields.remove("board") {
            fields.insert("board_text".to_string(), text);
        }
        fields.insert("board".to_string(), json!(Squares::of::<R>(&after).to_string()));
    }
    value
}

/// A tool's result as the agent's tool gives it: its JSON, or `{"error": ...}`.
fn tool_answer(result: Result<Value, String>) -> ClientAnswer {
    let (content, is_error) = match result {
        Ok(value) => (value, false),
        Err(message) => (json!({ "error": message }), true),
    };
    ClientAnswer {
        text: content.to_string(),
        content,
        is_error,
    }
}

/// `coord` as a legal move of `position`, or why not (naming the legal moves unless
/// they are hidden).
fn legal_move<R: ModelGame>(position: &R::Position, coord: &str, shown: LegalMoves) -> Result<R::Move, String> {
    let legal = R::legal_moves(position);
    let named = || {
        if !shown.shown() {
            return String::new();
        }
        let moves: Vec<String> = legal.iter().map(|&mv| Notation::of::<R>(mv).to_string()).collect();
        format!("; legal moves: {}", moves.join(", "))
    };
    let mv: R::Move = coord.trim().to_ascii_lowercase().parse().map_err(|_| {
        format!(
            "{coord:?} is not a square (write a column then a row, such as d3){}",
            named()
        )
    })?;
    if !legal.contains(&mv) {
        return Err(format!("{coord} is not a legal move here{}", named()));
    }
    Ok(mv)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_move_is_read_in_either_case_and_refused_with_the_legal_moves() {
        let start = <game::Othello as game::Rules>::start();
        assert_eq!(
            legal_move::<game::Othello>(&start, " D3 ", LegalMoves::Shown).map(|m| m.to_string()),
            Ok("d3".to_string())
        );
        let refused = legal_move::<game::Othello>(&start, "a1", LegalMoves::Shown).unwrap_err();
        assert!(refused.contains("legal moves: d3, c4, f5, e6"), "{refused}");
        assert!(legal_move::<game::Othello>(&start, "z9", LegalMoves::Shown)
            .unwrap_err()
            .contains("not a square"));
        let hidden = legal_move::<game::Othello>(&start, "a1", LegalMoves::Hidden).unwrap_err();
        assert_eq!(hidden, "a1 is not a legal move here");
    }
}
