//! Nothing written is lost: run folders are never shared or reused by accident, no
//! output lands on an input or a run's files, and outputs and settings are checked
//! before the first game. Through the binary; the scripted Ollama server on 127.0.0.1
//! stands in for a model that answers the first legal move (slowly where a run must
//! still be going when the second command starts).

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::support::{legal_moves_in, temp_dir, Reply, StubServer};

fn model(delay: Duration) -> StubServer {
    StubServer::start_routed(move |path, request, _| {
        if path == "/api/chat" {
            std::thread::sleep(delay);
        }
        Reply::content(legal_moves_in(request).first().map_or("pass", String::as_str))
    })
}

fn arena(args: &[&str], cwd: &Path, host: &str) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_othello-arena"));
    command.args(args).current_dir(cwd).env("OLLAMA_HOST", host);
    command
}

fn run(args: &[&str], cwd: &Path, host: &str) -> Output {
    arena(args, cwd, host).output().expect("the binary runs")
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn refused(output: &Output, needle: &str) {
    let text = stderr(output);
    assert_eq!(output.status.code(), Some(2), "{text}");
    assert!(text.contains(needle), "expected {needle:?} in: {text}");
    assert!(!text.contains("panicked"), "{text}");
}

const EVAL: [&str; 7] = ["eval", "--agent", "llm:m", "--vs", "random", "--json", "--seed=3"];

fn run_folders(logs: &Path) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(logs)
        .map(|entries| entries.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    found.sort();
    found
}

#[test]
fn evals_of_one_model_started_together_get_folders_of_their_own() {
    let server = model(Duration::ZERO);
    let cwd = temp_dir("run-folders", "same-second");
    let children: Vec<_> = (0..3)
        .map(|_| {
            arena(&EVAL, &cwd, &server.url)
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for child in children {
        let output = child.wait_with_output().unwrap();
        assert!(output.status.success(), "{}", stderr(&output));
    }
    let folders = run_folders(&cwd.join("logs"));
    assert_eq!(folders.len(), 3, "three runs, three folders: {folders:?}");
    for folder in folders {
        let run: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(folder.join("run.json")).unwrap()).unwrap();
        assert_eq!(run["command"], "eval");
        for game in ["game-0001.jsonl", "game-0002.jsonl"] {
            let text = std::fs::read_to_string(folder.join(game)).unwrap();
            assert_eq!(
                text.matches("\"game_start\"").count(),
                1,
                "{folder:?}/{game} holds one game"
            );
            for line in text.lines() {
                serde_json::from_str::<serde_json::Value>(line).expect("whole records, never interleaved");
            }
        }
    }
}

#[test]
fn a_log_dir_that_holds_files_is_refused_unless_resumed() {
    let server = model(Duration::ZERO);
    let cwd = temp_dir("run-folders", "non-empty");
    let dir = cwd.join("run");
    let dir_text = dir.to_str().unwrap();
    let first: Vec<&str> = EVAL.iter().copied().chain(["--log-dir", dir_text]).collect();
    assert!(run(&first, &cwd, &server.url).status.success());
    let before = std::fs::read_to_string(dir.join("game-0001.jsonl")).unwrap();
    refused(&run(&first, &cwd, &server.url), "is not empty");
    let play = ["play", "--black", "greedy", "--white", "random", "--log-dir", dir_text];
    refused(&run(&play, &cwd, &server.url), "is not empty");
    let positions = cwd.join("positions.jsonl");
    let generate = [
        "positions",
        "generate",
        "--count",
        "2",
        "--empties",
        "50-52",
        "-o",
        positions.to_str().unwrap(),
    ];
    assert!(run(&generate, &cwd, &server.url).status.success());
    let probe = [
        "probe",
        "--agent",
        "llm:m",
        "--positions",
        positions.to_str().unwrap(),
        "--log-dir",
        dir_text,
    ];
    refused(&run(&probe, &cwd, &server.url), "is not empty");
    std::fs::write(
        cwd.join("t.toml"),
        "format = \"round-robin\"\nengines = [\"random\", \"greedy\"]\ngames = 2\n",
    )
    .unwrap();
    let tournament = ["tournament", "t.toml", "--log-dir", dir_text];
    refused(&run(&tournament, &cwd, &server.url), "is not empty");
    refused(&run(&generate, &cwd, &server.url), "--force to replace it");
    assert_eq!(std::fs::read_to_string(dir.join("game-0001.jsonl")).unwrap(), before);
    assert!(run(&["eval", "--resume", dir_text, "--json"], &cwd, &server.url)
        .status
        .success());
}

#[test]
fn a_second_process_on_a_running_run_is_refused() {
    let server = model(Duration::from_millis(300));
    let cwd = temp_dir("run-folders", "locked");
    let dir = cwd.join("run");
    let dir_text = dir.to_str().unwrap();
    let args: Vec<&str> = EVAL.iter().copied().chain(["--log-dir", dir_text]).collect();
    let mut first = arena(&args, &cwd, &server.url)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while !dir.join("game-0001.jsonl").exists() {
        assert!(Instant::now() < deadline, "the first run did not start");
        std::thread::sleep(Duration::from_millis(50));
    }
    let second = run(&["eval", "--resume", dir_text], &cwd, &server.url);
    let still_running = first.try_wait().unwrap().is_none();
    refused(&second, "being written by another othello-arena process (pid");
    assert!(still_running, "the refusal came while the first run held the folder");
    assert!(first.wait().unwrap().success(), "the first run is not disturbed");
}

#[test]
fn an_output_never_lands_on_an_input_or_a_run_file() {
    let server = model(Duration::ZERO);
    let cwd = temp_dir("run-folders", "outputs");
    let dir = cwd.join("run");
    let dir_text = dir.to_str().unwrap();
    let args: Vec<&str> = EVAL.iter().copied().chain(["--log-dir", dir_text]).collect();
    assert!(run(&args, &cwd, &server.url).status.success());
    let game = dir.join("game-0001.jsonl");
    let before = std::fs::read_to_string(&game).unwrap();
    std::os::unix::fs::symlink(&dir, cwd.join("alias")).unwrap();
    let report_inside = dir.join("report.html");
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            vec!["report", dir_text, "-o", game.to_str().unwrap()],
            "inside the input folder",
        ),
        (
            vec!["report", dir_text, "-o", report_inside.to_str().unwrap()],
            "inside the input folder",
        ),
        (
            vec!["rate", dir_text, "--csv", "alias/game-0001.jsonl"],
            "inside the input folder",
        ),
        (vec!["stats", dir_text], ""),
        (
            vec![
                "play",
                "--black",
                "greedy",
                "--white",
                "random",
                "--csv",
                "alias/results.csv",
            ],
            "inside the run folder",
        ),
        (
            vec!["play", "--black", "greedy", "--white", "random", "--csv", "alias"],
            "is a folder",
        ),
    ];
    for (args, needle) in cases {
        if needle.is_empty() {
            assert!(run(&args, &cwd, &server.url).status.success());
            continue;
        }
        refused(&run(&args, &cwd, &server.url), needle);
    }
    let positions = cwd.join("positions.jsonl");
    let positions_text = positions.to_str().unwrap();
    let generate = [
        "positions",
        "generate",
        "--count",
        "2",
        "--empties",
        "50-52",
        "-o",
        positions_text,
    ];
    assert!(run(&generate, &cwd, &server.url).status.success());
    let kept = std::fs::read_to_string(&positions).unwrap();
    let probe = [
        "probe",
        "--agent",
        "llm:m",
        "--positions",
        positions_text,
        "--csv",
        positions_text,
    ];
    refused(&run(&probe, &cwd, &server.url), "it is the input");
    assert_eq!(std::fs::read_to_string(&positions).unwrap(), kept);
    assert_eq!(std::fs::read_to_string(&game).unwrap(), before);
}

