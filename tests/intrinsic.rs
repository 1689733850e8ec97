//! Intrinsic ratings end to end: `play --score-moves` keeps the values of every legal
//! move, `rate --write-intrinsic` calibrates on a small ladder byte for byte, `rate`
//! prints and returns the intrinsic table, and old runs without values rate by
//! results as before with a note.

use std::path::{Path, PathBuf};

use crate::support::run_arena;
use serde_json::Value;

fn arena_ok(args: &[&str]) -> String {
    let output = run_arena(args, "127.0.0.1:9");
    assert!(
        output.status.success(),
        "{args:?} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("othello-intrinsic-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Four games of `engine` against greedy, every move valued by reference:4:14.
fn play(root: &Path, engine: &str) -> String {
    let dir = root.join(engine.replace(':', "-"));
    let dir_text = dir.to_str().unwrap().to_string();
    arena_ok(&[
        "play",
        "--black",
        engine,
        "--white",
        "greedy",
        "--games",
        "4",
        "--swap",
        "--opening-random",
        "4",
        "--seed",
        "17",
        "--score-moves",
        "--exact-empties",
        "14",
        "--reference-depth",
        "4",
        "--log-dir",
        &dir_text,
        "--json",
    ]);
    dir_text
}

const SMALL_LADDER: &str = r#"source = "a small ladder for a test"
anchor = "greedy=300"
games = 0

[[rung]]
player = "search"
elo = 1065.6
low = 955.2
high = 1230.3
games = 640

[[rung]]
player = "alphabeta:3:weight"
elo = 451.6
low = 403.6
high = 506.1
games = 640

[[rung]]
player = "alphabeta:1:weight"
elo = 325.4
low = 282.8
high = 371.6
games = 640

[[rung]]
player = "greedy"
elo = 300.1
low = 253.4
high = 348.4
games = 640
"#;

#[test]
fn a_small_ladder_calibrates_byte_for_byte_and_rate_shows_the_table() {
    let root = temp("ladder");
    let runs: Vec<String> = ["search", "alphabeta:3:weight", "alphabeta:1:weight"]
        .iter()
        .map(|e| play(&root, e))
        .collect();
    // Every valued line holds every legal move, the played one among them.
    let line = std::fs::read_to_string(Path::new(&runs[0]).join("move-scores.jsonl")).unwrap();
    for line in line.lines().map(|l| serde_json::from_str::<Value>(l).unwrap()) {
        let values = line["values"].as_array().unwrap();
        assert!(values.iter().any(|v| v[0] == line["move"]), "{line}");
    }
    let ladder = root.join("ladder.toml");
    std::fs::write(&ladder, SMALL_LADDER).unwrap();
    let calibration = root.join("calibration.toml");
    let write = || {
        let mut args: Vec<&str> = vec!["rate"];
        args.extend(runs.iter().map(String::as_str));
        args.extend(["--ladder", ladder.to_str().unwrap(), "--write-intrinsic"]);
        args.extend([calibration.to_str().unwrap(), "--force", "--bootstrap", "100"]);
        arena_ok(&args);
        std::fs::read(&calibration).unwrap()
    };
    let first = write();
    assert_eq!(first, write(), "the calibration is rebuilt byte for byte");
    let text = String::from_utf8(first).unwrap();
    assert!(
        text.contains("model = \"softmax\"") || text.contains("model = \"regan\""),
        "{text}"
    );
    // The reference that valued the runs (rate's default: the shipped calibration's).
    assert!(
        text.contains("\n[reference]\nexact_empties = 14\ndepth = 4\n"),
        "{text}"
    );

    let mut args: Vec<&str> = vec!["rate"];
    args.extend(runs.iter().map(String::as_str));
    args.extend([
        "--intrinsic",
        calibration.to_str().unwrap(),
        "--bootstrap",
        "100",
        "--anchor",
        "greedy=300",
    ]);
    let table = arena_ok(&args);
    assert!(table.contains("Intrinsic ratings"), "{table}");
    args.push("--json");
    let json: Value = serde_json::from_str(&arena_ok(&args)).unwrap();
    let rows = json["intrinsic"]["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 4, "the three rungs and greedy: {rows:?}");
    for row in rows {
        for key in ["player", "elo", "low", "high", "decisions"] {
            assert!(row.get(key).is_some(), "{key} in {row}");
        }
        assert!(row["decisions"].as_u64().unwrap() > 50, "{row}");
        if let (Some(elo), Some(low), Some(high)) = (row["elo"].as_f64(), row["low"].as_f64(), row["high"].as_f64()) {
            assert!(low <= elo && elo <= high, "{row}");
        }
    }

    // Only decisions with stakes: the file says so, and rate fits players on the same.
    let mut args: Vec<&str> = vec!["rate"];
    args.extend(runs.iter().map(String::as_str));
    args.extend(["--ladder", ladder.to_str().unwrap(), "--write-intrinsic"]);
    args.extend([calibration.to_str().unwrap(), "--force", "--bootstrap", "100"]);
    args.extend([
        "--intrinsic-min-spread",
        "8",
        "--intrinsic",
        calibration.to_str().unwrap(),
        "--json",
    ]);
    let json: Value = serde_json::from_str(&arena_ok(&args)).unwrap();
    let text = std::fs::read_to_string(&calibration).unwrap();
    assert!(
        text.contains("[decisions]") && text.contains("min_spread = 8.0"),
        "{text}"
    );
    assert!(text.contains("--intrinsic-min-spread 8"), "{text}");
    let fewer = json["intrinsic"]["rows"][0]["decisions"].as_u64().unwrap();
    assert!(fewer < rows[0]["decisions"].as_u64().unwrap(), "{fewer} {rows:?}");

    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn old_runs_without_values_rate_by_results_as_before_with_a_note() {
    // `--no-value`: rate would value the fixture's decisions and write them into it.
    let run = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/runs/play");
    let text = arena_ok(&["rate", run, "--anchor", "greedy=0", "--no-value"]);
    assert!(text.contains("Ratings (as played)"), "{text}");
    assert!(text.contains("has no valued decisions"), "{text}");
    let json: Value = serde_json::from_str(&arena_ok(&[
        "rate",
        run,
        "--anchor",
        "greedy=0",
        "--no-value",
        "--json",
    ]))
    .unwrap();
    assert_eq!(json["intrinsic"]["rows"], Value::Array(Vec::new()));
    assert!(json["as_played"]["rows"].as_array().is_some_and(|r| !r.is_empty()));
}

#[test]
fn report_shows_rates_intrinsic_table_through_the_shipped_calibration() {
    let root = temp("report");
    let run = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/runs/eval");
    let page = root.join("report.html");
    arena_ok(&["report", run, "-o", page.to_str().unwrap()]);
    let html = std::fs::read_to_string(&page).unwrap();
    // The eval run predates kept values: the table is there, with rate's note.
    assert!(
        html.contains("\"intrinsic\":\"Intrinsic ratings (softmax model"),
        "no intrinsic table in the page"
    );
    assert!(html.contains("has no valued decisions"), "no note on the old run");
    let _ = std::fs::remove_dir_all(&root);
}
