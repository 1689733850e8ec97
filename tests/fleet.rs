//! Evaluations over a fleet of model servers, through the binary and real HTTP servers
//! on 127.0.0.1: each scripted host (tests/support `model_host`) stands in for a GPU
//! box serving the model, answering after a delay and recording how many requests it
//! holds at once; `kill()` stands in for a host that crashes mid-run.

use crate::support::command::Eval;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::support::{model_host, run_arena, temp_dir};
use llm::{
    Api, ChatBackend, ChatOptions, ChatRequest, Fleet, HostConfig, Message, RetryPolicy, Role, FAILURES_TO_TAKE_OUT,
};
use record::{read_game_log, Event, ExchangeRecord, MoveSource};
use serde_json::Value;

fn fleet_file(dir: &Path, hosts: &[(&str, usize)]) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let path = dir.join("fleet.toml");
    let tables: String = hosts
        .iter()
        .map(|(url, max)| format!("[[hosts]]\nurl = \"{url}\"\napi = \"ollama\"\nmax_in_flight = {max}\n\n"))
        .collect();
    std::fs::write(&path, tables).unwrap();
    path
}

fn eval(run_dir: &Path, fleet: &Path, games: &str) -> std::process::Output {
    Eval::model("m")
        .vs("random")
        .flag("games", games)
        .flag("fleet", fleet.display())
        .log_dir(run_dir)
        .json()
        .run("127.0.0.1:9")
}