/// The output flags `--help` lists, as (command words, flag), walking subcommands.
fn output_flags(cwd: &Path, words: &[&str]) -> Vec<(String, String)> {
    let help = run(&[words, &["--help"]].concat(), cwd, "127.0.0.1:9");
    let text = String::from_utf8_lossy(&help.stdout).into_owned();
    let mut found = Vec::new();
    let mut in_commands = false;
    for line in text.lines() {
        if line.starts_with("Commands:") {
            in_commands = true;
            continue;
        }
        if in_commands {
            match line.split_whitespace().next() {
                Some(sub) if line.starts_with("  ") && sub != "help" => {
                    found.extend(output_flags(cwd, &[words, &[sub]].concat()));
                }
                Some(_) if line.starts_with("  ") => {}
                _ => in_commands = false,
            }
            continue;
        }
        for flag in ["--output", "--csv"] {
            if line.trim_start().starts_with(flag) || line.contains(&format!(", {flag} ")) {
                found.push((words.join(" "), flag.to_string()));
            }
        }
    }
    found
}

#[test]
fn every_output_flag_of_every_command_refuses_a_run_file() {
    let server = model(Duration::ZERO);
    let cwd = temp_dir("run-folders", "every-output");
    let dir = cwd.join("run");
    let dir_text = dir.to_str().unwrap();
    let play = ["play", "--black", "greedy", "--white", "random", "--log-dir", dir_text];
    assert!(run(&play, &cwd, &server.url).status.success());
    let game = dir.join("game-0001.jsonl");
    let before = std::fs::read(&game).unwrap();
    let target = game.to_str().unwrap();
    let positions = cwd.join("positions.jsonl");
    let generate = ["positions", "generate", "--count", "2", "--empties", "50-52", "-o"];
    let made = run(
        &[&generate[..], &[positions.to_str().unwrap()]].concat(),
        &cwd,
        &server.url,
    );
    assert!(made.status.success(), "{}", stderr(&made));
    let positions = positions.to_str().unwrap();
    let cases: Vec<(&str, &str, Vec<&str>)> = vec![
        ("eval", "--csv", [&EVAL[..], &["--csv", target]].concat()),
        (
            "play",
            "--csv",
            vec!["play", "--black", "greedy", "--white", "random", "--csv", target],
        ),
        ("rate", "--csv", vec!["rate", dir_text, "--csv", target]),
        ("bundle", "--output", vec!["bundle", dir_text, "-o", target]),
        ("report", "--output", vec!["report", dir_text, "-o", target]),
        ("export", "--output", vec!["export", dir_text, "-o", target]),
        (
            "openings generate",
            "--output",
            vec!["openings", "generate", "--count", "1", "--depth", "1", "-o", target],
        ),
        (
            "modelfile",
            "--output",
            vec!["modelfile", "--from", "qwen2.5:0.5b", "-o", target],
        ),
        ("positions generate", "--output", [&generate[..], &[target]].concat()),
        (
            "probe",
            "--csv",
            vec!["probe", "--agent", "llm:m", "--positions", positions, "--csv", target],
        ),
        (
            "datagen",
            "--output",
            vec!["datagen", "--teacher", "greedy", "--count", "2", "-o", target],
        ),
        (
            "train-eval",
            "--output",
            vec!["train-eval", "--games", "2", "-o", target],
        ),
    ];
    let mut listed = output_flags(&cwd, &[]);
    listed.sort();
    let mut covered: Vec<(String, String)> = cases.iter().map(|(c, f, _)| (c.to_string(), f.to_string())).collect();
    covered.sort();
    assert_eq!(covered, listed, "every output flag --help lists has a case here");
    for (command, _, args) in &cases {
        let output = run(args, &cwd, &server.url);
        let text = stderr(&output);
        assert_eq!(output.status.code(), Some(2), "{command}: {text}");
        assert!(
            text.contains("inside the run folder") || text.contains("inside the input folder"),
            "{command}: {text}"
        );
        assert_eq!(std::fs::read(&game).unwrap(), before, "{command} touched the game log");
    }
}

