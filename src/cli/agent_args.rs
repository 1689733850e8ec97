//! `llm:MODEL` players' flags, read into the library's settings: the agent flags
//! ([`AgentArgs`]) are [`AgentSettings`] (declared there with their ranges, the same
//! for a flag and a file's key) beside the agent file; the host flags ([`HostArgs`])
//! are [`HostOptions`]; the player specs they serve ([`parse_player`]). The merging,
//! defaults, ranges and resolving are the library's.

use agent::ModelGame;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use clap::Args;
use serde::Deserialize;

use super::external;
use super::inputs::{read_or_built_in, read_user_file, SETTINGS_CAP};
use super::limits;
use agent::{prompts_dir, AgentConfig, AgentFile, AgentSettings, ShippedKind};
use arena::{Connection, HostSettings, PlayerSpec, SpecLookups};
use llm::{Api, HostConfig, HostOptions};
pub use settings::LabelsArg;
use settings::RangeError;

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
    /// These flags over `base`: each one given here, else `base`'s.
    pub fn over(&self, base: &AgentArgs) -> AgentArgs {
        AgentArgs {
            agent_file: self.agent_file.clone().or_else(|| base.agent_file.clone()),
            engines: self.engines.clone().or_else(|| base.engines.clone()),
            settings: self.settings.over(&base.settings),
        }
    }

    /// The agent settings for `model` playing game `R`: the flags over the agent file
    /// ([`AgentSettings::config`]); `prompts` is the folder prompt names resolve in.
    pub fn config<R: ModelGame>(&self, model: &str, prompts: &Path) -> Result<AgentConfig> {
        let file = self.file()?;
        Ok(self.settings.over(&file.agent).config::<R>(model, prompts)?)
    }

    /// The `--agent-file`, read and its values checked (none: an empty one).
    fn file(&self) -> Result<AgentFile> {
        let Some(path) = &self.agent_file else {
            return Ok(AgentFile::default());
        };
        let built_in = path
            .to_str()
            .and_then(agent::shipped)
            .filter(|f| f.kind == ShippedKind::AgentFile);
        let text = read_or_built_in("--agent-file", path, built_in.map(|f| f.text), SETTINGS_CAP)?;
        let file: AgentFile = toml::from_str(&text).with_context(|| {
            format!(
                "bad --agent-file {}: fix the TOML (keys are the flag names, options under [options])",
                path.display()
            )
        })?;
        file.agent.check().map_err(|e| match e {
            RangeError::Setting { key, message } => anyhow::anyhow!("bad {key} in --agent-file: {message}"),
            RangeError::Option { key, message } => {
                anyhow::anyhow!("bad [options] in --agent-file: {key}: {message}")
            }
        })?;
        Ok(file)
    }
}

/// Where `llm:MODEL` players' requests go, as flags: [`HostOptions`] (a tournament
/// file's `[[llm]]` keys read as these, with the same defaults). Not part of the run's
/// definition: `eval --resume` takes new ones.
#[derive(Debug, Args, Clone, Deserialize)]
#[serde(from = "HostOptions")]
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
    /// at: [`HostArgs::settings`], then [`HostSettings::connect`].
    pub async fn connect(&self, agent: &AgentArgs, env: &dyn Fn(&str) -> Option<String>) -> Result<Connection> {
        let settings = self.settings(agent, env)?;
        Ok(settings.connect().await?)
    }

    /// The hosts these flags (or the agent file's `api`/`host`) name, checked, each
    /// with its API key ([`HostOptions::hosts`]); `env` looks up `OLLAMA_HOST` and API
    /// key variables. One host is a plain backend (as before fleets); several, or a
    /// fleet file, a fleet.
    pub fn settings(&self, agent: &AgentArgs, env: &dyn Fn(&str) -> Option<String>) -> Result<HostSettings> {
        limits::timeout_seconds(self.timeout).map_err(|e| anyhow::anyhow!("bad --timeout: {e}"))?;
        limits::RETRIES
            .check(i64::from(self.max_retries))
            .map_err(|e| anyhow::anyhow!("bad --max-retries: {e}"))?;
        limits::PARALLEL
            .check(self.max_in_flight as i64)
            .map_err(|e| anyhow::anyhow!("bad --max-in-flight: {e}"))?;
        let file = agent.file()?;
        let fleet = self.fleet.as_deref().map(read_fleet_file).transpose()?;
        let options = self.options();
        Ok(HostSettings {
            hosts: options.hosts((file.api, file.host.as_deref()), fleet, env)?,
            fleet_file: self.fleet.is_some(),
            api_key_env: self.api_key_env.clone(),
            timeout: options.timeout(),
            retry: options.retry(),
        })
    }
}

/// Reads and checks a `--fleet` file ([`llm::parse_fleet`]).
fn read_fleet_file(path: &Path) -> Result<Vec<HostConfig>> {
    let text = read_user_file("--fleet", path, SETTINGS_CAP)?;
    let in_flight = |n: usize| limits::PARALLEL.check(n as i64).map(drop);
    Ok(llm::parse_fleet(&text, path, &in_flight)?)
}

/// Parses a player spec ([`PlayerSpec::parse`]): `llm:MODEL` with `agent` settings on
/// `connection`, an external engine `ext:NAME` of `--engines`, or an engine spec.
pub fn parse_player<R: ModelGame>(
    text: &str,
    flag: &str,
    agent: &AgentArgs,
    connection: Option<&Connection>,
) -> Result<PlayerSpec<R>> {
    let lookups = SpecLookups {
        agent: &|model| Ok(agent.config::<R>(model, &prompts_dir())?),
        external: &|text| Ok(external::resolve::<R>(text, flag, agent.engines.as_deref())?),
        connection,
    };
    Ok(PlayerSpec::parse(text, flag, &lookups)?)
}

#[cfg(test)]
#[path = "agent_args_tests.rs"]
mod tests;
