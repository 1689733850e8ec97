//! `eval`: the LLM agent against each opponent, with tables, CSV, JSON and logs.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use clap::Parser;

use anyhow::{bail, Context, Result};

use super::agent_args::parse_player;
use super::args::{Cli, Command, EvalArgs, GameArg};
use super::external;
use super::openings;
use super::outputs::{check_output_flag, write_output};
use super::progress::GameBar;
use super::quality;
use super::report::{agent_lines, opponent_rows, tally_header};
use super::stdout::outln;
use agent::ModelGame;
use arena::{
    recorded_eval, EvalConfig, EvalResult, EvalSettings, GameToScore, Interrupt, MoveQuality, OpenEval, PlayerSpec,
    RunOptions, ScoredMove, ScoringStopped,
};
use game::{Marubatsu, Othello};
use runs::{utc_now, EvalRun, HostUsage, PairingStop, RunResults};

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

/// `eval` of game `R`: the agent against each opponent, then the results written and
/// printed.
async fn evaluate<R: ModelGame>(
    args: EvalArgs,
    recorded: Option<EvalRun>,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<()> {
    let mut settings = settings::<R>(&args, env).await?;
    if let Some(recorded) = &recorded {
        settings.config.agent.keep_recorded_cap(&recorded.agent);
        settings.agent.keep_recorded_cap(&recorded.agent);
    }
    if let Some(csv) = &args.csv {
        // The run's own results.csv is the one file of its folder --csv may name.
        let run: Vec<&Path> = args.log_dir.iter().map(PathBuf::as_path).collect();
        let owned: Vec<PathBuf> = run.iter().map(|dir| dir.join("results.csv")).collect();
        check_output_flag("--csv", csv, args.overwrite, &run, &owned)?;
    }
    // The agent's decisions are valued unless --no-score-moves; --score-moves reports
    // their quality (tables, results.json, run.json).
    let reference = if args.score_moves {
        args.reference
    } else {
        quality::VALUING
    };
    let scoring = quality::from_flags::<R>(
        !args.no_score_moves,
        reference,
        args.reference_engine.as_deref(),
        args.agent.engines.as_deref(),
    )
    .await?;
    let stop = arena::stop_judge::<R>(args.stop)?;
    let opening_seed = args.opening_seed.unwrap_or(args.seed);
    settings.config.run.openings = openings::from_args::<R>(&args.openings, opening_seed)?;
    let reported = scoring.as_ref().filter(|_| args.score_moves);
    settings.reference = reported.and_then(quality::Scoring::run_engine);
    settings.score_moves = reported.map(quality::Scoring::to_json::<R>);
    let model = settings.agent.model.clone();
    let cap_note = settings.agent.cap_note();
    let eval = open(settings, args.log_dir.as_deref(), recorded.as_ref()).await?;
    let log_dir = eval.run.path().to_path_buf();
    let bar = GameBar::new(eval.total(), args.json, "games");
    let started = Instant::now();
    let (result, stops) = eval.play(stop.as_ref(), &|event| bar.count(&event)).await?;
    bar.finish();
    let quality = match &scoring {
        Some(scoring) => score(&args, scoring, &result, (&eval, started.elapsed()))?,
        None => None,
    };
    let quality = reported.zip(quality.as_ref());
    let hosts = runs::folder_host_usage(&log_dir)?;
    let reference = quality.map(|(scoring, q)| (scoring.to_json::<R>(), q));
    let stopping = (args.stop.as_ref(), &stops[..]);
    let results = result.results(args.games, stopping, &hosts, reference, &log_dir);
    eval.run.finish(&RunResults::Eval(&results))?;
    let complete = result.unfinished == 0;
    if complete {
        // The seed's table always lies in the run folder; --csv writes it elsewhere too.
        let csv = result.seed_csv(&model, args.games, &utc_now().0[..10]);
        eval.run.folder().write_text("results.csv", &csv)?;
        if let Some(path) = &args.csv {
            write_output("--csv", path, csv.as_bytes())?;
        }
    }
    if args.json {
        outln!("{}", RunResults::Eval(&results).to_json())?;
    } else {
        let mut text = text_report(&result, &model, args.games);
        let _ = writeln!(text, "  {cap_note}");
        text.push_str(&PairingStop::lines(&stops));
        text.push_str(&HostUsage::table(&hosts));
        if let Some((scoring, (all, _))) = quality {
            text.push_str(&quality::heading::<R>("the agent (model moves only)", scoring));
            quality::quality_lines::<R>(all, &mut text);
        }
        outln!("{text}logs: {}", log_dir.display())?;
    }
    if !complete {
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

/// Opens the run (in `dir`; the one `recorded` continues), saying what a resume read
/// back.
async fn open<R: ModelGame>(
    settings: EvalSettings<R>,
    dir: Option<&Path>,
    recorded: Option<&EvalRun>,
) -> Result<OpenEval<R>> {
    let eval = settings.open(dir, recorded).await?;
    if let Some(resumed) = eval.resumed {
        eprintln!(
            "resuming {}: {} of {} games already finished; {} unfinished log(s) kept aside as *.unfinished-N",
            eval.run.path().display(),
            resumed.finished,
            eval.total(),
            resumed.set_aside
        );
    }
    Ok(eval)
}

/// The run the flags define: the agent (an LLM player, on its model server) and its
/// opponents (engines) read from `--agent` and `--vs`, and the seeds (the openings and
/// the valuing reference are set apart).
async fn settings<R: ModelGame>(args: &EvalArgs, env: &dyn Fn(&str) -> Option<String>) -> Result<EvalSettings<R>> {
    let agent_spec = args.agent_spec.as_deref().unwrap_or_default();
    let connection = args.hosts.connect(&args.agent, env).await?;
    let agent: PlayerSpec<R> = parse_player(agent_spec, "--agent", &args.agent, Some(&connection))?;
    let Some(agent_config) = agent.agent_config().cloned() else {
        bail!("bad --agent {agent_spec:?}: eval measures an LLM player, give llm:MODEL");
    };
    let default_opponents: Vec<String> = R::DEFAULT_OPPONENTS.split(',').map(str::to_string).collect();
    let opponents = if args.vs.is_empty() {
        &default_opponents
    } else {
        &args.vs
    }
    .iter()
    .map(|spec| parse_player(spec, "--vs", &args.agent, Some(&connection)))
    .collect::<Result<Vec<_>>>()?;
    if opponents.iter().any(|o| o.is_human()) {
        bail!("bad --vs: eval runs unattended; use `play` to play the agent yourself");
    }
    external::identify(&opponents).await?;
    Ok(EvalSettings {
        parallel: args.parallel.unwrap_or_else(|| connection.default_parallel()),
        config: EvalConfig {
            agent,
            opponents,
            games_per_color: args.games,
            seed: args.seed,
            opening_seed: args.opening_seed,
            run: RunOptions::default(),
        },
        agent: agent_config,
        connection,
        argv: std::env::args().skip(1).collect(),
        opening_random: args.openings.opening_random,
        reference: None,
        score_moves: None,
    })
}

/// The agent's moves valued (over all games, and per opponent) once every game is
/// finished, and written to move-scores.jsonl ([`value_decisions`]); `None` for an
/// interrupted run (valued when it is resumed and complete) or a Ctrl-C during valuing.
fn score<R: ModelGame>(
    args: &EvalArgs,
    scoring: &quality::Scoring,
    result: &EvalResult<R>,
    (eval, playing): (&OpenEval<R>, Duration),
) -> Result<Option<(MoveQuality, Vec<MoveQuality>)>> {
    if result.unfinished != 0 {
        return Ok(None);
    }
    let games = result.games_to_score();
    let stop = eval.config.run.stop.as_deref();
    let moves = value_decisions(&games, scoring, args.json, stop, (eval.run.path(), playing))?;
    if moves.is_some() && !args.score_moves && !args.json {
        eprintln!(
            "the values rate the agent intrinsically (`othello-arena rate {}`); --score-moves reports its move quality here",
            eval.run.path().display()
        );
    }
    Ok(moves.map(|moves| result.move_quality(&moves, eval.config.opponents.len())))
}

/// Values the decisions of `games` against `scoring` (the reference searching on
/// blocking threads, off the async workers), writes move-scores.jsonl in `log_dir`
/// and, unless `quiet`, says on stderr what that cost beside `playing` (the games'
/// time). A Ctrl-C during valuing (`stop`) drops the values, never the results: `None`.
pub(super) fn value_decisions<R: ModelGame>(
    games: &[GameToScore<'_, R>],
    scoring: &quality::Scoring,
    quiet: bool,
    stop: Option<&AtomicBool>,
    (log_dir, playing): (&Path, Duration),
) -> Result<Option<Vec<ScoredMove>>> {
    let started = Instant::now();
    let valued = tokio::task::block_in_place(|| -> Result<_> {
        let moves = quality::score(games, scoring, quiet, stop, Some(log_dir))?;
        runs::write_move_scores(log_dir, &moves)?;
        Ok(moves)
    });
    match valued {
        Ok(moves) => {
            if !quiet {
                let (valuing, count) = (started.elapsed().as_secs_f64(), games.len().max(1) as f64);
                eprintln!(
                    "valued {} decisions of {} game(s) in {valuing:.1} s ({:.2} s a game; playing took {:.2} s a game)",
                    moves.len(),
                    games.len(),
                    valuing / count,
                    playing.as_secs_f64() / count
                );
            }
            Ok(Some(moves))
        }
        Err(err) if err.chain().any(|e| e.is::<ScoringStopped>()) => {
            eprintln!("{err:#}; the results are written without move scores");
            Ok(None)
        }
        Err(err) => Err(err),
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
    refuse_contrary_scoring(&args, now, &path)?;
    args.score_moves |= now.score_moves;
    args.no_score_moves |= now.no_score_moves;
    Ok((args, recorded))
}

/// Refuses a resume that asks for the contrary of the run's own `--score-moves` or
/// `--no-score-moves` (`run`: the flags its run.json at `path` records), which clap
/// cannot see: one of the two would be dropped without a word.
fn refuse_contrary_scoring(run: &EvalArgs, now: &EvalArgs, path: &Path) -> Result<()> {
    let (recorded, given, keep) = match (run.score_moves, run.no_score_moves, now.score_moves, now.no_score_moves) {
        (true, _, _, true) => ("--score-moves", "--no-score-moves", "its moves are scored"),
        (_, true, true, _) => ("--no-score-moves", "--score-moves", "its decisions are not valued"),
        _ => return Ok(()),
    };
    bail!(
        "bad --resume: the run was started with {recorded} ({}'s argv), so {keep}; resume it without {given}",
        path.display()
    )
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

fn text_report<R: ModelGame>(result: &EvalResult<R>, model: &str, games_per_color: usize) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "llm:{model}: {games_per_color} game(s) as black and as white against each opponent"
    );
    if result.unfinished > 0 {
        let _ = writeln!(
            out,
            "PARTIAL: {} scheduled game(s) did not finish and are not counted below",
            result.unfinished
        );
    }
    let width = result
        .opponents
        .iter()
        .map(|o| o.opponent.len())
        .max()
        .unwrap_or(8)
        .max(8);
    let _ = writeln!(
        out,
        "{}  model-decided moves",
        tally_header("opponent", width, R::MARGIN)
    );
    for o in &result.opponents {
        opponent_rows(
            &mut out,
            &o.opponent,
            width,
            [o.matchup.as_black, o.matchup.as_white],
            &o.matchup.agent,
            "",
        );
    }
    let _ = writeln!(
        out,
        "Agent, all games (a move the fallback played is never counted as the model's):"
    );
    let games = result
        .opponents
        .iter()
        .map(|o| o.matchup.overall().games() + o.matchup.unfinished)
        .sum();
    agent_lines(&result.agent, games, &mut out);
    out
}
