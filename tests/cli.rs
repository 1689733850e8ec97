//! The command line, run as a user runs it: output shapes, JSON keys, errors.

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn arena(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_othello-arena"))
        .args(args)
        .output()
        .expect("the binary runs")
}

fn stdout(output: &Output) -> String {
    assert!(
        output.status.success(),
        "failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout.clone()).unwrap()
}

fn json(args: &[&str]) -> serde_json::Value {
    serde_json::from_str(&stdout(&arena(args))).expect("one JSON object")
}

#[test]
fn perft_prints_the_count_last() {
    let out = stdout(&arena(&["perft", "9"]));
    assert_eq!(out.lines().last(), Some("3005288"));
    let out = stdout(&arena(&["perft", "9", "--convention", "c"]));
    assert_eq!(out.lines().last(), Some("3005320"));
    // From a given board: the start position as 64 characters, white to move.
    let start = "---------------------------OX------XO---------------------------";
    let out = stdout(&arena(&["perft", "3", "--board", start, "--side", "white"]));
    assert_eq!(out.lines().last(), Some("56"));
}

#[test]
fn bad_input_is_a_clear_error_with_exit_code_2() {
    for (args, needle) in [
        (vec!["perft", "3", "--convention", "z"], "[possible values: a, b, c]"),
        (vec!["perft", "3", "--board", "XO"], "board has 2 squares, expected 64"),
        (vec!["perft", "3", "--side", "red"], "[possible values: black, white]"),
        (vec!["analyze", "--engine", "minimax"], "valid specs: random, n-hand"),
        (
            vec!["analyze", "--engine", "greedy", "--moves", "d3 d3"],
            "illegal move d3 for white",
        ),
        (
            vec!["play", "--black", "greedy", "--white", "alphabeta"],
            "alphabeta needs a depth",
        ),
        (
            vec!["play", "--black", "greedy", "--white", "random", "--games", "0"],
            "give 1 to 100000 games",
        ),
        (vec!["wipeouts", "--vs", "human", "--max-plies", "3"], "not human"),
        (
            vec!["train-eval", "--search-depth", "2", "-o", "w.bin"],
            "shallower searches would read phases not fitted yet",
        ),
        (vec!["bench", "eval", "--empties", "40-45"], "1 to 30"),
        (vec!["bench", "probcut", "--empties", "12-40"], "1 to 30"),
        (
            vec!["bench", "probcut", "--positions", "1"],
            "needs at least 2 positions",
        ),
    ] {
        let output = arena(&args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(needle), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
}

#[test]
fn bench_probcut_prints_each_depths_error_for_each_number_of_empties() {
    let text = stdout(&arena(&["bench", "probcut", "--positions", "4", "--empties", "10-11"]));
    assert!(
        text.contains("4 self-play positions") && text.contains("depth 6"),
        "{text}"
    );
    for empties in ["10", "11"] {
        let row = text
            .lines()
            .find(|l| l.trim_start().starts_with(empties))
            .unwrap_or_else(|| panic!("{text}"));
        // Six cells of a signed mean and a standard deviation.
        assert_eq!(row.split_whitespace().count(), 1 + 2 * 6, "{row}");
    }
}

#[test]
fn analyze_json_has_the_documented_keys() {
    let value = json(&["analyze", "--engine", "n-hand:3", "--moves", "f5 f6", "--json"]);
    for key in ["move", "score", "nodes", "ms", "candidates"] {
        assert!(value.get(key).is_some(), "missing {key} in {value}");
    }
    let candidates = value["candidates"].as_array().unwrap();
    assert_eq!(candidates.len(), 4, "black has 4 moves after f5 f6: {value}");
    assert!(candidates
        .iter()
        .all(|c| c["move"].is_string() && c["value"].is_number()));
    // The text form lists the candidates the way seed 000's data does.
    let text = stdout(&arena(&["analyze", "--engine", "n-least:3", "--moves", "f5"]));
    assert!(text.contains("candidates:") && text.contains("<- chosen"), "{text}");
}

#[test]
fn play_json_csv_and_colors() {
    let dir = std::env::temp_dir().join(format!("othello-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let csv = dir.join("match.csv");
    let value = json(&[
        "play",
        "--black",
        "greedy",
        "--white",
        "random",
        "--games",
        "20",
        "--swap",
        "--opening-random",
        "4",
        "--seed",
        "3",
        "--csv",
        csv.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(value["games"], 20);
    let players = value["players"].as_array().unwrap();
    for p in players {
        for key in ["spec", "wins", "losses", "draws", "win_rate", "ci_low", "ci_high"] {
            assert!(p.get(key).is_some(), "missing {key} in {p}");
        }
        assert_eq!(
            p["as_black"]["games"], 10,
            "--swap gives each spec half the games as black"
        );
        let total = p["wins"].as_u64().unwrap() + p["losses"].as_u64().unwrap() + p["draws"].as_u64().unwrap();
        assert_eq!(total, 20);
        assert!(p["ci_low"].as_f64().unwrap() <= p["win_rate"].as_f64().unwrap());
        assert!(p["win_rate"].as_f64().unwrap() <= p["ci_high"].as_f64().unwrap());
    }
    assert_eq!(players[0]["wins"], players[1]["losses"]);
    let table = std::fs::read_to_string(&csv).unwrap();
    assert!(table.starts_with("player,color,games,wins,losses,draws,win_rate,ci_low,ci_high,mean_disc_diff\n"));
    assert_eq!(table.lines().count(), 7);
    // The text table shows per-color rows and intervals.
    let text = stdout(&arena(&[
        "play", "--black", "greedy", "--white", "random", "--games", "4", "--swap",
    ]));
    assert!(
        text.contains("95% CI (Wilson)") && text.contains("greedy  white"),
        "{text}"
    );
}

#[test]
fn show_prints_every_board() {
    let output = arena(&["play", "--black", "greedy", "--white", "search", "--show"]);
    let shown = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success());
    assert!(shown.matches("  a b c d e f g h").count() >= 30, "{shown}");
}

#[test]
fn human_plays_from_stdin_and_is_reprompted() {
    // A person who tries every square in order each turn: most tries are refused.
    let mut child = Command::new(env!("CARGO_BIN_EXE_othello-arena"))
        .args(["play", "--black", "human", "--white", "greedy", "--json"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let tries: String = (0..40)
        .flat_map(|_| ["zz".to_string()].into_iter().chain(squares()))
        .map(|s| s + "\n")
        .collect();
    let mut stdin = child.stdin.take().unwrap();
    // The game may end before all input is read; a broken pipe then is expected.
    let _ = stdin.write_all(tries.as_bytes());
    drop(stdin);
    let output = child.wait_with_output().unwrap();
    let prompts = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{prompts}");
    assert!(prompts.contains("is not legal here; choose one of"), "{prompts}");
    assert!(prompts.contains("invalid square \"zz\""));
    let value: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(value["games"], 1);
}

fn squares() -> impl Iterator<Item = String> {
    (1..=8).flat_map(|row| ('a'..='h').map(move |col| format!("{col}{row}")))
}

#[test]
fn wipeouts_reproduce_seed_001() {
    // Seed 001: two black lines wipe out the one-ply AI within 11 plies, none the search AI.
    let value = json(&["wipeouts", "--vs", "greedy", "--max-plies", "11", "--json"]);
    assert_eq!(value["count"], 2);
    let lines: Vec<&str> = value["sequences"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap())
        .collect();
    assert!(lines.contains(&"c4 c3 c2 c5 c6 d6 e6 f4 g4"), "{lines:?}");
    let value = json(&["wipeouts", "--vs", "search", "--max-plies", "11", "--json"]);
    assert_eq!(value["count"], 0);
}

#[test]
fn solve_reports_the_exact_result() {
    // FFO #1: G8, +18.
    let value = json(&[
        "solve",
        "--board",
        "--XXXXX--OOOXX-O-OOOXXOX-OXOXOXXOXXXOXXX--XOXOXX-XXXOOO--OOOOO--",
        "--side",
        "black",
        "--json",
    ]);
    assert_eq!(value["best_moves"], serde_json::json!(["g8"]));
    assert_eq!(value["score"], 18);
    assert!(value["nodes"].as_u64().unwrap() > 0 && value["ms"].is_number());
    let output = arena(&["solve"]);
    assert_eq!(output.status.code(), Some(2), "60 empties is refused with a reason");
}

#[test]
fn train_eval_writes_a_weights_file_and_its_hash_and_never_overwrites() {
    let dir = std::env::temp_dir().join(format!("othello-arena-train-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("w.bin");
    let path_text = path.to_str().unwrap();
    let args = [
        "train-eval",
        "--games",
        "8",
        "--epochs",
        "3",
        "--exact-empties",
        "8",
        "-o",
        path_text,
    ];
    let out = stdout(&arena(&args));
    let bytes = std::fs::read(&path).unwrap();
    assert!(bytes.starts_with(b"OAPW"), "a weights file");
    let hash = out
        .lines()
        .last()
        .unwrap()
        .strip_prefix("sha256 ")
        .expect("the hash last");
    assert_eq!(hash, engines::pattern::sha256_hex(&bytes));
    assert!(out.contains("phase  empties  exact  searched"), "{out}");
    let again = arena(&args);
    assert_eq!(again.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&again.stderr).contains("--force to replace it"));
    assert_eq!(std::fs::read(&path).unwrap(), bytes, "the file is untouched");
    std::fs::remove_dir_all(&dir).unwrap();
}
