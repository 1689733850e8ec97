//! `compare`: prints [`runs::Compared`]: runs side by side, per opponent, with
//! intervals; for runs that share openings, a paired comparison game pair by game pair
//! (exact two-sided sign test) and the pooled Elo difference with its 95% interval; the
//! agent statistics side by side; and which configuration differs.

use anyhow::Result;

use super::args::CompareArgs;
use super::inputs::open_runs;
use super::stats::print_notes;
use super::stdout::{out, outln};
use runs::{CompareError, Compared, ComparedRun, GroupsError};

/// [`runs::load_run`]; with no LLM game, the reader's notes are printed before the error.
fn load_run(path: &std::path::Path) -> Result<ComparedRun> {
    match runs::load_run(path) {
        Err(CompareError::Groups(GroupsError::NoLlmGame { notes })) => {
            print_notes(&notes);
            anyhow::bail!("no game with an llm: player in these logs")
        }
        run => Ok(run?),
    }
}

pub(super) fn run(args: CompareArgs) -> Result<()> {
    let opened = open_runs(&args.runs)?;
    let mut paths = Vec::new();
    for path in &opened.paths {
        let (runs, note) = runs::run_folders(path)?;
        print_notes(note.as_slice());
        paths.extend(runs);
    }
    if paths.len() < 2 {
        anyhow::bail!("compare needs two runs or more: give run folders, or a folder that holds several");
    }
    let runs = paths.iter().map(|p| load_run(p)).collect::<Result<Vec<_>>>()?;
    runs.iter().for_each(|run| print_notes(&run.notes));
    let compared = Compared::new(runs);
    if args.json {
        outln!("{}", compared.to_json())?;
    } else {
        out!("{}", compared.text())?;
    }
    Ok(())
}
