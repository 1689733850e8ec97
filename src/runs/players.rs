//! A player is its settings: runs of one model with different agent settings (system
//! prompt, template, mode, answer format, any setting run.json records) are different
//! players, named by what differs as a tournament grid names its players
//! (`llm:MODEL@direct-en`, `llm:MODEL@tool-json-legal`). [`PlayerNames`] is the one
//! grouping every reader calls: `rate`, `stats`, `report`, `compare` and the
//! tournament's final table (through [`crate::RunGame::from_logs`] and
//! [`crate::Groups::read`]).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;
use settings::AgentConfig;

use crate::logs::GameLogs;
use crate::run_file::{RunFile, RunKind};

/// Settings that do not make another player: the player's name itself, and how long
/// the server keeps the model loaded.
const NOT_PLAY: [&str; 2] = ["name", "keep_alive"];

/// Each run's players as the readers name them: a player whose name (in the logs)
/// other runs give to other settings is renamed by what differs.
#[derive(Clone, Debug, Default)]
pub struct PlayerNames {
    /// (run folder, name in the logs) -> name by its settings, for renamed players only.
    renamed: BTreeMap<(PathBuf, String), String>,
}

impl PlayerNames {
    /// The names of the players of `logs`, their settings read from each run's run.json
    /// (a run without a readable one keeps its players' names).
    pub fn of(logs: &GameLogs) -> PlayerNames {
        // Per name in the logs: each distinct setting, with the runs that played it.
        let mut variants: BTreeMap<String, Vec<(AgentConfig, Vec<PathBuf>)>> = BTreeMap::new();
        for run in logs.runs() {
            for config in run_agents(run) {
                let seen = variants.entry(config.spec()).or_default();
                match seen.iter_mut().find(|(other, _)| same_player(other, &config)) {
                    Some((_, runs)) => runs.push(run.to_path_buf()),
                    None => seen.push((config, vec![run.to_path_buf()])),
                }
            }
        }
        let mut renamed = BTreeMap::new();
        for (name, variants) in variants.into_iter().filter(|(_, v)| v.len() > 1) {
            let configs: Vec<&AgentConfig> = variants.iter().map(|(config, _)| config).collect();
            for ((_, runs), new) in variants.iter().zip(names_by_settings(&name, &configs)) {
                for run in runs {
                    renamed.insert((run.clone(), name.clone()), new.clone());
                }
            }
        }
        PlayerNames { renamed }
    }

    /// The name of `player` (as the logs of the run folder `run` name it).
    pub fn name(&self, run: &Path, player: &str) -> String {
        self.renamed
            .get(&(run.to_path_buf(), player.to_string()))
            .cloned()
            .unwrap_or_else(|| player.to_string())
    }
}

/// The LLM players' settings run.json of `run` records (none when it cannot be read).
fn run_agents(run: &Path) -> Vec<AgentConfig> {
    let Ok(file) = RunFile::read(run) else {
        return Vec::new();
    };
    match file.run {
        RunKind::Eval(eval) => vec![eval.agent],
        RunKind::Probe(probe) => vec![probe.agent],
        RunKind::Tournament(run) => run.players.into_iter().filter_map(|p| p.agent).collect(),
        RunKind::Play(run) => run.players.into_iter().filter_map(|p| p.agent).collect(),
        RunKind::Serve(run) => run.players.into_iter().filter_map(|p| p.agent).collect(),
        RunKind::Mcp(run) => run.players.into_iter().filter_map(|p| p.agent).collect(),
        RunKind::Place(run) => run.players.into_iter().filter_map(|p| p.agent).collect(),
    }
}

/// Whether two settings make one player: every setting that decides play the same, a
/// prompt by its text (two paths to one file are one prompt).
fn same_player(a: &AgentConfig, b: &AgentConfig) -> bool {
    playing_differences(a, b).is_empty()
}

/// The run.json keys of the settings that decide play and differ between `a` and `b`.
fn playing_differences(a: &AgentConfig, b: &AgentConfig) -> Vec<String> {
    let by_text = |config: &AgentConfig| {
        let mut config = config.clone();
        for prompt in [&mut config.system_prompt, &mut config.user_template]
            .into_iter()
            .flatten()
        {
            prompt.source.clear();
        }
        config
    };
    by_text(a)
        .differing(&by_text(b))
        .into_iter()
        .filter(|key| !NOT_PLAY.contains(&key.as_str()))
        .collect()
}

/// A name for each of `configs` (one player's distinct settings, all named `name` in
/// the logs): the name, then `@` (or `-` after a name that has one) and one part per
/// setting that differs among them, in run.json's key order; a name two would share
/// gets `-2`, `-3`, ... in order.
fn names_by_settings(name: &str, configs: &[&AgentConfig]) -> Vec<String> {
    let mut keys: Vec<String> = Vec::new();
    for (i, a) in configs.iter().enumerate() {
        for b in &configs[i + 1..] {
            keys.extend(playing_differences(a, b));
        }
    }
    keys.sort_unstable();
    keys.dedup();
    let written: Vec<Value> = configs
        .iter()
        .map(|c| serde_json::to_value(c).unwrap_or_default())
        .collect();
    let mut parts: Vec<Vec<String>> = vec![Vec::new(); configs.len()];
    for key in &keys {
        let values: Vec<&Value> = written.iter().map(|w| w.get(key).unwrap_or(&Value::Null)).collect();
        for (part, own) in key_parts(key, &values).into_iter().zip(&mut parts) {
            own.push(part);
        }
    }
    let joiner = if name.contains('@') { '-' } else { '@' };
    let mut names: Vec<String> = Vec::new();
    for parts in parts {
        let base = format!("{name}{joiner}{}", parts.join("-"));
        let mut unique = base.clone();
        for n in 2.. {
            if !names.contains(&unique) {
                break;
            }
            unique = format!("{base}-{n}");
        }
        names.push(unique);
    }
    names
}

