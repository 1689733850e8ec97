//! A tournament `[[llm]]` entry's `grid`: agent settings, each with a list of values,
//! expanded into one player per combination (`llm:MODEL@tool-json-legal`, ...), so an
//! ablation is one file and one `rate`. Each value is read by its flag's own parser
//! (`mode = ["tool"]` is `--mode tool`), so a grid takes exactly what the flags take.

use std::fmt;

use anyhow::{bail, Result};
use clap::Parser;
use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};

use super::agent_args::AgentArgs;
use runs::name_part;

/// The most players one grid may expand into (each plays every pairing it is in).
pub const MAX_PLAYERS: usize = 64;

/// The settings of a grid in the file's order, each with its values.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Grid(Vec<(String, Vec<toml::Value>)>);

/// One combination of a grid: the agent flags it sets and the name parts it gives.
#[derive(Debug)]
pub struct Variant {
    /// The flags, over the entry's agent file.
    pub agent: AgentArgs,
    /// The player-name parts, one per setting (`tool`, `json-legal`, `vote-3`).
    pub name_parts: Vec<String>,
}

/// The agent flags alone, parsed by clap as on a command line.
#[derive(Parser)]
#[command(no_binary_name = true)]
struct GridFlags {
    #[command(flatten)]
    agent: AgentArgs,
}

impl Grid {
    /// Whether the grid varies `key`.
    pub fn varies(&self, key: &str) -> bool {
        self.0.iter().any(|(k, _)| k == key)
    }

    /// Every combination over `base` (the entry's own flags), the first setting
    /// varying slowest; each value checked by its flag's parser, the message naming
    /// the key and the value.
    pub fn variants(&self, base: &AgentArgs) -> Result<Vec<Variant>> {
        let mut settings: Vec<(String, Vec<String>)> = Vec::new();
        let mut players = 1usize;
        for (key, values) in &self.0 {
            if values.is_empty() {
                bail!("grid {key} = []: give at least one value");
            }
            let texts = values
                .iter()
                .map(|value| flag_value(key, value))
                .collect::<Result<Vec<_>>>()?;
            for text in &texts {
                GridFlags::try_parse_from([flag(key), text.clone()]).map_err(|e| {
                    let why = e.to_string();
                    let why = why.lines().next().unwrap_or_default().trim_start_matches("error: ");
                    anyhow::anyhow!(
                        "grid {key} = {text:?}: {why} (grid keys are the agent flags, as mode or answer_format)"
                    )
                })?;
            }
            players = players.saturating_mul(texts.len());
            settings.push((key.clone(), texts));
        }
        if players > MAX_PLAYERS {
            bail!("the grid expands into {players} players: give at most {MAX_PLAYERS} (fewer values, or two entries)");
        }
        let mut variants = Vec::with_capacity(players);
        for index in 0..players {
            let mut args = Vec::new();
            let mut name_parts = Vec::new();
            let mut rest = index;
            for (key, texts) in settings.iter().rev() {
                let text = &texts[rest % texts.len()];
                rest /= texts.len();
                args.extend([flag(key), text.clone()]);
                name_parts.push(name_part(key, text));
            }
            name_parts.reverse();
            let flags = GridFlags::try_parse_from(args).expect("each value parsed alone above");
            variants.push(Variant {
                agent: flags.agent.over(base),
                name_parts,
            });
        }
        Ok(variants)
    }
}

/// `--answer-format` for the key `answer_format`.
fn flag(key: &str) -> String {
    format!("--{}", key.replace('_', "-"))
}

/// A TOML value as its flag's text (strings as they are, numbers and booleans written).
fn flag_value(key: &str, value: &toml::Value) -> Result<String> {
    match value {
        toml::Value::String(text) => Ok(text.clone()),
        toml::Value::Integer(_) | toml::Value::Float(_) | toml::Value::Boolean(_) => Ok(value.to_string()),
        other => bail!("grid {key}: {other} is not a value a flag takes (give strings, numbers or true/false)"),
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

    fn grid(text: &str) -> Result<Vec<Variant>> {
        #[derive(serde::Deserialize)]
        struct Entry {
            grid: Grid,
        }
        let entry: Entry = toml::from_str(text).unwrap();
        entry.grid.variants(&AgentArgs::default())
    }

    #[test]
    fn a_grid_expands_in_the_files_order_with_names_from_its_values() {
        let variants = grid(r#"grid = { mode = ["tool", "direct"], answer_format = ["text", "json-legal"] }"#).unwrap();
        let names: Vec<String> = variants.iter().map(|v| v.name_parts.join("-")).collect();
        assert_eq!(
            names,
            ["tool-text", "tool-json-legal", "direct-text", "direct-json-legal"]
        );
        assert_eq!(variants[3].agent.mode, Some(agent::Mode::Direct));
        assert_eq!(variants[3].agent.answer_format, Some(agent::AnswerFormat::JsonLegal));

        let variants = grid(
            r#"grid = { vote = [1, 3], think = ["High"], answer_reason = [false], system = ["prompts/direct-en.md"] }"#,
        )
        .unwrap();
        assert_eq!(
            variants[1].name_parts,
            ["vote-3", "think-high", "answer-reason-false", "direct-en"]
        );
        assert_eq!(variants[1].agent.vote, Some(3));
        assert_eq!(variants[1].agent.answer_reason, Some(false));
    }

    #[test]
    fn a_bad_grid_is_refused_naming_the_key_and_value() {
        let message = |text: &str| grid(text).unwrap_err().to_string();
        assert!(message(r#"grid = { mode = [] }"#).contains("grid mode = []"));
        let unknown = message(r#"grid = { colour = ["red"] }"#);
        assert!(
            unknown.contains("grid colour = \"red\"") && unknown.contains("agent flags"),
            "{unknown}"
        );
        let range = message(r#"grid = { vote = [0] }"#);
        assert!(
            range.contains("grid vote = \"0\"") && range.contains("1 to 16"),
            "{range}"
        );
        assert!(message(r#"grid = { mode = [["tool"]] }"#).contains("not a value a flag takes"));
        let wide = r#"grid = { vote = [1, 2, 3, 4, 5, 6, 7, 8], max_turns = [1, 2, 3, 4, 5, 6, 7, 8, 9] }"#;
        assert!(message(wide).contains("72 players"));
    }
}
