//! `llm:MODEL` players: flags and TOML agent files -> agent settings and a backend.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use clap::Args;
use serde::Deserialize;

use crate::agent::{AgentConfig, AnswerPolicy, InvalidPolicy, Mode, Prompt};
use crate::arena::{LlmPlayer, PlayerSpec};
use crate::engine::EngineSpec;
use crate::llm::{
    ollama_base_url, ChatBackend, ChatOptions, OllamaBackend, OpenAiBackend, RetryPolicy, Think, DEFAULT_OLLAMA_HOST,
};
use crate::othello::{Labels, Perspective, TextStyle};

/// Settings of `llm:MODEL` players (flags override the `--agent-file`).
#[derive(Debug, Args, Default, Clone)]
pub struct AgentArgs {
    /// TOML file with agent settings (same names as these flags, options in [options]).
    #[arg(long)]
    pub agent_file: Option<PathBuf>,
    /// Server API: ollama (/api/chat) or openai (/v1/chat/completions: llama-server, vLLM, LM Studio).
    #[arg(long)]
    pub api: Option<String>,
    /// Server address: host[:port] or URL (default for ollama: $OLLAMA_HOST, else
    /// 127.0.0.1:11434; for openai: 127.0.0.1:8080).
    #[arg(long)]
    pub host: Option<String>,
    /// Environment variable holding the API key for --api openai (sent as a bearer
    /// token, never written to logs).
    #[arg(long, default_value = "OPENAI_API_KEY")]
    pub api_key_env: String,
    /// tool (simulate_move, several turns) or direct (one answer after </think>).
    #[arg(long)]
    pub mode: Option<String>,
    /// System prompt: a file, or a name in prompts/ (such as tool-ja).
    #[arg(long)]
    pub system: Option<String>,
    /// User-message template: a file, or a name in prompts/; {board}, {color} and
    /// {legal_moves} are filled in (default: the board text alone).
    #[arg(long)]
    pub user_template: Option<String>,
    /// Board text labels: ja (seed 000) or en.
    #[arg(long)]
    pub labels: Option<String>,
    /// Board letters: absolute (B = black) or relative (B = side to move).
    #[arg(long)]
    pub perspective: Option<String>,
    /// Ollama think: true, false, or a level (low, medium, high). Unset: the server decides.
    #[arg(long)]
    pub think: Option<String>,
    /// Sampling temperature.
    #[arg(long)]
    pub temperature: Option<f64>,
    /// Sampling seed sent to the server.
    #[arg(long)]
    pub model_seed: Option<i64>,
    /// Context window (num_ctx).
    #[arg(long)]
    pub num_ctx: Option<u32>,
    /// Most tokens per answer (num_predict).
    #[arg(long)]
    pub num_predict: Option<i32>,
    /// How long the server keeps the model loaded (keep_alive), such as 10m.
    #[arg(long)]
    pub keep_alive: Option<String>,
    /// Requests per session, T (default 10).
    #[arg(long)]
    pub max_turns: Option<u32>,
    /// Sessions per move, A (default 3).
    #[arg(long)]
    pub max_sessions: Option<u32>,
    /// Rounds of tool calls per session before tools are withheld and an answer is
    /// asked for (default: no limit but --max-turns).
    #[arg(long)]
    pub max_tool_rounds: Option<u32>,
    /// Engine spec that moves when the model fails (default random).
    #[arg(long)]
    pub fallback: Option<String>,
    /// Which coordinate of an answer counts: last (default), first or strict.
    #[arg(long)]
    pub answer: Option<String>,
    /// retry (new session, seed behaviour) or feedback (tell the model, continue).
    #[arg(long)]
    pub on_invalid: Option<String>,
    /// Seconds to wait for one answer.
    #[arg(long, default_value_t = 300.0)]
    pub timeout: f64,
    /// Extra attempts after a transient HTTP failure.
    #[arg(long, default_value_t = 4)]
    pub max_retries: u32,
}

