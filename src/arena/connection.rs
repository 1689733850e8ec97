//! The model servers `llm:MODEL` players talk to: the hosts as the command line (or a
//! fleet file) gave them, checked ([`HostSettings`]), and the connection made from
//! them ([`Connection`]: one backend, or a fleet). The binary reads the flags and the
//! environment (`OLLAMA_HOST`, API keys) into the settings; nothing here reads either.

use std::sync::Arc;
use std::time::Duration;

use agent::{AgentFileError, AgentSource};
use llm::{
    parse_fleet, without_credentials, ChatBackend, Fleet, FleetError, FleetFileError, HostConfig, HostOptions,
    HostsError, LlmError, RetryPolicy,
};
use record::lines::{read_user_file, UserFileError, SETTINGS_FILE_CAP};
use settings::limits::{timeout_seconds, PARALLEL, RETRIES};

/// Where `llm:MODEL` players' requests go, checked: every host with its API key, the
/// timeout and the retry policy (one client's, so the run's, not a host's).
#[derive(Clone, Debug)]
pub struct HostSettings {
    /// The hosts (base URLs in their API's form), each with its key (looked up by the
    /// caller).
    pub hosts: Vec<HostConfig>,
    /// Whether the hosts came from a fleet file (a fleet even with one host).
    pub fleet_file: bool,
    /// The variable an OpenAI-compatible single host's key came from (its errors name it).
    pub api_key_env: String,
    /// How long one answer may take.
    pub timeout: Duration,
    /// How transient failures are retried.
    pub retry: RetryPolicy,
}

