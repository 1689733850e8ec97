//! `bench llm`: how fast a model server answers the harness's own move requests, by
//! the server's own clock (its prefill and decode speeds, the prompt tokens it had to
//! process after its cache) beside the wall clock (seconds a move, the server's busy
//! share), and the floor those speeds set under a move.

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use futures_util::StreamExt;

use agent::{ModelGame, MoveContext};
use game::{derive_seed, Line};
use llm::error_chain;
use record::{AgentDecision, GameWriter};
use runs::AgentStats;

use super::play::random_opening;
use super::player::Action;
use super::player_spec::PlayerSpec;

/// The first and last number of random plies before a benchmark position: openings,
/// middle games and endings alike.
const PLIES: (usize, usize) = (4, 52);

/// What one `bench llm` measured.
#[derive(Clone, Debug)]
pub struct LlmBench {
    /// Positions asked.
    pub positions: usize,
    /// Positions asked at once.
    pub parallel: usize,
    /// Wall time of the whole benchmark.
    pub wall: Duration,
    /// The decisions' statistics (the server's timings among them).
    pub stats: AgentStats,
    /// Positions whose request failed, with why.
    pub failures: Vec<String>,
}

/// The `index`-th benchmark position: a seeded random game of `PLIES` plies spread
/// over the positions, stepped back to a position where the side to move has a move
/// to choose (not a forced pass, not the end).
fn position<R: ModelGame>(index: usize, count: usize, seed: u64) -> (R::Position, usize) {
    let span = PLIES.1 - PLIES.0;
    let plies = PLIES.0 + span * index / count.max(2).saturating_sub(1).max(1);
    let line: Line<R> = random_opening(R::start(), plies, derive_seed(seed, index as u64));
    let mut positions: Vec<R::Position> = vec![R::start()];
    let mut replay = Line::<R>::new(R::start());
    for &mv in line.moves() {
        replay.try_play(mv).expect("the opening's moves are legal");
        positions.push(*replay.board());
    }
    let ply = positions
        .iter()
        .rposition(|board| !R::is_over(board) && R::forced_move(board).is_none())
        .unwrap_or(0);
    (positions[ply], ply + 1)
}

/// Asks `player` (an LLM) for a move in `count` seeded positions, `parallel` at a
/// time, and measures it (`done` is called as each position is answered): nothing is
/// logged.
pub async fn llm_bench<R: ModelGame>(
    player: &PlayerSpec<R>,
    count: usize,
    parallel: usize,
    seed: u64,
    done: &(dyn Fn() + Sync),
) -> LlmBench {
    let started = Instant::now();
    let answers: Vec<Result<Option<AgentDecision>, String>> = futures_util::stream::iter(0..count)
        .map(|index| async move {
            let (board, ply) = position::<R>(index, count, seed);
            let mut player = player.build(derive_seed(seed, index as u64));
            let ctx = MoveContext {
                ply,
                log: GameWriter::new(None, index + 1),
            };
            let answer = match player.act(&board, ctx).await {
                Ok(Action::Move(played)) => Ok(played.agent),
                Ok(Action::Forfeit(decision)) => Ok(Some(decision)),
                Err(e) => Err(format!("position {}: {}", index + 1, error_chain(&e))),
            };
            done();
            answer
        })
        .buffer_unordered(parallel.max(1))
        .collect()
        .await;
    let wall = started.elapsed();
    let mut stats = AgentStats::default();
    let mut failures = Vec::new();
    for answer in answers {
        match answer {
            Ok(decision) => stats.add(&decision.unwrap_or_default()),
            Err(failure) => failures.push(failure),
        }
    }
    LlmBench {
        positions: count,
        parallel,
        wall,
        stats,
        failures,
    }
}

impl LlmBench {
    /// Seconds of wall time a move: the benchmark's throughput (with several positions
    /// at once, less than one move's own latency).
    pub fn wall_seconds_per_move(&self) -> Option<f64> {
        (self.stats.moves > 0).then(|| self.wall.as_secs_f64() / f64::from(self.stats.moves))
    }

    /// The share of the wall time the server spent on the requests by its own clock
    /// (above 1 when it served several at once).
    pub fn busy_share(&self) -> Option<f64> {
        let wall_ms = self.wall.as_secs_f64() * 1000.0;
        (self.stats.server.requests > 0 && wall_ms > 0.0).then(|| self.stats.server.busy_ms() / wall_ms)
    }

    /// The report: moves, the wall clock, the server's clock, the floor.
    pub fn text(&self) -> String {
        let mut out = String::new();
        let s = &self.stats;
        let _ = writeln!(
            out,
            "bench llm: {} positions, {} at once, {:.1} s; {} moves ({} by the model, {} by the fallback), {} failed",
            self.positions,
            self.parallel,
            self.wall.as_secs_f64(),
            s.moves,
            s.llm_moves,
            s.fallback_moves,
            self.failures.len()
        );
        for failure in self.failures.iter().take(3) {
            let _ = writeln!(out, "  failed: {failure}");
        }
        let Some(wall) = self.wall_seconds_per_move() else {
            return out;
        };
        let r = s.rates();
        let requests = f64::from(s.requests) / f64::from(s.moves);
        let _ = writeln!(
            out,
            "  wall          {wall:.2} s a move ({:.0} moves an hour); a move's own requests {:.2} s ({requests:.2} requests)",
            3600.0 / wall,
            r.seconds_per_move.unwrap_or_default(),
        );
        let Some(server) = r.server else {
            let _ = writeln!(
                out,
                "  server        reported no timings (llama-server and Ollama do; this one did not)"
            );
            return out;
        };
        let speed = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.1}"));
        let _ = writeln!(
            out,
            "  server        prefill {} tok/s, decode {} tok/s; prompt tokens processed {:.0} a request of {:.0} sent; \
             busy {:.0}% of the wall",
            speed(server.prefill_tokens_per_s),
            speed(server.decode_tokens_per_s),
            server.processed_prompt_tokens_per_request,
            s.prompt_tokens as f64 / f64::from(s.requests.max(1)),
            100.0 * self.busy_share().unwrap_or_default(),
        );
        let _ = writeln!(
            out,
            "  floor         {:.2} s a move: the server's own time for a move's tokens at these speeds; the wall is {:.2}x it",
            server.server_seconds_per_move,
            wall / server.server_seconds_per_move.max(f64::MIN_POSITIVE),
        );
        out
    }
}
