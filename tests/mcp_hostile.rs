//! `othello-arena mcp` under hostile JSON-RPC lines: messages before the handshake,
//! malformed and wrong-typed calls, over-long and non-ASCII squares, unknown games and
//! huge ids, two games at once; blind play (`--legal-moves hidden`) checked against
//! the legal squares of each position, never named by any answer or error.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Stdio};

use crate::support::mcp_server;
use game::othello::{Board, Color};
use serde_json::{json, Value};

/// The server as a child, spoken to in raw lines (no handshake of its own).
struct Raw {
    child: Child,
    input: Option<ChildStdin>,
    output: BufReader<ChildStdout>,
    /// The messages read before the last request's answer (other answers, errors).
    seen: Vec<Value>,
}

impl Raw {
    fn start(dir: &Path, args: &[&str]) -> Raw {
        let (child, input, output) = mcp_server(dir, args, Stdio::null());
        Raw {
            child,
            input,
            output,
            seen: Vec::new(),
        }
    }

    /// The server with its session under way: initialized, and told so.
    fn session(dir: &Path, args: &[&str]) -> Raw {
        let mut server = Raw::start(dir, args);
        server.initialize();
        server.line(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        server
    }

    fn line(&mut self, line: &str) {
        let input = self.input.as_mut().expect("open");
        writeln!(input, "{line}").expect("the server reads");
        input.flush().expect("the server reads");
    }

    /// Sends request `id` and returns its response.
    fn request(&mut self, id: u64, method: &str, params: Value) -> Value {
        self.line(&json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }).to_string());
        self.seen.clear();
        loop {
            let mut line = String::new();
            let read = self.output.read_line(&mut line).expect("the server answers");
            assert!(read > 0, "the server closed stdout before answering {method} {id}");
            let message: Value = serde_json::from_str(&line).expect("each line is JSON");
            if message["id"] == json!(id) {
                return message;
            }
            self.seen.push(message);
        }
    }

    fn initialize(&mut self) -> Value {
        let params = json!({
            "protocolVersion": "2024-11-05",
            "capabilities": {},
            "clientInfo": { "name": "hostile", "version": "1" }
        });
        self.request(1, "initialize", params)
    }

    fn close(mut self) {
        drop(self.input.take());
        let status = self.child.wait().expect("the server exits");
        assert!(status.success(), "the server exited with {status}");
    }
}

