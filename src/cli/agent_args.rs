//! `llm:MODEL` players: flags and TOML agent files -> agent settings and a backend.

use agent::ModelGame;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{bail, Context, Result};
use clap::{Args, ValueEnum};
use serde::Deserialize;

use super::args::LabelsArg;
use super::external;
use super::limits;
use agent::{AgentConfig, AnswerFormat, AnswerPolicy, Fallback, InvalidPolicy, Mode, Prompt};
use arena::{llm_model, Connection, HostSettings, LlmPlayer, PlayerSpec};
use game::othello::{Labels, Perspective, TextStyle};
use llm::{ollama_base_url, Api, ChatOptions, HostConfig, RetryPolicy, Think, DEFAULT_OLLAMA_HOST};

/// Settings of `llm:MODEL` players (flags override the `--agent-file`).
#[derive(Debug, Args, Default, Clone)]
pub struct AgentArgs {
    /// TOML file with agent settings (same names as these flags, options in [options]).
    #[arg(long)]
    pub agent_file: Option<PathBuf>,
    /// TOML file of external engines (its engine tables, see docs/engines.md): a
    /// player spec ext:NAME plays the one named NAME.
    #[arg(long)]
    pub engines: Option<PathBuf>,
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
    #[arg(long, value_enum, ignore_case = true)]
    pub labels: Option<LabelsArg>,
    /// Board letters: absolute (B = black) or relative (B = side to move).
    #[arg(long)]
    pub perspective: Option<String>,
    /// Thinking: on, off, or a level (low, medium, high), sent as Ollama's think
    /// (true, false or the level) or, on OpenAI-compatible servers, as llama.cpp's
    /// chat_template_kwargs.enable_thinking (on, off) or reasoning_effort (a level).
    /// Unset: the server decides.
    #[arg(long)]
    pub think: Option<String>,
    /// Sampling temperature.
    #[arg(long, value_parser = limits::parse_temperature)]
    pub temperature: Option<f64>,
    /// Sampling seed sent to the server.
    #[arg(long)]
    pub model_seed: Option<i64>,
    /// Context window (num_ctx).
    #[arg(long, value_parser = limits::flag::num_ctx)]
    pub num_ctx: Option<u32>,
    /// Most tokens per answer, thinking included (Ollama num_predict, OpenAI max_tokens;
    /// also --max-answer-tokens).
    #[arg(long, alias = "max-answer-tokens", value_parser = limits::flag::num_predict)]
    pub num_predict: Option<i32>,
    /// How long the server keeps the model loaded (keep_alive), such as 10m.
    #[arg(long)]
    pub keep_alive: Option<String>,
    /// Requests per session, T (default 10).
    #[arg(long, value_parser = limits::flag::agent_rounds)]
    pub max_turns: Option<u32>,
    /// Sessions per move, A (default 3).
    #[arg(long, value_parser = limits::flag::agent_rounds)]
    pub max_sessions: Option<u32>,
    /// Rounds of tool calls per session before tools are withheld and an answer is
    /// asked for (default: no limit but --max-turns).
    #[arg(long, value_parser = limits::flag::tool_rounds)]
    pub max_tool_rounds: Option<u32>,
    /// Who moves when every session failed: an engine spec (default random), or
    /// forfeit (no move: the game ends, lost by the agent, scored as a 64-disc loss).
    #[arg(long)]
    pub fallback: Option<String>,
    /// Which coordinate of an answer counts: last (default), first or strict.
    #[arg(long)]
    pub answer: Option<String>,
    /// retry (new session, seed behaviour) or feedback (tell the model, continue).
    #[arg(long)]
    pub on_invalid: Option<String>,
    /// text (read the move from free text), json or json-legal (the answering request
    /// carries a JSON schema the server holds the model to: any square, or only legal
    /// moves).
    #[arg(long)]
    pub answer_format: Option<String>,
    /// With a JSON answer format: offer the optional "reason" beside the move (default
    /// true; false keeps a small model from spending its token cap on it).
    #[arg(long)]
    pub answer_reason: Option<bool>,
    /// Samples per decision, K (default 1): above 1, every sample is asked at the given
    /// temperature and the most frequent legal move is played (ties to the earliest);
    /// costs K times the requests.
    #[arg(long, value_parser = limits::flag::votes)]
    pub vote: Option<u32>,
}

