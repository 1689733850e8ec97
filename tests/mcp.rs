//! `othello-arena mcp` driven over stdio: by hand-written JSON-RPC lines here (the
//! protocol, the bounds, the errors, the logs and the tools that read them), and by
//! the official Python MCP SDK in `real_client` (ignored unless its virtual
//! environment is given; CI makes it with `scripts/mcp-client.sh`:
//! `OTHELLO_ARENA_MCP_PYTHON=$(scripts/mcp-client.sh setup | tail -n 1) cargo test
//! --test integration mcp:: -- --ignored`).

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Output, Stdio};

use crate::support::mcp_server;
use record::{read_game_log, Event, MoveSource, StopReason};
use serde_json::{json, Value};

const BIN: &str = env!("CARGO_BIN_EXE_othello-arena");

/// The server as a child process, spoken to one JSON-RPC line at a time.
struct Session {
    child: Child,
    input: Option<ChildStdin>,
    output: BufReader<ChildStdout>,
    next_id: u64,
}

impl Session {
    /// Starts `mcp` with `args`, logging into `dir`, and shakes hands as `client`.
    fn start(dir: &Path, args: &[&str], client: &str) -> Session {
        let (child, input, output) = mcp_server(dir, args, Stdio::inherit());
        let mut session = Session {
            child,
            input,
            output,
            next_id: 1,
        };
        let hello = session.request(
            "initialize",
            json!({
                "protocolVersion": "2024-11-05",
                "capabilities": {},
                "clientInfo": { "name": client, "version": "1.0" }
            }),
        );
        assert_eq!(hello["result"]["serverInfo"]["name"], "othello-arena", "{hello}");
        session.send(&json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }));
        session
    }

    fn send(&mut self, message: &Value) {
        let input = self.input.as_mut().expect("the session is open");
        writeln!(input, "{message}").expect("the server reads");
        input.flush().expect("the server reads");
    }

    /// Sends a request and returns the response with its id.
    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }));
        loop {
            let mut line = String::new();
            let read = self.output.read_line(&mut line).expect("the server answers");
            assert!(read > 0, "the server closed stdout before answering {method}");
            let message: Value = serde_json::from_str(&line).expect("each line is JSON");
            if message["id"] == json!(id) {
                return message;
            }
        }
    }

    /// Calls `tool`; the result, or the error object.
    fn call(&mut self, tool: &str, arguments: Value) -> Value {
        let response = self.request("tools/call", json!({ "name": tool, "arguments": arguments }));
        match response.get("result") {
            Some(result) => result.clone(),
            None => response["error"].clone(),
        }
    }

    /// Plays the first legal move until the game is over; the last state.
    fn play_out(&mut self, id: u64, mut state: Value) -> Value {
        for _ in 0..64 {
            if state["over"] == json!(true) {
                return state;
            }
            let coord = state["legal_moves"][0]
                .as_str()
                .expect("a legal move while not over")
                .to_string();
            let result = self.call("play_move", json!({ "game_id": id, "coord": coord }));
            assert_eq!(result["isError"], json!(false), "{result}");
            state = result["structuredContent"].clone();
        }
        panic!("game {id} did not end: {state}");
    }

    /// Closes stdin (the client goes away) and waits for the server to exit.
    fn close(mut self) {
        drop(self.input.take());
        let status = self.child.wait().expect("the server exits");
        assert!(status.success(), "the server exited with {status}");
    }
}

fn temp_dir(name: &str) -> PathBuf {
    crate::support::temp_dir("mcp", name)
}

/// The run folder of a server started with `--log-dir dir`: `dir` itself, as in eval.
fn run_folder(dir: &Path) -> PathBuf {
    assert!(
        dir.join("run.json").is_file(),
        "--log-dir {} is the run's folder",
        dir.display()
    );
    dir.to_path_buf()
}

fn arena(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().expect("the binary runs")
}

