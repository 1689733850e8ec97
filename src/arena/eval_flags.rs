//! An eval's command line as data ([`EvalFlags`]), settled into the run it plays
//! ([`EvalSettings::resolve`]): the model server connected, the agent (an LLM player)
//! and its opponents (the game's ladder unless given; no person) read, their external
//! engines' handshakes checked, and the games at once the hosts' capacity unless given.

use agent::{AgentSource, ModelGame};
use llm::HostOptions;

use super::connection::{Connection, ReachError};
use super::engines_file::{identify_engines, EnginesFileError};
use super::eval::EvalConfig;
use super::eval_plan::eval_opponents;
use super::eval_run::EvalSettings;
use super::player_spec::{ParseSpecError, PlayerSpec};
use super::schedule::RunOptions;

/// What an eval's flags give, before anything is looked up or connected.
#[derive(Clone, Debug, Default)]
pub struct EvalFlags {
    /// `--agent`: the LLM player's spec.
    pub agent_spec: String,
    /// `--vs`: the opponents' specs (none: the game's default ladder).
    pub vs: Vec<String>,
    /// The agent flags.
    pub agent: AgentSource,
    /// The host flags.
    pub hosts: HostOptions,
    /// `--games`: games per colour and opponent.
    pub games_per_color: usize,
    /// `--seed`.
    pub seed: u64,
    /// `--opening-seed`.
    pub opening_seed: Option<u64>,
    /// `--parallel` (none: the hosts' capacity).
    pub parallel: Option<usize>,
    /// `--opening-random`, as run.json records it.
    pub opening_random: usize,
    /// The command line after the program's name, as run.json records it.
    pub argv: Vec<String>,
}

/// Why an eval's flags name no run that can be played.
#[derive(Debug, thiserror::Error)]
pub enum EvalFlagsError {
    /// The hosts cannot be set up or reached.
    #[error(transparent)]
    Reach(#[from] ReachError),
    /// A player spec.
    #[error(transparent)]
    Spec(#[from] ParseSpecError),
    /// A person among the opponents.
    #[error("bad --vs: eval runs unattended; use `play` to play the agent yourself")]
    Human,
    /// An external opponent's handshake failed.
    #[error(transparent)]
    Engines(#[from] EnginesFileError),
}

impl<R: ModelGame> EvalSettings<R> {
    /// The run `flags` define: connected to its hosts ([`Connection::open`]), the
    /// agent read as an LLM player ([`PlayerSpec::parse_llm`]), the opponents
    /// ([`eval_opponents`]) as engines that answer by themselves, each external one's
    /// handshake checked; `env` looks up `OLLAMA_HOST` and API key variables.
    pub async fn resolve(
        flags: EvalFlags,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<EvalSettings<R>, Box<EvalFlagsError>> {
        let connection = Connection::open(&flags.hosts, &flags.agent, env)
            .await
            .map_err(EvalFlagsError::from)?;
        let agent = PlayerSpec::<R>::parse_llm(&flags.agent_spec, "--agent", &flags.agent, (&connection, "eval"))
            .map_err(EvalFlagsError::from)?;
        let opponents = eval_opponents::<R>(&flags.vs)
            .iter()
            .map(|spec| PlayerSpec::parse(spec, "--vs", &flags.agent, Some(&connection)))
            .collect::<Result<Vec<_>, _>>()
            .map_err(EvalFlagsError::from)?;
        if opponents.iter().any(PlayerSpec::is_human) {
            return Err(Box::new(EvalFlagsError::Human));
        }
        identify_engines(&opponents).await.map_err(EvalFlagsError::from)?;
        let agent_config = agent.agent_config().cloned().unwrap_or_default();
        Ok(EvalSettings {
            parallel: flags.parallel.unwrap_or_else(|| connection.default_parallel()),
            config: EvalConfig {
                agent,
                opponents,
                games_per_color: flags.games_per_color,
                seed: flags.seed,
                opening_seed: flags.opening_seed,
                run: RunOptions::default(),
            },
            agent: agent_config,
            connection,
            argv: flags.argv,
            opening_random: flags.opening_random,
            reference: None,
            score_moves: None,
        })
    }
}
