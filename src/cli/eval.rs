//! `eval`: the LLM agent against each opponent, with tables, CSV, JSON and logs.

use super::progress::progress_bar;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use clap::Parser;

use anyhow::{bail, Context, Result};

use super::agent_args::parse_player;
use super::args::{Cli, Command, EvalArgs, GameArg};
use super::external;
use super::openings;
use super::outputs::{check_output_flag, write_output};
use super::quality;
use super::report::{agent_lines, opponent_rows, tally_header};
use super::stdout::{out, outln};
use agent::{AgentConfig, ModelGame};
use arena::{
    run_eval, run_eval_sequential, Connection, EvalConfig, EvalResult, GameToScore, Interrupt, MatchEvent, MoveQuality,
    PlayerSpec, Run, RunOptions, ScoringStopped, Start,
};
use game::{Marubatsu, Othello};
use runs::{
    changed_agent_settings, utc_now, EvalResults, EvalRun, HostUsage, PairingStop, ReadRunError, Resume, RunEngine,
    RunFile, RunFolder, RunKind, RunResults, Stopping,
};

/// The run stopped at the user's request before every game finished.
#[derive(Debug, thiserror::Error)]
#[error(
    "interrupted: {finished} of {total} games finished (the table counts only those); continue with: {}",
    arena::resume_command(.command, std::path::Path::new(.dir))
)]
pub struct Interrupted {
    /// The command that resumes the run (`eval`, `tournament`).
    pub command: &'static str,
    /// Games finished.
    pub finished: usize,
    /// Games scheduled.
    pub total: usize,
    /// The run folder.
    pub dir: String,
}

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
    let mut entrants = Entrants::<R>::connect(&args, env).await?;
    if let Some(recorded) = &recorded {
        entrants.agent.keep_recorded_cap(&recorded.agent);
        entrants.agent_config.keep_recorded_cap(&recorded.agent);
    }
    if let Some(csv) = &args.csv {
        // The run's own results.csv is the one file of its folder --csv may name.
        let run: Vec<&Path> = args.log_dir.iter().map(PathBuf::as_path).collect();
        let owned: Vec<PathBuf> = run.iter().map(|dir| dir.join("results.csv")).collect();
        check_output_flag("--csv", csv, args.overwrite, &run, &owned)?;
    }
    let scoring = quality::from_flags::<R>(
        args.score_moves,
        args.reference,
        args.reference_engine.as_deref(),
        args.agent.engines.as_deref(),
    )
    .await?;
    let model = entrants.agent_config.model.clone();
    let cap_note = entrants.agent_config.cap_note();
    let (run, config) = open_run(&args, entrants, recorded.as_ref(), scoring.as_ref()).await?;
    let log_dir = run.path().to_path_buf();
    let total = config.schedule().len();
    let (result, stops) = play(&args, &config, run.folder()).await?;
    let quality = match &scoring {
        Some(scoring) => score(&args, scoring, &result, &config, &log_dir)?,
        None => None,
    };
    let quality = scoring.as_ref().zip(quality.as_ref());
    let hosts = runs::folder_host_usage(&log_dir)?;
    let results = eval_results::<R>(&args, &result, &stops, &hosts, quality, &log_dir);
    run.finish(&RunResults::Eval(&results))?;
    let complete = result.unfinished == 0;
    if complete {
        // The seed's table always lies in the run folder; --csv writes it elsewhere too.
        let csv = result.seed_csv(&model, args.games, &utc_now().0[..10]);
        run.folder().write_text("results.csv", &csv)?;
        if let Some(path) = &args.csv {
            write_output("--csv", path, csv.as_bytes())?;
        }
    }
    if args.json {
        outln!("{}", RunResults::Eval(&results).to_json())?;
    } else {
        out!("{}", text_report(&result, &model, args.games))?;
        outln!("  {cap_note}")?;
        out!("{}", stop_lines(&stops))?;
        out!("{}", host_lines(&hosts))?;
        if let Some((scoring, (all, _))) = quality {
            let mut text = quality::heading::<R>("the agent (model moves only)", scoring);
            quality::quality_lines::<R>(all, &mut text);
            out!("{text}")?;
        }
        outln!("logs: {}", log_dir.display())?;
    }
    if !complete {
        return Err(Interrupted {
            command: "eval",
            finished: total - result.unfinished,
            total,
            dir: log_dir.display().to_string(),
        }
        .into());
    }
    Ok(())
}

