//! `compare`: prints [`runs::comparisons`]: runs side by side, per opponent, with
//! intervals; for runs that share openings, a paired comparison game pair by game pair
//! (exact two-sided sign test) and the pooled Elo difference with its 95% interval; the
//! agent statistics side by side; and which configuration differs.

use std::fmt::Write as _;

use anyhow::Result;
use serde_json::{json, Value};

use super::args::CompareArgs;
use super::stats::print_notes;
use super::stdout::{out, outln};
use runs::{comparisons, run_json, CompareError, ComparedRun, GroupsError};

/// [`runs::load_run`]; with no LLM game, the reader's notes are printed before the error.
fn load_run(path: &std::path::Path) -> Result<ComparedRun> {
    match runs::load_run(path) {
        Err(CompareError::Groups(GroupsError::NoLlmGame { notes })) => {
            print_notes(&notes);
            anyhow::bail!("no game with an llm: player in these logs")
        }
        run => Ok(run?),
    }
}

pub(super) fn run(args: CompareArgs) -> Result<()> {
    let runs = args.runs.iter().map(|p| load_run(p)).collect::<Result<Vec<_>>>()?;
    let notes: Vec<&String> = runs.iter().flat_map(|r| &r.notes).collect();
    for run in &runs {
        print_notes(&run.notes);
    }
    let opponents: Vec<String> = {
        let mut all: Vec<String> = runs.iter().flat_map(|r| r.groups.keys().map(|k| k.2.clone())).collect();
        all.sort();
        all.dedup();
        all
    };
    let comparisons = comparisons(&runs, &opponents);
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

fn render(runs: &[ComparedRun], opponents: &[String], comparisons: &[Value]) -> String {
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
        render_pooled(&mut out, i, c);
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
fn render_run_row(out: &mut String, i: usize, run: &ComparedRun, opponent: &str) {
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

/// Comparison `i`'s verdict: the Elo difference of run `i + 2` against run 1 pooled
/// over every colour-swapped pair both played, with its 95% interval.
fn render_pooled(out: &mut String, i: usize, c: &Value) {
    let pooled = &c["pooled"];
    let elo = |key: &str| pooled[key].as_f64().map(stats::whole);
    let _ = match (elo("elo"), elo("low"), elo("high")) {
        (Some(elo), Some(low), Some(high)) => writeln!(
            out,
            "\nrun {} against run 1, pooled over {} colour-swapped pair(s) on the same openings: {elo:+.0} Elo, 95% interval [{low:+.0}, {high:+.0}]",
            i + 2,
            pooled["pairs"]
        ),
        _ => writeln!(
            out,
            "\nrun {} against run 1: no colour-swapped pair on the same openings, so no pooled Elo (use the same --opening-seed)",
            i + 2
        ),
    };
}
