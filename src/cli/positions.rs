//! `positions generate`, `probe` and `datagen`: labelled test positions, one-move
//! probes of an LLM on them, and teacher-labelled training data.

use super::inputs::{read_user_file, DATA_CAP};
use super::progress::progress_bar;
use agent::ModelGame;
use std::fmt::Write as _;
use std::ops::RangeInclusive;
use std::path::Path;

use anyhow::{bail, Context, Result};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use super::agent_args::parse_player;
use super::args::{DatagenArgs, GameArg, GenerateArgs, ProbeArgs};
use super::outputs::{check_output_flag, write_output};
use super::stdout::{out, outln};
use arena::{rules_summary, run_probe, run_rules_probe, Ask, Grade, PlayerSpec, ProbeResult};
use engines::lab::{parallel_map, self_play_positions, BadPosition, LabelledPosition, Teacher};
use engines::marubatsu::tactical_positions;
use engines::EngineSpec;
use game::derive_seed;
use game::othello::{Board, Labels};
use game::{Game, Marubatsu, Othello};
use record::GameLog;
use runs::{GradeCounts, ProbeResults, ProbeRun, RunFile, RunKind, RunResults};

/// Parses an empties range such as `20-40` (or a single number), of at most `most`.
pub(super) fn parse_empties(text: &str, most: u32) -> Result<RangeInclusive<u32>> {
    let bad = || format!("bad --empties {text:?}: give a range of empty squares such as 20-40 (1 to {most})");
    let (low, high) = text.split_once('-').unwrap_or((text, text));
    let low: u32 = low.trim().parse().with_context(bad)?;
    let high: u32 = high.trim().parse().with_context(bad)?;
    if low == 0 || high > most || low > high {
        bail!(bad());
    }
    Ok(low..=high)
}

fn write_lines(path: &Path, lines: &[String]) -> Result<()> {
    let mut text = lines.join("\n");
    text.push('\n');
    write_output("-o", path, text.as_bytes())
}

/// `positions generate`.
pub(super) fn run_generate(args: GenerateArgs) -> Result<()> {
    check_output_flag("-o", &args.output, args.overwrite, &[], &[])?;
    match args.game {
        GameArg::Othello => {
            let empties = parse_empties(args.empties.as_deref().unwrap_or("20-40"), 60)?;
            let boards = self_play_positions(args.count, empties, args.seed);
            if boards.len() < args.count {
                eprintln!(
                    "only {} distinct positions with {} empties came out of self-play",
                    boards.len(),
                    args.empties.as_deref().unwrap_or("20-40")
                );
            }
            generate::<Othello>(&args, boards.into_iter().map(|b| (b, None)).collect())
        }
        GameArg::Marubatsu => {
            let empties = args.empties.as_deref().map(|e| parse_empties(e, 9)).transpose()?;
            let mut found: Vec<_> = tactical_positions()
                .into_iter()
                .filter(|(board, _)| empties.as_ref().is_none_or(|e| e.contains(&board.empties())))
                .collect();
            found.shuffle(&mut ChaCha8Rng::seed_from_u64(args.seed));
            if found.len() < args.count {
                eprintln!("only {} marubatsu positions ask for a win or a block", found.len());
            }
            found.truncate(args.count);
            generate::<Marubatsu>(&args, found.into_iter().map(|(b, m)| (b, Some(m.name()))).collect())
        }
    }
}

