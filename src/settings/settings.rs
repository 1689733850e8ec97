//! The agent's settings as a user gives them ([`AgentSettings`]): each one optional,
//! filled alike from the command line's flags and from an agent file ([`AgentFile`],
//! TOML under the flags' names), then resolved into one [`AgentConfig`]
//! ([`AgentSettings::config`]), whose defaults are the only ones.

use std::path::Path;

use serde::Deserialize;

use crate::config::{AgentConfig, ConflictError};
use crate::prompt::{Prompt, PromptError};
use crate::words::{AnswerFormat, AnswerPolicy, Fallback, InvalidPolicy, LegalMoves, Mode, ParseFallbackError};
use engines::Engines;
use game::othello::{Labels, Perspective};
use record::{ChatOptions, Think};

/// The agent's settings as given: each `None` (or empty) one is [`AgentConfig`]'s
/// default. An agent file holds them under these names (the flags' names with `_`),
/// the model options under `[options]`; the four options that have flags of their own
/// (`temperature`, `model_seed`, `num_ctx`, `num_predict`) are flags only.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AgentSettings {
    /// Tool or direct.
    pub mode: Option<Mode>,
    /// The system prompt: a file, or a name in the prompts folder.
    pub system: Option<String>,
    /// The user-message template: a file, or a name in the prompts folder.
    pub user_template: Option<String>,
    /// The board text's labels.
    pub labels: Option<Labels>,
    /// The board text's letters.
    pub perspective: Option<Perspective>,
    /// Thinking, as the server takes it.
    pub think: Option<Think>,
    /// The sampling temperature (a flag; over `[options]`).
    #[serde(skip)]
    pub temperature: Option<f64>,
    /// The sampling seed (a flag; over `[options]`).
    #[serde(skip)]
    pub model_seed: Option<i64>,
    /// The context window (a flag; over `[options]`).
    #[serde(skip)]
    pub num_ctx: Option<u32>,
    /// The most tokens per answer (a flag; over `[options]`).
    #[serde(skip)]
    pub num_predict: Option<i32>,
    /// How long the server keeps the model loaded.
    pub keep_alive: Option<String>,
    /// Requests per session.
    pub max_turns: Option<u32>,
    /// Sessions per move.
    pub max_sessions: Option<u32>,
    /// Tool rounds per session.
    pub max_tool_rounds: Option<u32>,
    /// Who moves when every session failed.
    pub fallback: Option<Fallback>,
    /// Which coordinate of an answer counts (any case, as its flag reads it).
    #[serde(deserialize_with = "record::by_its_parser")]
    pub answer: Option<AnswerPolicy>,
    /// What an invalid answer gets.
    pub on_invalid: Option<InvalidPolicy>,
    /// Free text or JSON answers.
    pub answer_format: Option<AnswerFormat>,
    /// Whether the model is told the legal moves.
    pub legal_moves: Option<LegalMoves>,
    /// Whether a JSON answer offers a reason.
    pub answer_reason: Option<bool>,
    /// Samples per decision.
    pub vote: Option<u32>,
    /// What the model is told after an answer cut off at the token limit.
    pub cut_off_message: Option<String>,
    /// The model options (`[options]`).
    pub options: ChatOptions,
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
}

/// `$then!(flags; file_only)` over the names of [`AgentSettings`]' optional fields (all
/// but `options`): first those that are also command-line flags (the CLI's agent flags
/// bear these names), then those an agent file alone gives. The one list that
/// [`AgentSettings::over`] and the CLI's flags go through, so a new setting is one edit
/// here (and its field).
#[macro_export]
macro_rules! for_each_setting {
    ($then:ident) => {
        $then!(
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
            vote;
            cut_off_message
        )
    };
}

impl AgentSettings {
    /// These settings over `base`: each one given here, else `base`'s (the model
    /// options: these unless none is set).
    pub fn over(&self, base: &AgentSettings) -> AgentSettings {
        /// `self.field`, else `base.field`, for each setting.
        macro_rules! either {
            ($($flag:ident),*; $($file_only:ident),*) => {
                AgentSettings {
                    $($flag: self.$flag.clone().or_else(|| base.$flag.clone()),)*
                    $($file_only: self.$file_only.clone().or_else(|| base.$file_only.clone()),)*
                    options: if self.options.is_empty() { base.options.clone() } else { self.options.clone() },
                }
            };
        }
        crate::for_each_setting!(either)
    }

    /// The agent's settings for `model` playing game `R`: each one these give, else
    /// [`AgentConfig::default`]'s; prompt names resolve in the folder `prompts`. JSON
    /// answers get their default cap ([`AgentConfig::cap_json_answers`]), and settings
    /// that cannot go together are refused ([`AgentConfig::check`]).
    pub fn config<R: Engines>(&self, model: &str, prompts: &Path) -> Result<AgentConfig, SettingsError> {
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
