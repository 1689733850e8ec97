//! Run folders written by an older binary, read by today's: `stats`, `rate` and
//! `replay` must print what they printed when the folders were made, and
//! `eval --resume` must finish an interrupted old run without touching its finished
//! games.
//!
//! The fixture folders under `tests/data/runs/<name>/` are the output of the binary of
//! commit 9096935 (before the workspace restructure), committed as written (`.lock`
//! files and absolute paths of the folder they were made in included):
//! - `eval`: `eval llm:stub` (the scripted model of `tests/support`, which checks its
//!   first legal move with the tool and answers its last) vs greedy and n-hand:1, four
//!   short games, with results.json and results.csv;
//! - `eval-interrupted`: an eval of four games stopped with SIGINT after its first
//!   game: finished games, `game_stopped` records, a results.json with
//!   `complete: false`;
//! - `tournament`: an engine round robin (random, greedy, n-hand:1) with an SPRT and
//!   its decisions.jsonl;
//! - `marubatsu-eval`: the scripted model at marubatsu against ai2;
//! - `play`: `play greedy vs n-hand:1`, two colour-swapped games.
//!
//! **Never regenerate a fixture folder**: it stands for the logs users already have,
//! and a copy rewritten by a newer binary proves nothing. `write_missing_fixtures`
//! (ignored; `cargo test --test integration old_runs:: -- --ignored`) shows how they were made and
//! writes only folders that do not exist yet: add a new fixture under a new name.
//!
//! The expected outputs under `tests/data/runs-expected/` may be regenerated when a
//! change of output is deliberate: `PIN_UPDATE=1 cargo test --test integration old_runs::`, then
//! review `git diff tests/data/runs-expected`. The commands run on copies of the
//! fixtures in a temporary folder, written `<RUNS>` in the expected outputs.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::support::{game_log_names, golden, legal_moves_in, playing_model, run_arena, temp_dir, Reply, StubServer};
use serde_json::{json, Value};

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/runs");
const EXPECTED: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/runs-expected");

/// The fixture folders, by name.
const OTHELLO_RUNS: [&str; 4] = ["eval", "eval-interrupted", "tournament", "play"];
const MARUBATSU_RUNS: [&str; 1] = ["marubatsu-eval"];

/// Copies every fixture folder into a fresh temporary folder; returns it.
fn copy_fixtures(test: &str) -> PathBuf {
    let root = temp_dir("old-runs", test);
    for name in OTHELLO_RUNS.iter().chain(&MARUBATSU_RUNS) {
        copy_folder(&Path::new(FIXTURES).join(name), &root.join(name));
    }
    root
}

/// Copies the files of `from` (run folders have no subfolders) into a new `to`.
fn copy_folder(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap_or_else(|e| panic!("{}: {e}", from.display())) {
        let entry = entry.unwrap();
        assert!(entry.file_type().unwrap().is_file(), "{}", entry.path().display());
        std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
    }
}

/// Runs the binary with no model server, in the package root.
fn arena(args: &[&str]) -> Output {
    run_arena(args, "127.0.0.1:9")
}

/// The standard output of a command that must succeed, with `root` written `<RUNS>`.
fn stdout(output: &Output, root: &Path) -> String {
    assert!(
        output.status.success(),
        "exit {:?}: {}",
        output.status.code(),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout.clone())
        .expect("the output is UTF-8")
        .replace(root.to_str().unwrap(), "<RUNS>")
}

/// Compares `got` with the expected output `name`, or with `PIN_UPDATE` set writes it
/// (the expected outputs only: never the fixture folders).
fn check_expected(name: &str, got: &str) {
    golden::check(
        EXPECTED,
        name,
        got,
        "PIN_UPDATE=1 cargo test --test integration old_runs::",
    );
}

fn arg(path: &Path) -> &str {
    path.to_str().expect("temporary paths are UTF-8")
}

/// The runs with an LLM player (`stats` reads only those).
const LLM_RUNS: [&str; 3] = ["eval", "eval-interrupted", "marubatsu-eval"];

#[test]
fn stats_of_old_runs_are_as_expected() {
    let root = copy_fixtures("stats");
    let stats = |name: &str, paths: &[PathBuf]| {
        let mut args = vec!["stats"];
        args.extend(paths.iter().map(|p| arg(p)));
        check_expected(&format!("{name}.txt"), &stdout(&arena(&args), &root));
        args.push("--json");
        check_expected(&format!("{name}.json"), &stdout(&arena(&args), &root));
    };
    for name in LLM_RUNS {
        stats(&format!("{name}/stats"), &[root.join(name)]);
    }
    // Several runs at once, engine-only ones among them, grouped together.
    let othello: Vec<PathBuf> = OTHELLO_RUNS.iter().map(|n| root.join(n)).collect();
    stats("stats-othello", &othello);
}

