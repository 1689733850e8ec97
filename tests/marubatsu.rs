//! Seed 003's marubatsu through the same arena, logs and readers as Othello, driven
//! through the binary: the seed's published `ai9s` vs `ai2` row is reproduced within
//! its sampling error, the perfect player never loses, a marubatsu run folder is read
//! back by `replay` and `rate`, and the LLM agent plays it through the same tool loop
//! (a scripted model on 127.0.0.1 stands in for one that simulates its first legal
//! square, then answers the last).

use crate::support::{playing_model, run_arena, temp_dir};
use serde_json::Value;

fn play(args: &[&str]) -> Value {
    let mut all = vec!["play", "--game", "marubatsu", "--json"];
    all.extend_from_slice(args);
    let output = run_arena(&all, "127.0.0.1:9");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    serde_json::from_slice(&output.stdout).expect("play --json prints JSON")
}

/// Win, loss and draw shares (percent) of a tally.
fn shares(tally: &Value) -> [f64; 3] {
    let games = tally["games"].as_f64().unwrap();
    ["wins", "losses", "draws"].map(|key| 100.0 * tally[key].as_f64().unwrap() / games)
}

#[test]
fn the_seed_003_ai9s_against_ai2_row_is_reproduced_within_sampling_error() {
    // Seed 003: ai9s VS ai2, 10,000 games a side: 〇 98.7 0.1 1.2, × 89.6 2.4 8.0.
    let result = play(&["--black", "ai9s", "--white", "ai2", "--games", "20000", "--swap"]);
    let ai9s = &result["players"][0];
    for (side, published) in [("as_black", [98.7, 0.1, 1.2]), ("as_white", [89.6, 2.4, 8.0])] {
        let measured = shares(&ai9s[side]);
        for (m, p) in measured.iter().zip(published) {
            // Both figures are samples of 10,000 games: the two-sample standard error.
            let pooled = (m + p) / 200.0;
            let se = 100.0 * (pooled * (1.0 - pooled) * 2.0 / 10_000.0).sqrt().max(0.05);
            assert!(
                (m - p).abs() < 3.0 * se,
                "{side}: measured {measured:?}, published {published:?}"
            );
        }
    }
}

#[test]
fn the_perfect_player_never_loses_to_the_ladder() {
    for opponent in ["ai2", "ai6s", "ai8s", "ai11s"] {
        let result = play(&["--black", "perfect", "--white", opponent, "--games", "2000", "--swap"]);
        let perfect = &result["players"][0];
        assert_eq!(perfect["losses"], 0, "perfect lost to {opponent}: {perfect}");
        assert_eq!(perfect["games"], 2000);
    }
}

#[test]
fn a_marubatsu_run_is_logged_replayed_and_rated() {
    let dir = temp_dir("marubatsu", "logs");
    let run = dir.join("run");
    let run_text = run.to_str().unwrap();
    play(&[
        "--black",
        "ai8s",
        "--white",
        "ai2",
        "--games",
        "40",
        "--swap",
        "--log-dir",
        run_text,
    ]);
    let log = std::fs::read_to_string(run.join("game-0001.jsonl")).unwrap();
    let lines: Vec<Value> = log.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines[0]["type"], "game_start");
    assert_eq!(lines[0]["rules"], "marubatsu");
    assert_eq!(lines[0]["start_board"], "---------");
    let end = lines.last().unwrap();
    assert_eq!(end["type"], "game_end");
    // `margin` is written where the marks' difference is not the result.
    let marks = end["black_discs"].as_i64().unwrap() - end["white_discs"].as_i64().unwrap();
    let margin = end["margin"].as_i64().unwrap_or(marks);
    let expected = match end["winner"].as_str().unwrap() {
        "black" => 1,
        "white" => -1,
        _ => 0,
    };
    assert_eq!(margin, expected, "the margin is the result, not the marks: {end}");

    let replay = run_arena(
        &["replay", run.join("game-0001.jsonl").to_str().unwrap()],
        "127.0.0.1:9",
    );
    let text = String::from_utf8_lossy(&replay.stdout);
    assert!(replay.status.success(), "{}", String::from_utf8_lossy(&replay.stderr));
    assert!(text.contains("  a b c") && text.contains("置ける位置"), "{text}");

    let rate = run_arena(&["rate", run_text, "--json"], "127.0.0.1:9");
    assert!(rate.status.success(), "{}", String::from_utf8_lossy(&rate.stderr));
    let board: Value = serde_json::from_slice(&rate.stdout).unwrap();
    let rows = board["as_played"]["rows"].as_array().unwrap();
    assert_eq!(rows[0]["player"], "ai8s", "ai8s rates above ai2: {board}");
}

