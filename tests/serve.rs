//! `serve` over plain HTTP: paths that try to leave --runs, tokens, foreign hosts and
//! origins, body limits; a whole game against a scripted model played through the API,
//! its events in order and its log read by `replay`, `stats`, `rate` and `report`; a
//! client that leaves mid-stream and a model host that dies mid-game; hints on the
//! person's turn, logged with their move.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::support::serve::{arena_ok, client, game_events, play_through, simulating_model, start_game, Served};
use crate::support::temp_dir;
use reqwest::blocking::Client;
use reqwest::StatusCode;
use serde_json::{json, Value};

/// The start position, as a log writes it.
const START: &str = "---------------------------OX------XO---------------------------";

/// A run folder with one game log, like those `eval` writes (its game just started).
fn fake_run(runs: &Path, name: &str) -> PathBuf {
    let dir = runs.join(name);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("run.json"),
        json!({"command": "eval", "created_utc": "2026-01-01T00:00:00Z"}).to_string(),
    )
    .unwrap();
    let start = json!({"schema_version": 1, "time_ms": 0, "type": "game_start", "game": 1, "black": "greedy",
        "white": "random", "start_board": START, "opening": [], "seed": 1});
    std::fs::write(dir.join("game-0001.jsonl"), format!("{start}\n")).unwrap();
    dir
}

/// Sends `path` exactly as written (no client normalising `..`); the status and body.
fn raw_get(url: &str, path: &str) -> (u16, String) {
    let address = url.strip_prefix("http://").unwrap();
    let mut stream = std::net::TcpStream::connect(address).unwrap();
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut text = String::new();
    stream.read_to_string(&mut text).unwrap();
    let status = text.split_whitespace().nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    (status, text)
}

#[test]
fn paths_out_of_the_runs_folder_are_refused() {
    let base = temp_dir("serve", "paths");
    let runs = base.join("runs");
    let run = fake_run(&runs, "20260101-000000-eval");
    let outside = base.join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("secret.txt"), "SECRET-OUTSIDE").unwrap();
    std::fs::write(outside.join("run.json"), "{\"command\":\"SECRET-RUN\"}").unwrap();
    // A whole game log outside, by players whose names must never show.
    let secret_game = json!({"schema_version": 1, "time_ms": 0, "type": "game_start", "game": 1,
        "black": "SECRET-LOG", "white": "SECRET-LOG", "start_board": START, "opening": [], "seed": 1});
    std::fs::write(outside.join("game-0001.jsonl"), format!("{secret_game}\n")).unwrap();
    std::os::unix::fs::symlink(&outside, runs.join("link-out")).unwrap();
    std::os::unix::fs::symlink(outside.join("secret.txt"), run.join("leak.jsonl")).unwrap();
    std::os::unix::fs::symlink(outside.join("game-0001.jsonl"), run.join("game-0002.jsonl")).unwrap();
    let served = Served::start(&runs, "127.0.0.1:0", &[]);
    let http = client();
    let get = |path: &str| {
        let response = http.get(format!("{}{path}", served.url)).send().unwrap();
        (response.status(), response.text().unwrap())
    };
    let (status, body) = get("/runs/20260101-000000-eval/files/game-0001.jsonl");
    assert_eq!(status, StatusCode::OK);
    assert!(body.contains("game_start"));
    for path in [
        "/runs/..%2F..%2Foutside/files/secret.txt",
        "/runs/%2e%2e/files/secret.txt",
        "/runs/20260101-000000-eval/files/..%2F..%2Foutside%2Fsecret.txt",
        "/runs/20260101-000000-eval/files/%2E%2E%2Foutside%2Fsecret.txt",
        "/runs/20260101-000000-eval/files/.%2e",
        "/runs/link-out/files/secret.txt",
        "/runs/20260101-000000-eval/files/leak.jsonl",
        "/runs/link-out/report",
        "/api/runs/link-out",
        "/api/runs/..%2Foutside",
    ] {
        let (status, body) = get(path);
        assert!(
            status == StatusCode::NOT_FOUND || status == StatusCode::BAD_REQUEST,
            "{path}: {status}"
        );
        assert!(!body.contains("SECRET"), "{path}: {body}");
    }
    for path in [
        "/runs/../outside/files/secret.txt",
        "/runs/20260101-000000-eval/files/../../outside/secret.txt",
        "/runs/%2e%2e/%2e%2e/files/secret.txt",
    ] {
        let (status, text) = raw_get(&served.url, path);
        assert!(status == 404 || status == 400, "{path}: {status}");
        assert!(!text.contains("SECRET"), "{path}: {text}");
    }
    // The list and a followed run leave the links out too; the list says so.
    check_the_list_names_the_link_it_left_out(&get("/api/runs").1);
    for path in ["/api/runs/20260101-000000-eval", "/runs/20260101-000000-eval/report"] {
        let (_, shown) = get(path);
        assert!(!shown.contains("SECRET"), "{path}: {shown}");
    }
    let rated = http
        .post(format!("{}/api/rate", served.url))
        .json(&json!({"runs": ["20260101-000000-eval"]}))
        .send()
        .unwrap()
        .text()
        .unwrap();
    assert!(!rated.contains("SECRET"), "{rated}");
    let follow = http
        .get(format!("{}/api/runs/20260101-000000-eval/follow", served.url))
        .send()
        .unwrap();
    let first = BufReader::new(follow)
        .lines()
        .map(Result::unwrap)
        .find(|l| l.starts_with("data:"))
        .unwrap();
    assert!(
        first.contains("game-0001.jsonl") && !first.contains("SECRET"),
        "{first}"
    );
}

