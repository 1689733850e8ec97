//! `eval` end to end through the binary, against the scripted Ollama server on
//! 127.0.0.1 (a model that checks one move with the tool, then answers legally).

use std::path::Path;
use std::process::Command;

use crate::support::command::Eval;
use crate::support::{legal_moves_in, playing_model, run_arena, Reply, StubServer};
use record::{read_game_log, Event, MoveSource};
use serde_json::{json, Value};

fn temp_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("othello-eval-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

#[test]
fn eval_reports_tables_statistics_csv_and_logs() {
    let server = playing_model();
    let dir = temp_dir("full");
    let csv = dir.with_extension("csv");
    let output = run_arena(
        &[
            "eval",
            "--agent",
            "llm:stub-model",
            "--vs",
            "random,greedy",
            "--games",
            "2",
            "--opening-random",
            "2",
            "--system",
            "tool-ja",
            "--parallel",
            "2",
            "--log-dir",
            dir.to_str().unwrap(),
            "--csv",
            csv.to_str().unwrap(),
            "--json",
        ],
        server.url.trim_start_matches("http://"),
    );
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let summary: Value = serde_json::from_slice(&output.stdout).unwrap();
    check_summary(&summary);
    check_run_json(&dir, &server);
    let results: Value = serde_json::from_str(&std::fs::read_to_string(dir.join("results.json")).unwrap()).unwrap();
    assert_eq!(results["agent"], summary["agent"]);
    let (exchanges, agent_moves) = count_logged_exchanges_and_moves(&dir);
    assert_eq!(agent_moves, summary["agent"]["moves"].as_u64().unwrap());
    assert_eq!(exchanges, server.chat_requests().len(), "every exchange is logged");
    assert_eq!(exchanges as u64, 2 * agent_moves);
    check_seed_000_csv(&csv);
    assert!(Path::new(&dir.join("results.csv")).is_file());
}

/// The `--json` summary of 2 games per colour against random and greedy, every move the
/// model's after one tool call.
fn check_summary(summary: &Value) {
    let opponents = summary["opponents"].as_array().unwrap();
    assert_eq!(opponents.len(), 2);
    assert_eq!(opponents[0]["opponent"], "random");
    for o in opponents {
        assert_eq!(o["as_black"]["games"], 2);
        assert_eq!(o["as_white"]["games"], 2);
        for key in ["wins", "losses", "draws", "win_rate", "ci_low", "ci_high"] {
            assert!(o["overall"].get(key).is_some(), "{key}");
        }
    }
    let agent = &summary["agent"];
    assert_eq!(agent["fallback_moves"], 0);
    assert_eq!(agent["llm_share"], 1.0);
    assert_eq!(agent["tool_calls_per_move"], 1.0);
    assert_eq!(agent["recovered_tool_calls"], 0);
    assert_eq!(agent["clean_answers"], agent["moves"]);
    assert_eq!(agent["requests_per_move"], 2.0);
    assert!(agent["latency_ms_p95"].as_f64().unwrap() >= agent["latency_ms_p50"].as_f64().unwrap());
}

/// The run folder's configuration: the model, the prompt with its hash, the backend.
fn check_run_json(dir: &Path, server: &StubServer) {
    let run_json: Value = serde_json::from_str(&std::fs::read_to_string(dir.join("run.json")).unwrap()).unwrap();
    assert_eq!(run_json["agent"]["model"], "stub-model");
    assert_eq!(run_json["agent"]["system_prompt"]["sha256"].as_str().unwrap().len(), 64);
    assert!(run_json["agent"]["system_prompt"]["text"]
        .as_str()
        .unwrap()
        .contains("simulate_move"));
    assert_eq!(run_json["backend"], format!("ollama {}", server.url));
}

/// The 8 game logs of `dir`, each from its start to its end: the exchanges they hold
/// (each with stub-model's request and a message) and the agent's moves (each the model's).
fn count_logged_exchanges_and_moves(dir: &Path) -> (usize, u64) {
    let mut exchanges = 0;
    let mut agent_moves = 0;
    for game in 1..=8 {
        let records = read_game_log(&dir.join(format!("game-{game:04}.jsonl"))).unwrap();
        assert!(matches!(records.first().unwrap().event, Event::GameStart(_)));
        assert!(matches!(records.last().unwrap().event, Event::GameEnd(_)));
        for record in &records {
            match &record.event {
                Event::Exchange(e) => {
                    exchanges += 1;
                    assert_eq!(e.request["model"], "stub-model");
                    assert!(e.response.get("message").is_some());
                }
                Event::Move(m) if m.agent.is_some() => {
                    agent_moves += 1;
                    assert_eq!(m.source, MoveSource::Llm);
                }
                _ => {}
            }
        }
    }
    (exchanges, agent_moves)
}

/// Seed 000's CSV columns, the first row stub-model's 2 games against random.
fn check_seed_000_csv(csv: &Path) {
    let table = std::fs::read_to_string(csv).unwrap();
    let mut lines = table.lines();
    assert_eq!(
        lines.next(),
        Some("model,date,games_per_matchup,opponent,b_win,b_lose,b_draw,w_win,w_lose,w_draw")
    );
    let row: Vec<&str> = lines.next().unwrap().split(',').collect();
    assert_eq!((row[0], row[2], row[3]), ("stub-model", "2", "random"));
}

#[test]
fn eval_prints_a_table_a_reader_can_check() {
    let server = playing_model();
    let dir = temp_dir("text");
    let output = run_arena(
        &[
            "eval",
            "--agent",
            "llm:stub-model",
            "--vs",
            "random",
            "--games",
            "1",
            "--log-dir",
            dir.to_str().unwrap(),
        ],
        &server.url,
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    for needle in [
        "95% CI (Wilson)",
        "model-decided",
        "decided by the model",
        "extracted from prose",
        "latency per move",
        "logs: ",
    ] {
        assert!(stdout.contains(needle), "missing {needle:?} in\n{stdout}");
    }
}

#[test]
fn eval_stops_with_the_fix_when_the_model_is_missing() {
    let server = StubServer::start(|_, _| Reply::error(404, "model \"nope\" not found, try pulling it first"));
    let dir = temp_dir("missing");
    let output = run_arena(
        &[
            "eval",
            "--agent",
            "llm:nope",
            "--vs",
            "random",
            "--log-dir",
            dir.to_str().unwrap(),
        ],
        &server.url,
    );
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("ollama pull nope") && stderr.contains("logs so far are in"),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"));
}

/// Stands in for a host that answers every chat request with 200 and a body that is not
/// a chat answer: the run stops as a host failure instead of charging the model with
/// empty answers and fallback moves.
#[test]
fn a_host_that_answers_no_chat_stops_the_run_instead_of_charging_the_model() {
    let server = StubServer::start(|_, _| Reply::content("d3").with_body(serde_json::json!({"status": "ok"})));
    let dir = temp_dir("not-chat");
    let output = Eval::model("m")
        .vs("random")
        .games(1)
        .flag("max-retries", "0")
        .log_dir(&dir)
        .run(&server.url);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("not an Ollama chat response"), "{stderr}");
    assert!(!dir.join("results.json").exists(), "no table charges the model");
}

/// A model that answers its first legal move, each reply naming `model` as the one
/// that answered.
fn answering_as(model: &'static str) -> StubServer {
    StubServer::start(move |request, _| {
        let legal = legal_moves_in(request);
        let reply = Reply::content(legal.first().map_or("pass", String::as_str));
        let mut body: Value = serde_json::from_str(&reply.body).unwrap();
        body["model"] = json!(model);
        reply.with_body(body)
    })
}

/// `eval llm:m` in direct mode, one game a colour against random, logged in `dir`.
fn direct_eval(server: &StubServer, dir: &Path) -> std::process::Output {
    Eval::model("m")
        .flag("mode", "direct")
        .vs("random")
        .games(1)
        .log_dir(dir)
        .run(&server.url)
}

#[test]
fn a_reply_naming_another_model_is_warned_of_in_the_log_and_the_table() {
    // Stands in for a host that serves another model under the name asked for.
    let server = answering_as("other-model:7b");
    let dir = temp_dir("other-model");
    let output = direct_eval(&server, &dir);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(
        stdout.contains("repl(ies) named another model than the one asked for"),
        "{stdout}"
    );
    let log = read_game_log(&dir.join("game-0001.jsonl")).unwrap();
    let warned: Vec<_> = log
        .iter()
        .filter_map(|r| match &r.event {
            Event::Exchange(x) => Some(x.answered_by.clone()),
            _ => None,
        })
        .collect();
    assert!(
        !warned.is_empty() && warned.iter().all(|w| w.as_deref() == Some("other-model:7b")),
        "{warned:?}"
    );
    // A host answering as the model asked for (`m:latest` is `m`) is warned of nothing.
    let output = direct_eval(&answering_as("m:latest"), &temp_dir("same-model"));
    assert!(!String::from_utf8_lossy(&output.stdout).contains("another model"));
}

#[test]
fn a_host_whose_replies_run_to_megabytes_stops_at_the_log_cap_of_a_move() {
    // Stands in for a broken host: every reply is 1 MiB of text plus a tool call, so the
    // conversation of one move grows by a megabyte a turn.
    let server = StubServer::start(|request, _| {
        let square = legal_moves_in(request).first().cloned().unwrap_or_default();
        let mut reply = Reply::tool_call("simulate_move", json!({"coord": square}));
        let mut body: Value = serde_json::from_str(&reply.body).unwrap();
        body["message"]["content"] = json!("x".repeat(1 << 20));
        reply = reply.with_body(body);
        reply
    });
    let dir = temp_dir("log-cap");
    let output = Eval::model("m")
        .vs("random")
        .games(1)
        .flag("max-turns", 60)
        .log_dir(&dir)
        .run(&server.url);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "the move must stop at the cap");
    assert!(stderr.contains("past the cap of 32 MiB a move"), "{stderr}");
    // Each message is logged once: the 1 MiB replies, not the whole conversation again
    // at every turn (which wrote 466 MB at 30 turns), and never past the cap.
    for file in std::fs::read_dir(&dir).unwrap() {
        let file = file.unwrap();
        let logged = file.metadata().unwrap().len();
        assert!(logged < 33 << 20, "{:?}: {logged} bytes logged", file.file_name());
    }
    let log = read_game_log(&dir.join("game-0001.jsonl"));
    let exchanges = log.map(|records| records.iter().filter(|r| matches!(r.event, Event::Exchange(_))).count());
    assert!(
        exchanges.is_ok_and(|n| n >= 10),
        "the exchanges before the cap are kept and read back whole"
    );
}