/// Asserts that `args` succeeds; its stdout.
fn arena_ok(args: &[&str]) -> String {
    let out = arena(args);
    assert!(
        out.status.success(),
        "{args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A state's fields that every state carries.
fn check_state(state: &Value) {
    for key in ["game_id", "board", "to_move", "your_color", "legal_moves", "over"] {
        assert!(state.get(key).is_some(), "{key} missing from {state}");
    }
    assert_eq!(state["board"].as_str().map(str::len), Some(64), "{state}");
}

#[test]
fn a_client_plays_whole_games_that_the_tools_read() {
    let dir = temp_dir("whole-games");
    let mut session = Session::start(&dir, &["--opponent", "random", "--opponent", "greedy"], "hand client");
    let tools = session.request("tools/list", json!({}));
    let names: Vec<&str> = tools["result"]["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    // Declared once by rmcp's tool router, which lists them by name.
    assert_eq!(names, ["get_state", "new_game", "play_move", "resign", "simulate_move"]);
    let prompt = session.request("prompts/get", json!({ "name": "system" }));
    assert!(prompt["result"]["messages"][0]["content"]["text"]
        .as_str()
        .is_some_and(|t| t.contains("simulate_move")));
    for (color, opponent) in [("black", "random"), ("white", "greedy")] {
        let started = session.call("new_game", json!({ "color": color, "opponent": opponent }));
        let state = started["structuredContent"].clone();
        check_state(&state);
        assert_eq!(state["your_color"], color);
        assert!(started["content"][0]["text"]
            .as_str()
            .is_some_and(|t| t.contains("a b c d e f g h")));
        let id = state["game_id"].as_u64().expect("an id");
        let tried = session.call(
            "simulate_move",
            json!({ "game_id": id, "coord": state["legal_moves"][0] }),
        );
        assert!(tried["structuredContent"]["opponent_valid_moves"].is_array(), "{tried}");
        // One shape per key: `board` is 64 characters in every result, the drawing
        // is `board_text`.
        let board = tried["structuredContent"]["board"].as_str().unwrap_or_default();
        assert!(board.len() == 64 && board.chars().all(|c| "XO-".contains(c)), "{tried}");
        assert_ne!(board, state["board"].as_str().unwrap(), "the board after the move");
        assert!(tried["structuredContent"]["board_text"]
            .as_str()
            .is_some_and(|t| t.contains("a b c d e f g h")));
        let end = session.play_out(id, state);
        check_state(&end);
        assert!(
            ["win", "loss", "draw"].contains(&end["result"].as_str().unwrap_or("")),
            "{end}"
        );
        assert!(end["discs"]["black"].is_u64(), "{end}");
    }
    session.close();
    let run = run_folder(&dir);
    let run_json: Value = serde_json::from_str(&std::fs::read_to_string(run.join("run.json")).unwrap()).unwrap();
    assert_eq!(run_json["command"], "mcp");
    assert_eq!(run_json["client"], json!({ "name": "hand client", "version": "1.0" }));
    assert_eq!(run_json["players"][0]["spec"], "mcp:hand-client-1.0");
    let log = read_game_log(&run.join("game-0002.jsonl")).expect("a readable log");
    let calls = log.iter().filter(|r| matches!(r.event, Event::ToolCall(_))).count();
    let moves = log
        .iter()
        .filter(|r| matches!(&r.event, Event::Move(m) if m.source == MoveSource::Llm))
        .count();
    assert!(calls > moves && moves > 0, "{calls} calls, {moves} moves");
    assert!(matches!(log.last().map(|r| &r.event), Some(Event::GameEnd(_))));
    read_back(&run);
}

/// `replay`, `stats`, `rate --ladder`, `report` and `export` read the run.
fn read_back(run: &Path) {
    let run_arg = run.to_str().expect("a UTF-8 path");
    let game = run.join("game-0001.jsonl");
    // The replay shows what the client was sent and called, in the labels it was sent.
    let replayed = arena_ok(&["replay", game.to_str().unwrap()]);
    assert!(
        replayed.contains("Black to move") && !replayed.contains("黒の手番"),
        "{replayed}"
    );
    assert!(
        replayed.contains("mcp tool new_game") && replayed.contains("mcp tool play_move"),
        "{replayed}"
    );
    assert!(
        replayed.contains("by MCP tool calls") && replayed.contains("tokens not measured"),
        "{replayed}"
    );
    let replayed: Value = serde_json::from_str(&arena_ok(&["replay", game.to_str().unwrap(), "--json"])).unwrap();
    assert!(
        replayed["plies"][0]["tool_calls"][0]["tool"] == "new_game",
        "{}",
        replayed["plies"][0]
    );
    let stats = arena_ok(&["stats", run_arg]);
    assert!(stats.contains("mcp:hand-client-1.0"), "{stats}");
    assert!(
        stats.contains("tokens per move         not measured") && stats.contains("model answers           not read"),
        "{stats}"
    );
    let rated = arena_ok(&["rate", run_arg, "--ladder"]);
    assert!(rated.contains("mcp:hand-client-1.0"), "{rated}");
    let report = run.with_extension("html");
    arena_ok(&["report", run_arg, "-o", report.to_str().unwrap()]);
    let ggf = arena_ok(&["export", run_arg]);
    assert!(ggf.contains("mcp:hand-client-1.0"), "{ggf}");
    // serve's watch page: the run and its games, with the tool calls left out.
    let served = crate::support::serve::Served::start(run.parent().unwrap(), "127.0.0.1:0", &[]);
    let name = run.file_name().unwrap().to_str().unwrap();
    let shown: Value = crate::support::serve::client()
        .get(format!("{}/api/runs/{name}", served.url))
        .send()
        .unwrap()
        .json()
        .unwrap();
    assert_eq!(shown["games"][1]["white"], "mcp:hand-client-1.0", "{shown}");
}

#[test]
fn illegal_moves_fall_back_or_forfeit_and_a_disconnect_stops_the_game() {
    let dir = temp_dir("invalid");
    let mut session = Session::start(&dir, &["--max-invalid", "2", "--name", "tester"], "x");
    let state = session.call("new_game", json!({ "color": "black" }))["structuredContent"].clone();
    let first = session.call("play_move", json!({ "game_id": 1, "coord": "a1" }));
    assert_eq!(first["isError"], json!(true), "{first}");
    assert!(first["structuredContent"]["error"]
        .as_str()
        .is_some_and(|e| e.contains("legal moves")));
    // The second illegal move at the ply: the fallback (random) moves for the client,
    // and the answer says both (it used to read as a success): an error naming the
    // illegal move, the fallback's move in the text and the structured content.
    let second = session.call("play_move", json!({ "game_id": 1, "coord": "h8" }));
    assert_eq!(second["isError"], json!(true), "{second}");
    let content = &second["structuredContent"];
    assert_ne!(content["moves"], state["moves"]);
    let fallback_move = content["fallback_move"].as_str().expect("the fallback's move named");
    assert_eq!(
        content["moves"][state["moves"].as_array().unwrap().len()],
        fallback_move,
        "{second}"
    );
    assert!(
        content["error"]
            .as_str()
            .is_some_and(|e| e.starts_with("h8 is not a legal move")),
        "{second}"
    );
    let text = second["content"][0]["text"].as_str().unwrap_or_default();
    assert!(
        text.contains(&format!("the fallback engine played {fallback_move} for you")),
        "{text}"
    );
    let resigned = session.call("resign", json!({ "game_id": 1 }));
    assert_eq!(resigned["structuredContent"]["result"], "loss", "{resigned}");
    assert_eq!(resigned["structuredContent"]["forfeit"], "black");
    let after = session.call("play_move", json!({ "game_id": 1, "coord": "d3" }));
    assert!(
        after["message"].as_str().is_some_and(|m| m.contains("is over")),
        "{after}"
    );
    session.call("new_game", json!({}));
    let finished = session.call("get_state", json!({ "game_id": 1 }));
    assert_eq!(
        finished["structuredContent"]["result"], "loss",
        "a finished game stays answerable: {finished}"
    );
    session.close();
    let run = run_folder(&dir);
    let first = read_game_log(&run.join("game-0001.jsonl")).expect("a readable log");
    let fallback = first
        .iter()
        .any(|r| matches!(&r.event, Event::Move(m) if m.source == MoveSource::Fallback));
    assert!(fallback, "the fallback's move is logged as such");
    let answers_to_h8 = first
        .iter()
        .filter(|r| matches!(&r.event, Event::ToolCall(c) if c.arguments["coord"] == "h8"))
        .count();
    assert_eq!(answers_to_h8, 1, "one call, one logged answer");
    assert!(first
        .iter()
        .any(|r| matches!(&r.event, Event::Forfeit(f) if f.player == "mcp:tester")));
    let second = read_game_log(&run.join("game-0002.jsonl")).expect("a whole log");
    let stopped = second.last().map(|r| &r.event);
    assert!(
        matches!(stopped, Some(Event::GameStopped(s)) if s.reason == StopReason::Disconnected),
        "{stopped:?}"
    );
    let rated = arena_ok(&["rate", run.to_str().unwrap()]);
    assert!(rated.contains("mcp:tester"), "{rated}");
}

/// An `llm:` opponent whose model server fails (a port nobody listens on stands in for
/// a server that died) does not end the client's game: its fallback engine moves, and
/// the move is logged with source `fallback` and the reason, as on the play page (one
/// engine plays both faces' games).
#[test]
fn an_opponent_model_whose_server_fails_moves_by_its_fallback() {
    let dir = temp_dir("dead-model");
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|free| free.local_addr())
        .expect("a free port")
        .port();
    let host = format!("127.0.0.1:{port}");
    let args = ["--opponent", "llm:m", "--host", &host, "--max-retries", "0"];
    let mut session = Session::start(&dir, &args, "x");
    // The opponent holds black: it moves (by its fallback) before the client's turn.
    let started = session.call("new_game", json!({ "color": "white" }));
    assert_eq!(started["isError"], json!(false), "{started}");
    let state = started["structuredContent"].clone();
    assert_eq!(state["moves"].as_array().map(Vec::len), Some(1), "{state}");
    let last = session.play_out(1, state);
    assert!(last["result"].is_string(), "the game is played to its end: {last}");
    session.close();
    let log = read_game_log(&run_folder(&dir).join("game-0001.jsonl")).expect("a readable log");
    let opponent_moves: Vec<_> = log
        .iter()
        .filter_map(|r| match &r.event {
            Event::Move(m) if m.player == "llm:m" && m.mv.to_string() != "pass" => Some(m),
            _ => None,
        })
        .collect();
    assert!(!opponent_moves.is_empty());
    for mv in opponent_moves {
        assert_eq!(mv.source, MoveSource::Fallback, "{mv:?}");
        let reason = mv.agent.as_ref().and_then(|a| a.fallback_reason.as_deref());
        assert!(
            reason.is_some_and(|r| r.contains("the model server failed")),
            "{reason:?}"
        );
    }
}

/// Blind play: with `--legal-moves hidden` no state, tool description, simulate_move
/// result or error names the client's legal moves, and run.json records the setting.
#[test]
fn hidden_legal_moves_are_named_nowhere() {
    let dir = temp_dir("hidden");
    let mut session = Session::start(&dir, &["--legal-moves", "hidden", "--max-invalid", "2"], "blind");
    let tools = session.request("tools/list", json!({}));
    let listed = tools["result"]["tools"].to_string();
    assert!(listed.contains("not your legal moves"), "{listed}");
    assert!(!listed.contains("your legal moves, and"), "{listed}");
    let state = session.call("new_game", json!({ "color": "black" }));
    let mut said = vec![state.clone()];
    assert!(state["structuredContent"].get("legal_moves").is_none(), "{state}");
    said.push(session.call("simulate_move", json!({ "game_id": 1, "coord": "d3" })));
    said.push(session.call("simulate_move", json!({ "game_id": 1, "coord": "a1" })));
    let refused = session.call("play_move", json!({ "game_id": 1, "coord": "a1" }));
    assert_eq!(refused["isError"], json!(true), "{refused}");
    assert_eq!(
        refused["structuredContent"]["error"], "a1 is not a legal move here",
        "{refused}"
    );
    said.push(refused);
    said.push(session.call("play_move", json!({ "game_id": 1, "coord": "d3" })));
    said.push(session.call("get_state", json!({ "game_id": 1 })));
    for answer in &said {
        let text = answer.to_string().to_lowercase();
        for leak in ["legal moves:", "legal_moves", "valid_moves"] {
            assert!(!text.contains(leak), "{leak} in {answer}");
        }
    }
    session.close();
    let run: Value =
        serde_json::from_str(&std::fs::read_to_string(run_folder(&dir).join("run.json")).unwrap()).unwrap();
    assert_eq!(run["legal_moves"], "hidden", "{run}");
    // Its replay draws the boards as the client saw them: no list of legal moves.
    let game = run_folder(&dir).join("game-0001.jsonl");
    let replayed = arena_ok(&["replay", game.to_str().unwrap()]);
    assert!(
        !replayed.contains("Legal moves:") && replayed.contains("mcp tool simulate_move"),
        "{replayed}"
    );
}

#[test]
fn bad_calls_get_errors_that_name_the_problem() {
    let dir = temp_dir("bad-calls");
    let mut session = Session::start(&dir, &["--max-games", "1"], "x");
    let message = |value: Value| value["message"].as_str().unwrap_or_default().to_string();
    assert!(message(session.call("get_state", json!({ "game_id": 7 }))).contains("no game 7"));
    session.call("new_game", json!({ "color": "white" }));
    let cases = [
        ("get_state", json!({ "game_id": 9 }), "no game 9"),
        ("get_state", json!({ "game_id": "one" }), "bad arguments for get_state"),
        ("play_move", json!({ "game_id": 1 }), "missing field `coord`"),
        (
            "play_move",
            json!({ "game_id": 1, "coord": "d3", "extra": 1 }),
            "unknown field",
        ),
        (
            "play_move",
            json!({ "game_id": 1, "coord": "x".repeat(500) }),
            "past the limit",
        ),
        ("new_game", json!({ "color": "red" }), "bad arguments for new_game"),
        ("new_game", json!({ "opponent": "alphabeta:12" }), "not offered here"),
        ("new_game", json!({}), "games are open"),
        ("castle", json!({}), "unknown tool"),
    ];
    for (tool, arguments, expected) in cases {
        let got = message(session.call(tool, arguments.clone()));
        assert!(got.contains(expected), "{tool} {arguments}: {got:?}");
    }
    let bad_square = session.call("simulate_move", json!({ "game_id": 1, "coord": "z9" }));
    assert_eq!(bad_square["isError"], json!(true), "{bad_square}");
    // The calls one ply answers are bounded (so are the bytes it logs).
    let mut last = Value::Null;
    for _ in 0..arena::MAX_CALLS_PER_PLY {
        last = session.call("get_state", json!({ "game_id": 1 }));
    }
    assert!(message(last).contains("the most one ply takes"));
    session.close();
}

/// The official Python MCP SDK as the client (tests/mcp/client.py): whole games on
/// both colours against random and greedy, simulate_move, an illegal move, the
/// fallback, a forfeit, bad calls, a disconnect; then `rate --ladder` and `replay`
/// read the run. Needs `OTHELLO_ARENA_MCP_PYTHON`, the python of a virtual environment
/// with the `mcp` package (`scripts/mcp-client.sh setup` prints it).
#[test]
#[ignore = "needs the Python MCP SDK: OTHELLO_ARENA_MCP_PYTHON=$(scripts/mcp-client.sh setup | tail -n 1)"]
fn real_client() {
    let python = std::env::var("OTHELLO_ARENA_MCP_PYTHON").expect("OTHELLO_ARENA_MCP_PYTHON names the SDK's python");
    let dir = temp_dir("real-client");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp/client.py");
    let out = Command::new(python)
        .arg(script)
        .arg(BIN)
        .arg(&dir)
        .output()
        .expect("python runs");
    assert!(
        out.status.success(),
        "the client failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let seen: Value = serde_json::from_slice(&out.stdout).expect("the client prints JSON");
    assert_eq!(
        seen["tools"],
        json!(["get_state", "new_game", "play_move", "resign", "simulate_move"])
    );
    assert_eq!(seen["games"].as_array().map(Vec::len), Some(4), "{seen}");
    assert_eq!(seen["illegal_is_error"], json!(true));
    assert_eq!(seen["fallback_moved"], json!(true));
    assert_eq!(seen["resigned"], "loss");
    assert!(
        seen["errors"][0].as_str().is_some_and(|e| e.contains("no game 999")),
        "{seen}"
    );
    let run = run_folder(&dir);
    let last = read_game_log(&run.join("game-0006.jsonl")).expect("a whole log");
    assert!(matches!(
        last.last().map(|r| &r.event),
        Some(Event::GameStopped(s)) if s.reason == StopReason::Disconnected
    ));
    let forfeit = read_game_log(&run.join("game-0005.jsonl")).expect("a readable log");
    assert!(forfeit.iter().any(|r| matches!(&r.event, Event::Forfeit(_))));
    let rated = arena_ok(&["rate", run.to_str().unwrap(), "--ladder"]);
    assert!(rated.contains("mcp:sdk-client-2.3"), "{rated}");
    for game in 1..=5 {
        arena_ok(&["replay", run.join(format!("game-{game:04}.jsonl")).to_str().unwrap()]);
    }
}

/// `--log-dir` is the run's own folder and `--runs` a folder of runs (a new run folder
/// under it), as in eval and serve; `--log-dir` naming a folder that already holds runs
/// keeps its old meaning with a note; a bad one is refused before serving.
#[test]
fn log_dir_is_the_run_and_runs_the_folder_of_runs() {
    let dir = temp_dir("log-dir-meaning");
    let new_game = |args: &[&str]| {
        let mut child = Command::new(BIN)
            .arg("mcp")
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut session = Session {
            input: child.stdin.take(),
            output: BufReader::new(child.stdout.take().unwrap()),
            child,
            next_id: 1,
        };
        let hello = json!({ "protocolVersion": "2024-11-05", "capabilities": {}, "clientInfo": { "name": "c", "version": "1" } });
        session.request("initialize", hello);
        session.send(&json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }));
        session.call("new_game", json!({}));
        drop(session.input.take());
        session.child.wait_with_output().unwrap()
    };
    let runs = dir.join("runs");
    let under = new_game(&["--runs", runs.to_str().unwrap()]);
    assert!(under.status.success(), "{}", String::from_utf8_lossy(&under.stderr));
    let made: Vec<PathBuf> = std::fs::read_dir(&runs).unwrap().map(|e| e.unwrap().path()).collect();
    assert!(made.len() == 1 && made[0].join("run.json").is_file(), "{made:?}");

    let old = new_game(&["--log-dir", runs.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&old.stderr);
    assert!(
        old.status.success() && stderr.contains("note: --log-dir") && stderr.contains("--runs"),
        "{stderr}"
    );
    assert_eq!(std::fs::read_dir(&runs).unwrap().count(), 2);

    let own = dir.join("own");
    assert!(new_game(&["--log-dir", own.to_str().unwrap()]).status.success());
    assert!(own.join("run.json").is_file() && own.join("game-0001.jsonl").is_file());

    let file = dir.join("a-file");
    std::fs::write(&file, "").unwrap();
    for bad in [&file, &own] {
        let refused = arena(&["mcp", "--log-dir", bad.to_str().unwrap()]);
        let stderr = String::from_utf8_lossy(&refused.stderr);
        assert!(!refused.status.success(), "{stderr}");
        assert!(
            stderr.contains(&format!("bad --log-dir {}", bad.display()))
                && stderr.contains("give a new or empty folder"),
            "{stderr}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
