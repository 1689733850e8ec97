//! `replay` against golden output: a game recorded through the real local model
//! (tests/data/golden/local-tools-game.jsonl, written before the log recorded
//! `feedback_reason`) and a seed 000 bare log; and a run of a scripted model whose
//! answers the agent rejects, replayed as the agent read them.

use std::path::Path;
use std::process::{Command, Output};

use crate::support::{legal_moves_in, run_arena, temp_dir, Reply, StubServer};
use serde_json::Value;

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
    // The log is older than `feedback_reason`: the answers the agent answered with
    // feedback are not read again here, the replay says the reading is not recorded.
    assert_eq!(
        got.matches("agent's reading: reading not recorded by this version")
            .count(),
        11
    );
    assert!(!got.contains("answer read as"));
    assert_eq!(
        got.matches("You play Othello.").count(),
        1,
        "the system prompt once per game"
    );
}

#[test]
fn a_seed_bare_log_is_rebuilt_from_its_requests() {
    let got = stdout(&replay(&["tests/data/golden/seed-bare.jsonl"]));
    let want = std::fs::read_to_string("tests/data/golden/seed-bare.replay.txt").unwrap();
    assert_eq!(got, want);
    assert!(got.contains("thinking:\n      d3 gives the opponent three replies."));
    // A seed log records neither the reading nor the move: neither is guessed.
    assert!(got.contains("agent's reading: reading not recorded by this version"));
    assert!(!got.contains("answer read as"));
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
    assert_eq!(
        first["exchanges"][1]["reading"],
        serde_json::json!({"outcome": "accepted", "move": "g1", "kind": "clean"})
    );
    assert_eq!(first["exchanges"][0]["reading"]["outcome"], "tool_calls");
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

/// Stands in for a small model that answers with several legal squares (`b5, g5`; the
/// local qwen2.5-coder-0.5b often does, but not on demand) and, told so, names one.
fn listing_model() -> StubServer {
    StubServer::start(|request: &Value, _| {
        let legal = legal_moves_in(request);
        let messages = request["messages"].as_array().cloned().unwrap_or_default();
        let told = messages.iter().any(|m| m["role"] == "assistant");
        match (told, legal.as_slice()) {
            (false, [first, .., last]) => Reply::content(&format!("{first}, {last}")),
            _ => Reply::content(legal.first().map_or("pass", String::as_str)),
        }
    })
}

/// An eval of the listing model in direct mode with feedback and English labels, one
/// game a colour: the run folder.
fn listing_run(tmp: &Path) -> std::path::PathBuf {
    let server = listing_model();
    let (run, system) = (tmp.join("run"), tmp.join("system.md"));
    std::fs::write(&system, "Answer with one legal square. SYSTEM-PROMPT-MARK\n").unwrap();
    let args = [
        "eval",
        "--agent",
        "llm:stub-model",
        "--vs",
        "greedy",
        "--games",
        "1",
        "--opening-random",
        "50",
        "--seed",
        "5",
        "--parallel",
        "1",
        "--mode",
        "direct",
        "--on-invalid",
        "feedback",
        "--labels",
        "en",
    ];
    let mut args: Vec<&str> = args.to_vec();
    args.extend(["--system", system.to_str().unwrap(), "--log-dir", run.to_str().unwrap()]);
    let output = run_arena(&args, &server.url);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    run
}

#[test]
fn a_rejected_list_replays_as_the_agent_rejected_it() {
    let tmp = temp_dir("replay", "rejected-list");
    let run = listing_run(&tmp);
    let log = run.join("game-0001.jsonl");
    let text = stdout(&replay(&[log.to_str().unwrap()]));
    // The rejection the agent made, not a reading of replay's own.
    assert!(
        text.contains("agent's reading: rejected: several moves named: "),
        "{text}"
    );
    assert!(!text.contains("answer read as"), "{text}");
    assert!(text.contains("agent's reading: accepted: "), "{text}");
    // The system prompt once, the user message (the board) and the feedback as sent.
    assert_eq!(text.matches("SYSTEM-PROMPT-MARK").count(), 1, "{text}");
    assert!(text.contains("    sent (user):\n        a b c d e f g h\n"), "{text}");
    assert!(
        text.contains("sent (user, feedback for: several moves named: "),
        "{text}"
    );
    assert!(text.contains("Your answer names several moves: "), "{text}");
    // Boards in the run's labels, the engine's plies too: English, as the model was shown.
    assert!(
        text.contains("Black to move") && text.contains("White to move"),
        "{text}"
    );
    assert!(!text.contains("黒の手番") && !text.contains("置ける位置"), "{text}");

    let json: Value = serde_json::from_str(&stdout(&replay(&[log.to_str().unwrap(), "--json"]))).unwrap();
    assert!(json["system_prompt"].as_str().unwrap().contains("SYSTEM-PROMPT-MARK"));
    let exchanges: Vec<&Value> = json["plies"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|p| p["exchanges"].as_array().unwrap())
        .collect();
    let rejected = exchanges
        .iter()
        .position(|e| e["reading"]["outcome"] == "rejected")
        .expect("a rejected answer");
    let reason = exchanges[rejected]["reading"]["reason"].as_str().unwrap();
    assert!(reason.starts_with("several moves named: "), "{reason}");
    let told = exchanges[rejected + 1];
    assert_eq!(told["feedback_reason"].as_str(), Some(reason));
    let sent = told["sent"].as_array().unwrap();
    assert_eq!(sent.len(), 1, "only the feedback is new: {told}");
    assert!(sent[0]["content"]
        .as_str()
        .unwrap()
        .starts_with("Your answer names several moves: "));
    assert_eq!(told["reading"]["outcome"], "accepted");
    assert!(exchanges.iter().all(|e| e.get("answer").is_none()));
}