#[test]
fn eval_refuses_bad_settings_clearly() {
    for (args, needle) in [
        (vec!["eval", "--agent", "random", "--vs", "greedy"], "give llm:MODEL"),
        (Eval::model("m").vs("grandmaster").args(), "llm:MODEL"),
        (Eval::model("m").flag("mode", "chat").args(), "expected tool or direct"),
        (
            Eval::model("m").flag("system", "no-such-prompt").args(),
            "give a file path or a name",
        ),
        (Eval::model("m").flag("fallback", "human").args(), "not human"),
        (
            Eval::model("m").flag("think", "maybe").args(),
            "expected on, off, low, medium, high",
        ),
        (Eval::model("m").games(0).args(), "give 1 to 100000 games"),
    ] {
        let output = run_arena(&args, "127.0.0.1:9");
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(needle), "{args:?}: {stderr}");
    }
}

#[test]
fn play_accepts_an_llm_player_and_writes_logs() {
    let server = playing_model();
    let dir = temp_dir("play");
    let output = run_arena(
        &[
            "play",
            "--black",
            "greedy",
            "--white",
            "llm:stub-model",
            "--log-dir",
            dir.to_str().unwrap(),
            "--json",
        ],
        &server.url,
    );
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let summary: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(summary["players"][1]["spec"], "llm:stub-model");
    assert_eq!(summary["players"][1]["agent"]["llm_share"], 1.0);
    assert!(
        summary["players"][0].get("agent").is_none(),
        "engines have no agent statistics"
    );
    assert!(read_game_log(&dir.join("game-0001.jsonl")).unwrap().len() > 30);
}

