//! Opening suites on the command line: `--openings FILE` (and a tournament file's
//! `openings`) read and checked before any game, and a resume held to the suite its
//! run recorded.

use std::path::Path;

use anyhow::{bail, Context, Result};

use super::args::OpeningsArgs;
use agent::ModelGame;
use arena::{OpeningSuite, Openings, OpeningsOrder, OpeningsRecord};

/// The openings `args` ask for: `--opening-random` plies, or `--openings FILE` dealt
/// in its order (shuffled by `seed`).
pub(super) fn from_args<R: ModelGame>(args: &OpeningsArgs, seed: u64) -> Result<Openings<R>> {
    match &args.openings {
        Some(file) => read_suite("--openings", file, args.openings_order, args.openings_cycle, seed),
        None => {
            game::check_opening::<R>(args.opening_random).map_err(|e| anyhow::anyhow!("bad --opening-random: {e}"))?;
            Ok(Openings::random(args.opening_random))
        }
    }
}

/// Reads the suite file `file` (named `what` in errors: the flag or the key), every
/// line checked against the rules of `R`.
pub(super) fn read_suite<R: ModelGame>(
    what: &str,
    file: &Path,
    order: OpeningsOrder,
    cycle: bool,
    seed: u64,
) -> Result<Openings<R>> {
    let text = std::fs::read_to_string(file)
        .with_context(|| format!("bad {what}: cannot read {}; give a file of openings", file.display()))?;
    let suite = OpeningSuite::<R>::parse(&file.display().to_string(), &text).map_err(|e| {
        anyhow::anyhow!(
            "bad {what} {}: {e}; a line holds a move transcript (f5d6c3, -- or pa for a pass) \
             or a board with the side to move, # starts a comment",
            file.display()
        )
    })?;
    Ok(Openings::suite(suite, order, cycle, seed))
}

/// Refuses a resume whose openings (`now`) are not the ones the run in `dir` recorded
/// (`then`): its remaining games would start elsewhere than its finished ones.
pub(super) fn refuse_changed(dir: &Path, then: Option<&OpeningsRecord>, now: Option<&OpeningsRecord>) -> Result<()> {
    let changed = match (then, now) {
        (None, None) => None,
        (Some(then), Some(now)) => then.changed(now),
        (None, Some(now)) => Some(format!("the run played random openings, not {}", now.file)),
        (Some(then), None) => Some(format!("the run played the openings of {}", then.file)),
    };
    if let Some(changed) = changed {
        bail!(
            "bad --resume {}: {changed}; restore the file the run played, or start a new run",
            dir.display()
        );
    }
    Ok(())
}
