//! `stats`: results and agent statistics recomputed from logs, over any set of runs,
//! grouped by model, prompt hash and opponent. The logs are read by
//! [`read_game_logs`], as for every command that counts games: each once, checked
//! against the rules, a game cut off by a crash counted as unfinished with a note.

use std::path::PathBuf;

use anyhow::Result;
use serde_json::json;

use super::args::StatsArgs;
use super::inputs::open_runs;
use super::stdout::{out, outln};
use runs::{groups_json, Groups, GroupsError};

/// Prints the reader's notes on stderr.
pub(super) fn print_notes(notes: &[String]) {
    for note in notes {
        eprintln!("note: {note}");
    }
}

/// The groups of [`runs::collect_groups`]; with no LLM game, the reader's notes are
/// printed before the error.
pub(super) fn collect_groups(paths: &[PathBuf]) -> Result<Groups> {
    let groups = runs::collect_groups(paths).inspect_err(|err| {
        if let GroupsError::NoLlmGame { notes } = err {
            print_notes(notes);
        }
    });
    Ok(groups?)
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
    out!("{}", Groups::text(&groups, logs.game))?;
    Ok(())
}
