//! A request's model settings as sent and as run.json records them: the sampling and
//! context options ([`ChatOptions`], Ollama's `options`) and thinking ([`Think`]). The
//! HTTP client sends them; the recorded agent settings hold them; reading either needs
//! no HTTP client.

use serde::{Deserialize, Deserializer, Serialize};

/// Whether and how much the model should think (Ollama's `think`): written as Ollama's
/// value (`true`, `false` or the level), read from that or from the `--think` words.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum Think {
    /// On or off.
    Enabled(bool),
    /// A level: low, medium, high (or max).
    Level(String),
}

/// A thinking setting that is neither on, off nor a level.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid thinking {text:?}: expected on, off, low, medium, high or max (or true, false)")]
pub struct ParseThinkError {
    /// The text given (trimmed, lowercase).
    pub text: String,
}

impl std::str::FromStr for Think {
    type Err = ParseThinkError;

    /// `on`/`true`, `off`/`false`, or a level (`low`, `medium`, `high`, `max`), any case.
    fn from_str(text: &str) -> Result<Think, ParseThinkError> {
        match text.trim().to_ascii_lowercase().as_str() {
            "true" | "on" => Ok(Think::Enabled(true)),
            "false" | "off" => Ok(Think::Enabled(false)),
            level @ ("low" | "medium" | "high" | "max") => Ok(Think::Level(level.to_string())),
            other => Err(ParseThinkError {
                text: other.to_string(),
            }),
        }
    }
}

impl<'de> Deserialize<'de> for Think {
    /// A boolean, or any text `Think` parses from (its `FromStr`).
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Think, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Given {
            Switch(bool),
            Text(String),
        }
        match Given::deserialize(deserializer)? {
            Given::Switch(on) => Ok(Think::Enabled(on)),
            Given::Text(text) => text.parse().map_err(serde::de::Error::custom),
        }
    }
}

/// Sampling and context options (Ollama's `options`; unset ones are left out).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChatOptions {
    /// Sampling temperature.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// Sampling seed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seed: Option<i64>,
    /// Context window in tokens.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub num_ctx: Option<u32>,
    /// Most tokens to generate per answer (-1: no limit).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub num_predict: Option<i32>,
    /// Nucleus sampling.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub top_p: Option<f64>,
    /// Top-k sampling.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub top_k: Option<u32>,
}

impl ChatOptions {
    /// Whether no option is set.
    pub fn is_empty(&self) -> bool {
        *self == ChatOptions::default()
    }
}

/// A file's word read by its flag's parser (`FromStr`, any case) where the type's own
/// serde reading differs (derived for another format): `api = "OpenAI"` as `--api`
/// reads it.
pub fn by_its_parser<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: std::str::FromStr,
    T::Err: std::fmt::Display,
{
    let text = Option::<String>::deserialize(deserializer)?;
    text.map(|text| text.parse().map_err(serde::de::Error::custom))
        .transpose()
}
