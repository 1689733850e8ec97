//! Interrupted evaluations: SIGKILL then `eval --resume`, Ctrl-C once (partial table,
//! unfinished games logged) and twice (quit at once), through the binary against the
//! scripted Ollama server on 127.0.0.1. The stub stands in for a slow model that always
//! answers the last legal move, so an unbroken run and a resumed one must agree move
//! for move.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::{game_log_names, legal_moves_in, Reply, StubServer};
use record::{read_game_log, Event, Notation};
use serde_json::Value;

fn slow_model(delay: Duration) -> StubServer {
    StubServer::start_routed(move |path, request, _| {
        if path == "/api/chat" {
            std::thread::sleep(delay);
        }
        Reply::content(legal_moves_in(request).last().map_or("pass", String::as_str))
    })
}

const RUN: [&str; 12] = [
    "eval",
    "--agent",
    "llm:stub",
    "--vs",
    "random,n-hand:2",
    "--games",
    "2",
    "--opening-random",
    "4",
    "--seed",
    "7",
    "--json",
];

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("othello-resume-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn command(args: &[&str], host: &str) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_othello-arena"));
    command.args(args).env("OLLAMA_HOST", host);
    command
}

fn start_run(dir: &Path, host: &str, parallel: &str) -> Child {
    let dir = dir.to_str().unwrap();
    let args: Vec<&str> = RUN
        .iter()
        .copied()
        .chain(["--log-dir", dir, "--parallel", parallel])
        .collect();
    command(&args, host)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts")
}

/// Number of game logs in `dir` that hold a `game_end` line.
fn finished_logs(dir: &Path) -> usize {
    (1..=8)
        .filter(|n| {
            std::fs::read_to_string(dir.join(format!("game-{n:04}.jsonl"))).is_ok_and(|t| t.contains("\"game_end\""))
        })
        .count()
}

