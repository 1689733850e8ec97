//! `replay`: a game log, ply by ply, as text ([`GameReplay::text`]) or JSON.

use anyhow::{bail, Result};

use super::args::ReplayArgs;
use super::stdout::{out, outln};
use runs::{GameReplay, PlyView};

pub(super) fn run(args: ReplayArgs) -> Result<()> {
    let (replay, notes) = GameReplay::read(&args.log)?;
    super::stats::print_notes(&notes);
    let wanted = |p: &&PlyView| args.ply.is_none_or(|n| p.ply == n);
    let plies: Vec<&PlyView> = replay.plies.iter().filter(wanted).collect();
    let forfeit = replay.forfeit.as_ref().filter(wanted);
    if let (Some(n), true, None) = (args.ply, plies.is_empty(), forfeit) {
        bail!("bad --ply {n}: the log has plies {}", replay.ply_range());
    }
    if args.json {
        let mut value = serde_json::to_value(&replay)?;
        value["plies"] = serde_json::to_value(&plies)?;
        if let (Some(object), None) = (value.as_object_mut(), forfeit) {
            object.remove("forfeit");
        }
        if !notes.is_empty() {
            value["notes"] = serde_json::to_value(&notes)?;
        }
        outln!("{value}")?;
    } else {
        out!("{}", replay.text(&plies, forfeit, args.ply.is_none()))?;
    }
    Ok(())
}