#[test]
fn ratings_of_old_runs_are_as_expected() {
    let root = copy_fixtures("rate");
    let othello: Vec<PathBuf> = OTHELLO_RUNS.iter().map(|n| root.join(n)).collect();
    let mut args = vec!["rate"];
    args.extend(othello.iter().map(|p| arg(p)));
    check_expected("rate-othello.txt", &stdout(&arena(&args), &root));
    args.push("--json");
    check_expected("rate-othello.json", &stdout(&arena(&args), &root));
    let marubatsu = root.join("marubatsu-eval");
    for (file, extra) in [("rate-marubatsu.txt", None), ("rate-marubatsu.json", Some("--json"))] {
        let mut args = vec!["rate", arg(&marubatsu), "--anchor", "ai2=0"];
        args.extend(extra);
        check_expected(file, &stdout(&arena(&args), &root));
    }
}

#[test]
fn replays_of_old_games_are_as_expected() {
    let root = copy_fixtures("replay");
    for name in OTHELLO_RUNS.iter().chain(&MARUBATSU_RUNS) {
        let dir = root.join(name);
        for log in game_log_names(&dir) {
            let text = std::fs::read_to_string(dir.join(&log)).unwrap();
            // The first game of each run, and every game an interrupt stopped.
            if log != "game-0001.jsonl" && !text.contains("\"game_stopped\"") {
                continue;
            }
            let stem = log.trim_end_matches(".jsonl");
            check_expected(
                &format!("{name}/replay-{stem}.txt"),
                &stdout(&arena(&["replay", arg(&dir.join(&log))]), &root),
            );
        }
    }
}

#[test]
fn an_old_interrupted_eval_resumes_and_keeps_its_finished_games() {
    let root = copy_fixtures("resume");
    let fixture = Path::new(FIXTURES).join("eval-interrupted");
    let run = root.join("eval-interrupted");
    let (finished, stopped): (Vec<String>, Vec<String>) = game_log_names(&fixture).into_iter().partition(|log| {
        std::fs::read_to_string(fixture.join(log))
            .unwrap()
            .contains("\"game_end\"")
    });
    assert!(
        !finished.is_empty() && !stopped.is_empty(),
        "the fixture holds finished and stopped games"
    );
    let server = playing_model();
    let output = run_arena(&["eval", "--resume", arg(&run), "--json"], &server.url);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(
        stderr.contains(&format!("{} of 4 games already finished", finished.len())),
        "{stderr}"
    );
    let summary: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(summary["complete"], true, "{summary}");
    assert_eq!(summary["unfinished_games"], 0, "{summary}");
    // Every game now ends; the finished ones are the old bytes, the stopped ones are
    // kept aside as they were.
    let logs = game_log_names(&run);
    assert_eq!(
        logs,
        [
            "game-0001.jsonl",
            "game-0002.jsonl",
            "game-0003.jsonl",
            "game-0004.jsonl"
        ]
    );
    for log in &logs {
        let text = std::fs::read_to_string(run.join(log)).unwrap();
        assert!(text.contains("\"game_end\""), "{log} did not finish");
    }
    for log in &finished {
        assert!(
            std::fs::read(run.join(log)).unwrap() == std::fs::read(fixture.join(log)).unwrap(),
            "the resume rewrote the finished game {log}"
        );
    }
    for log in &stopped {
        let kept = run.join(format!("{log}.unfinished-1"));
        assert!(
            std::fs::read(&kept).unwrap_or_default() == std::fs::read(fixture.join(log)).unwrap(),
            "the stopped game {log} is not kept as {}",
            kept.display()
        );
    }
    assert!(run.join("results.csv").is_file(), "a complete run writes its table");
    let run_json: Value = serde_json::from_str(&std::fs::read_to_string(run.join("run.json")).unwrap()).unwrap();
    assert_eq!(run_json["resumes"][0]["games_finished_before"], json!(finished.len()));
}

/// A `playing_model` that takes `delay` over each chat answer.
fn slow_playing_model(delay: Duration) -> StubServer {
    StubServer::start_routed(move |route, request, _| {
        if route != "/api/chat" {
            return Reply::message(json!({"role": "assistant", "content": ""}));
        }
        std::thread::sleep(delay);
        let legal = legal_moves_in(request);
        let last = request["messages"].as_array().and_then(|m| m.last()).cloned();
        if last.is_some_and(|m| m["role"] == "tool") {
            Reply::content(legal.last().map_or("pass", String::as_str))
        } else {
            Reply::tool_call(
                "simulate_move",
                json!({"coord": legal.first().cloned().unwrap_or_default()}),
            )
        }
    })
}

/// Writes, through `make`, each fixture folder that does not exist yet: how the
/// committed ones were made. Never delete a fixture to let this rewrite it.
#[test]
#[ignore = "writes fixture folders; run only to add a new one"]
fn write_missing_fixtures() {
    let work = temp_dir("old-runs", "make");
    for name in OTHELLO_RUNS.iter().chain(&MARUBATSU_RUNS) {
        let target = Path::new(FIXTURES).join(name);
        if target.exists() {
            eprintln!("{name}: exists, kept as it is");
            continue;
        }
        let run = work.join(name);
        make_fixture(name, &work, &run);
        copy_folder(&run, &target);
        eprintln!("{name}: written to {}", target.display());
    }
}

