//! Tournaments, ratings and sequential stopping through the binary. The LLM player is a
//! scripted Ollama host on 127.0.0.1 (tests/support `model_host`) standing in for a
//! model that always plays its first legal move.

use crate::support::command::{Eval, Tournament};
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::support::serve::{client, Served};
use crate::support::{model_host, run_arena, run_tournament as tournament, temp_dir};
use serde_json::{json, Value};

fn json(output: &std::process::Output) -> Value {
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    serde_json::from_slice(&output.stdout).unwrap()
}

fn row<'a>(ratings: &'a Value, player: &str) -> &'a Value {
    ratings["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["player"] == player)
        .unwrap()
}

#[test]
fn a_gauntlet_with_a_scripted_llm_rates_it_among_the_engines() {
    let (host, _) = model_host("m", Duration::ZERO);
    let dir = temp_dir("tournament", "gauntlet");
    let text = Tournament::gauntlet(&["random", "greedy", "alphabeta:2"], 6)
        .key("seed", "5")
        .llm("m", &host.url)
        .text();
    let summary = json(&tournament(&dir, &text, &[]));
    let pairings = summary["pairings"].as_array().unwrap();
    assert_eq!(pairings.len(), 3);
    for p in pairings {
        assert_eq!(p["games"], 6);
        assert!(p["pairing"].as_str().unwrap().starts_with("llm:m vs "));
    }
    let ratings = &summary["ratings"]["as_played"];
    assert_eq!(ratings["games"], 18);
    assert_eq!(row(ratings, "random")["elo"], 0.0);
    let llm = row(ratings, "llm:m");
    assert_eq!(llm["kind"], "llm");
    let ladder = llm["ladder"].as_str().unwrap();
    assert!(
        ["between", "above", "below", "level"]
            .iter()
            .any(|w| ladder.starts_with(w)),
        "{ladder}"
    );
    // Each game's log names both players.
    let run = dir.join("run");
    let first = std::fs::read_to_string(run.join("game-0001.jsonl")).unwrap();
    let start: Value = serde_json::from_str(first.lines().next().unwrap()).unwrap();
    assert_eq!(
        (start["black"].as_str(), start["white"].as_str()),
        (Some("llm:m"), Some("random"))
    );
    assert_eq!(start["kinds"]["black"], "llm");
    // The HTML report reads a tournament folder as it reads an eval's.
    let page = dir.join("report.html");
    let report = run_arena(
        &["report", run.to_str().unwrap(), "-o", page.to_str().unwrap()],
        "127.0.0.1:9",
    );
    assert!(
        String::from_utf8_lossy(&report.stdout).contains("(18 games)"),
        "{report:?}"
    );
    check_one_rating_in_every_face(&dir, ratings, &page);
}

/// The tournament's final table (`ratings`), `rate`, `serve`'s "Rate the ticked runs"
/// (real HTTP on 127.0.0.1) and the report's strength-against-cost chart (`page`) give
/// the same numbers and intervals for the games of `dir`/run: one function, one set of
/// defaults, the published ladder's engines held at its ratings with a note.
fn check_one_rating_in_every_face(dir: &Path, ratings: &Value, page: &Path) {
    let run = dir.join("run");
    assert_eq!(ratings["anchor"], json!(["random", 0.0]));
    let held: Vec<&str> = ratings["held"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h[0].as_str().unwrap())
        .collect();
    assert_eq!(held, ["alphabeta:2:weight", "greedy"], "{ratings}");
    let rated = run_arena(&["rate", run.to_str().unwrap(), "--json"], "127.0.0.1:9");
    let note = String::from_utf8_lossy(&rated.stderr).to_string();
    assert!(
        note.contains("rated on the published ladder") && note.contains("--no-ladder"),
        "{note}"
    );
    assert_eq!(json(&rated)["as_played"], *ratings);
    let served = Served::start(dir, "127.0.0.1:0", &[]);
    let serve_rate = |body: Value| -> Value {
        let answer = client().post(format!("{}/api/rate", served.url)).json(&body).send();
        answer.unwrap().json().unwrap()
    };
    let from_serve = serve_rate(json!({ "runs": ["run"] }));
    assert_eq!(from_serve["as_played"], *ratings);
    assert!(from_serve["notes"][0].as_str().unwrap().contains("published ladder"));
    let html = std::fs::read_to_string(page).unwrap();
    let data = html
        .split("<script type=\"application/json\" id=\"data\">")
        .nth(1)
        .unwrap();
    let data: Value = serde_json::from_str(data.split("</script>").next().unwrap()).unwrap();
    for key in ["anchor", "held", "games", "rows"] {
        assert_eq!(data["ratings"][key], ratings[key], "the report's {key}");
    }
    // Off the ladder, every face fits the engines from these games alone.
    let off = json(&run_arena(
        &["rate", run.to_str().unwrap(), "--no-ladder", "--json"],
        "127.0.0.1:9",
    ));
    let unticked = serve_rate(json!({ "runs": ["run"], "ladder": false }));
    assert_eq!(unticked["as_played"], off["as_played"]);
    assert!(off["as_played"].get("held").is_none(), "{off}");
}