#[test]
fn othello_engines_and_bad_specs_are_refused_for_marubatsu() {
    let output = run_arena(
        &["play", "--game", "marubatsu", "--black", "greedy", "--white", "ai2"],
        "127.0.0.1:9",
    );
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("bad --black") && stderr.contains("ai11s"), "{stderr}");
    // Five random plies could already end a game: the players must have one to play.
    let output = run_arena(
        &[
            "play",
            "--game",
            "marubatsu",
            "--black",
            "ai2",
            "--white",
            "ai2",
            "--opening-random",
            "5",
        ],
        "127.0.0.1:9",
    );
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("give at most 4"));
}

#[test]
fn the_llm_agent_plays_marubatsu_through_the_tool_loop() {
    let server = playing_model();
    let dir = temp_dir("marubatsu", "eval");
    let run = dir.join("run");
    let output = run_arena(
        &[
            "eval",
            "--game",
            "marubatsu",
            "--agent",
            "llm:stub",
            "--vs",
            "ai2,perfect",
            "--games",
            "2",
            "--system",
            "marubatsu-tool-en",
            "--labels",
            "en",
            "--fallback",
            "ai8s",
            "--log-dir",
            run.to_str().unwrap(),
            "--json",
        ],
        server.url.trim_start_matches("http://"),
    );
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let summary: Value = serde_json::from_slice(&output.stdout).unwrap();
    let agent = &summary["agent"];
    assert_eq!(agent["fallback_moves"], 0, "{agent}");
    assert_eq!(agent["llm_share"], 1.0);
    assert_eq!(agent["tool_calls_per_move"], 1.0);
    assert_eq!(
        summary["opponents"][1]["overall"]["wins"], 0,
        "nobody beats perfect: {summary}"
    );
    // The tool's answer is marubatsu's, and the logs name the game.
    let log = std::fs::read_to_string(run.join("game-0001.jsonl")).unwrap();
    assert!(log.contains("\"rules\":\"marubatsu\""));
    assert!(
        log.contains("opponent_winning_replies"),
        "the simulate_move result reaches the model"
    );
    assert!(log.contains("Legal moves: a1, b1, c1, a2, b2, c2, a3, b3, c3"));
    let results: Value = serde_json::from_str(&std::fs::read_to_string(run.join("results.json")).unwrap()).unwrap();
    assert_eq!(results["agent"]["moves"], agent["moves"]);
    // stats and report read the run as marubatsu: its margin, its 3x3 board.
    let stats = run_arena(&["stats", run.to_str().unwrap()], "127.0.0.1:9");
    let text = String::from_utf8_lossy(&stats.stdout);
    assert!(
        stats.status.success() && text.contains("mean margin (win 1, loss -1)"),
        "{text}"
    );
    let page = dir.join("report.html");
    let report = run_arena(
        &["report", run.to_str().unwrap(), "-o", page.to_str().unwrap()],
        "127.0.0.1:9",
    );
    assert!(report.status.success(), "{}", String::from_utf8_lossy(&report.stderr));
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("\"columns\":3") && html.contains("\"black_mark\":\"O\""));
    // An Othello engine is no fallback for marubatsu.
    let refused = run_arena(
        &[
            "eval",
            "--game",
            "marubatsu",
            "--agent",
            "llm:stub",
            "--vs",
            "ai2",
            "--fallback",
            "greedy",
        ],
        server.url.trim_start_matches("http://"),
    );
    assert_eq!(refused.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(
        stderr.contains("bad --fallback for marubatsu") && stderr.contains("ai11s"),
        "{stderr}"
    );
}

