//! A fleet of model servers behind one [`ChatBackend`].
//!
//! Each host has its own limit of requests in flight and its own health. A request
//! goes to the host that answered the conversation's previous request while that host
//! has room (its prompt cache is warm there), else to the least-loaded healthy host
//! that serves the model; when every such host is full it waits for a free slot. A
//! host that refuses connections, drops them, times out or answers 5xx
//! [`FAILURES_TO_TAKE_OUT`] times in a row is taken out for [`FIRST_DOWN`], then probed
//! (its model list asked for) before it is used again; each time it is taken out or a
//! probe fails the pause doubles, up to [`MAX_DOWN`], until it answers a chat again. A failed attempt is
//! retried under the fleet's [`RetryPolicy`] on another host when there is one (never
//! on the host that just failed while another can serve); every failed attempt before
//! an answer is kept in the exchange, so a move is never asked twice without a record
//! of it. A host that answers 404 for the model loses it from its list, and the request
//! goes to another host that lists it.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use tokio::sync::Notify;
use tracing::Instrument;

use super::api::Api;
use super::error::LlmError;
use super::host::without_credentials;
use super::ollama::OllamaBackend;
use super::openai::OpenAiBackend;
use super::retry::RetryPolicy;
use super::turns::TakingTurns;
use super::types::{AttemptFailure, ChatRequest, Exchange};
use super::{serves, sorted_names, ChatBackend, Endpoint};

/// Failures in a row (refused or dropped connections, 5xx) that take a host out.
pub const FAILURES_TO_TAKE_OUT: u32 = 3;
/// The first pause before a host that was taken out is probed.
pub(crate) const FIRST_DOWN: Duration = Duration::from_secs(1);
/// The longest pause between two probes of a host that stays down.
pub(crate) const MAX_DOWN: Duration = Duration::from_secs(30);

/// The host named in an [`AttemptFailure`] when no host could be tried.
pub const NO_HOST: &str = "none";

/// One model server: a `[[hosts]]` table of a fleet file, or a `--host` with the host
/// flags (`--api`, `--max-in-flight`, `--api-key-env`), and the API key read for it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HostConfig {
    /// The server's base URL.
    pub url: String,
    /// Its API.
    #[serde(default)]
    pub api: Api,
    /// Requests at once on this host (at least 1).
    #[serde(default = "default_max_in_flight")]
    pub max_in_flight: usize,
    /// The environment variable holding its API key (OpenAI-compatible servers).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_key_env: Option<String>,
    /// The models it serves; asked of the server when not given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub models: Option<Vec<String>>,
    /// The group of hosts sharing one machine's cores (CPU servers) it belongs to: the
    /// hosts of a group take turns, one request in flight between them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub share_cores: Option<String>,
    /// The API key, once read from `api_key_env` ([`HostConfig::api_key`]); never
    /// written to a file or printed.
    #[serde(skip)]
    pub key: Option<ApiKey>,
}

impl HostConfig {
    /// The client of this host: its API's, with its key, taking turns with the other
    /// hosts of its `share_cores` group; attempts retried under `retry`.
    pub(crate) fn endpoint(&self, timeout: Duration, retry: RetryPolicy) -> Result<TakingTurns, LlmError> {
        let endpoint: Arc<dyn Endpoint> = match self.api {
            Api::Ollama => Arc::new(OllamaBackend::new(&self.url, timeout, retry)?),
            Api::Openai => {
                let key = self.key.as_ref().map(|key| key.expose().to_string());
                let mut backend = OpenAiBackend::new(&self.url, key, timeout, retry)?;
                if let Some(var) = &self.api_key_env {
                    backend = backend.with_key_env(var);
                }
                Arc::new(backend)
            }
        };
        Ok(TakingTurns::new(endpoint, self.share_cores.as_deref()))
    }

    /// The backend of this host alone (no fleet): its attempts retried on it under
    /// `retry`.
    pub fn backend(&self, timeout: Duration, retry: RetryPolicy) -> Result<Arc<dyn ChatBackend>, LlmError> {
        Ok(Arc::new(self.endpoint(timeout, retry)?))
    }
}

/// Requests at once on a host that does not say (`max_in_flight`, `--max-in-flight`).
pub const DEFAULT_MAX_IN_FLIGHT: usize = 1;