#[test]
fn an_unwritable_output_fails_before_the_first_game() {
    let cwd = temp_dir("run-folders", "unwritable");
    let start = Instant::now();
    let output = run(
        &[
            "play",
            "--black",
            "n-hand:3",
            "--white",
            "n-hand:3",
            "--games",
            "200",
            "--csv",
            "no/such/folder/t.csv",
        ],
        &cwd,
        "127.0.0.1:9",
    );
    refused(
        &output,
        "bad --csv no/such/folder/t.csv\n  caused by: it cannot be written",
    );
    assert!(
        start.elapsed() < Duration::from_secs(20),
        "refused at once, not after 200 games"
    );
    let eval = ["eval", "--agent", "llm:m", "--csv", "/proc/nope.csv"];
    refused(&run(&eval, &cwd, "127.0.0.1:9"), "cannot be written");
    assert!(
        !cwd.join("logs").exists(),
        "no run folder made for a run that cannot finish"
    );
}

#[test]
fn settings_out_of_range_are_refused_with_the_range() {
    let cwd = temp_dir("run-folders", "ranges");
    let play = ["play", "--black", "greedy", "--white", "random"];
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["--games", "1000000000000"], "give 1 to 100000 games"),
        (vec!["--games", "99999999999999999999999"], "is not a whole number"),
        (vec!["--parallel", "0"], "give 1 to 1024"),
        (vec!["--opening-random", "61"], "give 0 to 50 plies"),
        (vec!["--exact-empties", "31", "--score-moves"], "give 0 to 30 empties"),
        (vec!["--reference-depth", "0", "--score-moves"], "give 1 to 12 plies"),
        (vec!["--timeout", "1e400"], "give seconds above 0, at most 86400"),
        (vec!["--timeout", "NaN"], "give seconds above 0"),
        (vec!["--temperature", "NaN"], "give a temperature from 0 to 10"),
        (vec!["--max-in-flight", "0"], "give 1 to 1024"),
        (vec!["--max-turns", "0"], "give 1 to 100"),
    ];
    for (extra, needle) in cases {
        let args: Vec<&str> = play.iter().copied().chain(extra).collect();
        refused(&run(&args, &cwd, "127.0.0.1:9"), needle);
    }
    refused(
        &run(&["wipeouts", "--vs", "greedy", "--max-plies", "0"], &cwd, "127.0.0.1:9"),
        "give 1 to 24 plies",
    );
    refused(&run(&["perft", "99"], &cwd, "127.0.0.1:9"), "give 0 to 20 plies");
    std::fs::write(cwd.join("agent.toml"), "max_turns = 0\n[options]\ntemperature = -1.0\n").unwrap();
    let agent_file = ["eval", "--agent", "llm:m", "--agent-file", "agent.toml"];
    refused(
        &run(&agent_file, &cwd, "127.0.0.1:9"),
        "temperature: -1 is out of range",
    );
    std::fs::write(cwd.join("agent.toml"), "max_turns = 0\n").unwrap();
    refused(
        &run(&agent_file, &cwd, "127.0.0.1:9"),
        "bad max_turns in --agent-file: 0 is out of range",
    );
    std::fs::write(
        cwd.join("t.toml"),
        "engines = [\"random\", \"greedy\"]\ngames = 2\nopening_random = 70\n",
    )
    .unwrap();
    refused(
        &run(&["tournament", "t.toml"], &cwd, "127.0.0.1:9"),
        "opening_random = 70 is out of range",
    );
}

