//! Fleet benchmarks (`cargo bench --bench fleet`): the agent plays `random` through a
//! [`Fleet`] of scripted Ollama hosts (`support::model_host`), and these figures print:
//! - throughput: 4 hosts x 4 in flight, 200 ms per answer, 64 games at `--parallel 16`;
//!   exchanges per wall second against the ideal 16 / 0.2 s = 80/s, and the most
//!   requests each host held at once (FAIL above its limit of 4);
//! - host killed: the same fleet with one host killed 2 s into the run; every game must
//!   finish once, with no move left to the fallback; requests each host answered (from
//!   the exchange logs) and received (counted by the host);
//! - CPU per exchange: zero-latency hosts, process CPU seconds / exchanges; the scripted
//!   hosts' threads run in this process, so the figure is an upper bound;
//! - memory per game in flight: 4 hosts x 64, 2 s per answer, 256 games at once;
//!   (VmRSS 1 s into the run - VmRSS before) / 256, the hosts' threads included (an
//!   upper bound). It runs first, on a fresh heap, after 2 games that set up what is
//!   set up lazily; the run is stopped once sampled.
//!
//! A failed check prints FAIL and makes the bench exit with status 1.

#[path = "../tests/support/mod.rs"]
#[allow(dead_code)] // a bench uses a part of the tests' helpers
mod support;

mod cpu;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use agent::AgentConfig;
use arena::{run_eval, EvalConfig, EvalResult, LlmPlayer, MatchError, PlayerSpec, RunOptions};
use cpu::cpu_seconds;
use engines::EngineSpec;
use llm::{Api, Fleet, HostConfig, RetryPolicy};
use record::{read_game_log, Event};
use runs::{host_usage, HostUsage};
use support::{model_host, InFlight, StubServer};
use tokio::runtime::Runtime;

const MODEL: &str = "bench";

/// Resident memory of this process in KiB (VmRSS of /proc/self/status).
fn rss_kib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0.0)
}

/// `n` scripted hosts serving the bench model, answering after `delay`.
fn start_hosts(n: usize, delay: Duration) -> (Vec<StubServer>, Vec<Arc<InFlight>>) {
    (0..n).map(|_| model_host(MODEL, delay)).unzip()
}

/// A fleet of `hosts`, each taking `max_in_flight` requests at once.
fn connect(runtime: &Runtime, hosts: &[StubServer], max_in_flight: usize) -> Arc<Fleet> {
    let configs = hosts
        .iter()
        .map(|h| HostConfig {
            max_in_flight,
            ..HostConfig::new(h.url.clone(), Api::Ollama)
        })
        .collect();
    let retry = RetryPolicy {
        max_retries: 4,
        initial_backoff: Duration::from_millis(100),
        max_backoff: Duration::from_secs(1),
    };
    let fleet = runtime.block_on(Fleet::connect(configs, Duration::from_secs(30), retry));
    Arc::new(fleet.expect("the fleet of scripted hosts connects"))
}

/// The agent against `random` through `fleet`: the result and its wall time.
fn eval(
    runtime: &Runtime,
    fleet: &Arc<Fleet>,
    games_per_color: usize,
    run: RunOptions,
) -> (Result<EvalResult, MatchError>, Duration) {
    let config = EvalConfig {
        agent: PlayerSpec::Llm(LlmPlayer {
            config: Arc::new(AgentConfig::new(MODEL)),
            backend: fleet.clone(),
            capacity: fleet.capacity(),
        }),
        opponents: vec![PlayerSpec::Engine(EngineSpec::Random)],
        games_per_color,
        seed: 1,
        opening_seed: None,
        run: RunOptions { ..run },
    };
    let start = Instant::now();
    let result = runtime.block_on(run_eval(&config, &|_| {}));
    (result, start.elapsed())
}