fn default_max_in_flight() -> usize {
    DEFAULT_MAX_IN_FLIGHT
}

/// An API key: sent as a bearer token, never shown (`Debug` writes `<redacted>`).
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    /// The key, to send.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("<redacted>")
    }
}

/// The variable an OpenAI-compatible host's key is read from when none is named.
pub const DEFAULT_KEY_ENV: &str = "OPENAI_API_KEY";

impl HostConfig {
    /// The server at `url` (a base URL in its API's form) with the defaults of a
    /// `[[hosts]]` table: [`DEFAULT_MAX_IN_FLIGHT`], no key, its models asked for.
    pub fn new(url: String, api: Api) -> HostConfig {
        HostConfig {
            url,
            api,
            max_in_flight: DEFAULT_MAX_IN_FLIGHT,
            api_key_env: None,
            models: None,
            share_cores: None,
            key: None,
        }
    }

    /// The API key of an OpenAI-compatible host, from the variable its `api_key_env`
    /// names (`lookup` reads the environment; unset and empty are alike). A variable
    /// that was named on purpose (`required`: a fleet file's `api_key_env`, or an
    /// `--api-key-env` other than [`DEFAULT_KEY_ENV`]) must hold a key: a run does not
    /// start without it. Ollama hosts take no key.
    pub fn api_key(
        &self,
        lookup: &dyn Fn(&str) -> Option<String>,
        required: bool,
    ) -> Result<Option<ApiKey>, FleetError> {
        let Some(var) = self.api_key_env.as_deref().filter(|_| self.api == Api::Openai) else {
            return Ok(None);
        };
        match lookup(var).filter(|key| !key.trim().is_empty()) {
            Some(key) => Ok(Some(ApiKey(key))),
            None if required => Err(FleetError::MissingKey {
                url: without_credentials(&self.url),
                var: var.to_string(),
            }),
            None => Ok(None),
        }
    }
}

/// A fleet that cannot serve a run.
#[derive(Debug, thiserror::Error)]
pub enum FleetError {
    /// No host serves the model.
    #[error("no host of the fleet serves model {model:?}: {}; pull the model on a host, list it under `models`, or fix --host/--fleet", hosts.join("; "))]
    ModelNowhere {
        /// The model.
        model: String,
        /// Each host with what it said.
        hosts: Vec<String>,
    },
    /// The variable named to hold a host's API key is unset or empty.
    #[error(
        "no API key for {url}: the variable {var} is unset or empty; export {var}=<key>, or name the variable \
         that holds the key (--api-key-env, or api_key_env in a fleet file)"
    )]
    MissingKey {
        /// The host.
        url: String,
        /// The variable.
        var: String,
    },
    /// Two entries name one server: its requests would not be bounded by one
    /// `max_in_flight`.
    #[error(
        "the host {url} is listed twice: list each server once (its max_in_flight, or --max-in-flight, bounds the requests it holds at once)"
    )]
    Duplicate {
        /// The host, as the second entry names it (without credentials).
        url: String,
    },
    /// A host could not be set up.
    #[error("bad fleet host {url}")]
    Host {
        /// The host.
        url: String,
        /// Why.
        #[source]
        source: LlmError,
    },
}

/// Fails on the first host whose URL names a server listed before it (compared without
/// credentials, case or a trailing slash).
fn refuse_duplicates(hosts: &[HostConfig]) -> Result<(), FleetError> {
    let mut seen = std::collections::HashSet::new();
    for host in hosts {
        let url = without_credentials(host.url.trim().trim_end_matches('/'));
        if !seen.insert(url.to_ascii_lowercase()) {
            return Err(FleetError::Duplicate { url });
        }
    }
    Ok(())
}

/// A host's live state.
#[derive(Debug)]
struct HostState {
    in_flight: usize,
    failures_in_a_row: u32,
    down_until: Option<Instant>,
    down_for: Duration,
    probing: bool,
    models: Option<Vec<String>>,
    why_down: Option<String>,
}

/// Several model servers behind one backend.
pub struct Fleet {
    hosts: Vec<HostConfig>,
    endpoints: Vec<Arc<dyn Endpoint>>,
    state: Arc<Mutex<Vec<HostState>>>,
    freed: Arc<Notify>,
    retry: RetryPolicy,
}

