//! MCP server benchmark (`cargo bench --bench mcp`): a client on this process plays
//! `GAMES` games through `othello-arena mcp --opponent random` over stdio, one
//! `play_move` at a time (the first legal move), and times each call from the
//! request's first byte written to the response's last byte read. A call holds the
//! client's move, the opponent's answer and the server's own work (JSON-RPC, the game
//! task, two log lines a move and a tool call's line, the state's text); the server's
//! time per move is the call's time minus the opponent's own time, which is timed apart
//! (the same `random` engine in process, on positions of random games). The issue's
//! budget is under 1 ms per move; above it the bench prints FAIL and exits with status 1.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use engines::EngineSpec;
use game::othello::{Board, Move};
use game::Othello;
use serde_json::{json, Value};

const GAMES: usize = 40;
const BUDGET_MS: f64 = 1.0;

/// The times of every `play_move` call of `GAMES` games, and the server's start.
fn calls() -> (Vec<Duration>, Duration) {
    let dir = std::env::temp_dir().join(format!("othello-mcp-bench-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let started = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_othello-arena"))
        .args(["mcp", "--opponent", "random", "--log-dir"])
        .arg(&dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    let mut input = child.stdin.take().expect("piped");
    let mut output = BufReader::new(child.stdout.take().expect("piped"));
    let mut id = 0u64;
    let mut request = |method: &str, params: Value| -> Value {
        id += 1;
        writeln!(
            input,
            "{}",
            json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params })
        )
        .unwrap();
        input.flush().unwrap();
        let mut line = String::new();
        output.read_line(&mut line).expect("the server answers");
        serde_json::from_str(&line).expect("JSON")
    };
    let hello = json!({ "protocolVersion": "2024-11-05", "capabilities": {}, "clientInfo": { "name": "bench", "version": "1" } });
    request("initialize", hello);
    let start = started.elapsed();
    let mut times = Vec::new();
    for _ in 0..GAMES {
        let new = request("tools/call", json!({ "name": "new_game", "arguments": {} }));
        let mut state = new["result"]["structuredContent"].clone();
        while state["over"] == json!(false) {
            let arguments = json!({ "game_id": state["game_id"], "coord": state["legal_moves"][0] });
            let timed = Instant::now();
            let answer = request("tools/call", json!({ "name": "play_move", "arguments": arguments }));
            times.push(timed.elapsed());
            state = answer["result"]["structuredContent"].clone();
        }
    }
    drop(input);
    let _ = child.wait();
    let _ = std::fs::remove_dir_all(&dir);
    (times, start)
}

/// The `random` engine's own mean time per move, on the positions of random games.
fn opponent_time() -> Duration {
    let mut engine = <Othello as engines::Engines>::engine(&EngineSpec::Random, 7);
    let (mut moves, mut spent) = (0u32, Duration::ZERO);
    for _ in 0..GAMES * 5 {
        let mut board = Board::new();
        while !board.is_game_over() {
            if board.legal_moves().is_empty() {
                board = board.play_unchecked(Move::Pass);
                continue;
            }
            let timed = Instant::now();
            let decision = engine.choose(&board).expect("random always moves");
            spent += timed.elapsed();
            moves += 1;
            board = board.play_unchecked(decision.mv);
        }
    }
    spent / moves.max(1)
}

fn main() {
    let (mut times, start) = calls();
    times.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let mean = times.iter().sum::<Duration>() / times.len().max(1) as u32;
    let opponent = opponent_time();
    let overhead = ms(mean) - ms(opponent);
    println!("server start to initialize answered: {:.1} ms", ms(start));
    println!(
        "play_move calls: {} over {GAMES} games; mean {:.3} ms, median {:.3} ms, p90 {:.3} ms, max {:.3} ms",
        times.len(),
        ms(mean),
        ms(times[times.len() / 2]),
        ms(times[times.len() * 9 / 10]),
        ms(times[times.len() - 1])
    );
    println!("the opponent's (random) own time per move: {:.4} ms", ms(opponent));
    println!("the server's own time per move: {overhead:.3} ms (budget {BUDGET_MS} ms)");
    if overhead >= BUDGET_MS {
        println!("FAIL: over budget");
        std::process::exit(1);
    }
}