/// Starts all `2 * games_per_color` games at once and stops them `after` in (each ends
/// once its pending answer comes); returns VmRSS then and the chat requests received.
fn sample_in_flight(
    runtime: &Runtime,
    fleet: &Arc<Fleet>,
    counters: &[Arc<InFlight>],
    games_per_color: usize,
    after: Duration,
) -> (f64, usize) {
    let received = || counters.iter().map(|c| c.total()).sum::<usize>();
    let (stop, first) = (Arc::new(AtomicBool::new(false)), received());
    std::thread::scope(|s| {
        let sampler = s.spawn(|| {
            std::thread::sleep(after);
            let sample = (rss_kib(), received() - first);
            stop.store(true, Ordering::SeqCst);
            sample
        });
        let run = RunOptions {
            stop: Some(stop.clone()),
            ..parallel(2 * games_per_color)
        };
        eval(runtime, fleet, games_per_color, run)
            .0
            .expect("the stopped evaluation returns");
        sampler.join().expect("the sampler thread finishes")
    })
}

/// Per-host usage from the game logs in `dir`.
fn host_tally(dir: &Path) -> Vec<HostUsage> {
    let mut exchanges = Vec::new();
    for entry in std::fs::read_dir(dir).expect("the log folder reads").flatten() {
        for record in read_game_log(&entry.path()).expect("a game log reads back") {
            if let Event::Exchange(exchange) = record.event {
                exchanges.push(exchange);
            }
        }
    }
    host_usage(&exchanges)
}

/// Run options with `games` played at once and no log.
fn parallel(games: usize) -> RunOptions {
    RunOptions {
        parallel: games,
        ..RunOptions::default()
    }
}

/// `line` marked PASS, or FAIL (and noted in `failures`).
fn check(ok: bool, failures: &mut Vec<String>, line: String) -> String {
    if ok {
        return format!("{line} PASS");
    }
    failures.push(line.clone());
    format!("{line} FAIL")
}

fn main() -> std::process::ExitCode {
    let runtime = Runtime::new().expect("a tokio runtime starts");
    let mut failures = Vec::new();
    memory_per_game(&runtime);
    throughput(&runtime, &mut failures);
    host_killed(&runtime, &mut failures);
    cpu_per_exchange(&runtime);

    if failures.is_empty() {
        return std::process::ExitCode::SUCCESS;
    }
    for failure in &failures {
        eprintln!("FAIL: {failure}");
    }
    std::process::ExitCode::FAILURE
}

/// Memory per game in flight: 256 games wait on 2 s answers (2 warm-up games first).
fn memory_per_game(runtime: &Runtime) {
    let (hosts, counters) = start_hosts(4, Duration::from_secs(2));
    let fleet = connect(runtime, &hosts, 64);
    sample_in_flight(runtime, &fleet, &counters, 1, Duration::from_millis(500));
    let before = rss_kib();
    let (during, received) = sample_in_flight(runtime, &fleet, &counters, 128, Duration::from_secs(1));
    println!("[memory] 256 games in flight (4 hosts x 64, 2 s per answer), sampled 1 s in:");
    println!(
        "  requests held by the hosts {received}/256; VmRSS {before:.0} KiB before, {during:.0} KiB during; {:.1} KiB per game in flight (hosts' threads included: an upper bound)",
        (during - before) / 256.0
    );
}

/// Throughput: 4 hosts x 4, 200 ms per answer, 64 games at parallel 16.
fn throughput(runtime: &Runtime, failures: &mut Vec<String>) {
    let (hosts, counters) = start_hosts(4, Duration::from_millis(200));
    let (result, wall) = eval(runtime, &connect(runtime, &hosts, 4), 32, parallel(16));
    let exchanges = result.expect("the evaluation runs").agent.requests;
    let rate = f64::from(exchanges) / wall.as_secs_f64();
    let maxes: Vec<usize> = counters.iter().map(|c| c.max()).collect();
    println!("[throughput] 4 hosts x 4 in flight, 200 ms per answer, 64 games, parallel 16:");
    println!(
        "  {exchanges} exchanges in {:.1} s = {rate:.1}/s, {:.2} of the ideal 80/s",
        wall.as_secs_f64(),
        rate / 80.0
    );
    let line = format!("most requests held at once per host: {maxes:?} (limit 4)");
    println!("  {}", check(maxes.iter().all(|&m| m <= 4), failures, line));
}