/// A request slot taken on a host; given back when dropped.
struct Slot<'a> {
    fleet: &'a Fleet,
    host: usize,
}

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        self.fleet.lock()[self.host].in_flight -= 1;
        self.fleet.freed.notify_waiters();
    }
}

impl Fleet {
    /// A fleet of `hosts` (each with its API key, looked up by the caller); hosts
    /// without a `models` list are asked for theirs, and a host that does not answer
    /// starts out taken out (probed later).
    pub async fn connect(
        mut hosts: Vec<HostConfig>,
        timeout: Duration,
        retry: RetryPolicy,
    ) -> Result<Fleet, FleetError> {
        for host in &mut hosts {
            host.max_in_flight = host.max_in_flight.max(1);
        }
        refuse_duplicates(&hosts)?;
        let mut endpoints: Vec<Arc<dyn Endpoint>> = Vec::new();
        for host in &hosts {
            // Single attempts: the fleet retries, across hosts.
            let no_retry = RetryPolicy {
                max_retries: 0,
                ..retry
            };
            endpoints.push(Arc::new(host.endpoint(timeout, no_retry).map_err(|source| {
                FleetError::Host {
                    url: host.url.clone(),
                    source,
                }
            })?));
        }
        let listed = futures_util::future::join_all(hosts.iter().zip(&endpoints).map(|(host, endpoint)| async move {
            match &host.models {
                Some(models) => Ok(models.clone()),
                None => endpoint.models().await,
            }
        }))
        .await;
        let state = listed
            .into_iter()
            .zip(&hosts)
            .map(|(models, host)| {
                let mut state = HostState {
                    in_flight: 0,
                    failures_in_a_row: 0,
                    down_until: None,
                    down_for: FIRST_DOWN,
                    probing: false,
                    models: None,
                    why_down: None,
                };
                match models {
                    Ok(models) => state.models = Some(models),
                    Err(err) => {
                        tracing::warn!(host = %without_credentials(&host.url), error = %err, "fleet host does not answer; taken out until a probe succeeds");
                        state.down_until = Some(Instant::now() + FIRST_DOWN);
                        state.why_down = Some(err.to_string());
                    }
                }
                state
            })
            .collect();
        Ok(Fleet {
            hosts,
            endpoints,
            state: Arc::new(Mutex::new(state)),
            freed: Arc::new(Notify::new()),
            retry,
        })
    }

    /// The hosts as configured.
    pub fn hosts(&self) -> &[HostConfig] {
        &self.hosts
    }

    /// Requests the whole fleet takes at once.
    pub fn capacity(&self) -> usize {
        self.hosts.iter().map(|h| h.max_in_flight).sum()
    }

