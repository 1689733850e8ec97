//! End to end against a real model server: llama.cpp's llama-server serving
//! Qwen2.5-Coder-0.5B-Instruct, started by `scripts/local-llm.sh start` (CI does this).
//!
//! Run: `OTHELLO_ARENA_LLM_URL=$(scripts/local-llm.sh start | tail -n 1) cargo test --test local_llm -- --ignored --nocapture`

use std::process::Command;

use othello_arena::record::{read_game_log, Event, MoveSource};

#[test]
#[ignore = "needs a running llama-server: see the module docs (CI runs it)"]
fn one_full_game_against_random_through_a_real_model() {
    let url = std::env::var("OTHELLO_ARENA_LLM_URL")
        .expect("set OTHELLO_ARENA_LLM_URL to the server printed by scripts/local-llm.sh start");
    let dir = std::env::temp_dir().join(format!("othello-local-llm-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let output = Command::new(env!("CARGO_BIN_EXE_othello-arena"))
        .args([
            "play",
            "--black",
            "llm:qwen2.5-coder-0.5b",
            "--white",
            "random",
            "--api",
            "openai",
            "--host",
            &url,
            "--agent-file",
            "prompts/small-model.toml",
            "--timeout",
            "120",
            "--log-dir",
            dir.to_str().unwrap(),
            "--json",
        ])
        .output()
        .expect("the binary runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));

    let records = read_game_log(&dir.join("game-0001.jsonl")).expect("the game log reads back");
    let ended = records.iter().any(|r| matches!(r.event, Event::GameEnd(_)));
    assert!(ended, "the game completes");
    let (mut exchanges, mut turns, mut model, mut fallback, mut structured, mut recovered, mut clean, mut extracted) =
        (0u32, 0u32, 0u32, 0u32, 0u32, 0u32, 0u32, 0u32);
    let mut latencies = Vec::new();
    let mut generated = 0u64;
    for record in &records {
        match &record.event {
            Event::Exchange(e) => {
                exchanges += 1;
                latencies.push(e.latency_ms);
                assert!(e.request["messages"].is_array(), "the request is logged as sent");
                assert!(e.response["choices"].is_array(), "the response is logged as received");
            }
            Event::Move(m) => {
                if let Some(d) = &m.agent {
                    turns += d.turns;
                    structured += d.tool_calls;
                    recovered += d.recovered_tool_calls;
                    generated += d.completion_tokens;
                    match m.source {
                        MoveSource::Llm => model += 1,
                        MoveSource::Fallback => fallback += 1,
                        _ => {}
                    }
                    match d.answer_kind {
                        Some(othello_arena::agent::AnswerKind::Clean) => clean += 1,
                        Some(othello_arena::agent::AnswerKind::Extracted) => extracted += 1,
                        None => {}
                    }
                }
            }
            _ => {}
        }
    }
    latencies.sort_by(f64::total_cmp);
    let total_s: f64 = latencies.iter().sum::<f64>() / 1000.0;
    println!(
        "local model: {} moves ({model} by the model, {fallback} by the fallback); {exchanges} exchanges; \
         tool calls {structured} structured, {recovered} recovered from text; answers {clean} clean, {extracted} extracted; \
         latency per exchange median {:.0} ms, max {:.0} ms; {:.1} generated tokens/s",
        model + fallback,
        latencies[latencies.len() / 2],
        latencies[latencies.len() - 1],
        generated as f64 / total_s.max(1e-9),
    );
    assert_eq!(exchanges, turns, "every exchange is in the log");
    assert!(model >= 1, "at least one move was decided by the model itself");
}
