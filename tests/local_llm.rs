//! End to end against real model servers: llama.cpp's llama-server serving
//! Qwen2.5-Coder-0.5B-Instruct (`scripts/local-llm.sh start`) and, beside it, Google's
//! base gemma-3-270m with the Gemma chat template (`scripts/local-llm.sh start
//! gemma-3-270m`). CI starts both.
//!
//! Run: `OTHELLO_ARENA_LLM_URL=$(scripts/local-llm.sh start | tail -n 1)
//! OTHELLO_ARENA_GEMMA_URL=$(scripts/local-llm.sh start gemma-3-270m | tail -n 1)
//! cargo test --test integration local_llm:: -- --ignored --nocapture`

use std::process::Command;

use agent::AnswerKind;
use record::{read_game_log, Event, MoveSource};

/// What one logged game shows about the agent.
#[derive(Debug, Default)]
struct Counts {
    finished: bool,
    exchanges: u32,
    requests_in_decisions: u32,
    model_moves: u32,
    /// The host of each failed attempt (a fleet with a dead host).
    failed_on: Vec<String>,
    /// Retries in the exchange records.
    retries: u32,
    /// Structured answers that were not JSON against the schema.
    schema_violations: u32,
    /// Answers cut off at the token limit.
    cut_off: u32,
    fallback_moves: u32,
    structured_calls: u32,
    recovered_calls: u32,
    clean: u32,
    extracted: u32,
    invalid: u32,
    generated_tokens: u64,
    latencies_ms: Vec<f64>,
}

impl Counts {
    fn print(&self, label: &str) {
        let mut sorted = self.latencies_ms.clone();
        sorted.sort_by(f64::total_cmp);
        let seconds: f64 = sorted.iter().sum::<f64>() / 1000.0;
        println!(
            "{label}: {} moves asked, {} decided by the model, {} by the fallback; {} exchanges; tool calls {} structured, \
             {} recovered from text; answers {} clean, {} extracted, {} invalid; latency per exchange median {:.0} ms, \
             max {:.0} ms; {:.1} generated tokens/s",
            self.model_moves + self.fallback_moves,
            self.model_moves,
            self.fallback_moves,
            self.exchanges,
            self.structured_calls,
            self.recovered_calls,
            self.clean,
            self.extracted,
            self.invalid,
            sorted.get(sorted.len() / 2).copied().unwrap_or(0.0),
            sorted.last().copied().unwrap_or(0.0),
            self.generated_tokens as f64 / seconds.max(1e-9),
        );
    }
}

fn server_url() -> String {
    std::env::var("OTHELLO_ARENA_LLM_URL")
        .expect("set OTHELLO_ARENA_LLM_URL to the server printed by scripts/local-llm.sh start")
}

/// Plays one game of the local qwen model (black) against random and reads its log back.
fn play(name: &str, extra: &[&str]) -> Counts {
    let url = server_url();
    play_on(name, &["--api", "openai", "--host", &url], extra)
}

/// Like [`play`], with the server flags given (a fleet, say).
fn play_on(name: &str, servers: &[&str], extra: &[&str]) -> Counts {
    play_model(name, "llm:qwen2.5-coder-0.5b", servers, extra)
}