#[test]
fn an_agent_file_sets_the_agent_and_flags_override_it() {
    let server = playing_model();
    let dir = temp_dir("agentfile");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("agent.toml");
    std::fs::write(
        &file,
        "system = \"tool-en\"\nlabels = \"en\"\nthink = false\non_invalid = \"feedback\"\nmax_turns = 6\nfallback = \"greedy\"\n[options]\ntemperature = 0.0\nseed = 42\nnum_ctx = 4096\n",
    )
    .unwrap();
    let logs = dir.join("run");
    let output = run_arena(
        &[
            "eval",
            "--agent",
            "llm:stub-model",
            "--vs",
            "random",
            "--agent-file",
            file.to_str().unwrap(),
            "--max-turns",
            "5",
            "--log-dir",
            logs.to_str().unwrap(),
            "--json",
        ],
        &server.url,
    );
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let run_json: Value = serde_json::from_str(&std::fs::read_to_string(logs.join("run.json")).unwrap()).unwrap();
    let agent = &run_json["agent"];
    assert_eq!(agent["system_prompt"]["source"], "tool-en");
    assert_eq!(
        (agent["board_labels"].as_str(), agent["think"].as_bool()),
        (Some("en"), Some(false))
    );
    assert_eq!(
        (agent["on_invalid"].as_str(), agent["fallback"].as_str()),
        (Some("feedback"), Some("greedy"))
    );
    assert_eq!(agent["max_turns"], 5, "the flag overrides the file");
    assert_eq!(
        agent["options"],
        json!({"temperature": 0.0, "seed": 42, "num_ctx": 4096})
    );
    let first = &server.chat_requests()[0];
    assert_eq!(first["options"]["seed"], 42);
    assert_eq!(first["think"], false);
    assert!(first["messages"][1]["content"]
        .as_str()
        .unwrap()
        .contains("Legal moves: "));
    std::fs::write(&file, "temprature = 0.5\n").unwrap();
    let output = Eval::model("m").flag("agent-file", file.display()).run(&server.url);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.code() == Some(2) && stderr.contains("unknown field `temprature`"),
        "{stderr}"
    );
}