/// A notification or a stray response before `initialize` used to end the session:
/// the server exited at once, without a word, and the client's `initialize` was never
/// answered. They carry no id to answer; they are dropped and the session goes on.
#[test]
fn messages_before_initialize_that_are_not_requests_do_not_end_the_server() {
    let dir = crate::support::temp_dir("mcp-hostile", "before-initialize");
    let mut server = Raw::start(&dir, &[]);
    server.line(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    server.line(r#"{"jsonrpc":"2.0","id":77,"result":{}}"#);
    server.line("not json at all");
    let ping = server.request(5, "ping", json!({}));
    assert_eq!(ping["result"], json!({}), "{ping}");
    let hello = server.initialize();
    assert_eq!(hello["result"]["serverInfo"]["name"], "othello-arena", "{hello}");
    server.line(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    let tools = server.request(2, "tools/list", json!({}));
    assert_eq!(tools["result"]["tools"].as_array().map(Vec::len), Some(5), "{tools}");
    server.close();
    let _ = std::fs::remove_dir_all(&dir);
}

/// The legal squares of a state's position for the side to move (none when the game
/// is over).
fn legal_squares(state: &Value) -> Vec<String> {
    let (Some(board), Some(side)) = (state["board"].as_str(), state["to_move"].as_str()) else {
        return Vec::new();
    };
    if state["over"] == json!(true) || board.len() != 64 {
        return Vec::new();
    }
    let side = if side == "black" { Color::Black } else { Color::White };
    let board = Board::parse_squares(board, side).expect("a state's board parses");
    board.legal_moves().squares().map(|s| s.to_string()).collect()
}

/// The message of an answer: an error's, or a tool error's.
fn message(answer: &Value) -> String {
    let error = answer["error"]["message"].as_str();
    let tool = answer["result"]["structuredContent"]["error"].as_str();
    error.or(tool).unwrap_or_default().to_string()
}

/// Bad calls on two games at once in blind play: each gets an error (JSON-RPC or tool)
/// that says what to do, the server keeps serving, and no answer names two or more of
/// the position's legal squares (nor a "legal moves" list, nor the opponent's replies).
#[test]
fn bad_calls_in_blind_play_get_errors_with_the_fix_and_never_name_the_legal_moves() {
    let dir = crate::support::temp_dir("mcp-hostile", "blind");
    let mut server = Raw::session(&dir, &["--legal-moves", "hidden", "--max-invalid", "50"]);
    let tools = server.request(2, "tools/list", json!({}));
    let listed = tools["result"]["tools"].as_array().cloned().unwrap_or_default();
    let simulate = listed
        .iter()
        .find(|tool| tool["name"] == "simulate_move")
        .and_then(|tool| tool["description"].as_str())
        .unwrap_or_default();
    assert!(!simulate.is_empty(), "{tools}");
    assert!(
        !simulate.contains("legal replies"),
        "a blind simulate_move promises no replies: {simulate}"
    );
    // The system prompt a blind server offers names no list it does not give (it used
    // to say "Only the squares listed under \"Legal moves\"" and speak of
    // opponent_valid_moves).
    let prompt = server.request(3, "prompts/get", json!({ "name": "system" }));
    let text = prompt["result"]["messages"][0]["content"]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(text.contains("simulate_move"), "{prompt}");
    for mark in ["Legal moves", "opponent_valid_moves"] {
        assert!(!text.contains(mark), "the blind prompt names {mark}: {text}");
    }
    let mut id = 10;
    let mut call = |server: &mut Raw, tool: &str, arguments: Value| {
        id += 1;
        server.request(id, "tools/call", json!({ "name": tool, "arguments": arguments }))
    };
    let mut legal = Vec::new();
    for (game, color) in [(1, "black"), (2, "white")] {
        let started = call(&mut server, "new_game", json!({ "color": color }));
        let state = &started["result"]["structuredContent"];
        assert_eq!(state["game_id"], json!(game), "{started}");
        legal.push(legal_squares(state));
    }
    let bad = bad_move_arguments();
    let mut said = Vec::new();
    for arguments in &bad {
        for tool in ["simulate_move", "play_move"] {
            let answer = call(&mut server, tool, arguments.clone());
            let text = message(&answer);
            let fix = ["such as d3", "not a legal move", "schema", "new_game", "past the limit"];
            assert!(fix.iter().any(|f| text.contains(f)), "{tool} {arguments}: {answer}");
            said.push(answer);
        }
    }
    said.push(call(&mut server, "castle", json!({})));
    for game in [1, 2] {
        said.push(call(&mut server, "get_state", json!({ "game_id": game })));
    }
    // The server still plays: a legal move of each game, each answered with a state.
    for (game, squares) in [(1, &legal[0]), (2, &legal[1])] {
        let simulated = call(
            &mut server,
            "simulate_move",
            json!({ "game_id": game, "coord": squares[0] }),
        );
        assert_eq!(simulated["result"]["isError"], json!(false), "{simulated}");
        said.push(simulated);
        let played = call(
            &mut server,
            "play_move",
            json!({ "game_id": game, "coord": squares[0] }),
        );
        assert_eq!(played["result"]["isError"], json!(false), "{played}");
        let after = legal_squares(&played["result"]["structuredContent"]);
        assert_leaks_nothing(&played, &after);
        let again = call(&mut server, "play_move", json!({ "game_id": game, "coord": "a1" }));
        assert_leaks_nothing(&again, &after);
    }
    for answer in &said {
        for squares in &legal {
            assert_leaks_nothing(answer, squares);
        }
    }
    server.close();
    let _ = std::fs::remove_dir_all(&dir);
}

/// `simulate_move` / `play_move` arguments that are wrong: missing, wrong-typed,
/// over-long or non-ASCII squares, squares that cannot be played, unknown or huge ids.
fn bad_move_arguments() -> Vec<Value> {
    let long = "d".repeat(300);
    let accents = "é".repeat(150);
    vec![
        json!({ "game_id": 1 }),
        json!({ "game_id": 1, "coord": 3 }),
        json!({ "game_id": 1, "coord": null }),
        json!({ "game_id": 1, "coord": ["d3"] }),
        json!({ "game_id": 1, "coord": long }),
        json!({ "game_id": 1, "coord": accents }),
        json!({ "game_id": 1, "coord": "ｄ３" }),
        json!({ "game_id": 1, "coord": "" }),
        json!({ "game_id": 1, "coord": "pass" }),
        json!({ "game_id": 1, "coord": "a1" }),
        json!({ "game_id": 1, "coord": "d4" }),
        json!({ "game_id": 2, "coord": "a1" }),
        json!({ "game_id": 3, "coord": "d3" }),
        json!({ "game_id": u64::MAX, "coord": "d3" }),
        json!({ "game_id": 1e300, "coord": "d3" }),
        json!({ "game_id": -1, "coord": "d3" }),
        json!({ "game_id": "1", "coord": "d3" }),
    ]
}

/// `answer` names fewer than two of `legal` and no list of legal moves or replies.
fn assert_leaks_nothing(answer: &Value, legal: &[String]) {
    let text = answer.to_string().to_lowercase();
    for leak in ["legal moves:", "legal_moves", "valid_moves"] {
        assert!(!text.contains(leak), "{leak} in {answer}");
    }
    let named: Vec<&String> = legal.iter().filter(|s| text.contains(s.as_str())).collect();
    assert!(named.len() < 2 || legal.len() < 2, "{named:?} named in {answer}");
}

/// An over-long opponent spec is refused with the fix for an opponent, not a square's.
#[test]
fn an_over_long_opponent_is_refused_with_the_fix_for_an_opponent() {
    let dir = crate::support::temp_dir("mcp-hostile", "long-opponent");
    let mut server = Raw::start(&dir, &["--opponent", "random"]);
    server.initialize();
    let answer = server.request(
        2,
        "tools/call",
        json!({ "name": "new_game", "arguments": { "opponent": "r".repeat(300) } }),
    );
    let text = message(&answer);
    assert!(text.contains("past the limit of 200"), "{answer}");
    assert!(!text.contains("square"), "{answer}");
    assert!(text.contains("specs the server offers"), "{answer}");
    server.close();
    let _ = std::fs::remove_dir_all(&dir);
}

/// `mcp --opponent human` used to be taken: the person's moves were read from stdin,
/// which is the protocol's, so a client's next request was read as a "move". A player
/// that needs a terminal is refused before the server serves.
#[test]
fn a_player_that_needs_a_terminal_is_refused_by_the_mcp_face() {
    let dir = crate::support::temp_dir("mcp-hostile", "human");
    // (`--fallback human` was already refused, by every command.)
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_othello-arena"))
        .args(["mcp", "--log-dir", dir.to_str().unwrap(), "--opponent", "human"])
        .stdin(Stdio::null())
        .output()
        .expect("the binary runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "{stderr}");
    assert!(
        stderr.contains("--opponent human reads its moves from the terminal"),
        "{stderr}"
    );
}

/// The run.json of the server's run folder under `dir` (at any depth of two).
fn run_file(dir: &Path) -> String {
    let mut folders = vec![dir.to_path_buf()];
    for _ in 0..3 {
        if let Some(found) = folders.iter().map(|f| f.join("run.json")).find(|p| p.is_file()) {
            return std::fs::read_to_string(found).unwrap();
        }
        folders = folders
            .iter()
            .filter_map(|f| std::fs::read_dir(f).ok())
            .flatten()
            .map(|e| e.unwrap().path())
            .filter(|p| p.is_dir())
            .collect();
    }
    panic!("no run.json under {}", dir.display());
}

/// A second `initialize` in a session used to rename the player: it is refused with
/// a JSON-RPC error naming the first, and the games keep the first name.
#[test]
fn a_second_initialize_is_refused_and_the_player_keeps_its_name() {
    let dir = crate::support::temp_dir("mcp-hostile", "initialize-twice");
    let mut server = Raw::session(&dir, &["--opponent", "random"]);
    for (id, name) in [(2, "renamed"), (3, "hostile")] {
        let params = json!({
            "protocolVersion": "2024-11-05",
            "capabilities": {},
            "clientInfo": { "name": name, "version": "9" }
        });
        let again = server.request(id, "initialize", params);
        assert_eq!(again["error"]["code"], json!(-32600), "{again}");
        let text = message(&again);
        assert!(text.contains("initialized already as hostile 1"), "{again}");
    }
    let started = server.request(4, "tools/call", json!({ "name": "new_game", "arguments": {} }));
    assert_eq!(started["result"]["isError"], json!(false), "{started}");
    let run = run_file(&dir);
    assert!(run.contains("mcp:hostile") && !run.contains("renamed"), "{run}");
    server.close();
    let _ = std::fs::remove_dir_all(&dir);
}

/// A line over 16 MiB, a deeply nested one and one that is not JSON used to be dropped
/// without a word (the client waited for its answer): each is answered, with its id
/// where the line names one and a null id where it cannot (a parse error, as JSON-RPC
/// 2.0 says), a response is never answered, and the session goes on.
#[test]
fn lines_too_long_too_deep_or_not_json_are_answered_and_the_session_goes_on() {
    let dir = crate::support::temp_dir("mcp-hostile", "unreadable-lines");
    let mut server = Raw::session(&dir, &[]);
    let call = |id: u64, arguments: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"get_state","arguments":{arguments}}}}}"#
        )
    };
    let huge = call(41, &format!(r#"{{"game_id":1,"x":"{}"}}"#, "a".repeat(17 << 20)));
    let deep = call(
        42,
        &format!(r#"{{"game_id":{}1{}}}"#, "[".repeat(5000), "]".repeat(5000)),
    );
    let deep_response = format!(
        r#"{{"jsonrpc":"2.0","id":7,"result":{}{}}}"#,
        "[".repeat(5000),
        "]".repeat(5000)
    );
    for line in [
        huge.as_str(),
        deep.as_str(),
        &deep_response,
        "{\"jsonrpc\":\"2.0\",\"id\":43,",
    ] {
        server.line(line);
    }
    let ping = server.request(44, "ping", json!({}));
    assert_eq!(ping["result"], json!({}), "{ping}");
    // What came before the ping's answer: the three answers, in any order.
    let answers = server.seen.clone();
    let find = |id: Value| answers.iter().find(|a| a["id"] == id).cloned().unwrap_or_default();
    let long = find(json!(41));
    assert_eq!(long["error"]["code"], json!(-32600), "{answers:?}");
    assert!(message(&long).contains("longer than 16777216 bytes"), "{long}");
    let nested = find(json!(42));
    assert_eq!(nested["error"]["code"], json!(-32600), "{answers:?}");
    assert!(message(&nested).contains("5003 levels deep"), "{nested}");
    let parse = find(Value::Null);
    assert_eq!(parse["error"]["code"], json!(-32700), "{answers:?}");
    assert!(message(&parse).contains("not JSON"), "{parse}");
    assert_eq!(answers.len(), 3, "the response got no answer: {answers:?}");
    // A line of exactly 16 MiB is read: the cap is rmcp's own.
    let base = json!({ "jsonrpc": "2.0", "id": 45, "method": "ping", "params": { "x": "" } })
        .to_string()
        .len();
    let padded = server.request(45, "ping", json!({ "x": "a".repeat((16 << 20) - base) }));
    assert_eq!(
        padded["result"],
        json!({}),
        "{}",
        &padded.to_string()[..200.min(padded.to_string().len())]
    );
    server.close();
    let _ = std::fs::remove_dir_all(&dir);
}

/// A client could open games without end by starting and resigning: a session keeps
/// 1000 games, then new_game is refused with the cap, and the "no game" error stays
/// short.
#[test]
fn a_session_starts_at_most_a_thousand_games() {
    let dir = crate::support::temp_dir("mcp-hostile", "session-cap");
    let mut server = Raw::session(&dir, &["--opponent", "random", "--max-games", "1024"]);
    let mut id = 10;
    let mut call = |server: &mut Raw, tool: &str, arguments: Value| {
        id += 1;
        server.request(id, "tools/call", json!({ "name": tool, "arguments": arguments }))
    };
    for game in 1..=1000u64 {
        let started = call(&mut server, "new_game", json!({ "color": "black" }));
        assert_eq!(
            started["result"]["structuredContent"]["game_id"],
            json!(game),
            "{started}"
        );
        if game % 100 == 0 {
            let resigned = call(&mut server, "resign", json!({ "game_id": game }));
            assert_eq!(resigned["result"]["isError"], json!(false), "{resigned}");
        }
    }
    let refused = call(&mut server, "new_game", json!({}));
    let text = message(&refused);
    assert!(
        text.contains("started 1000 games, the most one session keeps"),
        "{refused}"
    );
    let missing = call(&mut server, "get_state", json!({ "game_id": 5000 }));
    let text = message(&missing);
    assert!(text.starts_with("no game 5000") && text.len() < 300, "{missing}");
    server.close();
    let _ = std::fs::remove_dir_all(&dir);
}
