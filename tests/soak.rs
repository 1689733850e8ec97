//! A bounded soak: a whole evaluation against a fault-injecting server on 127.0.0.1.
//!
//! The scripted server stands in for a model server and a network that misbehave in
//! ways a real one does only now and then: HTTP 500, 429 with Retry-After, dropped
//! connections, bodies cut short, answers slower than the timeout, invalid JSON and
//! oversized bodies, plus a model that sometimes answers no legal move. Which fault a
//! request meets is drawn from a seeded generator keyed by the request's number. Every
//! game must finish and every count must add up: requests the server saw = logged
//! exchanges + their retries, and retries = faults injected.

use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use crate::support::{legal_moves_in, Fault, Reply, StubServer};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use record::{read_game_log, Event, MoveSource};
use serde_json::{json, Value};

/// What request number `n` meets, by a seeded draw: `(reply, is_fault)`.
fn faulty_reply(request: &Value, n: usize) -> (Reply, bool) {
    let mut rng = ChaCha8Rng::seed_from_u64(0x50a6 + n as u64);
    let legal = legal_moves_in(request);
    let answer = legal.last().map_or("pass", String::as_str).to_string();
    let fault = |reply: Reply| (reply, true);
    match rng.gen_range(0..100) {
        0..=4 => fault(Reply::error(500, "internal server error")),
        5..=8 => fault(Reply {
            retry_after: Some(1),
            ..Reply::error(429, "too many requests")
        }),
        9..=12 => fault(Reply::content(&answer).with_fault(Fault::Drop)),
        13..=16 => fault(Reply::content(&answer).with_fault(Fault::Truncate)),
        17..=19 => fault(Reply {
            body: "{\"model\":\"stub\",\"message\":{\"role\":\"assist".into(),
            ..Reply::content("")
        }),
        20..=21 => fault(Reply::content(&"ramble ".repeat(2_500_000))),
        22..=23 => fault(Reply::content(&answer).with_fault(Fault::Delay(Duration::from_millis(2500)))),
        24..=31 => (
            Reply::content(&answer).with_fault(Fault::Delay(Duration::from_millis(300))),
            false,
        ),
        32..=36 => (Reply::content("I would rather not say. z9?"), false),
        _ => (Reply::content(&format!("My move: {answer}")), false),
    }
}

#[derive(Default, Debug, PartialEq)]
struct Counts {
    exchanges: u64,
    retries: u64,
    agent_moves: u64,
    turns: u64,
    llm: u64,
    fallback: u64,
    invalid: u64,
}

fn count_logs(dir: &Path) -> (Counts, usize) {
    let mut counts = Counts::default();
    let mut finished = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "jsonl") {
            continue;
        }
        for record in read_game_log(&path).expect("every line is a record") {
            match record.event {
                Event::Exchange(e) => {
                    counts.exchanges += 1;
                    counts.retries += u64::from(e.retries);
                }
                Event::Move(m) => {
                    if let Some(d) = m.agent {
                        counts.agent_moves += 1;
                        counts.turns += u64::from(d.turns);
                        counts.invalid += u64::from(d.invalid_answers);
                        match m.source {
                            MoveSource::Llm => counts.llm += 1,
                            MoveSource::Fallback => counts.fallback += 1,
                            _ => panic!("an agent move from an engine"),
                        }
                    }
                }
                Event::GameEnd(_) => finished += 1,
                _ => {}
            }
        }
    }
    (counts, finished)
}

#[test]
fn an_evaluation_survives_a_server_that_fails_in_every_way() {
    let faults = Arc::new(AtomicUsize::new(0));
    let injected = faults.clone();
    let server = StubServer::start_routed(move |path, request, n| {
        if path != "/api/chat" {
            return Reply::error(404, "not found");
        }
        let (reply, is_fault) = faulty_reply(request, n);
        injected.fetch_add(usize::from(is_fault), Ordering::SeqCst);
        reply
    });
    let dir = std::env::temp_dir().join(format!("othello-soak-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let output = Command::new(env!("CARGO_BIN_EXE_othello-arena"))
        .args(["eval", "--agent", "llm:stub", "--vs", "random,greedy", "--games", "2"])
        .args([
            "--opening-random",
            "2",
            "--parallel",
            "4",
            "--timeout",
            "2",
            "--max-retries",
            "12",
        ])
        // Its logs are counted file by file: no move-scores.jsonl beside them (valuing is
        // not what this test measures).
        .args(["--no-score-moves", "--json", "--log-dir", dir.to_str().unwrap()])
        .env("OLLAMA_HOST", &server.url)
        .output()
        .expect("the binary runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    let summary: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(summary["complete"], true);

    let (counts, finished) = count_logs(&dir);
    assert_eq!(finished, 8, "every game finished");
    let chat_requests = server.chat_requests().len() as u64;
    let faults = faults.load(Ordering::SeqCst) as u64;
    println!("{chat_requests} requests, {faults} faults injected, {counts:?}");
    assert!(
        faults >= 20,
        "the soak injected too few faults to mean anything: {faults}"
    );
    assert_eq!(counts.retries, faults, "each fault cost one retry");
    assert_eq!(chat_requests, counts.exchanges + counts.retries);
    assert_eq!(
        counts.turns, counts.exchanges,
        "each logged exchange belongs to one decision"
    );
    assert_eq!(counts.llm + counts.fallback, counts.agent_moves);
    assert!(counts.invalid > 0, "the model's bad answers were counted");
    let agent = &summary["agent"];
    assert_eq!(agent["moves"], json!(counts.agent_moves));
    assert_eq!(agent["llm_moves"], json!(counts.llm));
    assert_eq!(agent["fallback_moves"], json!(counts.fallback));
    assert_eq!(agent["invalid_answers"], json!(counts.invalid));
}