/// The agent (an LLM player, on its model server) and its opponents (engines).
struct Entrants<R: ModelGame> {
    /// The model server or fleet.
    connection: Connection,
    /// The agent.
    agent: PlayerSpec<R>,
    /// The agent's settings.
    agent_config: AgentConfig,
    /// The opponents, `--vs` or the game's ladder.
    opponents: Vec<PlayerSpec<R>>,
}

impl<R: ModelGame> Entrants<R> {
    /// Connects to the model server and reads `--agent` and `--vs`.
    async fn connect(args: &EvalArgs, env: &dyn Fn(&str) -> Option<String>) -> Result<Entrants<R>> {
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
        Ok(Entrants {
            connection,
            agent,
            agent_config,
            opponents,
        })
    }
}

/// Makes the run folder (or takes the one `--resume` continues, with its finished
/// games, held to the settings it `recorded`), writes its run.json and listens for
/// Ctrl-C; returns the folder and the evaluation's settings.
async fn open_run<R: ModelGame>(
    args: &EvalArgs,
    entrants: Entrants<R>,
    recorded: Option<&EvalRun>,
    scoring: Option<&quality::Scoring>,
) -> Result<(Run, EvalConfig<R>)> {
    let Entrants {
        connection,
        agent,
        agent_config,
        opponents,
    } = entrants;
    let backend = connection.backend.clone();
    let opening_seed = args.opening_seed.unwrap_or(args.seed);
    let openings = openings::from_args::<R>(&args.openings, opening_seed)?;
    let parallel = args.parallel.unwrap_or_else(|| connection.default_parallel());
    let mut config = EvalConfig {
        agent,
        opponents,
        games_per_color: args.games,
        seed: args.seed,
        opening_seed: args.opening_seed,
        run: RunOptions {
            openings,
            ..RunOptions::default()
        },
    };
    let games: Vec<_> = config.schedule().into_iter().map(|(_, _, game)| game).collect();
    // Checked before the run folder is made: a refused suite leaves nothing behind.
    config
        .run
        .openings
        .check(&games)
        .map_err(|e| anyhow::anyhow!("bad --openings: {e}"))?;
    let openings_record = config.run.openings.record(&games);
    let start = match (&args.log_dir, recorded) {
        (Some(dir), Some(_)) => Start::Resume(dir),
        (dir, _) => Start::New {
            dir: dir.as_deref(),
            label: &agent_config.model,
        },
    };
    let run = Run::open("eval", start)?;
    config.run = run.options(config.run.openings, parallel);
    if let Some(recorded) = recorded {
        refuse_changed_settings(run.path(), recorded, &agent_config)?;
        let engines = run_engines(&config, scoring);
        let changed = RunEngine::changed_tables(&recorded.engines, &engines);
        if !changed.is_empty() {
            bail!(
                "bad --resume {}: {}; restore the --engines file the run played, or start a new run",
                run.path().display(),
                changed.join("; ")
            );
        }
        openings::refuse_changed(run.path(), recorded.openings.as_ref(), openings_record.as_ref())?;
        resume_from_logs(&run, &mut config, connection.fleet_json())?;
    } else {
        let model_info = backend.model_info(&agent_config.model).await;
        run.record(&RunFile::new(RunKind::Eval(EvalRun {
            // Credentials in a URL are sent, never recorded: a resume gives --host again.
            argv: Some(llm::arguments_without_credentials(std::env::args().skip(1))),
            backend: backend.describe(),
            fleet: Some(connection.fleet_json()),
            model_digest: Some(
                model_info
                    .as_ref()
                    .and_then(|m| m["digest"].as_str().map(str::to_string)),
            ),
            model_info: Some(model_info),
            agent: agent_config.clone(),
            opponents: config.opponents.iter().map(ToString::to_string).collect(),
            engines: run_engines(&config, scoring),
            games_per_color: args.games,
            opening_random: args.openings.opening_random,
            openings: openings_record,
            seed: args.seed,
            opening_seed: Some(opening_seed),
            parallel,
            score_moves: Some(scoring.map(quality::Scoring::to_json::<R>)),
        })))?;
    }
    run.stop_on_ctrl_c();
    Ok((run, config))
}

/// The external engines of the run, as run.json records them: its opponents, and
/// its move-quality reference.
fn run_engines<R: ModelGame>(config: &EvalConfig<R>, scoring: Option<&quality::Scoring>) -> Vec<RunEngine> {
    let opponents = config.opponents.iter().filter_map(PlayerSpec::run_engine);
    opponents
        .chain(scoring.and_then(quality::Scoring::run_engine))
        .collect()
}