/// Labels `boards` of game `R` (each with its motif, if any) with the reference's
/// scores and the teacher's move, and writes them.
fn generate<R: ModelGame>(args: &GenerateArgs, boards: Vec<(R::Position, Option<&str>)>) -> Result<()> {
    let teacher: Option<R::Spec> = args
        .teacher
        .as_deref()
        .map(|t| {
            t.parse()
                .map_err(|e: <R::Spec as std::str::FromStr>::Err| anyhow::anyhow!("{e}"))
        })
        .transpose()
        .context("bad --teacher")?;
    if teacher.as_ref().is_some_and(R::is_human) {
        bail!("bad --teacher human: positions are labelled unattended; give an engine spec");
    }
    let bar = progress_bar(boards.len(), false, "positions labelled");
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let name = teacher.as_ref().map(ToString::to_string).unwrap_or_default();
    let labelled = parallel_map(
        &boards,
        cores,
        || R::reference(args.reference.exact_empties, args.reference.reference_depth),
        |reference, index, (board, motif)| -> Result<LabelledPosition> {
            // The teacher is seeded per position, so the labels do not depend on which
            // worker took the position.
            let teacher_move = match &teacher {
                Some(spec) => Some(R::decision_move(
                    &R::engine(spec, derive_seed(args.seed, index as u64))
                        .choose(board)
                        .context("bad --teacher")?,
                )),
                None => None,
            };
            let mut position =
                LabelledPosition::label::<R>(board, reference, teacher_move.map(|mv| (name.as_str(), mv)));
            position.motif = motif.map(str::to_string);
            bar.inc(1);
            Ok(position)
        },
    );
    bar.finish_and_clear();
    let positions = labelled.into_iter().collect::<Result<Vec<_>>>()?;
    let lines = positions
        .iter()
        .map(serde_json::to_string)
        .collect::<Result<Vec<_>, _>>()?;
    write_lines(&args.output, &lines)?;
    let exact = positions.iter().filter(|p| p.exact).count();
    outln!(
        "wrote {} positions to {} ({exact} scored exactly; {})",
        positions.len(),
        args.output.display(),
        R::describe_reference(args.reference.exact_empties, args.reference.reference_depth)
    )?;
    Ok(())
}

/// Reads a positions file, naming the line of any bad entry; every position must be
/// of one game, which comes back with them.
fn read_positions(path: &Path) -> Result<(Game, Vec<LabelledPosition>)> {
    let text = read_user_file("--positions", path, DATA_CAP)
        .with_context(|| "bad --positions: make one with `positions generate`".to_string())?;
    let mut positions = Vec::new();
    let mut game = None;
    for (index, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let at = || format!("bad --positions: {}:{}", path.display(), index + 1);
        let position: LabelledPosition =
            serde_json::from_str(line).with_context(|| format!("{} is not a labelled position", at()))?;
        let this = position.game().with_context(at)?;
        if *game.get_or_insert(this) != this {
            bail!(
                "{}: a {this} position in a file of {} positions",
                at(),
                game.unwrap_or(this)
            );
        }
        match this {
            Game::Othello => check_position::<Othello>(&position),
            Game::Marubatsu => check_position::<Marubatsu>(&position),
        }
        .with_context(at)?;
        positions.push(position);
    }
    match game {
        Some(game) => Ok((game, positions)),
        None => bail!("bad --positions: {} holds no positions", path.display()),
    }
}

/// Checks that a labelled position of game `R` is playable and scores every legal move.
fn check_position<R: ModelGame>(position: &LabelledPosition) -> Result<(), BadPosition> {
    let board = position.position::<R>()?;
    position.move_scores::<R>(&board).map(drop)
}

fn grades_line(out: &mut String, label: &str, grades: &GradeCounts) {
    let total = grades.correct + grades.wrong + grades.invalid + grades.error;
    let pct = |k: u32| {
        if total == 0 {
            0.0
        } else {
            100.0 * f64::from(k) / f64::from(total)
        }
    };
    let _ = writeln!(
        out,
        "  {label}: correct {} ({:.1}% [{:.1}, {:.1}]), wrong {} ({:.1}%), invalid {} ({:.1}%), error {} ({:.1}%)",
        grades.correct,
        pct(grades.correct),
        100.0 * grades.accuracy_ci_low,
        100.0 * grades.accuracy_ci_high,
        grades.wrong,
        pct(grades.wrong),
        grades.invalid,
        pct(grades.invalid),
        grades.error,
        pct(grades.error)
    );
}

/// `probe`.
pub(super) async fn run_probe_command(args: ProbeArgs, env: &dyn Fn(&str) -> Option<String>) -> Result<()> {
    let (game, positions) = read_positions(&args.positions)?;
    match (game, args.ask) {
        (_, Ask::Move) => {}
        (Game::Othello, _) => return rules_probe(args, positions, env).await,
        (Game::Marubatsu, ask) => bail!("bad --ask {ask}: the rules probes ask about Othello positions"),
    }
    match game {
        Game::Othello => probe::<Othello>(args, positions, env).await,
        Game::Marubatsu => probe::<Marubatsu>(args, positions, env).await,
    }
}