fn make_fixture(name: &str, work: &Path, run: &Path) {
    let ok = |output: Output| {
        assert!(
            output.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    };
    let short = ["--opening-random", "50", "--log-dir", arg(run)];
    match name {
        "eval" => {
            let server = playing_model();
            let mut args = vec![
                "eval",
                "--agent",
                "llm:stub",
                "--vs",
                "greedy,n-hand:1",
                "--games",
                "1",
                "--seed",
                "11",
                "--system",
                "small-model-tools",
                "--parallel",
                "2",
            ];
            args.extend(short);
            ok(run_arena(&args, &server.url));
        }
        "eval-interrupted" => make_interrupted(run),
        "tournament" => {
            let file = work.join("tournament.toml");
            std::fs::write(
                &file,
                "format = \"round-robin\"\nengines = [\"random\", \"greedy\", \"n-hand:1\"]\ngames = 2\n\
                 opening_random = 40\nseed = 4\nstop = \"sprt:0,50\"\n",
            )
            .unwrap();
            ok(arena(&["tournament", arg(&file), "--log-dir", arg(run)]));
        }
        "marubatsu-eval" => {
            let server = playing_model();
            ok(run_arena(
                &[
                    "eval",
                    "--game",
                    "marubatsu",
                    "--agent",
                    "llm:stub",
                    "--vs",
                    "ai2",
                    "--games",
                    "1",
                    "--seed",
                    "3",
                    "--system",
                    "marubatsu-tool-en",
                    "--labels",
                    "en",
                    "--fallback",
                    "ai8s",
                    "--log-dir",
                    arg(run),
                ],
                &server.url,
            ));
        }
        "play" => ok(arena(&[
            "play",
            "--black",
            "greedy",
            "--white",
            "n-hand:1",
            "--games",
            "2",
            "--swap",
            "--opening-random",
            "40",
            "--seed",
            "9",
            "--log-dir",
            arg(run),
        ])),
        _ => panic!("no recipe for the fixture {name}"),
    }
}

/// Four games, two at a time, against a model slow enough to be interrupted: SIGINT
/// once the first game is finished.
fn make_interrupted(run: &Path) {
    let server = slow_playing_model(Duration::from_millis(30));
    let mut child = Command::new(env!("CARGO_BIN_EXE_othello-arena"))
        .args([
            "eval",
            "--agent",
            "llm:stub",
            "--vs",
            "random,greedy",
            "--games",
            "1",
            "--seed",
            "7",
            "--opening-random",
            "50",
            "--parallel",
            "2",
            "--log-dir",
            arg(run),
        ])
        .env("OLLAMA_HOST", &server.url)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("the binary starts");
    let deadline = Instant::now() + Duration::from_secs(60);
    let finished = |dir: &Path| {
        if !dir.is_dir() {
            return 0;
        }
        game_log_names(dir)
            .iter()
            .filter(|log| std::fs::read_to_string(dir.join(log)).is_ok_and(|t| t.contains("\"game_end\"")))
            .count()
    };
    while finished(run) < 1 {
        assert!(Instant::now() < deadline, "no game finished");
        std::thread::sleep(Duration::from_millis(5));
    }
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(status.success());
    assert_eq!(child.wait().unwrap().code(), Some(130));
    let stopped = game_log_names(run)
        .iter()
        .filter(|log| std::fs::read_to_string(run.join(log)).is_ok_and(|t| t.contains("\"game_stopped\"")))
        .count();
    assert!(stopped > 0, "no game was stopped in flight: make it again");
}

/// A folder of runs (a user's logs/, runs nested a level deeper too) is read by `rate`,
/// `stats`, `report` and `compare` as every run folder under it, with a note saying so;
/// a folder with no run under it is refused naming the fix.
#[test]
fn a_folder_of_runs_reads_as_every_run_under_it() {
    let root = temp_dir("old-runs", "folder-of-runs");
    let logs = root.join("logs");
    for (name, to) in [("eval", "eval"), ("eval", "nested/eval-again"), ("play", "play")] {
        copy_folder(&Path::new(FIXTURES).join(name), &logs.join(to));
    }
    let logs_arg = logs.to_str().unwrap();
    let report = root.join("report.html");
    for args in [
        vec!["rate", logs_arg],
        vec!["stats", logs_arg],
        vec!["report", logs_arg, "-o", report.to_str().unwrap()],
    ] {
        let output = arena(&args);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success(), "{args:?}: {stderr}");
        assert!(
            stderr.contains(&format!("note: {logs_arg} is a folder of runs")) && stderr.contains("(3 runs)"),
            "{stderr}"
        );
    }
    std::fs::remove_dir_all(logs.join("play")).unwrap();
    let compared = arena(&["compare", logs_arg, "--json"]);
    assert!(
        compared.status.success(),
        "{}",
        String::from_utf8_lossy(&compared.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&compared.stdout).unwrap();
    assert_eq!(json["runs"].as_array().map(Vec::len), Some(2), "{json}");

    let empty = root.join("empty");
    std::fs::create_dir_all(empty.join("sub")).unwrap();
    let refused = arena(&["rate", empty.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(
        !refused.status.success() && stderr.contains("nor run folders that do"),
        "{stderr}"
    );
    let _ = std::fs::remove_dir_all(&root);
}
