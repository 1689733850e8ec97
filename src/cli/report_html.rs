//! `report`: one self-contained HTML file (no network, no external assets) with the
//! results table, charts and every game replayable. Model text is untrusted: the data
//! travels as JSON inside a `<script type="application/json">` block with `<`, `>`
//! and `&` escaped, and the page inserts every string with `textContent`.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde_json::{json, Value};

use super::args::ReportArgs;
use super::outputs::check_output_flag;
use super::stats::{collect_groups, groups_json, print_notes};
use arena::GameReplay;
use arena::Groups;
use game::othello::Color;
use game::Game;

const TEMPLATE: &str = include_str!("report.html");

pub(super) fn run(args: ReportArgs) -> Result<()> {
    let inputs: Vec<&Path> = args.paths.iter().map(PathBuf::as_path).collect();
    check_output_flag("-o", &args.output, &inputs, &[])?;
    let groups = collect_groups(&args.paths)?;
    print_notes(&groups.logs.notes);
    let (html, games) = render(&args.paths, &groups, false)?;
    std::fs::write(&args.output, html).with_context(|| format!("cannot write {}", args.output.display()))?;
    println!("wrote {} ({games} games)", args.output.display());
    Ok(())
}

/// The report page for `paths` and the number of games in it: the groups' results and
/// their games, and with `all_games` every other game read too (games without an LLM
/// player, which no group holds).
pub(super) fn render(paths: &[PathBuf], groups: &Groups, all_games: bool) -> Result<(String, usize)> {
    let Groups { groups, logs } = groups;
    let mut games = Vec::new();
    let mut latencies = Vec::new();
    let mut shown = std::collections::BTreeSet::new();
    for group in groups.values() {
        latencies.extend_from_slice(&group.matchup.agent.move_latencies_ms);
        // A game between two LLM players is in both players' groups: shown once.
        for game in group.games.iter().filter(|g| shown.insert(g.index)) {
            let logged = &logs.games[game.index];
            games.push(game_json(&logged.path, &logged.replay)?);
        }
    }
    if all_games {
        for (index, logged) in logs.games.iter().enumerate() {
            if shown.insert(index) {
                games.push(game_json(&logged.path, &logged.replay)?);
            }
        }
    }
    let data = json!({
        "sources": paths.iter().map(|p| p.display().to_string()).collect::<Vec<_>>(),
        "groups": groups_json(groups),
        "latencies_ms": latencies,
        "games": games,
        "notes": logs.notes,
    });
    Ok((TEMPLATE.replace("/*DATA*/", &script_safe_json(&data)), games.len()))
}

/// JSON that cannot close its `<script>` element or open markup: `<`, `>`, `&` and the
/// JavaScript line separators become `\u` escapes (still the same JSON value).
pub(super) fn script_safe_json(value: &Value) -> String {
    value
        .to_string()
        .replace('<', "\\u003c")
        .replace('>', "\\u003e")
        .replace('&', "\\u0026")
        .replace('\u{2028}', "\\u2028")
        .replace('\u{2029}', "\\u2029")
}

/// One game for the page: each ply with the position after it.
fn game_json(path: &Path, replay: &GameReplay) -> Result<Value> {
    let agent_color = if replay.black.starts_with("llm:") {
        Color::Black
    } else {
        Color::White
    };
    let mut plies = Vec::new();
    for ply in &replay.plies {
        let margin = if agent_color == Color::Black {
            ply.margin_after
        } else {
            -ply.margin_after
        };
        let summary = ply.agent.as_ref().map(|a| {
            format!(
                "{} request(s), {} tool call(s) + {} recovered, {} invalid answer(s), {:.0} ms{}",
                a.turns,
                a.tool_calls,
                a.recovered_tool_calls,
                a.invalid_answers,
                a.latency_ms,
                a.fallback_reason.as_deref().map_or(String::new(), |r| format!("; {r}"))
            )
        });
        plies.push(json!({
            "ply": ply.ply,
            "color": ply.color,
            "player": ply.player,
            "move": ply.mv,
            "source": ply.source,
            "board_after": ply.board_after,
            "discs_after": [ply.pieces_after.black, ply.pieces_after.white],
            "agent_margin_after": margin,
            "exchanges": ply.exchanges,
            "summary": summary,
        }));
    }
    Ok(json!({
        "name": path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default(),
        "black": replay.black,
        "white": replay.white,
        "agent_color": agent_color.to_string(),
        "view": replay.game.parse::<Game>().map_err(anyhow::Error::msg)?.board_view(),
        "plies": plies,
    }))
}

#[cfg(test)]
mod tests {
    #[test]
    fn script_safe_json_cannot_close_the_script_element() {
        let value = serde_json::json!({"content": "</script><img src=x onerror=alert(1)> & \u{2028}"});
        let text = super::script_safe_json(&value);
        assert!(!text.contains('<') && !text.contains('>') && !text.contains('&'));
        assert_eq!(serde_json::from_str::<serde_json::Value>(&text).unwrap(), value);
    }
}