    /// Fails, naming every host and what it said, when no host serves `model`.
    pub fn check_model(&self, model: &str) -> Result<(), FleetError> {
        let state = self.lock();
        if state
            .iter()
            .any(|s| s.models.as_deref().is_some_and(|m| serves(m, model)))
        {
            return Ok(());
        }
        let hosts = self
            .hosts
            .iter()
            .zip(state.iter())
            .map(|(host, s)| match (&s.models, &s.why_down) {
                (Some(models), _) => format!("{} has {}", host.url, list_or_none(models)),
                (None, Some(why)) => format!("{} does not answer ({why})", host.url),
                (None, None) => format!("{} does not answer", host.url),
            })
            .collect();
        Err(FleetError::ModelNowhere {
            model: model.to_string(),
            hosts,
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<HostState>> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Takes a slot on the best host for `model`: the `affinity` host while it has
    /// room, else the least-loaded healthy one, avoiding `avoid` (the host that just
    /// failed) when another can serve. Waits while every such host is full; fails at
    /// once (transiently) when every host that serves the model is down.
    async fn acquire(&self, model: &str, affinity: Option<&str>, avoid: Option<usize>) -> Result<Slot<'_>, LlmError> {
        loop {
            let freed = self.freed.notified();
            tokio::pin!(freed);
            freed.as_mut().enable();
            let next_probe = {
                let mut state = self.lock();
                let now = Instant::now();
                let serving: Vec<usize> = (0..state.len())
                    .filter(|&i| state[i].models.as_deref().is_some_and(|m| serves(m, model)))
                    .collect();
                self.start_due_probes(&mut state, now);
                let up = |i: &usize| state[*i].down_until.is_none();
                let room = |i: &usize| state[*i].in_flight < self.hosts[*i].max_in_flight;
                let open: Vec<usize> = serving.iter().copied().filter(|i| up(i) && room(i)).collect();
                let preferred = affinity.and_then(|host| {
                    open.iter()
                        .copied()
                        .find(|&i| Some(i) != avoid && self.endpoints[i].host() == host)
                });
                let chosen = preferred.or_else(|| {
                    let others: Vec<usize> = open.iter().copied().filter(|&i| Some(i) != avoid).collect();
                    let pool = if others.is_empty() { &open } else { &others };
                    pool.iter().copied().min_by(|&a, &b| {
                        let load = |i: usize| state[i].in_flight as f64 / self.hosts[i].max_in_flight.max(1) as f64;
                        load(a)
                            .total_cmp(&load(b))
                            .then(state[a].in_flight.cmp(&state[b].in_flight))
                    })
                });
                if let Some(host) = chosen {
                    state[host].in_flight += 1;
                    return Ok(Slot { fleet: self, host });
                }
                if !serving.iter().any(up) {
                    let why = serving
                        .iter()
                        .map(|&i| {
                            format!(
                                "{} ({})",
                                self.hosts[i].url,
                                state[i].why_down.as_deref().unwrap_or("down")
                            )
                        })
                        .collect::<Vec<_>>();
                    return Err(LlmError::NoHost {
                        model: model.to_string(),
                        why: if why.is_empty() {
                            "no host has the model".to_string()
                        } else {
                            format!("every host that serves it is down: {}", why.join(", "))
                        },
                    });
                }
                // Wake for the next probe to start; a probe under way wakes us itself.
                state.iter().filter(|s| !s.probing).filter_map(|s| s.down_until).min()
            };
            match next_probe {
                Some(at) => {
                    tokio::select! {
                        () = &mut freed => {}
                        () = tokio::time::sleep_until(at.into()) => {}
                    }
                }
                None => freed.await,
            }
        }
    }

    /// Starts a probe of every host whose time out is over.
    fn start_due_probes(&self, state: &mut [HostState], now: Instant) {
        for (i, host) in state.iter_mut().enumerate() {
            if host.probing || host.down_until.is_none_or(|at| at > now) {
                continue;
            }
            host.probing = true;
            let (endpoint, shared, freed) = (self.endpoints[i].clone(), self.state.clone(), self.freed.clone());
            let listed = self.hosts[i].models.clone();
            tokio::spawn(async move {
                let answer = endpoint.models().await;
                let mut state = shared.lock().unwrap_or_else(|p| p.into_inner());
                let host = &mut state[i];
                host.probing = false;
                match answer {
                    Ok(models) => {
                        tracing::info!(host = endpoint.host(), "fleet host is back");
                        host.models = Some(listed.unwrap_or(models));
                        host.down_until = None;
                        // Its pause resets only when it answers a chat: a host that
                        // lists its models but hangs on chats is out longer each time.
                        host.failures_in_a_row = 0;
                        host.why_down = None;
                    }
                    Err(err) => {
                        host.down_until = Some(Instant::now() + host.down_for);
                        host.down_for = (host.down_for * 2).min(MAX_DOWN);
                        host.why_down = Some(err.to_string());
                    }
                }
                drop(state);
                freed.notify_waiters();
            });
        }
    }

    /// Counts an attempt's outcome towards its host's health.
    fn record(&self, host: usize, result: &Result<Exchange, LlmError>) {
        let mut state = self.lock();
        let host_state = &mut state[host];
        match result {
            Err(LlmError::ModelNotFound { model, .. }) => {
                // The host does not have the model after all: it serves the others still.
                if let Some(models) = host_state.models.as_mut() {
                    models.retain(|m| !serves(std::slice::from_ref(m), model));
                }
            }
            Err(err) if takes_host_out(err) => {
                host_state.failures_in_a_row += 1;
                if host_state.failures_in_a_row >= FAILURES_TO_TAKE_OUT && host_state.down_until.is_none() {
                    tracing::warn!(host = self.endpoints[host].host(), error = %err, "fleet host taken out after {} failures in a row", host_state.failures_in_a_row);
                    host_state.down_until = Some(Instant::now() + host_state.down_for);
                    host_state.down_for = (host_state.down_for * 2).min(MAX_DOWN);
                    host_state.why_down = Some(err.to_string());
                }
            }
            Ok(_) => {
                host_state.failures_in_a_row = 0;
                host_state.down_for = FIRST_DOWN;
            }
            // The host answered: a model or request problem says nothing of its health.
            Err(_) => {}
        }
    }
}

/// Failures that say the host itself is in trouble (not the model or the request): a
/// host that accepts connections but never answers (a wedged GPU) times out.
fn takes_host_out(err: &LlmError) -> bool {
    match err {
        LlmError::Connect { .. } | LlmError::Transport { .. } | LlmError::Timeout { .. } => true,
        LlmError::Status { code, .. } => *code >= 500,
        _ => false,
    }
}

fn list_or_none(models: &[String]) -> String {
    if models.is_empty() {
        "no models".to_string()
    } else {
        models.join(", ")
    }
}

#[async_trait::async_trait]
impl ChatBackend for Fleet {
    async fn chat(&self, request: &ChatRequest) -> Result<Exchange, LlmError> {
        let mut failures = Vec::new();
        let mut last_failed = None;
        let mut retries = self.retry.start();
        loop {
            let slot = match self
                .acquire(&request.model, request.affinity.as_deref(), last_failed)
                .await
            {
                Ok(slot) => slot,
                Err(err) => {
                    failures.push(AttemptFailure {
                        host: NO_HOST.to_string(),
                        error: err.to_string(),
                    });
                    retries.after_failure(err).await?;
                    continue;
                }
            };
            let host = slot.host;
            let endpoint = &self.endpoints[host];
            let span = tracing::debug_span!("request", host = endpoint.host(), attempt = retries.used() + 1);
            let result = endpoint.attempt(request).instrument(span).await;
            self.record(host, &result);
            drop(slot);
            match result {
                Ok(mut exchange) => {
                    exchange.retries = retries.used();
                    exchange.failures = failures;
                    return Ok(exchange);
                }
                Err(err) => {
                    last_failed = Some(host);
                    failures.push(AttemptFailure {
                        host: endpoint.host().to_string(),
                        error: err.to_string(),
                    });
                    if matches!(err, LlmError::ModelNotFound { .. }) && self.check_model(&request.model).is_ok() {
                        // Another host still lists the model: go there (each such miss
                        // removes the model from one host's list, so this ends).
                        continue;
                    }
                    retries.after_failure(err).await?;
                }
            }
        }
    }

    /// Every host's models together; a host that cannot be asked is left out, unless
    /// none can (then the first host's error).
    async fn models(&self) -> Result<Vec<String>, LlmError> {
        let asked = futures_util::future::join_all(self.endpoints.iter().map(|e| e.models())).await;
        let mut first_error = None;
        let mut models = Vec::new();
        let mut answered = false;
        for result in asked {
            match result {
                Ok(listed) => {
                    answered = true;
                    models.extend(listed);
                }
                Err(err) => {
                    first_error.get_or_insert(err);
                }
            }
        }
        if let (false, Some(err)) = (answered, first_error) {
            return Err(err);
        }
        Ok(sorted_names(models))
    }

    fn describe(&self) -> String {
        let hosts: Vec<String> = self
            .hosts
            .iter()
            .zip(&self.endpoints)
            .map(|(h, endpoint)| format!("{} {} (max {})", h.api, endpoint.host(), h.max_in_flight))
            .collect();
        format!("fleet of {}: {}", hosts.len(), hosts.join(", "))
    }

    async fn model_info(&self, model: &str) -> Option<serde_json::Value> {
        let serving: Vec<usize> = {
            let state = self.lock();
            (0..state.len())
                .filter(|&i| state[i].models.as_deref().is_some_and(|m| serves(m, model)))
                .collect()
        };
        for i in serving {
            if let Some(info) = self.endpoints[i].model_info(model).await {
                return Some(info);
            }
        }
        None
    }
}