#[test]
fn a_thinking_level_names_the_player_and_the_ratings_carry_each_players_cost() {
    let (host, _) = model_host("m", Duration::ZERO);
    let dir = temp_dir("tournament", "think-names");
    std::fs::create_dir_all(&dir).unwrap();
    for level in ["high", "off"] {
        std::fs::write(dir.join(format!("{level}.toml")), format!("think = \"{level}\"\n")).unwrap();
    }
    let agent_file = |level: &str| format!("{:?}", dir.join(format!("{level}.toml")));
    let text = Tournament::gauntlet(&["random"], 2)
        .llm("m", &host.url)
        .llm_key("agent_file", &agent_file("high"))
        .llm("m", &host.url)
        .llm_key("agent_file", &agent_file("off"))
        .text();
    let summary = json(&tournament(&dir, &text, &[]));
    let ratings = &summary["ratings"]["as_played"];
    for player in ["llm:m@think-high", "llm:m@think-off"] {
        let agent = &row(ratings, player)["agent"];
        assert!(
            agent["prompt_tokens_per_move"].as_f64().unwrap() > 0.0,
            "{player}: {agent}"
        );
        assert!(agent["latency_ms_p50"].is_number(), "{player}: {agent}");
        assert_eq!(agent["cut_off_answers"], 0);
    }
    assert!(
        row(ratings, "random").get("agent").is_none(),
        "an engine has no answer cost"
    );
}

#[test]
fn rate_counts_a_game_once_and_names_a_missing_anchor() {
    let dir = temp_dir("tournament", "rate");
    let run = dir.join("match");
    let played = run_arena(
        &[
            "play",
            "--black",
            "greedy",
            "--white",
            "random",
            "--games",
            "8",
            "--swap",
            "--opening-random",
            "4",
            "--log-dir",
            run.to_str().unwrap(),
        ],
        "127.0.0.1:9",
    );
    assert!(played.status.success(), "{}", String::from_utf8_lossy(&played.stderr));
    let game = run.join("game-0001.jsonl");
    let rated = json(&run_arena(
        &[
            "rate",
            run.to_str().unwrap(),
            run.to_str().unwrap(),
            game.to_str().unwrap(),
            "--json",
        ],
        "127.0.0.1:9",
    ));
    assert_eq!(
        rated["as_played"]["games"], 8,
        "a run given twice and one of its games again count once"
    );
    assert_eq!(rated["fallback_as_loss"], Value::Null, "engines never fall back");
    let missing = run_arena(
        &["rate", run.to_str().unwrap(), "--anchor", "alphabeta:3=1000"],
        "127.0.0.1:9",
    );
    assert_eq!(missing.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&missing.stderr);
    assert!(
        stderr.contains("the anchor alphabeta:3:weight played none of these games")
            && stderr.contains("greedy, random"),
        "{stderr}"
    );
    let bad = run_arena(&["rate", run.to_str().unwrap(), "--anchor", "random"], "127.0.0.1:9");
    assert!(String::from_utf8_lossy(&bad.stderr).contains("is not SPEC=ELO"));
}