/// Plays the evaluation (each opponent stopped early under `--stop`, whose answers go
/// to decisions.jsonl) with a progress bar; returns the result and each opponent's stop.
async fn play<R: ModelGame>(
    args: &EvalArgs,
    config: &EvalConfig<R>,
    folder: &RunFolder,
) -> Result<(EvalResult<R>, Vec<Option<PairingStop>>)> {
    let bar = progress_bar(config.schedule().len(), args.json, "games");
    bar.tick();
    let report = |event: MatchEvent<'_, R>| {
        if let MatchEvent::GameDone { .. } = event {
            bar.inc(1);
        }
    };
    let played = match &args.stop {
        Some(rule) => run_eval_sequential(config, rule, &report)
            .await
            .map(|(result, sequential)| (result, sequential.stops, sequential.decisions)),
        None => run_eval(config, &report)
            .await
            .map(|result| (result, Vec::new(), Vec::new())),
    };
    let (result, stops, decisions) =
        played.with_context(|| format!("evaluation stopped; logs so far are in {}", folder.path().display()))?;
    if args.stop.is_some() {
        folder.write_decisions(&decisions)?;
    }
    bar.finish_and_clear();
    Ok((result, stops))
}

/// With `--score-moves`, the agent's moves scored (over all games, and per opponent)
/// once every game is finished: an interrupted run is scored when it is resumed and
/// complete, and a Ctrl-C during scoring drops the scores, never the results.
fn score<R: ModelGame>(
    args: &EvalArgs,
    scoring: &quality::Scoring,
    result: &EvalResult<R>,
    config: &EvalConfig<R>,
    log_dir: &Path,
) -> Result<Option<(MoveQuality, Vec<MoveQuality>)>> {
    if result.unfinished != 0 {
        return Ok(None);
    }
    // The reference searches on blocking threads, off the async workers.
    let scored = tokio::task::block_in_place(|| {
        score_agent_moves(
            result,
            config.opponents.len(),
            scoring,
            args.json,
            log_dir,
            config.run.stop.as_deref(),
        )
    });
    match scored {
        Ok(quality) => Ok(Some(quality)),
        Err(err) if err.chain().any(|e| e.is::<ScoringStopped>()) => {
            eprintln!("{err:#}; the results are written without move scores");
            Ok(None)
        }
        Err(err) => Err(err),
    }
}

/// results.json: the tallies and agent statistics, the hosts' usage, the stops and the
/// move quality.
fn eval_results<R: ModelGame>(
    args: &EvalArgs,
    result: &EvalResult<R>,
    stops: &[Option<PairingStop>],
    hosts: &[HostUsage],
    quality: Option<(&quality::Scoring, &(MoveQuality, Vec<MoveQuality>))>,
    log_dir: &Path,
) -> EvalResults {
    let mut opponents = result.opponent_results(args.games);
    let move_quality = quality.map(|(scoring, (all, per_opponent))| {
        for (opponent, q) in opponents.iter_mut().zip(per_opponent) {
            opponent.move_quality = Some(q.to_json());
        }
        let mut all = all.to_json();
        all["reference"] = scoring.to_json::<R>();
        all
    });
    EvalResults {
        opponents,
        agent: result.agent.to_json(),
        complete: result.unfinished == 0,
        unfinished_games: result.unfinished,
        log_dir: log_dir.display().to_string(),
        hosts: hosts.to_vec(),
        stopping: args.stop.as_ref().map(|rule| Stopping {
            stop_rule: rule.to_string(),
            stops: stops.to_vec(),
        }),
        move_quality,
    }
}

/// Reads back the finished games of the interrupted run in `log_dir` into `config`
/// (unfinished logs are set aside) and returns this resume's entry for run.json.
/// Refuses a resume whose agent settings (prompt and template texts included, read
/// again from their files) are not the ones the run recorded: the rest of its games
/// would be credited to settings they were not played with.
fn refuse_changed_settings(log_dir: &Path, run: &EvalRun, now: &AgentConfig) -> Result<()> {
    let changed = changed_agent_settings(&run.agent, now);
    if !changed.is_empty() {
        bail!(
            "bad --resume {}: the agent settings are not the ones the run recorded: {}; restore them, or start a new run",
            log_dir.display(),
            changed.join("; ")
        );
    }
    Ok(())
}

