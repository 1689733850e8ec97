//! A tournament `[[llm]]` entry's `grid`: agent settings, each with a list of values,
//! expanded into one player per combination (`llm:MODEL@tool-json-legal`, ...), so an
//! ablation is one file and one `rate`. Each value is read by its agent flag's own
//! parser ([`AgentSettings::from_flags`]: `mode = ["tool"]` is `--mode tool`, held to the
//! flag's range), so a grid takes exactly what the flags take.

use std::fmt;

use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use settings::AgentSettings;

use crate::players::name_part;

/// The most players one grid may expand into (each plays every pairing it is in).
pub(crate) const MAX_GRID_PLAYERS: usize = 64;

/// The settings of a grid in the file's order, each with its values.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Grid(Vec<(String, Vec<toml::Value>)>);

/// One combination of a grid: the agent settings it sets and the name parts it gives.
#[derive(Clone, Debug, PartialEq)]
pub struct GridPlayer {
    /// The settings, as the flags with its values give them (`--mode tool ...`).
    pub settings: AgentSettings,
    /// The player-name parts, one per setting (`tool`, `json-legal`, `vote-3`).
    pub name_parts: Vec<String>,
}

/// A grid that cannot be expanded.
#[derive(Debug, thiserror::Error)]
pub enum GridError {
    /// A setting with no value.
    #[error("grid {key} = []: give at least one value")]
    NoValue {
        /// The setting.
        key: String,
    },
    /// A value no flag takes (a list, a table, a date).
    #[error("grid {key}: {value} is not a value a flag takes (give strings, numbers or true/false)")]
    NotAFlagValue {
        /// The setting.
        key: String,
        /// The value, as TOML writes it.
        value: String,
    },
    /// The flag's parser refused the value.
    #[error("grid {key} = {text:?}: {why} (grid keys are the agent flags, as mode or answer_format)")]
    Refused {
        /// The setting.
        key: String,
        /// The value, as its flag's text.
        text: String,
        /// The parser's reason.
        why: String,
    },
    /// Too many combinations.
    #[error("the grid expands into {players} players: give at most {MAX_GRID_PLAYERS} (fewer values, or two entries)")]
    TooMany {
        /// The combinations.
        players: usize,
    },
}

/// `--answer-format` for the key `answer_format`.
fn grid_flag(key: &str) -> String {
    format!("--{}", key.replace('_', "-"))
}

/// A TOML value as its flag's text (strings as they are, numbers and booleans written).
fn flag_value(key: &str, value: &toml::Value) -> Result<String, GridError> {
    match value {
        toml::Value::String(text) => Ok(text.clone()),
        toml::Value::Integer(_) | toml::Value::Float(_) | toml::Value::Boolean(_) => Ok(value.to_string()),
        other => Err(GridError::NotAFlagValue {
            key: key.to_string(),
            value: other.to_string(),
        }),
    }
}

impl Grid {
    /// Whether the grid varies `key`.
    pub fn varies(&self, key: &str) -> bool {
        self.0.iter().any(|(k, _)| k == key)
    }

    /// Every combination, the first setting varying slowest; each value read alone by
    /// its flag's parser first, so the message names the key and the value.
    pub fn players(&self) -> Result<Vec<GridPlayer>, GridError> {
        let mut settings: Vec<(&str, Vec<String>)> = Vec::new();
        let mut players = 1usize;
        for (key, values) in &self.0 {
            if values.is_empty() {
                return Err(GridError::NoValue { key: key.clone() });
            }
            let texts = values
                .iter()
                .map(|value| flag_value(key, value))
                .collect::<Result<Vec<_>, _>>()?;
            for text in &texts {
                AgentSettings::from_flags(&[grid_flag(key), text.clone()]).map_err(|why| GridError::Refused {
                    key: key.clone(),
                    text: text.clone(),
                    why,
                })?;
            }
            players = players.saturating_mul(texts.len());
            settings.push((key, texts));
        }
        if players > MAX_GRID_PLAYERS {
            return Err(GridError::TooMany { players });
        }
        Ok((0..players)
            .map(|index| {
                let (mut flags, mut name_parts) = (Vec::new(), Vec::new());
                let mut rest = index;
                for (key, texts) in settings.iter().rev() {
                    let text = &texts[rest % texts.len()];
                    rest /= texts.len();
                    flags.extend([grid_flag(key), text.clone()]);
                    name_parts.push(name_part(key, text));
                }
                name_parts.reverse();
                let settings = AgentSettings::from_flags(&flags).expect("each value was read alone above");
                GridPlayer { settings, name_parts }
            })
            .collect())
    }
}

impl<'de> Deserialize<'de> for Grid {
    /// Reads the table keeping its keys in the file's order (the names' order; the
    /// `toml` crate keeps it with its `preserve_order` feature).
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Grid, D::Error> {
        struct InOrder;
        impl<'de> Visitor<'de> for InOrder {
            type Value = Grid;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a table of agent settings, each a list of values, as { mode = [\"tool\", \"direct\"] }")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Grid, A::Error> {
                let mut settings = Vec::new();
                while let Some((key, values)) = map.next_entry::<String, Vec<toml::Value>>()? {
                    settings.push((key, values));
                }
                Ok(Grid(settings))
            }
        }
        deserializer.deserialize_map(InOrder)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn players(text: &str) -> Result<Vec<GridPlayer>, GridError> {
        #[derive(serde::Deserialize)]
        struct Entry {
            grid: Grid,
        }
        let entry: Entry = toml::from_str(text).unwrap();
        entry.grid.players()
    }

    #[test]
    fn a_grid_expands_in_the_files_order_with_names_from_its_values() {
        let found = players(r#"grid = { mode = ["tool", "direct"], answer_format = ["text", "json-legal"] }"#).unwrap();
        let names: Vec<String> = found.iter().map(|v| v.name_parts.join("-")).collect();
        assert_eq!(
            names,
            ["tool-text", "tool-json-legal", "direct-text", "direct-json-legal"]
        );
        assert_eq!(found[3].settings.mode, Some(settings::Mode::Direct));
        assert_eq!(found[3].settings.answer_format, Some(settings::AnswerFormat::JsonLegal));
        let found = players(
            r#"grid = { vote = [1, 3], think = ["High"], answer_reason = [false], system = ["prompts/direct-en.md"] }"#,
        )
        .unwrap();
        assert_eq!(
            found[1].name_parts,
            ["vote-3", "think-high", "answer-reason-false", "direct-en"]
        );
        assert_eq!(
            (found[1].settings.vote, found[1].settings.answer_reason),
            (Some(3), Some(false))
        );
    }

    #[test]
    fn a_bad_grid_is_refused_naming_the_key_and_value() {
        let message = |text: &str| players(text).unwrap_err().to_string();
        assert!(message(r#"grid = { mode = [] }"#).contains("grid mode = []"));
        let range = message(r#"grid = { vote = [0] }"#);
        assert!(
            range.contains("grid vote = \"0\"") && range.contains("1 to 16"),
            "{range}"
        );
        assert!(message(r#"grid = { mode = [["tool"]] }"#).contains("not a value a flag takes"));
        let unknown = message(r#"grid = { colour = ["red"] }"#);
        assert!(
            unknown.contains("grid colour = \"red\"") && unknown.contains("agent flags"),
            "{unknown}"
        );
        let wide = r#"grid = { vote = [1, 2, 3, 4, 5, 6, 7, 8], max_turns = [1, 2, 3, 4, 5, 6, 7, 8, 9] }"#;
        assert!(message(wide).contains("72 players"));
    }
}