/// Where `llm:MODEL` players' requests go: one server, several, or a fleet file.
/// Not part of the run's definition: `eval --resume` takes new ones. Its defaults
/// (the `HostArgs::*` constants, [`HostArgs::default`]) are the flags' and a
/// tournament file's `[[llm]]` tables'.
#[derive(Debug, Args, Clone)]
pub struct HostArgs {
    /// Server API: ollama (/api/chat) or openai (/v1/chat/completions: llama-server, vLLM, LM Studio).
    #[arg(long)]
    pub api: Option<String>,
    /// Server address: host[:port] or URL (default for ollama: $OLLAMA_HOST, else
    /// 127.0.0.1:11434; for openai: 127.0.0.1:8080). Several (repeated, or a comma
    /// list) make a fleet: each request goes to the least-loaded healthy host.
    #[arg(long, value_delimiter = ',')]
    pub host: Vec<String>,
    /// TOML fleet file: [[hosts]] tables with url, api (ollama|openai), max_in_flight,
    /// optional api_key_env and models.
    #[arg(long, value_name = "FILE", conflicts_with = "host")]
    pub fleet: Option<PathBuf>,
    /// Requests at once on each --host of a fleet (a fleet file sets its own).
    #[arg(long, default_value_t = HostArgs::MAX_IN_FLIGHT, value_parser = limits::flag::parallel)]
    pub max_in_flight: usize,
    /// Environment variable holding the API key for --api openai (sent as a bearer
    /// token, never written to logs).
    #[arg(long, default_value = llm::DEFAULT_KEY_ENV)]
    pub api_key_env: String,
    /// Seconds to wait for one answer.
    #[arg(long, default_value_t = HostArgs::TIMEOUT_S, value_parser = limits::timeout)]
    pub timeout: f64,
    /// Extra attempts after a transient HTTP failure.
    #[arg(long, default_value_t = HostArgs::MAX_RETRIES, value_parser = limits::flag::retries)]
    pub max_retries: u32,
}

impl Default for HostArgs {
    /// What the flags hold when none is given.
    fn default() -> HostArgs {
        HostArgs {
            api: None,
            host: Vec::new(),
            fleet: None,
            max_in_flight: HostArgs::MAX_IN_FLIGHT,
            api_key_env: llm::DEFAULT_KEY_ENV.to_string(),
            timeout: HostArgs::TIMEOUT_S,
            max_retries: HostArgs::MAX_RETRIES,
        }
    }
}

/// A `--fleet` file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FleetFile {
    hosts: Vec<HostConfig>,
}

impl HostArgs {
    /// Requests at once on each host unless `--max-in-flight` says otherwise.
    pub const MAX_IN_FLIGHT: usize = 1;
    /// Seconds to wait for one answer unless `--timeout` says otherwise.
    pub const TIMEOUT_S: f64 = 300.0;
    /// Extra attempts after a transient failure unless `--max-retries` says otherwise.
    pub const MAX_RETRIES: u32 = llm::DEFAULT_MAX_RETRIES;

    /// Whether any flag of these was given (so a resume takes these hosts).
    pub fn given(&self) -> bool {
        self.api.is_some() || !self.host.is_empty() || self.fleet.is_some()
    }

    /// Connects to the server(s) these flags (or the agent file's `api`/`host`) point
    /// at: [`HostArgs::settings`], then [`HostSettings::connect`].
    pub async fn connect(&self, agent: &AgentArgs, env: &dyn Fn(&str) -> Option<String>) -> Result<Connection> {
        let settings = self.settings(agent, env)?;
        Ok(settings.connect().await?)
    }