/// Why the model servers could not be reached.
#[derive(Debug, thiserror::Error)]
pub enum ConnectError {
    /// The one host's client could not be made.
    #[error(transparent)]
    Backend(#[from] LlmError),
    /// The fleet could not be set up.
    #[error(transparent)]
    Fleet(#[from] FleetError),
}

/// Host settings that cannot be used (each message names the flag, or the file).
#[derive(Debug, thiserror::Error)]
pub enum HostSettingsError {
    /// A value out of its range (`--timeout`, `--max-retries`, `--max-in-flight`).
    #[error("bad --{}: {message}", .key.replace('_', "-"))]
    Range {
        /// The key, as a tournament's `[[llm]]` table names it (`max_retries`).
        key: &'static str,
        /// The value and the range.
        message: String,
    },
    /// The agent file (which may name the hosts).
    #[error(transparent)]
    AgentFile(#[from] AgentFileError),
    /// The fleet file cannot be read.
    #[error(transparent)]
    FleetRead(#[from] UserFileError),
    /// The fleet file's hosts.
    #[error(transparent)]
    Fleet(#[from] FleetFileError),
    /// A host, or its API key.
    #[error(transparent)]
    Hosts(#[from] HostsError),
}

/// Holds each host value to its range: the key that is out (as a tournament's
/// `[[llm]]` table names it; the flag is the key with `-`) and why.
pub(crate) fn check_ranges(options: &HostOptions) -> Result<(), (&'static str, String)> {
    timeout_seconds(options.timeout).map_err(|e| ("timeout", e))?;
    RETRIES
        .check(i64::from(options.max_retries))
        .map_err(|e| ("max_retries", e))?;
    PARALLEL
        .check(options.max_in_flight as i64)
        .map_err(|e| ("max_in_flight", e))?;
    Ok(())
}

impl HostSettings {
    /// The hosts `options` name (else `agent`'s agent file's `api` and `host`), checked:
    /// each value held to its flag's range, a fleet file read ([`parse_fleet`]), each
    /// host with its API key ([`HostOptions::hosts`]); `env` looks up `OLLAMA_HOST` and
    /// the key variables. One host is a plain backend (as before fleets); several, or
    /// a fleet file, a fleet.
    pub fn resolve(
        options: &HostOptions,
        agent: &AgentSource,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<HostSettings, HostSettingsError> {
        check_ranges(options).map_err(|(key, message)| HostSettingsError::Range { key, message })?;
        let file = agent.file()?;
        let fleet = match &options.fleet {
            Some(path) => {
                let text = read_user_file("--fleet", path, SETTINGS_FILE_CAP)?;
                let in_flight = |n: usize| PARALLEL.check(n as i64).map(drop);
                Some(parse_fleet(&text, path, &in_flight)?)
            }
            None => None,
        };
        Ok(HostSettings {
            hosts: options.hosts((file.api, file.host.as_deref()), fleet, env)?,
            fleet_file: options.fleet.is_some(),
            api_key_env: options.api_key_env.clone(),
            timeout: options.timeout(),
            retry: options.retry(),
        })
    }

    /// Connects: one host is a plain backend (as before fleets); several, or a fleet
    /// file, a [`Fleet`] whose hosts are asked for their models.
    pub async fn connect(&self) -> Result<Connection, ConnectError> {
        if !self.fleet_file && self.hosts.len() == 1 {
            let backend = self.hosts[0].backend(self.timeout, self.retry)?;
            return Ok(Connection { backend, fleet: None });
        }
        let fleet = Fleet::connect(self.hosts.clone(), self.timeout, self.retry).await?;
        let fleet = Arc::new(fleet);
        Ok(Connection {
            backend: fleet.clone(),
            fleet: Some(fleet),
        })
    }
}

/// Why the hosts given could not be set up or reached.
#[derive(Debug, thiserror::Error)]
pub enum ReachError {
    /// The host settings cannot be used.
    #[error(transparent)]
    Settings(#[from] HostSettingsError),
    /// The hosts could not be reached.
    #[error(transparent)]
    Connect(#[from] ConnectError),
}

/// The server (or fleet) that `llm:MODEL` players talk to.
#[derive(Clone)]
pub struct Connection {
    /// Where requests go.
    pub backend: Arc<dyn ChatBackend>,
    /// The fleet, when there are several hosts or a fleet file.
    pub fleet: Option<Arc<Fleet>>,
}

impl Connection {
    /// Connects to the hosts `options` name (else `agent`'s agent file's):
    /// [`HostSettings::resolve`], then [`HostSettings::connect`].
    pub async fn open(
        options: &HostOptions,
        agent: &AgentSource,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Connection, ReachError> {
        Ok(HostSettings::resolve(options, agent, env)?.connect().await?)
    }

    /// Fails, naming every host, when the fleet has no host serving `model` (a single
    /// host is not asked: its first request says so).
    pub fn check_model(&self, model: &str) -> Result<(), FleetError> {
        match &self.fleet {
            Some(fleet) => fleet.check_model(model),
            None => Ok(()),
        }
    }

    /// Games in flight by default: the fleet's total `max_in_flight`, else 1.
    pub fn default_parallel(&self) -> usize {
        self.fleet.as_ref().map_or(1, |f| f.capacity().max(1))
    }

    /// The fleet's hosts for run.json (URLs without credentials), or `null`.
    pub fn fleet_json(&self) -> serde_json::Value {
        match &self.fleet {
            Some(fleet) => serde_json::Value::Array(
                fleet
                    .hosts()
                    .iter()
                    .map(|h| {
                        serde_json::json!({
                            "url": without_credentials(&h.url),
                            "api": h.api.to_string(),
                            "max_in_flight": h.max_in_flight,
                            "models": h.models,
                        })
                    })
                    .collect(),
            ),
            None => serde_json::Value::Null,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use llm::Api;

    /// The agent file's `api` and `host` name the server when no host option does; a
    /// value out of its range is refused naming its flag.
    #[test]
    fn the_agent_files_host_is_used_and_ranges_name_the_flag() {
        let file = std::env::temp_dir().join(format!("othello-arena-hosts-{}.toml", std::process::id()));
        std::fs::write(&file, "host = \"10.0.0.5:8000\"\napi = \"openai\"\n").unwrap();
        let agent = AgentSource {
            file: Some(file.clone()),
            ..AgentSource::default()
        };
        let hosts = HostSettings::resolve(&HostOptions::default(), &agent, &|_| None);
        std::fs::remove_file(&file).unwrap();
        let hosts = hosts.unwrap().hosts;
        assert_eq!(
            (hosts[0].url.as_str(), hosts[0].api),
            ("http://10.0.0.5:8000", Api::Openai)
        );
        let options = HostOptions {
            max_retries: 101,
            ..HostOptions::default()
        };
        let refused = HostSettings::resolve(&options, &AgentSource::default(), &|_| None).unwrap_err();
        assert!(
            refused
                .to_string()
                .starts_with("bad --max-retries: 101 is out of range"),
            "{refused}"
        );
    }
}
