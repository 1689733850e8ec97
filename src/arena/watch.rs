//! The opponents of a client's games (an MCP client's, a person's at the play page) and
//! what a face is shown of those games as they are played ([`GameWatch`]).
//!
//! An opponent here is built as any run builds it, with two differences: an engine's
//! and a model's thinking is reported to the watch as it comes, and a model whose server
//! fails (down, out of retries) does not end the game: its fallback engine moves
//! instead, logged with source `fallback` and the reason ([`SteadyAgent`]). A run's
//! game stops on such a failure so that `--resume` plays it again; nobody resumes a
//! client's game, and the person or client waiting on it is better served by a move.

use std::sync::Arc;

use agent::{Agent, AgentError, AgentEvent, BlockingEngine, ModelGame, MoveContext};
use engines::Engines;
use record::{AgentDecision, MoveSource};

use super::engine_process::Halt;
use super::player::{Action, EnginePlayer, PlayError, Played, Player};
use super::player_spec::PlayerSpec;

/// What a face is shown of a client's game beside its log: every move, the opponent's
/// thinking, and the end. Each method shows nothing unless a face says otherwise; each
/// is called on the game's task, so it should return at once.
pub trait GameWatch<R: ModelGame>: Send + Sync {
    /// `mv` was played from `before`, giving `after`; the game is at ply `next_ply` now.
    fn moved(&self, before: &R::Position, after: &R::Position, mv: R::Move, next_ply: usize) {
        let _ = (before, after, mv, next_ply);
    }

    /// The opponent engine `player` chose its move.
    fn engine_decided(&self, player: &str, decision: &<R as Engines>::Decision) {
        let _ = (player, decision);
    }

    /// One reply or tool result of the opponent model's turn, as it comes.
    fn agent_event(&self, event: AgentEvent<'_>) {
        let _ = event;
    }

    /// How the opponent model's move was made (or its forfeit).
    fn agent_decided(&self, decision: &AgentDecision) {
        let _ = decision;
    }

    /// The opponent model's server failed; its fallback moves (`reason` says both).
    fn server_failed(&self, reason: &str) {
        let _ = reason;
    }

    /// The game ended: finished, stopped or failed, as `state` tells its client.
    fn ended(&self, state: &super::client_calls::ClientState, stopped: Option<record::StopReason>) {
        let _ = (state, stopped);
    }
}

/// The watch of a game nobody is shown (an MCP client's: its calls are its view).
pub(crate) struct Unwatched;

impl<R: ModelGame> GameWatch<R> for Unwatched {}

impl<R: ModelGame> PlayerSpec<R> {
    /// The opponent of a client's game, seeded by `seed`, its thinking reported to
    /// `watch`; an external engine's waits end at `halt`. A model falls back on its
    /// server's failure ([`SteadyAgent`]).
    pub(crate) fn build_watched(&self, seed: u64, halt: &Halt, watch: &Arc<dyn GameWatch<R>>) -> Box<dyn Player<R>> {
        match self {
            PlayerSpec::Engine(spec) if !R::is_human(spec) => Box::new(WatchedEngine {
                engine: BlockingEngine::new(R::engine(spec, seed)),
                watch: watch.clone(),
            }),
            PlayerSpec::Llm(llm) => {
                let observed = watch.clone();
                let agent = Agent::<R>::new(llm.config.clone(), llm.backend.clone(), seed)
                    .with_observer(Arc::new(move |event| observed.agent_event(event)));
                // A forfeiting agent (or one whose fallback this game has not) still
                // needs a move when its server dies: random.
                let fallback = match llm.config.fallback.spec::<R>() {
                    Ok(Some(spec)) => Some(spec),
                    Ok(None) | Err(_) => "random".parse::<R::Spec>().ok(),
                };
                Box::new(SteadyAgent {
                    agent,
                    fallback: fallback.map(|spec| BlockingEngine::new(R::engine(&spec, seed))),
                    watch: watch.clone(),
                })
            }
            _ => self.build_in_run(seed, halt),
        }
    }
}

/// An engine whose decisions (score, nodes, candidates) are shown.
struct WatchedEngine<R: ModelGame> {
    engine: BlockingEngine<R>,
    watch: Arc<dyn GameWatch<R>>,
}

#[async_trait::async_trait]
impl<R: ModelGame> Player<R> for WatchedEngine<R> {
    fn name(&self) -> String {
        self.engine.name()
    }

    async fn act(&mut self, position: &R::Position, _ctx: MoveContext<'_>) -> Result<Action<R>, PlayError> {
        let decision = self.engine.choose(position).await?;
        self.watch.engine_decided(&self.engine.name(), &decision);
        Ok(EnginePlayer::action(&decision))
    }
}

/// The model of a client's game: its decisions shown, and its fallback engine's move
/// when its server fails, so the game goes on (the move logged with source `fallback`
/// and the reason).
pub(crate) struct SteadyAgent<R: ModelGame> {
    agent: Agent<R>,
    fallback: Option<BlockingEngine<R>>,
    watch: Arc<dyn GameWatch<R>>,
}

#[async_trait::async_trait]
impl<R: ModelGame> Player<R> for SteadyAgent<R> {
    fn name(&self) -> String {
        self.agent.name()
    }

    async fn act(&mut self, position: &R::Position, ctx: MoveContext<'_>) -> Result<Action<R>, PlayError> {
        match Player::act(&mut self.agent, position, ctx).await {
            Ok(action) => {
                let decision = match &action {
                    Action::Move(played) => played.agent.as_ref(),
                    Action::Forfeit(decision) => Some(decision),
                };
                if let Some(decision) = decision {
                    self.watch.agent_decided(decision);
                }
                Ok(action)
            }
            Err(PlayError::Agent(err @ AgentError::Llm { .. })) => {
                let Some(fallback) = &self.fallback else {
                    return Err(PlayError::Agent(err));
                };
                let reason = format!(
                    "the model server failed ({}); {} played",
                    llm::error_chain(&err),
                    fallback.name()
                );
                self.watch.server_failed(&reason);
                let chosen = fallback.choose(position).await?;
                let decision = AgentDecision {
                    source: Some(MoveSource::Fallback),
                    fallback_reason: Some(reason),
                    ..AgentDecision::default()
                };
                self.watch.agent_decided(&decision);
                Ok(Action::Move(Played {
                    mv: R::decision_move(&chosen),
                    source: MoveSource::Fallback,
                    agent: Some(decision),
                }))
            }
            Err(err) => Err(err),
        }
    }
}
