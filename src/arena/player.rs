//! Players: classical engines, the LLM agent and engine processes behind one
//! interface. Which player a spec string builds is in `player_spec`.

use agent::ModelGame;

pub use agent::{Action, Played};
use agent::{Agent, AgentError, BlockingEngine, MoveContext};
use engines::EngineError;
use game::{Line, Othello};
use record::{EngineId, GameWriter, MoveSource};

use super::engine_process::ExternalError;

/// Why a player could not move (a harness failure, never a model mistake).
#[derive(Debug, thiserror::Error)]
pub enum PlayError {
    /// An engine failed.
    #[error(transparent)]
    Engine(#[from] EngineError),
    /// The agent's server or log failed.
    #[error(transparent)]
    Agent(#[from] AgentError),
    /// An external engine's process failed.
    #[error(transparent)]
    External(Box<ExternalError>),
    /// The run was stopped while the player was awaited (an external engine's answer
    /// or process slot): the game stops, to be played again by a resume.
    #[error("the run was stopped during this move")]
    Stopped,
}

impl From<ExternalError> for PlayError {
    fn from(err: ExternalError) -> PlayError {
        match err {
            ExternalError::Abandoned { .. } => PlayError::Stopped,
            err => PlayError::External(Box::new(err)),
        }
    }
}

/// Anything that picks moves in a game of `R`.
#[async_trait::async_trait]
pub trait Player<R: ModelGame = Othello>: Send {
    /// The spec string.
    fn name(&self) -> String;

    /// Gets ready for the game logged by `log`, before its `game_start`: an external
    /// engine starts its process and returns how its handshake named it (the others
    /// have nothing to do or to say).
    async fn ready(&mut self, log: GameWriter<'_>) -> Result<Option<EngineId>, PlayError> {
        let _ = log;
        Ok(None)
    }

    /// The game is over (finished, stopped or failed): an external engine's process
    /// is asked to quit and its process group ended (the others have nothing to do).
    async fn done(&mut self) {}

    /// Sees the game so far before each of its turns (an external engine is told the
    /// game's moves; the others read only the position).
    fn follow(&mut self, game: &Line<R>) {
        let _ = game;
    }

    /// Plays its turn where the side to move has a legal move: a move, or (an agent
    /// whose fallback is `forfeit`) a forfeit. Engines think on a blocking thread and
    /// always move; the agent awaits its server.
    async fn act(&mut self, position: &R::Position, ctx: MoveContext<'_>) -> Result<Action<R>, PlayError>;
}

/// A classical engine as a player: it thinks on a blocking thread.
pub(crate) struct EnginePlayer<R: ModelGame>(pub(crate) BlockingEngine<R>);

#[async_trait::async_trait]
impl<R: ModelGame> Player<R> for EnginePlayer<R> {
    fn name(&self) -> String {
        self.0.name()
    }

    async fn act(&mut self, position: &R::Position, _ctx: MoveContext<'_>) -> Result<Action<R>, PlayError> {
        let decision = self.0.choose(position).await?;
        Ok(EnginePlayer::action(&decision))
    }
}

impl<R: ModelGame> EnginePlayer<R> {
    /// An engine's decision as the move it plays (source `engine`, no agent record).
    pub(crate) fn action(decision: &<R as engines::Engines>::Decision) -> Action<R> {
        Action::Move(Played {
            mv: R::decision_move(decision),
            source: MoveSource::Engine,
            agent: None,
        })
    }
}

#[async_trait::async_trait]
impl<R: ModelGame> Player<R> for Agent<R> {
    fn name(&self) -> String {
        Agent::name(self)
    }

    async fn act(&mut self, position: &R::Position, ctx: MoveContext<'_>) -> Result<Action<R>, PlayError> {
        Ok(self.decide(position, ctx).await?)
    }
}
