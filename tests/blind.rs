//! Blind play (`--legal-moves hidden`) end to end through the binary against a
//! scripted Ollama server on 127.0.0.1 that records every request. The scripted model
//! finds its moves from the board diagram alone (the test reads the diagram with the
//! rules crate), and on purpose simulates an occupied square and answers one, so every
//! path that could name the legal moves is taken: the board text, the tool's results
//! (an error and a success), the message once the tool budget is spent, and the
//! feedback after an invalid answer. A real model does not take each path on demand.

use std::path::Path;

use crate::support::command::Eval;
use crate::support::{temp_dir, Reply, StubServer};
use game::othello::{Board, Color};
use serde_json::{json, Value};

/// The position of the first user message's diagram (English labels, B = black).
fn diagram(request: &Value) -> Option<Board> {
    let text = request["messages"].as_array()?.iter().find(|m| m["role"] == "user")?["content"].as_str()?;
    let rows: String = text
        .lines()
        .skip(1)
        .take(8)
        .flat_map(|line| line.split_whitespace().skip(1))
        .collect::<Vec<_>>()
        .concat();
    let side = if text.contains("White to move") {
        Color::White
    } else {
        Color::Black
    };
    let squares = rows.replace('B', "X").replace('W', "O");
    Board::parse_squares(&squares, side).ok()
}

/// A model that, per move: simulates d4 (always occupied), simulates a legal move,
/// answers d4 (illegal), then answers a legal move: all found from the diagram.
fn blind_model() -> StubServer {
    StubServer::start(|request, _| {
        let Some(board) = diagram(request) else {
            return Reply::content("no board");
        };
        let legal = board
            .legal_moves()
            .squares()
            .next()
            .map_or("pass".to_string(), |s| s.to_string());
        let answered = request["messages"]
            .as_array()
            .map_or(0, |m| m.iter().filter(|m| m["role"] == "assistant").count());
        match answered {
            0 => Reply::tool_call("simulate_move", json!({"coord": "d4"})),
            1 => Reply::tool_call("simulate_move", json!({"coord": legal})),
            2 => Reply::content("d4"),
            _ => Reply::content(&legal),
        }
    })
}

fn blind_eval(dir: &Path, server: &StubServer, legal_moves: &str) -> std::process::Output {
    Eval::model("m")
        .vs("random")
        .games(1)
        .flag("labels", "en")
        .flag("on-invalid", "feedback")
        .flag("max-tool-rounds", "2")
        .flag("legal-moves", legal_moves)
        .log_dir(dir)
        .json()
        .run(&server.url)
}

/// Every text the model read in `request`: messages (tool results included), the
/// tools' descriptions, and the answer schema if any.
fn read_by_model(request: &Value) -> Vec<String> {
    let mut texts: Vec<String> = request["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|m| m["content"].as_str().unwrap_or_default().to_string())
        .collect();
    let tools = request["tools"].as_array().into_iter().flatten();
    texts.extend(tools.map(|t| t["function"]["description"].as_str().unwrap_or_default().to_string()));
    texts.push(request["format"].to_string());
    texts
}

/// Whether `text` names a list of legal moves: the board text's or the messages'
/// `Legal moves: ...`, the tool error's `legal moves: ...`, the tool result's
/// opponent replies, or a tool description that promises them.
fn names_legal_moves(text: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    lower.contains("legal moves:") || lower.contains("legal replies") || text.contains("opponent_valid_moves")
}

#[test]
fn no_request_of_a_hidden_run_names_the_legal_moves() {
    let (server, dir) = (blind_model(), temp_dir("blind", "hidden"));
    let output = blind_eval(&dir, &server, "hidden");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let requests = server.chat_requests();
    assert!(
        requests.len() > 20,
        "the games were played: {} requests",
        requests.len()
    );
    let (mut tool_errors, mut tool_boards, mut feedback) = (0, 0, 0);
    for request in &requests {
        for text in read_by_model(request) {
            assert!(
                !names_legal_moves(&text),
                "a hidden run told the model its moves: {text}"
            );
            tool_errors += usize::from(text.contains("d4 is not a legal move for"));
            tool_boards += usize::from(text.contains("\"board\""));
            feedback += usize::from(text == "d4 is not a legal move. d4 is taken. Answer with exactly one legal move.");
        }
        // The tool budget spent, the model is asked for a move without the list.
        let last = request["messages"].as_array().unwrap().last().unwrap();
        if last["role"] == "user" && request["messages"].as_array().unwrap().len() > 2 {
            let content = last["content"].as_str().unwrap();
            assert!(content.contains("legal move."), "{content}");
        }
    }
    assert!(
        tool_errors > 0 && tool_boards > 0 && feedback > 0,
        "every path was taken"
    );
    let run: Value = serde_json::from_str(&std::fs::read_to_string(dir.join("run.json")).unwrap()).unwrap();
    assert_eq!(run["agent"]["legal_moves"], "hidden", "{run}");
    let summary: Value = serde_json::from_slice(&output.stdout).unwrap();
    let agent = &summary["agent"];
    assert_eq!(
        agent["invalid_answers"], agent["moves"],
        "one illegal answer a move: {agent}"
    );
    assert_eq!(agent["first_answer_moves"], 0, "{agent}");
    assert_eq!(agent["after_rejection_moves"], agent["moves"], "{agent}");
}

/// The control: the same model with the moves shown is told them in each place, so
/// the check above can fail.
#[test]
fn a_shown_run_names_them_where_the_hidden_run_does_not() {
    let (server, dir) = (blind_model(), temp_dir("blind", "shown"));
    let output = blind_eval(&dir, &server, "shown");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let texts: Vec<String> = server.chat_requests().iter().flat_map(read_by_model).collect();
    for needle in ["Legal moves: ", "; legal moves: ", "opponent_valid_moves"] {
        assert!(texts.iter().any(|t| t.contains(needle)), "{needle}");
    }
    let run = std::fs::read_to_string(dir.join("run.json")).unwrap();
    assert!(!run.contains("legal_moves"), "shown play adds no key to run.json");
}

#[test]
fn json_legal_with_hidden_moves_is_refused_before_any_game() {
    let (server, dir) = (blind_model(), temp_dir("blind", "refused"));
    let output = Eval::model("m")
        .vs("random")
        .flag("answer-format", "json-legal")
        .flag("legal-moves", "hidden")
        .log_dir(&dir)
        .run(&server.url);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert!(
        stderr.contains("--answer-format json-legal") && stderr.contains("--legal-moves hidden"),
        "{stderr}"
    );
    assert!(server.chat_requests().is_empty(), "no game was played");
}
