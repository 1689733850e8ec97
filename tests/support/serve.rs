//! `othello-arena serve` run as a child process on a free port, for the serve tests.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use reqwest::blocking::Client;
use reqwest::StatusCode;
use serde_json::{json, Value};

use super::{legal_moves_in, Reply, StubServer};

/// A running server; killed when dropped.
pub struct Served {
    process: Child,
    /// `http://ADDRESS` (no trailing slash).
    pub url: String,
    /// The token printed at start, if any.
    pub token: Option<String>,
}

impl Served {
    /// Starts `serve --runs runs --bind BIND` with `extra` flags; `bind` may end in
    /// `:0` (the printed address carries the port chosen).
    pub fn start(runs: &Path, bind: &str, extra: &[&str]) -> Served {
        let mut process = Command::new(env!("CARGO_BIN_EXE_othello-arena"))
            .arg("serve")
            .arg("--runs")
            .arg(runs)
            .args(["--bind", bind])
            .args(extra)
            .env_remove("OLLAMA_HOST")
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("the binary runs");
        let mut lines = BufReader::new(process.stdout.take().unwrap()).lines();
        let first = lines.next().expect("serve prints its address").unwrap();
        let address = first
            .strip_prefix("serving http://")
            .and_then(|rest| rest.split('/').next())
            .unwrap_or_else(|| panic!("unexpected first line {first:?}"))
            .to_string();
        let token = if first.contains("?token=") {
            let line = lines.next().expect("serve prints its token").unwrap();
            line.strip_prefix("token: ").map(str::to_string)
        } else {
            None
        };
        // Keep draining stdout so the server never blocks on a full pipe.
        std::thread::spawn(move || for _ in lines {});
        let port = address.rsplit(':').next().unwrap();
        Served {
            process,
            url: format!("http://127.0.0.1:{port}"),
            token,
        }
    }
}

impl Served {
    /// Ctrl-C (SIGINT) to the server, as a person stopping it; waits for it to exit.
    pub fn interrupt(self) -> std::process::ExitStatus {
        self.signal("-INT")
    }

    /// `signal` (`kill`'s flag: `-INT`, `-TERM`) to the server; waits for it to exit.
    pub fn signal(mut self, signal: &str) -> std::process::ExitStatus {
        let pid = self.process.id().to_string();
        let _ = Command::new("kill").args([signal, &pid]).status();
        self.process.wait().expect("the server exits")
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.process.kill();
        let _ = self.process.wait();
    }
}

/// A model that thinks ("SIMULATE-THOUGHT {extra}"), simulates its first legal move with
/// the tool, then thinks again ("ANSWER-THOUGHT {extra}") and plays it ("{extra} I play
/// MOVE"): `extra` is text the pages must show as it is.
pub fn simulating_model(extra: &'static str) -> StubServer {
    StubServer::start(move |request, _| {
        let legal = legal_moves_in(request);
        let Some(first) = legal.first() else {
            return Reply::content("");
        };
        let last = request["messages"]
            .as_array()
            .and_then(|m| m.last())
            .cloned()
            .unwrap_or_default();
        if last["role"] == "tool" {
            Reply::message(json!({
                "role": "assistant",
                "thinking": format!("ANSWER-THOUGHT {extra}"),
                "content": format!("{extra} I play {first}"),
            }))
        } else {
            Reply::message(json!({
                "role": "assistant",
                "thinking": format!("SIMULATE-THOUGHT {extra}"),
                "content": "",
                "tool_calls": [{"function": {"name": "simulate_move", "arguments": {"coord": first}}}],
            }))
        }
    })
}

/// A blocking HTTP client with a timeout long enough for a whole game.
pub fn client() -> Client {
    super::http_client(Duration::from_secs(120))
}

/// Plays game `id` as `color` by always taking the first legal move; every event, in
/// order. Stops reading after `stop_after` events when given (a client that leaves).
pub fn play_through(http: &Client, url: &str, id: u64, color: &str, stop_after: Option<usize>) -> Vec<Value> {
    let mut events = Vec::new();
    for event in game_events(http, url, id) {
        let mine = event["kind"] == "state" && event["to_move"] == color && event["over"] == false;
        if let (true, Some(square)) = (mine, event["legal"][0].as_str()) {
            let played = http
                .post(format!("{url}/api/games/{id}/move"))
                .json(&json!({"square": square, "ply": event["ply"]}))
                .send()
                .unwrap();
            // A page that reconnects is sent the game again: its old positions are refused.
            assert!(
                played.status() == StatusCode::NO_CONTENT || played.status() == StatusCode::CONFLICT,
                "{}",
                played.text().unwrap()
            );
        }
        let done = event["kind"] == "end" || event["kind"] == "failed";
        events.push(event);
        if done || stop_after.is_some_and(|n| events.len() >= n) {
            break;
        }
    }
    events
}

/// Game `id`'s server-sent events as they come, each parsed.
pub fn game_events(http: &Client, url: &str, id: u64) -> impl Iterator<Item = Value> {
    let stream = http.get(format!("{url}/api/games/{id}/events")).send().unwrap();
    BufReader::new(stream).lines().map(Result::unwrap).filter_map(|line| {
        line.strip_prefix("data:")
            .map(|d| serde_json::from_str(d.trim()).unwrap())
    })
}

/// Starts a game as `color` against `opponent`: its id and run folder name.
pub fn start_game(http: &Client, url: &str, color: &str, opponent: &str) -> (u64, String) {
    let started: Value = http
        .post(format!("{url}/api/games"))
        .json(&json!({"color": color, "opponent": opponent}))
        .send()
        .unwrap()
        .json()
        .unwrap();
    let id = started["id"].as_u64().unwrap_or_else(|| panic!("{started}"));
    (id, started["run"].as_str().unwrap().to_string())
}

/// Asks to end game `id`, as the page does when it is left: the status.
pub fn end_game(http: &Client, url: &str, id: u64) -> u16 {
    let answer = http
        .post(format!("{url}/api/games/{id}/end"))
        .json(&json!({}))
        .send()
        .unwrap();
    answer.status().as_u16()
}

/// Reads game `id`'s events until its last (`end` or `failed`), and answers it.
pub fn last_event(http: &Client, url: &str, id: u64) -> Value {
    game_events(http, url, id)
        .find(|e| e["kind"] == "failed" || e["kind"] == "end")
        .expect("the game's last event")
}

/// Game `id` was ended by its page: its last event says so (`failed`, reason `ended`),
/// and it refuses a second end.
pub fn check_ended_by_the_page(http: &Client, url: &str, id: u64) {
    let last = last_event(http, url, id);
    assert_eq!(
        (&last["kind"], &last["reason"]),
        (&json!("failed"), &json!("ended")),
        "{last}"
    );
    assert_eq!(end_game(http, url, id), 409, "an ended game is over");
}

/// `othello-arena ARGS`, which must succeed: its standard output.
pub fn arena_ok(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_othello-arena"))
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}