/// Host killed: the same fleet, host 0 killed 2 s into the run.
fn host_killed(runtime: &Runtime, failures: &mut Vec<String>) {
    let (hosts, counters) = start_hosts(4, Duration::from_millis(200));
    let log_dir: PathBuf = std::env::temp_dir().join(format!("fleet-bench-{}", std::process::id()));
    std::fs::create_dir_all(&log_dir).expect("the log folder is created");
    let run = RunOptions {
        log_dir: Some(log_dir.clone()),
        ..parallel(16)
    };
    let (result, wall) = std::thread::scope(|s| {
        s.spawn(|| {
            std::thread::sleep(Duration::from_secs(2));
            hosts[0].kill();
        });
        eval(runtime, &connect(runtime, &hosts, 4), 32, run)
    });
    println!("[host killed] 4 hosts x 4, 200 ms per answer, 64 games, host 0 killed at 2 s:");
    match result {
        Ok(result) => check_every_game_once(&result, wall, failures),
        Err(err) => {
            let line = format!("the evaluation failed: {:#}", anyhow::Error::new(err));
            println!("  {} after {:.1} s", check(false, failures, line), wall.as_secs_f64());
        }
    }
    print_host_usage(&hosts, &counters, &log_dir);
    std::fs::remove_dir_all(&log_dir).ok();
}

/// Every one of the 64 games finished once, none of its moves left to the fallback.
fn check_every_game_once(result: &EvalResult, wall: Duration, failures: &mut Vec<String>) {
    let numbers: BTreeSet<usize> = result.games.iter().map(|g| g.number).collect();
    let once = result.games.len() == 64 && numbers.len() == 64 && result.unfinished == 0;
    let (games, unfinished) = (result.games.len(), result.unfinished);
    let line = format!(
        "games: {games} results, {} distinct, {unfinished} unfinished (64 expected)",
        numbers.len()
    );
    println!("  {} in {:.1} s", check(once, failures, line), wall.as_secs_f64());
    let stats = &result.agent;
    let (llm, fallback) = (stats.llm_moves, stats.fallback_moves);
    let line = format!(
        "moves: {llm} by the model, {fallback} by the fallback ({} requests)",
        stats.requests
    );
    println!("  {}", check(fallback == 0, failures, line));
}

/// Requests each host answered (from the logs in `log_dir`) and received (its counter).
fn print_host_usage(hosts: &[StubServer], counters: &[Arc<InFlight>], log_dir: &Path) {
    let tally = host_tally(log_dir);
    for (i, (host, counter)) in hosts.iter().zip(counters).enumerate() {
        let usage = tally.iter().find(|u| u.host == host.url.trim_end_matches('/'));
        let (answered, failed) = usage.map_or((0, 0), |u| (u.answered, u.failures));
        let killed = if i == 0 { " (killed)" } else { "" };
        println!(
            "  host {i}{killed}: answered {answered}, failed attempts {failed}, chat requests received {}, most at once {}",
            counter.total(),
            counter.max()
        );
    }
}

/// CPU per exchange: zero-latency hosts, about 3000 exchanges.
fn cpu_per_exchange(runtime: &Runtime) {
    let (hosts, _) = start_hosts(4, Duration::ZERO);
    let fleet = connect(runtime, &hosts, 4);
    let cpu_before = cpu_seconds();
    let (result, wall) = eval(runtime, &fleet, 50, parallel(16));
    let cpu = cpu_seconds() - cpu_before;
    let exchanges = result.expect("the evaluation runs").agent.requests;
    println!("[cpu] 4 zero-latency hosts x 4, 100 games, parallel 16:");
    println!(
        "  {exchanges} exchanges in {:.1} s wall, {cpu:.2} s CPU = {:.3} ms CPU per exchange (harness + scripted hosts: an upper bound)",
        wall.as_secs_f64(),
        1000.0 * cpu / f64::from(exchanges)
    );
}