#[test]
fn an_sprt_stops_each_pairing_and_a_resume_reaches_the_same_decisions() {
    let dir = temp_dir("tournament", "sprt");
    let text = "format = \"round-robin\"\nengines = [\"random\", \"alphabeta:1\", \"alphabeta:2\"]\ngames = 400\n\
                opening_random = 4\nseed = 3\nstop = \"sprt:0,50\"\n";
    let first = json(&tournament(&dir, text, &["--parallel", "2"]));
    let stops: Vec<Value> = first["pairings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["stop"].clone())
        .collect();
    for stop in &stops {
        let verdict = stop["decision"]["verdict"].as_str().unwrap();
        assert!(verdict == "accept_h0" || verdict == "accept_h1", "{stop}");
        assert!(stop["pairs"].as_u64().unwrap() < 200, "stopped before the cap: {stop}");
        assert!(stop["decision"]["llr"].as_f64().is_some());
    }
    // Every pair boundary is logged with the rule's answer at that moment.
    let run = dir.join("run");
    let decisions = std::fs::read_to_string(run.join("decisions.jsonl")).unwrap();
    let steps: Vec<Value> = decisions.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let pairs: u64 = stops.iter().map(|s| s["pairs"].as_u64().unwrap()).sum();
    assert_eq!(steps.len() as u64, pairs, "one decision per pair played");
    for stop in &stops {
        let last = steps.iter().rfind(|s| s["pairing"] == stop["pairing"]).unwrap();
        assert_eq!(last, stop);
    }
    // As if the run had been killed in the middle: the last games of every pairing are
    // gone; the resume replays them and stops at the same pairs with the same LLR.
    let mut logs: Vec<PathBuf> = std::fs::read_dir(&run)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    logs.sort();
    for log in logs.iter().rev().take(10) {
        std::fs::remove_file(log).unwrap();
    }
    let resumed = json(&run_arena(
        &["tournament", "--resume", run.to_str().unwrap(), "--json"],
        "127.0.0.1:9",
    ));
    let again: Vec<Value> = resumed["pairings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["stop"].clone())
        .collect();
    assert_eq!(again, stops);
    assert_eq!(std::fs::read_to_string(run.join("decisions.jsonl")).unwrap(), decisions);
    assert_eq!(
        resumed["ratings"]["as_played"]["rows"],
        first["ratings"]["as_played"]["rows"]
    );
}

/// The pairing's stops (one a pairing) of a tournament's JSON.
fn stops_of(summary: &Value) -> Vec<Value> {
    summary["pairings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["stop"].clone())
        .collect()
}

/// `intrinsic:WIDTH` rates the pairing's first player from its valued decisions after
/// every pair and stops once that rating's interval is narrow enough; a width it cannot
/// reach plays to the cap. alphabeta:2:weight is a calibration rung inside the map, so
/// it gets a number; every interval is about 720 Elo wide or more (the map's residual).
#[test]
fn an_intrinsic_rule_stops_once_the_first_players_rating_is_narrow_enough() {
    let dir = temp_dir("tournament", "intrinsic-stop");
    let text = |stop: &str| {
        format!(
            "format = \"round-robin\"\nengines = [\"alphabeta:2:weight\", \"greedy\"]\ngames = 8\n\
             opening_random = 4\nseed = 5\nstop = \"{stop}\"\n"
        )
    };
    let first = json(&tournament(&dir, &text("intrinsic:1000"), &[]));
    let [stop] = &stops_of(&first)[..] else {
        panic!("{first}")
    };
    assert_eq!(stop["decision"]["verdict"], "intrinsic_narrow", "{stop}");
    let pairs = stop["pairs"].as_u64().unwrap();
    assert!((2..4).contains(&pairs), "stopped before the cap of 4 pairs: {stop}");
    let intrinsic = &stop["decision"]["intrinsic"];
    let width = intrinsic["high"].as_f64().unwrap() - intrinsic["low"].as_f64().unwrap();
    assert!((700.0..1000.0).contains(&width), "{stop}");
    assert!(stop["decision"].get("llr").is_none());
    // Every pair's answer is logged with the rating it rested on; a resume that plays
    // the last pair again reaches the same answers.
    let run = dir.join("run");
    let decisions = std::fs::read_to_string(run.join("decisions.jsonl")).unwrap();
    let steps: Vec<Value> = decisions.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(steps.len() as u64, pairs);
    // A pair whose decisions fall where the method was not validated (one pair of
    // games can look flatter than the validated rungs) gets no number and goes on.
    assert!(
        steps
            .iter()
            .all(|s| s["decision"]["intrinsic"]["estimate"].is_f64() || s["decision"]["verdict"] == "continue"),
        "{decisions}"
    );
    assert_eq!(steps.last().unwrap(), stop);
    for game in [2 * pairs - 1, 2 * pairs] {
        std::fs::remove_file(run.join(format!("game-{game:04}.jsonl"))).unwrap();
    }
    let resumed = json(&run_arena(
        &["tournament", "--resume", run.to_str().unwrap(), "--json"],
        "127.0.0.1:9",
    ));
    assert_eq!(stops_of(&resumed), stops_of(&first));
    assert_eq!(std::fs::read_to_string(run.join("decisions.jsonl")).unwrap(), decisions);

    // A width below the map's residual is never reached: the cap ends the pairing.
    let dir = temp_dir("tournament", "intrinsic-cap");
    let capped = json(&tournament(&dir, &text("intrinsic:100"), &[]));
    let [stop] = &stops_of(&capped)[..] else {
        panic!("{capped}")
    };
    assert_eq!(
        (stop["decision"]["verdict"].as_str(), stop["pairs"].as_u64()),
        (Some("continue"), Some(4))
    );
    let file = dir.join("tournament.toml");
    let again = dir.join("text");
    let output = run_arena(
        &[
            "tournament",
            file.to_str().unwrap(),
            "--log-dir",
            again.to_str().unwrap(),
        ],
        "127.0.0.1:9",
    );
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(
        text.contains("undecided at the cap of 4 pair(s) (intrinsic Elo "),
        "{text}"
    );
}

/// The intrinsic rule needs the calibration, which is Othello's: another game is
/// refused before any game, naming the rules that work.
#[test]
fn an_intrinsic_rule_is_refused_for_a_game_without_a_calibration() {
    let dir = temp_dir("tournament", "intrinsic-marubatsu");
    let output = Eval::model("m")
        .flag("game", "marubatsu")
        .flag("host", "127.0.0.1:9")
        .vs("random")
        .flag("stop", "intrinsic:500")
        .log_dir(&dir.join("run"))
        .run("127.0.0.1:9");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert!(
        stderr.contains("--stop intrinsic:500 needs the intrinsic calibration, which is Othello's: use sprt: or ci:"),
        "{stderr}"
    );
    assert!(!dir.join("run").join("game-0001.jsonl").exists(), "no game was played");
}

#[test]
fn a_grid_expands_into_one_named_player_per_combination_on_the_same_openings() {
    let (host, _) = model_host("m", Duration::ZERO);
    let dir = temp_dir("tournament", "grid");
    let text = Tournament::gauntlet(&["random"], 2)
        .llm("m", &host.url)
        .llm_key("grid", "{ mode = [\"tool\", \"direct\"], vote = [1, 3] }")
        .text();
    let summary = json(&tournament(&dir, &text, &[]));
    let ratings = &summary["ratings"]["as_played"];
    for mode in ["tool", "direct"] {
        let single = &row(ratings, &format!("llm:m@{mode}-vote-1"))["agent"];
        assert_eq!(single["voted_decisions"], 0, "{single}");
        assert_eq!(single["requests_per_move"], 1.0, "{single}");
        let voted = &row(ratings, &format!("llm:m@{mode}-vote-3"))["agent"];
        assert_eq!(voted["voted_decisions"], voted["moves"], "{voted}");
        assert_eq!(voted["requests_per_move"], 3.0, "every sample is a request: {voted}");
        assert_eq!(
            voted["unanimous_vote_share"], 1.0,
            "the model always names its first legal move"
        );
    }
    // The run records each player's settings; every pairing played the same openings.
    let run: Value = serde_json::from_str(&std::fs::read_to_string(dir.join("run/run.json")).unwrap()).unwrap();
    let text = run.to_string();
    assert!(
        text.contains("\"vote\":3") && text.contains("\"mode\":\"direct\""),
        "{text}"
    );
    let openings: Vec<String> = (1..=8)
        .map(|g| {
            let log = std::fs::read_to_string(dir.join(format!("run/game-{g:04}.jsonl"))).unwrap();
            let start: Value = serde_json::from_str(log.lines().next().unwrap()).unwrap();
            start["opening"].to_string()
        })
        .collect();
    assert!(openings.iter().all(|o| *o == openings[0]), "{openings:?}");
}

#[test]
fn a_gauntlet_rated_on_a_written_ladder_keeps_its_engines_where_the_ladder_put_them() {
    let ladder_dir = temp_dir("tournament", "ladder-run");
    let (ladder_file, ladder) = write_an_engines_ladder(&ladder_dir);
    assert_eq!(rung_elo(&ladder, "random"), 0.0);
    assert!(ladder["source"].as_str().unwrap().contains("--write-ladder"));

    // A gauntlet: its engines meet only the model, and rate says so.
    let (host, _) = model_host("m", Duration::ZERO);
    let dir = temp_dir("tournament", "ladder-gauntlet");
    let text = Tournament::gauntlet(&["random", "greedy"], 4)
        .key("seed", "5")
        .llm("m", &host.url)
        .text();
    json(&tournament(&dir, &text, &[]));
    let gauntlet = dir.join("run");
    let alone = run_arena(&["rate", gauntlet.to_str().unwrap(), "--no-ladder"], "127.0.0.1:9");
    let stderr = String::from_utf8_lossy(&alone.stderr);
    assert!(
        stderr.contains("meet each other only through other players") && stderr.contains("--ladder"),
        "{stderr}"
    );
    check_rated_on_the_ladder(&gauntlet, &ladder_file, &ladder);
    check_rated_on_the_shipped_ladder(&gauntlet);
    check_unplayed_and_broken_ladders_are_refused(&gauntlet, &dir);
}

/// The ladder run in `dir`: engines only, every one against every other, rated with
/// `--write-ladder`; the file written and its three rungs.
fn write_an_engines_ladder(dir: &Path) -> (PathBuf, toml::Table) {
    let text = "format = \"round-robin\"\nengines = [\"random\", \"greedy\", \"alphabeta:1\"]\ngames = 8\nopening_random = 4\nseed = 3\n";
    json(&tournament(dir, text, &[]));
    let ladder_file = dir.join("ladder.toml");
    let run = dir.join("run");
    let written = run_arena(
        &[
            "rate",
            run.to_str().unwrap(),
            "--write-ladder",
            ladder_file.to_str().unwrap(),
        ],
        "127.0.0.1:9",
    );
    assert!(written.status.success(), "{}", String::from_utf8_lossy(&written.stderr));
    let ladder: toml::Table = toml::from_str(&std::fs::read_to_string(&ladder_file).unwrap()).unwrap();
    assert_eq!(ladder["rung"].as_array().unwrap().len(), 3);
    (ladder_file, ladder)
}

/// The Elo of `player`'s rung on `ladder`.
fn rung_elo(ladder: &toml::Table, player: &str) -> f64 {
    let rungs = ladder["rung"].as_array().unwrap();
    rungs.iter().find(|r| r["player"].as_str() == Some(player)).unwrap()["elo"]
        .as_float()
        .unwrap()
}

/// On the ladder, the engines stay at its ratings and only the model is fitted; the
/// table says how many more are held.
fn check_rated_on_the_ladder(gauntlet: &Path, ladder_file: &Path, ladder: &toml::Table) {
    let rated = json(&run_arena(
        &[
            "rate",
            gauntlet.to_str().unwrap(),
            "--ladder",
            ladder_file.to_str().unwrap(),
            "--json",
        ],
        "127.0.0.1:9",
    ));
    let board = &rated["as_played"];
    assert_eq!(
        row(board, "greedy")["elo"].as_f64().unwrap(),
        rung_elo(ladder, "greedy")
    );
    assert_eq!(row(board, "random")["elo"], 0.0);
    assert_eq!(board["held"][0][0], "greedy", "{board}");
    assert!(row(board, "llm:m")["elo"].is_number());
    let text = run_arena(
        &[
            "rate",
            gauntlet.to_str().unwrap(),
            "--ladder",
            ladder_file.to_str().unwrap(),
        ],
        "127.0.0.1:9",
    );
    let table = String::from_utf8_lossy(&text.stdout);
    assert!(
        table.contains("1 more held at the ladder's ratings") && table.contains("held"),
        "{table}"
    );
}

/// Without a file, the ladder shipped under docs/ (from docs/ladder.toml's run).
fn check_rated_on_the_shipped_ladder(gauntlet: &Path) {
    let shipped: toml::Table = toml::from_str(&std::fs::read_to_string("docs/ladder-ratings.toml").unwrap()).unwrap();
    let shipped_greedy = shipped["rung"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["player"].as_str() == Some("greedy"));
    let rated = json(&run_arena(
        &["rate", gauntlet.to_str().unwrap(), "--ladder", "--json"],
        "127.0.0.1:9",
    ));
    assert_eq!(
        row(&rated["as_played"], "greedy")["elo"].as_f64(),
        shipped_greedy.unwrap()["elo"].as_float()
    );
}

/// A ladder none of whose engines played, and a broken one (both written to `dir`),
/// are refused by name.
fn check_unplayed_and_broken_ladders_are_refused(gauntlet: &Path, dir: &Path) {
    std::fs::write(
        dir.join("other.toml"),
        "source = \"x\"\nanchor = \"search=0\"\ngames = 2\n[[rung]]\nplayer = \"search\"\nelo = 0.0\nlow = 0.0\nhigh = 0.0\ngames = 2\n",
    )
    .unwrap();
    std::fs::write(dir.join("broken.toml"), "rung = 3\n").unwrap();
    for (file, expected) in [
        ("other.toml", "none of its engines played"),
        ("broken.toml", "--write-ladder FILE"),
    ] {
        let out = run_arena(
            &[
                "rate",
                gauntlet.to_str().unwrap(),
                "--ladder",
                dir.join(file).to_str().unwrap(),
            ],
            "127.0.0.1:9",
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains(expected), "{file}: {stderr}");
    }
}

#[test]
fn bad_tournament_files_are_refused_with_the_fix() {
    let dir = temp_dir("tournament", "bad");
    for (text, expected) in [
        (
            "engines = [\"random\", \"greedy\"]\ngames = 3\nformat = \"round-robin\"\n",
            "must be an even number",
        ),
        (
            "engines = [\"random\", \"greedy\"]\ngames = 2\n",
            "a gauntlet needs [[llm]] players",
        ),
        (
            "engines = [\"random\", \"greedy\"]\ngames = 2\nformat = \"round-robin\"\nstop = \"sprt:50,0\"\n",
            "bad stop",
        ),
        (
            "engines = [\"random\", \"nonsense\"]\ngames = 2\nformat = \"round-robin\"\n",
            "bad engines",
        ),
        ("engines = [\"random\"]\ngames = 2\nrounds = 3\n", "bad tournament file"),
        // An [[llm]] table's values are held to the limits of the flags of the same name.
        (
            "engines = [\"random\"]\ngames = 2\n[[llm]]\nmodel = \"m\"\ntimeout = 0.0\n",
            "[[llm]] m: timeout = 0 is out of range: give seconds above 0",
        ),
        (
            "engines = [\"random\"]\ngames = 2\n[[llm]]\nmodel = \"m\"\nmax_retries = 1000\n",
            "[[llm]] m: max_retries = 1000 is out of range: give 0 to 100 retries",
        ),
        (
            "engines = [\"random\", \"human\"]\ngames = 2\nformat = \"round-robin\"\n",
            "human is a person at the terminal, and a tournament plays unattended",
        ),
        (
            "engines = [\"random\", \"random\"]\ngames = 2\nformat = \"round-robin\"\n",
            "random appears twice; list each engine once",
        ),
        (
            "engines = [\"random\", \"greedy\"]\ngames = 2\nformat = \"round-robin\"\nanchor = \"gredy=0\"\n",
            "anchor = gredy: it is not a player here; give one of random, greedy",
        ),
        // A name that a table cell, a CSV row or a file name could not hold.
        (
            "engines = [\"random\"]\ngames = 2\n[[llm]]\nmodel = \"m\"\nname = \"\"\n",
            "[[llm]] name: bad player name \"\": use 1 to 40 letters",
        ),
        (
            "engines = [\"random\"]\ngames = 2\n[[llm]]\nmodel = \"m\"\nname = \"a,b\"\n",
            "bad player name \"a,b\"",
        ),
        (
            "engines = [\"random\"]\ngames = 2\n[[llm]]\nmodel = \"m\"\nname = \"two\\nlines\"\n",
            "bad player name \"two\\nlines\"",
        ),
        // A grid's values go through the flags' parsers; its size is bounded.
        (
            "engines = [\"random\"]\ngames = 2\n[[llm]]\nmodel = \"m\"\ngrid = { colour = [\"red\"] }\n",
            "grid colour = \"red\"",
        ),
        (
            "engines = [\"random\"]\ngames = 2\n[[llm]]\nmodel = \"m\"\ngrid = { vote = [17] }\n",
            "grid vote = \"17\": invalid value",
        ),
        // Values that collide are named as such (not "give each [[llm]] a name").
        (
            "engines = [\"random\"]\ngames = 2\n[[llm]]\nmodel = \"m\"\ngrid = { vote = [3, 3] }\n",
            "two values of its grid make the one player",
        ),
    ] {
        let output = tournament(&dir, text, &[]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{text}: {stderr}");
        assert!(stderr.contains(expected), "{text}: {stderr}");
    }
}

#[test]
fn an_anchor_the_flag_refuses_is_refused_in_a_tournament_file_before_any_game() {
    let dir = temp_dir("tournament", "bad-anchor");
    for (anchor, fix) in [
        ("random=NaN", "the rating after = must be a number, such as random=0"),
        ("random=inf", "the rating after = must be a number, such as random=0"),
        ("=0", "name the anchor player before =, such as random=0"),
        ("random", "is not SPEC=ELO, such as random=0"),
    ] {
        let text =
            format!("format = \"round-robin\"\nengines = [\"random\", \"greedy\"]\ngames = 2\nanchor = \"{anchor}\"\n");
        let output = tournament(&dir, &text, &[]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{anchor}: {stderr}");
        assert!(
            stderr.contains(&format!(
                "bad tournament file {}",
                dir.join("tournament.toml").display()
            )) && stderr.contains(&format!("anchor = \"{anchor}\"")),
            "names the file and its key: {stderr}"
        );
        assert!(stderr.contains(fix), "{anchor}: {stderr}");
        assert!(!dir.join("run").exists(), "{anchor}: refused before the run folder");
        // The flag refuses the same value with the same words.
        let rate = run_arena(&["rate", dir.to_str().unwrap(), "--anchor", anchor], "127.0.0.1:9");
        assert_eq!(rate.status.code(), Some(2));
        assert!(
            String::from_utf8_lossy(&rate.stderr).contains(fix),
            "rate --anchor {anchor}"
        );
    }
}

#[test]
fn eval_stops_each_opponent_at_a_pair_boundary() {
    let (host, load) = model_host("m", Duration::ZERO);
    let dir = temp_dir("tournament", "eval-stop");
    let run = dir.join("run");
    let summary = json(
        &Eval::model("m")
            .vs("random,alphabeta:2")
            .games(100)
            .flag("stop", "sprt:-200,0")
            .flag("opening-random", 4)
            .flag("host", &host.url)
            .log_dir(&run)
            .json()
            .run("127.0.0.1:9"),
    );
    assert_eq!(summary["complete"], true);
    assert_eq!(summary["stop_rule"], "sprt:-200,0");
    let stops = summary["stops"].as_array().unwrap();
    assert_eq!(stops.len(), 2);
    let mut games = 0;
    for (stop, opponent) in stops.iter().zip(summary["opponents"].as_array().unwrap()) {
        let pairs = stop["pairs"].as_u64().unwrap();
        assert!(pairs < 100, "{stop}");
        assert_eq!(
            opponent["overall"]["games"].as_u64().unwrap(),
            2 * pairs,
            "whole pairs only"
        );
        games += 2 * pairs;
    }
    let logs = std::fs::read_dir(&run)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("game-"))
        .count();
    assert_eq!(logs as u64, games, "no game past a stop was played");
    assert!(load.total() > 0);
}

#[test]
fn a_player_with_a_single_pair_gets_no_interval() {
    let dir = temp_dir("tournament", "one-pair");
    let text =
        "format = \"round-robin\"\nengines = [\"random\", \"greedy\"]\ngames = 2\nopening_random = 4\nseed = 2\n";
    // Off the published ladder, which would hold greedy at its rating.
    let summary = json(&tournament(&dir, text, &["--no-ladder"]));
    let greedy = row(&summary["ratings"]["as_played"], "greedy");
    assert_eq!(
        (greedy["low"].clone(), greedy["high"].clone()),
        (Value::Null, Value::Null),
        "{greedy}"
    );
    let text_table = run_arena(
        &["rate", dir.join("run").to_str().unwrap(), "--no-ladder"],
        "127.0.0.1:9",
    );
    assert!(String::from_utf8_lossy(&text_table.stdout).contains("too few games"));
}

#[test]
fn no_output_overwrites_a_run() {
    let dir = temp_dir("tournament", "no-overwrite");
    let text = "format = \"round-robin\"\nengines = [\"random\", \"greedy\"]\ngames = 4\nseed = 2\n";
    json(&tournament(&dir, text, &[]));
    let run = dir.join("run");
    let before = std::fs::read_to_string(run.join("game-0001.jsonl")).unwrap();
    // A second tournament into the same folder is refused, not written over it.
    let again = tournament(&dir, text, &[]);
    assert_eq!(again.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&again.stderr).contains("is not empty (a run's logs are never overwritten)"));
    // `rate --csv` onto a game log, or into the run folder, is refused.
    for target in [run.join("game-0001.jsonl"), run.join("table.csv")] {
        let output = run_arena(
            &["rate", run.to_str().unwrap(), "--csv", target.to_str().unwrap()],
            "127.0.0.1:9",
        );
        assert_eq!(output.status.code(), Some(2));
        assert!(String::from_utf8_lossy(&output.stderr).contains("inside the input folder"));
    }
    assert_eq!(std::fs::read_to_string(run.join("game-0001.jsonl")).unwrap(), before);
    let huge = tournament(
        &temp_dir("tournament", "huge"),
        "engines = [\"random\", \"greedy\"]\ngames = 1000000000000\n",
        &[],
    );
    assert!(String::from_utf8_lossy(&huge.stderr).contains("to 100000 games"));
}

/// A tournament values its LLM players' decisions by default (only theirs: the engines'
/// moves are not decisions of a player being measured), so its intrinsic table has
/// values to read; `--no-score-moves` values none.
#[test]
fn a_tournament_values_its_llm_players_decisions_unless_told_not_to() {
    let (host, _) = model_host("m", Duration::ZERO);
    let text = format!(
        "format = \"gauntlet\"\nengines = [\"greedy\"]\ngames = 2\nopening_random = 40\nseed = 5\n\n\
         [[llm]]\nmodel = \"m\"\nhost = [\"{}\"]\n",
        host.url
    );
    let dir = temp_dir("tournament", "valued");
    let output = tournament(&dir, &text, &[]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let run = dir.join("run");
    let scores = std::fs::read_to_string(run.join("move-scores.jsonl")).unwrap();
    for line in scores.lines() {
        let line: Value = serde_json::from_str(line).unwrap();
        let game =
            std::fs::read_to_string(run.join(format!("game-{:04}.jsonl", line["game"].as_u64().unwrap()))).unwrap();
        let start: Value = serde_json::from_str(game.lines().next().unwrap()).unwrap();
        assert_eq!(start[line["color"].as_str().unwrap()], "llm:m", "{line}");
        assert!(!line["values"].as_array().unwrap().is_empty(), "{line}");
    }
    let dir = temp_dir("tournament", "unvalued");
    let output = tournament(&dir, &text, &["--no-score-moves"]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let run = dir.join("run");
    assert!(!run.join("move-scores.jsonl").exists());
    // run.json keeps the choice, and a resume without the flag keeps it too.
    let recorded = std::fs::read_to_string(run.join("run.json")).unwrap();
    assert!(recorded.contains("\"no_score_moves\": true"), "{recorded}");
    std::fs::remove_file(run.join("game-0002.jsonl")).unwrap();
    let resumed = run_arena(&["tournament", "--resume", run.to_str().unwrap()], "127.0.0.1:9");
    assert!(resumed.status.success(), "{}", String::from_utf8_lossy(&resumed.stderr));
    assert!(run.join("game-0002.jsonl").exists());
    assert!(!run.join("move-scores.jsonl").exists(), "the resume valued nothing");
}