/// Plays one game of `player` (black) against random on `servers` and reads its log back.
fn play_model(name: &str, player: &str, servers: &[&str], extra: &[&str]) -> Counts {
    let dir = std::env::temp_dir().join(format!("othello-local-llm-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut args = vec![
        "play",
        "--black",
        player,
        "--white",
        "random",
        "--timeout",
        "120",
        "--log-dir",
        dir.to_str().unwrap(),
        "--json",
    ];
    args.extend_from_slice(servers);
    args.extend_from_slice(extra);
    let output = Command::new(env!("CARGO_BIN_EXE_othello-arena"))
        .args(&args)
        .output()
        .expect("the binary runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let mut counts = Counts::default();
    for record in read_game_log(&dir.join("game-0001.jsonl")).expect("the game log reads back") {
        match &record.event {
            Event::GameEnd(_) => counts.finished = true,
            Event::Exchange(e) => {
                counts.exchanges += 1;
                counts.failed_on.extend(e.failures.iter().map(|f| f.host.clone()));
                counts.retries += e.retries;
                counts.latencies_ms.push(e.latency_ms);
                assert!(e.request["messages"].is_array(), "the request is logged as sent");
                assert!(e.response["choices"].is_array(), "the response is logged as received");
                let work = e
                    .server
                    .expect("llama-server times every request (its `timings`), logged as `server`");
                assert!(work.prompt_ms > 0.0 && work.generated_tokens > 0, "{work:?}");
            }
            Event::Move(m) => {
                let Some(d) = &m.agent else { continue };
                counts.requests_in_decisions += d.turns;
                counts.structured_calls += d.tool_calls;
                counts.recovered_calls += d.recovered_tool_calls;
                counts.invalid += d.invalid_answers;
                counts.schema_violations += d.schema_violations;
                counts.cut_off += d.cut_off_answers;
                counts.generated_tokens += d.completion_tokens;
                match m.source {
                    MoveSource::Llm => counts.model_moves += 1,
                    MoveSource::Fallback => counts.fallback_moves += 1,
                    _ => {}
                }
                match d.answer_kind {
                    Some(AnswerKind::Clean) => counts.clean += 1,
                    Some(AnswerKind::Extracted) => counts.extracted += 1,
                    None => {}
                }
            }
            Event::GameStart(_) | Event::GameStopped(_) | Event::Forfeit(_) | Event::Hint(_) | Event::ToolCall(_) => {}
        }
    }
    counts
}

#[test]
#[ignore = "needs a running llama-server: see the module docs (CI runs it)"]
fn one_full_game_against_random_through_a_real_model() {
    let counts = play("direct", &["--agent-file", "prompts/small-model.toml", "--score-moves"]);
    counts.print("local model, direct mode, full game");
    let dir = std::env::temp_dir().join(format!("othello-local-llm-direct-{}", std::process::id()));
    let scored = std::fs::read_to_string(dir.join("move-scores.jsonl")).expect("moves are scored");
    let black_moves = scored.lines().filter(|l| l.contains("\"color\":\"black\"")).count() as u32;
    assert_eq!(
        black_moves,
        counts.model_moves + counts.fallback_moves,
        "every agent move is scored"
    );
    assert!(counts.finished, "the game completes");
    assert_eq!(
        counts.exchanges, counts.requests_in_decisions,
        "every exchange is in the log"
    );
    assert!(
        counts.model_moves >= 1,
        "at least one move was decided by the model itself"
    );
}

#[test]
#[ignore = "needs a running llama-server: see the module docs (CI runs it)"]
fn tool_mode_through_a_real_model() {
    // 50 random opening plies leave a handful of moves: enough to exercise the tool loop.
    let counts = play(
        "tools",
        &[
            "--agent-file",
            "prompts/small-model-tools.toml",
            "--opening-random",
            "50",
        ],
    );
    counts.print("local model, tool mode, from ply 51");
    assert!(counts.finished, "the game completes");
    assert_eq!(
        counts.exchanges, counts.requests_in_decisions,
        "every exchange is in the log"
    );
    assert!(
        counts.structured_calls + counts.recovered_calls >= 1,
        "the model called simulate_move"
    );
}

#[test]
#[ignore = "needs a running llama-server: see the module docs (CI runs it)"]
fn json_legal_answers_through_a_real_model() {
    // Tool mode with one tool round, the answer held to the legal moves by llama-server's
    // response_format (a grammar): every answer parses, only the choice is the model's.
    let counts = play(
        "json-legal",
        &[
            "--agent-file",
            "prompts/small-model-tools.toml",
            "--answer-format",
            "json-legal",
            "--opening-random",
            "50",
        ],
    );
    counts.print("local model, tool mode, json-legal answers, from ply 51");
    println!("schema violations: {}", counts.schema_violations);
    assert!(counts.finished, "the game completes");
    assert_eq!(
        counts.schema_violations, 0,
        "the server held every answer to the schema"
    );
    assert!(counts.model_moves >= 1, "the model decided moves");
}

#[test]
#[ignore = "needs a running llama-server: see the module docs (CI runs it)"]
fn a_probe_through_a_real_model() {
    let url = std::env::var("OTHELLO_ARENA_LLM_URL")
        .expect("set OTHELLO_ARENA_LLM_URL to the server printed by scripts/local-llm.sh start");
    let dir = std::env::temp_dir().join(format!("othello-local-llm-probe-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let positions = dir.join("positions.jsonl");
    let binary = env!("CARGO_BIN_EXE_othello-arena");
    let generated = Command::new(binary)
        .args([
            "positions",
            "generate",
            "--count",
            "6",
            "--empties",
            "16-30",
            "--seed",
            "2",
        ])
        .args([
            "--teacher",
            "n-hand:3",
            "--reference-depth",
            "4",
            "-o",
            positions.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(
        generated.status.success(),
        "{}",
        String::from_utf8_lossy(&generated.stderr)
    );
    let run_dir = dir.join("run");
    let output = Command::new(binary)
        .args([
            "probe",
            "--agent",
            "llm:qwen2.5-coder-0.5b",
            "--positions",
            positions.to_str().unwrap(),
        ])
        .args([
            "--agent-file",
            "prompts/small-model.toml",
            "--api",
            "openai",
            "--host",
            &url,
            "--timeout",
            "120",
        ])
        .args(["--log-dir", run_dir.to_str().unwrap(), "--json"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let summary: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    println!("local model probe, 6 positions: {summary}");
    for against in ["against_best", "against_teacher"] {
        let counts = &summary[against];
        let total: u64 = ["correct", "wrong", "invalid", "error"]
            .iter()
            .map(|k| counts[k].as_u64().unwrap())
            .sum();
        assert_eq!(total, 6, "{against}: every position graded once");
        assert_eq!(counts["error"], 0, "the server answered every request");
    }
    let csv = std::fs::read_to_string(run_dir.join("probe.csv")).unwrap();
    assert_eq!(csv.lines().count(), 7);
}

#[test]
#[ignore = "needs a running llama-server: see the module docs (CI runs it)"]
fn a_fleet_with_a_dead_host_fails_over_to_the_real_model() {
    // The dead host is listed first and said to serve the model, so the first request
    // goes to it, is refused, and is retried on the real server.
    let dead = "http://127.0.0.1:9";
    let dir = std::env::temp_dir().join(format!("othello-local-llm-fleet-file-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let fleet = dir.join("fleet.toml");
    std::fs::write(
        &fleet,
        format!(
            "[[hosts]]\nurl = \"{dead}\"\napi = \"openai\"\nmodels = [\"qwen2.5-coder-0.5b\"]\n\n\
             [[hosts]]\nurl = \"{}\"\napi = \"openai\"\nmax_in_flight = 1\n",
            server_url()
        ),
    )
    .unwrap();
    let counts = play_on(
        "fleet",
        &["--fleet", fleet.to_str().unwrap()],
        &["--agent-file", "prompts/small-model.toml"],
    );
    counts.print("local model through a fleet with a dead host");
    assert!(counts.finished, "the game finished");
    assert!(!counts.failed_on.is_empty(), "the dead host was tried");
    assert!(counts.failed_on.iter().all(|h| h == dead), "{:?}", counts.failed_on);
    assert_eq!(
        counts.retries as usize,
        counts.failed_on.len(),
        "each retry is logged with its host"
    );
    assert!(
        counts.model_moves >= 1,
        "the real model decided moves after the failover"
    );
}

#[test]
#[ignore = "needs a running llama-server: see the module docs (CI runs it)"]
fn the_sample_tournament_runs_against_the_local_model() {
    // docs/tournament-local.toml as shipped, pointed at this run's server, from ply 51
    // (a 50-ply random opening) so that CI plays a few agent moves a game, not thirty.
    let text = std::fs::read_to_string("docs/tournament-local.toml")
        .unwrap()
        .replace("opening_random = 4", "opening_random = 50");
    assert!(
        text.contains("opening_random = 50"),
        "the sample file sets opening_random = 4"
    );
    let url = server_url();
    let dir = std::env::temp_dir().join(format!("othello-local-llm-tournament-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("tournament.toml");
    std::fs::write(&file, text.replace("127.0.0.1:8080", &url)).unwrap();
    let run = dir.join("run");
    let output = Command::new(env!("CARGO_BIN_EXE_othello-arena"))
        .args(["tournament", file.to_str().unwrap(), "--log-dir", run.to_str().unwrap()])
        .output()
        .expect("the binary runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    println!("{stdout}");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    for player in [
        "llm:qwen2.5-coder-0.5b@direct",
        "llm:qwen2.5-coder-0.5b@tools",
        "random",
    ] {
        assert!(stdout.contains(player), "{player} is rated");
    }
    let results: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("results.json")).unwrap()).unwrap();
    assert_eq!(results["complete"], true);
    assert_eq!(results["ratings"]["as_played"]["games"], 4);
}

#[test]
#[ignore = "needs a running llama-server: see the module docs (CI runs it)"]
fn a_short_marubatsu_eval_through_a_real_model() {
    let dir = std::env::temp_dir().join(format!("othello-local-llm-marubatsu-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let url = server_url();
    let output = Command::new(env!("CARGO_BIN_EXE_othello-arena"))
        .args([
            "eval",
            "--game",
            "marubatsu",
            "--agent",
            "llm:qwen2.5-coder-0.5b",
            "--vs",
            "ai2",
            "--games",
            "1",
            "--system",
            "marubatsu-tool-en",
            "--labels",
            "en",
            "--max-tool-rounds",
            "1",
            "--answer-format",
            "json-legal",
            "--max-turns",
            "4",
            "--on-invalid",
            "feedback",
            "--temperature",
            "0.8",
            "--num-predict",
            "256",
            "--api",
            "openai",
            "--host",
            &url,
            "--timeout",
            "120",
            "--log-dir",
            dir.to_str().unwrap(),
            "--json",
        ])
        .output()
        .expect("the binary runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let summary: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let agent = &summary["agent"];
    println!(
        "local model, marubatsu vs ai2, 1 game a side: {} of {} moves by the model, {} invalid answers, \
         {} tool calls + {} recovered from text; as O {}, as X {}",
        agent["llm_moves"],
        agent["moves"],
        agent["invalid_answers"],
        agent["tool_calls"],
        agent["recovered_tool_calls"],
        summary["opponents"][0]["as_black"],
        summary["opponents"][0]["as_white"]
    );
    assert_eq!(summary["opponents"][0]["overall"]["games"], 2, "both games finish");
    let mut exchanges = 0;
    let mut turns = 0;
    for game in ["game-0001.jsonl", "game-0002.jsonl"] {
        let records = read_game_log(&dir.join(game)).expect("the game log reads back");
        for record in records {
            match &record.event {
                Event::GameStart(start) => assert_eq!(start.rules, Some(game::Game::Marubatsu)),
                Event::Exchange(_) => exchanges += 1,
                Event::Move(m) => turns += m.agent.as_ref().map_or(0, |d| d.turns),
                _ => {}
            }
        }
    }
    assert!(
        exchanges > 0 && exchanges == turns,
        "every request is logged: {exchanges} vs {turns}"
    );
}

#[test]
#[ignore = "needs llama-server serving gemma-3-270m: see the module docs (CI runs it)"]
fn the_base_gemma_model_plays_every_move_itself_held_to_the_legal_moves() {
    let url = std::env::var("OTHELLO_ARENA_GEMMA_URL")
        .expect("set OTHELLO_ARENA_GEMMA_URL to the server printed by scripts/local-llm.sh start gemma-3-270m");
    // A short game: 44 random opening plies leave the model about eight moves.
    let counts = play_model(
        "gemma",
        "llm:gemma-3-270m",
        &["--api", "openai", "--host", &url],
        &["--agent-file", "prompts/gemma-3-270m.toml", "--opening-random", "44"],
    );
    counts.print("gemma-3-270m (base), direct mode, json-legal, from ply 45");
    assert!(counts.finished, "the game ends");
    assert!(counts.model_moves > 0, "the model was asked for moves");
    assert_eq!(
        (counts.fallback_moves, counts.schema_violations, counts.cut_off),
        (0, 0, 0),
        "held to the legal moves with no reason field, every answer fits the shipped cap"
    );
    assert_eq!(counts.clean, counts.model_moves);
}

/// `bench llm` against the real server: every position answered, and the server's own
/// clock read (prefill and decode speeds, the prompt tokens it processed, the floor).
#[test]
#[ignore = "needs a local llama-server: set OTHELLO_ARENA_LLM_URL (scripts/local-llm.sh start)"]
fn bench_llm_reads_the_servers_own_clock() {
    let url = server_url();
    let output = Command::new(env!("CARGO_BIN_EXE_othello-arena"))
        .args([
            "bench",
            "llm",
            "--agent",
            "llm:qwen2.5-coder-0.5b",
            "--api",
            "openai",
            "--host",
            &url,
            "--agent-file",
            "prompts/small-model.toml",
            "--answer-format",
            "json-legal",
            "--positions",
            "3",
            "--parallel",
            "2",
            "--max-in-flight",
            "2",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("the binary runs");
    let text = String::from_utf8_lossy(&output.stdout);
    eprintln!("{text}");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(text.contains("3 moves (3 by the model"), "{text}");
    let server = text
        .lines()
        .find(|l| l.trim_start().starts_with("server"))
        .expect("a server line");
    assert!(server.contains("prefill") && !server.contains("prefill -"), "{server}");
    assert!(text.contains("floor"), "{text}");
}