    /// The hosts these flags (or the agent file's `api`/`host`) name, checked; `env`
    /// looks up `OLLAMA_HOST` and API key variables. One host is a plain backend (as
    /// before fleets); several, or a fleet file, a fleet.
    pub fn settings(&self, agent: &AgentArgs, env: &dyn Fn(&str) -> Option<String>) -> Result<HostSettings> {
        limits::timeout_seconds(self.timeout).map_err(|e| anyhow::anyhow!("bad --timeout: {e}"))?;
        limits::RETRIES
            .check(i64::from(self.max_retries))
            .map_err(|e| anyhow::anyhow!("bad --max-retries: {e}"))?;
        limits::PARALLEL
            .check(self.max_in_flight as i64)
            .map_err(|e| anyhow::anyhow!("bad --max-in-flight: {e}"))?;
        let file = agent.file()?;
        let retry = RetryPolicy {
            max_retries: self.max_retries,
            ..RetryPolicy::default()
        };
        let api: Api = match self.api.clone().or(file.api) {
            Some(text) => text.parse().map_err(|e: String| anyhow::anyhow!("bad --api: {e}"))?,
            None => Api::Ollama,
        };
        let hosts = match &self.fleet {
            Some(path) => read_fleet_file(path)?,
            None => {
                let mut given = self.host.clone();
                if given.is_empty() {
                    given.extend(file.host.iter().flat_map(|h| h.split(',').map(str::to_string)));
                }
                if given.is_empty() {
                    given.push(match api {
                        Api::Ollama => env("OLLAMA_HOST").unwrap_or_else(|| DEFAULT_OLLAMA_HOST.to_string()),
                        Api::Openai => "127.0.0.1:8080".to_string(),
                    });
                }
                given
                    .iter()
                    .map(|raw| {
                        Ok(HostConfig {
                            url: host_url(api, raw)?,
                            api,
                            max_in_flight: self.max_in_flight,
                            api_key_env: Some(self.api_key_env.clone()),
                            models: None,
                        })
                    })
                    .collect::<Result<Vec<_>>>()?
            }
        };
        // A variable named on purpose (a fleet file's, or a non-default --api-key-env)
        // must hold a key: said now, before any request.
        let required = self.fleet.is_some() || self.api_key_env != llm::DEFAULT_KEY_ENV;
        let keys = hosts
            .iter()
            .map(|host| host.api_key(env, required))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(HostSettings {
            hosts,
            keys,
            fleet_file: self.fleet.is_some(),
            api_key_env: self.api_key_env.clone(),
            timeout: Duration::from_secs_f64(self.timeout),
            retry,
        })
    }
}

/// A server address as a base URL: Ollama's rules for ollama hosts, `http://` added to
/// a bare host[:port] for openai ones.
fn host_url(api: Api, raw: &str) -> Result<String> {
    match api {
        Api::Ollama => ollama_base_url(raw)
            .with_context(|| format!("bad --host {:?} (or OLLAMA_HOST)", llm::without_credentials(raw.trim()))),
        Api::Openai => {
            // One spelling per server (no trailing slash, no /v1), as exchanges name it.
            let trimmed = raw.trim().trim_end_matches('/');
            let trimmed = trimmed.strip_suffix("/v1").unwrap_or(trimmed);
            if trimmed.contains("://") {
                Ok(trimmed.to_string())
            } else {
                Ok(format!("http://{trimmed}"))
            }
        }
    }
}

