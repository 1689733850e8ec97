//! `compare`: prints [`runs::Compared`]: runs side by side, per opponent, with
//! intervals; for runs that share openings, a paired comparison game pair by game pair
//! (exact two-sided sign test) and the pooled Elo difference with its 95% interval; the
//! agent statistics side by side; and which configuration differs.

use anyhow::Result;

use super::args::CompareArgs;
use super::inputs::open_runs;
use super::stats::print_notes;
use super::stdout::{out, outln};
use runs::{CompareError, Compared, GroupsError};

/// The reader's notes an error keeps (no LLM game, too few runs), printed before it.
fn print_kept_notes(err: &CompareError) {
    match err {
        CompareError::Groups(GroupsError::NoLlmGame { notes }) | CompareError::TooFew { notes } => print_notes(notes),
        _ => {}
    }
}

pub(super) fn run(args: CompareArgs) -> Result<()> {
    let opened = open_runs(&args.runs)?;
    let (paths, notes) = runs::compared_folders(&opened.paths).inspect_err(print_kept_notes)?;
    print_notes(&notes);
    let runs = paths
        .iter()
        .map(|p| runs::load_run(p).inspect_err(print_kept_notes))
        .collect::<Result<Vec<_>, _>>()?;
    runs.iter().for_each(|run| print_notes(&run.notes));
    let compared = Compared::new(runs);
    if args.json {
        outln!("{}", compared.to_json())?;
    } else {
        out!("{}", compared.text())?;
    }
    Ok(())
}
