//! `--score-moves` in eval and play: every scored move checked against the exact
//! solver where the reference claims exactness, fallback moves kept apart, counts
//! matching the logs. The scripted Ollama server on 127.0.0.1 stands in for a model
//! that answers the last legal move, except every fifth request, which it answers
//! with an illegal square (so the fallback plays some moves).

use std::path::Path;

use crate::support::{legal_moves_in, run_arena, Reply, StubServer};
use arena::rebuild_game;
use engines::Solver;
use game::othello::{Board, Move};
use game::Othello;
use record::{read_game_log, MoveSource, Notation};
use serde_json::Value;

fn scored_moves(dir: &Path) -> Vec<Value> {
    std::fs::read_to_string(dir.join("move-scores.jsonl"))
        .expect("move-scores.jsonl is written")
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The position before `ply` of game `game` in `dir`.
fn board_before(dir: &Path, game: u64, ply: u64) -> Board {
    let records = read_game_log(&dir.join(format!("game-{game:04}.jsonl"))).unwrap();
    let record = rebuild_game::<Othello>(&records).unwrap();
    let mut board = *record.game.start();
    for mv in &record.game.moves()[..ply as usize - 1] {
        board = board.play(*mv);
    }
    board
}

#[test]
fn eval_scores_model_moves_and_keeps_fallback_moves_apart() {
    let server = StubServer::start(|request, n| {
        if n % 5 == 4 {
            return Reply::content("h9");
        }
        Reply::content(legal_moves_in(request).last().map_or("pass", String::as_str))
    });
    let dir = std::env::temp_dir().join(format!("othello-quality-eval-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let output = run_arena(
        &[
            "eval",
            "--agent",
            "llm:stub",
            "--vs",
            "greedy",
            "--games",
            "1",
            "--max-sessions",
            "1",
            "--on-invalid",
            "retry",
            "--score-moves",
            "--exact-empties",
            "16",
            "--reference-depth",
            "4",
            "--json",
            "--log-dir",
            dir.to_str().unwrap(),
        ],
        &server.url,
    );
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let summary: Value = serde_json::from_slice(&output.stdout).unwrap();
    let agent = &summary["agent"];
    let quality = &summary["move_quality"];
    assert_eq!(quality["reference"]["exact_empties"], 16);
    assert_eq!(quality["all"]["moves"], agent["llm_moves"]);
    assert_eq!(quality["fallback_moves"]["moves"], agent["fallback_moves"]);
    assert!(
        agent["fallback_moves"].as_u64().unwrap() > 0,
        "the scripted model forced some fallbacks"
    );
    let by_phase: u64 = ["opening", "midgame", "endgame"]
        .iter()
        .map(|p| quality["by_phase"][p]["moves"].as_u64().unwrap())
        .sum();
    assert_eq!(by_phase, agent["llm_moves"].as_u64().unwrap());

    let moves = scored_moves(&dir);
    assert_eq!(
        moves.len() as u64,
        agent["moves"].as_u64().unwrap(),
        "every agent move is scored"
    );
    let mut solver = Solver::new();
    let mut exact_checked = 0;
    for m in &moves {
        let empties = m["empties"].as_u64().unwrap();
        assert_eq!(m["exact"], empties <= 16, "{m}");
        let regret = m["regret"].as_f64().unwrap();
        assert!(regret >= 0.0);
        assert!(matches!(m["source"].as_str(), Some("llm" | "fallback")), "{m}");
        if m["exact"] == true {
            // Outside truth: the solver's score of the position and of the position after the move.
            let board = board_before(&dir, m["game"].as_u64().unwrap(), m["ply"].as_u64().unwrap());
            assert_eq!(u64::from(board.empties()), empties);
            let best = solver.solve(&board).score;
            let mv: Move = m["move"].as_str().unwrap().parse().unwrap();
            let after = -solver.solve(&board.play(mv)).score;
            assert_eq!(regret, f64::from(best - after), "{m}");
            exact_checked += 1;
        }
    }
    assert!(exact_checked >= 5, "the endgame moves were scored exactly");
}

#[test]
fn play_scores_both_players() {
    let dir = std::env::temp_dir().join(format!("othello-quality-play-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let output = run_arena(
        &[
            "play",
            "--black",
            "greedy",
            "--white",
            "random",
            "--games",
            "2",
            "--swap",
            "--score-moves",
            "--reference-depth",
            "3",
            // Exact from 12 empties (not 20): every legal move is valued, and 20-empty
            // solves of each would make this the suite's slowest test.
            "--exact-empties",
            "12",
            "--json",
            "--log-dir",
            dir.to_str().unwrap(),
        ],
        "http://127.0.0.1:9",
    );
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let summary: Value = serde_json::from_slice(&output.stdout).unwrap();
    let moves = scored_moves(&dir);
    let placements: usize = (1..=2)
        .map(|g| {
            read_game_log(&dir.join(format!("game-{g:04}.jsonl")))
                .unwrap()
                .iter()
                .filter(|r| {
                    matches!(&r.event, record::Event::Move(m)
                        if m.source == MoveSource::Engine && m.mv != Notation::Pass)
                })
                .count()
        })
        .sum();
    assert_eq!(moves.len(), placements);
    let counted: u64 = (0..2)
        .map(|i| summary["players"][i]["move_quality"]["all"]["moves"].as_u64().unwrap())
        .sum();
    assert_eq!(counted, placements as u64);
    // Greedy beats random on move quality too.
    let regret = |i: usize| {
        summary["players"][i]["move_quality"]["all"]["mean_regret"]["mean"]
            .as_f64()
            .unwrap()
    };
    assert!(regret(0) < regret(1), "greedy {} vs random {}", regret(0), regret(1));
}
