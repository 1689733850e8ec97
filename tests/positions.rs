//! `positions generate`, `probe` and `datagen` through the binary. The probe talks to
//! the scripted Ollama server on 127.0.0.1, which stands in for a student model that
//! answers exactly the teacher's move (looked up by the board in the request): seed
//! 000's test_inference must then score it 100% against the teacher.

use std::path::{Path, PathBuf};

use crate::support::{run_arena, Reply, StubServer};
use engines::lab::LabelledPosition;
use engines::{Lookahead, Metric, DEFAULT_EXACT_EMPTIES};
use game::othello::{Board, Move};
use game::Othello;
use serde_json::Value;

fn temp(name: &str) -> PathBuf {
    let path = std::env::temp_dir().join(format!("othello-positions-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&path);
    let _ = std::fs::remove_file(&path);
    path
}

fn generate(path: &Path, extra: &[&str]) -> Vec<LabelledPosition> {
    let mut args = vec![
        "positions",
        "generate",
        "--count",
        "30",
        "--empties",
        "14-30",
        "--seed",
        "4",
    ];
    args.extend_from_slice(extra);
    args.extend_from_slice(&["--reference-depth", "3", "-o", path.to_str().unwrap()]);
    let output = run_arena(&args, "http://127.0.0.1:9");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn generated_positions_are_labelled_consistently_and_reproducibly() {
    let (a, b) = (temp("gen-a.jsonl"), temp("gen-b.jsonl"));
    let positions = generate(&a, &["--teacher", "n-hand:2"]);
    assert_eq!(positions.len(), 30);
    generate(&b, &["--teacher", "n-hand:2"]);
    assert_eq!(
        std::fs::read(&a).unwrap(),
        std::fs::read(&b).unwrap(),
        "same seed, same file"
    );
    for p in &positions {
        let board = p.position::<Othello>().unwrap();
        assert!((14..=30).contains(&p.empties) && board.empties() == p.empties);
        assert_eq!(
            p.exact,
            p.empties <= DEFAULT_EXACT_EMPTIES,
            "exact at the default horizon or fewer empties"
        );
        let scores = p.move_scores::<Othello>(&board).unwrap();
        assert_eq!(scores.scores.len() as u32, board.legal_moves().count());
        let best: Vec<String> = scores.best_moves().iter().map(ToString::to_string).collect();
        assert_eq!(best, p.best);
        // The teacher label is n-hand:2's own choice.
        let teacher: Move = p.teacher_move.as_deref().unwrap().parse().unwrap();
        let (candidates, _) = Lookahead::new(Metric::DiscDifference, 2, 1).evaluate(&board);
        let top = candidates.iter().map(|c| c.value).fold(f64::MIN, f64::max);
        assert!(candidates
            .iter()
            .any(|c| Move::Place(c.square) == teacher && (c.value - top).abs() < 1e-9));
    }
    let bad = run_arena(
        &[
            "positions",
            "generate",
            "--count",
            "3",
            "--empties",
            "40-20",
            "-o",
            "x.jsonl",
        ],
        "http://127.0.0.1:9",
    );
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("bad --empties \"40-20\""));
}

#[test]
fn probe_grades_a_student_that_copies_the_teacher() {
    let file = temp("probe.jsonl");
    let positions = generate(&file, &["--teacher", "n-least:2"]);
    let lookup = positions.clone();
    // The student: the teacher's move, except in the first position, where it
    // answers an illegal square (so the fallback plays there).
    let server = StubServer::start(move |request, _| {
        let text = request["messages"]
            .as_array()
            .and_then(|m| m.iter().rev().find(|m| m["role"] == "user"))
            .and_then(|m| m["content"].as_str())
            .unwrap_or_default();
        let board = Board::parse_text(text).expect("the request holds the board text");
        let index = lookup
            .iter()
            .position(|p| p.position::<Othello>().unwrap() == board)
            .unwrap();
        if index == 0 {
            Reply::content("j9")
        } else {
            Reply::content(lookup[index].teacher_move.as_deref().unwrap())
        }
    });
    let dir = temp("probe-run");
    let csv = temp("probe.csv");
    let output = run_arena(
        &[
            "probe",
            "--agent",
            "llm:student",
            "--positions",
            file.to_str().unwrap(),
            "--parallel",
            "3",
            "--max-sessions",
            "1",
            "--on-invalid",
            "retry",
            "--csv",
            csv.to_str().unwrap(),
            "--log-dir",
            dir.to_str().unwrap(),
            "--json",
        ],
        &server.url,
    );
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let summary: Value = serde_json::from_slice(&output.stdout).unwrap();
    let teacher = &summary["against_teacher"];
    assert_eq!(teacher["correct"], 29);
    assert_eq!(teacher["wrong"], 0);
    assert_eq!(teacher["invalid"], 1);
    assert_eq!(teacher["error"], 0);
    assert_eq!(summary["fallback_moves"], 1);
    // Against the reference: the teacher's move is correct exactly where it is among the best.
    let expected_best = positions[1..]
        .iter()
        .filter(|p| p.best.contains(p.teacher_move.as_ref().unwrap()))
        .count();
    assert_eq!(summary["against_best"]["correct"], expected_best);
    assert_eq!(summary["against_best"]["wrong"], 29 - expected_best);
    let expected_regret: f64 = positions[1..]
        .iter()
        .map(|p| {
            let best = p.scores.values().cloned().fold(f64::MIN, f64::max);
            best - p.scores[p.teacher_move.as_ref().unwrap()]
        })
        .sum::<f64>()
        / 29.0;
    let regret = summary["mean_regret"]["mean"].as_f64().unwrap();
    assert!((regret - expected_regret).abs() < 1e-9, "{regret} vs {expected_regret}");
    // One CSV row per position, in file order, with input, expected and actual.
    let text = std::fs::read_to_string(&csv).unwrap();
    let rows: Vec<&str> = text.lines().collect();
    assert_eq!(rows.len(), 31);
    assert!(rows[0].starts_with("index,board,side,empties,expected,teacher_move,actual,source"));
    assert!(rows[1].starts_with(&format!("1,{},", positions[0].board)) && rows[1].contains(",fallback,"));
    assert!(rows[2].contains(&format!(",{},llm,", positions[1].teacher_move.as_ref().unwrap())));
    assert!(dir.join("probe.jsonl").exists() && dir.join("results.json").exists());
}

#[test]
fn probe_refuses_a_broken_positions_file() {
    let file = temp("broken.jsonl");
    std::fs::write(&file, "{\"board\": \"XO\"}\n").unwrap();
    let output = run_arena(
        &["probe", "--agent", "llm:x", "--positions", file.to_str().unwrap()],
        "http://127.0.0.1:9",
    );
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains(":1 is not a labelled position"), "{stderr}");
}

#[test]
fn datagen_writes_seed_000_conversations() {
    let file = temp("train.jsonl");
    let output = run_arena(
        &[
            "datagen",
            "--teacher",
            "n-hand:2",
            "--count",
            "12",
            "--seed",
            "9",
            "-o",
            file.to_str().unwrap(),
        ],
        "http://127.0.0.1:9",
    );
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let text = std::fs::read_to_string(&file).unwrap();
    assert_eq!(text.lines().count(), 12);
    for line in text.lines() {
        let example: Value = serde_json::from_str(line).unwrap();
        let conversation = example["conversations"].as_array().unwrap();
        assert_eq!(conversation.len(), 2);
        assert_eq!(
            (conversation[0]["role"].as_str(), conversation[1]["role"].as_str()),
            (Some("user"), Some("assistant"))
        );
        let board = Board::parse_text(conversation[0]["content"].as_str().unwrap()).unwrap();
        let answer = conversation[1]["content"].as_str().unwrap();
        assert!(answer.starts_with("<think>\n候補手を評価する:\n"), "{answer}");
        let (think, mv) = answer.rsplit_once("</think>\n\n").unwrap();
        let mv: Move = mv.parse().unwrap();
        assert!(board.is_legal(mv));
        let lines: Vec<&str> = think.lines().filter(|l| l.starts_with("  ")).collect();
        assert_eq!(
            lines.len() as u32,
            board.legal_moves().count(),
            "one line per candidate"
        );
        assert!(
            lines[0].ends_with("← 最大") && lines[0].contains("2手先で"),
            "{}",
            lines[0]
        );
        let (candidates, _) = Lookahead::new(Metric::DiscDifference, 2, 1).evaluate(&board);
        let top = candidates.iter().map(|c| c.value).fold(f64::MIN, f64::max);
        let chosen = candidates.iter().find(|c| Move::Place(c.square) == mv).unwrap();
        assert!((chosen.value - top).abs() < 1e-9, "the move is the teacher's best");
        assert!(think.contains(&format!("→ {mv} を")));
    }
    let random = run_arena(
        &[
            "datagen",
            "--teacher",
            "random",
            "--count",
            "1",
            "-o",
            file.with_extension("random.jsonl").to_str().unwrap(),
        ],
        "http://127.0.0.1:9",
    );
    assert_eq!(random.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&random.stderr).contains("gives no value per candidate"));
}