fn wait_for_finished(dir: &Path, count: usize) {
    let deadline = Instant::now() + Duration::from_secs(120);
    while finished_logs(dir) < count {
        assert!(
            Instant::now() < deadline,
            "no {count} finished games in {}",
            dir.display()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Every game's moves (from its game_end record), by log file name.
fn games(dir: &Path) -> Vec<(String, Vec<Notation>)> {
    game_log_names(dir)
        .into_iter()
        .map(|name| {
            let records = read_game_log(&dir.join(&name)).expect("every log line is whole");
            let moves = records
                .iter()
                .find_map(|r| match &r.event {
                    Event::GameEnd(end) => Some(end.moves.clone()),
                    _ => None,
                })
                .unwrap_or_default();
            (name, moves)
        })
        .collect()
}

/// The results without timings, paths and host usage.
fn results(stdout: &[u8]) -> Value {
    let mut value: Value = serde_json::from_slice(stdout).expect("--json prints one object");
    let strip = |agent: &mut Value| {
        let agent = agent.as_object_mut().unwrap();
        agent.remove("latency_ms_p50");
        agent.remove("latency_ms_p95");
        agent.remove("seconds_per_move");
    };
    strip(&mut value["agent"]);
    for opponent in value["opponents"].as_array_mut().unwrap() {
        strip(&mut opponent["agent"]);
    }
    // Per-host usage counts every request sent, the interrupted games' too: not a result.
    value.as_object_mut().unwrap().remove("hosts");
    value.as_object_mut().unwrap().remove("log_dir");
    value
}

fn unbroken_run(name: &str, host: &str) -> (Value, Vec<(String, Vec<Notation>)>) {
    let dir = temp_dir(name);
    let output = start_run(&dir, host, "2").wait_with_output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    (results(&output.stdout), games(&dir))
}

fn send_sigint(child: &Child) {
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(status.success());
}

#[test]
fn a_run_killed_with_sigkill_resumes_to_the_results_of_an_unbroken_run() {
    let server = slow_model(Duration::from_millis(15));
    let (expected, expected_games) = unbroken_run("unbroken-1", &server.url);
    let dir = temp_dir("killed");
    let mut child = start_run(&dir, &server.url, "2");
    wait_for_finished(&dir, 3);
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let finished_before = finished_logs(&dir);
    assert!(finished_before < 8, "the run ended before it could be killed");

    let output = command(&["eval", "--resume", dir.to_str().unwrap(), "--json"], &server.url)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(
        stderr.contains(&format!("{finished_before} of 8 games already finished")),
        "{stderr}"
    );
    assert_eq!(results(&output.stdout), expected);
    assert_eq!(games(&dir), expected_games, "same games, move for move");
    let run: Value = serde_json::from_str(&std::fs::read_to_string(dir.join("run.json")).unwrap()).unwrap();
    assert_eq!(run["resumes"].as_array().map(Vec::len), Some(1));
    assert_eq!(run["resumes"][0]["games_finished_before"], finished_before);
    // A log the kill cut short is kept beside the replayed game, never overwritten.
    let kept = std::fs::read_dir(&dir)
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .contains(".unfinished-")
        })
        .count();
    assert!(kept <= 2, "at most the two games in flight were unfinished");
}

#[test]
fn ctrl_c_once_records_unfinished_games_and_prints_a_partial_table() {
    let server = slow_model(Duration::from_millis(15));
    let (expected, expected_games) = unbroken_run("unbroken-2", &server.url);
    let dir = temp_dir("ctrl-c");
    let child = start_run(&dir, &server.url, "2");
    wait_for_finished(&dir, 2);
    send_sigint(&child);
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(130));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("continue with: othello-arena eval --resume"),
        "{stderr}"
    );
    let partial = results(&output.stdout);
    assert_eq!(partial["complete"], false);
    let unfinished = partial["unfinished_games"].as_u64().unwrap() as usize;
    assert!(unfinished > 0);
    // Every line of every log is whole; games stopped in flight say so.
    let logs = games(&dir);
    let stopped = logs
        .iter()
        .filter(|(name, _)| {
            read_game_log(&dir.join(name))
                .unwrap()
                .iter()
                .any(|r| matches!(r.event, Event::GameStopped(_)))
        })
        .count();
    assert!((1..=2).contains(&stopped), "{stopped} games stopped in flight");
    assert_eq!(
        logs.iter().filter(|(_, moves)| !moves.is_empty()).count(),
        8 - unfinished
    );

    let output = command(&["eval", "--resume", dir.to_str().unwrap(), "--json"], &server.url)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert_eq!(results(&output.stdout), expected);
    assert_eq!(games(&dir), expected_games);
}

#[test]
fn ctrl_c_twice_quits_at_once_without_a_torn_line() {
    // A model that takes a minute per answer: only the second Ctrl-C can end the run soon.
    let server = slow_model(Duration::from_secs(60));
    let dir = temp_dir("ctrl-c-twice");
    let child = start_run(&dir, &server.url, "2");
    let deadline = Instant::now() + Duration::from_secs(30);
    while server.chat_requests().len() < 2 {
        assert!(Instant::now() < deadline, "no request reached the server");
        std::thread::sleep(Duration::from_millis(20));
    }
    send_sigint(&child);
    std::thread::sleep(Duration::from_millis(200));
    send_sigint(&child);
    let started = Instant::now();
    let output = child.wait_with_output().unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "the second Ctrl-C did not quit"
    );
    assert_eq!(output.status.code(), Some(130));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(&format!(
            "quitting now: unfinished games are played again by othello-arena eval --resume {}",
            dir.display()
        )),
        "{stderr}"
    );
    for (name, _) in games(&dir) {
        let text = std::fs::read_to_string(dir.join(&name)).unwrap();
        assert!(text.ends_with('\n'), "{name} ends in a torn line");
    }
}

#[test]
fn resume_refuses_a_folder_that_is_not_an_eval_run() {
    let dir = temp_dir("not-a-run");
    std::fs::create_dir_all(&dir).unwrap();
    let output = command(&["eval", "--resume", dir.to_str().unwrap()], "http://127.0.0.1:9")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("bad --resume") && stderr.contains("run.json"),
        "{stderr}"
    );

    let output = command(
        &["eval", "--resume", dir.to_str().unwrap(), "--games", "3"],
        "http://127.0.0.1:9",
    )
    .output()
    .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("cannot be used with"), "{stderr}");
}

