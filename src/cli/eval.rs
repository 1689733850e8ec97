//! `eval`: the LLM agent against each opponent, with tables, CSV, JSON and logs.

use std::fmt::Write as _;
use std::sync::Arc;

use anyhow::{bail, Context, Result};
use indicatif::{ProgressBar, ProgressStyle};
use serde_json::{json, Value};

use super::agent_args::parse_player;
use super::args::EvalArgs;
use super::report::{agent_lines, opponent_rows, tally_header, tally_json};
use super::run_dir::{create_run_dir, utc_now, write_json};
use crate::arena::{run_eval, EvalConfig, EvalResult, MatchEvent, RunOptions};
use crate::llm::ChatBackend;

pub(super) fn run(args: EvalArgs, env: &dyn Fn(&str) -> Option<String>) -> Result<()> {
    if args.games == 0 {
        bail!("bad --games: 0 games per color would measure nothing; give 1 or more");
    }
    let backend: Arc<dyn ChatBackend> = args.agent.backend(env)?;
    let make_backend = || Ok(backend.clone());
    let agent = parse_player(&args.agent_spec, "--agent", &args.agent, &make_backend)?;
    let Some(agent_config) = agent.agent_config().cloned() else {
        bail!(
            "bad --agent {:?}: eval measures an LLM player, give llm:MODEL",
            args.agent_spec
        );
    };
    let opponents = args
        .vs
        .iter()
        .map(|spec| parse_player(spec, "--vs", &args.agent, &make_backend))
        .collect::<Result<Vec<_>>>()?;
    if opponents.iter().any(|o| o.is_human()) {
        bail!("bad --vs: eval runs unattended; use `play` to play the agent yourself");
    }
    let log_dir = create_run_dir(args.log_dir.as_deref(), &agent_config.model)?;
    let model_info = backend.model_info(&agent_config.model);
    let (created, _) = utc_now();
    write_json(
        &log_dir,
        "run.json",
        &json!({
            "harness": { "name": "othello-arena", "version": env!("CARGO_PKG_VERSION") },
            "command": "eval",
            "created_utc": created,
            "backend": backend.describe(),
            "model_digest": model_info.as_ref().map(|m| m["digest"].clone()),
            "model_info": model_info,
            "agent": agent_config.to_json(),
            "opponents": opponents.iter().map(ToString::to_string).collect::<Vec<_>>(),
            "games_per_color": args.games,
            "opening_random": args.opening_random,
            "seed": args.seed,
            "opening_seed": args.opening_seed.unwrap_or(args.seed),
            "parallel": args.parallel,
        }),
    )?;
    let config = EvalConfig {
        agent,
        opponents,
        games_per_color: args.games,
        seed: args.seed,
        opening_seed: args.opening_seed,
        run: RunOptions {
            opening_plies: args.opening_random,
            parallel: args.parallel.max(1),
            log_dir: Some(log_dir.clone()),
        },
    };
    let total = config.schedule().len() as u64;
    let bar = if args.json {
        ProgressBar::hidden()
    } else {
        ProgressBar::new(total)
    };
    bar.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} games  elapsed {elapsed_precise}  ETA {eta_precise}  {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar.tick();
    let report = |event: MatchEvent<'_>| {
        if let MatchEvent::GameDone { .. } = event {
            bar.inc(1);
        }
    };
    let result = run_eval(&config, &report)
        .with_context(|| format!("evaluation stopped; logs so far are in {}", log_dir.display()))?;
    bar.finish_and_clear();
    let summary = summary_json(&result, args.games, &log_dir.display().to_string());
    write_json(&log_dir, "results.json", &summary)?;
    if let Some(path) = &args.csv {
        let csv = seed_csv(&result, &agent_config.model, args.games);
        std::fs::write(path, &csv).with_context(|| format!("cannot write --csv {}", path.display()))?;
        std::fs::write(log_dir.join("results.csv"), &csv)
            .with_context(|| format!("cannot write {}", log_dir.display()))?;
    }
    if args.json {
        println!("{summary}");
    } else {
        print!("{}", text_report(&result, &agent_config.model, args.games));
        println!("logs: {}", log_dir.display());
    }
    Ok(())
}

fn summary_json(result: &EvalResult, games_per_color: usize, log_dir: &str) -> Value {
    let opponents: Vec<Value> = result
        .opponents
        .iter()
        .map(|o| {
            json!({
                "opponent": o.opponent,
                "games_per_color": games_per_color,
                "as_black": tally_json(&o.as_black),
                "as_white": tally_json(&o.as_white),
                "overall": tally_json(&o.overall()),
                "agent": o.agent.to_json(),
            })
        })
        .collect();
    json!({ "opponents": opponents, "agent": result.agent.to_json(), "log_dir": log_dir })
}

/// Seed 000's Evaluator CSV: one row per opponent, W/L/D per agent color.
fn seed_csv(result: &EvalResult, model: &str, games_per_color: usize) -> String {
    let date = &utc_now().0[..10];
    let mut out = String::from("model,date,games_per_matchup,opponent,b_win,b_lose,b_draw,w_win,w_lose,w_draw\n");
    for o in &result.opponents {
        let _ = writeln!(
            out,
            "{model},{date},{games_per_color},{},{},{},{},{},{},{}",
            o.opponent,
            o.as_black.wins,
            o.as_black.losses,
            o.as_black.draws,
            o.as_white.wins,
            o.as_white.losses,
            o.as_white.draws
        );
    }
    out
}

fn text_report(result: &EvalResult, model: &str, games_per_color: usize) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "llm:{model}: {games_per_color} game(s) as black and as white against each opponent"
    );
    let width = result
        .opponents
        .iter()
        .map(|o| o.opponent.len())
        .max()
        .unwrap_or(8)
        .max(8);
    let _ = writeln!(out, "{}  model-decided moves", tally_header("opponent", width));
    for o in &result.opponents {
        opponent_rows(&mut out, &o.opponent, width, [o.as_black, o.as_white], &o.agent, "");
    }
    let _ = writeln!(
        out,
        "Agent, all games (a move the fallback played is never counted as the model's):"
    );
    agent_lines(&result.agent, &mut out);
    out
}