#[test]
fn stats_recomputes_the_eval_from_logs_and_groups_by_prompt() {
    let server = playing_model();
    let (first, second) = (temp_dir("stats-a"), temp_dir("stats-b"));
    let mut summaries = Vec::new();
    for (dir, prompt) in [(&first, "tool-ja"), (&second, "tool-en")] {
        let output = run_arena(
            &[
                "eval",
                "--agent",
                "llm:stub-model",
                "--vs",
                "random,greedy",
                "--games",
                "1",
                "--system",
                prompt,
                "--log-dir",
                dir.to_str().unwrap(),
                "--json",
            ],
            &server.url,
        );
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        summaries.push(serde_json::from_slice::<Value>(&output.stdout).unwrap());
    }
    let output = Command::new(env!("CARGO_BIN_EXE_othello-arena"))
        .args(["stats", first.to_str().unwrap(), second.to_str().unwrap(), "--json"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let stats: Value = serde_json::from_slice(&output.stdout).unwrap();
    let groups = stats["groups"].as_array().unwrap();
    assert_eq!(groups.len(), 4, "2 prompts x 2 opponents");
    for (summary, dir) in summaries.iter().zip([&first, &second]) {
        let run: Value = serde_json::from_str(&std::fs::read_to_string(dir.join("run.json")).unwrap()).unwrap();
        let hash = &run["agent"]["system_prompt"]["sha256"].as_str().unwrap()[..12];
        for opponent in summary["opponents"].as_array().unwrap() {
            let group = groups
                .iter()
                .find(|g| g["prompt_sha256"] == hash && g["opponent"] == opponent["opponent"])
                .expect("a group per prompt and opponent");
            assert_eq!(group["as_black"], opponent["as_black"]);
            assert_eq!(group["as_white"], opponent["as_white"]);
            assert_eq!(
                group["agent"], opponent["agent"],
                "statistics from the logs equal the run's own"
            );
        }
    }
    let output = Command::new(env!("CARGO_BIN_EXE_othello-arena"))
        .args(["stats", "Cargo.toml"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
}

/// A model that answers with the first (or last) legal move, without tools.
fn simple_model(last: bool) -> StubServer {
    StubServer::start(move |request, _| {
        let legal = legal_moves_in(request);
        Reply::content(if last { legal.last() } else { legal.first() }.map_or("", String::as_str))
    })
}

fn scores(dir: &Path) -> Vec<(String, f64)> {
    let mut out = Vec::new();
    for game in 1.. {
        let path = dir.join(format!("game-{game:04}.jsonl"));
        if !path.exists() {
            break;
        }
        let records = read_game_log(&path).unwrap();
        let (mut opponent, mut agent_black, mut score) = (String::new(), true, 0.0);
        for r in &records {
            match &r.event {
                Event::GameStart(s) => {
                    agent_black = s.black.starts_with("llm:");
                    opponent = if agent_black { s.white.clone() } else { s.black.clone() };
                }
                Event::GameEnd(e) => {
                    let margin = (e.black_discs as i32 - e.white_discs as i32) * if agent_black { 1 } else { -1 };
                    score = match margin.signum() {
                        1 => 1.0,
                        0 => 0.5,
                        _ => 0.0,
                    };
                }
                _ => {}
            }
        }
        out.push((opponent, score));
    }
    out
}

#[test]
fn compare_pairs_games_on_shared_openings() {
    let (first, last) = (simple_model(false), simple_model(true));
    let dirs = [temp_dir("cmp-a"), temp_dir("cmp-b"), temp_dir("cmp-c")];
    eval_for_compare(&dirs[0], &first, "tool-ja", "5");
    eval_for_compare(&dirs[1], &last, "tool-en", "5");
    eval_for_compare(&dirs[2], &last, "tool-en", "6");
    let output = Command::new(env!("CARGO_BIN_EXE_othello-arena"))
        .args([
            "compare",
            dirs[0].to_str().unwrap(),
            dirs[1].to_str().unwrap(),
            dirs[2].to_str().unwrap(),
            "--json",
        ])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    check_pairs_match_the_logs(&report["comparisons"][0], &dirs[0], &dirs[1]);
    check_prompts_differ_and_labels_do_not(&report["comparisons"][0]);
    // A run on other openings cannot be paired.
    let other = &report["comparisons"][1];
    assert!(other["differences"]
        .as_array()
        .unwrap()
        .iter()
        .any(|d| d.as_str().unwrap().starts_with("opening_seed")));
    assert!(other["paired"].as_array().unwrap().iter().all(|p| p["pairs"] == 0));
    // The text form names the test and the differences.
    let text = Command::new(env!("CARGO_BIN_EXE_othello-arena"))
        .args(["compare", dirs[0].to_str().unwrap(), dirs[1].to_str().unwrap()])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains("game(s) played by both on the same opening and colour") && text.contains("sign test p ="),
        "{text}"
    );
    check_the_pooled_verdict(&report["comparisons"][0], &text);
    check_two_prompts_are_two_players(&dirs[0], &dirs[1]);
}

/// `compare`'s verdict: the Elo difference pooled over the 8 colour-swapped pairs both
/// runs played, with its 95% interval, in JSON and text, beside the prompts' files.
fn check_the_pooled_verdict(comparison: &Value, text: &str) {
    let pooled = &comparison["pooled"];
    assert_eq!(pooled["pairs"], 8, "{pooled}");
    let (elo, low, high) = (
        pooled["elo"].as_f64().unwrap(),
        pooled["low"].as_f64().unwrap(),
        pooled["high"].as_f64().unwrap(),
    );
    assert!(low <= elo && elo <= high && low < high, "{pooled}");
    assert!(
        text.contains("pooled over 8 colour-swapped pair(s) (16 games) on the same openings")
            && text.contains("Elo, 95% interval ["),
        "{text}"
    );
    // The verdict in words, the one the interval gives.
    let verdict = match (low > 0.0, high < 0.0) {
        (true, _) => ("better", "is better than run 1 at 95%"),
        (_, true) => ("worse", "is worse than run 1 at 95%"),
        _ => (
            "no detectable difference",
            "no detectable difference between run 2 and run 1 at 95%",
        ),
    };
    assert_eq!(pooled["verdict"], verdict.0, "{pooled}");
    assert!(text.contains(verdict.1), "{text}");
    assert!(text.contains("(tool-ja)") && text.contains("(tool-en)"), "{text}");
}

/// Two runs of one model that differ only in the system prompt are two players, named
/// by the prompt, in `rate` and in `stats` alike.
fn check_two_prompts_are_two_players(first: &Path, second: &Path) {
    let paths = [first.to_str().unwrap(), second.to_str().unwrap()];
    let rated = run_arena(&["rate", paths[0], paths[1], "--json"], "127.0.0.1:9");
    assert!(rated.status.success(), "{}", String::from_utf8_lossy(&rated.stderr));
    let rated: Value = serde_json::from_slice(&rated.stdout).unwrap();
    let mut players: Vec<&str> = rated["as_played"]["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["player"].as_str().unwrap())
        .filter(|p| p.starts_with("llm:"))
        .collect();
    players.sort_unstable();
    assert_eq!(players, ["llm:m@tool-en", "llm:m@tool-ja"], "{rated}");
    let stats = run_arena(&["stats", paths[0], paths[1], "--json"], "127.0.0.1:9");
    let stats: Value = serde_json::from_slice(&stats.stdout).unwrap();
    let mut models: Vec<&str> = stats["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["model"].as_str().unwrap())
        .collect();
    models.dedup();
    assert_eq!(models, ["llm:m@tool-en", "llm:m@tool-ja"], "{stats}");
}

/// A direct eval of `llm:m` on `server` with `prompt`, 4 games per colour against random
/// and greedy from seed 9 and `opening_seed`, logged in `dir`.
fn eval_for_compare(dir: &Path, server: &StubServer, prompt: &str, opening_seed: &str) {
    let output = Eval::model("m")
        .vs("random,greedy")
        .games(4)
        .flag("opening-random", 4)
        .flag("seed", 9)
        .flag("opening-seed", opening_seed)
        .flag("mode", "direct")
        .flag("system", prompt)
        .log_dir(dir)
        .json()
        .run(&server.url);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
}

/// The comparison's pairs against each opponent are those computed here from the two
/// runs' logs: same schedule, same openings.
fn check_pairs_match_the_logs(comparison: &Value, base: &Path, other: &Path) {
    let (a, b) = (scores(base), scores(other));
    for opponent in ["random", "greedy"] {
        let pairs: Vec<(f64, f64)> = a
            .iter()
            .zip(&b)
            .filter(|(x, _)| x.0 == opponent)
            .map(|(x, y)| (x.1, y.1))
            .collect();
        let better = pairs.iter().filter(|(x, y)| y > x).count();
        let worse = pairs.iter().filter(|(x, y)| y < x).count();
        let paired = comparison["paired"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["opponent"] == opponent)
            .unwrap();
        assert_eq!(paired["pairs"], 8);
        assert_eq!(
            (
                paired["other_better"].as_u64().unwrap() as usize,
                paired["other_worse"].as_u64().unwrap() as usize
            ),
            (better, worse)
        );
        assert!(paired["p_value"].as_f64().unwrap() <= 1.0);
    }
}

/// The comparison's differences name the system prompt and not the board labels.
fn check_prompts_differ_and_labels_do_not(comparison: &Value) {
    let differences: Vec<&str> = comparison["differences"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_str().unwrap())
        .collect();
    assert!(
        differences.iter().any(|d| d.starts_with("system prompt sha256")),
        "{differences:?}"
    );
    assert!(
        !differences.iter().any(|d| d.starts_with("board_labels")),
        "the same labels: {differences:?}"
    );
}

/// The agent's decisions are valued by default after the games (every legal move's
/// value in move-scores.jsonl, the cost said on stderr), leaving run.json, results.json
/// and the tables as they were without `--score-moves`; `--no-score-moves` values none.
#[test]
fn eval_values_the_agents_decisions_by_default_and_not_with_no_score_moves() {
    let server = playing_model();
    for (name, flag) in [("valued", None), ("unvalued", Some("--no-score-moves"))] {
        let dir = temp_dir(name);
        let mut args = vec![
            "eval",
            "--agent",
            "llm:stub-model",
            "--vs",
            "greedy",
            "--games",
            "1",
            "--opening-random",
            "40",
            "--log-dir",
            dir.to_str().unwrap(),
        ];
        args.extend(flag);
        let output = run_arena(&args, server.url.trim_start_matches("http://"));
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success(), "{stderr}");
        let read =
            |file: &str| -> Value { serde_json::from_str(&std::fs::read_to_string(dir.join(file)).unwrap()).unwrap() };
        assert_eq!(read("run.json")["score_moves"], Value::Null, "{name}");
        assert!(read("results.json").get("move_quality").is_none(), "{name}");
        assert!(
            !String::from_utf8_lossy(&output.stdout).contains("Move quality"),
            "{name}"
        );
        let scores = dir.join("move-scores.jsonl");
        if flag.is_some() {
            assert!(!scores.exists(), "--no-score-moves values nothing");
            assert!(!stderr.contains("valued "), "{stderr}");
            continue;
        }
        let lines: Vec<Value> = std::fs::read_to_string(&scores)
            .unwrap()
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect();
        assert!(!lines.is_empty());
        for line in &lines {
            let values = line["values"].as_array().unwrap();
            assert!(!values.is_empty(), "every legal move's value: {line}");
            assert!(values.iter().any(|v| v[0] == line["move"]), "{line}");
        }
        let said = format!("valued {} decisions of 2 game(s) in ", lines.len());
        assert!(stderr.contains(&said), "{stderr}");
    }
}