/// The `--agent-file` TOML file.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct AgentFile {
    api: Option<String>,
    host: Option<String>,
    mode: Option<String>,
    system: Option<String>,
    user_template: Option<String>,
    labels: Option<String>,
    perspective: Option<String>,
    think: Option<toml::Value>,
    keep_alive: Option<String>,
    max_turns: Option<u32>,
    max_sessions: Option<u32>,
    max_tool_rounds: Option<u32>,
    fallback: Option<String>,
    answer: Option<String>,
    on_invalid: Option<String>,
    #[serde(default)]
    options: ChatOptions,
}

fn parse_think(text: &str) -> Result<Think> {
    match text.trim().to_ascii_lowercase().as_str() {
        "true" => Ok(Think::Enabled(true)),
        "false" => Ok(Think::Enabled(false)),
        level @ ("low" | "medium" | "high" | "max") => Ok(Think::Level(level.to_string())),
        other => bail!("bad --think {other:?}: expected true, false, low, medium, high or max"),
    }
}

fn parse_with<T: std::str::FromStr<Err = String>>(text: &str, flag: &str) -> Result<T> {
    text.parse().map_err(|e: String| anyhow::anyhow!("bad {flag}: {e}"))
}

impl AgentArgs {
    fn file(&self) -> Result<AgentFile> {
        let Some(path) = &self.agent_file else {
            return Ok(AgentFile::default());
        };
        let text =
            std::fs::read_to_string(path).with_context(|| format!("cannot read --agent-file {}", path.display()))?;
        toml::from_str(&text).with_context(|| {
            format!(
                "bad --agent-file {}: fix the TOML (keys are the flag names, options under [options])",
                path.display()
            )
        })
    }

    /// The agent settings for `model`; `prompts` is the folder prompt names resolve in.
    pub fn config(&self, model: &str, prompts: &Path) -> Result<AgentConfig> {
        let file = self.file()?;
        let pick = |flag: &Option<String>, from_file: &Option<String>| flag.clone().or_else(|| from_file.clone());
        let mut config = AgentConfig::new(model);
        if let Some(mode) = pick(&self.mode, &file.mode) {
            config.mode = parse_with::<Mode>(&mode, "--mode")?;
        }
        if let Some(system) = pick(&self.system, &file.system) {
            config.system_prompt = Some(Prompt::load(&system, prompts).context("bad --system")?);
        }
        if let Some(template) = pick(&self.user_template, &file.user_template) {
            let template = Prompt::load(&template, prompts).context("bad --user-template")?;
            if !template.text.contains("{board}") {
                bail!(
                    "bad --user-template {}: it must contain {{board}} where the board goes",
                    template.source
                );
            }
            config.user_template = Some(template);
        }
        let labels = match pick(&self.labels, &file.labels)
            .as_deref()
            .map(str::to_ascii_lowercase)
            .as_deref()
        {
            None | Some("ja") => Labels::Japanese,
            Some("en") => Labels::English,
            Some(other) => bail!("bad --labels {other:?}: expected ja or en"),
        };
        let perspective = match pick(&self.perspective, &file.perspective)
            .as_deref()
            .map(str::to_ascii_lowercase)
            .as_deref()
        {
            None | Some("absolute") => Perspective::Absolute,
            Some("relative") => Perspective::Relative,
            Some(other) => bail!("bad --perspective {other:?}: expected absolute or relative"),
        };
        config.style = TextStyle { labels, perspective };
        let file_think = file.think.as_ref().map(|v| match v {
            toml::Value::Boolean(b) => b.to_string(),
            toml::Value::String(s) => s.clone(),
            other => other.to_string(),
        });
        if let Some(think) = pick(&self.think, &file_think) {
            config.think = Some(parse_think(&think)?);
        }
        config.options = file.options;
        if self.temperature.is_some() {
            config.options.temperature = self.temperature;
        }
        if self.model_seed.is_some() {
            config.options.seed = self.model_seed;
        }
        if self.num_ctx.is_some() {
            config.options.num_ctx = self.num_ctx;
        }
        if self.num_predict.is_some() {
            config.options.num_predict = self.num_predict;
        }
        config.keep_alive = pick(&self.keep_alive, &file.keep_alive);
        config.max_turns = self.max_turns.or(file.max_turns).unwrap_or(config.max_turns);
        config.max_sessions = self.max_sessions.or(file.max_sessions).unwrap_or(config.max_sessions);
        if let Some(rounds) = self.max_tool_rounds.or(file.max_tool_rounds) {
            config.max_tool_rounds = rounds;
        }
        if config.max_turns == 0 || config.max_sessions == 0 {
            bail!("bad --max-turns/--max-sessions: both must be at least 1");
        }
        if let Some(fallback) = pick(&self.fallback, &file.fallback) {
            let spec: EngineSpec = fallback.parse().context("bad --fallback")?;
            if spec == EngineSpec::Human {
                bail!("bad --fallback: the fallback must be an engine, not human");
            }
            config.fallback = spec;
        }
        if let Some(answer) = pick(&self.answer, &file.answer) {
            config.answer = parse_with::<AnswerPolicy>(&answer, "--answer")?;
        }
        if let Some(policy) = pick(&self.on_invalid, &file.on_invalid) {
            config.on_invalid = parse_with::<InvalidPolicy>(&policy, "--on-invalid")?;
        }
        Ok(config)
    }

