//! The model servers `llm:MODEL` players talk to: the hosts as the command line (or a
//! fleet file) gave them, checked ([`HostSettings`]), and the connection made from
//! them ([`Connection`]: one backend, or a fleet). The binary reads the flags and the
//! environment (`OLLAMA_HOST`, API keys) into the settings; nothing here reads either.

use std::sync::Arc;
use std::time::Duration;

use llm::{without_credentials, ChatBackend, Fleet, FleetError, HostConfig, LlmError, RetryPolicy};

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

impl HostSettings {
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

/// The server (or fleet) that `llm:MODEL` players talk to.
#[derive(Clone)]
pub struct Connection {
    /// Where requests go.
    pub backend: Arc<dyn ChatBackend>,
    /// The fleet, when there are several hosts or a fleet file.
    pub fleet: Option<Arc<Fleet>>,
}

impl Connection {
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
