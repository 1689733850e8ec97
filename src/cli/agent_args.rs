//! `llm:MODEL` players: flags and TOML agent files -> agent settings and a backend.

use agent::ModelGame;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{bail, Context, Result};
use clap::builder::{PossibleValuesParser, TypedValueParser};
use clap::{Args, ValueEnum};
use serde::{Deserialize, Deserializer};

use super::external;
use super::inputs::{read_user_file, SETTINGS_CAP};
use super::limits;
use agent::{AgentConfig, AnswerFormat, AnswerPolicy, Fallback, InvalidPolicy, LegalMoves, Mode, Prompt};
use arena::{llm_model, Connection, HostSettings, LlmPlayer, PlayerSpec};
use game::othello::{Labels, Perspective};
use llm::{ollama_base_url, Api, ChatOptions, HostConfig, RetryPolicy, Think, DEFAULT_OLLAMA_HOST};

/// Settings of `llm:MODEL` players as given: flags, or an agent file's keys (the same
/// names, each read by the same parser; `[options]` holds the model options). Flags
/// override the `--agent-file`; a setting given by neither is
/// [`AgentConfig::default`]'s ([`AgentArgs::config`]).
#[derive(Debug, Args, Default, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AgentArgs {
    /// TOML file with agent settings (same names as these flags, options in [options]).
    #[arg(long)]
    #[serde(skip)]
    pub agent_file: Option<PathBuf>,
    /// TOML file of external engines (its engine tables, see docs/engines.md): a
    /// player spec ext:NAME plays the one named NAME.
    #[arg(long)]
    #[serde(skip)]
    pub engines: Option<PathBuf>,
    /// tool (simulate_move, several turns) or direct (one answer after </think>).
    #[arg(long)]
    pub mode: Option<Mode>,
    /// System prompt: a file, or a name in prompts/ (such as tool-ja).
    #[arg(long)]
    pub system: Option<String>,
    /// User-message template: a file, or a name in prompts/; {board}, {color} and
    /// {legal_moves} are filled in (default: the board text alone).
    #[arg(long)]
    pub user_template: Option<String>,
    /// Board text labels: ja (seed 000) or en.
    #[arg(long, ignore_case = true, value_parser = labels_parser())]
    pub labels: Option<Labels>,
    /// Board letters: absolute (B = black) or relative (B = side to move).
    #[arg(long)]
    pub perspective: Option<Perspective>,
    /// Thinking: on, off, or a level (low, medium, high), sent as Ollama's think
    /// (true, false or the level) or, on OpenAI-compatible servers, as llama.cpp's
    /// chat_template_kwargs.enable_thinking (on, off) or reasoning_effort (a level).
    /// Unset: the server decides.
    #[arg(long)]
    pub think: Option<Think>,
    /// Sampling temperature.
    #[arg(long, value_parser = limits::parse_temperature)]
    #[serde(skip)]
    pub temperature: Option<f64>,
    /// Sampling seed sent to the server.
    #[arg(long)]
    #[serde(skip)]
    pub model_seed: Option<i64>,
    /// Context window (num_ctx).
    #[arg(long, value_parser = limits::flag::num_ctx)]
    #[serde(skip)]
    pub num_ctx: Option<u32>,
    /// Most tokens per answer, thinking included (Ollama num_predict, OpenAI max_tokens;
    /// also --max-answer-tokens).
    #[arg(long, alias = "max-answer-tokens", value_parser = limits::flag::num_predict)]
    #[serde(skip)]
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
    pub fallback: Option<Fallback>,
    /// Which coordinate of an answer counts: last (default), first or strict.
    #[arg(long)]
    #[serde(deserialize_with = "by_its_parser")]
    pub answer: Option<AnswerPolicy>,
    /// retry (new session, seed behaviour) or feedback (tell the model, continue).
    #[arg(long)]
    pub on_invalid: Option<InvalidPolicy>,
    /// text (read the move from free text), json or json-legal (the answering request
    /// carries a JSON schema the server holds the model to: any square, or only legal
    /// moves).
    #[arg(long)]
    pub answer_format: Option<AnswerFormat>,
    /// shown (default: the board text, the feedback after an invalid answer and the
    /// tool's results name the legal moves) or hidden (blind play: the model is never
    /// told them; refused with json-legal or a template with {legal_moves}).
    #[arg(long)]
    pub legal_moves: Option<LegalMoves>,
    /// With a JSON answer format: offer the optional "reason" beside the move (default
    /// true; false keeps a small model from spending its token cap on it).
    #[arg(long)]
    pub answer_reason: Option<bool>,
    /// Samples per decision, K (default 1): above 1, every sample is asked at the given
    /// temperature and the most frequent legal move is played (ties to the earliest);
    /// costs K times the requests.
    #[arg(long, value_parser = limits::flag::votes)]
    pub vote: Option<u32>,
    /// An agent file's `cut_off_message`: what the model is told after an answer cut
    /// off at the token limit (no flag).
    #[arg(skip)]
    pub cut_off_message: Option<String>,
    /// An agent file's `[options]` (the flags above set some of them one by one).
    #[arg(skip)]
    pub options: ChatOptions,
}

