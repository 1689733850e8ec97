//! Player specs: what a spec string names (a classical engine, `llm:MODEL` with its
//! settings, an engine process `ext:NAME`) and the player it builds.

use std::fmt;
use std::sync::Arc;

use agent::{prompts_dir, Agent, AgentConfig, AgentSource, AgentSourceError, BlockingEngine, ModelGame};
use engines::EngineSpec;
use game::Othello;
use llm::ChatBackend;
use record::PlayerKind;
use runs::{RunEngine, RunPlayer};

use super::connection::Connection;
use super::engine_process::Halt;
use super::engines_file::{resolve_engine, EnginesFileError};
use super::external_engine::ExternalEngine;
use super::player::{EnginePlayer, Player};
use super::scheduled::Host;

/// An LLM player's settings and server.
#[derive(Clone)]
pub struct LlmPlayer {
    /// How the agent plays.
    pub config: Arc<AgentConfig>,
    /// The server it talks to.
    pub backend: Arc<dyn ChatBackend>,
    /// The games its server serves at once ([`crate::Connection::default_parallel`]):
    /// the scheduler starts a game on it only while it has room, when another can.
    pub capacity: usize,
}

/// A player spec: an engine spec string of game `R`, `llm:MODEL` with its settings, or
/// an external engine (`ext:NAME`).
#[derive(Clone)]
pub enum PlayerSpec<R: ModelGame = Othello> {
    /// A classical engine (or `human`).
    Engine(R::Spec),
    /// The LLM agent.
    Llm(LlmPlayer),
    /// An engine process speaking GTP or NBoard (Othello only).
    External(ExternalEngine),
}

