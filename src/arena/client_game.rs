//! One client game's shared state (the position, how it ended, the call waiting for
//! its answer) and its task: the one game loop between the client's seat and the
//! opponent, stopped where it is when its face says so.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};
use tokio::sync::oneshot;

use agent::LegalMoves;

use super::client::StopNow;
use super::client_calls::{ClientAnswer, ClientError, ClientResult, ClientState, Discs};
use super::client_seat::ClientPlayer;
use super::engine_process::Halt;
use super::play::{GameContext, GameError, GameRecord};
use super::player::{Action, Played, Player};
use super::player_spec::PlayerSpec;
use super::schedule::{play_logged, Seat};
use super::watch::GameWatch;
use agent::ModelGame;
use game::othello::{ByColor, Color, Outcome, TextStyle};
use game::{derive_seed, Line};
use record::{
    AgentDecision, GameLog, GameWriter, LogError, MoveSource, Notation, PlayerKind, Ply, Squares, StopReason,
};

/// How a game ended, as far as its client is told.
#[derive(Clone, Debug, Default)]
pub(crate) struct End {
    pub(crate) outcome: Option<Outcome>,
    pub(crate) forfeit: Option<Color>,
    pub(crate) failed: Option<String>,
    /// Why it stopped unfinished, when it was stopped (not failed).
    pub(crate) stopped: Option<StopReason>,
}

impl End {
    /// A game stopped before `ply` for `reason`, in the words the client in `seat` is
    /// told.
    pub(crate) fn stopped(reason: StopReason, ply: usize, seat: &ClientSeat) -> End {
        let why = match reason {
            StopReason::Abandoned if seat.kind == PlayerKind::Human => "you made no move for too long at ply",
            StopReason::Abandoned => "the client made no call for too long at ply",
            StopReason::Interrupted => "the server was stopped before ply",
            StopReason::Ended => "the game was ended before ply",
            StopReason::Disconnected => "the client went away before ply",
        };
        End {
            failed: Some(format!("{why} {ply}")),
            stopped: Some(reason),
            ..End::default()
        }
    }
}

/// A call answered later: a `play_move` (after the opponent's reply), a `new_game`
/// (at the client's first turn), a `resign`.
pub(crate) struct Pending {
    pub(crate) call: (&'static str, Value),
    pub(crate) ply: usize,
    pub(crate) reply: oneshot::Sender<Result<ClientAnswer, ClientError>>,
    /// The call was the last illegal try of its ply: why it was illegal, and what
    /// happened then ([`OutOfTries`]); answered as an error that says so.
    pub(crate) out_of_tries: Option<OutOfTries>,
}

/// The last illegal `play_move` of a ply: why it was illegal, and the move the
/// fallback made for the client (`None`: it forfeits).
pub(crate) struct OutOfTries {
    pub(crate) error: String,
    pub(crate) fallback: Option<String>,
}

impl ClientAnswer {
    /// The state after the client's last illegal try, as an error that names the
    /// illegal move and what happened then: the fallback's move (in the text, and as
    /// `fallback_move` beside `error` in the structured content) or the forfeit.
    fn out_of_tries(mut self, tries: &OutOfTries) -> ClientAnswer {
        let then = match &tries.fallback {
            Some(mv) => format!("the fallback engine played {mv} for you"),
            None => "you forfeit the game".to_string(),
        };
        self.text = format!(
            "{}; that was your last try at this ply: {then}.\n{}",
            tries.error, self.text
        );
        if let Value::Object(content) = &mut self.content {
            content.insert("error".to_string(), json!(tries.error));
            content.insert("fallback_move".to_string(), json!(tries.fallback));
        }
        self.is_error = true;
        self
    }
}

pub(crate) type Reply = oneshot::Sender<Result<ClientAnswer, ClientError>>;

/// Who plays the client's side of its games, as they are logged: an MCP client
/// ([`ClientSeat::mcp`]) or a person ([`ClientSeat::person`]).
#[derive(Clone, Debug)]
pub struct ClientSeat {
    /// The player's name in logs and tables (`mcp:NAME`, `human`).
    pub(crate) name: String,
    /// `Llm` for an MCP client: each move carries the decision record of its calls,
    /// and each call is logged (`tool_call`: its calls are its thinking). `Human` for a
    /// person: their moves carry none, as at the terminal, and their clicks are only
    /// their moves (and hints, logged as such).
    pub(crate) kind: PlayerKind,
}

impl ClientSeat {
    /// An MCP client's seat, named `player` ([`player_name`](crate::player_name)).
    pub fn mcp(player: String) -> ClientSeat {
        ClientSeat {
            name: player,
            kind: PlayerKind::Llm,
        }
    }

