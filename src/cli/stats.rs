//! `stats`: results and agent statistics recomputed from logs, over any set of runs,
//! grouped by model, prompt hash and opponent.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use serde_json::{json, Value};

use super::args::StatsArgs;
use super::report::{agent_lines, opponent_rows, tally_header, tally_json};
use crate::arena::{AgentStats, GameSummary, Matchup};
use crate::othello::Color;
use crate::record::read_game_log;

/// Games of one (model, prompt, opponent) group.
#[derive(Default)]
pub(super) struct Group {
    /// The games, from the agent's view.
    pub matchup: Matchup,
    /// The group's games.
    pub games: Vec<GroupGame>,
}

/// One game of a group.
pub(super) struct GroupGame {
    /// Its log.
    pub log: PathBuf,
    /// The agent's color.
    pub color: Color,
    /// The game.
    pub game: GameSummary,
}

/// The key: model spec, prompt sha256 (or `-`), opponent spec.
pub(super) type Key = (String, String, String);

/// Every game log under the given paths, with the prompt hash of its run.
pub(super) fn game_logs(paths: &[PathBuf]) -> Result<Vec<(PathBuf, String)>> {
    let mut logs = Vec::new();
    for path in paths {
        let files: Vec<PathBuf> = if path.is_dir() {
            let mut found: Vec<PathBuf> = std::fs::read_dir(path)
                .with_context(|| format!("cannot read the folder {}", path.display()))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| crate::arena::is_game_log(p))
                .collect();
            found.sort();
            if found.is_empty() {
                bail!(
                    "{} holds no game-NNNN.jsonl logs: give a run folder from logs/",
                    path.display()
                );
            }
            found
        } else if path.is_file() {
            vec![path.clone()]
        } else {
            bail!("{} does not exist: give run folders or game logs", path.display());
        };
        let run_dir = if path.is_dir() {
            path.as_path()
        } else {
            path.parent().unwrap_or(Path::new("."))
        };
        let prompt = prompt_hash(run_dir);
        logs.extend(files.into_iter().map(|f| (f, prompt.clone())));
    }
    Ok(logs)
}

/// The system prompt's sha256 recorded in a run folder's run.json, or `-`.
fn prompt_hash(run_dir: &Path) -> String {
    let run: Value = std::fs::read_to_string(run_dir.join("run.json"))
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or(Value::Null);
    let from_agent = |agent: &Value| {
        agent["system_prompt"]["sha256"]
            .as_str()
            .map(|h| h[..12.min(h.len())].to_string())
    };
    from_agent(&run["agent"])
        .or_else(|| {
            run["players"]
                .as_array()
                .and_then(|ps| ps.iter().find_map(|p| from_agent(&p["agent"])))
        })
        .unwrap_or_else(|| "-".to_string())
}

/// Groups every game with an LLM player in `paths` by (model, prompt, opponent); a
/// game between two LLM players counts in both players' groups.
pub(super) fn collect_groups(paths: &[PathBuf]) -> Result<BTreeMap<Key, Group>> {
    let mut groups: BTreeMap<Key, Group> = BTreeMap::new();
    for (path, prompt) in game_logs(paths)? {
        let records = read_game_log(&path)?;
        let game = GameSummary::from_log(&records).with_context(|| format!("cannot read {}", path.display()))?;
        for color in game.llm_colors() {
            let key = (
                game.players[color].clone(),
                prompt.clone(),
                game.players[!color].clone(),
            );
            let group = groups.entry(key).or_default();
            group.matchup.add(&game, color);
            group.games.push(GroupGame {
                log: path.clone(),
                color,
                game: game.clone(),
            });
        }
    }
    if groups.is_empty() {
        bail!("no game with an llm: player in these logs");
    }
    Ok(groups)
}

/// The groups as JSON: per-color tallies, unfinished games and agent statistics.
pub(super) fn groups_json(groups: &BTreeMap<Key, Group>) -> Vec<Value> {
    groups
        .iter()
        .map(|((model, prompt, opponent), g)| {
            json!({
                "model": model, "prompt_sha256": prompt, "opponent": opponent,
                "as_black": tally_json(&g.matchup.as_black), "as_white": tally_json(&g.matchup.as_white),
                "overall": tally_json(&g.matchup.overall()),
                "unfinished_games": g.matchup.unfinished, "agent": g.matchup.agent.to_json(),
            })
        })
        .collect()
}

pub(super) fn run(args: StatsArgs) -> Result<()> {
    let groups = collect_groups(&args.paths)?;
    if args.json {
        println!("{}", json!({ "groups": groups_json(&groups) }));
        return Ok(());
    }
    let mut out = String::new();
    let mut models: BTreeMap<(String, String), AgentStats> = BTreeMap::new();
    for ((model, prompt, _), g) in &groups {
        models
            .entry((model.clone(), prompt.clone()))
            .or_default()
            .merge(&g.matchup.agent);
    }
    for ((model, prompt), all) in &models {
        let _ = writeln!(out, "{model}, system prompt sha256 {prompt}");
        let width = groups.keys().map(|k| k.2.len()).max().unwrap_or(8).max(8);
        let _ = writeln!(out, "{}  model-decided moves", tally_header("opponent", width));
        for ((_, _, opponent), g) in groups.iter().filter(|(k, _)| &k.0 == model && &k.1 == prompt) {
            let m = &g.matchup;
            let note = if m.unfinished > 0 {
                format!("; {} unfinished game(s) not counted", m.unfinished)
            } else {
                String::new()
            };
            opponent_rows(&mut out, opponent, width, [m.as_black, m.as_white], &m.agent, &note);
        }
        let _ = writeln!(
            out,
            "Agent, all these games (a move the fallback played is never counted as the model's):"
        );
        agent_lines(all, &mut out);
        out.push('\n');
    }
    print!("{out}");
    Ok(())
}
