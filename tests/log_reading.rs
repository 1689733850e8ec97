//! How the commands that count games (`stats`, `report`, `compare`, `rate`) and
//! `replay` read logs: strictly where a log is wrong (another `schema_version`, a bad
//! line before the last, a move against the rules), forgivingly where a crash cut the
//! last line (an unfinished game, with a note), and each log once however many paths
//! reach it. The logs are copies of a recorded game (tests/data/golden), altered. And
//! every log the tests keep (pinned, old runs, golden) reads as typed records that write
//! back to its very bytes.

use std::path::{Path, PathBuf};
use std::process::Output;

use crate::support::{run_arena, temp_dir};
use serde_json::Value;

const GOLDEN: &str = "tests/data/golden/local-tools-game.jsonl";

/// Runs the binary (no model server is needed).
fn arena(args: &[&str]) -> Output {
    run_arena(args, "127.0.0.1:9")
}

fn arg(path: &Path) -> &str {
    path.to_str().expect("temporary paths are UTF-8")
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// The JSON a successful command printed.
fn json_out(output: &Output) -> Value {
    assert!(output.status.success(), "{}", stderr(output));
    serde_json::from_slice(&output.stdout).expect("the output is JSON")
}

/// The error of a command that must fail with exit code 2.
fn refused(output: &Output) -> String {
    assert_eq!(
        output.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&output.stdout)
    );
    stderr(output)
}

