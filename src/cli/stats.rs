//! `stats`: results and agent statistics recomputed from logs, over any set of runs,
//! grouped by model, prompt hash and opponent. The logs are read by
//! [`read_game_logs`], as for every command that counts games: each once, checked
//! against the rules, a game cut off by a crash counted as unfinished with a note.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{bail, Result};
use serde_json::{json, Value};

use super::args::StatsArgs;
use super::report::{agent_lines, opponent_rows, tally_header, tally_json};
use arena::{read_game_logs, AgentStats, GameLogs, GameSummary, Matchup};
use game::othello::Color;
use game::Game;

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
    /// Its index in [`Groups::logs`].
    pub index: usize,
    /// The agent's color.
    pub color: Color,
}

/// The key: model spec, prompt sha256 (or `-`), opponent spec.
pub(super) type Key = (String, String, String);

/// The games with an LLM player under some paths, grouped, with the reader's notes.
pub(super) struct Groups {
    /// The groups by (model, prompt, opponent).
    pub groups: BTreeMap<Key, Group>,
    /// Every game read, each once, and the notes (cut-off games, repeated paths).
    pub logs: GameLogs,
}

impl Groups {
    /// The game of `game`.
    pub fn summary(&self, game: &GroupGame) -> &GameSummary {
        &self.logs.games[game.index].summary
    }
}

/// Prints the reader's notes on stderr.
pub(super) fn print_notes(notes: &[String]) {
    for note in notes {
        eprintln!("note: {note}");
    }
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

/// Groups every game with an LLM player in `paths` (read once each by
/// [`read_game_logs`]) by (model, prompt of its run, opponent); a game between two LLM
/// players counts in both players' groups.
pub(super) fn collect_groups(paths: &[PathBuf]) -> Result<Groups> {
    let logs = read_game_logs(paths)?;
    let mut groups: BTreeMap<Key, Group> = BTreeMap::new();
    let mut prompts: BTreeMap<PathBuf, String> = BTreeMap::new();
    for (index, logged) in logs.games.iter().enumerate() {
        let prompt = prompts
            .entry(logged.run.clone())
            .or_insert_with(|| prompt_hash(&logged.run))
            .clone();
        let game = &logged.summary;
        for color in game.llm_colors() {
            let key = (
                game.players[color].clone(),
                prompt.clone(),
                game.players[!color].clone(),
            );
            let group = groups.entry(key).or_default();
            group.matchup.add(game, color);
            group.games.push(GroupGame { index, color });
        }
    }
    if groups.is_empty() {
        print_notes(&logs.notes);
        bail!("no game with an llm: player in these logs");
    }
    Ok(Groups { groups, logs })
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
    let Groups { groups, logs } = collect_groups(&args.paths)?;
    print_notes(&logs.notes);
    if args.json {
        println!("{}", json!({ "groups": groups_json(&groups), "notes": logs.notes }));
        return Ok(());
    }
    let game: Game = logs.game.parse().map_err(anyhow::Error::msg)?;
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
        let _ = writeln!(
            out,
            "{}  model-decided moves",
            tally_header("opponent", width, game.margin_label())
        );
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
