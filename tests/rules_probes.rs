//! `probe --ask legal-moves|after-move` through the binary against a scripted Ollama
//! server on 127.0.0.1 that answers known answers by position (a perfect lister, an
//! empty list, a list with an extra square; the right board, the board before the
//! move), so the scores are known exactly. A real model gives no chosen answers.

use std::path::{Path, PathBuf};

use crate::support::{run_arena, Reply, StubServer};
use engines::lab::LabelledPosition;
use game::othello::{Board, Color, Move, Square};
use game::Othello;
use serde_json::{json, Value};

fn temp(name: &str) -> PathBuf {
    let path = std::env::temp_dir().join(format!("othello-rules-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&path);
    let _ = std::fs::remove_file(&path);
    path
}

fn positions(path: &Path) -> Vec<Board> {
    let args = [
        "positions",
        "generate",
        "--count",
        "9",
        "--empties",
        "20-40",
        "--seed",
        "5",
    ];
    let mut args: Vec<&str> = args.to_vec();
    args.extend_from_slice(&["--reference-depth", "2", "-o", path.to_str().unwrap()]);
    let output = run_arena(&args, "http://127.0.0.1:9");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| {
            serde_json::from_str::<LabelledPosition>(l)
                .unwrap()
                .position::<Othello>()
                .unwrap()
        })
        .collect()
}

/// The board of a request's question, and its index among `boards`.
fn asked(request: &Value, boards: &[Board]) -> (usize, Board, String) {
    let text = request["messages"][0]["content"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(
        !text.contains("Legal moves:"),
        "a rules probe never lists the moves: {text}"
    );
    let diagram: String = text.lines().take(10).collect::<Vec<_>>().join("\n");
    let board = Board::parse_text(&diagram).expect("the question shows the board");
    let index = boards.iter().position(|b| *b == board).expect("a board of the file");
    (index, board, text)
}

fn rows(board: &Board) -> Vec<String> {
    (0..8)
        .map(|row| {
            (0..8)
                .map(|col| match board.disc_at(Square::from_row_col(row, col).unwrap()) {
                    Some(Color::Black) => 'B',
                    Some(Color::White) => 'W',
                    None => '.',
                })
                .collect()
        })
        .collect()
}

fn probe(file: &Path, server: &StubServer, ask: &str, extra: &[&str]) -> Value {
    let dir = temp(&format!("run-{ask}-{}", extra.len()));
    let mut args = vec![
        "probe",
        "--agent",
        "llm:m",
        "--positions",
        file.to_str().unwrap(),
        "--ask",
        ask,
        "--labels",
        "en",
        "--log-dir",
        dir.to_str().unwrap(),
        "--json",
    ];
    args.extend_from_slice(extra);
    let output = run_arena(&args, &server.url);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let log = std::fs::read_to_string(dir.join("probe.jsonl")).unwrap();
    assert_eq!(
        log.lines().filter(|l| l.contains("\"exchange\"")).count(),
        9,
        "every exchange logged"
    );
    serde_json::from_slice(&output.stdout).unwrap()
}

fn share(results: &Value, name: &str) -> (u64, u64) {
    let s = results["shares"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == name)
        .unwrap();
    (s["hits"].as_u64().unwrap(), s["of"].as_u64().unwrap())
}

#[test]
fn legal_move_lists_score_exactly_in_text_and_json() {
    let file = temp("positions.jsonl");
    let boards = positions(&file);
    let lookup = boards.clone();
    // Position i: i % 3 == 0 the legal moves, 1 an empty list, 2 the moves and an
    // occupied square.
    let server = StubServer::start(move |request, _| {
        let (index, board, _) = asked(request, &lookup);
        let mut named: Vec<String> = board.legal_moves().squares().map(|s| s.to_string()).collect();
        match index % 3 {
            0 => {}
            1 => named.clear(),
            _ => named.push("d4".to_string()),
        }
        if request.get("format").is_some() {
            Reply::content(&json!({ "moves": named }).to_string())
        } else {
            Reply::content(&format!("<think>maybe a1</think>{}", named.join(", ")))
        }
    });
    let legal = |i: usize| u64::from(boards[i].legal_moves().0.count_ones());
    let (mut right, mut named, mut all) = (0, 0, 0);
    for i in 0..boards.len() {
        all += legal(i);
        if i % 3 != 1 {
            right += legal(i);
            named += legal(i) + u64::from(i % 3 == 2);
        }
    }
    for extra in [&[][..], &["--answer-format", "json"][..]] {
        let results = probe(&file, &server, "legal-moves", extra);
        assert_eq!(share(&results, "exact_set"), (3, 9), "{results}");
        assert_eq!(share(&results, "precision"), (right, named));
        assert_eq!(share(&results, "recall"), (right, all));
        assert_eq!(results["per_position"][1]["recall"], 0.0);
        assert_eq!(results["per_position"][1]["precision"], Value::Null, "nothing named");
    }
}

#[test]
fn boards_after_a_move_score_by_square() {
    let file = temp("positions-after.jsonl");
    let boards = positions(&file);
    let lookup = boards.clone();
    // Even positions: the board after the move; odd: the board before it.
    let server = StubServer::start(move |request, _| {
        let (index, board, text) = asked(request, &lookup);
        let square: Square = text.split(" plays ").nth(1).unwrap()[..2].parse().unwrap();
        let written = if index % 2 == 0 {
            board.play(Move::Place(square))
        } else {
            board
        };
        Reply::content(&format!("  a b c d e f g h\n{}", rows(&written).join("\n")))
    });
    let results = probe(&file, &server, "after-move", &[]);
    let mut right = 0;
    for (i, board) in boards.iter().enumerate() {
        let square: Square = results["per_position"][i]["move"].as_str().unwrap().parse().unwrap();
        let flips = u64::from(board.flips(square).0.count_ones());
        right += if i % 2 == 0 { 64 } else { 64 - 1 - flips };
    }
    assert_eq!(share(&results, "exact_board"), (5, 9), "{results}");
    assert_eq!(share(&results, "squares_right"), (right, 64 * 9));
}

/// An answer the server cut off at the token limit (`done_reason: "length"`) used to
/// be scored as the model's whole list, the summary saying "unreadable answers 0,
/// failed requests 0": it is counted apart, as eval keeps such answers, and not scored.
#[test]
fn answers_cut_off_at_the_token_limit_are_counted_apart_and_not_scored() {
    let file = temp("cut-positions.jsonl");
    let boards = positions(&file);
    let lookup = boards.clone();
    // Position i: i % 3 == 0 cut off after its first move, else the legal moves.
    let server = StubServer::start(move |request, _| {
        let (index, board, _) = asked(request, &lookup);
        let named: Vec<String> = board.legal_moves().squares().map(|s| s.to_string()).collect();
        let reply = Reply::content(&named.join(", "));
        if index % 3 == 0 {
            let mut body: Value = serde_json::from_str(&reply.body).unwrap();
            body["done_reason"] = json!("length");
            body["message"]["content"] = json!(named[0]);
            return reply.with_body(body);
        }
        reply
    });
    // Four extra flags: a run folder of its own (the folder is named by their count).
    let results = probe(
        &file,
        &server,
        "legal-moves",
        &["--answer-format", "text", "--parallel", "1"],
    );
    assert_eq!(results["cut_off"], 3, "{results}");
    assert_eq!(
        (results["errors"].clone(), results["unreadable"].clone()),
        (json!(0), json!(0))
    );
    assert_eq!(share(&results, "exact_set"), (6, 6), "only whole answers scored");
    assert_eq!(share(&results, "recall").0, share(&results, "recall").1);
    assert_eq!(results["per_position"][0]["cut_off"], true);
}
