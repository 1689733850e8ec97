//! `rate` values the decisions of runs played without `--score-moves` (the reference's
//! value of every legal move, written to the run's `move-scores.jsonl`), reuses the
//! values a run holds, values again for another reference, leaves a run alone with
//! `--no-value`, holds values in memory where it cannot write; `serve`'s leaderboard
//! shows the intrinsic table from the values runs hold, without valuing on a request.

use std::path::Path;
use std::process::Output;

use crate::support::serve::Served;
use crate::support::{run_arena, temp_dir};
use serde_json::{json, Value};

/// A small reference, so that valuing takes a second: solved at 8 empties, 2 plies before.
pub(crate) const SMALL: [&str; 4] = ["--exact-empties", "8", "--reference-depth", "2"];

fn ok(output: Output) -> (String, String) {
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(output.status.success(), "failed: {stderr}");
    (String::from_utf8(output.stdout).unwrap(), stderr)
}

/// Two colour-swapped games of alphabeta:2:weight against greedy, without values.
pub(crate) fn play(dir: &Path) {
    ok(run_arena(
        &[
            "play",
            "--black",
            "alphabeta:2:weight",
            "--white",
            "greedy",
            "--games",
            "2",
            "--swap",
            "--opening-random",
            "4",
            "--seed",
            "17",
            "--log-dir",
            dir.to_str().unwrap(),
            "--json",
        ],
        "127.0.0.1:9",
    ));
    assert!(!dir.join("move-scores.jsonl").exists());
}

/// `rate RUN --json` with `extra` flags: the JSON and stderr.
pub(crate) fn rate(run: &Path, extra: &[&str]) -> (Value, String) {
    let mut args = vec![
        "rate",
        run.to_str().unwrap(),
        "--anchor",
        "greedy=300",
        "--bootstrap",
        "100",
        "--json",
    ];
    args.extend(extra);
    let (stdout, stderr) = ok(run_arena(&args, "127.0.0.1:9"));
    (serde_json::from_str(&stdout).unwrap(), stderr)
}

pub(crate) fn lines(run: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(run.join("move-scores.jsonl")).unwrap();
    text.lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

fn players(json: &Value) -> Vec<String> {
    let rows = json["intrinsic"]["rows"].as_array().unwrap();
    rows.iter().map(|r| r["player"].as_str().unwrap().to_string()).collect()
}

#[test]
fn rate_values_a_run_reuses_its_values_and_values_again_for_another_reference() {
    let run = temp_dir("rate-values", "reuse").join("run");
    play(&run);
    let (json, stderr) = rate(&run, &SMALL);
    assert!(stderr.contains("valuing the decisions of 2 game(s) of"), "{stderr}");
    assert_eq!(players(&json), ["alphabeta:2:weight", "greedy"]);
    for row in json["intrinsic"]["rows"].as_array().unwrap() {
        for key in ["player", "elo", "low", "high", "decisions"] {
            assert!(row.get(key).is_some(), "{key} in {row}");
        }
        assert!(row["decisions"].as_u64().unwrap() > 20, "{row}");
    }
    // Every decision of both sides, each with the values of every legal move, by the
    // reference asked for.
    let valued = lines(&run);
    for colour in ["black", "white"] {
        assert!(valued.iter().any(|l| l["color"] == colour));
    }
    for line in &valued {
        let values = line["values"].as_array().unwrap();
        assert!(values.iter().any(|v| v[0] == line["move"]), "{line}");
        let empties = line["empties"].as_u64().unwrap();
        let depth = if empties <= 8 { empties } else { 2 };
        assert_eq!(
            (line["exact"] == true, line["depth"].as_u64()),
            (empties <= 8, Some(depth)),
            "{line}"
        );
    }

    // Again: the file is reused as it is, with no valuing line.
    let before = std::fs::read(run.join("move-scores.jsonl")).unwrap();
    let (again, stderr) = rate(&run, &SMALL);
    assert!(!stderr.contains("valuing"), "{stderr}");
    assert_eq!(again["intrinsic"], json["intrinsic"]);
    // Without a reference named, the values a run holds are kept whatever made them.
    let (_, stderr) = rate(&run, &[]);
    assert!(!stderr.contains("valuing"), "{stderr}");
    assert_eq!(std::fs::read(run.join("move-scores.jsonl")).unwrap(), before);

    // Another reference: valued again, and the file says so.
    let (_, stderr) = rate(&run, &["--exact-empties", "8", "--reference-depth", "3"]);
    assert!(stderr.contains("valuing the decisions of 2 game(s)"), "{stderr}");
    let revalued = lines(&run);
    assert_eq!(revalued.len(), valued.len());
    assert!(revalued.iter().all(|l| l["exact"] == true || l["depth"] == 3));
    let _ = std::fs::remove_dir_all(run.parent().unwrap());
}

/// The shipped calibration, naming the reference `exact_empties`/`depth` (its
/// `[reference]` replaced, or put before its map).
fn calibration_naming(exact_empties: u32, depth: u32) -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/intrinsic-calibration.toml");
    let shipped = std::fs::read_to_string(path).unwrap();
    let without = match shipped.split_once("[reference]\n") {
        Some((head, tail)) => format!("{head}{}", &tail[tail.find("\n\n").unwrap() + 2..]),
        None => shipped,
    };
    let reference = format!("[reference]\nexact_empties = {exact_empties}\ndepth = {depth}\n\n[map]\n");
    without.replacen("[map]\n", &reference, 1)
}