#[test]
fn a_resume_refuses_a_prompt_whose_file_changed_since_the_run_started() {
    let server = slow_model(Duration::ZERO);
    let dir = temp_dir("changed-prompt");
    std::fs::create_dir_all(&dir).unwrap();
    let prompt = dir.with_extension("prompt.txt");
    std::fs::write(&prompt, "You play Othello. Answer with one move.").unwrap();
    let run = dir.join("run");
    let (run_text, prompt_text) = (run.to_str().unwrap(), prompt.to_str().unwrap());
    let first = [
        "eval",
        "--agent",
        "llm:stub",
        "--vs",
        "random",
        "--games",
        "1",
        "--mode",
        "direct",
        "--system",
        prompt_text,
        "--log-dir",
        run_text,
    ];
    let output = command(&first, &server.url).output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let resume = ["eval", "--resume", run_text];
    let output = command(&resume, &server.url).output().unwrap();
    assert!(
        output.status.success(),
        "an unchanged prompt resumes: {}",
        String::from_utf8_lossy(&output.stderr)
    );

    std::fs::write(&prompt, "You play Othello. Think first, then answer.").unwrap();
    let before = std::fs::read(run.join("run.json")).unwrap();
    let output = command(&resume, &server.url).output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("not the ones the run recorded")
            && stderr.contains("system_prompt")
            && stderr.contains("its text changed"),
        "{stderr}"
    );
    assert_eq!(
        std::fs::read(run.join("run.json")).unwrap(),
        before,
        "a refused resume records nothing"
    );
}

/// A gauntlet of the scripted model (`host`) against two engines, started in `dir`.
fn start_tournament(dir: &Path, host: &str) -> Child {
    let file = dir.with_extension("toml");
    let text = format!(
        "format = \"gauntlet\"\nengines = [\"random\", \"greedy\"]\ngames = 4\nseed = 3\n\n\
         [[llm]]\nmodel = \"stub\"\nhost = [\"{host}\"]\n"
    );
    std::fs::write(&file, text).unwrap();
    let args = [
        "tournament",
        file.to_str().unwrap(),
        "--log-dir",
        dir.to_str().unwrap(),
        "--parallel",
        "2",
    ];
    command(&args, "127.0.0.1:9")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts")
}

#[test]
fn an_interrupted_tournament_names_the_tournament_resume() {
    let server = slow_model(Duration::from_millis(15));
    let dir = temp_dir("tournament-ctrl-c");
    let child = start_tournament(&dir, &server.url);
    wait_for_finished(&dir, 1);
    send_sigint(&child);
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(130));
    let stderr = String::from_utf8_lossy(&output.stderr);
    let hint = format!("continue with: othello-arena tournament --resume {}", dir.display());
    assert!(stderr.contains(&hint), "{stderr}");
    // The command it names continues the run.
    let output = command(&["tournament", "--resume", dir.to_str().unwrap()], "127.0.0.1:9")
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert_eq!(finished_logs(&dir), 8);
}

#[test]
fn a_tournament_quit_with_two_ctrl_c_names_the_tournament_resume() {
    let server = slow_model(Duration::from_secs(60));
    let dir = temp_dir("tournament-ctrl-c-twice");
    let child = start_tournament(&dir, &server.url);
    let deadline = Instant::now() + Duration::from_secs(30);
    while server.chat_requests().is_empty() {
        assert!(Instant::now() < deadline, "no request reached the server");
        std::thread::sleep(Duration::from_millis(20));
    }
    send_sigint(&child);
    std::thread::sleep(Duration::from_millis(200));
    send_sigint(&child);
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(130));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(&format!(
            "quitting now: unfinished games are played again by othello-arena tournament --resume {}",
            dir.display()
        )),
        "{stderr}"
    );
}

