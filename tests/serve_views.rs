//! What `serve`'s pages are told, over plain HTTP: a model's rejected answer marked
//! with its reason and the feedback sent back, the models the host serves, a game
//! nobody moves in abandoned and logged as stopped, one its person ends logged as
//! stopped too, opponents too costly for a browser refused, and a run of engines only
//! tabulated by its pairings.

use crate::support::serve::{check_ended_by_the_page, client, end_game, last_event, play_through, start_game, Served};
use crate::support::{legal_moves_in, run_arena, temp_dir, Reply, StubServer};
use serde_json::{json, Value};

#[test]
fn a_rejected_answer_is_marked_with_its_reason_and_the_feedback_and_the_hosts_models_are_offered() {
    let runs = temp_dir("serve-views", "rejected").join("runs");
    // Stands in for a model that first answers without naming a square and, told so,
    // names one: a real model will not do that on demand.
    let model = StubServer::start_routed(|path, request, _| {
        if path == "/api/tags" {
            return Reply::content("").with_body(json!({"models": [
                {"name": "stub:1b", "model": "stub:1b"}, {"name": "other:2b", "model": "other:2b"}
            ]}));
        }
        let told = request["messages"].as_array().is_some_and(|m| m.len() > 2);
        match legal_moves_in(request).first() {
            Some(square) if told => Reply::content(square),
            _ => Reply::content("Let me think about the corners first."),
        }
    });
    let served = Served::start(
        &runs,
        "127.0.0.1:0",
        &["--host", &model.url, "--mode", "direct", "--on-invalid", "feedback"],
    );
    let http = client();
    let models: Value = http
        .get(format!("{}/api/models", served.url))
        .send()
        .unwrap()
        .json()
        .unwrap();
    assert_eq!(models["models"], json!(["other:2b", "stub:1b"]));

    let (id, _) = start_game(&http, &served.url, "white", "llm:stub:1b");
    let events = play_through(&http, &served.url, id, "white", None);
    assert_eq!(events.last().unwrap()["kind"], "end", "{:?}", events.last());
    let kinds: Vec<&str> = events.iter().map(|e| e["kind"].as_str().unwrap()).collect();
    let first = kinds.iter().position(|k| *k == "rejected").unwrap();
    assert_eq!(
        &kinds[first - 1..first + 3],
        ["llm_reply", "rejected", "llm_reply", "decision"]
    );
    let rejected = &events[first];
    assert_eq!(rejected["reason"], "no coordinate read");
    assert_eq!((&rejected["session"], &rejected["turn"]), (&json!(1), &json!(1)));
    let feedback = rejected["feedback"].as_str().unwrap();
    assert!(
        feedback.contains("f5"),
        "the feedback lists the legal moves: {feedback}"
    );
    assert_eq!(events[first + 2]["source"], "llm");
}

#[test]
fn a_game_nobody_moves_in_is_abandoned_and_logged_as_stopped() {
    let runs = temp_dir("serve-views", "abandoned").join("runs");
    let served = Served::start(&runs, "127.0.0.1:0", &["--move-wait", "1"]);
    let http = client();
    let (id, run) = start_game(&http, &served.url, "black", "greedy");
    // Read the events without moving.
    let last = last_event(&http, &served.url, id);
    assert_eq!(last["kind"], "failed", "{last}");
    let log = std::fs::read_to_string(runs.join(&run).join("game-0001.jsonl")).unwrap();
    let end: Value = serde_json::from_str(log.lines().last().unwrap()).unwrap();
    assert_eq!(
        (&end["type"], &end["ply"], &end["reason"]),
        (&json!("game_stopped"), &json!(1), &json!("abandoned"))
    );
    let shown: Value = http
        .get(format!("{}/api/runs/{run}", served.url))
        .send()
        .unwrap()
        .json()
        .unwrap();
    assert_eq!(shown["games"][0]["end"][2], "stopped before ply 1 (abandoned)");
}

#[test]
fn a_game_its_person_ends_is_logged_as_stopped_and_costly_opponents_are_refused() {
    let runs = temp_dir("serve-views", "ended").join("runs");
    let served = Served::start(&runs, "127.0.0.1:0", &["--max-games", "1"]);
    let http = client();
    // Searches that could hold a core for minutes after their page leaves.
    for costly in ["alphabeta:16", "n-hand:8", "reference:12:30", "reference:8:24"] {
        let refused = http
            .post(format!("{}/api/games", served.url))
            .json(&json!({"color": "black", "opponent": costly}))
            .send()
            .unwrap();
        assert_eq!(refused.status().as_u16(), 400, "{costly}");
        let said = refused.text().unwrap();
        assert!(said.contains("too deep for a browser game"), "{costly}: {said}");
    }
    let (id, run) = start_game(&http, &served.url, "black", "greedy");
    let events = play_through(&http, &served.url, id, "black", Some(8));
    assert!(events.iter().any(|e| e["kind"] == "state"), "{events:?}");
    assert_eq!(end_game(&http, &served.url, id), 204);
    check_ended_by_the_page(&http, &served.url, id);
    let log = std::fs::read_to_string(runs.join(&run).join("game-0001.jsonl")).unwrap();
    let stopped: Value = serde_json::from_str(log.lines().last().unwrap()).unwrap();
    assert_eq!(
        (&stopped["type"], &stopped["reason"]),
        (&json!("game_stopped"), &json!("ended"))
    );
    // Its one slot is free again.
    let (next, _) = start_game(&http, &served.url, "black", "greedy");
    assert_ne!(next, id);
}

#[test]
fn a_run_of_engines_only_is_tabulated_by_its_pairings() {
    let base = temp_dir("serve-views", "engines");
    let runs = base.join("runs");
    std::fs::create_dir_all(&runs).unwrap();
    let file = base.join("ladder.toml");
    std::fs::write(
        &file,
        "format = \"round-robin\"\nengines = [\"random\", \"greedy\"]\ngames = 4\nopening_random = 4\nseed = 3\n",
    )
    .unwrap();
    let run = runs.join("ladder");
    let played = run_arena(
        &["tournament", file.to_str().unwrap(), "--log-dir", run.to_str().unwrap()],
        "127.0.0.1:9",
    );
    assert!(played.status.success(), "{}", String::from_utf8_lossy(&played.stderr));
    let served = Served::start(&runs, "127.0.0.1:0", &[]);
    let shown: Value = client()
        .get(format!("{}/api/runs/ladder", served.url))
        .send()
        .unwrap()
        .json()
        .unwrap();
    assert_eq!(shown["tables"]["by"], "pairing", "{shown}");
    let groups = shown["tables"]["groups"].as_array().unwrap();
    assert_eq!(groups.len(), 1, "{groups:?}");
    let pairing = &groups[0];
    assert_eq!(
        (&pairing["model"], &pairing["opponent"]),
        (&json!("greedy"), &json!("random"))
    );
    let overall = &pairing["overall"];
    assert_eq!(overall["games"], 4);
    let counted = ["wins", "losses", "draws"]
        .iter()
        .map(|k| overall[k].as_u64().unwrap())
        .sum::<u64>();
    assert_eq!(counted, 4);
    assert_eq!(
        pairing["as_black"]["games"].as_u64().unwrap() + pairing["as_white"]["games"].as_u64().unwrap(),
        4
    );
}
