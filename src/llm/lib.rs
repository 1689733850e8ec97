//! Chat backends: typed messages, the Ollama `/api/chat` and OpenAI-compatible
//! `/v1/chat/completions` clients, retry policy, the fleet of hosts, and where requests
//! go as a user gives it (host options, fleet files).
//!
//! Every backend sits behind [`ChatBackend`], so the agent's loop, policy, logs and
//! statistics do not depend on the server's API or on how many servers there are.
//! The clients are async (reqwest on the process's tokio runtime).
//!
//! The workspace's crate map is in the `game` crate's documentation.

#![deny(missing_docs)]

mod api;
mod error;
mod fleet;
mod host;
mod hosts;
mod http;
mod modelfile;
mod ollama;
mod openai;
mod retry;
mod turns;
mod types;

pub use api::Api;
pub use error::LlmError;
pub use fleet::{ApiKey, Fleet, FleetError, HostConfig, DEFAULT_KEY_ENV, DEFAULT_MAX_IN_FLIGHT, FAILURES_TO_TAKE_OUT};
pub use host::{
    arguments_without_credentials, ollama_base_url, without_credentials, ParseHostError, DEFAULT_OLLAMA_HOST,
};
pub use hosts::{host_url, parse_fleet, BadHostError, FleetFileError, HostOptions, HostsError};
pub use http::{error_chain, install_tls_provider};
pub use modelfile::{check_model_name, Block, Modelfile, ModelfileError};
pub use ollama::OllamaBackend;
pub use openai::OpenAiBackend;
pub use retry::{RetryPolicy, DEFAULT_MAX_RETRIES};
pub use turns::{check_group_name, GroupNameError};
pub use types::{
    AttemptFailure, ChatOptions, ChatReply, ChatRequest, Exchange, FunctionCall, FunctionSpec, Message,
    ParseThinkError, Role, Think, ThinkingTokens, ToolCall, ToolSpec,
};

/// A chat server (or a fleet of them): sends one request, returns the exchange with
/// its raw bodies.
#[async_trait::async_trait]
pub trait ChatBackend: Send + Sync {
    /// Sends `request`; transient failures are retried inside.
    async fn chat(&self, request: &ChatRequest) -> Result<Exchange, LlmError>;

    /// What and where the backend is, for the run configuration.
    fn describe(&self) -> String;

    /// What the server knows of `model` (digest, details), when it can say.
    async fn model_info(&self, _model: &str) -> Option<serde_json::Value> {
        None
    }

    /// The names of the models served (`/api/tags`, `/v1/models`; a fleet's hosts
    /// together), sorted, each once.
    async fn models(&self) -> Result<Vec<String>, LlmError>;
}

/// One server speaking one API: a single attempt at a chat, and the models it serves.
/// The backends retry attempts on one host; a [`Fleet`] retries them across hosts.
#[async_trait::async_trait]
pub(crate) trait Endpoint: Send + Sync {
    /// The server's base URL without credentials: how logs and tables name it.
    fn host(&self) -> &str;

    /// The API's name in descriptions (`ollama`, `openai`).
    fn api(&self) -> &'static str;

    /// How attempts on this server are retried.
    fn retry(&self) -> &RetryPolicy;

    /// One request, no retry.
    async fn attempt(&self, request: &ChatRequest) -> Result<Exchange, LlmError>;

    /// The names of the models the server has (`/api/tags`, `/v1/models`).
    async fn models(&self) -> Result<Vec<String>, LlmError>;

    /// What the server knows of `model`, when it can say.
    async fn model_info(&self, _model: &str) -> Option<serde_json::Value> {
        None
    }
}

/// A single server is a backend: its attempts retried on it under its policy.
#[async_trait::async_trait]
impl<E: Endpoint> ChatBackend for E {
    async fn chat(&self, request: &ChatRequest) -> Result<Exchange, LlmError> {
        chat_on_one_host(self, self.retry(), request).await
    }

    fn describe(&self) -> String {
        format!("{} {}", self.api(), self.host())
    }

    async fn model_info(&self, model: &str) -> Option<serde_json::Value> {
        Endpoint::model_info(self, model).await
    }

    async fn models(&self) -> Result<Vec<String>, LlmError> {
        Ok(sorted_names(Endpoint::models(self).await?))
    }
}

/// Model names sorted, each once (a server may list a model under two keys).
pub(crate) fn sorted_names(mut names: Vec<String>) -> Vec<String> {
    names.sort();
    names.dedup();
    names
}

/// Sends `request` to one endpoint, retrying transient failures under `retry`; the
/// failed attempts are kept in the exchange.
pub(crate) async fn chat_on_one_host(
    endpoint: &dyn Endpoint,
    retry: &RetryPolicy,
    request: &ChatRequest,
) -> Result<Exchange, LlmError> {
    let mut failures = Vec::new();
    let mut retries = retry.start();
    loop {
        let span = tracing::debug_span!("request", host = endpoint.host(), attempt = retries.used() + 1);
        match tracing::Instrument::instrument(endpoint.attempt(request), span).await {
            Ok(mut exchange) => {
                exchange.retries = retries.used();
                exchange.failures = failures;
                return Ok(exchange);
            }
            Err(err) => {
                failures.push(AttemptFailure {
                    host: endpoint.host().to_string(),
                    error: err.to_string(),
                });
                retries.after_failure(err).await?;
            }
        }
    }
}

/// A model name with its tag: Ollama's `name` means `name:latest`.
pub(crate) fn tagged(name: &str) -> String {
    if name.contains(':') {
        name.to_string()
    } else {
        format!("{name}:latest")
    }
}

/// Whether a server's model list holds `model` (`name` and `name:latest` are one).
pub(crate) fn serves(models: &[String], model: &str) -> bool {
    models.iter().any(|m| m == model || tagged(m) == tagged(model))
}