/// Reads and checks a `--fleet` file.
fn read_fleet_file(path: &Path) -> Result<Vec<HostConfig>> {
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read --fleet {}", path.display()))?;
    let file: FleetFile = toml::from_str(&text).with_context(|| {
        format!(
            "bad --fleet {}: expected [[hosts]] tables with url, api (ollama|openai), max_in_flight, \
             optional api_key_env and models",
            path.display()
        )
    })?;
    if file.hosts.is_empty() {
        bail!("bad --fleet {}: it lists no [[hosts]]", path.display());
    }
    file.hosts
        .into_iter()
        .map(|mut host| {
            if host.url.trim().is_empty() {
                bail!(
                    "bad --fleet {}: a [[hosts]] url is empty: give host[:port] or a URL such as http://10.0.0.5:11434",
                    path.display()
                );
            }
            if let Err(e) = limits::PARALLEL.check(host.max_in_flight as i64) {
                bail!("bad --fleet {}: host {}: max_in_flight {e}", path.display(), host.url);
            }
            host.url = host_url(host.api, &host.url).with_context(|| format!("bad --fleet {}", path.display()))?;
            Ok(host)
        })
        .collect()
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
    answer_format: Option<String>,
    answer_reason: Option<bool>,
    vote: Option<u32>,
    cut_off_message: Option<String>,
    #[serde(default)]
    options: ChatOptions,
}

/// The model options an agent file gives, checked against the flags' limits.
fn check_options(options: &ChatOptions) -> Result<()> {
    let bad = |key: &str, e: String| anyhow::anyhow!("{key}: {e}");
    if let Some(t) = options.temperature {
        limits::temperature(t).map_err(|e| bad("temperature", e))?;
    }
    if let Some(n) = options.num_ctx {
        limits::NUM_CTX.check(i64::from(n)).map_err(|e| bad("num_ctx", e))?;
    }
    if let Some(n) = options.num_predict {
        limits::NUM_PREDICT
            .check(i64::from(n))
            .map_err(|e| bad("num_predict", e))?;
    }
    Ok(())
}