/// `/api/runs`'s answer: the run inside, not the link out, and a note naming the link.
fn check_the_list_names_the_link_it_left_out(list: &str) {
    let list: Value = serde_json::from_str(list).unwrap();
    let names: Vec<&str> = list["runs"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["name"].as_str())
        .collect();
    assert!(
        names.contains(&"20260101-000000-eval") && !names.contains(&"link-out"),
        "{list}"
    );
    assert!(
        list["notes"][0]
            .as_str()
            .is_some_and(|n| n.starts_with("link-out is a link out of the runs folder")),
        "{list}"
    );
}

#[test]
fn a_token_is_checked_on_every_request() {
    let base = temp_dir("serve", "token");
    let runs = base.join("runs");
    fake_run(&runs, "20260101-000000-eval");
    let token = "correct-horse-battery-staple";
    let served = Served::start(&runs, "127.0.0.1:0", &["--token", token]);
    let http = client();
    let status = |request: reqwest::blocking::RequestBuilder| request.send().unwrap().status();
    for path in [
        "/",
        "/api/runs",
        "/assets/play.js",
        "/runs/20260101-000000-eval/files/game-0001.jsonl",
    ] {
        let url = format!("{}{path}", served.url);
        assert_eq!(
            status(http.get(&url)),
            StatusCode::UNAUTHORIZED,
            "{path} without a token"
        );
        assert_eq!(
            status(http.get(&url).bearer_auth("wrong-token-wrong-token")),
            StatusCode::UNAUTHORIZED
        );
        assert_eq!(
            status(http.get(format!("{url}?token=correct-horse-battery-stapl"))),
            StatusCode::UNAUTHORIZED
        );
        assert_eq!(status(http.get(&url).bearer_auth(token)), StatusCode::OK, "{path}");
        let cookie = format!("othello_arena_token={token}");
        assert_eq!(status(http.get(&url).header("Cookie", cookie)), StatusCode::OK);
    }
    // The printed address carries the token; the answer sets the cookie the page uses.
    let response = http.get(format!("{}/?token={token}", served.url)).send().unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let cookie = response.headers()["set-cookie"].to_str().unwrap().to_string();
    assert!(cookie.contains(token) && cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"));
    let moved = http
        .post(format!("{}/api/games", served.url))
        .json(&json!({"color": "black", "opponent": "greedy"}))
        .send()
        .unwrap();
    assert_eq!(moved.status(), StatusCode::UNAUTHORIZED);
}

#[test]
fn binding_beyond_loopback_generates_a_token() {
    let base = temp_dir("serve", "generated");
    let served = Served::start(&base.join("runs"), "0.0.0.0:0", &[]);
    let token = served.token.clone().expect("a generated token is printed");
    assert!(token.len() >= 32, "{token}");
    let http = client();
    assert_eq!(
        http.get(format!("{}/api/runs", served.url)).send().unwrap().status(),
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(
        http.get(format!("{}/api/runs", served.url))
            .bearer_auth(&token)
            .send()
            .unwrap()
            .status(),
        StatusCode::OK
    );
    // A short token is refused at start.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_othello-arena"))
        .args(["serve", "--bind", "0.0.0.0:0", "--token", "short"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--token"));
}

#[test]
fn foreign_hosts_origins_and_large_bodies_are_refused_and_headers_set() {
    let base = temp_dir("serve", "origin");
    let served = Served::start(&base.join("runs"), "127.0.0.1:0", &[]);
    let http = client();
    let page = http.get(format!("{}/", served.url)).send().unwrap();
    let csp = page.headers()["content-security-policy"].to_str().unwrap().to_string();
    assert!(
        csp.contains("script-src 'self'") && !csp.contains("unsafe-inline"),
        "{csp}"
    );
    assert_eq!(page.headers()["x-content-type-options"], "nosniff");
    let html = page.text().unwrap();
    assert!(
        !html.contains("<script>") && !html.contains("<style>"),
        "no inline code"
    );
    // A name rebound to 127.0.0.1 by another site.
    let rebound = http
        .get(format!("{}/api/runs", served.url))
        .header("Host", "evil.example")
        .send()
        .unwrap();
    assert_eq!(rebound.status(), StatusCode::FORBIDDEN);
    let cross = http
        .post(format!("{}/api/games", served.url))
        .header("Origin", "http://evil.example")
        .json(&json!({"color": "black", "opponent": "greedy"}))
        .send()
        .unwrap();
    assert_eq!(cross.status(), StatusCode::FORBIDDEN);
    let form = http
        .post(format!("{}/api/games", served.url))
        .header("Content-Type", "application/x-www-form-urlencoded")
        .body("color=black&opponent=greedy")
        .send()
        .unwrap();
    assert_eq!(form.status(), StatusCode::UNSUPPORTED_MEDIA_TYPE);
    let bad = http
        .post(format!("{}/api/games", served.url))
        .json(&json!({"color": "black", "opponent": "alphabeta:99"}))
        .send()
        .unwrap();
    assert_eq!(bad.status(), StatusCode::BAD_REQUEST);
    // Last: the server answers before reading such a body and closes the connection.
    let huge = json!({"color": "black", "opponent": "x".repeat(100_000)});
    let big = http
        .post(format!("{}/api/games", served.url))
        .json(&huge)
        .send()
        .unwrap();
    assert_eq!(big.status(), StatusCode::PAYLOAD_TOO_LARGE);
}

#[test]
fn a_game_against_a_model_streams_in_order_and_its_log_is_read_by_every_command() {
    let base = temp_dir("serve", "llm");
    let runs = base.join("runs");
    let model = simulating_model("");
    let served = Served::start(&runs, "127.0.0.1:0", &["--host", &model.url]);
    let http = client();
    let (id, run) = start_game(&http, &served.url, "white", "llm:stub");
    let events = play_through(&http, &served.url, id, "white", None);
    let end = events.last().unwrap();
    assert_eq!(end["kind"], "end", "{end}");
    check_the_models_first_turn(&events);
    // The page's score is the board's.
    let last_state = events.iter().rev().find(|e| e["kind"] == "state").unwrap();
    assert_eq!(last_state["black"], end["black"]);
    assert_eq!(last_state["white"], end["white"]);
    // A finished game refuses moves.
    let late = http
        .post(format!("{}/api/games/{id}/move", served.url))
        .json(&json!({"square": "a1", "ply": 3}))
        .send()
        .unwrap();
    assert_eq!(late.status(), StatusCode::CONFLICT);
    check_every_command_reads_the_log(&runs.join(&run), &base.join("report.html"));
    check_the_watch_pages_views(&http, &served.url, &run, &events);
}

/// The model's first turn: its reply with the tool call, the tool result, its answer,
/// the decision, then the move.
fn check_the_models_first_turn(events: &[Value]) {
    let kinds: Vec<&str> = events.iter().map(|e| e["kind"].as_str().unwrap()).collect();
    let first = kinds.iter().position(|k| *k == "llm_reply").unwrap();
    assert_eq!(
        &kinds[first..first + 5],
        ["llm_reply", "tool_result", "llm_reply", "decision", "state"]
    );
    assert!(events[first]["thinking"]
        .as_str()
        .unwrap()
        .starts_with("SIMULATE-THOUGHT"));
    assert_eq!(events[first]["tool_calls"][0]["name"], "simulate_move");
    assert!(events[first + 1]["content"].as_str().unwrap().contains("my_stones"));
    assert!(events[first + 2]["thinking"]
        .as_str()
        .unwrap()
        .starts_with("ANSWER-THOUGHT"));
    assert_eq!(events[first + 3]["source"], "llm");
}

/// The binary run with `args`, which must succeed: its stdout.
/// The served game's run folder `dir` holds run.json and the game's log, which
/// `replay`, `stats`, `rate` and `report` (to `report`) read.
fn check_every_command_reads_the_log(dir: &Path, report: &Path) {
    let log = dir.join("game-0001.jsonl");
    assert!(log.is_file() && dir.join("run.json").is_file());
    let replayed = arena_ok(&["replay", log.to_str().unwrap()]);
    assert!(replayed.contains("simulate_move"), "{replayed}");
    let stats = arena_ok(&["stats", dir.to_str().unwrap(), "--json"]);
    let stats: Value = serde_json::from_str(&stats).unwrap();
    assert_eq!(stats["groups"][0]["model"], "llm:stub");
    assert_eq!(stats["groups"][0]["opponent"], "human");
    assert_eq!(stats["groups"][0]["overall"]["games"], 1);
    let rated = arena_ok(&["rate", dir.to_str().unwrap(), "--anchor", "human=0"]);
    assert!(rated.contains("llm:stub"), "{rated}");
    arena_ok(&["report", dir.to_str().unwrap(), "-o", report.to_str().unwrap()]);
}

/// The watch page's views of run `run`, the game played with `events`: its plies, its
/// tables, its report and its rating.
fn check_the_watch_pages_views(http: &Client, url: &str, run: &str, events: &[Value]) {
    let shown: Value = http
        .get(format!("{url}/api/runs/{run}"))
        .send()
        .unwrap()
        .json()
        .unwrap();
    assert_eq!(
        shown["games"][0]["plies"].as_u64().unwrap() as usize,
        events.iter().filter(|e| e["kind"] == "state").count() - 1
    );
    assert_eq!(shown["tables"]["groups"][0]["model"], "llm:stub");
    let report = http.get(format!("{url}/runs/{run}/report")).send().unwrap();
    assert_eq!(report.status(), StatusCode::OK);
    let report = report.text().unwrap();
    assert!(report.contains("/assets/viewer.js") && !report.contains("<script>"));
    let rated: Value = http
        .post(format!("{url}/api/rate"))
        .json(&json!({"runs": [run]}))
        .send()
        .unwrap()
        .json()
        .unwrap();
    assert!(rated["text"].as_str().unwrap().contains("llm:stub"), "{rated}");
}

#[test]
fn the_server_outlives_a_client_that_leaves_and_a_model_host_that_dies() {
    let base = temp_dir("serve", "faults");
    let runs = base.join("runs");
    let model = simulating_model("");
    let served = Served::start(
        &runs,
        "127.0.0.1:0",
        &["--host", &model.url, "--max-retries", "0", "--timeout", "5"],
    );
    let http = client();
    let (id, run) = start_game(&http, &served.url, "black", "llm:stub");
    // A page that reads a few events and goes away mid-stream.
    let early = play_through(&http, &served.url, id, "black", Some(3));
    assert_eq!(early.len(), 3);
    // The host dies; the game goes on with the fallback, and the page is told why.
    model.kill();
    let events = play_through(&http, &served.url, id, "black", None);
    assert_eq!(events.last().unwrap()["kind"], "end", "{:?}", events.last());
    let errors: Vec<&Value> = events.iter().filter(|e| e["kind"] == "error").collect();
    assert!(!errors.is_empty());
    assert!(errors[0]["message"]
        .as_str()
        .unwrap()
        .contains("the model server failed"));
    let log = std::fs::read_to_string(runs.join(&run).join("game-0001.jsonl")).unwrap();
    assert!(
        log.contains("\"source\":\"fallback\""),
        "fallback moves are logged as such"
    );
    // Still serving.
    let listed = http.get(format!("{}/api/runs", served.url)).send().unwrap();
    assert_eq!(listed.status(), StatusCode::OK);
    // A new game against an engine still plays through.
    let (id, _) = start_game(&http, &served.url, "black", "greedy");
    let events = play_through(&http, &served.url, id, "black", None);
    assert_eq!(events.last().unwrap()["kind"], "end");
}

/// A game left open in the browser when the server is stopped (Ctrl-C, or SIGTERM from
/// a service manager): its log says it stopped, interrupted at the ply it reached,
/// rather than ending mid-game with no word (rate then counted nothing and said
/// nothing). SIGTERM once ended the process at once, its games' logs cut off.
#[test]
fn a_game_open_when_the_server_stops_is_logged_as_stopped() {
    for signal in ["-INT", "-TERM"] {
        let base = temp_dir("serve", &format!("stopped{signal}"));
        let runs = base.join("runs");
        let served = Served::start(&runs, "127.0.0.1:0", &[]);
        let http = client();
        let (_, run) = start_game(&http, &served.url, "black", "greedy");
        assert!(served.signal(signal).success(), "{signal}");
        let log = std::fs::read_to_string(runs.join(&run).join("game-0001.jsonl")).unwrap();
        let last: Value = serde_json::from_str(log.lines().last().unwrap()).unwrap();
        assert_eq!(
            (&last["type"], &last["reason"]),
            (&json!("game_stopped"), &json!("interrupted")),
            "{signal}: {log}"
        );
    }
}

#[test]
fn hints_value_each_legal_move_on_the_persons_turn_and_are_logged_before_the_move() {
    let base = temp_dir("serve", "hints");
    let runs = base.join("runs");
    let served = Served::start(&runs, "127.0.0.1:0", &[]);
    let http = client();
    let (id, run) = start_game(&http, &served.url, "black", "greedy");
    let (mut hinted, mut exact) = (0, 0);
    for event in game_events(&http, &served.url, id) {
        if event["kind"] == "end" || event["kind"] == "failed" {
            assert_eq!(event["kind"], "end", "{event}");
            break;
        }
        if !(event["kind"] == "state" && event["to_move"] == "black" && event["over"] == false) {
            continue;
        }
        if hinted == 0 {
            check_hints_only_for_the_board_by_a_valuing_engine(&http, &served.url, id, &event["ply"]);
        }
        let shown = hint(&http, &served.url, id, "reference:4:10", &event["ply"]);
        assert_eq!(shown.status(), StatusCode::OK);
        let shown: Value = shown.json().unwrap();
        check_a_hint(&shown, &event, hinted == 0);
        // Asked again: the same hint, logged once (the log check below counts them).
        let again: Value = hint(&http, &served.url, id, "reference:4:10", &event["ply"])
            .json()
            .unwrap();
        assert_eq!(again, shown);
        exact += usize::from(shown["exact"] == true);
        // Play the hint's best move.
        let values = shown["values"].as_array().unwrap();
        let best = values
            .iter()
            .max_by(|a, b| hint_value(a).total_cmp(&hint_value(b)))
            .unwrap();
        let played = http
            .post(format!("{}/api/games/{id}/move", served.url))
            .json(&json!({"square": best["move"], "ply": event["ply"]}))
            .send()
            .unwrap();
        assert_eq!(played.status(), StatusCode::NO_CONTENT);
        hinted += 1;
    }
    assert!(hinted > 10 && exact > 0, "{hinted} hints, {exact} exact");
    let log = runs.join(&run).join("game-0001.jsonl");
    check_each_hint_is_logged_before_its_move(&log, hinted);
    // The readers pass over hints.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_othello-arena"))
        .args(["replay", log.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

/// Asks game `id` for `engine`'s hint at `ply`.
fn hint(http: &Client, url: &str, id: u64, engine: &str, ply: &Value) -> reqwest::blocking::Response {
    http.post(format!("{url}/api/games/{id}/hint"))
        .json(&json!({"engine": engine, "ply": ply}))
        .send()
        .unwrap()
}

/// A hint's value of one move.
fn hint_value(v: &Value) -> f64 {
    v["value"].as_f64().unwrap()
}

/// Hints come only for the position on the board (at `ply`), by an engine that values
/// each move and is shallow enough for a browser game.
fn check_hints_only_for_the_board_by_a_valuing_engine(http: &Client, url: &str, id: u64, ply: &Value) {
    let stale = hint(http, url, id, "reference", &json!(ply.as_u64().unwrap() + 2));
    assert_eq!(stale.status(), StatusCode::CONFLICT);
    let greedy = hint(http, url, id, "greedy", ply);
    assert_eq!(greedy.status(), StatusCode::BAD_REQUEST);
    assert!(greedy.text().unwrap().contains("gives no value per move"));
    let deep = hint(http, url, id, "reference:12:18", ply);
    assert_eq!(deep.status(), StatusCode::BAD_REQUEST);
    assert!(deep.text().unwrap().contains("too deep for a browser game"));
}

/// The hint `shown` for the state `event`: one value per legal move in the board's
/// order (all one value on the `first` position), exact with the depth of the empties
/// from 10 empties on.
fn check_a_hint(shown: &Value, event: &Value, first: bool) {
    let values = shown["values"].as_array().unwrap();
    let squares: Vec<&str> = values.iter().map(|v| v["move"].as_str().unwrap()).collect();
    let legal: Vec<&str> = event["legal"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap())
        .collect();
    assert_eq!(squares, legal, "one value per legal move, in the board's order");
    if first {
        // The four first moves are one move up to symmetry: one value.
        assert!(
            values.iter().all(|v| hint_value(v) == hint_value(&values[0])),
            "{shown}"
        );
    }
    let empties = event["board"].as_str().unwrap().matches('-').count() as u64;
    assert_eq!(shown["exact"], empties <= 10, "{shown}");
    if shown["exact"] == true {
        assert_eq!(shown["depth"], empties);
    }
}

/// Each of the `hinted` hints is logged once, just before the person's move at its ply.
fn check_each_hint_is_logged_before_its_move(log: &Path, hinted: usize) {
    let log = std::fs::read_to_string(log).unwrap();
    let lines: Vec<Value> = log.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let hints: Vec<usize> = (0..lines.len()).filter(|&i| lines[i]["type"] == "hint").collect();
    assert_eq!(hints.len(), hinted);
    for i in hints {
        let (hint, next) = (&lines[i], &lines[i + 1]);
        assert_eq!(next["type"], "move", "{next}");
        assert_eq!(
            (&next["ply"], &next["color"], &next["player"]),
            (&hint["ply"], &hint["color"], &hint["player"])
        );
        assert_eq!(hint["engine"], "reference:4:10");
        assert!(hint["values"]
            .as_array()
            .unwrap()
            .iter()
            .any(|v| v["move"] == next["move"]));
    }
}

#[test]
fn connections_beyond_the_limit_wait_for_one_to_close() {
    let base = temp_dir("serve", "connections");
    let runs = base.join("runs");
    fake_run(&runs, "20260101-000000-eval");
    let served = Served::start(&runs, "127.0.0.1:0", &["--max-connections", "2"]);
    // Two pages following a run hold both connections.
    let follow = || {
        let response = client()
            .get(format!("{}/api/runs/20260101-000000-eval/follow", served.url))
            .send()
            .unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        response
    };
    let (first, _second) = (follow(), follow());
    let quick = crate::support::http_client(Duration::from_millis(700));
    let url = format!("{}/api/runs", served.url);
    assert!(quick.get(&url).send().is_err(), "a third connection waits");
    drop(first);
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        if let Ok(response) = quick.get(&url).send() {
            assert_eq!(response.status(), StatusCode::OK);
            break;
        }
        assert!(std::time::Instant::now() < deadline, "no connection was freed");
    }
}

/// A client that never finishes its request's headers loses its connection after
/// --header-timeout, so such clients cannot hold every slot (before the token check,
/// no token is needed to try).
#[test]
fn a_connection_that_never_finishes_its_headers_is_closed() {
    use std::io::{Read, Write};
    let base = temp_dir("serve", "header-timeout");
    let runs = base.join("runs");
    fake_run(&runs, "20260101-000000-eval");
    let served = Served::start(
        &runs,
        "127.0.0.1:0",
        &["--max-connections", "1", "--header-timeout", "1"],
    );
    let address = served.url.trim_start_matches("http://").to_string();
    let mut slow = std::net::TcpStream::connect(&address).unwrap();
    slow.write_all(b"GET /api/runs HTTP/1.1\r\nHost: ").unwrap();
    slow.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let start = std::time::Instant::now();
    let mut answer = Vec::new();
    let _ = slow.read_to_end(&mut answer);
    assert!(start.elapsed() < Duration::from_secs(5), "closed after about a second");
    // The one slot is free again: a whole request is served.
    let response = client().get(format!("{}/api/runs", served.url)).send().unwrap();
    assert_eq!(response.status(), StatusCode::OK);
}

/// Limits a machine cannot honour are refused before anything listens (a huge
/// `--max-connections` used to panic inside tokio after "serving" was printed).
#[test]
fn serve_limits_out_of_range_are_refused_before_it_listens() {
    for (flag, value) in [
        ("--max-connections", "18446744073709551615"),
        ("--max-connections", "0"),
        ("--max-games", "100000"),
    ] {
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_othello-arena"))
            .args(["serve", "--bind", "127.0.0.1:0", flag, value])
            .output()
            .expect("the binary runs");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{flag} {value}: {stderr}");
        assert!(stderr.contains("give 1 to 1024"), "{flag} {value}: {stderr}");
        assert!(!String::from_utf8_lossy(&output.stdout).contains("serving"));
    }
}

/// A port another process holds is reported with the address and the flag that moves
/// the server, before anything is printed as served.
#[test]
fn a_taken_port_names_the_address_and_the_flag() {
    let holder = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = holder.local_addr().unwrap().to_string();
    let runs = temp_dir("serve", "taken-port");
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_othello-arena"))
        .args(["serve", "--bind", &address, "--runs", runs.to_str().unwrap()])
        .output()
        .expect("the binary runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_ne!(output.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains(&format!("cannot listen on {address}")) && stderr.contains("choose another --bind"),
        "{stderr}"
    );
    assert!(!String::from_utf8_lossy(&output.stdout).contains("serving"));
}

/// A result bundle in the runs folder is read as its runs: listed as `FILE:RUN`, shown,
/// its files served, followed, reported and rated beside a run folder; a name that is
/// not one of its runs, and a file that starts as gzip but is no bundle (named in the
/// listing's notes), are refused.
#[test]
fn a_bundle_in_the_runs_folder_is_read_as_its_runs() {
    let base = temp_dir("serve", "bundles");
    let runs = base.join("runs");
    std::fs::create_dir_all(&runs).unwrap();
    let docs = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs");
    std::fs::copy(docs.join("leaderboard-2026-12-07.tar.gz"), runs.join("board.tar.gz")).unwrap();
    std::fs::write(runs.join("broken.tgz"), b"\x1f\x8bnot a bundle").unwrap();
    fake_run(&runs, "20260101-000000-eval");
    let served = Served::start(&runs, "127.0.0.1:0", &[]);
    let http = client();
    let get = |path: &str| http.get(format!("{}{path}", served.url)).send().unwrap();
    let list: Value = get("/api/runs").json().unwrap();
    let names: Vec<&str> = list["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    let run = "board.tar.gz:leaderboard-2026-12-07";
    assert!(
        names.contains(&run) && names.contains(&"20260101-000000-eval"),
        "{list}"
    );
    let notes = list["notes"].to_string();
    assert!(
        notes.contains("broken.tgz") && notes.contains("othello-arena verify broken.tgz"),
        "{notes}"
    );
    let shown: Value = get(&format!("/api/runs/{run}")).json().unwrap();
    assert_eq!(shown["games"].as_array().unwrap().len(), 32, "{shown}");
    assert_eq!(shown["run"]["command"], "tournament");
    let log = get(&format!("/runs/{run}/files/game-0001.jsonl")).text().unwrap();
    assert!(log.starts_with("{\"schema_version\":1"), "{log}");
    let report = get(&format!("/runs/{run}/report"));
    assert_eq!(report.status(), StatusCode::OK);
    let rated: Value = http
        .post(format!("{}/api/rate", served.url))
        .json(&json!({"runs": [run, "20260101-000000-eval"]}))
        .send()
        .unwrap()
        .json()
        .unwrap();
    let text = rated["text"].as_str().unwrap_or_default();
    assert!(text.contains("llm:qwen2.5-coder-0.5b@direct-json-legal"), "{rated}");
    for refused in [
        "board.tar.gz:nope",
        "broken.tgz:x",
        "board.tar.gz:leaderboard-2026-12-07%2F..%2F..",
    ] {
        let status = get(&format!("/api/runs/{refused}")).status();
        assert!(status.is_client_error(), "{refused}: {status}");
    }
    let (status, _) = raw_get(&served.url, &format!("/runs/{run}/files/..%2Frun.json"));
    assert_eq!(status, 400, "a file name that is not plain");
    // A bundle taken out of the folder is no longer listed.
    std::fs::remove_file(runs.join("board.tar.gz")).unwrap();
    let list: Value = get("/api/runs").json().unwrap();
    assert!(!list.to_string().contains("board.tar.gz"), "{list}");
}