#[test]
fn rate_values_with_the_reference_its_calibration_names() {
    let dir = temp_dir("rate-values", "reference");
    let run = dir.join("run");
    play(&run);
    let calibration = dir.join("calibration.toml");
    std::fs::write(&calibration, calibration_naming(8, 3)).unwrap();
    let (json, stderr) = rate(&run, &["--intrinsic", calibration.to_str().unwrap()]);
    assert!(stderr.contains("valuing the decisions of 2 game(s) of"), "{stderr}");
    assert_eq!(players(&json), ["alphabeta:2:weight", "greedy"]);
    for line in lines(&run) {
        let empties = line["empties"].as_u64().unwrap();
        let depth = if empties <= 8 { empties } else { 3 };
        assert_eq!(line["depth"].as_u64(), Some(depth), "{line}");
    }
    // A flag still overrides the file's reference.
    let (_, stderr) = rate(
        &run,
        &["--intrinsic", calibration.to_str().unwrap(), "--reference-depth", "2"],
    );
    assert!(stderr.contains("valuing the decisions of 2 game(s) of"), "{stderr}");
    assert!(lines(&run).iter().all(|l| l["exact"] == true || l["depth"] == 2));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn no_value_leaves_a_run_alone_and_a_folder_that_cannot_be_written_is_valued_in_memory() {
    let run = temp_dir("rate-values", "memory").join("run");
    play(&run);
    let (json, stderr) = rate(&run, &["--no-value"]);
    assert!(!stderr.contains("valuing"), "{stderr}");
    assert_eq!(json["intrinsic"]["rows"], json!([]));
    assert!(json["intrinsic"]["notes"][0]
        .as_str()
        .unwrap()
        .contains("has no valued decisions"));
    assert!(json["as_played"]["rows"].as_array().is_some_and(|r| r.len() == 2));
    assert!(!run.join("move-scores.jsonl").exists());

    // The file is written through a temporary one: a folder in its place stops the write.
    std::fs::create_dir(run.join(".move-scores.jsonl.tmp")).unwrap();
    let (json, stderr) = rate(&run, &SMALL);
    assert!(stderr.contains("valuing the decisions"), "{stderr}");
    assert_eq!(players(&json), ["alphabeta:2:weight", "greedy"]);
    let notes = json["intrinsic"]["notes"].to_string();
    assert!(notes.contains("was valued in memory only"), "{notes}");
    assert!(!run.join("move-scores.jsonl").exists());
    let _ = std::fs::remove_dir_all(run.parent().unwrap());
}

/// `rate` used to write its values into a run folder an `eval` had locked, and the
/// eval later replaced them: the folder's lock is respected, the values are held in
/// memory (the table has them) and a note says the run is in progress; once the lock
/// is free, the next `rate` writes them.
#[test]
fn rate_leaves_the_values_of_a_run_in_progress_to_that_run() {
    use std::io::Write;
    let run = temp_dir("rate-values", "locked").join("run");
    play(&run);
    // This test holds the folder's lock, as an eval writing the run would.
    let mut lock = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(run.join(".lock"))
        .unwrap();
    lock.try_lock().expect("the run's own process is gone");
    lock.set_len(0).unwrap();
    writeln!(lock, "pid 4242").unwrap();
    let (json, stderr) = rate(&run, &SMALL);
    assert!(stderr.contains("valuing the decisions"), "{stderr}");
    assert_eq!(players(&json), ["alphabeta:2:weight", "greedy"], "valued in memory");
    let notes = json["intrinsic"]["notes"].to_string();
    assert!(
        notes.contains("was valued in memory only")
            && notes.contains("its run is in progress (pid 4242 holds the folder's lock)"),
        "{notes}"
    );
    assert!(!run.join("move-scores.jsonl").exists(), "the run's file is left alone");
    drop(lock);
    let (again, _) = rate(&run, &SMALL);
    assert_eq!(players(&again), ["alphabeta:2:weight", "greedy"]);
    assert!(run.join("move-scores.jsonl").exists(), "written once the run has ended");
    let _ = std::fs::remove_dir_all(run.parent().unwrap());
}

#[test]
fn serves_leaderboard_has_the_intrinsic_table_of_the_values_runs_hold() {
    let runs = temp_dir("rate-values", "serve").join("runs");
    play(&runs.join("valued"));
    play(&runs.join("plain"));
    rate(&runs.join("valued"), &SMALL);
    let served = Served::start(&runs, "127.0.0.1:0", &[]);
    let rated: Value = crate::support::http_client(std::time::Duration::from_secs(120))
        .post(format!("{}/api/rate", served.url))
        .json(&json!({"runs": ["valued", "plain"]}))
        .send()
        .unwrap()
        .json()
        .unwrap();
    assert_eq!(players(&rated), ["alphabeta:2:weight", "greedy"], "{rated}");
    let row = &rated["intrinsic"]["rows"][0];
    assert!(
        row["decisions"].as_u64().unwrap() > 0 && row.get("elo").is_some(),
        "{row}"
    );
    let notes = rated["intrinsic"]["notes"].to_string();
    assert!(notes.contains("plain has no valued decisions"), "{notes}");
    assert!(rated["text"].as_str().unwrap().contains("Intrinsic ratings"), "{rated}");
    // A request never values a run.
    assert!(!runs.join("plain").join("move-scores.jsonl").exists());
    drop(served);
    let _ = std::fs::remove_dir_all(runs.parent().unwrap());
}

/// A player valued in one run and not yet in another (serve rates without valuing, so
/// its number moved once `rate` had valued the rest): the table says which player rests
/// on part of its games, with the command that values them.
#[test]
fn a_player_valued_in_part_of_its_games_is_named_with_the_command() {
    let dir = temp_dir("rate-values", "part");
    let (valued, unvalued) = (dir.join("valued"), dir.join("unvalued"));
    play(&valued);
    rate(&valued, &SMALL);
    play(&unvalued);
    let (json, _) = rate(&valued, &["--no-value", unvalued.to_str().unwrap()]);
    let notes = json["intrinsic"]["notes"].to_string();
    assert!(
        notes.contains("greedy: its moves in 2 finished game(s) are not valued yet")
            && notes.contains("`othello-arena rate` on these runs values them"),
        "{notes}"
    );
    // Valued, the note is gone.
    let (json, _) = rate(&valued, &[&SMALL[..], &[unvalued.to_str().unwrap()]].concat());
    assert!(
        !json["intrinsic"]["notes"].to_string().contains("not valued yet"),
        "{json}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
