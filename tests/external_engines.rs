//! External engines: this binary's `engine` server in a child process, played over
//! GTP and NBoard against in-process engines. The games must equal the in-process
//! engine's move for move; an engine that dies, hangs, or answers no move or an illegal
//! one mid-game must end its game as a failure naming engine, ply and stderr, and a
//! resume must finish the run.

use std::path::Path;

use arena::{run_match, ExternalEngine, MatchConfig, MatchEvent, PlayerSpec, RunOptions};
use engines::EngineSpec;
use game::othello::Move;
use runs::EngineTable;
use serde_json::Value;

use crate::support::{playing_model, run_arena, temp_dir};

const BIN: &str = env!("CARGO_BIN_EXE_othello-arena");

/// `ours`: this binary serving `spec` over `protocol`.
fn served(protocol: &str, spec: &str, max_in_flight: usize) -> EngineTable {
    EngineTable {
        name: "ours".to_string(),
        protocol: protocol.to_string(),
        command: BIN.to_string(),
        args: ["engine", "--protocol", protocol, "--engine", spec]
            .map(str::to_string)
            .to_vec(),
        dir: None,
        depth: (protocol == "nboard").then_some(3),
        time_per_move: None,
        max_in_flight: Some(max_in_flight),
        timeout: Some(30.0),
    }
}

fn config(first: PlayerSpec, second: &str) -> MatchConfig {
    MatchConfig {
        players: [first, PlayerSpec::Engine(second.parse::<EngineSpec>().unwrap())],
        games: 4,
        swap: true,
        seed: 5,
        run: RunOptions {
            openings: arena::Openings::random(6),
            parallel: 2,
            log_dir: None,
            ..RunOptions::default()
        },
    }
}

