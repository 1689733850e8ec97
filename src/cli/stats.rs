//! `stats`: results and agent statistics recomputed from logs, over any set of runs,
//! grouped by model, prompt hash and opponent. The logs are read by
//! [`read_game_logs`], as for every command that counts games: each once, checked
//! against the rules, a game cut off by a crash counted as unfinished with a note.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;

use anyhow::{bail, Result};
use serde_json::json;

use super::args::StatsArgs;
use super::inputs::open_runs;
use super::stdout::{out, outln};
use game::Game;
use runs::{agent_lines, opponent_rows, tally_header};
use runs::{groups_json, AgentStats, Groups, GroupsError};

/// Prints the reader's notes on stderr.
pub(super) fn print_notes(notes: &[String]) {
    for note in notes {
        eprintln!("note: {note}");
    }
}

/// The groups of [`runs::collect_groups`]; with no LLM game, the reader's notes are
/// printed before the error.
pub(super) fn collect_groups(paths: &[PathBuf]) -> Result<Groups> {
    match runs::collect_groups(paths) {
        Err(GroupsError::NoLlmGame { notes }) => {
            print_notes(&notes);
            bail!("no game with an llm: player in these logs")
        }
        groups => Ok(groups?),
    }
}

pub(super) fn run(args: StatsArgs) -> Result<()> {
    // Bundles are read as the run folders they hold (checked against their manifests).
    let opened = open_runs(&args.paths)?;
    let Groups { groups, logs } = collect_groups(&opened.paths)?;
    print_notes(&logs.notes);
    if args.json {
        outln!("{}", json!({ "groups": groups_json(&groups), "notes": logs.notes }))?;
        return Ok(());
    }
    let game: Game = logs.game;
    let mut out = String::new();
    let mut models: BTreeMap<(String, String), (AgentStats, u32)> = BTreeMap::new();
    for ((model, prompt, _), g) in &groups {
        let (agent, games) = models.entry((model.clone(), prompt.clone())).or_default();
        agent.merge(&g.matchup.agent);
        *games += g.matchup.overall().games() + g.matchup.unfinished;
    }
    for ((model, prompt), (all, games)) in &models {
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
        agent_lines(all, *games, &mut out);
        out.push('\n');
    }
    out!("{out}")?;
    Ok(())
}
