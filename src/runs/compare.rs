//! `compare`: runs side by side, per opponent; for runs that share openings, a paired
//! comparison game pair by game pair (exact two-sided sign test) and the verdict to
//! publish: the Elo difference pooled over every colour-swapped pair both runs played,
//! with its 95% interval ([`stats::paired_elo`]); and which settings differ (a prompt
//! by its file and its hash).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::groups::{collect_groups, Group, GroupsError, Key};

/// Why a run cannot be compared.
#[derive(Debug, thiserror::Error)]
pub enum CompareError {
    /// No run.json to say what the run was.
    #[error("{path} has no readable run.json: give run folders made by eval")]
    NoRunFile {
        /// The folder.
        path: PathBuf,
    },
    /// Its games cannot be read or hold no LLM player.
    #[error(transparent)]
    Groups(#[from] GroupsError),
}

/// A run compared: its configuration, groups and games.
pub struct ComparedRun {
    /// The run folder.
    pub path: PathBuf,
    /// Its run.json.
    pub config: Value,
    /// Its games grouped as every reader groups them.
    pub groups: BTreeMap<Key, Group>,
    /// (opponent, agent color, opening, occurrence) -> score (1 win, 0.5 draw, 0 loss).
    games: BTreeMap<(String, String, Vec<String>, usize), f64>,
    /// What the log reader noticed (games cut off by a crash, logs reached twice).
    pub notes: Vec<String>,
}

/// The run folder `path`: its run.json, and its games grouped ([`collect_groups`]).
pub fn load_run(path: &Path) -> Result<ComparedRun, CompareError> {
    let config: Value = std::fs::read_to_string(path.join("run.json"))
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .ok_or_else(|| CompareError::NoRunFile {
            path: path.to_path_buf(),
        })?;
    let read = collect_groups(&[path.to_path_buf()])?;
    let mut games = BTreeMap::new();
    // How many games of each (opponent, colour, opening) came before: the next one's
    // occurrence.
    let mut seen: BTreeMap<(String, String, Vec<String>), usize> = BTreeMap::new();
    for group in read.groups.values() {
        for played in &group.games {
            let (color, game) = (&played.color, read.summary(played));
            let Some(score) = game.score_for(*color) else { continue };
            let key = (game.players[!*color].clone(), color.to_string(), game.opening.clone());
            let count = seen.entry(key.clone()).or_default();
            games.insert((key.0, key.1, key.2, *count), score);
            *count += 1;
        }
    }
    Ok(ComparedRun {
        path: path.to_path_buf(),
        config,
        groups: read.groups,
        games,
        notes: read.logs.notes,
    })
}

/// Settings that differ between two runs' agent configurations (a prompt by its hash
/// and file, options, ...).
fn differences(a: &Value, b: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let (agent_a, agent_b) = (&a["agent"], &b["agent"]);
    let keys: std::collections::BTreeSet<&String> = agent_a
        .as_object()
        .into_iter()
        .chain(agent_b.as_object())
        .flat_map(|o| o.keys())
        .collect();
    for key in keys {
        let prompt = match key.as_str() {
            "system_prompt" => Some("system prompt"),
            "user_template" => Some("user template"),
            _ => None,
        };
        match prompt {
            // A prompt by its hash, with the file it was read from beside it.
            Some(name) if agent_a[key]["sha256"] != agent_b[key]["sha256"] => {
                let side = |agent: &Value| match agent[key]["source"].as_str() {
                    Some(file) => format!("{} ({file})", agent[key]["sha256"]),
                    None => "none".to_string(),
                };
                out.push(format!("{name} sha256: {} -> {}", side(agent_a), side(agent_b)));
            }
            Some(_) => {}
            None if agent_a[key] != agent_b[key] => {
                out.push(format!("{key}: {} -> {}", agent_a[key], agent_b[key]));
            }
            None => {}
        }
    }
    for key in [
        "model_digest",
        "opening_seed",
        "opening_random",
        "games_per_color",
        "backend",
    ] {
        if a[key] != b[key] {
            out.push(format!("{key}: {} -> {}", a[key], b[key]));
        }
    }
    out
}

/// The paired comparison of `other` against `base` for one opponent.
fn paired(base: &ComparedRun, other: &ComparedRun, opponent: &str) -> Value {
    let (mut better, mut worse, mut ties) = (0u32, 0u32, 0u32);
    let mut diff_sum = 0.0;
    for (key, score) in base.games.iter().filter(|(k, _)| k.0 == opponent) {
        if let Some(other_score) = other.games.get(key) {
            diff_sum += other_score - score;
            match other_score.partial_cmp(score) {
                Some(std::cmp::Ordering::Greater) => better += 1,
                Some(std::cmp::Ordering::Less) => worse += 1,
                _ => ties += 1,
            }
        }
    }
    let pairs = better + worse + ties;
    json!({
        "opponent": opponent,
        "pairs": pairs,
        "other_better": better,
        "other_worse": worse,
        "ties": ties,
        "mean_score_difference": if pairs == 0 { Value::Null } else { json!(diff_sum / f64::from(pairs) + 0.0 /* never -0 */) },
        "p_value": if pairs == 0 { Value::Null } else { json!(stats::sign_test(better, worse)) },
    })
}

/// A run as `compare --json` lists it: its path, model, prompt (hash and file) and groups.
pub fn run_json(run: &ComparedRun) -> Value {
    json!({
        "path": run.path.display().to_string(),
        "model": run.config["agent"]["model"],
        "prompt_sha256": run.config["agent"]["system_prompt"]["sha256"],
        "prompt_file": run.config["agent"]["system_prompt"]["source"],
        "groups": crate::groups_json(&run.groups),
    })
}

/// Each run of `runs[1..]` compared with the first, against each of `opponents`: the
/// settings that differ, the paired comparison per opponent and `pooled`, the Elo
/// difference over every colour-swapped pair both played.
pub fn comparisons(runs: &[ComparedRun], opponents: &[String]) -> Vec<Value> {
    let base = &runs[0];
    runs[1..]
        .iter()
        .map(|other| {
            json!({
                "baseline": base.path.display().to_string(),
                "other": other.path.display().to_string(),
                "differences": differences(&base.config, &other.config),
                "paired": opponents.iter().map(|o| paired(base, other, o)).collect::<Vec<_>>(),
                "pooled": pooled(base, other),
            })
        })
        .collect()
}

/// The Elo difference (other minus baseline) over every colour-swapped pair both runs
/// played (same opponent, opening and occurrence, each run once with each colour),
/// with its 95% interval: `{pairs, elo, low, high}`, the Elo `null` without a pair.
fn pooled(base: &ComparedRun, other: &ComparedRun) -> Value {
    let mut pairs = Vec::new();
    for ((opponent, color, opening, occurrence), score) in &base.games {
        if color != "black" {
            continue;
        }
        let swapped = (opponent.clone(), "white".to_string(), opening.clone(), *occurrence);
        let black = (opponent.clone(), color.clone(), opening.clone(), *occurrence);
        if let (Some(base_white), Some(other_black), Some(other_white)) = (
            base.games.get(&swapped),
            other.games.get(&black),
            other.games.get(&swapped),
        ) {
            pairs.push(((score + base_white) / 2.0, (other_black + other_white) / 2.0));
        }
    }
    let elo = stats::paired_elo(&pairs);
    json!({
        "pairs": pairs.len(),
        "elo": elo.map(|e| e.estimate),
        "low": elo.map(|e| e.low),
        "high": elo.map(|e| e.high),
    })
}