#[test]
fn a_resumed_copy_writes_its_outputs_in_its_own_folder() {
    let server = model(Duration::ZERO);
    let cwd = temp_dir("run-folders", "copy");
    let original = cwd.join("original");
    let args: Vec<&str> = EVAL
        .iter()
        .copied()
        .chain(["--log-dir", original.to_str().unwrap(), "--csv", "table.csv"])
        .collect();
    assert!(run(&args, &cwd, &server.url).status.success());
    let table = std::fs::read_to_string(cwd.join("table.csv")).unwrap();
    // The copy lost its last game (as if interrupted) and is resumed elsewhere.
    let copy = cwd.join("copy");
    std::fs::create_dir(&copy).unwrap();
    for name in ["run.json", "game-0001.jsonl"] {
        std::fs::copy(original.join(name), copy.join(name)).unwrap();
    }
    std::fs::write(cwd.join("table.csv"), "kept\n").unwrap();
    let resumed = run(
        &["eval", "--resume", copy.to_str().unwrap(), "--json"],
        &cwd,
        &server.url,
    );
    assert!(resumed.status.success(), "{}", stderr(&resumed));
    assert_eq!(std::fs::read_to_string(cwd.join("table.csv")).unwrap(), "kept\n");
    let own = std::fs::read_to_string(copy.join("results.csv")).unwrap();
    assert_eq!(
        own.lines().nth(1).map(|l| l.split(',').skip(2).collect::<Vec<_>>()),
        table.lines().nth(1).map(|l| l.split(',').skip(2).collect::<Vec<_>>())
    );
}