fn json_file(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Every exchange of the run, and the source of every agent move.
fn logged(run_dir: &Path) -> (Vec<ExchangeRecord>, Vec<MoveSource>) {
    let (mut exchanges, mut sources) = (Vec::new(), Vec::new());
    for entry in std::fs::read_dir(run_dir).unwrap().flatten() {
        let name = entry.file_name().to_string_lossy().to_string();
        if !(name.starts_with("game-") && name.ends_with(".jsonl")) {
            continue;
        }
        for record in read_game_log(&entry.path()).unwrap() {
            match record.event {
                Event::Exchange(e) => exchanges.push(e),
                Event::Move(m) if m.player == "llm:m" => sources.push(m.source),
                _ => {}
            }
        }
    }
    (exchanges, sources)
}

#[test]
fn a_fleet_spreads_the_games_and_keeps_each_host_under_its_limit() {
    let hosts: Vec<_> = (0..3).map(|_| model_host("m", Duration::from_millis(50))).collect();
    let dir = temp_dir("fleet", "spread");
    let urls: Vec<String> = hosts.iter().map(|(s, _)| s.url.clone()).collect();
    let fleet = fleet_file(&dir, &[(&urls[0], 2), (&urls[1], 2), (&urls[2], 2)]);
    let run_dir = dir.join("run");
    let output = eval(&run_dir, &fleet, "3");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    for (server, in_flight) in &hosts {
        assert!(in_flight.total() > 0, "{} answered nothing", server.url);
        assert!(
            in_flight.max() <= 2,
            "{} held {} requests at once",
            server.url,
            in_flight.max()
        );
    }
    // With a fleet, --parallel defaults to the fleet's capacity: 6 games at once.
    let run = json_file(&run_dir.join("run.json"));
    assert_eq!(run["parallel"], 6);
    assert_eq!(run["fleet"].as_array().unwrap().len(), 3);
    assert_eq!(run["fleet"][1]["max_in_flight"], 2);
    let (exchanges, sources) = logged(&run_dir);
    let named: BTreeSet<String> = exchanges.iter().filter_map(|e| e.host.clone()).collect();
    assert_eq!(
        named,
        urls.iter().map(|u| u.trim_end_matches('/').to_string()).collect()
    );
    assert!(sources.iter().all(|s| *s == MoveSource::Llm));
    let results = json_file(&run_dir.join("results.json"));
    let answered: u64 = results["hosts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["answered"].as_u64().unwrap())
        .sum();
    assert_eq!(answered as usize, exchanges.len());
    let served: usize = hosts.iter().map(|(_, f)| f.total()).sum();
    assert_eq!(
        served,
        exchanges.len(),
        "every request the hosts saw is one logged exchange"
    );
}

#[test]
fn a_host_that_dies_mid_run_is_taken_out_and_the_games_go_on_elsewhere() {
    let (alive, alive_load) = model_host("m", Duration::from_millis(40));
    let (doomed, doomed_load) = model_host("m", Duration::from_millis(40));
    let dir = temp_dir("fleet", "failover");
    let fleet = fleet_file(&dir, &[(&alive.url, 2), (&doomed.url, 2)]);
    let run_dir = dir.join("run");
    let killer = std::thread::spawn(move || {
        while doomed_load.total() < 3 {
            std::thread::sleep(Duration::from_millis(5));
        }
        doomed.kill();
        doomed
    });
    let output = eval(&run_dir, &fleet, "4");
    let doomed = killer.join().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let summary: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(summary["complete"], true);
    let (exchanges, sources) = logged(&run_dir);
    assert!(
        sources.iter().all(|s| *s == MoveSource::Llm),
        "after the kill the model still decides every move, on the live host"
    );
    let dead = doomed.url.trim_end_matches('/');
    let failures: Vec<_> = exchanges.iter().flat_map(|e| &e.failures).collect();
    assert!(
        !failures.is_empty() && failures.iter().all(|f| f.host == dead),
        "{failures:?}"
    );
    let retries: u32 = exchanges.iter().map(|e| e.retries).sum();
    assert_eq!(retries as usize, failures.len(), "each retry is logged with its host");
    let after_kill = exchanges.iter().filter(|e| e.host.as_deref() == Some(dead)).count();
    assert!(
        after_kill <= 3,
        "only requests answered before the kill came from the dead host"
    );
    assert!(alive_load.total() > exchanges.len() / 2);
    let results = json_file(&run_dir.join("results.json"));
    let dead_row = results["hosts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["host"] == dead)
        .unwrap()
        .clone();
    assert_eq!(dead_row["failures"].as_u64().unwrap() as usize, failures.len());
}

#[test]
fn a_model_that_no_host_serves_is_refused_naming_each_host() {
    let (a, _) = model_host("other", Duration::ZERO);
    let (b, _) = model_host("another", Duration::ZERO);
    let hosts = format!("{},{}", a.url, b.url);
    let output = Eval::model("m").flag("host", &hosts).run("127.0.0.1:9");
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("no host of the fleet serves model \"m\""), "{stderr}");
    assert!(stderr.contains(&format!("{} has other", a.url)), "{stderr}");
    assert!(stderr.contains(&format!("{} has another", b.url)), "{stderr}");
}

#[test]
fn a_conversation_stays_on_the_host_that_answered_it() {
    let (a, _) = model_host("m", Duration::ZERO);
    let (b, _) = model_host("m", Duration::ZERO);
    let dir = temp_dir("fleet", "affinity");
    let run_dir = dir.join("run");
    let hosts = format!("{},{}", a.url, b.url);
    let output = Eval::model("m")
        .vs("random")
        .flag("host", &hosts)
        .flag("max-in-flight", "4")
        .flag("parallel", "1")
        .log_dir(&run_dir)
        .run("127.0.0.1:9");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("answered") && stdout.contains(a.url.trim_end_matches('/')),
        "{stdout}"
    );
    for number in 1..=2 {
        let records = read_game_log(&run_dir.join(format!("game-{number:04}.jsonl"))).unwrap();
        let hosts: BTreeSet<String> = records
            .into_iter()
            .filter_map(|r| match r.event {
                Event::Exchange(e) => e.host,
                _ => None,
            })
            .collect();
        assert_eq!(hosts.len(), 1, "game {number} moved between hosts: {hosts:?}");
    }
}

#[test]
fn bad_fleet_files_are_refused_with_the_fix() {
    let dir = temp_dir("fleet", "bad-files");
    std::fs::create_dir_all(&dir).unwrap();
    for (text, expected) in [
        (
            "[[hosts]]\nurl = \"127.0.0.1:1\"\nmax_in_flight = 0\n",
            "max_in_flight 0 is out of range: give 1 to 1024",
        ),
        (
            "[[hosts]]\nurl = \"127.0.0.1:1\"\nweight = 3\n",
            "expected [[hosts]] tables with url",
        ),
        ("hosts = []\n", "it lists no [[hosts]]"),
        ("[[hosts]]\nurl = \" \"\n", "a [[hosts]] url is empty"),
        (
            "[[hosts]]\nurl = \"127.0.0.1:1\"\napi = \"grpc\"\n",
            "expected [[hosts]] tables with url",
        ),
    ] {
        let path = dir.join("fleet.toml");
        std::fs::write(&path, text).unwrap();
        let output = Eval::model("m").flag("fleet", path.display()).run("127.0.0.1:9");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{text}: {stderr}");
        assert!(
            stderr.contains("bad --fleet") && stderr.contains(expected),
            "{text}: {stderr}"
        );
    }
}

#[test]
fn a_server_listed_twice_is_refused() {
    let output = Eval::model("m")
        .flag("host", "127.0.0.1:9,http://127.0.0.1:9/")
        .flag("max-in-flight", 1)
        .run("127.0.0.1:9");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("http://127.0.0.1:9 is listed twice: list each server once"),
        "{stderr}"
    );
}