fn golden_lines() -> Vec<String> {
    std::fs::read_to_string(GOLDEN)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

/// The index of the golden game's first `move` line.
fn first_move_line(lines: &[String]) -> usize {
    lines
        .iter()
        .position(|l| l.contains("\"type\":\"move\""))
        .expect("the game has moves")
}

/// A run folder (with a run.json) holding the golden game as `game-0001.jsonl`.
fn run_dir(test: &str, name: &str) -> PathBuf {
    let dir = temp_dir(&format!("log-reading-{test}"), name);
    std::fs::copy(GOLDEN, dir.join("game-0001.jsonl")).unwrap();
    std::fs::write(dir.join("run.json"), r#"{"agent": {"model": "qwen2.5-coder-0.5b"}}"#).unwrap();
    dir
}

/// `stats --json`'s one group: (games counted, unfinished games).
fn counted(stats: &Value) -> (u64, u64) {
    let groups = stats["groups"].as_array().unwrap();
    assert_eq!(groups.len(), 1, "{stats}");
    let wins = groups[0]["overall"]["wins"].as_u64().unwrap();
    let losses = groups[0]["overall"]["losses"].as_u64().unwrap();
    let draws = groups[0]["overall"]["draws"].as_u64().unwrap();
    (wins + losses + draws, groups[0]["unfinished_games"].as_u64().unwrap())
}

#[test]
fn an_unknown_schema_version_is_refused_naming_it() {
    let dir = run_dir("version", "run");
    let mut lines = golden_lines();
    lines[2] = lines[2].replacen("\"schema_version\":1", "\"schema_version\":2", 1);
    let log = dir.join("game-0001.jsonl");
    std::fs::write(&log, lines.join("\n") + "\n").unwrap();
    let want = format!(
        "{}:3: schema_version 2 is not one this build reads (it reads version 1)",
        log.display()
    );
    for args in [
        vec!["stats", arg(&dir)],
        vec!["rate", arg(&dir)],
        vec!["replay", arg(&log)],
    ] {
        let err = refused(&arena(&args));
        assert!(err.contains(&want), "{args:?}: {err}");
    }
    // Also when the line with another version is the last: it is whole, not cut off.
    let mut lines = golden_lines();
    let last = lines.len() - 1;
    lines[last] = lines[last].replacen("\"schema_version\":1", "\"schema_version\":3", 1);
    std::fs::write(&log, lines.join("\n") + "\n").unwrap();
    assert!(refused(&arena(&["stats", arg(&dir)])).contains("schema_version 3"));
}

#[test]
fn a_log_cut_mid_line_is_an_unfinished_game_with_a_note() {
    let dirs = [run_dir("cut", "a"), run_dir("cut", "b")];
    // The second game of run a stopped while line 30 was being written.
    let lines = golden_lines();
    let cut = &lines[29][..lines[29].len() / 2];
    let torn = dirs[0].join("game-0002.jsonl");
    std::fs::write(&torn, lines[..29].join("\n") + "\n" + cut).unwrap();
    let note = format!("{}: the last line was cut off", torn.display());

    let stats = arena(&["stats", arg(&dirs[0]), "--json"]);
    let json = json_out(&stats);
    assert_eq!(counted(&json), (1, 1), "the cut game is unfinished: {json}");
    assert!(json["notes"][0].as_str().unwrap().starts_with(&note), "{json}");
    assert!(stderr(&stats).contains(&format!("note: {note}")));
    let text = arena(&["stats", arg(&dirs[0])]);
    assert!(
        text.status.success() && stderr(&text).contains(&note),
        "{}",
        stderr(&text)
    );

    let compare = arena(&["compare", arg(&dirs[0]), arg(&dirs[1]), "--json"]);
    let json = json_out(&compare);
    assert!(json["notes"][0].as_str().unwrap().starts_with(&note), "{json}");
    assert!(stderr(&compare).contains(&note));

    let rate = arena(&["rate", arg(&dirs[0]), "--json"]);
    let json = json_out(&rate);
    assert_eq!(json["as_played"]["games"], 1, "only the finished game is rated: {json}");
    assert!(stderr(&rate).contains(&note), "{}", stderr(&rate));

    let page = dirs[1].parent().unwrap().join("log-reading-cut-report.html");
    let report = arena(&["report", arg(&dirs[0]), "-o", arg(&page)]);
    assert!(report.status.success(), "{}", stderr(&report));
    assert!(stderr(&report).contains(&note));
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(
        html.contains("the last line was cut off"),
        "the page's data holds the note"
    );
    let _ = std::fs::remove_file(&page);

    let replay = arena(&["replay", arg(&torn)]);
    assert!(replay.status.success(), "{}", stderr(&replay));
    assert!(String::from_utf8_lossy(&replay.stdout).ends_with("the log ends before the game does\n"));
    assert!(stderr(&replay).contains(&note));

    // A line cut in the middle of a file is no crash's doing: an error naming file and line.
    std::fs::write(
        &torn,
        lines[..29].join("\n") + "\n" + cut + "\n" + &lines[30..].join("\n") + "\n",
    )
    .unwrap();
    for command in ["stats", "rate"] {
        let err = refused(&arena(&[command, arg(&dirs[0])]));
        assert!(
            err.contains(&format!("{}:30: not a log record", torn.display())),
            "{command}: {err}"
        );
    }
}

#[test]
fn the_same_log_given_twice_counts_once() {
    let dir = run_dir("twice", "run");
    let log = dir.join("game-0001.jsonl");
    let link = dir
        .parent()
        .unwrap()
        .join(format!("othello-log-reading-twice-link-{}", std::process::id()));
    let _ = std::fs::remove_file(&link);
    std::os::unix::fs::symlink(&dir, &link).unwrap();
    let slash = format!("{}/", dir.display());
    let through_link = link.join("game-0001.jsonl");
    let paths = [arg(&dir), &slash, arg(&log), arg(&link), arg(&through_link)];

    let once = json_out(&arena(&["stats", arg(&dir), "--json"]));
    assert_eq!(counted(&once), (1, 0));
    let stats = json_out(&arena(&[&["stats", "--json"][..], &paths].concat()));
    assert_eq!(counted(&stats), (1, 0), "{stats}");
    assert_eq!(stats["groups"], once["groups"]);
    assert!(
        stats["notes"][0]
            .as_str()
            .unwrap()
            .contains("4 game log(s) reached by more than one"),
        "{stats}"
    );

    let rate = json_out(&arena(&[&["rate", "--json"][..], &paths].concat()));
    assert_eq!(rate["as_played"]["games"], 1, "{rate}");

    let page = dir
        .parent()
        .unwrap()
        .join(format!("log-reading-twice-{}.html", std::process::id()));
    let report = arena(&[&["report", "-o", arg(&page)][..], &paths].concat());
    assert!(report.status.success(), "{}", stderr(&report));
    assert!(String::from_utf8_lossy(&report.stdout).contains("(1 games)"));
    let _ = std::fs::remove_file(&page);
    let _ = std::fs::remove_file(&link);
}

#[test]
fn a_log_with_an_illegal_move_is_refused_by_stats() {
    let dir = run_dir("illegal", "run");
    let log = dir.join("game-0001.jsonl");
    let lines = golden_lines();
    let first_move = first_move_line(&lines);
    assert!(lines[first_move].contains("\"ply\":51,") && lines[first_move].contains("\"move\":\"g1\""));

    // c4 is the opening's first move: that square is taken.
    let mut altered = lines.clone();
    altered[first_move] = altered[first_move].replacen("\"move\":\"g1\"", "\"move\":\"c4\"", 1);
    std::fs::write(&log, altered.join("\n") + "\n").unwrap();
    let place = format!("{}", first_move + 1);
    let page = dir
        .parent()
        .unwrap()
        .join(format!("log-reading-illegal-{}.html", std::process::id()));
    for args in [
        vec!["stats", arg(&dir)],
        vec!["rate", arg(&dir)],
        vec!["report", arg(&dir), "-o", arg(&page)],
        vec!["replay", arg(&log)],
    ] {
        let err = refused(&arena(&args));
        assert!(err.contains(arg(&log)), "{args:?} names the file: {err}");
        assert!(
            err.contains(&format!("line {place}, ply 51: ")),
            "{args:?} names the ply: {err}"
        );
    }

    // A move by the side not to move.
    let mut altered = lines.clone();
    altered[first_move] = altered[first_move].replacen("\"color\":\"black\"", "\"color\":\"white\"", 1);
    std::fs::write(&log, altered.join("\n") + "\n").unwrap();
    let err = refused(&arena(&["stats", arg(&dir)]));
    assert!(err.contains("ply 51: white moves, but black is to move"), "{err}");

    // An end that the moves do not reach: the tally would count a wipeout.
    let mut altered = lines.clone();
    let last = altered.len() - 1;
    altered[last] = altered[last].replacen(
        "\"black_discs\":49,\"white_discs\":15",
        "\"black_discs\":64,\"white_discs\":0",
        1,
    );
    std::fs::write(&log, altered.join("\n") + "\n").unwrap();
    let err = refused(&arena(&["stats", arg(&dir)]));
    assert!(
        err.contains("the moves end at 49-15 (game over), the game_end record says 64-0"),
        "{err}"
    );
}

/// `report` over an LLM run and a run of engines alone shows the games of both (a
/// report that dropped the second run's games said nothing of it).
#[test]
fn report_shows_every_run_it_is_given() {
    let llm = run_dir("report-every-run", "llm");
    let engines = temp_dir("log-reading-report-every-run", "engines");
    let played = arena(&[
        "play",
        "--black",
        "random",
        "--white",
        "greedy",
        "--games",
        "2",
        "--log-dir",
        arg(&engines),
    ]);
    assert!(played.status.success(), "{}", stderr(&played));
    let page = llm
        .parent()
        .unwrap()
        .join(format!("report-every-run-{}.html", std::process::id()));
    let report = arena(&["report", "-o", arg(&page), arg(&llm), arg(&engines)]);
    assert!(report.status.success(), "{}", stderr(&report));
    let said = String::from_utf8_lossy(&report.stdout);
    assert!(said.contains("(3 games)"), "the LLM game and both engine games: {said}");
    let _ = std::fs::remove_file(&page);
}

/// Every game log kept under `tests/data`: the pinned logs of today's writer, the old
/// run folders, the golden game.
fn kept_logs() -> Vec<PathBuf> {
    fn walk(dir: &Path, found: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap().map(Result::unwrap) {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, found);
            } else if record::is_game_or_set_aside_log(&path) {
                found.push(path);
            }
        }
    }
    let mut logs = vec![PathBuf::from(GOLDEN)];
    for dir in ["tests/data/pinned", "tests/data/runs"] {
        walk(Path::new(dir), &mut logs);
    }
    logs.sort();
    logs
}