/// The probe's run folder, with its run.json.
fn open_run(
    args: &ProbeArgs,
    connection: &arena::Connection,
    config: &agent::AgentConfig,
    positions: usize,
) -> Result<arena::Run> {
    let label = format!("probe-{}", config.model);
    let run = arena::Run::open(
        "probe",
        arena::Start::New {
            dir: args.log_dir.as_deref(),
            label: &label,
        },
    )?;
    run.record(&RunFile::new(RunKind::Probe(ProbeRun {
        backend: connection.backend.describe(),
        fleet: Some(connection.fleet_json()),
        agent: config.clone(),
        positions_file: args.positions.display().to_string(),
        positions,
        parallel: args.parallel,
        seed: args.seed,
        ask: (args.ask != Ask::Move).then(|| args.ask.to_string()),
    })))?;
    Ok(run)
}

/// `probe` over positions of game `R`.
async fn probe<R: ModelGame>(
    args: ProbeArgs,
    positions: Vec<LabelledPosition>,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<()> {
    let connection = args.hosts.connect(&args.agent, env).await?;
    let agent: PlayerSpec<R> = parse_player(&args.agent_spec, "--agent", &args.agent, Some(&connection))?;
    let Some(config) = agent.agent_config().cloned() else {
        bail!(
            "bad --agent {:?}: probe measures an LLM player, give llm:MODEL",
            args.agent_spec
        );
    };
    if let Some(csv) = &args.csv {
        let inputs: Vec<&Path> = [Some(args.positions.as_path()), args.log_dir.as_deref()]
            .into_iter()
            .flatten()
            .collect();
        check_output_flag("--csv", csv, args.overwrite, &inputs, &[])?;
    }
    let run = open_run(&args, &connection, &config, positions.len())?;
    let dir = run.path().to_path_buf();
    let log = GameLog::create(&dir.join("probe.jsonl"))?;
    let bar = progress_bar(positions.len(), args.json, "positions");
    let results = run_probe(&agent, &positions, args.parallel, args.seed, Some(&log), &|_| {
        bar.inc(1)
    })
    .await;
    bar.finish_and_clear();
    if let Some(failed) = results
        .iter()
        .find(|r| r.grade == Grade::Error)
        .filter(|_| results.iter().all(|r| r.grade == Grade::Error))
    {
        bail!(
            "every probe failed; the first: {}",
            failed.error.as_deref().unwrap_or("unknown error")
        );
    }
    probe_results(&args, &agent, positions, results, &run, &dir)
}

/// The probe's outputs: probe.csv (and `--csv`), the statistics in results.json, and
/// the table or the JSON printed.
fn probe_results<R: ModelGame>(
    args: &ProbeArgs,
    agent: &PlayerSpec<R>,
    positions: Vec<LabelledPosition>,
    results: Vec<ProbeResult>,
    run: &arena::Run,
    dir: &Path,
) -> Result<()> {
    let csv = arena::probe_csv(&positions, &results);
    run.folder().write_text("probe.csv", &csv)?;
    if let Some(path) = &args.csv {
        write_output("--csv", path, csv.as_bytes())?;
    }
    let summary = arena::probe_summary(&positions, &results, dir);
    run.finish(&RunResults::Probe(&summary))?;
    if args.json {
        outln!("{}", RunResults::Probe(&summary).to_json())?;
        return Ok(());
    }
    out!("{}", probe_text(args, agent, &summary))?;
    outln!("logs and probe.csv: {}", dir.display())?;
    Ok(())
}

/// The probe's table: the grades, the mean regret, fallbacks and invalid answers.
fn probe_text<R: ModelGame>(args: &ProbeArgs, agent: &PlayerSpec<R>, summary: &ProbeResults) -> String {
    let n = summary.positions;
    let mut out = format!("{} on {} positions from {}:\n", agent, n, args.positions.display());
    grades_line(&mut out, "against the reference's best moves", &summary.against_best);
    if let (Some(name), Some(counts)) = (&summary.teacher, &summary.against_teacher) {
        grades_line(
            &mut out,
            &format!("against {name}'s move (seed 000's test_inference)"),
            counts,
        );
    }
    if let Some(m) = &summary.mean_regret {
        let _ = writeln!(
            out,
            "  mean regret of the model's own moves: {:.2} discs [{:.2}, {:.2}] over {} moves ({} scored exactly)",
            m.mean, m.ci_low, m.ci_high, summary.model_moves, m.exact_moves
        );
    }
    let (fallback, invalid_answers) = (summary.fallback_moves, summary.invalid_answers);
    let _ = writeln!(
        out,
        "  fallback moves (invalid): {fallback} of {n} ({:.1}% [{:.1}, {:.1}]); invalid answers {invalid_answers} ({:.2} per position)",
        100.0 * f64::from(fallback) / f64::from(n.max(1)),
        100.0 * summary.fallback_ci_low,
        100.0 * summary.fallback_ci_high,
        f64::from(invalid_answers) / f64::from(n.max(1))
    );
    out
}

/// `probe --ask legal-moves|after-move` over Othello positions.
async fn rules_probe(
    args: ProbeArgs,
    positions: Vec<LabelledPosition>,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<()> {
    let connection = args.hosts.connect(&args.agent, env).await?;
    let agent: PlayerSpec<Othello> = parse_player(&args.agent_spec, "--agent", &args.agent, Some(&connection))?;
    let PlayerSpec::Llm(llm) = &agent else {
        bail!(
            "bad --agent {:?}: probe measures an LLM player, give llm:MODEL",
            args.agent_spec
        );
    };
    let run = open_run(&args, &connection, &llm.config, positions.len())?;
    let dir = run.path().to_path_buf();
    let log = GameLog::create(&dir.join("probe.jsonl"))?;
    let bar = progress_bar(positions.len(), args.json, "positions");
    let answers = run_rules_probe(llm, args.ask, &positions, args.parallel, Some(&log), &|_| bar.inc(1)).await;
    bar.finish_and_clear();
    if let Some(error) = answers.iter().map(|a| a.error.as_deref()).collect::<Option<Vec<_>>>() {
        bail!(
            "every probe failed; the first: {}",
            error.first().unwrap_or(&"no position")
        );
    }
    let summary = rules_summary(args.ask, &answers, &dir);
    run.finish(&RunResults::RulesProbe(&summary))?;
    if args.json {
        outln!("{}", RunResults::RulesProbe(&summary).to_json())?;
        return Ok(());
    }
    let mut out = format!(
        "{agent} on {} positions from {} (--ask {}):\n",
        summary.positions,
        args.positions.display(),
        summary.ask
    );
    for share in &summary.shares {
        let _ = writeln!(
            out,
            "  {:14} {:5.1}% [{:5.1}, {:5.1}]  ({} of {})",
            share.name,
            100.0 * share.rate,
            100.0 * share.ci_low,
            100.0 * share.ci_high,
            share.hits,
            share.of
        );
    }
    let _ = writeln!(
        out,
        "  unreadable answers {}, failed requests {} (not scored)",
        summary.unreadable, summary.errors
    );
    out!("{out}")?;
    outln!("log and results.json: {}", dir.display())?;
    Ok(())
}

/// `datagen`.
pub(super) fn run_datagen(args: DatagenArgs) -> Result<()> {
    let empties = parse_empties(&args.empties, 60)?;
    let labels = Labels::from(args.labels);
    check_output_flag("-o", &args.output, args.overwrite, &[], &[])?;
    let spec: EngineSpec = args.teacher.parse().context("bad --teacher")?;
    let mut teacher = Teacher::new(spec, args.seed);
    let boards: Vec<Board> = self_play_positions(args.count, empties, args.seed);
    let bar = progress_bar(boards.len(), false, "examples");
    let mut lines = Vec::with_capacity(boards.len());
    for board in &boards {
        let example = teacher.example(board, labels).context("bad --teacher")?;
        lines.push(example.to_string());
        bar.inc(1);
    }
    bar.finish_and_clear();
    write_lines(&args.output, &lines)?;
    outln!(
        "wrote {} examples labelled by {} to {}",
        lines.len(),
        teacher.name(),
        args.output.display()
    )?;
    Ok(())
}
