//! Today's on-disk formats, pinned byte for byte: the files a run writes are compared
//! with golden copies in `tests/data/pinned/`, so that no refactoring can change the
//! log format (a promise to users: `schema_version` 1, specified in the
//! `record` module's doc) without a test failing on the first line that differs.
//!
//! Each case drives the binary (`CARGO_BIN_EXE_othello-arena`) with fixed seeds; the
//! LLM player is the scripted Ollama server of `tests/support` on 127.0.0.1. Pinned:
//! - `engines/`: `play greedy vs n-hand:1`, two colour-swapped games: `game_start`,
//!   `move` (engine and forced passes), `game_end` lines, and the run.json of `play`;
//! - `eval/`: `eval llm:stub-model vs greedy`, one game a colour, in tool mode:
//!   `exchange` lines (raw request and response), `move` lines with the `agent`
//!   decision, `game_end`; run.json, results.json and results.csv, and the key paths
//!   of the two JSON files (`*.keys`, one per line) so a renamed key is named plainly;
//! - `forfeit/`: `eval` in direct mode with `--fallback forfeit` against a model that
//!   never names a square: direct-mode exchanges, the `forfeit` line;
//! - `interrupted/`: an `eval` stopped with SIGINT while the server holds one request
//!   (the stop lands at a known ply): the `game_stopped` line and the results.json of
//!   an unfinished run;
//! - `marubatsu/`: `play --game marubatsu ai8s vs ai2`, two games: `rules`, 9-square
//!   boards, `margin`;
//! - `tournament/`: an engine round robin with an SPRT: decisions.jsonl, run.json and
//!   results.json.
//!
//! Only what differs from run to run is normalised before comparing (see
//! [`normalise`]): `time_ms`, `latency_ms`, the latency percentiles and `seconds_per_move` (to `0` or
//! `0.0`, keeping whether the number was written as an integer or a float), UTC
//! timestamps and the CSV's date, the harness version, the temporary folder (`<TMP>`)
//! and the scripted server's port (`127.0.0.1:<PORT>`). Everything else, key order
//! and spacing included, must match exactly.
//!
//! To change a pinned format deliberately, regenerate the golden files and commit
//! them with the change that explains why:
//! `PIN_UPDATE=1 cargo test --test integration log_bytes::`, then review `git diff tests/data/pinned`.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::support::{golden, legal_moves_in, playing_model, run_arena, temp_dir, Reply, StubServer};
use serde_json::Value;

/// The golden files.
const PINNED: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/pinned");

/// Numbers that differ in every run (timings), blanked wherever they occur.
const TIMING_KEYS: [&str; 7] = [
    "time_ms",
    "latency_ms",
    "latency_ms_p50",
    "latency_ms_p95",
    "latency_p50_ms",
    "latency_p95_ms",
    "seconds_per_move",
];

/// Strings that differ in every run or release.
const STAMP_KEYS: [&str; 2] = ["created_utc", "version"];

/// A system prompt of the test's own, so a shipped prompt's edit changes no pin.
const SYSTEM_PROMPT: &str = "You play Othello. Check one move with simulate_move, then answer with one square.\n";

/// `text` with what differs from run to run replaced: see the module doc.
fn normalise(text: &str, tmp: &Path) -> String {
    let mut text = text.replace(tmp.to_str().expect("temporary paths are UTF-8"), "<TMP>");
    text = normalise_ports(&text);
    for key in TIMING_KEYS {
        text = blank_value(&text, key, zero_like);
    }
    for key in STAMP_KEYS {
        text = blank_value(&text, key, |_| "\"<STAMP>\"");
    }
    text
}

/// `0` for an integer, `0.0` for a number written as a float.
fn zero_like(number: &str) -> &'static str {
    if number.contains(['.', 'e', 'E']) {
        "0.0"
    } else {
        "0"
    }
}