/// A player spec that names no player (each message names the flag or key it came by).
#[derive(Debug, thiserror::Error)]
pub enum ParseSpecError {
    /// `ext:NAME` names no engine of the `--engines` file.
    #[error(transparent)]
    External(#[from] Box<EnginesFileError>),
    /// `llm:` without a model.
    #[error("bad {flag} {text:?}: name the model, as in llm:qwen2.5-coder:0.5b")]
    NoModel {
        /// The flag or key.
        flag: String,
        /// The spec as given.
        text: String,
    },
    /// The `llm:MODEL` player's settings cannot be used.
    #[error("bad settings for {flag} {text}")]
    Settings {
        /// The flag or key.
        flag: String,
        /// The spec as given.
        text: String,
        /// Why.
        #[source]
        source: Box<AgentSourceError>,
    },
    /// A command that measures an LLM player was given another player.
    #[error("bad {flag} {text:?}: {command} measures an LLM player, give llm:MODEL")]
    NotLlm {
        /// The flag or key.
        flag: String,
        /// The spec as given.
        text: String,
        /// The command (`eval`, `probe`, `bench llm`).
        command: &'static str,
    },
    /// An `llm:MODEL` player where no model server was set up.
    #[error("bad {flag} {text:?}: no model server was set up for it")]
    NoServer {
        /// The flag or key.
        flag: String,
        /// The spec as given.
        text: String,
    },
    /// No host of the fleet serves the model.
    #[error(transparent)]
    Model(#[from] llm::FleetError),
    /// Not an engine spec of the game (nor `llm:MODEL`, `ext:NAME`).
    #[error("bad {flag}")]
    Engine {
        /// The flag or key.
        flag: String,
        /// Why, with the other kinds of spec.
        #[source]
        source: UnknownSpecError,
    },
}

/// The model an `llm:MODEL` spec names (trimmed; it may be empty), or `None` for any
/// other spec.
pub(crate) fn llm_model(spec: &str) -> Option<&str> {
    spec.trim().strip_prefix("llm:").map(str::trim)
}

/// Whether the player spec `text` names an LLM player (and so needs a model server).
pub fn is_llm_spec(text: &str) -> bool {
    llm_model(text).is_some()
}

/// Text that is no engine spec, with the kinds of spec it could have been.
#[derive(Debug, thiserror::Error)]
#[error("{reason}, llm:MODEL, ext:NAME")]
pub struct UnknownSpecError {
    /// Why the engine spec was refused (it lists the engine specs).
    pub reason: String,
}

impl<R: ModelGame> PlayerSpec<R> {
    /// Reads the player spec `text` given by `flag` (a flag or key, for messages): an
    /// external engine `ext:NAME` of `agent`'s engines file ([`resolve_engine`]),
    /// `llm:MODEL` with `agent`'s settings ([`AgentSource::config`]) on `connection`,
    /// or an engine spec of `R`. The files are read only when a spec needs them.
    pub fn parse(
        text: &str,
        flag: &str,
        agent: &AgentSource,
        connection: Option<&Connection>,
    ) -> Result<PlayerSpec<R>, ParseSpecError> {
        if text.trim().starts_with("ext:") {
            let engine = resolve_engine::<R>(text, flag, agent.engines.as_deref()).map_err(Box::new)?;
            return Ok(PlayerSpec::External(engine));
        }
        let named = || (flag.to_string(), text.to_string());
        if let Some(model) = llm_model(text) {
            if model.is_empty() {
                let (flag, text) = named();
                return Err(ParseSpecError::NoModel { flag, text });
            }
            let config = agent.config::<R>(model, &prompts_dir()).map_err(|source| {
                let (flag, text) = named();
                ParseSpecError::Settings {
                    flag,
                    text,
                    source: Box::new(source),
                }
            })?;
            let Some(connection) = connection else {
                let (flag, text) = named();
                return Err(ParseSpecError::NoServer { flag, text });
            };
            return Ok(PlayerSpec::Llm(LlmPlayer::on(config, connection)?));
        }
        let spec = text.parse::<R::Spec>().map_err(|e| ParseSpecError::Engine {
            flag: flag.to_string(),
            source: UnknownSpecError { reason: e.to_string() },
        })?;
        Ok(PlayerSpec::Engine(spec))
    }

    /// [`PlayerSpec::parse`] for a command that measures an LLM player (`command`:
    /// `eval`, `probe`, `bench llm`) on `connection`: any other player is refused.
    pub fn parse_llm(
        text: &str,
        flag: &str,
        agent: &AgentSource,
        (connection, command): (&Connection, &'static str),
    ) -> Result<PlayerSpec<R>, ParseSpecError> {
        match PlayerSpec::parse(text, flag, agent, Some(connection))? {
            player @ PlayerSpec::Llm(_) => Ok(player),
            _ => Err(ParseSpecError::NotLlm {
                flag: flag.to_string(),
                text: text.to_string(),
                command,
            }),
        }
    }

    /// Builds the player; `seed` fixes its random choices (the agent's fallback too).
    pub fn build(&self, seed: u64) -> Box<dyn Player<R>> {
        match self {
            PlayerSpec::Engine(spec) if R::is_human(spec) => {
                // A person at this terminal: moves typed on stdin, prompts on stderr.
                let input = Box::new(std::io::BufReader::new(std::io::stdin()));
                let person = R::person(input, Box::new(std::io::stderr()));
                let engine = person.unwrap_or_else(|| R::engine(spec, seed));
                Box::new(EnginePlayer(BlockingEngine::new(engine)))
            }
            PlayerSpec::Engine(spec) => Box::new(EnginePlayer(BlockingEngine::new(R::engine(spec, seed)))),
            PlayerSpec::Llm(llm) => Box::new(Agent::<R>::new(llm.config.clone(), llm.backend.clone(), seed)),
            PlayerSpec::External(engine) => Box::new(engine.player()),
        }
    }

    /// Builds the player of a game of a run (as [`PlayerSpec::build`]): an external
    /// engine's waits are ended early by `halt` (the run's stop, a failed game).
    pub(crate) fn build_in_run(&self, seed: u64, halt: &Halt) -> Box<dyn Player<R>> {
        match self {
            PlayerSpec::External(engine) => Box::new(engine.player_in_run(halt.clone())),
            _ => self.build(seed),
        }
    }

    /// The server this player's moves wait on, when it has one (an LLM player's, an
    /// external engine's process slots): players sharing a connection share it.
    pub(crate) fn host(&self) -> Option<Host> {
        match self {
            PlayerSpec::Engine(_) => None,
            PlayerSpec::Llm(llm) => Some(Host {
                id: Arc::as_ptr(&llm.backend).cast::<()>() as usize,
                capacity: llm.capacity.max(1),
            }),
            PlayerSpec::External(engine) => Some(Host {
                id: Arc::as_ptr(engine.slots()) as usize,
                capacity: engine.max_in_flight(),
            }),
        }
    }

    /// What kind of player this is, for the log.
    pub fn kind(&self) -> PlayerKind {
        match self {
            PlayerSpec::Engine(spec) if R::is_human(spec) => PlayerKind::Human,
            PlayerSpec::Engine(_) | PlayerSpec::External(_) => PlayerKind::Engine,
            PlayerSpec::Llm(_) => PlayerKind::Llm,
        }
    }

    /// Whether this is a person at the terminal.
    pub fn is_human(&self) -> bool {
        matches!(self, PlayerSpec::Engine(spec) if R::is_human(spec))
    }

    /// The agent settings, for an LLM player.
    pub fn agent_config(&self) -> Option<&AgentConfig> {
        match self {
            PlayerSpec::Llm(llm) => Some(&llm.config),
            PlayerSpec::Engine(_) | PlayerSpec::External(_) => None,
        }
    }

    /// An LLM player resumed in a run that `recorded` it uncapped keeps playing
    /// uncapped ([`AgentConfig::keep_recorded_cap`]); other players are left alone.
    pub fn keep_recorded_cap(&mut self, recorded: &AgentConfig) {
        if let PlayerSpec::Llm(llm) = self {
            let mut config = (*llm.config).clone();
            config.keep_recorded_cap(recorded);
            llm.config = Arc::new(config);
        }
    }

    /// The external engine, for an engine process.
    pub fn external(&self) -> Option<&ExternalEngine> {
        match self {
            PlayerSpec::External(engine) => Some(engine),
            PlayerSpec::Engine(_) | PlayerSpec::Llm(_) => None,
        }
    }

    /// The external engine this player is, as run.json records it (`None` for other
    /// players).
    pub fn run_engine(&self) -> Option<RunEngine> {
        self.external().map(ExternalEngine::run_engine)
    }

    /// The player as run.json records it: its spec, its settings when it is an LLM
    /// player, its table when it is an external engine.
    pub fn run_player(&self) -> RunPlayer {
        RunPlayer {
            engine: self.run_engine(),
            ..RunPlayer::new(self.to_string(), self.agent_config().cloned())
        }
    }
}

impl From<EngineSpec> for PlayerSpec {
    fn from(spec: EngineSpec) -> Self {
        PlayerSpec::Engine(spec)
    }
}

impl<R: ModelGame> fmt::Display for PlayerSpec<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlayerSpec::Engine(spec) => spec.fmt(f),
            PlayerSpec::Llm(llm) => f.write_str(&llm.config.spec()),
            PlayerSpec::External(engine) => f.write_str(&engine.name()),
        }
    }
}

