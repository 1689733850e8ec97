//! `eval`: the LLM agent against each opponent, with tables, CSV, JSON and logs.

use std::fmt::Write as _;
use std::path::Path;
use std::time::{Duration, Instant};

use clap::Parser;

use anyhow::{bail, Context, Result};

use super::args::{Cli, Command, EvalArgs, GameArg};
use super::openings;
use super::outputs::write_output;
use super::progress::GameBar;
use super::quality;
use super::stdout::outln;
use agent::ModelGame;
use arena::{
    check_eval_csv, recorded_eval, resumed_scoring, EvalEnd, EvalFlags, EvalPlan, EvalResult, EvalSettings, Interrupt,
    MoveQuality, MoveValuing, OpenEval, ScoredMove, Scoring, ValueMovesError,
};
use game::{Marubatsu, Othello};
use runs::{EvalRun, HostUsage, PairingStop, RunResults};

pub use arena::Interrupted;

pub(super) async fn run(args: EvalArgs, env: &dyn Fn(&str) -> Option<String>) -> Result<()> {
    // A resume reads the run's run.json once: its argv defines the run, its record is
    // what the settings given again are held to.
    let (args, recorded) = match &args.resume {
        Some(dir) => {
            let (resumed, recorded) = resumed_args(dir, &args)?;
            (resumed, Some(recorded))
        }
        None => (args, None),
    };
    match args.game {
        GameArg::Othello => evaluate::<Othello>(args, recorded, env).await,
        GameArg::Marubatsu => evaluate::<Marubatsu>(args, recorded, env).await,
    }
}

