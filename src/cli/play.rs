//! `play`: a match between two players, its table, JSON, CSV and logs.

use agent::ModelGame;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use anyhow::Result;
use serde_json::json;

use super::agent_args::parse_player;
use super::args::{GameArg, PlayArgs};
use super::external;
use super::openings;
use super::outputs::{check_output_flag, write_output};
use super::quality;
use super::report::{agent_lines, tally_header, tally_row};
use super::stdout::{out, outln};
use arena::is_llm_spec;
use arena::{
    run_match, Connection, GameToScore, MatchConfig, MatchEvent, MatchResult, MoveQuality, PlayerSpec, Run, RunOptions,
    SpecTally, Start,
};
use game::othello::{Color, TextStyle};
use game::{Marubatsu, Othello};
use runs::CsvTable;
use runs::{AgentStats, OpeningsRecord, PlayRun, RunFile, RunKind, TallySummary};
use stats::Tally;

pub(super) async fn run(args: PlayArgs, env: &dyn Fn(&str) -> Option<String>) -> Result<()> {
    match args.game {
        GameArg::Othello => play::<Othello>(args, env).await,
        GameArg::Marubatsu => play::<Marubatsu>(args, env).await,
    }
}

/// `play` of game `R`: the match played, then its tables, CSV and JSON.
async fn play<R: ModelGame>(args: PlayArgs, env: &dyn Fn(&str) -> Option<String>) -> Result<()> {
    let openings = openings::from_args::<R>(&args.openings, args.seed)?;
    let connection = if is_llm_spec(&args.black) || is_llm_spec(&args.white) {
        Some(args.hosts.connect(&args.agent, env).await?)
    } else {
        None
    };
    let players: [PlayerSpec<R>; 2] = [
        parse_player(&args.black, "--black", &args.agent, connection.as_ref())?,
        parse_player(&args.white, "--white", &args.agent, connection.as_ref())?,
    ];
    external::identify(&players).await?;
    let scoring = quality::Scoring::from_flags::<R>(
        args.score_moves,
        args.reference,
        args.reference_engine.as_deref(),
        args.agent.engines.as_deref(),
    )
    .await?;
    let human = players.iter().any(PlayerSpec::is_human);
    let parallel = parallel(&args, human, connection.as_ref());
    if let Some(csv) = &args.csv {
        check_output_flag(
            "--csv",
            csv,
            args.overwrite,
            &args.log_dir.iter().map(PathBuf::as_path).collect::<Vec<_>>(),
            &[],
        )?;
    }
    let mut config = MatchConfig {
        players,
        games: args.games,
        swap: args.swap,
        seed: args.seed,
        run: RunOptions {
            openings,
            parallel,
            ..RunOptions::default()
        },
    };
    let schedule = config.schedule();
    config
        .run
        .openings
        .check(&schedule)
        .map_err(|e| anyhow::anyhow!("bad --openings: {e}"))?;
    let run = open_run(&args, &config.players, config.run.openings.record(&schedule))?;
    let log_dir = run.as_ref().map(|r| r.path().to_path_buf());
    config.run.log_dir = log_dir.clone();
    let start = Instant::now();
    let result = play_match(&args, &config, human, start).await?;
    if let Some(path) = &args.csv {
        write_output("--csv", path, csv_table::<R>(&result.tallies).as_bytes())?;
    }
    let agents = agent_stats(&config, &result);
    let quality = match &scoring {
        // The reference searches on blocking threads, off the async workers.
        Some(scoring) => Some(tokio::task::block_in_place(|| {
            score_both_players(&result, scoring, args.json, log_dir.as_deref())
        })?),
        None => None,
    };
    let quality = scoring.as_ref().zip(quality.as_ref());
    if args.json {
        print_json(&config, &result, &agents, quality)?;
    } else {
        out!(
            "{}",
            text_table(&config, &result.tallies, start.elapsed().as_secs_f64())
        )?;
        print_players(&result, &agents, quality)?;
        if let Some(dir) = &log_dir {
            outln!("logs: {}", dir.display())?;
        }
    }
    Ok(())
}