/// `json` with each number that has a fraction or an exponent written as serde_json
/// reads and writes it (parsed, then written shortest). serde_json's default parser (this build's,
/// and every earlier one's) may land one unit in the last place off a float such as
/// `62.504186000000004`; `old_runs`' expected outputs hold the values so read, so the
/// parser stays as it is and a written-back latency may differ in its last digit. All
/// else (keys, their order, strings, integers, spacing) must be the same bytes.
fn floats_as_read(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    let mut chars = json.chars().peekable();
    let (mut in_string, mut escaped) = (false, false);
    while let Some(c) = chars.next() {
        if in_string {
            (in_string, escaped) = (escaped || c != '"', !escaped && c == '\\');
            out.push(c);
        } else if c == '-' || c.is_ascii_digit() {
            let mut number = c.to_string();
            while let Some(&next) = chars.peek().filter(|n| n.is_ascii_digit() || "+-.eE".contains(**n)) {
                number.push(next);
                chars.next();
            }
            if number.contains(['.', 'e', 'E']) {
                let read: f64 = serde_json::from_str(&number).unwrap();
                number = serde_json::to_string(&read).unwrap();
            }
            out.push_str(&number);
        } else {
            in_string = c == '"';
            out.push(c);
        }
    }
    out
}

#[test]
fn every_kept_log_reads_as_typed_records_that_write_back_to_its_bytes() {
    let mut kinds = std::collections::BTreeSet::new();
    let mut lines = 0;
    for log in kept_logs() {
        let text = std::fs::read_to_string(&log).unwrap();
        for (index, line) in text.lines().enumerate() {
            let record = record::decode_line(&log, index + 1, line.as_bytes()).unwrap_or_else(|err| panic!("{err}"));
            assert_eq!(
                serde_json::to_string(&record).unwrap(),
                floats_as_read(line),
                "{}:{} is written back otherwise",
                log.display(),
                index + 1
            );
            let value: Value = serde_json::from_str(line).unwrap();
            kinds.insert(value["type"].as_str().unwrap().to_string());
            lines += 1;
        }
        // The whole file too, omitted messages put back.
        let records = record::read_game_log(&log).unwrap_or_else(|err| panic!("{err}"));
        assert_eq!(records.len(), text.lines().count(), "{}", log.display());
    }
    let kinds: Vec<&str> = kinds.iter().map(String::as_str).collect();
    assert_eq!(
        kinds,
        ["exchange", "forfeit", "game_end", "game_start", "game_stopped", "move"],
        "the kept logs hold every kind of record but hints ({lines} lines)"
    );
}

