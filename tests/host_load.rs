//! The scheduler keeps every model server busy: a gauntlet of two models, each on its
//! own single-slot server (tests/support `single_slot_host`, a real HTTP server on
//! 127.0.0.1 working on one request at a time for a fixed delay each, standing in for
//! a llama-server with one slot), run through the binary.

use crate::support::command::Eval;
use std::time::{Duration, Instant};

use crate::support::{
    hosts_counted_together, legal_moves_in, run_arena, run_tournament, single_slot_host, temp_dir, Reply, StubServer,
};
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

/// Two CPU servers on one machine (scripted hosts counted together, standing in for
/// two llama-servers whose threads would fight over the same cores): with one
/// `share_cores` group their requests take turns, one in flight between them; without
/// it the tournament sends both at once (the case the group exists for).
#[test]
fn hosts_sharing_cores_take_turns_and_others_do_not() {
    for shared in [true, false] {
        let (hosts, together) = hosts_counted_together(&["a", "b"], DELAY);
        let dir = temp_dir("host_load", &format!("share-cores-{shared}"));
        let group = if shared { "share_cores = \"local\"\n" } else { "" };
        let text = format!(
            "format = \"gauntlet\"\nengines = [\"random\"]\ngames = 2\nopening_random = 4\nseed = 3\n\n\
             [[llm]]\nmodel = \"a\"\nhost = [\"{}\"]\n{group}\n[[llm]]\nmodel = \"b\"\nhost = [\"{}\"]\n{group}",
            hosts[0].url, hosts[1].url
        );
        let output = run_tournament(&dir, &text, &["--parallel", "2"]);
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        assert!(together.total() > 20, "{} requests", together.total());
        let expected = if shared { 1 } else { 2 };
        assert_eq!(
            together.max(),
            expected,
            "share_cores {shared}: requests at once between the two hosts"
        );
    }
}

/// A group name that is not a word is refused, naming the key and the fix.
#[test]
fn a_share_cores_name_that_is_no_word_is_refused() {
    let dir = temp_dir("host_load", "share-cores-bad");
    let text = "format = \"gauntlet\"\nengines = [\"random\"]\n\n[[llm]]\nmodel = \"a\"\nhost = [\"127.0.0.1:9\"]\nshare_cores = \"two words\"\n";
    let output = run_tournament(&dir, text, &[]);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("bad share_cores \"two words\"") && stderr.contains("such as \"local\""),
        "{stderr}"
    );
    let output = Eval::model("m")
        .vs("random")
        .flag("share-cores", "a/b")
        .run("127.0.0.1:9");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("bad share_cores \"a/b\""), "{stderr}");
}

/// `bench llm` on a scripted Ollama host (standing in for a server whose clock reads
/// 20 ms of prefill and 30 ms of decode a request): every position answered, the
/// server's speeds and the floor printed from its durations; a host that sends none
/// is said to report no timings; no `--agent` is an error naming the flag.
#[test]
fn bench_llm_prints_the_servers_clock_and_says_when_there_is_none() {
    for timed in [true, false] {
        let host = StubServer::start(move |request, _| {
            let legal = legal_moves_in(request);
            let reply = Reply::content(legal.first().map_or("", String::as_str));
            if !timed {
                return reply;
            }
            let mut body: Value = serde_json::from_str(&reply.body).unwrap();
            body["prompt_eval_duration"] = serde_json::json!(20_000_000u64);
            body["eval_duration"] = serde_json::json!(30_000_000u64);
            reply.with_body(body)
        });
        let output = run_arena(
            &[
                "bench",
                "llm",
                "--agent",
                "llm:m",
                "--positions",
                "4",
                "--parallel",
                "2",
            ],
            &host.url,
        );
        let text = String::from_utf8_lossy(&output.stdout);
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        assert!(
            text.contains("4 positions, 2 at once") && text.contains("4 moves (4 by the model"),
            "{text}"
        );
        if timed {
            // 100 prompt tokens in 20 ms, 10 generated in 30 ms.
            assert!(text.contains("prefill 5000.0 tok/s, decode 333.3 tok/s"), "{text}");
            assert!(text.contains("prompt tokens processed 100 a request"), "{text}");
            assert!(text.contains("floor         0.05 s a move"), "{text}");
        } else {
            assert!(text.contains("reported no timings"), "{text}");
        }
    }
    let output = run_arena(&["bench", "llm"], "127.0.0.1:9");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        !output.status.success() && stderr.contains("give --agent llm:MODEL"),
        "{stderr}"
    );
}