fn resume_from_logs<R: ModelGame>(run: &Run, config: &mut EvalConfig<R>, fleet: serde_json::Value) -> Result<()> {
    let games: Vec<_> = config.schedule().into_iter().map(|(_, _, g)| g).collect();
    let parallel = config.run.parallel;
    let state = run.resume((&config.players(), &games, &config.run.openings), |state| Resume {
        created_utc: utc_now().0,
        parallel,
        fleet: Some(fleet),
        games_finished_before: Some(state.finished.len()),
    })?;
    eprintln!(
        "resuming {}: {} of {} games already finished; {} unfinished log(s) kept aside as *.unfinished-N",
        run.path().display(),
        state.finished.len(),
        games.len(),
        state.set_aside.len()
    );
    config.run.finished = state.finished;
    Ok(())
}

/// Scores the agent's moves of every finished game; writes move-scores.jsonl. Returns
/// the quality over all games and per opponent.
fn score_agent_moves<R: ModelGame>(
    result: &EvalResult<R>,
    opponents: usize,
    scoring: &quality::Scoring,
    quiet: bool,
    log_dir: &Path,
    stop: Option<&AtomicBool>,
) -> Result<(MoveQuality, Vec<MoveQuality>)> {
    let games: Vec<GameToScore<'_, R>> = result
        .games
        .iter()
        .map(|g| GameToScore {
            number: g.number,
            record: &g.record,
            colors: vec![g.agent_color],
        })
        .collect();
    let moves = quality::score(&games, scoring, quiet, stop, Some(log_dir))?;
    runs::write_move_scores(log_dir, &moves)?;
    let mut all = MoveQuality::default();
    let mut per_opponent = vec![MoveQuality::default(); opponents];
    let opponent_of: HashMap<usize, usize> = result.games.iter().map(|g| (g.number, g.opponent)).collect();
    for m in &moves {
        all.add(m);
        if let Some(&opponent) = opponent_of.get(&m.game) {
            per_opponent[opponent].add(m);
        }
    }
    Ok((all, per_opponent))
}

/// The arguments of the run in `dir`, from the `argv` its run.json keeps, with this
/// invocation's --parallel, --csv (only when given now) and --json; and the run as
/// its run.json recorded it.
fn resumed_args(dir: &Path, now: &EvalArgs) -> Result<(EvalArgs, EvalRun)> {
    let path = dir.join("run.json");
    let run = RunFile::read(dir).map_err(|err| match err {
        ReadRunError::Io { source, .. } => anyhow::Error::new(source).context(format!(
            "bad --resume: cannot read {}; give a run folder made by eval",
            path.display()
        )),
        ReadRunError::NotJson { source, .. } => {
            anyhow::Error::new(source).context(format!("bad --resume: {} is not JSON", path.display()))
        }
        err @ ReadRunError::Shape { .. } => anyhow::Error::new(err).context("bad --resume"),
    })?;
    let RunKind::Eval(recorded) = run.run else {
        bail!("bad --resume: {} is not an eval run", path.display());
    };
    let Some(argv) = recorded.argv.clone() else {
        bail!(
            "bad --resume: {} keeps no argv (written by an older version or another command); start a new run",
            path.display()
        );
    };
    let cli = Cli::try_parse_from(std::iter::once("othello-arena".to_string()).chain(argv))
        .with_context(|| format!("bad --resume: the argv in {} no longer parses", path.display()))?;
    let Command::Eval(mut args) = cli.command else {
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
    args.score_moves |= now.score_moves;
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

/// Where each opponent's games stopped, and why.
fn stop_lines(stops: &[Option<PairingStop>]) -> String {
    let mut out = String::new();
    for stop in stops.iter().flatten() {
        let _ = writeln!(out, "{}: {}", stop.pairing, stop.describe());
    }
    out
}

/// The hosts' lines of the text report: requests answered and failed, latency.
fn host_lines(hosts: &[HostUsage]) -> String {
    let mut out = String::new();
    let width = hosts.iter().map(|h| h.host.len()).max().unwrap_or(4).max(4);
    let _ = writeln!(out, "{:width$}  answered  failed  latency p50     p95", "host");
    let ms = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.0} ms"));
    for h in hosts {
        let _ = writeln!(
            out,
            "{:width$}  {:>8}  {:>6}  {:>11}  {:>6}",
            h.host,
            h.answered,
            h.failures,
            ms(h.latency_p50_ms),
            ms(h.latency_p95_ms)
        );
    }
    out
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
