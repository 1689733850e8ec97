//! `replay`: a game log, ply by ply, as text or JSON.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::{bail, Context, Result};
use serde_json::Value;

use super::args::ReplayArgs;
use super::stdout::{out, outln};
use record::{join_moves, read_game_log_prefix, MoveSource, ToolCallRecord};
use runs::{cut_off_note, replay_records, replay_seed_lines, ExchangeView, GameReplay, PlyView};

pub(super) fn run(args: ReplayArgs) -> Result<()> {
    let (replay, notes) = load(&args.log)?;
    super::stats::print_notes(&notes);
    let wanted = |p: &&PlyView| args.ply.is_none_or(|n| p.ply == n);
    let plies: Vec<&PlyView> = replay.plies.iter().filter(wanted).collect();
    let forfeit = replay.forfeit.as_ref().filter(wanted);
    if let (Some(n), true, None) = (args.ply, plies.is_empty(), forfeit) {
        bail!("bad --ply {n}: the log has plies {}", ply_range(&replay));
    }
    if args.json {
        let mut value = serde_json::to_value(&replay)?;
        value["plies"] = serde_json::to_value(&plies)?;
        if let (Some(object), None) = (value.as_object_mut(), forfeit) {
            object.remove("forfeit");
        }
        if !notes.is_empty() {
            value["notes"] = serde_json::to_value(&notes)?;
        }
        outln!("{value}")?;
    } else {
        out!("{}", render(&replay, &plies, forfeit, args.ply.is_none()))?;
    }
    Ok(())
}

fn ply_range(replay: &GameReplay) -> String {
    let last = replay.forfeit.as_ref().or(replay.plies.last());
    match (replay.plies.first().or(last), last) {
        (Some(a), Some(b)) => format!("{} to {}", a.ply, b.ply),
        _ => "none".to_string(),
    }
}

/// Reads our game log (its moves checked against the rules; a last line cut off by a
/// crash leaves the game unfinished, with a note), or a seed 000 log of bare exchange
/// lines; returns the game and the notes.
fn load(path: &Path) -> Result<(GameReplay, Vec<String>)> {
    let bytes = record::lines::read_file_bytes(path, record::LOG_LINE_CAP, record::LOG_FILE_CAP)
        .with_context(|| format!("cannot read {}", path.display()))?;
    // Lossy: a crash can cut a log inside a character (its last line is torn anyway).
    let text = String::from_utf8_lossy(&bytes);
    let first: Value = text
        .lines()
        .find(|l| !l.trim().is_empty())
        .map(serde_json::from_str)
        .transpose()
        .with_context(|| format!("{} is not JSONL: give a game log from a run folder", path.display()))?
        .unwrap_or(Value::Null);
    let mut notes = Vec::new();
    let replay = if first.get("schema_version").is_some() {
        let log = read_game_log_prefix(path)?;
        if log.torn_tail {
            notes.push(cut_off_note(path));
        }
        let dir = path
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        replay_records(&log.records).map(|replay| {
            let (replay, note) = replay.with_run_folder(dir);
            notes.extend(note);
            replay
        })
    } else if first.get("request").is_some() && first.get("response").is_some() {
        let lines = text
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(serde_json::from_str)
            .collect::<Result<Vec<Value>, _>>()
            .with_context(|| format!("{} has a line that is not JSON", path.display()))?;
        replay_seed_lines(&lines)
    } else {
        bail!(
            "{} is neither a game log (schema_version) nor a seed log ({{\"request\", \"response\"}} lines)",
            path.display()
        );
    };
    let replay = replay.with_context(|| format!("cannot replay {}", path.display()))?;
    Ok((replay, notes))
}

/// A compact one-line view of a tool result.
fn compact_result(result: &str) -> String {
    let Ok(value) = serde_json::from_str::<Value>(result) else {
        return result.to_string();
    };
    if let Some(error) = value["error"].as_str() {
        return format!("error: {error}");
    }
    let list = |key: &str| {
        value[key].as_array().map_or(String::new(), |a| {
            a.iter().filter_map(Value::as_str).collect::<Vec<_>>().join(" ")
        })
    };
    format!(
        "mine {}, theirs {}, stable {:+}, flipped [{}], opponent moves [{}]",
        value["my_stones"],
        value["opponent_stones"],
        value["stable_gained"].as_i64().unwrap_or(0),
        list("flipped"),
        list("opponent_valid_moves")
    )
}

fn indent(text: &str, prefix: &str) -> String {
    text.trim_end().lines().map(|l| format!("{prefix}{l}\n")).collect()
}

