//! How an [`AgentConfig`] is stored in run.json: one object whose keys and values are
//! those every version has written, so that a run.json reads back into the settings
//! and writes back byte for byte.
//!
//! - `board_labels` (`ja`, `en`) and `board_perspective` (`absolute`, `relative`)
//!   hold the board style; the other words are the flags' (`mode`, `fallback`,
//!   `answer`, `answer_format`, `on_invalid`), `think` is Ollama's value.
//! - `max_tool_rounds` is `null` for no limit but `max_turns`.
//! - `answer_reason` is `false` when off and `null` when on; `vote` is `null` for
//!   one sample; `cut_off_message` is `null` for the harness's sentence. These three
//!   came later: a run.json without them (an older version wrote it) reads as what
//!   that version did (the reason offered, one sample, the harness's sentence), and
//!   they stay absent when it is written back.
//! - `legal_moves` (`hidden`) is written only for blind play: without it (every older
//!   run, and every run that showed the model its legal moves) the moves were shown.
//! - Any other key left out reads as its default ([`AgentConfig::default`]); a key
//!   this version does not know is ignored.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::{AgentConfig, AnswerFormat, AnswerPolicy, Fallback, InvalidPolicy, LegalMoves, Mode, Prompt};
use game::othello::{Labels, Perspective, TextStyle};
use record::{ChatOptions, Think};

/// The run.json keys of an [`AgentConfig`] that older versions did not write and
/// that the record it was read from lacked: not a setting, so any two are equal.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Unrecorded {
    answer_reason: bool,
    vote: bool,
    cut_off_message: bool,
}

impl PartialEq for Unrecorded {
    /// Always: how a record was written does not change how the agent plays.
    fn eq(&self, _: &Unrecorded) -> bool {
        true
    }
}

/// The run.json form of an [`AgentConfig`] (see the module documentation).
#[derive(Serialize, Deserialize)]
#[serde(default)]
pub(crate) struct Stored {
    model: String,
    name: Option<String>,
    mode: Mode,
    system_prompt: Option<Prompt>,
    user_template: Option<Prompt>,
    board_labels: Labels,
    board_perspective: Perspective,
    think: Option<Think>,
    options: ChatOptions,
    keep_alive: Option<String>,
    max_turns: u32,
    max_sessions: u32,
    max_tool_rounds: Option<u32>,
    fallback: Fallback,
    answer: AnswerPolicy,
    answer_format: AnswerFormat,
    #[serde(
        default,
        deserialize_with = "record::present",
        skip_serializing_if = "Option::is_none"
    )]
    answer_reason: Option<Option<bool>>,
    on_invalid: InvalidPolicy,
    #[serde(skip_serializing_if = "is_shown")]
    legal_moves: LegalMoves,
    #[serde(
        default,
        deserialize_with = "record::present",
        skip_serializing_if = "Option::is_none"
    )]
    vote: Option<Option<u32>>,
    #[serde(
        default,
        deserialize_with = "record::present",
        skip_serializing_if = "Option::is_none"
    )]
    cut_off_message: Option<Option<String>>,
}

impl Default for Stored {
    /// The defaults' record: what a key left out reads as.
    fn default() -> Stored {
        Stored::from(AgentConfig::default())
    }
}

/// Whether the record leaves `legal_moves` out (shown, as every older run).
fn is_shown(legal_moves: &LegalMoves) -> bool {
    legal_moves.shown()
}

/// `Some(value)` unless the key was not recorded and `value` is what its absence reads as.
fn unless_unrecorded<T>(unrecorded: bool, value: T) -> Option<T>
where
    T: PartialEq + Default,
{
    (!unrecorded || value != T::default()).then_some(value)
}

impl From<AgentConfig> for Stored {
    fn from(config: AgentConfig) -> Stored {
        let unrecorded = config.unrecorded;
        Stored {
            model: config.model,
            name: config.name,
            mode: config.mode,
            system_prompt: config.system_prompt,
            user_template: config.user_template,
            board_labels: config.style.labels,
            board_perspective: config.style.perspective,
            think: config.think,
            options: config.options,
            keep_alive: config.keep_alive,
            max_turns: config.max_turns,
            max_sessions: config.max_sessions,
            max_tool_rounds: (config.max_tool_rounds != u32::MAX).then_some(config.max_tool_rounds),
            fallback: config.fallback,
            answer: config.answer,
            answer_format: config.answer_format,
            answer_reason: unless_unrecorded(unrecorded.answer_reason, (!config.answer_reason).then_some(false)),
            on_invalid: config.on_invalid,
            legal_moves: config.legal_moves,
            vote: unless_unrecorded(unrecorded.vote, (config.vote > 1).then_some(config.vote)),
            cut_off_message: unless_unrecorded(unrecorded.cut_off_message, config.cut_off_message),
        }
    }
}

impl From<Stored> for AgentConfig {
    fn from(stored: Stored) -> AgentConfig {
        AgentConfig {
            model: stored.model,
            name: stored.name,
            mode: stored.mode,
            system_prompt: stored.system_prompt,
            user_template: stored.user_template,
            style: TextStyle {
                labels: stored.board_labels,
                perspective: stored.board_perspective,
            },
            think: stored.think,
            options: stored.options,
            keep_alive: stored.keep_alive,
            max_turns: stored.max_turns,
            max_sessions: stored.max_sessions,
            max_tool_rounds: stored.max_tool_rounds.unwrap_or(u32::MAX),
            fallback: stored.fallback,
            answer: stored.answer,
            answer_format: stored.answer_format,
            answer_reason: stored.answer_reason.flatten().unwrap_or(true),
            on_invalid: stored.on_invalid,
            legal_moves: stored.legal_moves,
            vote: stored.vote.flatten().unwrap_or(1),
            unrecorded: Unrecorded {
                answer_reason: stored.answer_reason.is_none(),
                vote: stored.vote.is_none(),
                cut_off_message: stored.cut_off_message.is_none(),
            },
            cut_off_message: stored.cut_off_message.flatten(),
        }
    }
}

impl AgentConfig {
    /// The run.json keys on which these settings and `other` differ, in name order
    /// (sorted): each compared as run.json writes it, a key that a record leaves out read
    /// as what its absence means (an older version's run, the moves shown). Every key
    /// the record has is compared, so a new setting is compared once it is recorded.
    pub fn differing(&self, other: &AgentConfig) -> Vec<String> {
        let written = |config: &AgentConfig| match serde_json::to_value(Stored::from(config.clone())) {
            Ok(Value::Object(keys)) => keys,
            _ => Map::new(),
        };
        let (a, b, absent) = (written(self), written(other), written(&AgentConfig::default()));
        let keys: BTreeSet<&String> = a.keys().chain(b.keys()).collect();
        let read = |record: &Map<String, Value>, key: &str| record.get(key).or_else(|| absent.get(key)).cloned();
        keys.into_iter()
            .filter(|key| read(&a, key) != read(&b, key))
            .cloned()
            .collect()
    }
}

#[cfg(test)]
#[path = "stored_tests.rs"]
mod tests;
