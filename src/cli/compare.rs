//! `compare`: runs side by side, per opponent, with intervals; for runs that share
//! openings, a paired comparison game pair by game pair (exact two-sided sign test);
//! the agent statistics side by side; and which configuration differs.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde_json::{json, Value};

use super::args::CompareArgs;
use super::stats::{collect_groups, print_notes};
use super::stdout::{out, outln};
use runs::{Group, Key};

/// A run: its configuration, groups and games.
struct Run {
    path: PathBuf,
    config: Value,
    groups: BTreeMap<Key, Group>,
    /// (opponent, agent color, opening, occurrence) -> score (1 win, 0.5 draw, 0 loss).
    games: BTreeMap<(String, String, Vec<String>, usize), f64>,
    /// What the log reader noticed (games cut off by a crash, logs reached twice).
    notes: Vec<String>,
}

fn load_run(path: &Path) -> Result<Run> {
    let config: Value = std::fs::read_to_string(path.join("run.json"))
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .with_context(|| {
            format!(
                "{} has no readable run.json: give run folders made by eval",
                path.display()
            )
        })?;
    let read = collect_groups(&[path.to_path_buf()])?;
    let mut games = BTreeMap::new();
    for group in read.groups.values() {
        for played in &group.games {
            let (color, game) = (&played.color, read.summary(played));
            let Some(score) = game.score_for(*color) else { continue };
            let key = (game.players[!*color].clone(), color.to_string(), game.opening.clone());
            let occurrence = (0..)
                .find(|i| !games.contains_key(&(key.0.clone(), key.1.clone(), key.2.clone(), *i)))
                .unwrap_or(0);
            games.insert((key.0, key.1, key.2, occurrence), score);
        }
    }
    Ok(Run {
        path: path.to_path_buf(),
        config,
        groups: read.groups,
        games,
        notes: read.logs.notes,
    })
}

/// Settings that differ between two runs' agent configurations (prompt hash, options, ...).
fn differences(a: &Value, b: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let (agent_a, agent_b) = (&a["agent"], &b["agent"]);
    let keys: std::collections::BTreeSet<&String> = agent_a
        .as_object()
        .into_iter()
        .chain(agent_b.as_object())
        .flat_map(|o| o.keys())
        .collect();
    for key in keys {
        let (x, y) = if key == "system_prompt" {
            (agent_a[key]["sha256"].clone(), agent_b[key]["sha256"].clone())
        } else {
            (agent_a[key].clone(), agent_b[key].clone())
        };
        if x != y {
            let name = if key == "system_prompt" {
                "system prompt sha256"
            } else {
                key.as_str()
            };
            out.push(format!("{name}: {x} -> {y}"));
        }
    }
    for key in [
        "model_digest",
        "opening_seed",
        "opening_random",
        "games_per_color",
        "backend",
    ] {
        if a[key] != b[key] {
            out.push(format!("{key}: {} -> {}", a[key], b[key]));
        }
    }
    out
}

/// The paired comparison of `other` against `base` for one opponent.
fn paired(base: &Run, other: &Run, opponent: &str) -> Value {
    let (mut better, mut worse, mut ties) = (0u32, 0u32, 0u32);
    let mut diff_sum = 0.0;
    for (key, score) in base.games.iter().filter(|(k, _)| k.0 == opponent) {
        if let Some(other_score) = other.games.get(key) {
            diff_sum += other_score - score;
            match other_score.partial_cmp(score) {
                Some(std::cmp::Ordering::Greater) => better += 1,
                Some(std::cmp::Ordering::Less) => worse += 1,
                _ => ties += 1,
            }
        }
    }
    let pairs = better + worse + ties;
    json!({
        "opponent": opponent,
        "pairs": pairs,
        "other_better": better,
        "other_worse": worse,
        "ties": ties,
        "mean_score_difference": if pairs == 0 { Value::Null } else { json!(diff_sum / f64::from(pairs) + 0.0 /* never -0 */) },
        "p_value": if pairs == 0 { Value::Null } else { json!(stats::sign_test(better, worse)) },
    })
}

fn run_json(run: &Run) -> Value {
    json!({
        "path": run.path.display().to_string(),
        "model": run.config["agent"]["model"],
        "prompt_sha256": run.config["agent"]["system_prompt"]["sha256"],
        "groups": runs::groups_json(&run.groups),
    })
}

