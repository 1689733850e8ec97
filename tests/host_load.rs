//! The scheduler keeps every model server busy: a gauntlet of two models, each on its
//! own single-slot server (tests/support `single_slot_host`, a real HTTP server on
//! 127.0.0.1 working on one request at a time for a fixed delay each, standing in for
//! a llama-server with one slot), run through the binary.

use std::time::{Duration, Instant};

use crate::support::{run_tournament, single_slot_host, temp_dir};
use serde_json::Value;

/// Each model's server's delay per answer.
const DELAY: Duration = Duration::from_millis(15);

#[test]
fn two_single_slot_servers_both_serve_from_the_start() {
    let (first, first_load) = single_slot_host("a", DELAY);
    let (second, second_load) = single_slot_host("b", DELAY);
    let dir = temp_dir("host_load", "two-servers");
    // In file order every game of model a comes before any of model b: played in
    // that order with two games at once (the servers' total), a's server would hold
    // two requests while b's served none.
    let text = format!(
        "format = \"gauntlet\"\nengines = [\"random\", \"greedy\"]\ngames = 4\nopening_random = 4\nseed = 3\n\n\
         [[llm]]\nmodel = \"a\"\nhost = [\"{}\"]\n\n[[llm]]\nmodel = \"b\"\nhost = [\"{}\"]\n",
        first.url, second.url
    );
    let clock = Instant::now();
    let output = run_tournament(&dir, &text, &[]);
    let wall = clock.elapsed();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let share = |load: &crate::support::InFlight| load.busy().as_secs_f64() / wall.as_secs_f64();
    eprintln!(
        "wall {:.2} s; server a busy {:.0}% ({} requests, at most {} held at once), server b busy {:.0}% ({} requests, at most {} held at once)",
        wall.as_secs_f64(),
        100.0 * share(&first_load),
        first_load.total(),
        first_load.max(),
        100.0 * share(&second_load),
        second_load.total(),
        second_load.max()
    );
    for load in [&first_load, &second_load] {
        assert_eq!(
            load.max(),
            1,
            "a single-slot server was sent two games' requests at once (one queued)"
        );
    }
    // Only the order of starting changed: game N is still the schedule's game N.
    let summary: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(summary["pairings"].as_array().unwrap().len(), 4);
    let first_game = std::fs::read_to_string(dir.join("run").join("game-0001.jsonl")).unwrap();
    let start: Value = serde_json::from_str(first_game.lines().next().unwrap()).unwrap();
    assert_eq!(
        (start["black"].as_str(), start["white"].as_str()),
        (Some("llm:a"), Some("random"))
    );
    let last_game = std::fs::read_to_string(dir.join("run").join("game-0016.jsonl")).unwrap();
    let start: Value = serde_json::from_str(last_game.lines().next().unwrap()).unwrap();
    assert_eq!(
        (start["black"].as_str(), start["white"].as_str()),
        (Some("greedy"), Some("llm:b"))
    );
}
