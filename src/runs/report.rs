//! The `report` page: one self-contained HTML file (no network, no external assets)
//! with the results table, charts and every game replayable; `report` writes it and
//! `serve` shows it. Model text is untrusted: the data travels as JSON inside a
//! `<script type="application/json">` block with `<`, `>` and `&` escaped, and the
//! page inserts every string with `textContent`.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use super::groups::{groups_json, Groups};
use super::intrinsic::IntrinsicTable;
use super::leaderboard::RunGame;
use super::rating::{rate_games, RateSettings};
use super::replay::{ExchangeView, GameReplay};
use game::othello::Color;
use record::AgentDecision;

/// The page's template: the data goes where it says `/*DATA*/`.
pub const REPORT_TEMPLATE: &str = include_str!("report.html");

/// The report page for `paths` and the number of games in it: the groups' results, the
/// ratings as `rating` says (every face's [`rate_games`]) and every game read, those
/// without an LLM player (which no group holds) included, so no run given is left out
/// of the page (`report` and `serve` alike), and the `intrinsic` table's text when
/// given (`rate`'s, [`crate::intrinsic_table`]).
pub fn report_page(
    paths: &[PathBuf],
    groups: &Groups,
    rating: &RateSettings,
    intrinsic: Option<&IntrinsicTable>,
) -> (String, usize) {
    let Groups { groups, logs } = groups;
    let mut games = Vec::new();
    let mut latencies = Vec::new();
    let mut shown = std::collections::BTreeSet::new();
    for group in groups.values() {
        latencies.extend_from_slice(&group.matchup.agent.move_latencies_ms);
        // A game between two LLM players is in both players' groups: shown once.
        for game in group.games.iter().filter(|g| shown.insert(g.index)) {
            let logged = &logs.games[game.index];
            games.push(game_json(&logged.path, &logged.replay));
        }
    }
    for (index, logged) in logs.games.iter().enumerate() {
        if shown.insert(index) {
            games.push(game_json(&logged.path, &logged.replay));
        }
    }
    // The run folders the games came from, each once, in the order first reached.
    let mut runs: Vec<String> = Vec::new();
    for logged in &logs.games {
        let run = logged.run.display().to_string();
        if !runs.contains(&run) {
            runs.push(run);
        }
    }
    let (ratings, as_played) = ratings_json(logs, rating);
    // The intrinsic rows say where they contradict the results (every face's rule).
    let intrinsic = intrinsic.map(|table| {
        let mut table = table.clone();
        if let Some(as_played) = &as_played {
            table.beside(as_played);
        }
        table
    });
    let intrinsic = intrinsic.as_ref();
    let data = json!({
        "sources": paths.iter().map(|p| p.display().to_string()).collect::<Vec<_>>(),
        "runs": runs,
        "groups": groups_json(groups),
        "ratings": ratings,
        "intrinsic": intrinsic.map(IntrinsicTable::text),
        "latencies_ms": latencies,
        "games": games,
        "notes": logs.notes,
    });
    (
        REPORT_TEMPLATE.replace("/*DATA*/", &script_safe_json(&data)),
        games.len(),
    )
}

/// Every player's rating as played, for the strength-against-cost chart: the rating
/// every face shows ([`rate_games`]; its rows carry each LLM player's tokens per move)
/// with its notes (`notes`, the scale's first), or why there is none; and the
/// leaderboard itself when there is one.
fn ratings_json(logs: &super::logs::GameLogs, rating: &RateSettings) -> (Value, Option<crate::Leaderboard>) {
    match rate_games(
        &RunGame::from_logs(logs),
        logs.game,
        rating,
        &stats::RatingWatch::default(),
    ) {
        Ok(rated) => {
            let mut board = json!(rated.as_played);
            board["notes"] = json!(rated.notes);
            (board, Some(rated.as_played))
        }
        Err(err) => (json!({ "error": err.to_string() }), None),
    }
}

/// JSON that cannot close its `<script>` element or open markup: `<`, `>`, `&` and the
/// JavaScript line separators become `\u` escapes (still the same JSON value).
fn script_safe_json(value: &Value) -> String {
    value
        .to_string()
        .replace('<', "\\u003c")
        .replace('>', "\\u003e")
        .replace('&', "\\u0026")
        .replace('\u{2028}', "\\u2028")
        .replace('\u{2029}', "\\u2029")
}

/// One game for the page: each ply with the position after it.
fn game_json(path: &Path, replay: &GameReplay) -> Value {
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
        let summary = ply.agent.as_ref().map(AgentDecision::account);
        plies.push(json!({
            "ply": ply.ply,
            "color": ply.color,
            "player": ply.player,
            "move": ply.mv,
            "source": ply.source,
            "board_after": ply.board_after,
            "discs_after": [ply.pieces_after.black, ply.pieces_after.white],
            "agent_margin_after": margin,
            "exchanges": ply.exchanges.iter().map(exchange_json).collect::<Vec<_>>(),
            "summary": summary,
        }));
    }
    json!({
        "name": path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default(),
        "black": replay.black,
        "white": replay.white,
        "agent_color": agent_color.to_string(),
        "view": replay.game.board_view(),
        "system_prompt": replay.system_prompt,
        "plies": plies,
    })
}

/// One exchange for the page: as `replay --json` gives it, with the agent's reading in
/// `replay`'s words (`reading_text`).
fn exchange_json(exchange: &ExchangeView) -> Value {
    let mut value = json!(exchange);
    value["reading_text"] = json!(exchange.reading.to_string());
    value
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