/// `--labels`' words, which its help lists (those of [`LabelsArg`], `datagen`'s
/// too), read as [`Labels`].
fn labels_parser() -> impl TypedValueParser<Value = Labels> {
    let words = LabelsArg::value_variants()
        .iter()
        .filter_map(ValueEnum::to_possible_value);
    PossibleValuesParser::new(words).try_map(|word| word.parse::<Labels>())
}

/// A file's word read by its flag's parser (`FromStr`, any case) where the type's own
/// serde reading differs (derived for another format).
fn by_its_parser<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: std::str::FromStr,
    T::Err: std::fmt::Display,
{
    let text = Option::<String>::deserialize(deserializer)?;
    text.map(|text| text.parse().map_err(serde::de::Error::custom))
        .transpose()
}

/// Where `llm:MODEL` players' requests go: one server, several, or a fleet file, as
/// flags or as a tournament file's `[[llm]]` keys (the same names). Not part of the
/// run's definition: `eval --resume` takes new ones. Its defaults (the `HostArgs::*`
/// constants, [`HostArgs::default`]) are the flags' and the `[[llm]]` tables'.
#[derive(Debug, Args, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct HostArgs {
    /// Server API: ollama (/api/chat) or openai (/v1/chat/completions: llama-server, vLLM, LM Studio).
    #[arg(long)]
    #[serde(deserialize_with = "by_its_parser")]
    pub api: Option<Api>,
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
    /// Requests at once on each host unless `--max-in-flight` says otherwise (a fleet
    /// file's `max_in_flight` alike).
    pub const MAX_IN_FLIGHT: usize = llm::DEFAULT_MAX_IN_FLIGHT;
    /// Seconds to wait for one answer unless `--timeout` says otherwise.
    pub const TIMEOUT_S: f64 = 300.0;
    /// Extra attempts after a transient failure unless `--max-retries` says otherwise.
    pub const MAX_RETRIES: u32 = llm::DEFAULT_MAX_RETRIES;
    /// Where an OpenAI-compatible server is looked for when no host is given.
    pub const OPENAI_HOST: &'static str = "127.0.0.1:8080";

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

    /// The hosts these flags (or the agent file's `api`/`host`) name, checked, each
    /// with its API key; `env` looks up `OLLAMA_HOST` and API key variables. One host
    /// is a plain backend (as before fleets); several, or a fleet file, a fleet.
    pub fn settings(&self, agent: &AgentArgs, env: &dyn Fn(&str) -> Option<String>) -> Result<HostSettings> {
        limits::timeout_seconds(self.timeout).map_err(|e| anyhow::anyhow!("bad --timeout: {e}"))?;
        limits::RETRIES
            .check(i64::from(self.max_retries))
            .map_err(|e| anyhow::anyhow!("bad --max-retries: {e}"))?;
        limits::PARALLEL
            .check(self.max_in_flight as i64)
            .map_err(|e| anyhow::anyhow!("bad --max-in-flight: {e}"))?;
        let file = agent.file()?;
        let api = self.api.or(file.api).unwrap_or_default();
        let mut hosts = match &self.fleet {
            Some(path) => read_fleet_file(path)?,
            None => {
                let mut given = self.host.clone();
                if given.is_empty() {
                    given.extend(file.host.iter().flat_map(|h| h.split(',').map(str::to_string)));
                }
                if given.is_empty() {
                    given.push(match api {
                        Api::Ollama => env("OLLAMA_HOST").unwrap_or_else(|| DEFAULT_OLLAMA_HOST.to_string()),
                        Api::Openai => HostArgs::OPENAI_HOST.to_string(),
                    });
                }
                given
                    .iter()
                    .map(|raw| {
                        let mut host = HostConfig::new(host_url(api, raw)?, api);
                        host.max_in_flight = self.max_in_flight;
                        host.api_key_env = Some(self.api_key_env.clone());
                        Ok(host)
                    })
                    .collect::<Result<Vec<_>>>()?
            }
        };
        // A variable named on purpose (a fleet file's, or a non-default --api-key-env)
        // must hold a key: said now, before any request.
        let required = self.fleet.is_some() || self.api_key_env != llm::DEFAULT_KEY_ENV;
        for host in &mut hosts {
            host.key = host.api_key(env, required)?;
        }
        Ok(HostSettings {
            hosts,
            fleet_file: self.fleet.is_some(),
            api_key_env: self.api_key_env.clone(),
            timeout: Duration::from_secs_f64(self.timeout),
            retry: RetryPolicy {
                max_retries: self.max_retries,
                ..RetryPolicy::default()
            },
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
    let text = read_user_file("--fleet", path, SETTINGS_CAP)?;
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

/// The `--agent-file` TOML file: the agent settings under their flags' names, and the
/// server (`api`, `host`: a comma list) unless the host flags name one.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct AgentFile {
    #[serde(default, deserialize_with = "by_its_parser")]
    api: Option<Api>,
    host: Option<String>,
    #[serde(flatten)]
    agent: AgentArgs,
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

impl AgentArgs {
    fn file(&self) -> Result<AgentFile> {
        let Some(path) = &self.agent_file else {
            return Ok(AgentFile::default());
        };
        let text = read_user_file("--agent-file", path, SETTINGS_CAP)?;
        let file: AgentFile = toml::from_str(&text).with_context(|| {
            format!(
                "bad --agent-file {}: fix the TOML (keys are the flag names, options under [options])",
                path.display()
            )
        })?;
        file.agent.check_file_values()?;
        Ok(file)
    }

    /// Checks what an agent file gives against the limits the flags' parsers hold.
    fn check_file_values(&self) -> Result<()> {
        check_options(&self.options).context("bad [options] in --agent-file")?;
        let rounds = [
            ("max_turns", limits::AGENT_ROUNDS, self.max_turns),
            ("max_sessions", limits::AGENT_ROUNDS, self.max_sessions),
            ("max_tool_rounds", limits::TOOL_ROUNDS, self.max_tool_rounds),
            ("vote", limits::VOTES, self.vote),
        ];
        for (key, bounds, value) in rounds {
            if let Some(value) = value {
                bounds
                    .check(i64::from(value))
                    .map_err(|e| anyhow::anyhow!("bad {key} in --agent-file: {e}"))?;
            }
        }
        Ok(())
    }

    /// These settings over `base`: each one given here, else `base`'s (the model
    /// options: these unless none is set). The files and paths are these.
    pub fn over(&self, base: &AgentArgs) -> AgentArgs {
        /// `self.field`, else `base.field`, for each listed field.
        macro_rules! either {
            ($($field:ident),*) => {
                AgentArgs {
                    $($field: self.$field.clone().or_else(|| base.$field.clone()),)*
                    options: if self.options.is_empty() { base.options.clone() } else { self.options.clone() },
                }
            };
        }
        either!(
            agent_file,
            engines,
            mode,
            system,
            user_template,
            labels,
            perspective,
            think,
            temperature,
            model_seed,
            num_ctx,
            num_predict,
            keep_alive,
            max_turns,
            max_sessions,
            max_tool_rounds,
            fallback,
            answer,
            on_invalid,
            answer_format,
            legal_moves,
            answer_reason,
            vote,
            cut_off_message
        )
    }

    /// The agent settings for `model` playing game `R`: the flags over the agent
    /// file, each setting neither gives [`AgentConfig::default`]'s; `prompts` is the
    /// folder prompt names resolve in.
    pub fn config<R: ModelGame>(&self, model: &str, prompts: &Path) -> Result<AgentConfig> {
        let given = self.over(&self.file()?.agent);
        let mut config = AgentConfig::new(model);
        if let Some(system) = &given.system {
            config.system_prompt = Some(Prompt::load(system, prompts).context("bad --system")?);
        }
        if let Some(template) = &given.user_template {
            let template = Prompt::load(template, prompts).context("bad --user-template")?;
            if !template.text.contains("{board}") {
                bail!(
                    "bad --user-template {}: it must contain {{board}} where the board goes",
                    template.source
                );
            }
            config.user_template = Some(template);
        }
        if let Some(fallback) = &given.fallback {
            config.fallback = fallback
                .check::<R>()
                .with_context(|| format!("bad --fallback for {}", R::NAME))?;
        }
        config.mode = given.mode.unwrap_or(config.mode);
        config.style.labels = given.labels.unwrap_or(config.style.labels);
        config.style.perspective = given.perspective.unwrap_or(config.style.perspective);
        config.think = given.think.clone();
        config.options = given.model_options();
        config.keep_alive = given.keep_alive.clone();
        config.max_turns = given.max_turns.unwrap_or(config.max_turns);
        config.max_sessions = given.max_sessions.unwrap_or(config.max_sessions);
        config.max_tool_rounds = given.max_tool_rounds.unwrap_or(config.max_tool_rounds);
        config.answer = given.answer.unwrap_or(config.answer);
        config.on_invalid = given.on_invalid.unwrap_or(config.on_invalid);
        config.answer_format = given.answer_format.unwrap_or(config.answer_format);
        config.answer_reason = given.answer_reason.unwrap_or(config.answer_reason);
        config.vote = given.vote.unwrap_or(config.vote);
        config.cut_off_message = given.cut_off_message;
        config.legal_moves = given.legal_moves.unwrap_or(config.legal_moves);
        config.cap_json_answers();
        config.check()?;
        Ok(config)
    }

    /// The model options: `[options]`, each overridden by its flag.
    fn model_options(&self) -> ChatOptions {
        let mut options = self.options.clone();
        options.temperature = self.temperature.or(options.temperature);
        options.seed = self.model_seed.or(options.seed);
        options.num_ctx = self.num_ctx.or(options.num_ctx);
        options.num_predict = self.num_predict.or(options.num_predict);
        options
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
    use serde_json::Value;

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
        assert_eq!(defaults.style.labels, Labels::Japanese);
    }

    /// A temporary folder for agent files, removed when dropped.
    struct TempDir(PathBuf);

    impl TempDir {
        fn new(name: &str) -> TempDir {
            let dir = std::env::temp_dir().join(format!("othello-arena-{name}-{}", std::process::id()));
            std::fs::create_dir_all(&dir).unwrap();
            TempDir(dir)
        }

        /// An `AgentArgs` with only `--agent-file` set, to a file holding `text`.
        fn agent_file(&self, name: &str, text: &str) -> AgentArgs {
            let file = self.0.join(format!("{name}.toml"));
            std::fs::write(&file, text).unwrap();
            AgentArgs {
                agent_file: Some(file),
                ..AgentArgs::default()
            }
        }
    }

    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    /// The agent flags of `eval` as parsed from `flags`.
    /// JSON answers with no cap given get the default cap (run.json and the eval
    /// table show it); text answers and a cap given are left alone; a resumed run that
    /// recorded JSON answers uncapped stays uncapped.
    #[test]
    fn json_answers_get_a_default_token_cap() {
        let config = |flags: &[&str]| eval_flags(flags).config::<game::Othello>("m", &prompts_dir()).unwrap();
        let json = config(&["--answer-format", "json-legal"]);
        assert_eq!(json.options.num_predict, Some(agent::JSON_ANSWER_TOKENS));
        assert_eq!(
            json.cap_note(),
            format!(
                "answers capped at {} tokens (num_predict, thinking included)",
                agent::JSON_ANSWER_TOKENS
            )
        );
        assert_eq!(config(&[]).options.num_predict, None);
        assert_eq!(config(&[]).cap_note(), "answers not capped (no num_predict)");
        let given = config(&["--answer-format", "json", "--num-predict", "64"]);
        assert_eq!(given.options.num_predict, Some(64));
        let mut recorded = json.clone();
        recorded.options.num_predict = None;
        let mut resumed = json.clone();
        resumed.keep_recorded_cap(&recorded);
        assert_eq!(resumed.options.num_predict, None);
        let mut capped = given.clone();
        capped.keep_recorded_cap(&recorded);
        assert_eq!(capped.options.num_predict, Some(64), "a cap given is kept");
    }

    fn eval_flags(flags: &[&str]) -> AgentArgs {
        use clap::Parser;
        let args = ["othello-arena", "eval", "--agent", "llm:m"].iter().chain(flags);
        let cli = super::super::args::Cli::try_parse_from(args).unwrap();
        let super::super::args::Command::Eval(eval) = cli.command else {
            panic!("eval parses as eval")
        };
        eval.agent
    }

    /// Every word of every enum-valued setting (any case) gives the same settings as a
    /// flag and as an agent file's key.
    #[test]
    fn every_word_reads_alike_from_the_flag_and_the_agent_file() {
        let dir = TempDir::new("words");
        let words: &[(&str, &[&str])] = &[
            ("mode", &["tool", "direct", "DIRECT"]),
            ("labels", &["ja", "EN", "en"]),
            ("perspective", &["absolute", "Relative"]),
            ("think", &["on", "off", "low", "medium", "high", "max", "true", "False"]),
            ("fallback", &["forfeit", "random", "nhand", "alphabeta:4:weight"]),
            ("answer", &["last", "first", "Strict"]),
            ("on_invalid", &["retry", "feedback"]),
            ("answer_format", &["text", "json", "json-legal"]),
            ("legal_moves", &["hidden", "Hidden"]),
        ];
        let default = AgentConfig::new("m");
        for (key, values) in words {
            let flag = format!("--{}", key.replace('_', "-"));
            for word in *values {
                let from_flag = eval_flags(&[&flag, word]).config::<game::Othello>("m", &prompts_dir());
                let file = dir.agent_file(key, &format!("{key} = \"{word}\"\n"));
                let from_file = file.config::<game::Othello>("m", &prompts_dir());
                let (from_flag, from_file) = (from_flag.unwrap(), from_file.unwrap());
                assert_eq!(from_flag, from_file, "{key} = {word}");
                let written = serde_json::to_value(&from_file).unwrap();
                let stored = match *key {
                    "labels" | "perspective" => format!("board_{key}"),
                    _ => key.to_string(),
                };
                assert_ne!(written[&stored], Value::Null, "{key} = {word} is recorded");
            }
        }
        // A switch as TOML writes it, and as the flag takes it.
        for (text, flags) in [
            ("think = true", ["--think", "on"]),
            ("answer_reason = false", ["--answer-reason", "false"]),
        ] {
            let from_file = dir
                .agent_file("switch", text)
                .config::<game::Othello>("m", &prompts_dir());
            let from_flag = eval_flags(&flags).config::<game::Othello>("m", &prompts_dir());
            assert_eq!(from_file.unwrap(), from_flag.unwrap(), "{text}");
        }
        assert_eq!(
            eval_flags(&[]).config::<game::Othello>("m", &prompts_dir()).unwrap(),
            default,
            "nothing given is the defaults"
        );
        let bad = dir.agent_file("bad", "labels = \"fr\"\n");
        let message = format!("{:#}", bad.config::<game::Othello>("m", &prompts_dir()).unwrap_err());
        assert!(
            message.contains("invalid labels \"fr\": expected ja or en"),
            "{message}"
        );
    }

    /// The flags override the file one by one; the file's `[options]`, `api` and `host`
    /// are read, and a key that is no setting is refused.
    #[test]
    fn flags_override_the_agent_file_and_unknown_keys_are_refused() {
        let dir = TempDir::new("over");
        let text = "mode = \"direct\"\nmax_turns = 4\nhost = \"10.0.0.5:8000\"\napi = \"openai\"\n\
                    cut_off_message = \"cut\"\n[options]\ntemperature = 0.5\nnum_ctx = 4096\n";
        let mut args = dir.agent_file("file", text);
        args.max_turns = Some(7);
        args.temperature = Some(0.0);
        let config = args.config::<game::Othello>("m", &prompts_dir()).unwrap();
        assert_eq!((config.mode, config.max_turns), (Mode::Direct, 7));
        assert_eq!(
            (config.options.temperature, config.options.num_ctx),
            (Some(0.0), Some(4096))
        );
        assert_eq!(config.cut_off_message.as_deref(), Some("cut"));
        let hosts = HostArgs::default().settings(&args, &|_| None).unwrap();
        assert_eq!(hosts.hosts.len(), 1);
        assert_eq!(
            (hosts.hosts[0].url.as_str(), hosts.hosts[0].api),
            ("http://10.0.0.5:8000", Api::Openai)
        );
        for unknown in ["colour = \"red\"\n", "agent_file = \"x.toml\"\n", "temperature = 0.5\n"] {
            let args = dir.agent_file("unknown", unknown);
            let message = format!("{:#}", args.config::<game::Othello>("m", &prompts_dir()).unwrap_err());
            assert!(message.contains("unknown field"), "{unknown}: {message}");
        }
    }

    /// A tournament's `[[llm]]` host keys read as the host flags do, their defaults
    /// the flags' own.
    #[test]
    fn host_keys_read_as_the_host_flags() {
        let none: HostArgs = toml::from_str("").unwrap();
        let flags = HostArgs::default();
        assert_eq!(format!("{none:?}"), format!("{flags:?}"));
        let given: HostArgs = toml::from_str(
            "api = \"openai\"\nhost = [\"a:1\", \"b:2\"]\nmax_in_flight = 2\ntimeout = 9.5\nmax_retries = 0\n",
        )
        .unwrap();
        let settings = given.settings(&AgentArgs::default(), &|_| None).unwrap();
        let urls: Vec<&str> = settings.hosts.iter().map(|h| h.url.as_str()).collect();
        assert_eq!(urls, ["http://a:1", "http://b:2"]);
        assert!(settings
            .hosts
            .iter()
            .all(|h| h.max_in_flight == 2 && h.api == Api::Openai));
        assert_eq!((settings.timeout.as_secs_f64(), settings.retry.max_retries), (9.5, 0));
        let err = toml::from_str::<HostArgs>("api = \"grpc\"\n").unwrap_err().to_string();
        assert!(err.contains("unknown api \"grpc\": expected ollama or openai"), "{err}");
        let any_case: HostArgs = toml::from_str("api = \"OpenAI\"\n").unwrap();
        assert_eq!(any_case.api, Some(Api::Openai), "as --api reads it");
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
}

/// `--labels` of `datagen` and of `llm:MODEL` players (and an agent file's `labels`):
/// the board text's language.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum LabelsArg {
    /// Japanese, as seed 000.
    Ja,
    /// English.
    En,
}

impl From<LabelsArg> for Labels {
    fn from(arg: LabelsArg) -> Labels {
        match arg {
            LabelsArg::Ja => Labels::Japanese,
            LabelsArg::En => Labels::English,
        }
    }
}
