//! `place`: flags to a [`arena::Placement`] on the published ladder, played in its run
//! folder ([`arena::OpenPlacement`]), then its steps and rating printed.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::{bail, Result};

use super::agent_args::parse_player;
use super::args::{Command, PlaceArgs};
use super::eval::recorded_command;
use super::external;
use super::progress::GameBar;
use super::stats::print_notes;
use super::stdout::outln;
use arena::{is_llm_spec, recorded_place, Chooser, Interrupted, PlaceFlags, PlaceResult, Placement, PlayerSpec};

pub(super) async fn run(args: PlaceArgs, env: &dyn Fn(&str) -> Option<String>) -> Result<()> {
    let resumed = args.resume.is_some();
    let args = match &args.resume {
        Some(dir) => resumed_args(dir, &args)?,
        None => args,
    };
    let spec = args.spec.as_deref().unwrap_or_default();
    let connection = match is_llm_spec(spec) {
        true => Some(args.hosts.connect(&args.agent, env).await?),
        false => None,
    };
    let player: PlayerSpec = parse_player(spec, "SPEC", &args.agent, connection.as_ref())?;
    external::identify(std::slice::from_ref(&player)).await?;
    let flags = PlaceFlags {
        gauntlet: args.gauntlet.clone(),
        width: args.width,
        max_pairs: args.max_pairs,
        seed: args.seed,
        parallel: args.parallel,
        openings: args.openings.clone(),
        opening_random: args.opening_random,
    };
    let (placement, notes) = Placement::on_published_ladder(player, &flags)?;
    print_notes(&notes);
    let argv = llm::arguments_without_credentials(std::env::args().skip(1));
    let open = placement.open(args.log_dir.as_deref(), resumed, argv)?;
    if let Some(resumed) = &open.resumed {
        eprintln!(
            "resuming {}: {} game(s) already finished; {} unfinished log(s) kept aside as *.unfinished-N",
            open.run.path().display(),
            resumed.finished,
            resumed.set_aside
        );
    }
    let bar = GameBar::new(args.max_pairs * 2, args.json, "games (at most)");
    let result = open.play(&|event| bar.count(&event)).await?;
    bar.finish();
    if args.json {
        outln!("{}", serde_json::to_string(&result)?)?;
    } else {
        outln!("{}", text(&result))?;
    }
    if result.stop.is_none() {
        return Err(Interrupted {
            command: "place",
            finished: result.games,
            total: args.max_pairs * 2,
            dir: open.run.path().to_path_buf(),
        }
        .into());
    }
    Ok(())
}

/// The steps and the rating, as the terminal shows them.
fn text(result: &PlaceResult) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{}: placed on the published ladder pair by pair ({}), stop at a 95% interval {:.0} Elo wide",
        result.player,
        match result.chooser {
            Chooser::Nearest => "each pair against the rung nearest its rating",
            Chooser::InTurn => "a fixed gauntlet, its rungs in turn",
        },
        result.width
    );
    let _ = writeln!(out, "  pair  opponent (ladder Elo)                points  rating after");
    for (i, step) in result.steps.iter().enumerate() {
        let interval = step.interval.map_or_else(
            || "(too few games for an interval)".to_string(),
            |[low, high]| format!("[{low:.0}, {high:.0}] width {:.0}", high - low),
        );
        let opponent = format!("{} ({:.0})", step.opponent, step.opponent_elo);
        let _ = writeln!(
            out,
            "  {:>4}  {opponent:<36} {:>6}  {:.0} {interval}",
            i + 1,
            step.points,
            step.elo
        );
    }
    let verdict = match (result.stop, result.elo, result.interval) {
        (Some(_), Some(elo), Some([low, high])) => format!(
            "{} games: {elo:.0} [{low:.0}, {high:.0}], width {:.0}",
            result.games,
            high - low
        ),
        (None, ..) => format!("interrupted after {} games: `place --resume` continues", result.games),
        _ => format!("{} games: no interval yet", result.games),
    };
    let _ = write!(
        out,
        "{verdict}\nlogs: {} (`othello-arena rate DIR --ladder` gives the same rating)",
        result.log_dir
    );
    out
}

/// The arguments of the run in `dir` from the argv its run.json keeps, with this
/// invocation's --parallel, --json and hosts.
fn resumed_args(dir: &Path, now: &PlaceArgs) -> Result<PlaceArgs> {
    let path = dir.join("run.json");
    let recorded = recorded_place(dir)?;
    let Command::Place(mut args) = recorded_command(recorded.argv, &path)? else {
        bail!("bad --resume: {} is not a place run", path.display());
    };
    if args.resume.is_some() {
        bail!("bad --resume: {} records a resume, not a run", path.display());
    }
    args.log_dir = Some(dir.to_path_buf());
    if now.hosts.given() {
        args.hosts = now.hosts.clone();
    }
    args.parallel = now.parallel.or(Some(recorded.parallel));
    args.json = now.json;
    Ok(args)
}