fn quiet(_: MatchEvent<'_>) {}

fn moves(result: &arena::MatchResult) -> Vec<Vec<Move>> {
    result
        .games
        .iter()
        .map(|(_, record)| record.game.moves().to_vec())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn served_engines_play_the_in_process_games_move_for_move() {
    for spec in ["greedy", "alphabeta:3", "reference:2:8"] {
        let in_process = run_match(&config(PlayerSpec::Engine(spec.parse().unwrap()), "search"), &quiet)
            .await
            .unwrap();
        for protocol in ["gtp", "nboard"] {
            let engine = ExternalEngine::new(served(protocol, spec, 2)).unwrap();
            let id = engine.identify().await.unwrap();
            assert!(id.name.starts_with("othello-arena "), "{id:?}");
            let external = run_match(&config(PlayerSpec::External(engine), "search"), &quiet)
                .await
                .unwrap();
            assert_eq!(moves(&external), moves(&in_process), "{spec} over {protocol}");
            assert_eq!(
                external.tallies[0].overall.margin_sum,
                in_process.tallies[0].overall.margin_sum
            );
        }
    }
}

/// An `[[engine]]` table of `engine-fails.sh` serving greedy, failing (`how`) at the
/// third move asked of it, once (the marker file is in `dir`).
fn failing_table(dir: &Path, protocol: &str, how: &str) -> String {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/engine-fails.sh");
    let depth = if protocol == "nboard" { "depth = 1\n" } else { "" };
    format!(
        "[[engine]]\nname = \"flaky\"\nprotocol = \"{protocol}\"\ncommand = \"bash\"\n\
         args = [{:?}, {BIN:?}, \"3\", \"{how}\", {:?}, \"--protocol\", \"{protocol}\", \"--engine\", \"greedy\"]\n\
         timeout = 2\n{depth}",
        script.display().to_string(),
        dir.join("failed-once").display().to_string(),
    )
}

fn read_log(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn an_engine_that_dies_hangs_or_misplays_fails_its_game_and_a_resume_finishes_the_run() {
    for (protocol, how, said) in [
        ("gtp", "die", "exited (exit status: 3) while answering `genmove"),
        ("nboard", "hang", "did not answer `go` within 2 s"),
        ("gtp", "garble", "with \"zz\", which is no move"),
        ("nboard", "illegal", "played the illegal move a1 at ply "),
    ] {
        let dir = temp_dir("external", &format!("{protocol}-{how}"));
        let name = if protocol == "nboard" {
            "ext:flaky@d1"
        } else {
            "ext:flaky"
        };
        // The external engine is the ratings' anchor.
        let text = format!(
            "format = \"round-robin\"\nengines = [\"greedy\"]\ngames = 2\nseed = 4\nanchor = \"{name}=100\"\n{}",
            failing_table(&dir, protocol, how)
        );
        let file = dir.join("tournament.toml");
        std::fs::write(&file, text).unwrap();
        let run = dir.join("run");
        let args = [
            "tournament",
            file.to_str().unwrap(),
            "--log-dir",
            run.to_str().unwrap(),
            "--json",
        ];
        let failed = run_arena(&args, "127.0.0.1:9");
        let stderr = String::from_utf8_lossy(&failed.stderr);
        assert!(!failed.status.success(), "{stderr}");
        assert!(stderr.contains(&format!("{name} could not move at ply ")), "{stderr}");
        assert!(stderr.contains(said), "{stderr}");
        assert!(
            stderr.contains(&format!(
                "engine-fails.sh: failing ({how}) at move 3, as the test asked"
            )),
            "the message ends with the engine's stderr: {stderr}"
        );
        // The game's log has its start (with the handshake) and moves, but no end: the
        // game is unfinished, never scored; the engine's stderr is kept beside it.
        let log = read_log(&run.join("game-0001.jsonl"));
        let start = &log[0];
        let side = if start["black"] == name {
            "black_engine"
        } else {
            "white_engine"
        };
        assert_eq!(start[side]["name"], "othello-arena greedy", "{start}");
        assert!(log.iter().all(|r| r["type"] != "game_end"));
        let kept = std::fs::read_to_string(
            run.join("game-0001.jsonl")
                .with_file_name("engine-flaky-game-0001.stderr"),
        );
        assert!(kept.unwrap().contains("as the test asked"));
        let recorded: Value = serde_json::from_str(&std::fs::read_to_string(run.join("run.json")).unwrap()).unwrap();
        let player = &recorded["players"][1];
        assert_eq!(player["spec"], name);
        assert_eq!(player["engine"]["table"]["protocol"], protocol);
        assert_eq!(player["engine"]["id"]["name"], "othello-arena greedy");

        let resumed = run_arena(
            &["tournament", "--resume", run.to_str().unwrap(), "--json"],
            "127.0.0.1:9",
        );
        assert!(resumed.status.success(), "{}", String::from_utf8_lossy(&resumed.stderr));
        let results: Value = serde_json::from_slice(&resumed.stdout).unwrap();
        assert_eq!(results["complete"], true, "{results}");
        let games: u64 = results["pairings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["games"].as_u64().unwrap())
            .sum();
        assert_eq!(games, 2, "{results}");
        let rows = results["ratings"]["as_played"]["rows"].as_array().unwrap();
        let anchor = rows.iter().find(|r| r["player"] == name).unwrap();
        assert_eq!(anchor["elo"], 100.0, "{results}");
        assert!(run.join("game-0001.jsonl.unfinished-1").exists());
    }
}

#[test]
fn a_bad_engine_spec_or_table_names_the_fix() {
    let dir = temp_dir("external", "refused");
    let file = dir.join("engines.toml");
    std::fs::write(
        &file,
        "[[engine]]\nname = \"gone\"\nprotocol = \"gtp\"\ncommand = \"/nonexistent/engine\"\n",
    )
    .unwrap();
    let play = |args: &[&str]| {
        let output = run_arena(args, "127.0.0.1:9");
        assert!(!output.status.success());
        String::from_utf8_lossy(&output.stderr).into_owned()
    };
    let engines = file.to_str().unwrap();
    let no_file = play(&["play", "--black", "ext:gone", "--white", "greedy"]);
    assert!(
        no_file.contains("name the file of [[engine]] tables with --engines FILE"),
        "{no_file}"
    );
    let unknown = play(&["play", "--engines", engines, "--black", "ext:edax", "--white", "greedy"]);
    assert!(
        unknown.contains("has no [[engine]] named \"edax\" (it has: gone)"),
        "{unknown}"
    );
    let missing = play(&["play", "--engines", engines, "--black", "ext:gone", "--white", "greedy"]);
    assert!(
        missing.contains("cannot start engine gone (/nonexistent/engine): check command, args and dir"),
        "{missing}"
    );
}

#[test]
fn eval_plays_an_external_opponent_and_records_its_handshake() {
    let server = playing_model();
    let dir = temp_dir("external", "eval");
    let file = dir.join("engines.toml");
    let table = format!(
        "[[engine]]\nname = \"ours\"\nprotocol = \"gtp\"\ncommand = {BIN:?}\n\
         args = [\"engine\", \"--protocol\", \"gtp\", \"--engine\", \"alphabeta:2\"]\ndepth = 2\n"
    );
    std::fs::write(&file, table).unwrap();
    let run = dir.join("run");
    let args = [
        "eval",
        "--agent",
        "llm:stub-model",
        "--engines",
        file.to_str().unwrap(),
        "--vs",
        "ext:ours",
        "--games",
        "1",
        "--log-dir",
        run.to_str().unwrap(),
    ];
    let output = run_arena(&args, &server.url);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let recorded: Value = serde_json::from_str(&std::fs::read_to_string(run.join("run.json")).unwrap()).unwrap();
    assert_eq!(recorded["opponents"][0], "ext:ours@d2");
    let engine = &recorded["engines"][0];
    assert_eq!(engine["table"]["name"], "ours");
    assert_eq!(engine["id"]["name"], "othello-arena alphabeta:2:weight");
    for game in ["game-0001.jsonl", "game-0002.jsonl"] {
        let start = &read_log(&run.join(game))[0];
        let side = if start["black"] == "ext:ours@d2" {
            "black_engine"
        } else {
            "white_engine"
        };
        assert_eq!(start[side]["version"], env!("CARGO_PKG_VERSION"), "{start}");
    }
    // A resume re-reads --engines: a table whose command line changed under the same
    // name (and so the same player name) would play the rest with another engine.
    std::fs::write(
        &file,
        std::fs::read_to_string(&file).unwrap().replace("alphabeta:2", "greedy"),
    )
    .unwrap();
    let resumed = run_arena(&["eval", "--resume", run.to_str().unwrap()], &server.url);
    let stderr = String::from_utf8_lossy(&resumed.stderr);
    assert!(
        !resumed.status.success(),
        "a changed engine table must not continue the run"
    );
    assert!(
        stderr.contains("ext:ours: its [[engine]] table is not the one the run recorded"),
        "{stderr}"
    );
}

/// `play greedy vs random --score-moves` with `extra` flags, its log folder `run`;
/// returns the output and move-scores.jsonl's lines (none when it was not written).
fn scored_play(run: &Path, extra: &[&str]) -> (std::process::Output, Vec<Value>) {
    let mut args = vec![
        "play",
        "--black",
        "greedy",
        "--white",
        "random",
        "--games",
        "2",
        "--seed",
        "3",
        "--score-moves",
        "--exact-empties",
        "12",
        "--reference-depth",
        "2",
        "--log-dir",
        run.to_str().unwrap(),
    ];
    args.extend(extra);
    let output = run_arena(&args, "http://127.0.0.1:9");
    let scores = std::fs::read_to_string(run.join("move-scores.jsonl")).unwrap_or_default();
    let scores = scores.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    (output, scores)
}

#[test]
fn an_nboard_reference_scores_every_move_as_the_in_process_reference_does() {
    let dir = temp_dir("external", "reference");
    let file = dir.join("engines.toml");
    let table = format!(
        "[[engine]]\nname = \"ref\"\nprotocol = \"nboard\"\ncommand = {BIN:?}\n\
         args = [\"engine\", \"--protocol\", \"nboard\", \"--engine\", \"reference:2:12\"]\ndepth = 2\nmax_in_flight = 2\n"
    );
    std::fs::write(&file, table).unwrap();
    let (ours, in_process) = scored_play(&dir.join("ours"), &[]);
    assert!(ours.status.success(), "{}", String::from_utf8_lossy(&ours.stderr));
    let engines = ["--engines", file.to_str().unwrap(), "--reference", "ext:ref"];
    let (theirs, external) = scored_play(&dir.join("theirs"), &engines);
    assert!(theirs.status.success(), "{}", String::from_utf8_lossy(&theirs.stderr));
    // Every move of both players, exact in the last 12 empties and estimated before.
    assert!(in_process.len() > 50, "{}", in_process.len());
    assert!(in_process.iter().any(|m| m["exact"] == true) && in_process.iter().any(|m| m["exact"] == false));
    assert_eq!(
        external, in_process,
        "the served reference must score as the in-process one"
    );
    let table = String::from_utf8_lossy(&theirs.stdout);
    assert!(table.contains("ext:ref@d2's NBoard hint values"), "{table}");

    // A GTP engine gives no move values: refused before any game.
    std::fs::write(&file, std::fs::read_to_string(&file).unwrap().replace("nboard", "gtp")).unwrap();
    let (gtp, _) = scored_play(&dir.join("gtp"), &engines);
    let said = String::from_utf8_lossy(&gtp.stderr);
    assert!(
        !gtp.status.success() && said.contains("protocol = \"nboard\""),
        "{said}"
    );
    assert!(!dir.join("gtp").exists(), "a refused reference plays no game");
}

#[test]
fn a_reference_that_dies_while_scoring_names_itself_and_keeps_the_games() {
    let dir = temp_dir("external", "reference-dies");
    let file = dir.join("engines.toml");
    std::fs::write(&file, failing_table(&dir, "nboard", "die")).unwrap();
    let run = dir.join("run");
    let engines = ["--engines", file.to_str().unwrap(), "--reference", "ext:flaky"];
    let (output, scores) = scored_play(&run, &engines);
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "a failed scoring must fail the command");
    assert!(scores.is_empty(), "no partial move-scores.jsonl");
    assert!(said.contains("cannot score ply "), "{said}");
    assert!(
        said.contains("engine flaky exited (exit status: 3) while answering `hint "),
        "{said}"
    );
    assert!(said.contains("failing (die) at move 3"), "its stderr is quoted: {said}");
    // The games were played and logged before the scoring began.
    for game in ["game-0001.jsonl", "game-0002.jsonl"] {
        let log = read_log(&run.join(game));
        assert_eq!(log.last().unwrap()["type"], "game_end", "{game}");
    }
    let kept = std::fs::read_to_string(run.join("engine-flaky-scoring.stderr")).unwrap();
    assert!(kept.contains("failing (die)"), "{kept}");
}

/// A reference must value moves in final discs: an engine whose hint values are its
/// own units (the weight table's, beyond 64) is refused naming the value, never
/// carried into regrets.
#[test]
fn a_reference_whose_values_are_not_discs_is_refused() {
    let dir = temp_dir("external", "reference-units");
    let file = dir.join("engines.toml");
    let table = format!(
        "[[engine]]\nname = \"weights\"\nprotocol = \"nboard\"\ncommand = {BIN:?}\n\
         args = [\"engine\", \"--protocol\", \"nboard\", \"--engine\", \"alphabeta:2:weight\"]\ndepth = 2\n"
    );
    std::fs::write(&file, table).unwrap();
    let engines = ["--engines", file.to_str().unwrap(), "--reference", "ext:weights"];
    let (output, scores) = scored_play(&dir.join("run"), &engines);
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "{said}");
    assert!(said.contains("is not a disc margin (-64 to 64)"), "{said}");
    assert!(scores.is_empty(), "no move-scores.jsonl from such values");
}