#[test]
fn a_move_board_game_or_stop_reason_outside_the_format_is_refused_naming_file_and_line() {
    let dir = run_dir("typed", "run");
    let log = dir.join("game-0001.jsonl");
    let lines = golden_lines();
    let first_move = first_move_line(&lines);
    let stopped =
        r#"{"schema_version":1,"time_ms":0,"type":"game_stopped","game":1,"ply":51,"reason":"paused"}"#.to_string();
    let cases = [
        (
            first_move,
            lines[first_move].replacen("\"move\":\"g1\"", "\"move\":\"z9\"", 1),
            "invalid move \"z9\"",
        ),
        (
            first_move,
            lines[first_move].replacen("\"move\":\"g1\"", "\"move\":\"G1\"", 1),
            "invalid move \"G1\"",
        ),
        (
            first_move,
            lines[first_move].replacen("\"board_after\":\"", "\"board_after\":\"x", 1),
            "'x' is not X, O or -",
        ),
        (
            0,
            lines[0].replacen("\"seed\":", "\"rules\":\"chess\",\"seed\":", 1),
            "unknown game \"chess\"",
        ),
        (first_move, stopped, "unknown stop reason \"paused\""),
    ];
    for (index, line, why) in cases {
        assert_ne!(line, lines[index], "the case alters its line: {why}");
        let mut altered = lines.clone();
        altered[index] = line;
        std::fs::write(&log, altered.join("\n") + "\n").unwrap();
        let place = format!("{}:{}: not a log record", log.display(), index + 1);
        for args in [vec!["stats", arg(&dir)], vec!["replay", arg(&log)]] {
            let err = refused(&arena(&args));
            assert!(err.contains(&place) && err.contains(why), "{args:?}: {err}");
        }
    }
}