/// `127.0.0.1:NNNN` written as `127.0.0.1:<PORT>`.
fn normalise_ports(text: &str) -> String {
    const HOST: &str = "127.0.0.1:";
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(HOST) {
        out.push_str(&rest[..at + HOST.len()]);
        rest = &rest[at + HOST.len()..];
        let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        if digits > 0 {
            out.push_str("<PORT>");
            rest = &rest[digits..];
        }
    }
    out.push_str(rest);
    out
}

/// Every number or string value of `"key":` (compact or pretty JSON) replaced by
/// `with(value)`; other values (null, objects) are left alone.
fn blank_value(text: &str, key: &str, with: impl Fn(&str) -> &'static str) -> String {
    let needle = format!("\"{key}\":");
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(&needle) {
        let value_at = at + needle.len();
        let spaces = rest[value_at..].len() - rest[value_at..].trim_start_matches(' ').len();
        out.push_str(&rest[..value_at + spaces]);
        rest = &rest[value_at + spaces..];
        let length = scalar_length(rest);
        if length > 0 {
            out.push_str(with(&rest[..length]));
            rest = &rest[length..];
        }
    }
    out.push_str(rest);
    out
}

/// The length of the JSON string or number `text` starts with (0 for anything else).
fn scalar_length(text: &str) -> usize {
    let bytes = text.as_bytes();
    match bytes.first() {
        Some(b'"') => {
            let mut i = 1;
            while i < bytes.len() {
                match bytes[i] {
                    b'\\' => i += 2,
                    b'"' => return i + 1,
                    _ => i += 1,
                }
            }
            0
        }
        Some(b'-' | b'0'..=b'9') => text
            .find(|c: char| !(c.is_ascii_digit() || "+-.eE".contains(c)))
            .unwrap_or(text.len()),
        _ => 0,
    }
}

/// results.csv with its `date` column (the second) blanked.
fn normalise_csv(text: &str) -> String {
    text.lines()
        .enumerate()
        .map(|(n, line)| match (n, line.split_once(',')) {
            (0, _) | (_, None) => format!("{line}\n"),
            (_, Some((model, rest))) => {
                let rest = rest.split_once(',').map_or("", |(_, r)| r);
                format!("{model},<DATE>,{rest}\n")
            }
        })
        .collect()
}

