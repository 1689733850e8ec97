//! Opening suites from a file (`--openings`, a tournament file's `openings`): where each
//! game starts, what is refused before any game, and a resume held to the suite.

use std::path::Path;

use crate::support::{run_arena, temp_dir};
use game::othello::Board;
use serde_json::Value;

fn game_start(run: &Path, game: usize) -> Value {
    let log = std::fs::read_to_string(run.join(format!("game-{game:04}.jsonl"))).unwrap();
    serde_json::from_str(log.lines().next().unwrap()).unwrap()
}

fn stderr(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// A three-opening suite: two transcripts (one in upper case) and a board with white
/// to move (the start after f5), with comments and a blank line.
fn suite_text() -> (String, Board) {
    let after_f5 = Board::new().play("f5".parse().unwrap());
    let text = format!(
        "# a small suite\nf5d6c3  # the tiger\n\nF5 F6\n{} O\n",
        after_f5.to_squares_string()
    );
    (text, after_f5)
}

#[test]
fn pair_p_of_a_match_starts_on_the_pth_opening_with_both_colours() {
    let dir = temp_dir("openings", "pairs");
    let (text, after_f5) = suite_text();
    let suite = dir.join("suite.txt");
    std::fs::write(&suite, &text).unwrap();
    let run = dir.join("run");
    let args = [
        "play",
        "--black",
        "greedy",
        "--white",
        "random",
        "--games",
        "6",
        "--swap",
        "--openings",
        suite.to_str().unwrap(),
        "--log-dir",
        run.to_str().unwrap(),
        "--json",
    ];
    let output = run_arena(&args, "127.0.0.1:9");
    assert!(output.status.success(), "{}", stderr(&output));
    let expected: [(&[&str], bool); 3] = [(&["f5", "d6", "c3"], false), (&["f5", "f6"], false), (&[], true)];
    for (pair, (moves, board)) in expected.iter().enumerate() {
        for game in [2 * pair + 1, 2 * pair + 2] {
            let start = game_start(&run, game);
            let opening: Vec<&str> = start["opening"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| m.as_str().unwrap())
                .collect();
            assert_eq!(opening, *moves, "game {game}");
            if *board {
                assert_eq!(start["start_board"], after_f5.to_squares_string());
                assert_eq!(start["start_to_move"], "white");
            } else {
                assert_eq!(start["start_board"], Board::new().to_squares_string());
                assert!(
                    start.get("start_to_move").is_none(),
                    "only a suite's board names its side"
                );
            }
        }
        // Colours swap within the pair.
        let (a, b) = (game_start(&run, 2 * pair + 1), game_start(&run, 2 * pair + 2));
        assert_eq!(
            (a["black"].clone(), a["white"].clone()),
            (b["white"].clone(), b["black"].clone())
        );
    }
    let recorded: Value = serde_json::from_str(&std::fs::read_to_string(run.join("run.json")).unwrap()).unwrap();
    let openings = &recorded["openings"];
    assert_eq!(openings["sha256"], agent::sha256_hex(&text));
    assert_eq!(openings["openings_in_file"], 3);
    assert_eq!(openings["used"][0], "f5d6c3");
    assert_eq!(openings["used"][1], "f5f6");
    assert_eq!(game_start(&run, 3)["suite_opening"], "f5f6");
    // The board opening (white to move) replays and rates like any game.
    let game5 = run.join("game-0005.jsonl");
    let replay = run_arena(&["replay", game5.to_str().unwrap()], "127.0.0.1:9");
    assert!(replay.status.success(), "{}", stderr(&replay));
    let shown = String::from_utf8_lossy(&replay.stdout);
    assert!(
        shown.contains(&format!("opening from the suite: {} O", after_f5.to_squares_string())),
        "{shown}"
    );
    let rate = run_arena(&["rate", run.to_str().unwrap(), "--json"], "127.0.0.1:9");
    assert!(rate.status.success(), "{}", stderr(&rate));
    let rated: Value = serde_json::from_slice(&rate.stdout).unwrap();
    assert_eq!(rated["as_played"]["games"], 6);
}

#[test]
fn a_bad_suite_is_refused_with_its_line_before_any_game() {
    let dir = temp_dir("openings", "refused");
    let suite = dir.join("suite.txt");
    let run = dir.join("run");
    let play = |games: &str, extra: &[&str]| {
        let mut args = vec![
            "play",
            "--black",
            "greedy",
            "--white",
            "random",
            "--games",
            games,
            "--swap",
            "--openings",
            suite.to_str().unwrap(),
            "--log-dir",
            run.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        run_arena(&args, "127.0.0.1:9")
    };
    std::fs::write(&suite, "f5d6\n# fine so far\nf5d6c9\n").unwrap();
    let output = play("2", &[]);
    assert!(!output.status.success());
    let err = stderr(&output);
    assert!(err.contains("suite.txt: line 3: move 3"), "{err}");
    assert!(
        !run.exists(),
        "nothing is played or written before the suite is checked"
    );
    // Three openings cannot open four pairs, unless the suite may start over.
    let (text, _) = suite_text();
    std::fs::write(&suite, text).unwrap();
    let output = play("8", &[]);
    let err = stderr(&output);
    assert!(
        !output.status.success() && err.contains("holds 3") && err.contains("--openings-cycle"),
        "{err}"
    );
    assert!(!run.exists());
    let output = play("8", &["--openings-cycle"]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(game_start(&run, 7)["opening"], game_start(&run, 1)["opening"]);
    // Random plies and a suite are two answers to one question.
    let both = run_arena(
        &[
            "play",
            "--black",
            "greedy",
            "--white",
            "random",
            "--opening-random",
            "4",
            "--openings",
            "x",
        ],
        "127.0.0.1:9",
    );
    assert!(!both.status.success());
    assert!(stderr(&both).contains("cannot be used with"), "{}", stderr(&both));
}

#[test]
fn a_tournament_plays_its_suite_and_a_resume_refuses_a_changed_one() {
    let dir = temp_dir("openings", "tournament");
    let suite = dir.join("suite.txt");
    let (text, _) = suite_text();
    std::fs::write(&suite, &text).unwrap();
    let file = dir.join("tournament.toml");
    std::fs::write(
        &file,
        format!(
            "format = \"round-robin\"\nengines = [\"random\", \"greedy\"]\ngames = 4\nseed = 3\nopenings = {:?}\n\
             openings_order = \"shuffle\"\n",
            suite.to_str().unwrap()
        ),
    )
    .unwrap();
    let run = dir.join("run");
    let args = [
        "tournament",
        file.to_str().unwrap(),
        "--log-dir",
        run.to_str().unwrap(),
        "--json",
    ];
    let output = run_arena(&args, "127.0.0.1:9");
    assert!(output.status.success(), "{}", stderr(&output));
    let recorded: Value = serde_json::from_str(&std::fs::read_to_string(run.join("run.json")).unwrap()).unwrap();
    assert_eq!(recorded["openings"]["order"], "shuffle");
    let used = recorded["openings"]["used"].as_array().unwrap().clone();
    assert_eq!(used.len(), 2);
    // As if the run had been stopped in its last game: its log is gone.
    std::fs::remove_file(run.join("game-0004.jsonl")).unwrap();
    std::fs::write(&suite, text.replace("F5 F6", "f5f4")).unwrap();
    let resume = ["tournament", "--resume", run.to_str().unwrap(), "--json"];
    let output = run_arena(&resume, "127.0.0.1:9");
    let err = stderr(&output);
    assert!(!output.status.success(), "a changed suite must not continue the run");
    assert!(err.contains("is not the one the run played"), "{err}");
    assert!(!run.join("game-0004.jsonl").exists());
    std::fs::write(&suite, &text).unwrap();
    let output = run_arena(&resume, "127.0.0.1:9");
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(game_start(&run, 4)["opening"], game_start(&run, 3)["opening"]);
}

#[test]
fn a_tournament_file_naming_no_openings_plays_the_balanced_suite_and_old_runs_keep_theirs() {
    let dir = temp_dir("openings", "default");
    let file = dir.join("tournament.toml");
    std::fs::write(
        &file,
        "format = \"round-robin\"\nengines = [\"random\", \"greedy\"]\ngames = 2\nseed = 3\n",
    )
    .unwrap();
    let run = dir.join("run");
    let args = [
        "tournament",
        file.to_str().unwrap(),
        "--log-dir",
        run.to_str().unwrap(),
        "--json",
    ];
    let output = run_arena(&args, "127.0.0.1:9");
    assert!(output.status.success(), "{}", stderr(&output));
    let shipped =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/openings/balanced-8.txt")).unwrap();
    let first = shipped
        .lines()
        .find(|l| !l.starts_with('#'))
        .unwrap()
        .split('#')
        .next()
        .unwrap()
        .trim();
    let run_json: Value = serde_json::from_str(&std::fs::read_to_string(run.join("run.json")).unwrap()).unwrap();
    assert!(run_json["openings"]["file"].as_str().unwrap().contains("built in"));
    assert_eq!(run_json["openings"]["sha256"], agent::sha256_hex(&shipped));
    let opening: String = game_start(&run, 1)["opening"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap())
        .collect();
    assert_eq!(opening, first);
    // A run recorded before suites (no `openings` in run.json) resumes with what its
    // file meant then: no opening plies.
    let mut old = run_json.clone();
    old.as_object_mut().unwrap().remove("openings");
    std::fs::write(run.join("run.json"), old.to_string()).unwrap();
    for game in ["game-0001.jsonl", "game-0002.jsonl"] {
        std::fs::remove_file(run.join(game)).unwrap();
    }
    let output = run_arena(
        &["tournament", "--resume", run.to_str().unwrap(), "--json"],
        "127.0.0.1:9",
    );
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(game_start(&run, 1)["opening"], serde_json::json!([]));
}
