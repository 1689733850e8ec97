//! The players `serve` offers as opponents: a spec string (`llm:MODEL`, `ext:NAME`, or
//! an engine spec) becomes a player, its `llm:` players on the model servers of
//! [`HostSettings`], connected on first use and then shared, its external engines
//! those it was given.

use std::sync::Arc;

use agent::AgentConfig;
use engines::EngineSpec;
use llm::FleetError;
use tokio::sync::OnceCell;

use super::connection::{ConnectError, Connection, HostSettings};
use super::external_engine::ExternalEngine;
use super::player_spec::{llm_model, LlmPlayer, PlayerSpec};

/// Opponents from spec strings: engines, and `llm:MODEL` players with one set of
/// agent settings on one set of hosts.
pub struct Players {
    /// The agent settings every `llm:` player gets (its model aside).
    agent: AgentConfig,
    hosts: HostSettings,
    connection: OnceCell<Connection>,
    /// The external engines `ext:NAME` names.
    engines: Vec<ExternalEngine>,
}

/// Why a spec string names no opponent.
#[derive(Debug, thiserror::Error)]
pub enum OpponentError {
    /// Not an engine spec (nor `llm:MODEL`).
    #[error("bad opponent: {reason}, llm:MODEL")]
    Spec {
        /// Why the engine spec was refused.
        reason: String,
    },
    /// `ext:NAME` of no external engine given.
    #[error("bad opponent {spec:?}: no external engine of that name (there are: {known}); list it in --engines")]
    NoEngine {
        /// The spec given.
        spec: String,
        /// The names there are.
        known: String,
    },
    /// `llm:` without a model.
    #[error("bad opponent {spec:?}: name the model, as in llm:qwen2.5-coder:0.5b")]
    NoModel {
        /// The spec given.
        spec: String,
    },
    /// The model servers could not be reached.
    #[error(transparent)]
    Connect(#[from] ConnectError),
    /// No host of the fleet serves the model.
    #[error(transparent)]
    Model(#[from] FleetError),
    /// The hosts could not list their models.
    #[error("cannot list the model server's models: {0}")]
    Models(String),
}

impl Players {
    /// `llm:` players with `agent`'s settings (its model is replaced by each spec's),
    /// on `hosts`; nothing is connected yet.
    pub fn new(agent: AgentConfig, hosts: HostSettings) -> Players {
        Players {
            agent,
            hosts,
            connection: OnceCell::new(),
            engines: Vec::new(),
        }
    }

    /// These players, with `engines` as the external engines `ext:NAME` names.
    pub fn with_engines(self, engines: Vec<ExternalEngine>) -> Players {
        Players { engines, ..self }
    }

    /// The player `spec` names: `llm:MODEL` on the hosts (connected the first time one
    /// is asked for), or an engine.
    pub async fn player(&self, spec: &str) -> Result<PlayerSpec, OpponentError> {
        if let Some(name) = spec.trim().strip_prefix("ext:") {
            let name = name.split('@').next().unwrap_or_default().trim();
            let engine = self.engines.iter().find(|e| e.table().name == name);
            return engine
                .cloned()
                .map(PlayerSpec::External)
                .ok_or_else(|| OpponentError::NoEngine {
                    spec: spec.to_string(),
                    known: self
                        .engines
                        .iter()
                        .map(ExternalEngine::name)
                        .collect::<Vec<_>>()
                        .join(", "),
                });
        }
        let Some(model) = llm_model(spec) else {
            let engine: EngineSpec = spec
                .parse()
                .map_err(|e| OpponentError::Spec { reason: format!("{e}") })?;
            return Ok(PlayerSpec::Engine(engine));
        };
        if model.is_empty() {
            return Err(OpponentError::NoModel { spec: spec.to_string() });
        }
        let mut config = self.agent.clone();
        config.model = model.to_string();
        let connection = self.connection.get_or_try_init(|| self.hosts.connect()).await?;
        Ok(PlayerSpec::Llm(LlmPlayer::on(config, connection)?))
    }
}

impl Players {
    /// The models the hosts serve (connected the first time anything is asked), for a
    /// page to offer.
    pub async fn models(&self) -> Result<Vec<String>, OpponentError> {
        let connection = self.connection.get_or_try_init(|| self.hosts.connect()).await?;
        connection
            .backend
            .models()
            .await
            .map_err(|err| OpponentError::Models(err.to_string()))
    }
}

impl LlmPlayer {
    /// The agent of `config` on `connection`; fails when a fleet has no host serving
    /// its model.
    pub fn on(config: AgentConfig, connection: &Connection) -> Result<LlmPlayer, FleetError> {
        connection.check_model(&config.model)?;
        Ok(LlmPlayer {
            config: Arc::new(config),
            backend: connection.backend.clone(),
            capacity: connection.default_parallel(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use llm::{Api, HostConfig, RetryPolicy};

    fn players() -> Players {
        let hosts = HostSettings {
            hosts: vec![HostConfig::new("http://127.0.0.1:9".to_string(), Api::Ollama)],
            fleet_file: false,
            api_key_env: llm::DEFAULT_KEY_ENV.to_string(),
            timeout: std::time::Duration::from_secs(1),
            retry: RetryPolicy::default(),
        };
        let mut agent = AgentConfig::new("");
        agent.max_turns = 4;
        Players::new(agent, hosts)
    }

    #[tokio::test]
    async fn a_spec_names_an_engine_or_a_model_with_the_shared_settings() {
        let players = players();
        assert_eq!(players.player(" greedy ").await.unwrap().to_string(), "greedy");
        let llm = players.player("llm: qwen3:8b").await.unwrap();
        let config = llm.agent_config().unwrap();
        assert_eq!((config.model.as_str(), config.max_turns), ("qwen3:8b", 4));
        let no_model = players.player("llm:").await.unwrap_err().to_string();
        assert_eq!(
            no_model,
            "bad opponent \"llm:\": name the model, as in llm:qwen2.5-coder:0.5b"
        );
        let no_engine = players.player("ext:edax").await.unwrap_err().to_string();
        assert_eq!(
            no_engine,
            "bad opponent \"ext:edax\": no external engine of that name (there are: ); list it in --engines"
        );
        let table = runs::EngineTable {
            name: "edax".to_string(),
            protocol: "nboard".to_string(),
            command: "edax".to_string(),
            args: Vec::new(),
            dir: None,
            depth: Some(2),
            time_per_move: None,
            max_in_flight: None,
            timeout: None,
        };
        let with_edax = self::players().with_engines(vec![ExternalEngine::new(table).unwrap()]);
        for spec in ["ext:edax", "ext:edax@d2"] {
            let engine = with_edax.player(spec).await.unwrap();
            assert_eq!(
                (engine.to_string(), engine.kind()),
                ("ext:edax@d2".to_string(), record::PlayerKind::Engine)
            );
        }
        let bad = players.player("grredy").await.unwrap_err().to_string();
        assert!(
            bad.starts_with("bad opponent: ") && bad.ends_with(", llm:MODEL"),
            "{bad}"
        );
    }
}
