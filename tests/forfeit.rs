//! `--fallback forfeit` end to end through the binary, against a scripted Ollama server
//! on 127.0.0.1 whose model never names a legal move: every game ends at the agent's
//! first move, lost and scored as a wipeout; the log, `results.json`, `stats`,
//! `eval --resume` and `replay` all agree on it.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use std::sync::atomic::{AtomicBool, Ordering};

use crate::support::command::Eval;
use crate::support::{legal_moves_in, run_arena, temp_dir, Reply, StubServer};
use game::othello::{Board, Color, Outcome};
use game::Othello;
use record::{read_game_log, AgentDecision, EndedSession, Event, ForfeitRecord, GameEnd, MoveSource, Record};
use serde_json::Value;

/// A model that answers every request without a coordinate.
fn hopeless_model() -> StubServer {
    StubServer::start(|_, _| Reply::content("I pass"))
}

/// 2 games as black and 2 as white against random, after a 2-ply random opening.
fn forfeit_eval(dir: &Path, server: &StubServer) -> Output {
    Eval::model("m")
        .vs("random")
        .games(2)
        .flag("opening-random", "2")
        .flag("fallback", "forfeit")
        .log_dir(dir)
        .json()
        .run(&server.url)
}

fn success(output: &Output) -> Value {
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    serde_json::from_slice(&output.stdout).unwrap()
}

fn game_log(dir: &Path, game: usize) -> PathBuf {
    dir.join(format!("game-{game:04}.jsonl"))
}

/// Checks one forfeited game's log and returns its forfeit record.
fn check_forfeited_log(records: &[Record]) -> ForfeitRecord {
    let Event::GameStart(start) = &records[0].event else {
        panic!("the log starts with game_start")
    };
    let agent_color = if start.black == "llm:m" {
        Color::Black
    } else {
        Color::White
    };
    let n = records.len();
    let (Event::Forfeit(forfeit), Event::GameEnd(end)) = (&records[n - 2].event, &records[n - 1].event) else {
        panic!("the log ends with forfeit, game_end: {records:?}")
    };
    // The moves replay to the position the agent forfeited in: its first move.
    let mut board = Board::parse_squares(start.start_board.as_str(), Color::Black).unwrap();
    for mv in &end.moves {
        board = board.try_play(mv.to_move::<Othello>().unwrap()).unwrap();
    }
    assert_eq!(end.moves.len(), start.opening.len() + played_moves(records).len());
    assert_eq!(forfeit.ply, end.moves.len() + 1, "the game ends at the forfeit");
    assert_eq!(board.side_to_move(), agent_color);
    assert!(!board.must_pass(), "a forfeit is never of a forced pass");
    assert!(
        played_moves(records).iter().all(|m| m != "llm:m"),
        "no move record for the agent: it forfeited its first move"
    );
    check_end(end, &board, agent_color);
    assert_eq!((forfeit.color, forfeit.player.as_str()), (agent_color, "llm:m"));
    assert_eq!(forfeit.agent.source, Some(MoveSource::Forfeit));
    assert_eq!((forfeit.agent.sessions, forfeit.agent.invalid_answers), (3, 3));
    let ended: Vec<(u32, u32, &str)> = forfeit
        .agent
        .ended_sessions
        .iter()
        .map(|e| (e.session, e.turn, e.reason.as_str()))
        .collect();
    assert_eq!(
        ended,
        [1, 2, 3].map(|session| (session, 1, "no coordinate read")),
        "each session ended by its answer, with the reason"
    );
    assert!(forfeit.agent.answer_kind.is_none());
    let reason = forfeit.agent.fallback_reason.as_deref().unwrap();
    assert!(
        reason.contains("no legal move") && reason.contains("forfeited"),
        "{reason}"
    );
    let exchanges: Vec<usize> = records
        .iter()
        .filter_map(|r| match &r.event {
            Event::Exchange(e) => Some(e.ply),
            _ => None,
        })
        .collect();
    assert_eq!(
        exchanges,
        vec![forfeit.ply; 3],
        "three sessions, all at the forfeited ply"
    );
    forfeit.clone()
}

/// `game_end` after a forfeit: the discs on the board, the opponent the winner.
fn check_end(end: &GameEnd, board: &Board, agent_color: Color) {
    assert_eq!(
        (end.black_discs, end.white_discs),
        (board.count(Color::Black), board.count(Color::White))
    );
    assert_eq!(end.winner, Outcome::Win(!agent_color));
}