    /// A person's seat (the play page's).
    pub fn person() -> ClientSeat {
        ClientSeat {
            name: "human".to_string(),
            kind: PlayerKind::Human,
        }
    }

    /// Whether each call is logged (an MCP client's, not a person's).
    pub(crate) fn logs_calls(&self) -> bool {
        self.kind == PlayerKind::Llm
    }
}

/// One game's state as its handle and its task share it.
pub(crate) struct Shared<R: ModelGame> {
    pub(crate) id: u64,
    pub(crate) you: Color,
    pub(crate) opponent: String,
    pub(crate) seat: ClientSeat,
    pub(crate) style: TextStyle,
    pub(crate) legal: LegalMoves,
    pub(crate) watch: Arc<dyn GameWatch<R>>,
    pub(crate) inner: Mutex<Inner<R>>,
}

pub(crate) struct Inner<R: ModelGame> {
    pub(crate) line: Line<R>,
    pub(crate) end: Option<End>,
    pub(crate) pending: Option<Pending>,
}

impl<R: ModelGame> Shared<R> {
    pub(crate) fn lock(&self) -> std::sync::MutexGuard<'_, Inner<R>> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The state now, as the client reads it.
    fn state(&self) -> ClientState {
        let inner = self.lock();
        let position = inner.line.board();
        let to_move = R::to_move(position);
        let over = inner.end.is_some();
        let legal_moves = self.legal.shown().then(|| {
            if over || to_move != self.you {
                Vec::new()
            } else {
                R::legal_moves(position)
                    .into_iter()
                    .map(|mv| Notation::of::<R>(mv).to_string())
                    .filter(|mv| mv != "pass")
                    .collect()
            }
        });
        let end = inner.end.clone().unwrap_or_default();
        let pieces = R::pieces(position);
        ClientState {
            game_id: self.id,
            board: Squares::of::<R>(position).to_string(),
            to_move,
            your_color: self.you,
            legal_moves,
            over,
            result: end.outcome.map(|outcome| match outcome {
                Outcome::Draw => ClientResult::Draw,
                Outcome::Win(color) if color == self.you => ClientResult::Win,
                Outcome::Win(_) => ClientResult::Loss,
            }),
            discs: over.then_some(Discs {
                black: pieces.black,
                white: pieces.white,
            }),
            forfeit: end.forfeit,
            failed: end.failed,
            ply: inner.line.moves().len() + 1,
            opponent: self.opponent.clone(),
            moves: inner
                .line
                .moves()
                .iter()
                .map(|&mv| Notation::of::<R>(mv).to_string())
                .collect(),
        }
    }

    /// The state as a tool's answer: the board as the agent's prompts write it, then a
    /// line on whose turn it is or how the game ended.
    pub(crate) fn answer(&self) -> ClientAnswer {
        let state = self.state();
        let position = *self.lock().line.board();
        let status = match (&state.result, &state.failed) {
            (Some(result), _) => format!(
                "Game {} is over: {result:?} for you ({}).",
                state.game_id,
                state
                    .discs
                    .map_or(String::new(), |d| format!("black {}, white {}", d.black, d.white))
            ),
            (None, Some(failed)) => format!("Game {} stopped: {failed}.", state.game_id),
            (None, None) if state.to_move == self.you => {
                format!(
                    "You play {}; your move (play_move with game_id {}).",
                    self.you, state.game_id
                )
            }
            (None, None) => format!("You play {}; the opponent is to move.", self.you),
        };
        ClientAnswer {
            text: format!("{}\n{status}", R::model_text(&position, self.style, self.legal)),
            content: serde_json::to_value(&state).unwrap_or(Value::Null),
            is_error: false,
        }
    }