#[test]
fn a_resume_takes_the_fleet_file_as_it_is_now_and_records_it() {
    let (first, _) = model_host("m", Duration::ZERO);
    let (second, second_load) = model_host("m", Duration::ZERO);
    let dir = temp_dir("fleet", "resume");
    let fleet = fleet_file(&dir, &[(&first.url, 1)]);
    let run_dir = dir.join("run");
    let output = eval(&run_dir, &fleet, "2");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let unbroken: Value = serde_json::from_slice(&output.stdout).unwrap();
    // As if the run had stopped before its last game, and the fleet had been changed
    // (the first host retired) before the resume.
    std::fs::remove_file(run_dir.join("game-0004.jsonl")).unwrap();
    fleet_file(&dir, &[(&second.url, 3)]);
    let output = run_arena(
        &["eval", "--resume", run_dir.to_str().unwrap(), "--json"],
        "127.0.0.1:9",
    );
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let resumed: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(resumed["complete"], true);
    for key in ["as_black", "as_white"] {
        assert_eq!(
            resumed["opponents"][0][key], unbroken["opponents"][0][key],
            "the same games, the same results"
        );
    }
    assert_eq!(resumed["agent"]["llm_moves"], unbroken["agent"]["llm_moves"]);
    assert!(second_load.total() > 0, "the replayed game was played on the new host");
    let run = json_file(&run_dir.join("run.json"));
    assert_eq!(run["fleet"][0]["url"], first.url.trim_end_matches('/'));
    assert_eq!(run["resumes"][0]["fleet"][0]["url"], second.url.trim_end_matches('/'));
    assert_eq!(run["resumes"][0]["fleet"][0]["max_in_flight"], 3);
}