    /// The chat backend these flags point at; `env` looks up environment variables
    /// (`OLLAMA_HOST`, the API key variable).
    pub fn backend(&self, env: &dyn Fn(&str) -> Option<String>) -> Result<Arc<dyn ChatBackend>> {
        if !(self.timeout > 0.0 && self.timeout.is_finite()) {
            bail!("bad --timeout {}: give a positive number of seconds", self.timeout);
        }
        let file = self.file()?;
        let retry = RetryPolicy {
            max_retries: self.max_retries,
            ..RetryPolicy::default()
        };
        let timeout = Duration::from_secs_f64(self.timeout);
        let host = self.host.clone().or(file.host);
        match self
            .api
            .clone()
            .or(file.api)
            .as_deref()
            .map(str::to_ascii_lowercase)
            .as_deref()
        {
            None | Some("ollama") => {
                let raw = host
                    .or_else(|| env("OLLAMA_HOST"))
                    .unwrap_or_else(|| DEFAULT_OLLAMA_HOST.to_string());
                let url = ollama_base_url(&raw).context("bad --host (or OLLAMA_HOST)")?;
                Ok(Arc::new(OllamaBackend::new(&url, timeout, retry)?))
            }
            Some("openai") => {
                let raw = host.unwrap_or_else(|| "127.0.0.1:8080".to_string());
                let url = if raw.contains("://") {
                    raw
                } else {
                    format!("http://{raw}")
                };
                let key = env(&self.api_key_env);
                Ok(Arc::new(OpenAiBackend::new(&url, key, timeout, retry)?))
            }
            Some(other) => bail!("bad --api {other:?}: expected ollama or openai"),
        }
    }
}

/// Where prompt names resolve: `./prompts` when it exists, else the source tree's.
pub fn prompts_dir() -> PathBuf {
    let local = PathBuf::from("prompts");
    if local.is_dir() {
        local
    } else {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("prompts")
    }
}

/// Parses a player spec: `llm:MODEL` with `agent` settings, or an engine spec.
pub fn parse_player(
    text: &str,
    flag: &str,
    agent: &AgentArgs,
    backend: &dyn Fn() -> Result<Arc<dyn ChatBackend>>,
) -> Result<PlayerSpec> {
    if let Some(model) = text.trim().strip_prefix("llm:") {
        if model.trim().is_empty() {
            bail!("bad {flag} {text:?}: name the model, as in llm:qwen2.5-coder:0.5b");
        }
        let config = agent
            .config(model.trim(), &prompts_dir())
            .with_context(|| format!("bad settings for {flag} {text}"))?;
        return Ok(PlayerSpec::Llm(LlmPlayer {
            config: Arc::new(config),
            backend: backend()?,
        }));
    }
    let spec: EngineSpec = text
        .parse()
        .map_err(|e| anyhow::anyhow!("{e}, llm:MODEL"))
        .with_context(|| format!("bad {flag}"))?;
    Ok(PlayerSpec::Engine(spec))
}