#[test]
fn a_tournament_resume_refuses_an_agent_file_that_changed_since_the_run_started() {
    let server = slow_model(Duration::ZERO);
    let dir = temp_dir("changed-agent-file");
    std::fs::create_dir_all(&dir).unwrap();
    let agent_file = dir.join("agent.toml");
    std::fs::write(&agent_file, "mode = \"direct\"\nmax_turns = 2\n").unwrap();
    let file = dir.join("tournament.toml");
    let text = format!(
        "format = \"gauntlet\"\nengines = [\"random\"]\ngames = 2\nseed = 3\n\n\
         [[llm]]\nmodel = \"stub\"\nhost = [\"{}\"]\nagent_file = \"{}\"\n",
        server.url,
        agent_file.display()
    );
    std::fs::write(&file, text).unwrap();
    let run = dir.join("run");
    let run_text = run.to_str().unwrap();
    let output = command(
        &["tournament", file.to_str().unwrap(), "--log-dir", run_text],
        "127.0.0.1:9",
    )
    .output()
    .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let resume = ["tournament", "--resume", run_text];
    let output = command(&resume, "127.0.0.1:9").output().unwrap();
    assert!(
        output.status.success(),
        "unchanged, it resumes: {}",
        String::from_utf8_lossy(&output.stderr)
    );

    std::fs::write(&agent_file, "mode = \"direct\"\nmax_turns = 5\n").unwrap();
    let output = command(&resume, "127.0.0.1:9").output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("not the ones the run recorded") && stderr.contains("llm:stub: max_turns: 2 then, 5 now"),
        "{stderr}"
    );
}

/// Stands in for a folder whose logs came from a run with other openings (copied in,
/// or a run.json edited): the resume refuses the game instead of mixing openings.
#[test]
fn a_resume_refuses_a_finished_game_whose_opening_is_not_the_runs() {
    let server = slow_model(Duration::ZERO);
    let dir = temp_dir("other-opening");
    let eval = |opening: &str, run: &Path| {
        let args = [
            "eval",
            "--agent",
            "llm:stub",
            "--vs",
            "random",
            "--games",
            "1",
            "--seed",
            "5",
            "--opening-random",
            opening,
            "--log-dir",
            run.to_str().unwrap(),
        ];
        let output = command(&args, &server.url).output().unwrap();
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    };
    let (four, none) = (dir.join("four"), dir.join("none"));
    eval("4", &four);
    eval("0", &none);
    std::fs::copy(four.join("game-0001.jsonl"), none.join("game-0001.jsonl")).unwrap();
    let output = command(&["eval", "--resume", none.to_str().unwrap()], &server.url)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("game 1 was played by")
            && stderr.contains("but this run schedules")
            && stderr.contains("opening []: resume"),
        "{stderr}"
    );
}

#[test]
fn an_eval_on_a_suite_resumes_only_with_the_suite_it_played() {
    let server = slow_model(Duration::ZERO);
    let dir = temp_dir("changed-suite");
    std::fs::create_dir_all(&dir).unwrap();
    let suite = dir.with_extension("suite.txt");
    std::fs::write(&suite, "f5d6c3\nf5f6\n").unwrap();
    let run = dir.join("run");
    let (run_text, suite_text) = (run.to_str().unwrap(), suite.to_str().unwrap());
    let first = [
        "eval",
        "--agent",
        "llm:stub",
        "--vs",
        "random",
        "--games",
        "2",
        "--mode",
        "direct",
        "--openings",
        suite_text,
        "--log-dir",
        run_text,
    ];
    let output = command(&first, &server.url).output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let start = |game: &str| -> Value {
        let log = std::fs::read_to_string(run.join(game)).unwrap();
        serde_json::from_str(log.lines().next().unwrap()).unwrap()
    };
    assert_eq!(start("game-0003.jsonl")["opening"], serde_json::json!(["f5", "f6"]));
    let resume = ["eval", "--resume", run_text];
    std::fs::write(&suite, "f5d6c3\nf5f4\n").unwrap();
    let output = command(&resume, &server.url).output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "a changed suite must not continue the run");
    assert!(stderr.contains("is not the one the run played"), "{stderr}");
    std::fs::write(&suite, "f5d6c3\nf5f6\n").unwrap();
    let output = command(&resume, &server.url).output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
}
