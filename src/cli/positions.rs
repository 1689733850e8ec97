//! `positions generate`, `probe` and `datagen`: labelled test positions, one-move
//! probes of an LLM on them, and teacher-labelled training data.

use super::progress::progress_bar;
use agent::ModelGame;
use std::ops::RangeInclusive;
use std::path::Path;

use anyhow::{bail, Context, Result};

use super::args::{DatagenArgs, GameArg, GenerateArgs, ProbeArgs};
use super::outputs::{check_output_flag, write_output};
use super::stdout::{out, outln};
use arena::{Ask, PlayerSpec};
use engines::lab::{label_positions, self_play_positions, LabelledPosition, Labelling, Teacher};
use engines::marubatsu::tactical_sample;
use engines::EngineSpec;
use game::othello::{Board, Labels};
use game::{Game, Marubatsu, Othello};
use runs::RunResults;

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
    write_output("-o", path, (lines.join("\n") + "\n").as_bytes())
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
            let found = tactical_sample(args.count, empties.as_ref(), args.seed);
            if found.len() < args.count {
                eprintln!("only {} marubatsu positions ask for a win or a block", found.len());
            }
            generate::<Marubatsu>(&args, found.into_iter().map(|(b, m)| (b, Some(m.name()))).collect())
        }
    }
}

/// Labels `boards` of game `R` (each with its motif, if any) with the reference's
/// scores and the teacher's move ([`label_positions`]), and writes them.
fn generate<R: ModelGame>(args: &GenerateArgs, boards: Vec<(R::Position, Option<&str>)>) -> Result<()> {
    let reference = (args.reference.exact_empties, args.reference.reference_depth);
    let labelling = Labelling::from_flags::<R>(args.teacher.as_deref(), reference, args.seed)?;
    let bar = progress_bar(boards.len(), false, "positions labelled");
    let labelled = label_positions::<R>(&boards, &labelling, &|| bar.inc(1));
    bar.finish_and_clear();
    let positions = labelled.context("bad --teacher")?;
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
        R::describe_reference(labelling.exact_empties, labelling.depth)
    )?;
    Ok(())
}

/// `probe`.
pub(super) async fn run_probe_command(args: ProbeArgs, env: &dyn Fn(&str) -> Option<String>) -> Result<()> {
    let (game, positions) = arena::read_positions_file(&args.positions)?;
    match (game, args.ask) {
        (Game::Othello, Ask::Move) => probe::<Othello>(args, positions, env).await,
        (Game::Marubatsu, Ask::Move) => probe::<Marubatsu>(args, positions, env).await,
        (Game::Othello, _) => rules_probe(args, positions, env).await,
        (Game::Marubatsu, ask) => bail!("bad --ask {ask}: the rules probes ask about Othello positions"),
    }
}

/// The probe's run folder, with its run.json ([`arena::open_probe_run`]).
fn open_run(
    args: &ProbeArgs,
    connection: &arena::Connection,
    agent: &agent::AgentConfig,
    positions: usize,
) -> Result<arena::Run> {
    let plan = arena::ProbePlan {
        connection,
        agent,
        positions: (&args.positions, positions),
        parallel: args.parallel,
        seed: args.seed,
        ask: args.ask,
    };
    Ok(arena::open_probe_run(args.log_dir.as_deref(), &plan)?)
}

/// `probe` over positions of game `R`.
async fn probe<R: ModelGame>(
    args: ProbeArgs,
    positions: Vec<LabelledPosition>,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<()> {
    let connection = args.hosts.connect(&args.agent, env).await?;
    let agent_flags = (&connection, "probe");
    let agent = PlayerSpec::<R>::parse_llm(&args.agent_spec, "--agent", &args.agent.source(), agent_flags)?;
    let config = agent.agent_config().cloned().unwrap_or_default();
    if let Some(csv) = &args.csv {
        let inputs: Vec<&Path> = [Some(args.positions.as_path()), args.log_dir.as_deref()]
            .into_iter()
            .flatten()
            .collect();
        check_output_flag("--csv", csv, args.overwrite, &inputs, &[])?;
    }
    let run = open_run(&args, &connection, &config, positions.len())?;
    let bar = progress_bar(positions.len(), args.json, "positions");
    let probed = arena::probe_run(&run, &agent, &positions, args.parallel, args.seed, &|_| bar.inc(1)).await;
    bar.finish_and_clear();
    let (summary, csv) = probed?;
    if let Some(path) = &args.csv {
        write_output("--csv", path, csv.as_bytes())?;
    }
    if args.json {
        outln!("{}", RunResults::Probe(&summary).to_json())?;
        return Ok(());
    }
    let source = args.positions.display().to_string();
    out!("{}", summary.text(&agent.to_string(), &source))?;
    outln!("logs and probe.csv: {}", run.path().display())?;
    Ok(())
}

/// `probe --ask legal-moves|after-move` over Othello positions.
async fn rules_probe(
    args: ProbeArgs,
    positions: Vec<LabelledPosition>,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<()> {
    let connection = args.hosts.connect(&args.agent, env).await?;
    let agent_flags = (&connection, "probe");
    let agent = PlayerSpec::<Othello>::parse_llm(&args.agent_spec, "--agent", &args.agent.source(), agent_flags)?;
    let PlayerSpec::Llm(llm) = &agent else {
        unreachable!("parse_llm gives an LLM player")
    };
    let run = open_run(&args, &connection, &llm.config, positions.len())?;
    let bar = progress_bar(positions.len(), args.json, "positions");
    let probed = arena::rules_probe_run(&run, llm, args.ask, &positions, args.parallel, &|_| bar.inc(1)).await;
    bar.finish_and_clear();
    let summary = probed?;
    if args.json {
        outln!("{}", RunResults::RulesProbe(&summary).to_json())?;
        return Ok(());
    }
    let source = args.positions.display().to_string();
    out!("{}", summary.text(&agent.to_string(), &source))?;
    outln!("log and results.json: {}", run.path().display())?;
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
    let lines = teacher.examples(&boards, labels, &|| bar.inc(1));
    bar.finish_and_clear();
    let lines = lines.context("bad --teacher")?;
    write_lines(&args.output, &lines)?;
    outln!(
        "wrote {} examples labelled by {} to {}",
        lines.len(),
        teacher.name(),
        args.output.display()
    )?;
    Ok(())
}