/// Every key path of a JSON value, one per line, sorted: `a.b`, `a.list[].c`.
fn key_paths(value: &Value) -> String {
    fn walk(value: &Value, path: &str, out: &mut Vec<String>) {
        match value {
            Value::Object(map) => {
                for (key, child) in map {
                    let here = if path.is_empty() {
                        key.clone()
                    } else {
                        format!("{path}.{key}")
                    };
                    out.push(here.clone());
                    walk(child, &here, out);
                }
            }
            Value::Array(items) => {
                for item in items {
                    walk(item, &format!("{path}[]"), out);
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(value, "", &mut out);
    out.sort();
    out.dedup();
    out.into_iter().map(|p| p + "\n").collect()
}

/// Compares `got` with the golden file `name`, or with `PIN_UPDATE` set writes it.
fn check_pinned(name: &str, got: &str) {
    golden::check(
        PINNED,
        name,
        got,
        "PIN_UPDATE=1 cargo test --test integration log_bytes::",
    );
}

/// Checks the run folder file `file` of `run` against `pinned/<case>/<file>`.
fn check_file(case: &str, run: &Path, file: &str, tmp: &Path) {
    let text = std::fs::read_to_string(run.join(file)).unwrap_or_else(|e| panic!("{}: {e}", run.join(file).display()));
    let text = if file.ends_with(".csv") {
        normalise_csv(&text)
    } else {
        normalise(&text, tmp)
    };
    check_pinned(&format!("{case}/{file}"), &text);
    if file.ends_with(".json") {
        let value: Value = serde_json::from_str(&text).unwrap();
        check_pinned(&format!("{case}/{file}.keys"), &key_paths(&value));
    }
}

/// The game logs in `run`, by name.
fn game_logs(run: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(run)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.starts_with("game-"))
        .collect();
    names.sort();
    names
}

/// Checks every game log and the `others` files of `run`; the logs must be `games`.
fn check_run(case: &str, run: &Path, tmp: &Path, games: &[&str], others: &[&str]) {
    assert_eq!(game_logs(run), games, "the game logs of {}", run.display());
    for file in games.iter().chain(others) {
        check_file(case, run, file, tmp);
    }
}

fn succeeded(output: &std::process::Output) {
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
}

fn path(path: &Path) -> &str {
    path.to_str().expect("temporary paths are UTF-8")
}

#[test]
fn an_engine_game_is_written_as_pinned() {
    let tmp = temp_dir("log-bytes", "engines");
    let run = tmp.join("run");
    succeeded(&run_arena(
        &[
            "play",
            "--black",
            "greedy",
            "--white",
            "n-hand:1",
            "--games",
            "2",
            "--swap",
            "--opening-random",
            "4",
            "--seed",
            "3",
            "--log-dir",
            path(&run),
        ],
        "127.0.0.1:9",
    ));
    check_run(
        "engines",
        &run,
        &tmp,
        &["game-0001.jsonl", "game-0002.jsonl"],
        &["run.json"],
    );
}

/// The eval flags of the LLM cases: short games (50 random opening plies), the test's
/// own system prompt, one game at a time.
fn eval_args<'a>(run: &'a Path, system: &'a Path, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
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
        "--system",
        path(system),
        "--parallel",
        "1",
        "--log-dir",
        path(run),
    ];
    args.extend_from_slice(extra);
    args
}

fn system_prompt(tmp: &Path) -> PathBuf {
    let file = tmp.join("system.md");
    std::fs::write(&file, SYSTEM_PROMPT).unwrap();
    file
}

#[test]
fn an_llm_game_is_written_as_pinned() {
    let server = playing_model();
    let tmp = temp_dir("log-bytes", "eval");
    let (run, system) = (tmp.join("run"), system_prompt(&tmp));
    succeeded(&run_arena(&eval_args(&run, &system, &[]), &server.url));
    check_run(
        "eval",
        &run,
        &tmp,
        &["game-0001.jsonl", "game-0002.jsonl"],
        &["run.json", "results.json", "results.csv"],
    );
}

#[test]
fn a_forfeit_in_direct_mode_is_written_as_pinned() {
    // Stands in for a model that never names a square.
    let server = StubServer::start(|_, _| Reply::content("I would rather not say."));
    let tmp = temp_dir("log-bytes", "forfeit");
    let (run, system) = (tmp.join("run"), system_prompt(&tmp));
    let args = eval_args(&run, &system, &["--mode", "direct", "--fallback", "forfeit"]);
    succeeded(&run_arena(&args, &server.url));
    check_run(
        "forfeit",
        &run,
        &tmp,
        &["game-0001.jsonl", "game-0002.jsonl"],
        &["results.json"],
    );
}

#[test]
fn a_game_stopped_by_ctrl_c_is_written_as_pinned() {
    // A model that plays as `playing_model` does, but holds its third chat request (the
    // agent's second move) until the test has interrupted the run: the stop always
    // lands at the same ply.
    const HELD: usize = 2;
    let release = Arc::new(AtomicBool::new(false));
    let chats = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let (open, count) = (release.clone(), chats.clone());
    let server = StubServer::start_routed(move |route, request, _| {
        if route != "/api/chat" {
            return Reply::content("");
        }
        if count.fetch_add(1, Ordering::SeqCst) == HELD {
            while !open.load(Ordering::SeqCst) {
                std::thread::sleep(Duration::from_millis(5));
            }
        }
        let legal = legal_moves_in(request);
        let last = request["messages"].as_array().and_then(|m| m.last()).cloned();
        if last.is_some_and(|m| m["role"] == "tool") {
            Reply::content(legal.last().map_or("pass", String::as_str))
        } else {
            Reply::tool_call(
                "simulate_move",
                serde_json::json!({"coord": legal.first().cloned().unwrap_or_default()}),
            )
        }
    });
    let tmp = temp_dir("log-bytes", "interrupted");
    let (run, system) = (tmp.join("run"), system_prompt(&tmp));
    let mut child = Command::new(env!("CARGO_BIN_EXE_othello-arena"))
        .args(eval_args(&run, &system, &[]))
        .env("OLLAMA_HOST", &server.url)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    let deadline = Instant::now() + Duration::from_secs(60);
    while chats.load(Ordering::SeqCst) <= HELD {
        assert!(Instant::now() < deadline, "the held request never came");
        std::thread::sleep(Duration::from_millis(10));
    }
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(status.success());
    // The run says it is stopping once it has seen the signal; then the request ends.
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut said = String::new();
    while !said.contains("stopping") {
        let mut line = String::new();
        assert!(stderr.read_line(&mut line).unwrap() > 0, "no stopping message: {said}");
        said.push_str(&line);
    }
    release.store(true, Ordering::SeqCst);
    std::io::copy(&mut stderr, &mut std::io::sink()).unwrap();
    assert_eq!(child.wait().unwrap().code(), Some(130));
    check_run(
        "interrupted",
        &run,
        &tmp,
        &["game-0001.jsonl"],
        &["run.json", "results.json"],
    );
}

#[test]
fn a_marubatsu_game_is_written_as_pinned() {
    let tmp = temp_dir("log-bytes", "marubatsu");
    let run = tmp.join("run");
    succeeded(&run_arena(
        &[
            "play",
            "--game",
            "marubatsu",
            "--black",
            "ai8s",
            "--white",
            "ai2",
            "--games",
            "2",
            "--swap",
            "--seed",
            "3",
            "--log-dir",
            path(&run),
        ],
        "127.0.0.1:9",
    ));
    check_run(
        "marubatsu",
        &run,
        &tmp,
        &["game-0001.jsonl", "game-0002.jsonl"],
        &["run.json"],
    );
}

#[test]
fn a_tournament_with_a_stop_rule_is_written_as_pinned() {
    let tmp = temp_dir("log-bytes", "tournament");
    let run = tmp.join("run");
    let file = tmp.join("tournament.toml");
    std::fs::write(
        &file,
        "format = \"round-robin\"\nengines = [\"random\", \"greedy\"]\ngames = 4\nopening_random = 40\nseed = 2\n\
         stop = \"sprt:0,50\"\n",
    )
    .unwrap();
    succeeded(&run_arena(
        &["tournament", path(&file), "--log-dir", path(&run)],
        "127.0.0.1:9",
    ));
    let logs = [
        "game-0001.jsonl",
        "game-0002.jsonl",
        "game-0003.jsonl",
        "game-0004.jsonl",
    ];
    assert_eq!(game_logs(&run), logs);
    for file in ["decisions.jsonl", "run.json", "results.json"] {
        check_file("tournament", &run, file, &tmp);
    }
}

#[test]
fn the_normaliser_blanks_only_what_varies() {
    let tmp = Path::new("/tmp/x");
    let line = r#"{"time_ms":1796154306882,"latency_ms":12.5,"host":"http://127.0.0.1:4321","path":"/tmp/x/run","text":"\"time_ms\":3","created_utc": "2026-12-01T19:45:06Z"}"#;
    assert_eq!(
        normalise(line, tmp),
        r#"{"time_ms":0,"latency_ms":0.0,"host":"http://127.0.0.1:<PORT>","path":"<TMP>/run","text":"\"time_ms\":3","created_utc": "<STAMP>"}"#
    );
    assert_eq!(
        normalise_csv("model,date,x\nm,2026-12-01,1\n"),
        "model,date,x\nm,<DATE>,1\n"
    );
    let difference = golden::first_difference("a\nb\nc\n", "a\nB\nc\n").unwrap();
    assert!(
        difference.contains("line 2, byte 1") && difference.contains("committed: b"),
        "{difference}"
    );
    assert!(golden::first_difference("a\n", "a\nb\n")
        .unwrap()
        .contains("committed: <end of file>"));
}
