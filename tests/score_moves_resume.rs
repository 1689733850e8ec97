//! `--score-moves` and `--no-score-moves` across an `eval --resume`: the run's own
//! choice (its run.json's argv) holds, a resume may add either flag where the run chose
//! neither, and a resume that asks for the contrary of the run's choice is refused with
//! the fix instead of dropping one of the two without a word.

use std::path::Path;

use crate::support::{playing_model, run_arena, temp_dir};

/// An eval of four games against a model that plays (first flags `first`), whose last
/// game is then cut short as a stop in its middle leaves it.
fn interrupted_eval(dir: &Path, host: &str, first: &[&str]) {
    let mut args = vec![
        "eval",
        "--agent",
        "llm:stub-model",
        "--vs",
        "greedy,random",
        "--games",
        "1",
        "--opening-random",
        "40",
        "--log-dir",
        dir.to_str().unwrap(),
    ];
    args.extend(first);
    let output = run_arena(&args, host);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let last = dir.join("game-0004.jsonl");
    let text = std::fs::read_to_string(&last).unwrap();
    let cut: String = text.lines().take(5).map(|l| format!("{l}\n")).collect();
    std::fs::write(&last, cut).unwrap();
    for file in ["results.json", "results.csv", "move-scores.jsonl"] {
        let _ = std::fs::remove_file(dir.join(file));
    }
}

#[test]
fn a_resume_that_contradicts_the_runs_scoring_is_refused_with_the_fix() {
    let server = playing_model();
    let host = server.url.trim_start_matches("http://");
    for (first, then, kept) in [
        ("--no-score-moves", "--score-moves", "its decisions are not valued"),
        ("--score-moves", "--no-score-moves", "its moves are scored"),
    ] {
        let dir = temp_dir("score-moves-resume", first.trim_start_matches('-'));
        interrupted_eval(&dir, host, &[first]);
        let logs_before = std::fs::read(dir.join("game-0004.jsonl")).unwrap();
        let output = run_arena(&["eval", "--resume", dir.to_str().unwrap(), then], host);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{first} then {then}: {stderr}");
        let expected = format!("the run was started with {first}");
        assert!(stderr.contains(&expected), "{stderr}");
        assert!(
            stderr.contains(kept) && stderr.contains(&format!("resume it without {then}")),
            "{stderr}"
        );
        // Refused before any game: the run is as it was, and resumes as recorded.
        assert_eq!(std::fs::read(dir.join("game-0004.jsonl")).unwrap(), logs_before);
        let output = run_arena(&["eval", "--resume", dir.to_str().unwrap()], host);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success(), "{stderr}");
        let results: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("results.json")).unwrap()).unwrap();
        let scored = first == "--score-moves";
        assert_eq!(results.get("move_quality").is_some(), scored, "{first}: {results}");
        assert_eq!(dir.join("move-scores.jsonl").exists(), scored, "{first}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[test]
fn a_resume_may_add_either_flag_to_a_run_that_chose_neither() {
    let server = playing_model();
    let host = server.url.trim_start_matches("http://");
    for (then, valued, reported) in [("--no-score-moves", false, false), ("--score-moves", true, true)] {
        let dir = temp_dir(
            "score-moves-resume",
            &format!("neither-{}", then.trim_start_matches('-')),
        );
        interrupted_eval(&dir, host, &[]);
        let output = run_arena(&["eval", "--resume", dir.to_str().unwrap(), then], host);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success(), "{then}: {stderr}");
        assert_eq!(stderr.contains("valued "), valued, "{then}: {stderr}");
        assert_eq!(dir.join("move-scores.jsonl").exists(), valued, "{then}");
        let results: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("results.json")).unwrap()).unwrap();
        assert_eq!(results.get("move_quality").is_some(), reported, "{then}: {results}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
