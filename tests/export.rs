//! `export`: GGF records and transcripts of finished games, read back by a small GGF
//! parser of the test's own and replayed through the rules.

use crate::support::command::Eval;
use std::path::Path;
use std::time::Duration;

use crate::support::{model_host, run_arena, temp_dir};
use game::othello::{Board, Color, Move};

/// One GGF record's tags in order, as (tag, value), `\` escapes undone.
fn ggf_tags(record: &str) -> Vec<(String, String)> {
    let body = record
        .strip_prefix("(;")
        .and_then(|r| r.strip_suffix(";)"))
        .expect("a GGF record is (; ... ;)");
    let mut tags = Vec::new();
    let mut chars = body.chars();
    let mut tag = String::new();
    while let Some(c) = chars.next() {
        if c != '[' {
            tag.push(c);
            continue;
        }
        let mut value = String::new();
        while let Some(c) = chars.next() {
            match c {
                '\\' => value.push(chars.next().unwrap()),
                ']' => break,
                c => value.push(c),
            }
        }
        tags.push((std::mem::take(&mut tag), value));
    }
    tags
}

/// Replays a GGF record through the rules: its final board, and black's result as RE
/// gives it.
fn replay_ggf(record: &str) -> (Board, i32, Vec<(String, String)>) {
    let tags = ggf_tags(record);
    let value = |name: &str| tags.iter().find(|(t, _)| t == name).map(|(_, v)| v.clone()).unwrap();
    assert_eq!(value("GM"), "Othello");
    let bo = value("BO");
    let (size, rest) = bo.split_once(' ').unwrap();
    assert_eq!(size, "8");
    let (squares, side) = rest.rsplit_once(' ').unwrap();
    let squares: String = squares
        .chars()
        .filter(|c| *c != ' ')
        .map(|c| if c == '*' { 'X' } else { c })
        .collect();
    let side = if side == "*" { Color::Black } else { Color::White };
    let mut board = Board::parse_squares(&squares, side).unwrap();
    for (tag, mv) in tags.iter().filter(|(t, _)| t == "B" || t == "W") {
        let color = if tag == "B" { Color::Black } else { Color::White };
        assert_eq!(board.side_to_move(), color, "{tag}[{mv}] by the side to move");
        let mv: Move = if mv == "PA" { Move::Pass } else { mv.parse().unwrap() };
        board = board.try_play(mv).unwrap();
    }
    let result = value("RE");
    let result: i32 = result.split(['.', ':']).next().unwrap().parse().unwrap();
    (board, result, tags)
}

fn export(args: &[&str]) -> String {
    let output = run_arena(&[&["export"], args].concat(), "127.0.0.1:9");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout).unwrap()
}

fn play_engines(run: &Path) {
    let args = [
        "play",
        "--black",
        "greedy",
        "--white",
        "random",
        "--games",
        "4",
        "--swap",
        "--opening-random",
        "6",
        "--log-dir",
        run.to_str().unwrap(),
    ];
    let output = run_arena(&args, "127.0.0.1:9");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
}

#[test]
fn ggf_records_replay_through_the_rules_to_their_logged_result() {
    let dir = temp_dir("export", "ggf");
    let run = dir.join("run");
    play_engines(&run);
    let text = export(&[run.to_str().unwrap()]);
    let records: Vec<&str> = text.lines().collect();
    assert_eq!(records.len(), 4);
    for (i, record) in records.iter().enumerate() {
        let (board, result, tags) = replay_ggf(record);
        assert!(board.is_game_over(), "game {} replays to its end", i + 1);
        let (black, white) = (board.count(Color::Black) as i32, board.count(Color::White) as i32);
        let empties = 64 - black - white;
        let awarded = match (black - white).signum() {
            1 => black - white + empties,
            -1 => black - white - empties,
            _ => 0,
        };
        assert_eq!(result, awarded, "RE gives the empties to the winner");
        // The log's game_end agrees with the board the record replays to.
        let log = std::fs::read_to_string(run.join(format!("game-{:04}.jsonl", i + 1))).unwrap();
        let end: serde_json::Value = serde_json::from_str(log.lines().last().unwrap()).unwrap();
        assert_eq!(
            (end["black_discs"].as_i64(), end["white_discs"].as_i64()),
            (Some(black as i64), Some(white as i64))
        );
        let players: Vec<&str> = tags
            .iter()
            .filter(|(t, _)| t == "PB" || t == "PW")
            .map(|(_, v)| v.as_str())
            .collect();
        assert_eq!(players.len(), 2);
        assert!(
            !tags.iter().any(|(t, _)| t == "C"),
            "engines' games carry no source comment"
        );
    }
    // Transcripts: the same moves from the usual start, forced passes left out.
    let transcripts = export(&[run.to_str().unwrap(), "--format", "transcript"]);
    for (line, record) in transcripts.lines().zip(&records) {
        let moves: String = ggf_tags(record)
            .into_iter()
            .filter(|(t, v)| (t == "B" || t == "W") && v != "PA")
            .map(|(_, v)| v)
            .collect();
        assert_eq!(line, moves);
    }
}

#[test]
fn an_llm_games_record_says_which_moves_the_model_made_and_files_are_checked() {
    let (host, _) = model_host("m", Duration::ZERO);
    let dir = temp_dir("export", "llm");
    let run = dir.join("run");
    let output = Eval::model("m").vs("random").games(1).log_dir(&run).run(&host.url);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let text = export(&[run.to_str().unwrap()]);
    let (board, _, tags) = replay_ggf(text.lines().next().unwrap());
    assert!(board.is_game_over());
    let comment = &tags.iter().find(|(t, _)| t == "C").expect("a source comment").1;
    assert!(
        comment.starts_with("black llm:m: ") && comment.contains("moves by the model, 0 fallback"),
        "{comment}"
    );
    // -o goes through the output check: never onto a run's own files.
    let target = run.join("game-0001.jsonl");
    let before = std::fs::read(&target).unwrap();
    let refused = run_arena(
        &["export", run.to_str().unwrap(), "-o", target.to_str().unwrap()],
        "127.0.0.1:9",
    );
    assert_eq!(refused.status.code(), Some(2));
    assert_eq!(std::fs::read(&target).unwrap(), before);
    let file = dir.join("games.ggf");
    let written = run_arena(
        &["export", run.to_str().unwrap(), "-o", file.to_str().unwrap()],
        "127.0.0.1:9",
    );
    assert!(written.status.success());
    assert_eq!(std::fs::read_to_string(&file).unwrap(), text);
}
