//! `rate` valuing runs whose `move-scores.jsonl` is not what `--score-moves` wrote: lines
//! that are not the game's decisions are valued again, a file that cannot be read gets
//! a note naming it and the fix, and no game log is ever changed.

use std::path::Path;

use crate::rate_values::{lines, play, rate, SMALL};
use crate::support::temp_dir;
use serde_json::Value;

/// The bytes of every game log of `run`, by name.
fn logs(run: &Path) -> Vec<(String, Vec<u8>)> {
    let names = crate::support::game_log_names(run);
    names
        .into_iter()
        .map(|name| {
            let bytes = std::fs::read(run.join(&name)).unwrap();
            (name, bytes)
        })
        .collect()
}

fn write_lines(run: &Path, lines: &[Value]) {
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(run.join("move-scores.jsonl"), text).unwrap();
}

/// A line whose values are of squares that are not the legal moves of its position, or
/// whose side is neither black nor white, was not made from the game's log: without a
/// reference named (values kept whatever made them), `rate` used to keep such lines and
/// rate the garbage; the game is valued again whole.
#[test]
fn lines_that_are_not_the_games_decisions_are_valued_again() {
    let run = temp_dir("rate-hostile", "misfits").join("run");
    play(&run);
    rate(&run, &SMALL);
    let valued = lines(&run);
    let before = logs(&run);
    let mut edited = valued.clone();
    for line in edited.iter_mut().filter(|l| l["game"] == 1) {
        line["values"] = serde_json::json!([["a1", 1.0], ["h8", 2.0]]);
    }
    let green = edited.iter().position(|l| l["game"] == 2).unwrap();
    edited[green]["color"] = "green".into();
    write_lines(&run, &edited);

    let (json, stderr) = rate(&run, &[]);
    assert!(stderr.contains("valuing the decisions of 2 game(s)"), "{stderr}");
    let now = lines(&run);
    assert_eq!(
        now.len(),
        valued.len(),
        "every decision once, the edited lines replaced"
    );
    for line in &now {
        let values = line["values"].as_array().unwrap();
        assert!(values.iter().any(|v| v[0] == line["move"]), "{line}");
        assert!(line["color"] == "black" || line["color"] == "white", "{line}");
    }
    for row in json["intrinsic"]["rows"].as_array().unwrap() {
        assert!(row["decisions"].as_u64().unwrap() > 20, "{row}");
    }
    // Valued again, the file is kept as it is.
    let (_, stderr) = rate(&run, &[]);
    assert!(!stderr.contains("valuing"), "{stderr}");
    assert_eq!(logs(&run), before, "rate never changes a game log");
    let _ = std::fs::remove_dir_all(run.parent().unwrap());
}

/// A file cut off mid-line, a line with bad values (not an array, a string for a
/// number, NaN), a folder in the file's place: the run is rated with a note that names
/// the file and the fix that works (the old fix, "rescore the run with --score-moves",
/// cannot be done to a finished run; a folder is no matter of permissions).
#[test]
fn a_move_scores_file_that_cannot_be_read_gets_a_note_with_the_fix() {
    let run = temp_dir("rate-hostile", "unreadable").join("run");
    play(&run);
    rate(&run, &SMALL);
    let text = std::fs::read_to_string(run.join("move-scores.jsonl")).unwrap();
    let before = logs(&run);
    let first_end = text.find('\n').unwrap();
    let second = &text[first_end + 1..];
    let bad_values = |values: &str| {
        let line = &text[..first_end];
        let at = line.find("\"values\":").unwrap();
        format!("{}\"values\":{values}}}\n{second}", &line[..at])
    };
    let cases = [
        ("cut off", text[..text.len() / 2].to_string()),
        ("not an array", bad_values("\"x\"")),
        ("a string value", bad_values("[[\"c4\",\"a\"]]")),
        ("NaN", bad_values("[[\"c4\",NaN]]")),
    ];
    let file = run.join("move-scores.jsonl");
    for (case, contents) in cases {
        std::fs::write(&file, &contents).unwrap();
        let (json, _) = rate(&run, &[]);
        let notes = json["intrinsic"]["notes"].to_string();
        assert!(notes.contains(&file.display().to_string()), "{case}: {notes}");
        assert!(
            notes.contains("move the file aside and `rate` values the run again"),
            "{case}: {notes}"
        );
        assert!(!notes.contains("--score-moves"), "{case}: {notes}");
        assert_eq!(json["as_played"]["rows"].as_array().map(Vec::len), Some(2), "{case}");
        assert_eq!(
            std::fs::read_to_string(&file).unwrap(),
            contents,
            "{case}: the file is left as it is"
        );
    }
    std::fs::remove_file(&file).unwrap();
    std::fs::create_dir(&file).unwrap();
    let (json, _) = rate(&run, &[]);
    let notes = json["intrinsic"]["notes"].to_string();
    assert!(
        notes.contains("move it aside and `rate` values the run again"),
        "{notes}"
    );
    assert!(!notes.contains("permissions"), "{notes}");
    assert_eq!(logs(&run), before, "rate never changes a game log");
    let _ = std::fs::remove_dir_all(run.parent().unwrap());
}