pub(super) fn run(args: CompareArgs) -> Result<()> {
    let runs = args.runs.iter().map(|p| load_run(p)).collect::<Result<Vec<_>>>()?;
    let notes: Vec<&String> = runs.iter().flat_map(|r| &r.notes).collect();
    for run in &runs {
        print_notes(&run.notes);
    }
    let base = &runs[0];
    let opponents: Vec<String> = {
        let mut all: Vec<String> = runs.iter().flat_map(|r| r.groups.keys().map(|k| k.2.clone())).collect();
        all.sort();
        all.dedup();
        all
    };
    let comparisons: Vec<Value> = runs[1..]
        .iter()
        .map(|other| {
            json!({
                "baseline": base.path.display().to_string(),
                "other": other.path.display().to_string(),
                "differences": differences(&base.config, &other.config),
                "paired": opponents.iter().map(|o| paired(base, other, o)).collect::<Vec<_>>(),
            })
        })
        .collect();
    if args.json {
        outln!(
            "{}",
            json!({
                "runs": runs.iter().map(run_json).collect::<Vec<_>>(),
                "comparisons": comparisons,
                "notes": notes,
            })
        )?;
        return Ok(());
    }
    out!("{}", render(&runs, &opponents, &comparisons))?;
    Ok(())
}

fn render(runs: &[Run], opponents: &[String], comparisons: &[Value]) -> String {
    let mut out = String::new();
    for (i, run) in runs.iter().enumerate() {
        let _ = writeln!(
            out,
            "run {}: {} ({})",
            i + 1,
            run.path.display(),
            if i == 0 { "baseline" } else { "compared with run 1" }
        );
    }
    for opponent in opponents {
        let _ = writeln!(out, "\nagainst {opponent}:");
        let _ = writeln!(out, "  run  games   W   L   D   win%  95% CI (Wilson)  model-decided  invalid/move  cut off/move  tool calls/move  tokens/move  latency p50, p95");
        for (i, run) in runs.iter().enumerate() {
            render_run_row(&mut out, i, run, opponent);
        }
        for (i, c) in comparisons.iter().enumerate() {
            render_paired(&mut out, i, c, opponent);
        }
    }
    for (i, c) in comparisons.iter().enumerate() {
        let diffs: Vec<&str> = c["differences"]
            .as_array()
            .map(|d| d.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "\nrun {} differs from run 1 in: {}",
            i + 2,
            if diffs.is_empty() {
                "nothing recorded".to_string()
            } else {
                diffs.join("; ")
            }
        );
    }
    out
}

/// Run `i`'s row of the table against `opponent`.
fn render_run_row(out: &mut String, i: usize, run: &Run, opponent: &str) {
    let Some(g) = run.groups.iter().find(|(k, _)| k.2 == opponent).map(|(_, g)| g) else {
        let _ = writeln!(out, "  {:3}  (no games)", i + 1);
        return;
    };
    let t = g.matchup.overall();
    let (low, high) = t.win_interval();
    let a = g.matchup.agent.rates();
    let _ = writeln!(
        out,
        "  {:3}  {:5} {:3} {:3} {:3}  {:5.1}  [{:5.1}, {:5.1}]   {:5.1}%        {:6.2}        {:6.2}        {:6.2}        {:7.0}  {:8.0} ms, {:.0} ms",
        i + 1,
        t.games(),
        t.wins,
        t.losses,
        t.draws,
        100.0 * t.win_rate(),
        100.0 * low,
        100.0 * high,
        100.0 * a.llm_share,
        a.invalid_answers_per_move,
        a.cut_off_answers_per_move,
        a.tool_calls_per_move + a.recovered_tool_calls_per_move,
        a.prompt_tokens_per_move + a.completion_tokens_per_move,
        a.latency_ms_p50.unwrap_or(0.0),
        a.latency_ms_p95.unwrap_or(0.0),
    );
}

/// Comparison `i`'s (run `i + 2` against run 1) paired line against `opponent`.
fn render_paired(out: &mut String, i: usize, c: &Value, opponent: &str) {
    let p = c["paired"]
        .as_array()
        .and_then(|ps| ps.iter().find(|p| p["opponent"] == opponent));
    match p {
        Some(p) if p["pairs"].as_u64().unwrap_or(0) > 0 => {
            let _ = writeln!(
                out,
                "  paired, run {} vs run 1: {} game pairs on the same openings; run {} better in {}, worse in {}, tied in {}; sign test p = {:.3}",
                i + 2,
                p["pairs"],
                i + 2,
                p["other_better"],
                p["other_worse"],
                p["ties"],
                p["p_value"].as_f64().unwrap_or(1.0)
            );
        }
        _ => {
            let _ = writeln!(
                out,
                "  paired, run {} vs run 1: no shared openings (use the same --opening-seed)",
                i + 2
            );
        }
    }
}