/// `eval` of game `R`: the plan the flags define ([`arena::EvalPlan`]), played, valued
/// and written by the library; the tables printed.
async fn evaluate<R: ModelGame>(
    args: EvalArgs,
    recorded: Option<EvalRun>,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<()> {
    let mut settings = settings::<R>(&args, env).await?;
    if let Some(csv) = &args.csv {
        check_eval_csv(csv, args.overwrite.force, args.log_dir.as_deref())?;
    }
    let reference = (args.reference.exact_empties, args.reference.reference_depth);
    let external = (args.reference_engine.as_deref(), args.agent.engines.as_deref());
    let valuing = MoveValuing::from_flags::<R>((args.score_moves, args.no_score_moves), reference, external).await?;
    let opening_seed = args.opening_seed.unwrap_or(args.seed);
    settings.config.run.openings = openings::from_args::<R>(&args.openings, opening_seed)?;
    let plan = EvalPlan::new(settings, valuing, args.stop, (args.log_dir.clone(), recorded))?;
    let cap_note = plan.settings.agent.cap_note();
    let (eval, end) = open(plan).await?;
    let log_dir = eval.dir().to_path_buf();
    let bar = GameBar::new(eval.total(), args.json, "games");
    let started = Instant::now();
    let (result, stops) = eval.play(end.judge(), &|event| bar.count(&event)).await?;
    bar.finish();
    let quality = match end.scoring(&result) {
        Some(scoring) => value(
            &eval,
            (&result, scoring),
            (args.json, end.valuing.reported),
            started.elapsed(),
        )?,
        None => None,
    };
    let written = eval.finish(&end, (&result, &stops), quality.as_ref())?;
    if let (Some(csv), Some(path)) = (&written.csv, &args.csv) {
        write_output("--csv", path, csv.as_bytes())?;
    }
    if args.json {
        outln!("{}", RunResults::Eval(&written.results).to_json())?;
    } else {
        let mut text = result.text(&end.model, args.games);
        let _ = writeln!(text, "  {cap_note}");
        text.push_str(&PairingStop::lines(&stops));
        text.push_str(&HostUsage::table(&written.results.hosts));
        if let (Some(scoring), Some((all, _))) = (end.valuing.reported(), &quality) {
            text.push_str(&scoring.heading::<R>("the agent (model moves only)"));
            text.push_str(&all.text(R::BLUNDER));
        }
        outln!("{text}logs: {}", log_dir.display())?;
    }
    if result.unfinished != 0 {
        let total = eval.total();
        return Err(Interrupted {
            command: "eval",
            finished: total - result.unfinished,
            total,
            dir: log_dir,
        }
        .into());
    }
    Ok(())
}

/// Opens the plan's run, saying what a resume read back.
async fn open<R: ModelGame>(plan: EvalPlan<R>) -> Result<(OpenEval<R>, EvalEnd)> {
    let (eval, end) = plan.open().await?;
    if let Some(resumed) = eval.resumed {
        eprintln!(
            "resuming {}: {} of {} games already finished; {} unfinished log(s) kept aside as *.unfinished-N",
            eval.dir().display(),
            resumed.finished,
            eval.total(),
            resumed.set_aside
        );
    }
    Ok((eval, end))
}

/// The run the flags define ([`EvalSettings::resolve`]): the agent (an LLM player, on
/// its model server) and its opponents read from `--agent` and `--vs`, and the seeds.
async fn settings<R: ModelGame>(args: &EvalArgs, env: &dyn Fn(&str) -> Option<String>) -> Result<EvalSettings<R>> {
    let flags = EvalFlags {
        agent_spec: args.agent_spec.clone().unwrap_or_default(),
        vs: args.vs.clone(),
        agent: args.agent.source(),
        hosts: args.hosts.options(),
        games_per_color: args.games,
        seed: args.seed,
        opening_seed: args.opening_seed,
        parallel: args.parallel,
        opening_random: args.openings.opening_random,
        argv: std::env::args().skip(1).collect(),
    };
    Ok(EvalSettings::resolve(flags, env).await?)
}

/// The agent's decisions valued ([`OpenEval::value`], the reference on blocking
/// threads, off the async workers), with a progress line and, unless `quiet`, what
/// that cost beside `playing` and, when the values are not `reported`, where they
/// serve. A Ctrl-C during valuing drops the values, never the results: `None`.
fn value<R: ModelGame>(
    eval: &OpenEval<R>,
    (result, scoring): (&EvalResult<R>, &Scoring),
    (quiet, reported): (bool, bool),
    playing: Duration,
) -> Result<Option<(MoveQuality, Vec<MoveQuality>)>> {
    let (games, started) = (result.games.len(), Instant::now());
    let valued = tokio::task::block_in_place(|| {
        quality::with_progress::<R, _>(games, scoring, quiet, |watch| {
            eval.value(result, scoring, (quality::cores(), watch))
        })
    });
    let Some(moves) = valued_or_stopped(valued, (games, quiet), (started, playing))? else {
        return Ok(None);
    };
    if !reported && !quiet {
        eprintln!(
            "the values rate the agent intrinsically (`othello-arena rate {}`); --score-moves reports its move quality here",
            eval.dir().display()
        );
    }
    Ok(Some(eval.quality(result, &moves)))
}

/// The values of a run's decisions (eval's, tournament's) once `valued`, said on
/// stderr unless `quiet` with their cost (from `started`) beside `playing` (the games'
/// time) over `games` games; a Ctrl-C during valuing drops them, never the results:
/// `None`, said.
pub(super) fn valued_or_stopped(
    valued: Result<Vec<ScoredMove>, ValueMovesError>,
    (games, quiet): (usize, bool),
    (started, playing): (Instant, Duration),
) -> Result<Option<Vec<ScoredMove>>> {
    match valued {
        Ok(moves) => {
            if !quiet {
                let (valuing, count) = (started.elapsed().as_secs_f64(), games.max(1) as f64);
                eprintln!(
                    "valued {} decisions of {games} game(s) in {valuing:.1} s ({:.2} s a game; playing took {:.2} s a game)",
                    moves.len(),
                    valuing / count,
                    playing.as_secs_f64() / count
                );
            }
            Ok(Some(moves))
        }
        Err(err @ ValueMovesError::Stopped(_)) => {
            eprintln!(
                "{:#}; the results are written without move scores",
                anyhow::Error::new(err)
            );
            Ok(None)
        }
        Err(err) => Err(err.into()),
    }
}

/// The command line a run's run.json (at `path`) keeps as `argv`, parsed again as it
/// was first given: what `--resume` continues.
pub(super) fn recorded_command(argv: Vec<String>, path: &Path) -> Result<Command> {
    let cli = Cli::try_parse_from(std::iter::once("othello-arena".to_string()).chain(argv))
        .with_context(|| format!("bad --resume: the argv in {} no longer parses", path.display()))?;
    Ok(cli.command)
}

/// The arguments of the run in `dir`, from the `argv` its run.json keeps, with this
/// invocation's --parallel, --csv (only when given now) and --json; and the run as
/// its run.json recorded it.
fn resumed_args(dir: &Path, now: &EvalArgs) -> Result<(EvalArgs, EvalRun)> {
    let path = dir.join("run.json");
    let (recorded, argv) = recorded_eval(dir)?;
    let Command::Eval(mut args) = recorded_command(argv, &path)? else {
        bail!("bad --resume: {} is not an eval run", path.display());
    };
    if args.resume.is_some() {
        bail!("bad --resume: {} records a resume, not a run", path.display());
    }
    args.log_dir = Some(dir.to_path_buf());
    if now.hosts.given() {
        // The hosts serve the run; they do not define it: take this invocation's.
        args.hosts = now.hosts.clone();
    }
    args.parallel = now.parallel.or(Some(recorded.parallel));
    // The run's own table is results.csv in its folder; a --csv of the first session
    // named a path of that time (a copied run must not write onto the original's).
    args.csv = now.csv.clone();
    args.json = now.json;
    let now_scoring = (now.score_moves, now.no_score_moves);
    (args.score_moves, args.no_score_moves) =
        resumed_scoring((args.score_moves, args.no_score_moves), now_scoring, &path)?;
    Ok((args, recorded))
}

/// What a Ctrl-C does, told on stderr: the first stops new games, the second quits
/// and names the command that plays the unfinished games again.
pub(super) fn tell_interrupt(interrupt: &Interrupt) {
    match interrupt {
        Interrupt::Stopping => eprintln!(
            "\nstopping: no new games start; games in flight stop after their current move (Ctrl-C again quits now)"
        ),
        Interrupt::Quitting { resume: Some(resume) } => {
            eprintln!("\nquitting now: unfinished games are played again by {resume}")
        }
        Interrupt::Quitting { resume: None } => eprintln!("\nquitting now: the games in flight are left unfinished"),
    }
}