/// Each row's player and decision count in `json`'s intrinsic table.
fn decision_counts(json: &Value) -> Vec<(String, u64)> {
    let rows = json["intrinsic"]["rows"].as_array().unwrap();
    rows.iter()
        .map(|r| (r["player"].to_string(), r["decisions"].as_u64().unwrap()))
        .collect()
}

/// Every line written twice used to double the decisions counted, and values of 1e300
/// discs (a disc value lies within 64 of 0) were fitted as they were: `rate` values
/// such a game again, saying why in a note naming the file and game, and
/// `rate --no-value` leaves its lines out with a note instead of counting them.
#[test]
fn lines_written_twice_or_with_values_out_of_range_are_valued_again_with_a_note() {
    let run = temp_dir("rate-hostile", "twice").join("run");
    play(&run);
    let (valued_json, _) = rate(&run, &SMALL);
    let counts = decision_counts(&valued_json);
    let valued = lines(&run);
    let file = run.join("move-scores.jsonl");
    let twice: Vec<Value> = valued.iter().flat_map(|l| [l.clone(), l.clone()]).collect();
    let mut huge = valued.clone();
    let at = huge.iter().position(|l| l["game"] == 2).unwrap();
    huge[at]["values"][0][1] = serde_json::json!(1e300);
    let cases = [
        ("twice", twice, "game 1 is valued again: ply"),
        ("huge", huge, "game 2 is valued again: ply"),
    ];
    for (case, edited, said) in cases {
        write_lines(&run, &edited);
        let (json, _) = rate(&run, &["--no-value"]);
        let notes = json["intrinsic"]["notes"].to_string();
        assert!(notes.contains("values are left out"), "{case}: {notes}");
        assert!(notes.contains(&file.display().to_string()), "{case}: {notes}");
        let never_more = |(player, n): &(String, u64)| counts.iter().any(|(p, m)| p == player && n <= m);
        assert!(
            decision_counts(&json).iter().all(never_more),
            "{case}: never counted twice"
        );
        let (json, stderr) = rate(&run, &SMALL);
        let notes = json["intrinsic"]["notes"].to_string();
        assert!(notes.contains(said), "{case}: {notes}");
        assert!(stderr.contains("valuing the decisions of"), "{case}: {stderr}");
        assert_eq!(decision_counts(&json), counts, "{case}");
        assert!(lines(&run) == valued, "{case}: the lines made again, each once");
    }
    let _ = std::fs::remove_dir_all(run.parent().unwrap());
}

/// A decision whose moves all have the same value carries no information, yet was
/// fitted: a player with only such decisions read as "sharper than the strongest
/// calibrated rung". Such decisions are left out of the fit, counted in the row
/// (`level_decisions`) and named in a note under the table.
#[test]
fn decisions_among_moves_of_one_value_are_left_out_and_counted() {
    let run = temp_dir("rate-hostile", "level").join("run");
    play(&run);
    rate(&run, &SMALL);
    let valued = lines(&run);
    let level = |line: &mut Value| {
        let squares: Vec<Value> = line["values"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v[0].clone())
            .collect();
        line["values"] = squares.into_iter().map(|s| serde_json::json!([s, 2.0])).collect();
    };
    // Game 1 level: each player keeps game 2's decisions, game 1's counted apart.
    let mut edited = valued.clone();
    edited.iter_mut().filter(|l| l["game"] == 1).for_each(level);
    write_lines(&run, &edited);
    let (json, _) = rate(&run, &[]);
    let rows = json["intrinsic"]["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 2, "{json}");
    let informative = |game: u64| {
        valued
            .iter()
            .filter(|l| l["game"] == game && l["values"].as_array().unwrap().len() > 1)
            .count()
    };
    let fitted: u64 = rows.iter().map(|r| r["decisions"].as_u64().unwrap()).sum();
    let left_out: u64 = rows.iter().map(|r| r["level_decisions"].as_u64().unwrap()).sum();
    assert_eq!(fitted as usize, informative(2), "{rows:?}");
    assert_eq!(left_out as usize, informative(1), "{rows:?}");

    // Every decision level: no player has a number, and none reads as sharp.
    edited.iter_mut().for_each(level);
    write_lines(&run, &edited);
    let (json, _) = rate(&run, &[]);
    assert_eq!(json["intrinsic"]["rows"], Value::Array(Vec::new()), "{json}");
    let text = crate::support::run_arena(
        &["rate", run.to_str().unwrap(), "--anchor", "greedy=300"],
        "127.0.0.1:9",
    );
    let text = String::from_utf8_lossy(&text.stdout).into_owned();
    assert!(!text.contains("sharper than the strongest calibrated rung"), "{text}");
    for player in ["alphabeta:2:weight", "greedy"] {
        assert!(
            text.contains(&format!("note: {player}: "))
                && text.contains("decision(s) left out of the fit: every legal move had the same value"),
            "{text}"
        );
    }
    let _ = std::fs::remove_dir_all(run.parent().unwrap());
}