fn chat_request() -> ChatRequest {
    ChatRequest {
        model: "m".into(),
        messages: vec![Message::new(Role::User, "board")],
        tools: Vec::new(),
        options: ChatOptions::default(),
        think: None,
        keep_alive: None,
        format: None,
        affinity: None,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_host_taken_out_is_probed_and_used_again_once_it_answers() {
    let (steady, _) = model_host("m", Duration::from_millis(300));
    let (flaky, flaky_load) = model_host("m", Duration::from_millis(300));
    let hosts = [&steady.url, &flaky.url]
        .into_iter()
        .map(|url| HostConfig::new(url.clone(), Api::Ollama))
        .collect();
    let retry = RetryPolicy {
        max_retries: 4,
        initial_backoff: Duration::from_millis(10),
        max_backoff: Duration::from_millis(50),
    };
    let fleet = Fleet::connect(hosts, Duration::from_secs(5), retry).await.unwrap();
    flaky.kill();
    let request = chat_request();
    // Two requests at once: one host each. The flaky one fails until it is taken out;
    // its requests are answered by the steady host, each failure logged.
    let mut failures = 0;
    for _ in 0..FAILURES_TO_TAKE_OUT {
        let (a, b) = tokio::join!(fleet.chat(&request), fleet.chat(&request));
        for exchange in [a.unwrap(), b.unwrap()] {
            assert_eq!(exchange.host, steady.url.trim_end_matches('/'));
            failures += exchange.failures.len();
        }
    }
    assert_eq!(failures as u32, FAILURES_TO_TAKE_OUT);
    // Taken out, it is not tried again while down.
    let (a, b) = tokio::join!(fleet.chat(&request), fleet.chat(&request));
    assert!(a.unwrap().failures.is_empty() && b.unwrap().failures.is_empty());
    // Restarted, it is probed after its pause and takes requests again.
    flaky.revive();
    let before = flaky_load.total();
    tokio::time::sleep(Duration::from_millis(1500)).await;
    for _ in 0..3 {
        let (a, b) = tokio::join!(fleet.chat(&request), fleet.chat(&request));
        assert!(a.unwrap().failures.is_empty() && b.unwrap().failures.is_empty());
    }
    assert!(flaky_load.total() > before, "the host that came back answers again");
}

#[test]
fn a_host_that_lacks_the_model_loses_it_and_its_requests_go_elsewhere() {
    // The fleet file says both hosts serve the model; the first answers 404, as an
    // Ollama host would after the model was removed from it.
    let missing =
        crate::support::StubServer::start_routed(|_, _, _| crate::support::Reply::error(404, "model \"m\" not found"));
    let (serving, _) = model_host("m", Duration::ZERO);
    let dir = temp_dir("fleet", "missing-model");
    let fleet = dir.join("fleet.toml");
    std::fs::write(
        &fleet,
        format!(
            "[[hosts]]\nurl = \"{}\"\nmodels = [\"m\"]\n\n[[hosts]]\nurl = \"{}\"\nmodels = [\"m\"]\n",
            missing.url, serving.url
        ),
    )
    .unwrap();
    let run_dir = dir.join("run");
    let output = eval(&run_dir, &fleet, "1");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let (exchanges, sources) = logged(&run_dir);
    assert!(sources.iter().all(|s| *s == MoveSource::Llm));
    let failures: Vec<_> = exchanges.iter().flat_map(|e| &e.failures).collect();
    assert_eq!(
        failures.len(),
        1,
        "one 404, then the host is no longer asked: {failures:?}"
    );
    assert!(failures[0].error.contains("not found"));
}

#[test]
fn a_host_that_never_answers_is_taken_out_by_its_timeouts() {
    // A wedged host: it accepts connections and never answers in time.
    let (wedged, _) = model_host("m", Duration::from_secs(5));
    let (healthy, _) = model_host("m", Duration::ZERO);
    let dir = temp_dir("fleet", "wedged");
    let hosts = format!("{},{}", wedged.url, healthy.url);
    let run_dir = dir.join("run");
    let output = Eval::model("m")
        .vs("random")
        .flag("host", &hosts)
        .flag("timeout", "0.5")
        .flag("parallel", "2")
        .log_dir(&run_dir)
        .json()
        .run("127.0.0.1:9");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let (exchanges, sources) = logged(&run_dir);
    assert!(
        sources.iter().all(|s| *s == MoveSource::Llm),
        "the healthy host decided every move"
    );
    let wedged_url = wedged.url.trim_end_matches('/');
    let timeouts = exchanges
        .iter()
        .flat_map(|e| &e.failures)
        .filter(|f| f.host == wedged_url)
        .count();
    assert!(
        (1..=FAILURES_TO_TAKE_OUT as usize + 2).contains(&timeouts),
        "{timeouts} timeouts before it was taken out"
    );
    assert!(exchanges.iter().all(|e| e.host.as_deref() != Some(wedged_url)));
}