#[test]
fn move_quality_is_exact_regret_against_the_perfect_player() {
    let result = play(&[
        "--black",
        "perfect",
        "--white",
        "ai2",
        "--games",
        "40",
        "--swap",
        "--score-moves",
    ]);
    let [perfect, random] = [&result["players"][0], &result["players"][1]];
    let all = &perfect["move_quality"]["all"];
    assert_eq!(all["moves"], all["exact_moves"], "every marubatsu score is exact");
    assert_eq!(all["mean_regret"]["mean"], 0.0, "perfect play loses no value: {all}");
    assert_eq!(all["blunders"]["count"], 0);
    let blunders = random["move_quality"]["all"]["blunders"]["count"].as_u64().unwrap();
    assert!(
        blunders > 0,
        "a random player throws games away: {}",
        random["move_quality"]
    );
    assert_eq!(perfect["move_quality"]["reference"]["blunder_regret"], 1.0);
}

#[test]
fn a_marubatsu_probe_grades_forced_wins_and_blocks_against_the_perfect_player() {
    let dir = temp_dir("marubatsu", "probe");
    let positions = dir.join("positions.jsonl");
    let generate = run_arena(
        &[
            "positions",
            "generate",
            "--game",
            "marubatsu",
            "--count",
            "12",
            "--seed",
            "5",
            "-o",
            positions.to_str().unwrap(),
        ],
        "127.0.0.1:9",
    );
    assert!(
        generate.status.success(),
        "{}",
        String::from_utf8_lossy(&generate.stderr)
    );
    let lines: Vec<Value> = std::fs::read_to_string(&positions)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 12);
    for p in &lines {
        assert_eq!(p["game"], "marubatsu");
        assert!(p["motif"] == "win" || p["motif"] == "block", "{p}");
        assert!(p["exact"].as_bool().unwrap());
    }
    let server = playing_model();
    let output = run_arena(
        &[
            "probe",
            "--agent",
            "llm:stub",
            "--positions",
            positions.to_str().unwrap(),
            "--log-dir",
            dir.join("run").to_str().unwrap(),
            "--json",
        ],
        server.url.trim_start_matches("http://"),
    );
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let summary: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(summary["positions"], 12, "{summary}");
    let graded = ["correct", "wrong"]
        .iter()
        .map(|k| summary["against_best"][k].as_u64().unwrap_or(0))
        .sum::<u64>();
    assert_eq!(graded, 12, "every answer is the model's, graded: {summary}");
    assert_eq!(
        summary["mean_regret"]["exact_moves"], 12,
        "graded exactly by the perfect player"
    );
}

#[test]
fn a_marubatsu_forfeit_is_one_lost_game_in_every_reader() {
    // Stands in for a model that never names a legal square.
    let server = crate::support::StubServer::start(|_, _| crate::support::Reply::content("I would rather not say."));
    let dir = temp_dir("marubatsu", "forfeit");
    let run = dir.join("run");
    let output = run_arena(
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
            "--mode",
            "direct",
            "--fallback",
            "forfeit",
            "--log-dir",
            run.to_str().unwrap(),
            "--json",
        ],
        server.url.trim_start_matches("http://"),
    );
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let played: Value = serde_json::from_slice(&output.stdout).unwrap();
    let stats = run_arena(&["stats", run.to_str().unwrap(), "--json"], "127.0.0.1:9");
    assert!(stats.status.success(), "{}", String::from_utf8_lossy(&stats.stderr));
    let read: Value = serde_json::from_slice(&stats.stdout).unwrap();
    for overall in [&played["opponents"][0]["overall"], &read["groups"][0]["overall"]] {
        assert_eq!(overall["losses"], 2, "{overall}");
        assert_eq!(
            overall["mean_disc_diff"], -1.0,
            "a forfeit loses one game, not 64 discs: {overall}"
        );
    }
}
