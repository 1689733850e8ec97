//! `llm:MODEL` players' flags, read into the library's settings: the agent flags
//! ([`AgentArgs`]) are [`AgentSettings`] (declared there with their ranges, the same
//! for a flag and a file's key) beside the agent file, handed over as an
//! [`AgentSource`]; the host flags ([`HostArgs`]) are [`HostOptions`]; the player specs
//! they serve ([`parse_player`]). Reading the files, merging, defaults, ranges and
//! resolving are the library's.

use agent::ModelGame;
use std::path::{Path, PathBuf};

use anyhow::Result;
use clap::Args;

use super::limits;
use agent::{AgentConfig, AgentSettings, AgentSource};
use arena::{Connection, HostSettings, PlayerSpec};
use llm::{Api, HostOptions};
pub use settings::LabelsArg;

/// The agent flags of `llm:MODEL` players: the agent settings ([`AgentSettings`],
/// which declares each flag with its range, the same names as an agent file's keys),
/// with the agent file and the external engines' file. Flags override the
/// `--agent-file`; a setting given by neither is [`AgentConfig::default`]'s
/// ([`AgentArgs::config`]).
#[derive(Debug, Args, Default, Clone)]
pub struct AgentArgs {
    /// TOML file with agent settings (same names as these flags, options in [options]);
    /// prompts/NAME.toml is built in (`othello-arena prompts`) when no such file is here.
    #[arg(long)]
    pub agent_file: Option<PathBuf>,
    /// TOML file of external engines (its engine tables, see docs/engines.md): a
    /// player spec ext:NAME plays the one named NAME.
    #[arg(long)]
    pub engines: Option<PathBuf>,
    /// The agent settings these flags give (none of a file's).
    #[command(flatten)]
    pub settings: AgentSettings,
}

impl AgentArgs {
    /// The settings these flags give, as the library takes them: read, checked and
    /// resolved there ([`AgentSource::config`]).
    pub fn source(&self) -> AgentSource {
        AgentSource {
            file: self.agent_file.clone(),
            settings: self.settings.clone(),
            engines: self.engines.clone(),
        }
    }

    /// The agent settings for `model` playing game `R` ([`AgentSource::config`]);
    /// `prompts` is the folder prompt names resolve in.
    pub fn config<R: ModelGame>(&self, model: &str, prompts: &Path) -> Result<AgentConfig> {
        Ok(self.source().config::<R>(model, prompts)?)
    }
}

/// Where `llm:MODEL` players' requests go, as flags: [`HostOptions`] (a tournament
/// file's `[[llm]]` keys are these, with the same defaults). Not part of the run's
/// definition: `eval --resume` takes new ones.
#[derive(Debug, Args, Clone)]
pub struct HostArgs {
    /// Server API: ollama (/api/chat) or openai (/v1/chat/completions: llama-server, vLLM, LM Studio).
    #[arg(long)]
    pub api: Option<Api>,
    /// Server address: host[:port] or URL (default for ollama: $OLLAMA_HOST, else
    /// 127.0.0.1:11434; for openai: 127.0.0.1:8080). Several (repeated, or a comma
    /// list) make a fleet: each request goes to the least-loaded healthy host.
    #[arg(long, value_delimiter = ',')]
    pub host: Vec<String>,
    /// TOML fleet file: [[hosts]] tables with url, api (ollama|openai), max_in_flight,
    /// optional api_key_env, models and share_cores.
    #[arg(long, value_name = "FILE", conflicts_with = "host")]
    pub fleet: Option<PathBuf>,
    /// Requests at once on each --host of a fleet (a fleet file sets its own).
    #[arg(long, default_value_t = HostOptions::MAX_IN_FLIGHT, value_parser = limits::flag::parallel)]
    pub max_in_flight: usize,
    /// Environment variable holding the API key for --api openai (sent as a bearer
    /// token, never written to logs).
    #[arg(long, default_value = llm::DEFAULT_KEY_ENV)]
    pub api_key_env: String,
    /// Seconds to wait for one answer.
    #[arg(long, default_value_t = HostOptions::TIMEOUT_S, value_parser = limits::timeout)]
    pub timeout: f64,
    /// Extra attempts after a transient HTTP failure.
    #[arg(long, default_value_t = HostOptions::MAX_RETRIES, value_parser = limits::flag::retries)]
    pub max_retries: u32,
    /// The hosts are CPU servers sharing this machine's cores with the other hosts
    /// given the same NAME (in this process): they take turns, one request in flight
    /// between them (docs/leaderboard.md measures why).
    #[arg(long, value_name = "NAME", value_parser = group_name)]
    pub share_cores: Option<String>,
}

/// `--share-cores`: a group name ([`llm::check_group_name`]).
fn group_name(text: &str) -> Result<String, llm::GroupNameError> {
    llm::check_group_name(text).map(|()| text.to_string())
}

impl Default for HostArgs {
    /// What the flags hold when none is given: [`HostOptions::default`].
    fn default() -> HostArgs {
        HostOptions::default().into()
    }
}

impl From<HostOptions> for HostArgs {
    fn from(o: HostOptions) -> HostArgs {
        HostArgs {
            api: o.api,
            host: o.host,
            fleet: o.fleet,
            max_in_flight: o.max_in_flight,
            api_key_env: o.api_key_env,
            timeout: o.timeout,
            max_retries: o.max_retries,
            share_cores: o.share_cores,
        }
    }
}

impl HostArgs {
    /// The options these flags give.
    pub fn options(&self) -> HostOptions {
        HostOptions {
            api: self.api,
            host: self.host.clone(),
            fleet: self.fleet.clone(),
            max_in_flight: self.max_in_flight,
            api_key_env: self.api_key_env.clone(),
            timeout: self.timeout,
            max_retries: self.max_retries,
            share_cores: self.share_cores.clone(),
        }
    }

    /// Whether any flag of these was given (so a resume takes these hosts).
    pub fn given(&self) -> bool {
        self.options().given()
    }

    /// Connects to the server(s) these flags (or the agent file's `api`/`host`) point
    /// at ([`Connection::open`]).
    pub async fn connect(&self, agent: &AgentArgs, env: &dyn Fn(&str) -> Option<String>) -> Result<Connection> {
        Ok(Connection::open(&self.options(), &agent.source(), env).await?)
    }

    /// The hosts these flags (or the agent file's `api`/`host`) name, checked
    /// ([`HostSettings::resolve`]); `env` looks up `OLLAMA_HOST` and API key variables.
    pub fn settings(&self, agent: &AgentArgs, env: &dyn Fn(&str) -> Option<String>) -> Result<HostSettings> {
        Ok(HostSettings::resolve(&self.options(), &agent.source(), env)?)
    }
}

/// Parses a player spec ([`PlayerSpec::parse`]): `llm:MODEL` with `agent` settings on
/// `connection`, an external engine `ext:NAME` of `--engines`, or an engine spec.
pub fn parse_player<R: ModelGame>(
    text: &str,
    flag: &str,
    agent: &AgentArgs,
    connection: Option<&Connection>,
) -> Result<PlayerSpec<R>> {
    Ok(PlayerSpec::parse(text, flag, &agent.source(), connection)?)
}

#[cfg(test)]
#[path = "agent_args_tests.rs"]
mod tests;