    /// Answers the pending call, if any, with the state now, logging it first.
    pub(crate) fn settle(&self, log: GameWriter<'_>) {
        let Some(pending) = self.lock().pending.take() else {
            return;
        };
        let answer = match &pending.out_of_tries {
            Some(tries) => self.answer().out_of_tries(tries),
            None => self.answer(),
        };
        let logged = self.log_call(log, pending.ply, (pending.call.0, &pending.call.1), &answer);
        let reply = logged.map(|()| answer).map_err(|source| ClientError::Failed {
            id: self.id,
            message: format!("{source}"),
        });
        // A client that has gone away is told nothing.
        let _ = pending.reply.send(reply);
    }

    /// Logs a call at `ply` with its answer (`tool_call`), for a seat whose calls are
    /// logged.
    pub(crate) fn log_call(
        &self,
        log: GameWriter<'_>,
        ply: usize,
        (tool, arguments): (&str, &Value),
        answer: &ClientAnswer,
    ) -> Result<(), LogError> {
        if !self.seat.logs_calls() {
            return Ok(());
        }
        let at = Ply {
            number: ply,
            color: self.you,
        };
        log.tool_call(
            at,
            &self.seat.name,
            (tool, arguments),
            (&answer.content, answer.is_error),
        )
    }

    /// The client's move `mv`, made by it (`Llm` for an MCP client, with the record
    /// of its calls at this ply; a person's without one) or by its fallback.
    pub(crate) fn played(&self, mv: R::Move, source: MoveSource, decision: &AgentDecision) -> Action<R> {
        let (source, agent) = match (self.seat.kind, source) {
            // A person's own move, logged as a terminal's person's is.
            (PlayerKind::Human, MoveSource::Llm) => (MoveSource::Engine, None),
            _ => (source, Some(decision.clone())),
        };
        Action::Move(Played { mv, source, agent })
    }
}

/// A game's task: the client against its opponent.
pub(crate) struct ClientGame<R: ModelGame> {
    pub(crate) shared: Arc<Shared<R>>,
    pub(crate) client: ClientPlayer<R>,
    pub(crate) opponent: PlayerSpec<R>,
    pub(crate) line: (Line<R>, Option<String>),
    pub(crate) seed: u64,
    pub(crate) number: usize,
    /// Set when the client has gone away ([`ClientGames::close`]).
    pub(crate) gone: Arc<AtomicBool>,
    /// Stops the game where it is ([`ClientGames::stop`]).
    pub(crate) stop: Arc<StopNow>,
}

impl<R: ModelGame> ClientGame<R> {
    /// Plays the game to its end (or until the client goes away, or it is stopped)
    /// into `log`.
    pub(crate) async fn play(mut self, log: GameLog) {
        let shared = self.shared.clone();
        let writer = GameWriter::new(Some(&log), self.number);
        // The client's going away ends an external opponent's wait at once.
        let halt = Halt {
            stop: Some(self.gone.clone()),
            failed: None,
        };
        let mut opponent = self
            .opponent
            .build_watched(derive_seed(self.seed, 1), &halt, &shared.watch);
        let you = shared.you;
        let seats = by_side(
            you,
            Seat {
                name: shared.seat.name.clone(),
                kind: shared.seat.kind,
            },
            Seat {
                name: self.opponent.to_string(),
                kind: self.opponent.kind(),
            },
        );
        let watched = shared.clone();
        let mut observe = move |position: &R::Position, mv: R::Move| {
            let mut inner = watched.lock();
            let before = *inner.line.board();
            // The loop checked the move; a failure here is not possible.
            let _ = inner.line.try_play(mv);
            debug_assert_eq!(inner.line.board(), position);
            let next_ply = inner.line.moves().len() + 1;
            let over = inner.line.is_over();
            if over {
                inner.end = Some(End {
                    outcome: Some(R::outcome(position)),
                    ..End::default()
                });
            }
            drop(inner);
            watched.watch.moved(&before, position, mv, next_ply);
            if over {
                watched.settle(writer);
            }
        };
        let ctx = GameContext {
            log: writer,
            observer: Some(&mut observe),
            stop: Some(&self.gone),
            stop_reason: StopReason::Disconnected,
        };
        let (line, suite_line) = self.line;
        let players = by_side::<&mut dyn Player<R>>(you, &mut self.client, opponent.as_mut());
        let mut game = Box::pin(play_logged(
            (line, suite_line.as_deref()),
            players,
            seats,
            self.seed,
            ctx,
        ));
        let stopped = tokio::select! {
            played = &mut game => Ok(played),
            reason = self.stop.wait() => Err(reason),
        };
        let end = match stopped {
            Ok(played) => played_to(&shared, &self.gone, played),
            // Its end is logged already (its last move, a forfeit, a stop at the
            // client's turn), so the stop comes too late: only the players' `done` is
            // left (an external engine quitting), and the end stands.
            Err(_) if shared.lock().end.is_some() => {
                let played = game.await;
                played_to(&shared, &self.gone, played)
            }
            Err(reason) => {
                // Dropped between two log lines; the stop is logged, then the players
                // are let go as the loop would (an external engine's quitting can take
                // a second, which must not delay the log's last line).
                drop(game);
                let end = stopped_here(&shared, writer, &log, reason);
                opponent.done().await;
                end
            }
        };
        finish(&shared, end, writer);
    }
}

/// How the played game ended, as its client is told. Stopped as the client went away
/// (the opponent's move abandoned, logged as `disconnected`): no one is left to answer,
/// and the log ends at the stop.
fn played_to<R: ModelGame>(shared: &Shared<R>, gone: &AtomicBool, played: Result<GameRecord<R>, GameError>) -> End {
    if matches!(played, Err(GameError::Stopped { .. })) && gone.load(Ordering::Relaxed) {
        drop(shared.lock().pending.take());
    }
    End::of(shared, played)
}

/// The game stopped where it is for `reason`, logged so (`game_stopped` at the ply it
/// reached) unless nothing of it was logged yet: stopped before it began (an opponent's
/// process still starting), it logs nothing, as a run's game stopped then does (a
/// `game_stopped` with no `game_start` is no game log to its readers).
fn stopped_here<R: ModelGame>(shared: &Shared<R>, writer: GameWriter<'_>, log: &GameLog, reason: StopReason) -> End {
    let ply = shared.lock().line.moves().len() + 1;
    if log.is_empty() {
        return End::stopped(reason, ply, &shared.seat);
    }
    match writer.stopped(ply, reason) {
        Ok(()) => End::stopped(reason, ply, &shared.seat),
        Err(err) => End {
            failed: Some(format!("stopped before ply {ply}; its log could not say so: {err}")),
            stopped: Some(reason),
            ..End::default()
        },
    }
}

impl End {
    /// How a played game ended, as its client is told.
    fn of<R: ModelGame>(shared: &Shared<R>, played: Result<GameRecord<R>, GameError>) -> End {
        match played {
            Ok(record) => End {
                outcome: Some(record.outcome),
                forfeit: record.forfeit.as_ref().map(|f| f.color),
                ..End::default()
            },
            Err(err) => {
                let message = llm::error_chain(&err);
                tracing::warn!("client game {} ended unfinished: {message}", shared.id);
                End {
                    failed: Some(message),
                    ..End::default()
                }
            }
        }
    }
}

/// Records how the game ended (unless the game said so first: a stop, or a forfeit
/// that says more), answers a call still waiting, and tells the watch.
fn finish<R: ModelGame>(shared: &Shared<R>, end: End, log: GameWriter<'_>) {
    let mut inner = shared.lock();
    if inner.end.is_none() || end.forfeit.is_some() || end.stopped.is_some() {
        inner.end = Some(end);
    }
    let stopped = inner.end.as_ref().and_then(|end| end.stopped);
    drop(inner);
    shared.settle(log);
    shared.watch.ended(&shared.state(), stopped);
}

/// `own` for the side `color` and `other` for its opponent, by colour (a client's or a
/// person's seat and the engine's).
pub fn by_side<T>(color: Color, own: T, other: T) -> ByColor<T> {
    match color {
        Color::Black => ByColor {
            black: own,
            white: other,
        },
        Color::White => ByColor {
            black: other,
            white: own,
        },
    }
}
