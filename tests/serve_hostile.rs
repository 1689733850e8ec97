//! The play page's games under hostile timing, over real HTTP: double clicks at one
//! ply and clicks on old plies; a hint the person's move overtakes, and one whose page
//! leaves mid-search; `end` while the opponent thinks, while the person's move is on its
//! way, after the last move while the opponent's process quits, and before that process
//! is ready; Ctrl-C during the opponent's turn, and a game asked for during the stop; a
//! run folder that cannot be made. In each, the log ends with one `game_end` or one
//! `game_stopped`, `replay` and `stats` (or `rate`) read it, and the page's last event
//! is its one `end` or `failed`.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use crate::support::serve::{
    arena_ok, check_ended_by_the_page, client, end_game, game_events, last_event, play_through, start_game, Served,
};
use crate::support::{http_client, legal_moves_in, model_host, temp_dir, Reply, StubServer};
use reqwest::blocking::Client;
use serde_json::{json, Value};

/// How long the scripted opponent model thinks over each move.
const THINK: Duration = Duration::from_secs(8);

/// The lines of run `run`'s game log.
fn log_lines(runs: &Path, run: &str) -> Vec<Value> {
    std::fs::read_to_string(runs.join(run).join("game-0001.jsonl"))
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

/// The log begins with `game_start` and ends with its one `game_end` or `game_stopped`;
/// the moves in between are one a ply. Answers the last line.
fn check_one_end(lines: &[Value]) -> Value {
    assert_eq!(lines[0]["type"], "game_start", "{lines:?}");
    let ends: Vec<usize> = (0..lines.len())
        .filter(|&i| lines[i]["type"] == "game_end" || lines[i]["type"] == "game_stopped")
        .collect();
    assert_eq!(ends, [lines.len() - 1], "one end, last: {lines:#?}");
    let plies: Vec<u64> = lines
        .iter()
        .filter(|l| l["type"] == "move")
        .map(|l| l["ply"].as_u64().unwrap())
        .collect();
    assert!(plies.iter().enumerate().all(|(i, &p)| p == i as u64 + 1), "{plies:?}");
    lines.last().unwrap().clone()
}

/// `replay` reads run `run`'s log, and `stats` (a model's game) or `rate` (an
/// engine's) its folder.
fn check_readers(runs: &Path, run: &str) {
    let dir = runs.join(run);
    arena_ok(&["replay", dir.join("game-0001.jsonl").to_str().unwrap()]);
    if run.contains("llm") {
        arena_ok(&["stats", dir.to_str().unwrap()]);
    } else {
        arena_ok(&["rate", dir.to_str().unwrap(), "--anchor", "human=0"]);
    }
}

/// Every event game `id` has had so far (a page that connects now is sent them all),
/// `reset` left out: read until the feed is quiet for a second.
fn events_so_far(url: &str, id: u64) -> Vec<Value> {
    let quiet = http_client(Duration::from_secs(1));
    let stream = quiet.get(format!("{url}/api/games/{id}/events")).send().unwrap();
    BufReader::new(stream)
        .lines()
        .map_while(Result::ok)
        .filter_map(|line| {
            line.strip_prefix("data:")
                .map(|d| serde_json::from_str(d.trim()).unwrap())
        })
        .skip(1)
        .collect()
}

/// The page's events end with one `end` or `failed`, which is answered.
fn check_last_event(url: &str, id: u64) -> Value {
    let events = events_so_far(url, id);
    let ends: Vec<usize> = (0..events.len())
        .filter(|&i| events[i]["kind"] == "end" || events[i]["kind"] == "failed")
        .collect();
    assert_eq!(ends, [events.len() - 1], "one end, last: {events:#?}");
    assert_eq!(events[0]["kind"], "start", "{events:#?}");
    events.last().unwrap().clone()
}

/// Reads game `id`'s events until one says the person (`color`) is to move.
fn wait_for_my_turn(http: &Client, url: &str, id: u64, color: &str) -> Value {
    game_events(http, url, id)
        .find(|e| e["kind"] == "state" && e["to_move"] == color && e["over"] == false)
        .expect("the person's turn comes")
}

fn post(http: &Client, url: &str, path: &str, body: &Value) -> (u16, String) {
    let answer = http.post(format!("{url}{path}")).json(body).send().unwrap();
    (answer.status().as_u16(), answer.text().unwrap())
}

/// A served page whose `llm:slow` opponent thinks [`THINK`] over each move.
fn slow_model_server(name: &str) -> (PathBuf, Served, StubServer) {
    let runs = temp_dir("serve-hostile", name).join("runs");
    let (model, _) = model_host("slow", THINK);
    let served = Served::start(&runs, "127.0.0.1:0", &["--host", &model.url, "--timeout", "30"]);
    (runs, served, model)
}

#[test]
fn double_clicks_and_clicks_on_old_plies_count_for_nothing() {
    let runs = temp_dir("serve-hostile", "clicks").join("runs");
    let served = Served::start(&runs, "127.0.0.1:0", &[]);
    let http = client();
    let (id, run) = start_game(&http, &served.url, "black", "greedy");
    let first = wait_for_my_turn(&http, &served.url, id, "black");
    let mv = |square: &Value, ply: &Value| {
        post(
            &http,
            &served.url,
            &format!("/api/games/{id}/move"),
            &json!({"square": square, "ply": ply}),
        )
        .0
    };
    // Three clicks at ply 1, each on its way before the game takes the first.
    let clicks: Vec<u16> = std::thread::scope(|s| {
        let legal = &first["legal"];
        let handles: Vec<_> = [&legal[0], &legal[0], &legal[1]]
            .into_iter()
            .map(|square| s.spawn(|| mv(square, &json!(1))))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert!(clicks.iter().all(|&c| c == 204 || c == 409), "{clicks:?}");
    let events = play_through(&http, &served.url, id, "black", None);
    assert_eq!(events.last().unwrap()["kind"], "end", "{:?}", events.last());
    assert_eq!(mv(&first["legal"][0], &json!(1)), 409, "a click on an old ply");
    assert_eq!(mv(&first["legal"][0], &json!(3)), 409, "a click after the end");
    let lines = log_lines(&runs, &run);
    assert_eq!(check_one_end(&lines)["type"], "game_end");
    let moves: Vec<&Value> = lines.iter().filter(|l| l["type"] == "move").collect();
    let legal = first["legal"].as_array().unwrap();
    assert!(legal.contains(&moves[0]["move"]), "{:?}", moves[0]);
    assert_eq!(check_last_event(&served.url, id)["kind"], "end");
    check_readers(&runs, &run);
}

/// A model that answers its first legal move at once, or after [`THINK`] once `slow`
/// is set.
fn model_slowed_by(slow: Arc<AtomicBool>) -> StubServer {
    let tags = json!({ "models": [{ "name": "slow", "model": "slow" }] });
    StubServer::start_routed(move |path, request, _| {
        if path == "/api/tags" {
            return Reply::content("").with_body(tags.clone());
        }
        if slow.load(Ordering::SeqCst) {
            std::thread::sleep(THINK);
        }
        Reply::content(legal_moves_in(request).first().map_or("", String::as_str))
    })
}

/// Game `id`, the person black against a first-legal-move opponent, played until the
/// person's turn at ply 41 or later (20 empties or fewer: a deep hint takes a while).
fn play_to_the_endgame(http: &Client, url: &str, id: u64) -> Value {
    for event in game_events(http, url, id) {
        let mine = event["kind"] == "state" && event["to_move"] == "black" && event["over"] == false;
        if mine && event["legal"][0].is_string() {
            if event["ply"].as_u64().unwrap() >= 41 {
                return event;
            }
            let body = json!({"square": event["legal"][0], "ply": event["ply"]});
            assert_eq!(post(http, url, &format!("/api/games/{id}/move"), &body).0, 204);
        }
    }
    panic!("the game ended before ply 41")
}

/// A hint asked for in the middle game, then the person's move made while the hint is
/// worked out (a deep search there takes a while): the hint is refused as soon as it is
/// ready, not after the opponent's whole turn, and it is never logged. (Should the hint
/// be ready before the move comes, it is shown and logged before the move.)
#[test]
fn a_hint_the_move_overtakes_is_refused_at_once_and_never_logged() {
    let runs = temp_dir("serve-hostile", "hint").join("runs");
    let slow = Arc::new(AtomicBool::new(false));
    let model = model_slowed_by(slow.clone());
    let served = Served::start(&runs, "127.0.0.1:0", &["--host", &model.url, "--timeout", "30"]);
    let http = client();
    let (id, run) = start_game(&http, &served.url, "black", "llm:slow");
    let turn = play_to_the_endgame(&http, &served.url, id);
    slow.store(true, Ordering::SeqCst);
    let ply = turn["ply"].as_u64().unwrap();
    let (status, said) = std::thread::scope(|s| {
        let asked = s.spawn(|| {
            let body = json!({"engine": "reference:10:20", "ply": ply});
            post(&http, &served.url, &format!("/api/games/{id}/hint"), &body)
        });
        std::thread::sleep(Duration::from_millis(20));
        let body = json!({"square": turn["legal"][0], "ply": ply});
        assert_eq!(post(&http, &served.url, &format!("/api/games/{id}/move"), &body).0, 204);
        asked.join().unwrap()
    });
    let lines = log_lines(&runs, &run);
    let at = |kind: &str| -> Vec<u64> {
        let lines = lines.iter().filter(|l| l["type"] == kind);
        lines.map(|l| l["ply"].as_u64().unwrap()).collect()
    };
    if status == 200 {
        // The hint was ready first.
        assert_eq!(at("hint"), [ply], "{said}");
    } else {
        assert_eq!(status, 409, "{said}");
        assert!(said.contains("hints are for your turn"), "{said}");
        assert_eq!(at("hint"), [0u64; 0], "a hint refused is not logged");
        assert_eq!(at("move").last(), Some(&ply), "refused while the opponent still thinks");
    }
    assert_eq!(end_game(&http, &served.url, id), 204);
    let last = last_event(&http, &served.url, id);
    assert_eq!(last["reason"], "ended", "{last}");
    assert_eq!(check_one_end(&log_lines(&runs, &run))["reason"], "ended");
    check_readers(&runs, &run);
}

/// `end` while the opponent model thinks, and while the person's move is on its way:
/// the game stops where it is, nothing is logged or shown after the stop (not the
/// model's late answer), and the log is read.
#[test]
fn ending_a_game_while_the_opponent_thinks_or_the_move_is_on_its_way() {
    let (runs, served, _model) = slow_model_server("end");
    let http = client();
    // The model holds black: it thinks first.
    let (thinking, thinking_run) = start_game(&http, &served.url, "white", "llm:slow");
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(end_game(&http, &served.url, thinking), 204);
    // The person's move, and the end right behind it.
    let (moving, moving_run) = start_game(&http, &served.url, "black", "llm:slow");
    let first = wait_for_my_turn(&http, &served.url, moving, "black");
    let body = json!({"square": first["legal"][0], "ply": 1});
    assert_eq!(
        post(&http, &served.url, &format!("/api/games/{moving}/move"), &body).0,
        204
    );
    assert_eq!(end_game(&http, &served.url, moving), 204);
    for id in [thinking, moving] {
        check_ended_by_the_page(&http, &served.url, id);
    }
    // The model's answers come in after the stop: nothing of them is shown or logged.
    std::thread::sleep(THINK + Duration::from_secs(1));
    for (id, run) in [(thinking, &thinking_run), (moving, &moving_run)] {
        let last = check_last_event(&served.url, id);
        assert_eq!(last["reason"], "ended", "{last}");
        let lines = log_lines(&runs, run);
        let stopped = check_one_end(&lines);
        assert_eq!(stopped["reason"], "ended", "{lines:#?}");
        let moves = lines.iter().filter(|l| l["type"] == "move").count() as u64;
        assert_eq!(stopped["ply"], moves + 1, "{lines:#?}");
        assert!(moves <= 1, "the model's move is not logged: {lines:#?}");
        check_readers(&runs, run);
    }
}

/// Ctrl-C while the opponent model thinks: the game is logged as interrupted at the
/// ply it reached.
#[test]
fn ctrl_c_during_the_opponents_turn_logs_the_game_as_interrupted() {
    let (runs, served, _model) = slow_model_server("interrupt");
    let http = client();
    let (id, run) = start_game(&http, &served.url, "black", "llm:slow");
    let first = wait_for_my_turn(&http, &served.url, id, "black");
    let body = json!({"square": first["legal"][0], "ply": 1});
    assert_eq!(post(&http, &served.url, &format!("/api/games/{id}/move"), &body).0, 204);
    std::thread::sleep(Duration::from_millis(500));
    assert!(served.interrupt().success());
    let lines = log_lines(&runs, &run);
    let stopped = check_one_end(&lines);
    assert_eq!(
        (&stopped["reason"], &stopped["ply"]),
        (&json!("interrupted"), &json!(2)),
        "{lines:#?}"
    );
    check_readers(&runs, &run);
}

/// A game whose run folder cannot be made is refused with the reason, and its slot is
/// free for the next.
#[test]
fn a_game_whose_run_folder_cannot_be_made_is_refused_and_frees_its_slot() {
    let runs = temp_dir("serve-hostile", "no-folder").join("runs");
    let served = Served::start(&runs, "127.0.0.1:0", &["--max-games", "1"]);
    let http = client();
    let aside = runs.with_extension("aside");
    std::fs::rename(&runs, &aside).unwrap();
    std::fs::write(&runs, "a file where the runs folder was").unwrap();
    let (status, said) = post(
        &http,
        &served.url,
        "/api/games",
        &json!({"color": "black", "opponent": "greedy"}),
    );
    assert_eq!(status, 500, "{said}");
    assert!(
        said.contains(&runs.display().to_string()),
        "the folder is named: {said}"
    );
    std::fs::remove_file(&runs).unwrap();
    std::fs::rename(&aside, &runs).unwrap();
    let (id, run) = start_game(&http, &served.url, "black", "greedy");
    let events = play_through(&http, &served.url, id, "black", None);
    assert_eq!(events.last().unwrap()["kind"], "end");
    check_one_end(&log_lines(&runs, &run));
}

/// A served page whose `ext:shell` opponent is this binary's engine server playing
/// greedy over GTP, started by a shell that runs `before` first and `after` once the
/// engine quits (the shell stays in the engine's process group, so the harness waits
/// for it); the runs folder.
fn shell_engine_server(name: &str, before: &str, after: &str) -> (PathBuf, Served) {
    let base = temp_dir("serve-hostile", name);
    let file = base.join("engines.toml");
    let bin = env!("CARGO_BIN_EXE_othello-arena");
    let script = format!("{before}; \"{bin}\" engine --protocol gtp --engine greedy; {after}");
    let table = format!(
        "[[engine]]\nname = \"shell\"\nprotocol = \"gtp\"\ncommand = \"bash\"\nargs = [\"-c\", {script:?}]\ntimeout = 20\n"
    );
    std::fs::write(&file, table).unwrap();
    let runs = base.join("runs");
    let served = Served::start(&runs, "127.0.0.1:0", &["--engines", file.to_str().unwrap()]);
    (runs, served)
}

/// `end` sent on the game's last position, while the opponent's process is still
/// quitting: the game is over already, so its log ends with `game_end` alone and the
/// page is shown the end, not a stop.
#[test]
fn ending_a_game_after_its_last_move_keeps_its_end() {
    let (runs, served) = shell_engine_server("late-end", "true", "sleep 5");
    let http = client();
    let (id, run) = start_game(&http, &served.url, "black", "ext:shell");
    for event in game_events(&http, &served.url, id) {
        if event["kind"] == "state" && event["over"] == true {
            end_game(&http, &served.url, id);
        } else if event["kind"] == "state" && event["to_move"] == "black" {
            let body = json!({"square": event["legal"][0], "ply": event["ply"]});
            post(&http, &served.url, &format!("/api/games/{id}/move"), &body);
        }
        if event["kind"] == "end" || event["kind"] == "failed" {
            break;
        }
    }
    assert_eq!(check_last_event(&served.url, id)["kind"], "end");
    assert_eq!(check_one_end(&log_lines(&runs, &run))["type"], "game_end");
    check_readers(&runs, &run);
}

/// `end` before the opponent's process has started: nothing of the game was logged,
/// so nothing is (a `game_stopped` with no `game_start` made the whole runs folder
/// unreadable to `stats` and `rate`).
#[test]
fn ending_a_game_before_its_opponent_is_ready_leaves_the_runs_readable() {
    let (runs, served) = shell_engine_server("early-end", "sleep 3", "true");
    let http = client();
    let (id, run) = start_game(&http, &served.url, "black", "ext:shell");
    assert_eq!(end_game(&http, &served.url, id), 204);
    let last = check_last_event(&served.url, id);
    assert_eq!(
        (&last["kind"], &last["reason"]),
        (&json!("failed"), &json!("ended")),
        "{last}"
    );
    let log = std::fs::read_to_string(runs.join(&run).join("game-0001.jsonl")).unwrap();
    assert!(
        log.is_empty() || log.starts_with("{\"schema_version\"") && log.contains("game_start"),
        "{log}"
    );
    // A finished game beside it: the folder of runs is read whole.
    let (id, _) = start_game(&http, &served.url, "black", "greedy");
    assert_eq!(
        play_through(&http, &served.url, id, "black", None).last().unwrap()["kind"],
        "end"
    );
    arena_ok(&["rate", runs.to_str().unwrap(), "--anchor", "human=0"]);
}

/// A game asked for while the server stops (Ctrl-C; the stop waits for an external
/// opponent's process to quit, and a page's open connection is still answered) is
/// refused: started then, it would never be stopped, and its log would end mid-game.
#[test]
fn a_game_asked_for_while_the_server_stops_is_refused() {
    let (runs, served) = shell_engine_server("late-start", "true", "sleep 5");
    let url = served.url.clone();
    let http = client();
    let (_, run) = start_game(&http, &url, "black", "ext:shell");
    // The engine's process is started (the game began).
    let log = runs.join(&run).join("game-0001.jsonl");
    while std::fs::read_to_string(&log).unwrap_or_default().is_empty() {
        std::thread::sleep(Duration::from_millis(20));
    }
    let stopping = std::thread::spawn(move || served.interrupt());
    std::thread::sleep(Duration::from_millis(300));
    // Over the connection kept from the requests before.
    let body = json!({"color": "black", "opponent": "greedy"});
    if let Ok(late) = http.post(format!("{url}/api/games")).json(&body).send() {
        assert_eq!(late.status().as_u16(), 503, "{}", late.text().unwrap());
    }
    assert!(stopping.join().unwrap().success());
    for run in std::fs::read_dir(&runs).unwrap() {
        let log = run.unwrap().path().join("game-0001.jsonl");
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        let lines: Vec<Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        if !lines.is_empty() {
            check_one_end(&lines);
        }
    }
}

/// A page that leaves while its hint is worked out does not keep the game's hints
/// busy: the same hint asked again is answered (it was refused for good, "a hint is
/// being computed", once a request was dropped mid-search).
#[test]
fn a_hint_whose_page_leaves_mid_search_leaves_hints_free() {
    let runs = temp_dir("serve-hostile", "hint-left").join("runs");
    let served = Served::start(&runs, "127.0.0.1:0", &[]);
    let http = client();
    let (id, _) = start_game(&http, &served.url, "black", "random");
    let turn = play_to_the_endgame(&http, &served.url, id);
    let body = json!({"engine": "reference:10:20", "ply": turn["ply"]});
    let hint = format!("{}/api/games/{id}/hint", served.url);
    let impatient = http_client(Duration::from_millis(5));
    assert!(
        impatient.post(&hint).json(&body).send().is_err(),
        "the page leaves first"
    );
    std::thread::sleep(Duration::from_secs(3));
    let again = http.post(&hint).json(&body).send().unwrap();
    assert_eq!(again.status().as_u16(), 200, "{}", again.text().unwrap());
}