/// Games at once: one for a person or a board printout; else `--parallel`, by default
/// the model server's capacity (one game for a single host) or the CPU cores.
fn parallel(args: &PlayArgs, human: bool, connection: Option<&Connection>) -> usize {
    if human || args.show {
        return 1;
    }
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let default_parallel = match connection {
        Some(connection) => connection.default_parallel(),
        None => cores,
    };
    args.parallel.unwrap_or(default_parallel)
}

/// The run folder, when `--log-dir` is given or a player is an LLM, with its run.json.
fn open_run<R: ModelGame>(
    args: &PlayArgs,
    players: &[PlayerSpec<R>; 2],
    openings: Option<OpeningsRecord>,
) -> Result<Option<Run>> {
    let has_llm = players.iter().any(|p| p.agent_config().is_some());
    if args.log_dir.is_none() && !has_llm {
        return Ok(None);
    }
    let label = format!("{}-vs-{}", players[0], players[1]);
    let run = Run::open(
        "play",
        Start::New {
            dir: args.log_dir.as_deref(),
            label: &label,
        },
    )?;
    run.record(&RunFile::new(RunKind::Play(PlayRun {
        players: players.iter().map(PlayerSpec::run_player).collect(),
        games: args.games,
        swap: args.swap,
        opening_random: args.openings.opening_random,
        openings,
        seed: args.seed,
    })))?;
    Ok(Some(run))
}

/// Plays the match, showing each move (`--show`, or a person playing) and the games
/// done so far on stderr.
async fn play_match<R: ModelGame>(
    args: &PlayArgs,
    config: &MatchConfig<R>,
    human: bool,
    start: Instant,
) -> Result<MatchResult<R>> {
    let done = AtomicUsize::new(0);
    let show = args.show || human;
    let report = |event: MatchEvent<'_, R>| match event {
        MatchEvent::Ply { game, board, mv } if show => {
            eprintln!(
                "game {} : {} played {mv}\n{}\n",
                game + 1,
                R::side_name(!R::to_move(board)),
                R::model_text(board, TextStyle::default(), agent::LegalMoves::Shown)
            );
        }
        MatchEvent::Ply { .. } => {}
        MatchEvent::GameDone { .. } => {
            let n = done.fetch_add(1, Ordering::Relaxed) + 1;
            if !args.json && (n.is_multiple_of(10) || n == config.games) {
                eprint!("\r{n}/{} games, {:.1} s", config.games, start.elapsed().as_secs_f64());
            }
        }
    };
    let result = run_match(config, &report).await?;
    if !args.json {
        eprintln!();
    }
    Ok(result)
}

/// `--json`: the games, and each player's tallies, agent statistics and move quality.
fn print_json<R: ModelGame>(
    config: &MatchConfig<R>,
    result: &MatchResult<R>,
    agents: &[Option<AgentStats>; 2],
    quality: Option<(&quality::Scoring, &[MoveQuality; 2])>,
) -> Result<()> {
    let players: Vec<_> = result
        .tallies
        .iter()
        .zip(agents)
        .map(|(tally, stats)| {
            let mut value = spec_json(tally);
            if let Some(stats) = stats {
                value["agent"] = stats.to_json();
            }
            value
        })
        .collect();
    let mut players = players;
    if let Some((scoring, quality)) = quality {
        for (value, q) in players.iter_mut().zip(quality) {
            value["move_quality"] = q.to_json();
            value["move_quality"]["reference"] = scoring.to_json::<R>();
        }
    }
    outln!("{}", json!({ "games": config.games, "players": players }))?;
    Ok(())
}

/// Below the table: each LLM player's statistics, then each player's move quality.
fn print_players<R: ModelGame>(
    result: &MatchResult<R>,
    agents: &[Option<AgentStats>; 2],
    quality: Option<(&quality::Scoring, &[MoveQuality; 2])>,
) -> Result<()> {
    for (tally, stats) in result.tallies.iter().zip(agents) {
        if let Some(stats) = stats {
            let mut lines = format!(
                "{} (a move the fallback played is never counted as the model's):\n",
                tally.spec
            );
            agent_lines(stats, result.games.len() as u32, &mut lines);
            out!("{lines}")?;
        }
    }
    let Some((scoring, quality)) = quality else {
        return Ok(());
    };
    for (tally, q) in result.tallies.iter().zip(quality) {
        let mut text = quality::heading::<R>(&tally.spec, scoring);
        quality::quality_lines::<R>(q, &mut text);
        out!("{text}")?;
    }
    Ok(())
}

