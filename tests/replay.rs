//! `replay` against golden output: a game recorded through the real local model
//! (tests/data/golden/local-tools-game.jsonl) and a seed 000 bare log.

use std::process::{Command, Output};

fn replay(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_othello-arena"))
        .arg("replay")
        .args(args)
        .output()
        .expect("the binary runs")
}

fn stdout(output: &Output) -> String {
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout.clone()).unwrap()
}

#[test]
fn a_recorded_game_replays_as_the_golden_text() {
    let got = stdout(&replay(&["tests/data/golden/local-tools-game.jsonl"]));
    let want = std::fs::read_to_string("tests/data/golden/local-tools-game.replay.txt").unwrap();
    assert_eq!(got, want);
    // Every ply of the game is there, with the final score.
    assert_eq!(got.matches("\nply ").count(), 11);
    assert!(got.ends_with("final: black 49, white 15 (black)\n"));
    assert!(got.contains("(written as text, recovered) -> mine 31, theirs 24, stable +15, flipped [b1 c1 d1 e1 b2]"));
}

#[test]
fn a_seed_bare_log_is_rebuilt_from_its_requests() {
    let got = stdout(&replay(&["tests/data/golden/seed-bare.jsonl"]));
    let want = std::fs::read_to_string("tests/data/golden/seed-bare.replay.txt").unwrap();
    assert_eq!(got, want);
    assert!(got.contains("thinking:\n      d3 gives the opponent three replies."));
    assert!(got.contains("answer read as: f5 (extracted)"));
}

#[test]
fn one_ply_and_json() {
    let one = stdout(&replay(&["tests/data/golden/local-tools-game.jsonl", "--ply", "52"]));
    assert_eq!(one.matches("\nply ").count(), 1);
    assert!(one.contains("move: d7 (engine)"));
    let json: serde_json::Value = serde_json::from_str(&stdout(&replay(&[
        "tests/data/golden/local-tools-game.jsonl",
        "--json",
    ])))
    .unwrap();
    assert_eq!(json["plies"].as_array().unwrap().len(), 11);
    assert_eq!(json["final_discs"], serde_json::json!([49, 15]));
    let first = &json["plies"][0];
    assert_eq!(first["move"], "g1");
    assert_eq!(first["exchanges"][0]["tool_calls"][0]["recovered"], true);
    assert_eq!(first["exchanges"][1]["answer"], "g1 (clean)");
}

#[test]
fn bad_inputs_name_the_fix() {
    let output = replay(&["tests/data/golden/local-tools-game.jsonl", "--ply", "3"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("the log has plies 51 to 61"));
    let output = replay(&["Cargo.toml"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("is not JSONL"));
    let output = replay(&["tests/data/perft.txt"]);
    assert_eq!(output.status.code(), Some(2));
}