/// The players of the `move` records.
fn played_moves(records: &[Record]) -> Vec<String> {
    records
        .iter()
        .filter_map(|r| match &r.event {
            Event::Move(m) => Some(m.player.clone()),
            _ => None,
        })
        .collect()
}

fn check_forfeit_results(summary: &Value) {
    let opponent = &summary["opponents"][0];
    assert_eq!(opponent["opponent"], "random");
    for color in ["as_black", "as_white"] {
        let tally = &opponent[color];
        assert_eq!(
            (&tally["games"], &tally["wins"], &tally["losses"], &tally["draws"]),
            (&Value::from(2), &Value::from(0), &Value::from(2), &Value::from(0)),
            "{color}: {tally}"
        );
        assert_eq!(tally["mean_disc_diff"], -64.0, "a forfeit is a wipeout");
    }
    let agent = &summary["agent"];
    assert_eq!(agent["moves"], 4, "one decision per game");
    assert_eq!(agent["llm_moves"], 0, "the model decided no move");
    assert_eq!(agent["fallback_moves"], 0, "no fallback engine moved");
    assert_eq!(agent["forfeits"], 4, "a forfeit is a move the model did not make");
    assert_eq!(agent["llm_share"], 0.0);
    assert_eq!(agent["invalid_answers"], 12);
}