/// The name part of setting `key` for each of its `values` (as run.json writes them).
fn key_parts(key: &str, values: &[&Value]) -> Vec<String> {
    if matches!(key, "system_prompt" | "user_template") {
        // A prompt by its file's stem; with the sha256's first 8 digits where two
        // prompts share a stem.
        let stems: Vec<String> = values.iter().map(|v| prompt_part(key, v)).collect();
        return values
            .iter()
            .zip(&stems)
            .map(|(value, stem)| {
                let shared = stems.iter().filter(|s| *s == stem).count() > 1;
                let sha = value["sha256"].as_str().unwrap_or_default();
                if shared && !sha.is_empty() {
                    format!("{stem}-{}", sha.chars().take(8).collect::<String>())
                } else {
                    stem.clone()
                }
            })
            .collect();
    }
    if values.iter().all(|v| v.is_object()) {
        // Sampling options: one part per option that differs.
        let mut inner: Vec<&String> = values
            .iter()
            .flat_map(|v| v.as_object().into_iter().flat_map(|o| o.keys()))
            .collect();
        inner.sort();
        inner.dedup();
        inner.retain(|k| values.iter().any(|v| v.get(k.as_str()) != values[0].get(k.as_str())));
        return values
            .iter()
            .map(|v| {
                let parts: Vec<String> = inner
                    .iter()
                    .map(|k| value_part(k, v.get(k.as_str()).unwrap_or(&Value::Null)))
                    .collect();
                parts.join("-")
            })
            .collect();
    }
    values.iter().map(|v| value_part(key, v)).collect()
}

/// A prompt's part: its file's stem, or `no-system-prompt` without one.
fn prompt_part(key: &str, value: &Value) -> String {
    match value["source"].as_str() {
        Some(source) => name_part(key, &format!("./{source}")),
        None => format!("no-{}", key.replace('_', "-")),
    }
}

/// One value's part: [`name_part`] of its text; `KEY-default` for `null` (run.json's
/// word for the default of `vote`, `answer_reason`, `think`, ...).
fn value_part(key: &str, value: &Value) -> String {
    match value {
        Value::Null => format!("{}-default", key.replace('_', "-")),
        Value::String(text) => name_part(key, text),
        other => name_part(key, &other.to_string()),
    }
}

/// The part of a player's name a setting gives (a tournament grid's too): a word value
/// as it is (`tool`, a file's stem for a path), a number or a switch with its key
/// (`vote-3`, `answer-reason-false`), a thinking level as `think-high`; characters a
/// name cannot hold become `_`.
pub(crate) fn name_part(key: &str, text: &str) -> String {
    let part = match key {
        "think" => format!("think-{}", text.trim().to_ascii_lowercase()),
        _ if text.parse::<f64>().is_ok() || text.parse::<bool>().is_ok() => {
            format!("{}-{text}", key.replace('_', "-"))
        }
        _ if text.contains('/') => Path::new(text)
            .file_stem()
            .map_or(text.to_string(), |stem| stem.to_string_lossy().into_owned()),
        _ => text.to_string(),
    };
    part.chars()
        .map(|c| if settings::name_char(c) { c } else { '_' })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use settings::Prompt;

    fn with_prompt(source: &str, text: &str) -> AgentConfig {
        let mut config = AgentConfig::new("m");
        config.system_prompt = Some(Prompt {
            source: source.to_string(),
            text: text.to_string(),
            sha256: text.repeat(64)[..64].to_string(),
        });
        config
    }

    #[test]
    fn settings_that_differ_name_the_players() {
        let (a, b) = (with_prompt("prompts/direct-en.md", "a"), with_prompt("mine.md", "bb"));
        assert_eq!(names_by_settings("llm:m", &[&a, &b]), ["llm:m@direct-en", "llm:m@mine"]);
        // One file's text edited between runs: the stem and the hash.
        let edited = with_prompt("mine.md", "ccc");
        let names = names_by_settings("llm:m", &[&b, &edited]);
        assert_eq!(names, ["llm:m@mine-bbbbbbbb", "llm:m@mine-cccccccc"]);
        let mut json = AgentConfig::new("m");
        json.answer_format = settings::AnswerFormat::JsonLegal;
        json.vote = 3;
        let names = names_by_settings("llm:m@x", &[&AgentConfig::new("m"), &json]);
        assert_eq!(names, ["llm:m@x-text-vote-default", "llm:m@x-json-legal-vote-3"]);
        assert!(same_player(&a, &with_prompt("./prompts/direct-en.md", "a")));
    }
}
