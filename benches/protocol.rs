//! Protocol client benchmark (`cargo bench --bench protocol`): our `greedy` served by
//! this binary over GTP and over NBoard (`othello-arena engine`) plays 40 games
//! against in-process `search`, one game at a time, and so does in-process `greedy`;
//! the games are the same move for move. Each move's time is the time between the
//! game's previous move and this one (as the match reports them); the client's
//! overhead is the served greedy's mean move time minus the in-process greedy's, so
//! it holds the protocol round trips, the served process's own work and the client's
//! bookkeeping (the process's start, before the game's first move, is printed apart:
//! the median of 11 starts with their handshakes). The budget is under 1 ms
//! per move over the engine's own time; above it, or when the games differ, the bench
//! prints FAIL and exits with status 1.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use arena::{run_match, ExternalEngine, MatchConfig, MatchEvent, MatchResult, PlayerSpec, RunOptions};
use engines::EngineSpec;
use record::MoveSource;
use runs::EngineTable;
use tokio::runtime::Runtime;

const GAMES: usize = 40;
const BUDGET_MS: f64 = 1.0;
const STARTS: usize = 11;

fn config(first: PlayerSpec) -> MatchConfig {
    MatchConfig {
        players: [first, PlayerSpec::Engine(EngineSpec::Search)],
        games: GAMES,
        swap: true,
        seed: 9,
        run: RunOptions {
            openings: arena::Openings::random(4),
            parallel: 1,
            ..RunOptions::default()
        },
    }
}

fn served(protocol: &str) -> ExternalEngine {
    let table = EngineTable {
        name: "greedy".to_string(),
        protocol: protocol.to_string(),
        command: env!("CARGO_BIN_EXE_othello-arena").to_string(),
        args: ["engine", "--protocol", protocol, "--engine", "greedy"]
            .map(str::to_string)
            .to_vec(),
        dir: None,
        depth: (protocol == "nboard").then_some(1),
        time_per_move: None,
        max_in_flight: Some(1),
        timeout: Some(30.0),
    };
    ExternalEngine::new(table).expect("the table is valid")
}

/// The match, and the mean time of the first player's own moves (its forced passes
/// and each game's first move after the opening aside).
fn timed(runtime: &Runtime, config: &MatchConfig) -> (MatchResult, Duration, usize) {
    let seen: Mutex<BTreeMap<usize, Vec<Instant>>> = Mutex::new(BTreeMap::new());
    let report = |event: MatchEvent<'_>| {
        if let MatchEvent::Ply { game, .. } = event {
            seen.lock().unwrap().entry(game).or_default().push(Instant::now());
        }
    };
    let result = runtime
        .block_on(run_match(config, &report))
        .expect("the match is played");
    let seen = seen.into_inner().unwrap();
    let (mut total, mut moves) = (Duration::ZERO, 0);
    for (game, (color, record)) in result.games.iter().enumerate() {
        let times = &seen[&game];
        for (index, ply) in record.plies.iter().enumerate().skip(1) {
            if ply.color == *color && ply.played.source == MoveSource::Engine {
                total += times[index] - times[index - 1];
                moves += 1;
            }
        }
    }
    (result, total / moves as u32, moves)
}

fn main() {
    let runtime = Runtime::new().expect("a tokio runtime starts");
    let (in_process, base, moves) = timed(&runtime, &config(PlayerSpec::Engine(EngineSpec::Greedy)));
    println!("in-process greedy vs search: {GAMES} games, {moves} timed greedy moves, {base:.2?} a move");
    let mut failed = false;
    for protocol in ["gtp", "nboard"] {
        let mut starts: Vec<Duration> = (0..STARTS)
            .map(|_| {
                let started = Instant::now();
                runtime
                    .block_on(served(protocol).identify())
                    .expect("the served engine answers its handshake");
                started.elapsed()
            })
            .collect();
        starts.sort();
        let (external, per_move, _) = timed(&runtime, &config(PlayerSpec::External(served(protocol))));
        let same = external
            .games
            .iter()
            .map(|(_, r)| r.game.moves())
            .eq(in_process.games.iter().map(|(_, r)| r.game.moves()));
        let overhead = (per_move.as_secs_f64() - base.as_secs_f64()) * 1e3;
        let verdict = if same && overhead < BUDGET_MS { "ok" } else { "FAIL" };
        failed |= verdict == "FAIL";
        println!(
            "{protocol:>6}: {per_move:.2?} a move ({}), overhead {overhead:.3} ms a move: {verdict}; \
             process start + handshake {:.2?} (median of {STARTS}) once a game",
            if same { "the same games" } else { "GAMES DIFFER" },
            starts[STARTS / 2]
        );
    }
    if failed {
        std::process::exit(1);
    }
}