#[test]
fn a_model_without_a_legal_move_forfeits_every_game_and_every_report_counts_the_losses() {
    let server = hopeless_model();
    let dir = temp_dir("forfeit", "eval");
    let summary = success(&forfeit_eval(&dir, &server));
    check_forfeit_results(&summary);
    assert_eq!(summary["complete"], true);
    let results: Value = serde_json::from_str(&std::fs::read_to_string(dir.join("results.json")).unwrap()).unwrap();
    check_forfeit_results(&results);
    let run: Value = serde_json::from_str(&std::fs::read_to_string(dir.join("run.json")).unwrap()).unwrap();
    assert_eq!(run["agent"]["fallback"], "forfeit");
    for game in 1..=4 {
        check_forfeited_log(&read_game_log(&game_log(&dir, game)).unwrap());
    }
    assert_eq!(server.chat_requests().len(), 12, "3 sessions in each of 4 games");

    // `stats` reads the same from the logs.
    let output = Command::new(env!("CARGO_BIN_EXE_othello-arena"))
        .args(["stats", dir.to_str().unwrap(), "--json"])
        .output()
        .unwrap();
    let stats = success(&output);
    let group = &stats["groups"][0];
    assert_eq!(stats["groups"].as_array().unwrap().len(), 1);
    for key in ["as_black", "as_white", "overall"] {
        assert_eq!(group[key], summary["opponents"][0][key], "{key}");
    }
    assert_eq!(group["unfinished_games"], 0);
    for key in ["moves", "llm_moves", "fallback_moves", "invalid_answers", "requests"] {
        assert_eq!(group["agent"][key], summary["agent"][key], "{key}");
    }
    let output = Command::new(env!("CARGO_BIN_EXE_othello-arena"))
        .args(["stats", dir.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let text = String::from_utf8_lossy(&output.stdout);
    let all = text
        .lines()
        .find(|l| l.trim_start().starts_with("all"))
        .unwrap_or_else(|| panic!("no `all` row in\n{text}"));
    let cells: Vec<&str> = all.split_whitespace().collect();
    assert_eq!(
        &cells[..5],
        ["all", "4", "0", "4", "0"],
        "games, wins, losses, draws: {all}"
    );
    assert!(all.contains("-64.0") && all.contains("0 of 4"), "{all}");

    // `replay` shows the forfeit at the end of the game.
    let output = Command::new(env!("CARGO_BIN_EXE_othello-arena"))
        .args(["replay", game_log(&dir, 2).to_str().unwrap()])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let text = String::from_utf8_lossy(&output.stdout);
    let forfeit = check_forfeited_log(&read_game_log(&game_log(&dir, 2)).unwrap());
    assert!(
        text.contains(&format!("\nply {}: white (llm:m) to move", forfeit.ply)),
        "{text}"
    );
    assert!(
        text.contains("forfeit: no move, the game ends (forfeit; 3 request(s)"),
        "{text}"
    );
    let last = text.trim_end().lines().last().unwrap();
    assert!(
        last.starts_with(&format!(
            "final: white (llm:m) forfeited at ply {}: black wins",
            forfeit.ply
        )) && last.contains("wins by forfeit, scored as a margin of 64"),
        "{last}"
    );
    let output = Command::new(env!("CARGO_BIN_EXE_othello-arena"))
        .args(["replay", game_log(&dir, 2).to_str().unwrap(), "--json"])
        .output()
        .unwrap();
    let json = success(&output);
    assert_eq!(json["forfeit"]["ply"], forfeit.ply);
    assert_eq!(json["forfeit"]["source"], "forfeit");
    assert_eq!(json["forfeit"]["exchanges"].as_array().unwrap().len(), 3);
    assert!(json["plies"].as_array().unwrap().iter().all(|p| p["player"] != "llm:m"));
}

#[test]
fn resume_keeps_forfeited_games_as_finished_and_replays_a_missing_one() {
    let server = hopeless_model();
    let dir = temp_dir("forfeit", "resume");
    let first = success(&forfeit_eval(&dir, &server));
    let kept: Vec<String> = [1, 2, 4]
        .iter()
        .map(|&g| std::fs::read_to_string(game_log(&dir, g)).unwrap())
        .collect();
    let lost = read_game_log(&game_log(&dir, 3)).unwrap();
    std::fs::remove_file(game_log(&dir, 3)).unwrap();
    let requests = server.chat_requests().len();

    let output = run_arena(&["eval", "--resume", dir.to_str().unwrap(), "--json"], &server.url);
    let resumed = success(&output);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("3 of 4 games already finished"), "{stderr}");
    check_forfeit_results(&resumed);
    for key in ["as_black", "as_white", "overall"] {
        assert_eq!(resumed["opponents"][0][key], first["opponents"][0][key], "{key}");
    }
    assert_eq!(
        server.chat_requests().len(),
        requests + 3,
        "only game 3 was played again"
    );
    for (&game, text) in [1, 2, 4].iter().zip(&kept) {
        assert_eq!(
            &std::fs::read_to_string(game_log(&dir, game)).unwrap(),
            text,
            "game {game} kept"
        );
    }
    let replayed = read_game_log(&game_log(&dir, 3)).unwrap();
    let forfeit = check_forfeited_log(&replayed);
    let moves = |records: &[Record]| match &records.last().unwrap().event {
        Event::GameEnd(end) => end.moves.clone(),
        _ => unreachable!("checked above"),
    };
    assert_eq!(moves(&replayed), moves(&lost), "the same seeds play the same game");
    assert_eq!(forfeit.ply, check_forfeited_log(&lost).ply);
}

#[test]
fn a_bad_fallback_is_refused_naming_the_flag() {
    for (fallback, needle) in [("human", "not human"), ("nonsense", "invalid fallback \"nonsense\"")] {
        let output = Eval::model("m")
            .vs("random")
            .flag("fallback", fallback)
            .run("127.0.0.1:9");
        assert_eq!(output.status.code(), Some(2), "{fallback}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains("bad --fallback") && stderr.contains(needle),
            "{fallback}: {stderr}"
        );
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
}

#[test]
fn a_session_ended_by_an_invalid_answer_keeps_its_reason_in_the_move_record() {
    // The first answer names no square (under `--on-invalid retry`, the default, that
    // ends the session); every later one names the first legal move.
    let answered = AtomicBool::new(false);
    let server = StubServer::start(move |request, _| match legal_moves_in(request).first() {
        Some(first) if answered.swap(true, Ordering::SeqCst) => Reply::content(first),
        Some(_) => Reply::content("I pass"),
        // Not a chat request (the model check).
        None => Reply::content("ok"),
    });
    let dir = temp_dir("forfeit", "retry-reason");
    let output = Eval::model("m")
        .vs("random")
        .games(1)
        .flag("on-invalid", "retry")
        .log_dir(&dir)
        .json()
        .run(&server.url);
    success(&output);
    let mut decisions: Vec<AgentDecision> = Vec::new();
    for game in 1..=2 {
        for record in read_game_log(&game_log(&dir, game)).unwrap() {
            if let Event::Move(m) = record.event {
                decisions.extend(m.agent);
            }
        }
    }
    let ended: Vec<&AgentDecision> = decisions.iter().filter(|d| !d.ended_sessions.is_empty()).collect();
    assert_eq!(ended.len(), 1, "one session ended, in one decision: {decisions:?}");
    let decision = ended[0];
    assert_eq!(
        (decision.source, decision.sessions, decision.invalid_answers),
        (Some(MoveSource::Llm), 2, 1),
        "the second session played"
    );
    assert_eq!(
        decision.ended_sessions,
        [EndedSession {
            session: 1,
            turn: 1,
            reason: "no coordinate read".into(),
        }]
    );
    assert!(decisions.iter().all(|d| d.source == Some(MoveSource::Llm)));
}