fn render_exchange(out: &mut String, e: &ExchangeView) {
    let tokens = match e.tokens {
        (Some(p), Some(c)) => format!(", tokens {p} in / {c} out"),
        _ => String::new(),
    };
    let latency = e
        .latency_ms
        .map_or("latency not logged".to_string(), |ms| format!("{ms:.0} ms"));
    let _ = writeln!(
        out,
        "  exchange: session {}, turn {}, {latency}{tokens}",
        e.session, e.turn
    );
    let last = e.sent.len().saturating_sub(1);
    for (i, message) in e.sent.iter().enumerate() {
        let feedback = match &e.feedback_reason {
            Some(reason) if i == last => format!(", feedback for: {reason}"),
            _ => String::new(),
        };
        let _ = write!(
            out,
            "    sent ({}{feedback}):\n{}",
            message.role,
            indent(&message.content, "      ")
        );
    }
    if let Some(thinking) = &e.thinking {
        let _ = write!(out, "    thinking:\n{}", indent(thinking, "      "));
    }
    if !e.content.trim().is_empty() {
        let _ = write!(out, "    content:\n{}", indent(&e.content, "      "));
    }
    for call in &e.tool_calls {
        let how = if call.recovered {
            " (written as text, recovered)"
        } else {
            ""
        };
        let result = call
            .result
            .as_deref()
            .map_or("(no result in the log)".to_string(), compact_result);
        let _ = writeln!(out, "    tool {} {}{how} -> {result}", call.name, call.arguments);
    }
    let _ = writeln!(out, "    agent's reading: {}", e.reading);
}

/// A ply: the board as the mover's model is shown it (for a model's ply, its messages
/// as sent show it), the exchanges, and the move.
fn render_ply(out: &mut String, replay: &GameReplay, ply: &PlyView) {
    let _ = writeln!(out, "\nply {}: {} ({}) to move", ply.ply, ply.color, ply.player);
    if ply.exchanges.is_empty() {
        let _ = write!(out, "{}", indent(&replay.board_text(ply), "  "));
    }
    for exchange in &ply.exchanges {
        render_exchange(out, exchange);
    }
    render_tool_calls(out, &ply.tool_calls);
    let source = ply
        .source
        .map_or("model answer".to_string(), |s| format!("{s:?}").to_lowercase());
    let detail = ply
        .agent
        .as_ref()
        .map_or(String::new(), |a| format!("; {}", a.account()));
    if ply.mv.is_none() && ply.source.is_none() {
        let _ = writeln!(out, "  move: not in the log (a seed log records none)");
    } else if ply.source == Some(MoveSource::Forfeit) {
        let _ = writeln!(out, "  forfeit: no move, the game ends ({source}{detail})");
    } else {
        let _ = writeln!(
            out,
            "  move: {} ({source}{detail})",
            ply.mv.map_or("?".to_string(), |mv| mv.to_string())
        );
    }
}

/// An MCP client's tool calls on a ply, in order: the tool, its arguments, and what it
/// was answered (simulate_move's result compact, an error as one, a state as its move
/// list and legal moves).
fn render_tool_calls(out: &mut String, calls: &[ToolCallRecord]) {
    for call in calls {
        let result = if call.tool == "simulate_move" {
            compact_result(&call.result.to_string())
        } else if call.is_error {
            format!(
                "error: {}",
                call.result["error"].as_str().unwrap_or(&call.result.to_string())
            )
        } else {
            call.result.to_string()
        };
        let _ = writeln!(out, "  mcp tool {} {} -> {result}", call.tool, call.arguments);
    }
}

fn render(replay: &GameReplay, plies: &[&PlyView], forfeit: Option<&PlyView>, whole: bool) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "black: {}  white: {}", replay.black, replay.white);
    if let Some(line) = &replay.suite_opening {
        let _ = writeln!(out, "opening from the suite: {line}");
    } else if !replay.opening.is_empty() {
        let _ = writeln!(out, "random opening: {}", join_moves(&replay.opening));
    }
    if let Some(prompt) = &replay.system_prompt {
        let _ = write!(
            out,
            "system prompt (the first message of every request):\n{}",
            indent(prompt, "  ")
        );
    }
    for ply in plies {
        render_ply(&mut out, replay, ply);
    }
    if let Some(ply) = forfeit {
        render_ply(&mut out, replay, ply);
    }
    if whole && !replay.tool_calls_after.is_empty() {
        let _ = writeln!(out, "\nafter its last ply, the client called:");
        render_tool_calls(&mut out, &replay.tool_calls_after);
    }
    if whole {
        match (replay.final_discs, &replay.forfeit, replay.winner()) {
            (Some((black, white)), Some(forfeit), Some(winner)) => {
                let _ = writeln!(
                    out,
                    "\nfinal: {} ({}) forfeited at ply {}: {winner} wins by forfeit, scored as a margin \
                     of {} (the game's forfeit margin; on the board: black {black}, white {white})",
                    forfeit.color,
                    forfeit.player,
                    forfeit.ply,
                    replay.margin.map_or(0, i32::abs)
                );
            }
            (Some((black, white)), _, Some(winner)) => {
                let _ = writeln!(out, "\nfinal: black {black}, white {white} ({winner})");
            }
            _ => {
                let _ = writeln!(out, "\nthe log ends before the game does");
            }
        }
    }
    out
}
