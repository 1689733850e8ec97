//! `play`: a match between two players, its table, JSON, CSV and logs.

use agent::ModelGame;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use anyhow::Result;

use super::agent_args::parse_player;
use super::args::{GameArg, PlayArgs};
use super::external;
use super::openings;
use super::outputs::{check_output_flag, write_output};
use super::quality;
use super::stdout::{out, outln};
use arena::is_llm_spec;
use arena::{
    run_match, MatchConfig, MatchEvent, MatchResult, MoveQuality, MoveValuing, PlayerSpec, RunOptions, Scoring,
};
use game::othello::TextStyle;
use game::{Marubatsu, Othello};
use runs::agent_lines;
use runs::AgentStats;

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
    let reference = (args.reference.exact_empties, args.reference.reference_depth);
    let external = (args.reference_engine.as_deref(), args.agent.engines.as_deref());
    // Only --score-moves values a match's moves (and reports them).
    let scoring = MoveValuing::from_flags::<R>((args.score_moves, !args.score_moves), reference, external)
        .await?
        .scoring;
    let human = players.iter().any(PlayerSpec::is_human);
    let parallel = MatchConfig::<R>::parallel(human || args.show, args.parallel, connection.as_ref());
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
    let run = config.open_run(
        args.log_dir.as_deref(),
        args.openings.opening_random,
        config.run.openings.record(&schedule),
    )?;
    let log_dir = run.as_ref().map(|r| r.path().to_path_buf());
    config.run.log_dir = log_dir.clone();
    let start = Instant::now();
    let result = play_match(&args, &config, human, start).await?;
    if let Some(path) = &args.csv {
        write_output("--csv", path, result.csv().as_bytes())?;
    }
    let agents = result.agent_stats(&config.players);
    let quality = match &scoring {
        // The reference searches on blocking threads, off the async workers.
        Some(scoring) => Some(tokio::task::block_in_place(|| {
            score_both_players(&result, scoring, args.json, log_dir.as_deref())
        })?),
        None => None,
    };
    let quality = scoring.as_ref().zip(quality.as_ref());
    if args.json {
        let reference = quality.map(|(scoring, _)| scoring.to_json::<R>());
        let quality = reference.as_ref().zip(quality.map(|(_, q)| q));
        outln!("{}", result.to_json(config.games, &agents, quality))?;
    } else {
        out!("{}", result.text(&config, start.elapsed().as_secs_f64()))?;
        print_players(&result, &agents, quality)?;
        if let Some(dir) = &log_dir {
            outln!("logs: {}", dir.display())?;
        }
    }
    Ok(())
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

/// Below the table: each LLM player's statistics, then each player's move quality.
fn print_players<R: ModelGame>(
    result: &MatchResult<R>,
    agents: &[Option<AgentStats>; 2],
    quality: Option<(&Scoring, &[MoveQuality; 2])>,
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
        out!("{}{}", scoring.heading::<R>(&tally.spec), q.text(R::BLUNDER))?;
    }
    Ok(())
}

/// Scores both players' moves in every game ([`MatchResult::value_moves`]), with a
/// progress line unless `quiet`; per player in players order.
fn score_both_players<R: ModelGame>(
    result: &MatchResult<R>,
    scoring: &Scoring,
    quiet: bool,
    log_dir: Option<&Path>,
) -> Result<[MoveQuality; 2]> {
    Ok(quality::with_progress::<R, _>(
        result.games.len(),
        scoring,
        quiet,
        |watch| result.value_moves(scoring, (quality::cores(), watch), log_dir),
    )?)
}