fn parse_think(text: &str) -> Result<Think> {
    match text.trim().to_ascii_lowercase().as_str() {
        "true" | "on" => Ok(Think::Enabled(true)),
        "false" | "off" => Ok(Think::Enabled(false)),
        level @ ("low" | "medium" | "high" | "max") => Ok(Think::Level(level.to_string())),
        other => bail!("bad --think {other:?}: expected on, off, low, medium, high or max (or true, false)"),
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

    /// The agent settings for `model` playing game `R`; `prompts` is the folder prompt
    /// names resolve in.
    pub fn config<R: ModelGame>(&self, model: &str, prompts: &Path) -> Result<AgentConfig> {
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
        config.style = self.style(&file)?;
        let file_think = file.think.as_ref().map(|v| match v {
            toml::Value::Boolean(b) => b.to_string(),
            toml::Value::String(s) => s.clone(),
            other => other.to_string(),
        });
        if let Some(think) = pick(&self.think, &file_think) {
            config.think = Some(parse_think(&think)?);
        }
        config.options = self.options(file.options.clone())?;
        config.keep_alive = pick(&self.keep_alive, &file.keep_alive);
        config.max_turns = self.max_turns.or(file.max_turns).unwrap_or(config.max_turns);
        config.max_sessions = self.max_sessions.or(file.max_sessions).unwrap_or(config.max_sessions);
        if let Some(rounds) = self.max_tool_rounds.or(file.max_tool_rounds) {
            config.max_tool_rounds = rounds;
        }
        config.vote = self.vote.or(file.vote).unwrap_or(config.vote);
        // The flags were checked as they were parsed; the file's values are checked here.
        let rounds = [
            ("max_turns", limits::AGENT_ROUNDS, file.max_turns),
            ("max_sessions", limits::AGENT_ROUNDS, file.max_sessions),
            ("max_tool_rounds", limits::TOOL_ROUNDS, file.max_tool_rounds),
            ("vote", limits::VOTES, file.vote),
        ];
        for (key, bounds, value) in rounds {
            if let Some(value) = value {
                bounds
                    .check(i64::from(value))
                    .map_err(|e| anyhow::anyhow!("bad {key} in --agent-file: {e}"))?;
            }
        }
        if let Some(fallback) = pick(&self.fallback, &file.fallback) {
            config.fallback = fallback
                .parse::<Fallback>()
                .and_then(|f| f.check::<R>())
                .with_context(|| format!("bad --fallback for {}", R::NAME))?;
        }
        if let Some(answer) = pick(&self.answer, &file.answer) {
            config.answer = parse_with::<AnswerPolicy>(&answer, "--answer")?;
        }
        if let Some(policy) = pick(&self.on_invalid, &file.on_invalid) {
            config.on_invalid = parse_with::<InvalidPolicy>(&policy, "--on-invalid")?;
        }
        if let Some(format) = pick(&self.answer_format, &file.answer_format) {
            config.answer_format = parse_with::<AnswerFormat>(&format, "--answer-format")?;
        }
        if let Some(reason) = self.answer_reason.or(file.answer_reason) {
            config.answer_reason = reason;
        }
        config.cut_off_message = file.cut_off_message.clone();
        Ok(config)
    }

    /// How boards are written: `--labels` and `--perspective`, else the file's.
    fn style(&self, file: &AgentFile) -> Result<TextStyle> {
        // The file's words are read as the flag's (one parser: `LabelsArg`).
        let labels = match (self.labels, &file.labels) {
            (Some(labels), _) => labels,
            (None, Some(text)) => LabelsArg::from_str(text.trim(), true)
                .map_err(|_| anyhow::anyhow!("bad --labels {text:?}: expected ja or en"))?,
            (None, None) => LabelsArg::Ja,
        };
        let labels = Labels::from(labels);
        let perspective = match self
            .perspective
            .as_deref()
            .or(file.perspective.as_deref())
            .map(str::to_ascii_lowercase)
            .as_deref()
        {
            None | Some("absolute") => Perspective::Absolute,
            Some("relative") => Perspective::Relative,
            Some(other) => bail!("bad --perspective {other:?}: expected absolute or relative"),
        };
        Ok(TextStyle { labels, perspective })
    }

    /// The model options: the file's `[options]` (checked against the flags' limits),
    /// each overridden by its flag.
    fn options(&self, mut options: ChatOptions) -> Result<ChatOptions> {
        check_options(&options).context("bad [options] in --agent-file")?;
        if self.temperature.is_some() {
            options.temperature = self.temperature;
        }
        if self.model_seed.is_some() {
            options.seed = self.model_seed;
        }
        if self.num_ctx.is_some() {
            options.num_ctx = self.num_ctx;
        }
        if self.num_predict.is_some() {
            options.num_predict = self.num_predict;
        }
        Ok(options)
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

/// Whether a player spec names an LLM player (and so needs a server).
pub fn is_llm_spec(text: &str) -> bool {
    llm_model(text).is_some()
}

/// Parses a player spec: `llm:MODEL` with `agent` settings on `connection`, an
/// external engine `ext:NAME` of `--engines`, or an engine spec.
pub fn parse_player<R: ModelGame>(
    text: &str,
    flag: &str,
    agent: &AgentArgs,
    connection: Option<&Connection>,
) -> Result<PlayerSpec<R>> {
    if text.trim().starts_with("ext:") {
        return Ok(PlayerSpec::External(external::resolve::<R>(
            text,
            flag,
            agent.engines.as_deref(),
        )?));
    }
    if let Some(model) = llm_model(text) {
        if model.is_empty() {
            bail!("bad {flag} {text:?}: name the model, as in llm:qwen2.5-coder:0.5b");
        }
        let config = agent
            .config::<R>(model, &prompts_dir())
            .with_context(|| format!("bad settings for {flag} {text}"))?;
        let Some(connection) = connection else {
            bail!("bad {flag} {text:?}: no model server was set up for it");
        };
        return Ok(PlayerSpec::Llm(LlmPlayer::on(config, connection)?));
    }
    let spec: R::Spec = text
        .parse()
        .map_err(|e| anyhow::anyhow!("{e}, llm:MODEL, ext:NAME"))
        .with_context(|| format!("bad {flag}"))?;
    Ok(PlayerSpec::Engine(spec))
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    /// The flags' help names the agent's defaults, which `AgentConfig::new` holds: the
    /// two must not drift.
    #[test]
    fn the_help_states_the_agents_own_defaults() {
        let defaults = AgentConfig::new("m");
        let help = super::super::args::Cli::command()
            .find_subcommand_mut("eval")
            .expect("eval is a subcommand")
            .render_long_help()
            .to_string();
        for said in [
            format!("Requests per session, T (default {})", defaults.max_turns),
            format!("Sessions per move, A (default {})", defaults.max_sessions),
            format!("an engine spec (default {})", defaults.fallback),
            format!("{} (default), first or strict", defaults.answer),
        ] {
            assert!(help.contains(&said), "{said}");
        }
        assert_eq!(
            defaults.max_tool_rounds,
            u32::MAX,
            "the help says: no limit but --max-turns"
        );
        assert_eq!(defaults.style.labels, Labels::from(LabelsArg::Ja));
    }

    #[test]
    fn a_labels_word_reads_alike_from_the_flag_and_the_agent_file() {
        use clap::Parser;
        let dir = std::env::temp_dir().join(format!("othello-arena-labels-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for (word, labels) in [
            ("ja", Labels::Japanese),
            ("EN", Labels::English),
            ("en", Labels::English),
        ] {
            let cli = super::super::args::Cli::try_parse_from([
                "othello-arena",
                "eval",
                "--agent",
                "llm:m",
                "--labels",
                word,
            ])
            .unwrap();
            let super::super::args::Command::Eval(eval) = cli.command else {
                panic!("eval parses as eval")
            };
            let file = dir.join(format!("{word}.toml"));
            std::fs::write(&file, format!("labels = \"{word}\"\n")).unwrap();
            let from_file = AgentArgs {
                agent_file: Some(file),
                ..AgentArgs::default()
            };
            for args in [&eval.agent, &from_file] {
                let config = args.config::<game::Othello>("m", &prompts_dir()).unwrap();
                assert_eq!(config.style.labels, labels, "{word}");
            }
        }
        let bad = dir.join("bad.toml");
        std::fs::write(&bad, "labels = \"fr\"\n").unwrap();
        let args = AgentArgs {
            agent_file: Some(bad),
            ..AgentArgs::default()
        };
        let message = format!("{:#}", args.config::<game::Othello>("m", &prompts_dir()).unwrap_err());
        assert!(message.contains("bad --labels \"fr\": expected ja or en"), "{message}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Every agent file we ship loads, and each one that asks for a JSON answer leaves
    /// the optional reason out (a small model spends its token cap on it).
    #[test]
    fn every_shipped_agent_file_loads_and_its_json_answers_fit_their_cap() {
        let mut files: Vec<PathBuf> = std::fs::read_dir(prompts_dir())
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .filter(|path| path.extension().is_some_and(|e| e == "toml"))
            .collect();
        files.sort();
        assert!(files.len() >= 3, "{files:?}");
        for file in files {
            let args = AgentArgs {
                agent_file: Some(file.clone()),
                ..AgentArgs::default()
            };
            let config = args.config::<game::Othello>("m", &prompts_dir()).unwrap();
            if config.answer_format != AnswerFormat::Text {
                assert!(!config.answer_reason, "{}", file.display());
                assert!(
                    config.options.num_predict.is_some(),
                    "{} caps its answers",
                    file.display()
                );
            }
        }
    }

    #[test]
    fn thinking_reads_on_off_and_levels() {
        assert_eq!(parse_think("on").unwrap(), Think::Enabled(true));
        assert_eq!(parse_think("OFF").unwrap(), Think::Enabled(false));
        assert_eq!(parse_think("false").unwrap(), Think::Enabled(false));
        assert_eq!(parse_think("high").unwrap(), Think::Level("high".into()));
        let message = parse_think("maybe").unwrap_err().to_string();
        assert!(message.contains("expected on, off, low, medium, high"), "{message}");
    }
}
