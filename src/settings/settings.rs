//! The agent's settings as a user gives them ([`AgentSettings`]): each declared once,
//! with its help, its flag, its agent-file key and its range; each one optional,
//! filled alike from the command line's flags and from an agent file (TOML under the
//! flags' names), held to its range ([`AgentSettings::check`]), then resolved into one
//! [`AgentConfig`] ([`AgentSettings::config`]), whose defaults are the only ones.

use std::path::Path;

use clap::builder::{PossibleValuesParser, TypedValueParser};
use clap::{Args, ValueEnum};
use serde::Deserialize;

use crate::config::{AgentConfig, ConflictError};
use crate::limits::{Limit, AGENT_ROUNDS, NUM_CTX, NUM_PREDICT, TEMPERATURE, TOOL_ROUNDS, VOTES};
use crate::prompt::{Prompt, PromptError};
use crate::words::{AnswerFormat, AnswerPolicy, Fallback, InvalidPolicy, LegalMoves, Mode, ParseFallbackError};
use engines::Engines;
use game::othello::{Labels, Perspective};
use record::{ChatOptions, Think};

/// Declares [`AgentSettings`], one entry per setting: its doc comment (the flag's
/// help), its clap and serde attributes, its type, and after `in` the range it is held
/// to. From the one entry come the flag (clap reads it through the range), the agent
/// file's key (serde), [`AgentSettings::over`] and the range check of
/// [`AgentSettings::check`]. A setting with no flag carries `#[arg(skip)]`; one with no
/// file key `#[serde(skip)]`.
macro_rules! agent_settings {
    ($(
        $(#[$attr:meta])*
        $name:ident: $ty:ident $(in $range:expr)?;
    )*) => {
        /// The agent's settings as given, by flags or by an agent file (the flags'
        /// names with `_`, the model options under `[options]`): each `None` one is
        /// [`AgentConfig`]'s default. The four options that have flags of their own
        /// (`temperature`, `model_seed`, `num_ctx`, `num_predict`) are flags only.
        // The field docs are the flags' help, written for a terminal (`</think>` as is).
        #[allow(rustdoc::invalid_html_tags)]
        #[derive(Clone, Debug, Default, PartialEq, Args, Deserialize)]
        #[serde(default, deny_unknown_fields)]
        pub struct AgentSettings {
            $(
                $(#[$attr])*
                $(#[arg(value_parser = Limit::<$ty>::parser(&$range))])?
                pub $name: Option<$ty>,
            )*
            /// The model options (an agent file's `[options]`).
            #[arg(skip)]
            pub options: ChatOptions,
        }

        impl AgentSettings {
            /// These settings over `base`: each one given here, else `base`'s (the
            /// model options: these unless none is set).
            pub fn over(&self, base: &AgentSettings) -> AgentSettings {
                AgentSettings {
                    $($name: self.$name.clone().or_else(|| base.$name.clone()),)*
                    options: if self.options.is_empty() { base.options.clone() } else { self.options.clone() },
                }
            }

            /// Each setting given that has a range, held to it.
            fn check_ranges(&self) -> Result<(), RangeError> {
                $($(
                    in_range(&$range, self.$name).map_err(|message| RangeError::Setting {
                        key: stringify!($name),
                        message,
                    })?;
                )?)*
                Ok(())
            }
        }
    };
}

agent_settings! {
    /// tool (simulate_move, several turns) or direct (one answer after </think>).
    #[arg(long)]
    mode: Mode;
    /// System prompt: a file, or a name in ./prompts/ or built in (such as tool-ja;
    /// `othello-arena prompts` lists them).
    #[arg(long)]
    system: String;
    /// User-message template: a file, or a name in ./prompts/ or built in; {board}, {color} and
    /// {legal_moves} are filled in (default: the board text alone).
    #[arg(long)]
    user_template: String;
    /// Board text labels: ja (seed 000) or en.
    #[arg(long, ignore_case = true, value_parser = labels_parser())]
    labels: Labels;
    /// Board letters: absolute (B = black) or relative (B = side to move).
    #[arg(long)]
    perspective: Perspective;
    /// Thinking: on, off, or a level (low, medium, high), sent as Ollama's think
    /// (true, false or the level) or, on OpenAI-compatible servers, as llama.cpp's
    /// chat_template_kwargs.enable_thinking (on, off) or reasoning_effort (a level).
    /// Unset: the server decides.
    #[arg(long)]
    think: Think;
    /// Sampling temperature.
    #[arg(long)]
    #[serde(skip)]
    temperature: f64 in TEMPERATURE;
    /// Sampling seed sent to the server.
    #[arg(long)]
    #[serde(skip)]
    model_seed: i64;
    /// Context window (num_ctx).
    #[arg(long)]
    #[serde(skip)]
    num_ctx: u32 in NUM_CTX;
    /// Most tokens per answer, thinking included (Ollama num_predict, OpenAI max_tokens;
    /// also --max-answer-tokens).
    #[arg(long, alias = "max-answer-tokens")]
    #[serde(skip)]
    num_predict: i32 in NUM_PREDICT;
    /// How long the server keeps the model loaded (keep_alive), such as 10m.
    #[arg(long)]
    keep_alive: String;
    /// Requests per session, T (default 10).
    #[arg(long)]
    max_turns: u32 in AGENT_ROUNDS;
    /// Sessions per move, A (default 3).
    #[arg(long)]
    max_sessions: u32 in AGENT_ROUNDS;
    /// Rounds of tool calls per session before tools are withheld and an answer is
    /// asked for (default: no limit but --max-turns).
    #[arg(long)]
    max_tool_rounds: u32 in TOOL_ROUNDS;
    /// Who moves when every session failed: an engine spec (default random), or
    /// forfeit (no move: the game ends, lost by the agent, scored as a 64-disc loss).
    #[arg(long)]
    fallback: Fallback;
    /// Which coordinate of an answer counts: last (default), first or strict.
    #[arg(long)]
    answer: AnswerPolicy;
    /// retry (new session, seed behaviour) or feedback (tell the model, continue).
    #[arg(long)]
    on_invalid: InvalidPolicy;
    /// text (read the move from free text), json or json-legal (the answering request
    /// carries a JSON schema the server holds the model to: any square, or only legal
    /// moves).
    #[arg(long)]
    answer_format: AnswerFormat;
    /// shown (default: the board text, the feedback after an invalid answer and the
    /// tool's results name the legal moves) or hidden (blind play: the model is never
    /// told them; refused with json-legal or a template with {legal_moves}).
    #[arg(long)]
    legal_moves: LegalMoves;
    /// With a JSON answer format: offer the optional "reason" beside the move (default
    /// true; false keeps a small model from spending its token cap on it).
    #[arg(long)]
    answer_reason: bool;
    /// Samples per decision, K (default 1): above 1, every sample is asked at the given
    /// temperature and the most frequent legal move is played (ties to the earliest);
    /// costs K times the requests.
    #[arg(long)]
    vote: u32 in VOTES;
    /// What the model is told after an answer cut off at the token limit (an agent
    /// file's key only).
    #[arg(skip)]
    cut_off_message: String;
}

/// `value`, when given, held to `limit`.
fn in_range<T, L: Limit<T>>(limit: &L, value: Option<T>) -> Result<(), String> {
    value.map_or(Ok(()), |value| limit.check_value(value).map(drop))
}

/// A setting given out of its range: by its key (as an agent file names it, the flag
/// with `_`) or, for a model option, under `[options]`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RangeError {
    /// A setting.
    #[error("bad {key}: {message}")]
    Setting {
        /// Its key.
        key: &'static str,
        /// The value and the range.
        message: String,
    },
    /// A model option of `[options]`.
    #[error("bad [options]: {key}: {message}")]
    Option {
        /// Its key under `[options]`.
        key: &'static str,
        /// The value and the range.
        message: String,
    },
}

/// `--labels`' words, which its help lists (those of [`LabelsArg`], `datagen`'s
/// too), read as [`Labels`].
fn labels_parser() -> impl TypedValueParser<Value = Labels> {
    let words = LabelsArg::value_variants()
        .iter()
        .filter_map(ValueEnum::to_possible_value);
    PossibleValuesParser::new(words).try_map(|word| word.parse::<Labels>())
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

/// Agent settings that cannot be used (the messages name the flag, as the agent file's
/// keys are the flags').
#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    /// The system prompt cannot be read.
    #[error("bad --system")]
    System(#[source] PromptError),
    /// The user template cannot be read.
    #[error("bad --user-template")]
    UserTemplate(#[source] PromptError),
    /// The user template has no place for the board.
    #[error("bad --user-template {template}: it must contain {{board}} where the board goes")]
    NoBoard {
        /// The template's name or path.
        template: String,
    },
    /// The fallback is no player of the game.
    #[error("bad --fallback for {game}")]
    Fallback {
        /// The game's name.
        game: &'static str,
        /// Why.
        #[source]
        source: ParseFallbackError,
    },
    /// Settings that cannot go together.
    #[error(transparent)]
    Conflict(#[from] ConflictError),
    /// A setting out of its range.
    #[error(transparent)]
    Range(#[from] RangeError),
}

impl AgentSettings {
    /// Holds each setting given, and each model option, to its range (the flags' parsers
    /// hold a flag to the same one, with the same words): what an agent file, a
    /// tournament's `[[llm]]` table or a library caller gives is checked as a flag is.
    pub fn check(&self) -> Result<(), RangeError> {
        let options = &self.options;
        let bad = |key| move |message| RangeError::Option { key, message };
        in_range(&TEMPERATURE, options.temperature).map_err(bad("temperature"))?;
        in_range(&NUM_CTX, options.num_ctx).map_err(bad("num_ctx"))?;
        in_range(&NUM_PREDICT, options.num_predict).map_err(bad("num_predict"))?;
        self.check_ranges()
    }

    /// The agent's settings for `model` playing game `R`: each one these give, else
    /// [`AgentConfig::default`]'s; prompt names resolve in the folder `prompts`. JSON
    /// answers get their default cap ([`AgentConfig::cap_json_answers`]), and settings
    /// that cannot go together are refused ([`AgentConfig::check`]), as is a setting out
    /// of its range ([`AgentSettings::check`]).
    pub fn config<R: Engines>(&self, model: &str, prompts: &Path) -> Result<AgentConfig, SettingsError> {
        self.check()?;
        let mut config = AgentConfig::new(model);
        if let Some(system) = &self.system {
            config.system_prompt = Some(Prompt::load(system, prompts).map_err(SettingsError::System)?);
        }
        if let Some(template) = &self.user_template {
            let template = Prompt::load(template, prompts).map_err(SettingsError::UserTemplate)?;
            if !template.text.contains("{board}") {
                return Err(SettingsError::NoBoard {
                    template: template.source,
                });
            }
            config.user_template = Some(template);
        }
        if let Some(fallback) = &self.fallback {
            config.fallback = fallback
                .check::<R>()
                .map_err(|source| SettingsError::Fallback { game: R::NAME, source })?;
        }
        let given = self.clone();
        config.mode = given.mode.unwrap_or(config.mode);
        config.style.labels = given.labels.unwrap_or(config.style.labels);
        config.style.perspective = given.perspective.unwrap_or(config.style.perspective);
        config.think = given.think;
        config.options = self.model_options();
        config.keep_alive = given.keep_alive;
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

    /// The settings a command line of agent flags gives (`["--mode", "tool"]`), each
    /// read by its flag's own parser (and so held to its range), or, when one is
    /// refused, the first line of clap's reason.
    pub fn from_flags(flags: &[String]) -> Result<AgentSettings, String> {
        use clap::Parser;
        Flags::try_parse_from(flags).map(|flags| flags.settings).map_err(|e| {
            let why = e.to_string();
            why.lines()
                .next()
                .unwrap_or_default()
                .trim_start_matches("error: ")
                .to_string()
        })
    }

    /// The model options: `[options]`, each overridden by its own setting.
    fn model_options(&self) -> ChatOptions {
        let mut options = self.options.clone();
        options.temperature = self.temperature.or(options.temperature);
        options.seed = self.model_seed.or(options.seed);
        options.num_ctx = self.num_ctx.or(options.num_ctx);
        options.num_predict = self.num_predict.or(options.num_predict);
        options
    }
}

/// The agent settings as flags alone ([`AgentSettings::from_flags`]).
#[derive(clap::Parser)]
#[command(no_binary_name = true)]
struct Flags {
    #[command(flatten)]
    settings: AgentSettings,
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;
    use game::Othello;

    /// One declaration gives the flag, the file key and the range: a flag out of range
    /// is refused by clap, the same value from a file or a library caller by
    /// `config`, with the same words.
    #[test]
    fn a_range_holds_for_the_flag_the_file_and_a_library_caller() {
        let flag = Flags::try_parse_from(["--max-turns", "0"]).err().unwrap().to_string();
        assert!(flag.contains("0 is out of range: give 1 to 100"), "{flag}");
        let file: AgentSettings = toml::from_str("max_turns = 0\n").unwrap();
        let by_hand = AgentSettings {
            max_turns: Some(0),
            ..AgentSettings::default()
        };
        assert_eq!(file, by_hand);
        let refused = by_hand.config::<Othello>("m", &crate::prompts_dir()).unwrap_err();
        assert_eq!(refused.to_string(), "bad max_turns: 0 is out of range: give 1 to 100");
        let options: AgentSettings = toml::from_str("[options]\ntemperature = -1.0\n").unwrap();
        assert_eq!(
            options.check(),
            Err(RangeError::Option {
                key: "temperature",
                message: "-1 is out of range: give a temperature from 0 to 10".to_string(),
            })
        );
        let given = Flags::try_parse_from(["--max-turns", "7", "--temperature", "0.5"]).unwrap();
        let config = given.settings.config::<Othello>("m", &crate::prompts_dir()).unwrap();
        assert_eq!((config.max_turns, config.options.temperature), (7, Some(0.5)));
        let flags =
            |flags: &[&str]| AgentSettings::from_flags(&flags.iter().map(|f| f.to_string()).collect::<Vec<_>>());
        assert_eq!(flags(&["--max-turns", "7"]).unwrap().max_turns, Some(7));
        let refused = flags(&["--vote", "0"]).unwrap_err();
        assert!(
            refused.starts_with("invalid value '0' for '--vote <VOTE>'"),
            "{refused}"
        );
        assert!(refused.contains("1 to 16"), "{refused}");
    }
}