/// Scores both players' moves in every game; per player in players order. Writes
/// move-scores.jsonl when the match has a log folder.
fn score_both_players<R: ModelGame>(
    result: &MatchResult<R>,
    scoring: &quality::Scoring,
    quiet: bool,
    log_dir: Option<&Path>,
) -> Result<[MoveQuality; 2]> {
    let games: Vec<GameToScore<'_, R>> = result
        .games
        .iter()
        .enumerate()
        .map(|(i, (_, record))| GameToScore {
            number: i + 1,
            record,
            colors: Color::BOTH.to_vec(),
        })
        .collect();
    let moves = quality::score(&games, scoring, quiet, None, log_dir)?;
    if let Some(dir) = log_dir {
        runs::write_move_scores(dir, &moves)?;
    }
    let mut per_player: [MoveQuality; 2] = Default::default();
    for m in &moves {
        let first_color = result.games[m.game - 1].0;
        let player = usize::from(m.color != first_color.to_string());
        per_player[player].add(m);
    }
    Ok(per_player)
}

/// What each LLM player did over the match (`None` for engines), in players order.
fn agent_stats<R: ModelGame>(config: &MatchConfig<R>, result: &MatchResult<R>) -> [Option<AgentStats>; 2] {
    let mut stats: [Option<AgentStats>; 2] =
        std::array::from_fn(|i| config.players[i].agent_config().map(|_| AgentStats::default()));
    for (first_color, record) in &result.games {
        for (color, decision) in record.agent_decisions() {
            if let Some(stats) = stats[usize::from(color != *first_color)].as_mut() {
                stats.add(decision);
            }
        }
    }
    stats
}

fn spec_json(t: &SpecTally) -> serde_json::Value {
    let mut value = json!(TallySummary::from(&t.overall));
    value["spec"] = json!(t.spec);
    value["as_black"] = json!(TallySummary::from(&t.as_black));
    value["as_white"] = json!(TallySummary::from(&t.as_white));
    value
}

/// Each player's rows: all games, then as each side (named as game `R` names it).
fn rows<R: ModelGame>(tallies: &[SpecTally; 2]) -> Vec<(&str, &'static str, &Tally)> {
    tallies
        .iter()
        .flat_map(|t| {
            [
                (t.spec.as_str(), "all", &t.overall),
                (t.spec.as_str(), R::side_name(Color::Black), &t.as_black),
                (t.spec.as_str(), R::side_name(Color::White), &t.as_white),
            ]
        })
        .collect()
}

fn text_table<R: ModelGame>(config: &MatchConfig<R>, tallies: &[SpecTally; 2], secs: f64) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} vs {}: {} games{}, {}, seed {} ({secs:.1} s)",
        config.players[0],
        config.players[1],
        config.games,
        if config.swap { ", colors alternating" } else { "" },
        config.run.openings,
        config.seed,
    );
    let width = tallies.iter().map(|t| t.spec.len()).max().unwrap_or(6).max(6);
    let _ = writeln!(out, "{}", tally_header("player", width, R::MARGIN));
    for (spec, color, t) in rows::<R>(tallies) {
        if t.games() > 0 {
            let _ = writeln!(out, "{}", tally_row(spec, width, color, t));
        }
    }
    let _ = writeln!(
        out,
        "win% counts a draw as not won; the interval is the Wilson 95% score interval of wins/games."
    );
    out
}

fn csv_table<R: ModelGame>(tallies: &[SpecTally; 2]) -> String {
    let mut table = CsvTable::new(&[
        "player",
        "color",
        "games",
        "wins",
        "losses",
        "draws",
        "win_rate",
        "ci_low",
        "ci_high",
        "mean_disc_diff",
    ]);
    for (spec, color, t) in rows::<R>(tallies) {
        let (low, high) = t.win_interval();
        table.row(&[
            spec.to_string(),
            color.to_string(),
            t.games().to_string(),
            t.wins.to_string(),
            t.losses.to_string(),
            t.draws.to_string(),
            format!("{:.4}", t.win_rate()),
            format!("{low:.4}"),
            format!("{high:.4}"),
            format!("{:.3}", t.mean_margin()),
        ]);
    }
    table.finish()
}