impl<R: ModelGame> fmt::Debug for PlayerSpec<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PlayerSpec({self})")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each kind of spec takes its own way, and each refusal names the flag, the spec
    /// and what to give; a file no spec needs is never read.
    #[test]
    fn specs_are_read_by_kind_and_refusals_name_the_flag() {
        let missing = std::path::PathBuf::from("/nonexistent/othello-arena.toml");
        let unread = AgentSource {
            file: Some(missing.clone()),
            engines: Some(missing),
            ..AgentSource::default()
        };
        let engine = PlayerSpec::<Othello>::parse(" greedy ", "--vs", &unread, None).unwrap();
        assert_eq!(engine.to_string(), "greedy");
        let external = PlayerSpec::<Othello>::parse("ext:edax", "--vs", &unread, None).unwrap_err();
        assert_eq!(
            external.to_string(),
            "cannot read --engines /nonexistent/othello-arena.toml"
        );
        let no_file = PlayerSpec::<Othello>::parse("ext:edax", "--vs", &AgentSource::default(), None).unwrap_err();
        assert!(no_file.to_string().ends_with("with --engines FILE"), "{no_file}");
        let settings = PlayerSpec::<Othello>::parse("llm:m", "--agent", &unread, None).unwrap_err();
        assert_eq!(settings.to_string(), "bad settings for --agent llm:m");
        let why = std::error::Error::source(&settings).unwrap().to_string();
        assert_eq!(why, "cannot read --agent-file /nonexistent/othello-arena.toml");
        let no_model = PlayerSpec::<Othello>::parse("llm: ", "--agent", &unread, None).unwrap_err();
        assert!(no_model.to_string().contains("name the model"), "{no_model}");
        let refused = PlayerSpec::<Othello>::parse("llm:m", "--agent", &AgentSource::default(), None).unwrap_err();
        assert_eq!(
            refused.to_string(),
            "bad --agent \"llm:m\": no model server was set up for it"
        );
        let unknown = PlayerSpec::<Othello>::parse("nonsense", "--vs", &unread, None).unwrap_err();
        assert_eq!(unknown.to_string(), "bad --vs");
        let why = std::error::Error::source(&unknown).unwrap().to_string();
        assert!(why.ends_with(", llm:MODEL, ext:NAME"), "{why}");
    }
}
