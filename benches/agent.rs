//! Agent benchmarks (`cargo bench --bench agent`), printing figures:
//! 1. the harness's own CPU time per LLM exchange against a zero-latency scripted
//!    server (process CPU time / exchanges; the scripted server's own CPU is included,
//!    so this is an upper bound);
//! 2. wall time of 8 games against a server that takes 200 ms per answer, with
//!    `--parallel 1` and `--parallel 4`.

#[path = "../tests/support/mod.rs"]
#[allow(dead_code)] // a bench uses a part of the tests' helpers
mod support;

mod cpu;

use std::sync::Arc;
use std::time::{Duration, Instant};

use agent::AgentConfig;
use arena::{run_eval, EvalConfig, LlmPlayer, PlayerSpec, RunOptions};
use cpu::cpu_seconds;
use engines::EngineSpec;
use llm::{OllamaBackend, RetryPolicy};
use serde_json::json;
use support::{legal_moves_in, Reply, StubServer};

fn eval(server: &StubServer, games_per_color: usize, parallel: usize) -> (u32, Duration) {
    let backend = Arc::new(OllamaBackend::new(&server.url, Duration::from_secs(30), RetryPolicy::default()).unwrap());
    let config: EvalConfig = EvalConfig {
        agent: PlayerSpec::Llm(LlmPlayer {
            config: Arc::new(AgentConfig::new("bench")),
            backend,
            // The scripted server answers every request at once.
            capacity: parallel,
        }),
        opponents: vec![PlayerSpec::Engine(EngineSpec::Random)],
        games_per_color,
        seed: 1,
        opening_seed: None,
        run: RunOptions {
            parallel,
            log_dir: None,
            ..RunOptions::default()
        },
    };
    let start = Instant::now();
    let runtime = tokio::runtime::Runtime::new().expect("a tokio runtime starts");
    let result = runtime
        .block_on(run_eval(&config, &|_| {}))
        .expect("the evaluation runs");
    (result.agent.requests, start.elapsed())
}

fn main() {
    // 1. Zero-latency server: one tool call then an answer per move.
    let instant = StubServer::start(|request, _| {
        let legal = legal_moves_in(request);
        if request["messages"]
            .as_array()
            .and_then(|m| m.last())
            .is_some_and(|m| m["role"] == "tool")
        {
            Reply::content(&legal[0])
        } else {
            Reply::tool_call("simulate_move", json!({"coord": legal[0]}))
        }
    });
    let cpu_before = cpu_seconds();
    let (exchanges, wall) = eval(&instant, 10, 1);
    let cpu = cpu_seconds() - cpu_before;
    println!(
        "zero-latency server: {exchanges} exchanges in {:.2} s wall, {:.2} s CPU = {:.3} ms CPU per exchange (harness + scripted server)",
        wall.as_secs_f64(),
        cpu,
        1000.0 * cpu / f64::from(exchanges)
    );

    // 2. A server that takes 200 ms per answer: 8 games, parallel 1 vs 4.
    let slow = StubServer::start(|request, _| {
        std::thread::sleep(Duration::from_millis(200));
        Reply::content(&legal_moves_in(request)[0])
    });
    let (requests, serial) = eval(&slow, 4, 1);
    let (_, parallel) = eval(&slow, 4, 4);
    println!(
        "200 ms server, 8 games ({requests} requests): --parallel 1 {:.1} s, --parallel 4 {:.1} s ({:.2} of the serial time)",
        serial.as_secs_f64(),
        parallel.as_secs_f64(),
        parallel.as_secs_f64() / serial.as_secs_f64()
    );
}
