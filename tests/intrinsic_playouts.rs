//! Issue 54, item 4: values that know who is playing, tried on the weak end
//! (docs/intrinsic.md, "Values by playouts"). Each decision of the weak rungs and the
//! off-ladder engines is valued by playouts ([`engines::playout_values`]); a player's
//! figure is the mean, over its decisions, of the chosen move's value less the mean
//! value of the position's legal moves (its gain over a uniform choice: 0 for `random`
//! whatever the noise of the values, where the regret against the best move, the
//! figure tried before, is inflated by that noise for every player alike). A line maps
//! the figure to the ladder's Elo; it is judged by its residual, its leave-one-rung-out
//! error, the rungs' order, and the off-ladder engines rated from 4, 8 and 16 games.
//! An analysis, not a check: it needs the games `scripts/intrinsic-playouts.sh` writes.
//!
//! ```text
//! BIN=target/release/othello-arena scripts/intrinsic-playouts.sh
//! cargo test --test integration intrinsic_playouts -- --ignored --nocapture
//! ```
//! `PLAYOUTS` (default 64) sets the playouts a move.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use engines::{playout_values, Continuation, Engine, Random};
use game::othello::{Board, Move, Square};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use record::{MoveSource, Notation};
use runs::{read_game_logs, Ladder};

/// The continuations the moves are valued under, in [`Gain::by`]'s order.
const CONTINUATIONS: [(&str, Continuation); 4] = [
    ("random", Continuation::Random),
    ("greedy", Continuation::Greedy { random_percent: 0 }),
    ("greedy 20% random", Continuation::Greedy { random_percent: 20 }),
    ("greedy 50% random", Continuation::Greedy { random_percent: 50 }),
];

/// How a decision's values become one number.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    /// The chosen move's mean score less the legal moves' mean.
    Score,
    /// The same in discs.
    Discs,
    /// The share of the best move's disc gain over the mean that the choice took
    /// (positions whose moves all play out alike carry none).
    Captured,
}

/// One decision's figures under each continuation.
#[derive(Clone, Copy, Debug)]
struct Gain {
    /// Empty squares before the move.
    empties: u32,
    /// Legal moves.
    moves: usize,
    /// Per continuation: (score gain, disc gain, captured share).
    by: [(f64, f64, Option<f64>); 4],
}

/// The decisions a metric reads, by the empty squares before them.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Phase {
    All,
    Late,
    Early,
}

/// The figure a player is rated by: which values, which number, which decisions.
struct Metric {
    continuation: usize,
    kind: Kind,
    phase: Phase,
}

impl Metric {
    fn name(&self) -> String {
        let phase = match self.phase {
            Phase::All => "",
            Phase::Late => ", 24 empties or fewer",
            Phase::Early => ", over 24 empties",
        };
        format!(
            "{} playouts, {:?}{phase}",
            CONTINUATIONS[self.continuation].0, self.kind
        )
    }

    fn of(&self, g: &Gain) -> Option<f64> {
        let keep = match self.phase {
            Phase::All => true,
            Phase::Late => g.empties <= 24,
            Phase::Early => g.empties > 24,
        };
        keep.then_some(())?;
        let (score, discs, captured) = g.by[self.continuation];
        match self.kind {
            Kind::Score => Some(score),
            Kind::Discs => Some(discs),
            Kind::Captured => captured,
        }
    }
}

/// Every metric tried: each continuation and kind over all decisions, then each
/// continuation's disc gain by phase.
fn metrics() -> Vec<Metric> {
    let mut all = Vec::new();
    for continuation in 0..CONTINUATIONS.len() {
        for kind in [Kind::Score, Kind::Discs, Kind::Captured] {
            all.push(Metric {
                continuation,
                kind,
                phase: Phase::All,
            });
        }
        for phase in [Phase::Late, Phase::Early] {
            all.push(Metric {
                continuation,
                kind: Kind::Discs,
                phase,
            });
        }
    }
    all
}

/// The gains of a decision at `board` where `chosen` was played.
fn gain(board: &Board, chosen: Square, playouts: u32, seed: u64) -> Option<Gain> {
    let moves = board.legal_moves().count() as usize;
    if moves < 2 {
        return None;
    }
    let centred = |continuation| {
        let values = playout_values(board, playouts, continuation, seed);
        let chosen = values.iter().find(|v| v.square == chosen)?;
        let n = values.len() as f64;
        let mean = |f: fn(&engines::PlayoutValue) -> f64| values.iter().map(f).sum::<f64>() / n;
        let best = values.iter().map(|v| v.margin).fold(f64::NEG_INFINITY, f64::max);
        let (score, discs) = (chosen.score - mean(|v| v.score), chosen.margin - mean(|v| v.margin));
        let room = best - mean(|v| v.margin);
        Some((score, discs, (room > 1e-9).then(|| discs / room)))
    };
    let mut by = [(0.0, 0.0, None); 4];
    for (slot, (_, continuation)) in by.iter_mut().zip(CONTINUATIONS) {
        *slot = centred(continuation)?;
    }
    Some(Gain {
        empties: board.empties(),
        moves,
        by,
    })
}

/// Each player's gains, one list per game (an engine's own moves only), from the
/// game logs under `runs`.
fn gains_of_runs(runs: &[PathBuf], playouts: u32) -> BTreeMap<String, Vec<Vec<Gain>>> {
    let mut logs = read_game_logs(runs).unwrap();
    // Game 1 of every run, then game 2 of every run...: a player's first k games are
    // then the first k/n of each of its n runs, as scripts/intrinsic-offladder.sh takes them.
    logs.games
        .sort_by(|a, b| (a.summary.number, &a.run).cmp(&(b.summary.number, &b.run)));
    let mut players: BTreeMap<String, Vec<Vec<Gain>>> = BTreeMap::new();
    for (index, game) in logs.games.iter().enumerate() {
        let mut sides: BTreeMap<String, Vec<Gain>> = BTreeMap::new();
        for ply in &game.replay.plies {
            let (Some(Notation::Square(square)), Some(MoveSource::Engine)) = (&ply.mv, ply.source) else {
                continue;
            };
            let board = Board::parse_squares(ply.board_before.as_str(), ply.color).unwrap();
            let chosen = Square::new(square.index() as u8).unwrap();
            let seed = (index as u64) << 8 | ply.ply as u64;
            if let Some(g) = gain(&board, chosen, playouts, seed) {
                sides.entry(ply.player.clone()).or_default().push(g);
            }
        }
        for (player, gains) in sides {
            players.entry(player).or_default().push(gains);
        }
    }
    players
}

/// Games of a client that always plays its first legal move (a1..h8 order) against
/// `random`, colours alternating: the issue's MCP stand-in, rated 25 [-81, 134] by
/// results over 40 games.
fn first_legal_move_games(games: usize, playouts: u32) -> Vec<Vec<Gain>> {
    (0..games)
        .map(|game| {
            let mut opponent = Random::new(game as u64);
            let mut rng = ChaCha8Rng::seed_from_u64(1000 + game as u64);
            let mut board = Board::new();
            // Four random opening plies, as the other games.
            for _ in 0..4 {
                let moves: Vec<Square> = board.legal_moves().squares().collect();
                board = board.play_unchecked(Move::Place(moves[rng.gen_range(0..moves.len())]));
            }
            let client = if game % 2 == 0 {
                board.side_to_move()
            } else {
                !board.side_to_move()
            };
            let mut gains = Vec::new();
            while !board.is_game_over() {
                if board.legal_moves().is_empty() {
                    board = board.play_unchecked(Move::Pass);
                    continue;
                }
                let mv = if board.side_to_move() == client {
                    let first = board.legal_moves().squares().next().unwrap();
                    gains.extend(gain(
                        &board,
                        first,
                        playouts,
                        (game as u64) << 8 | u64::from(board.empties()),
                    ));
                    Move::Place(first)
                } else {
                    opponent.decide(&board).unwrap().mv
                };
                board = board.play_unchecked(mv);
            }
            gains
        })
        .collect()
}

/// A player's figure: the mean of `metric` over the decisions of `games`.
fn figure(games: &[&Vec<Gain>], metric: &Metric) -> f64 {
    let values: Vec<f64> = games
        .iter()
        .flat_map(|g| g.iter().filter_map(|d| metric.of(d)))
        .collect();
    values.iter().sum::<f64>() / values.len().max(1) as f64
}

/// Least-squares line through `points` (x, y): (intercept, slope).
fn line(points: &[(f64, f64)]) -> (f64, f64) {
    let n = points.len() as f64;
    let (mx, my) = (
        points.iter().map(|p| p.0).sum::<f64>() / n,
        points.iter().map(|p| p.1).sum::<f64>() / n,
    );
    let sxy: f64 = points.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    let sxx: f64 = points.iter().map(|p| (p.0 - mx).powi(2)).sum();
    let slope = sxy / sxx;
    (my - slope * mx, slope)
}

/// A rating: (estimate, low, high) of its 95% interval.
type Rating = (f64, f64, f64);

/// The off-ladder engines' results ratings from their first 4, 8 and 16 games
/// (docs/intrinsic.md, "Engines off the ladder": estimate, low, high), to combine with
/// the intrinsic rating from the same games.
const RESULTS_FROM_K: [(&str, [(usize, Rating); 3]); 3] = [
    (
        "n-least:1",
        [
            (4, (537.0, 148.0, 1386.0)),
            (8, (432.0, 168.0, 823.0)),
            (16, (302.0, 130.0, 502.0)),
        ],
    ),
    (
        "n-most:1",
        [
            (4, (269.0, -64.0, 786.0)),
            (8, (249.0, 1.0, 580.0)),
            (16, (137.0, -31.0, 346.0)),
        ],
    ),
    (
        "n-hand:4",
        [
            (4, (114.0, -292.0, 430.0)),
            (8, (91.0, -238.0, 330.0)),
            (16, (127.0, -65.0, 298.0)),
        ],
    ),
];

/// Two ratings of one player combined by their inverse variances (each interval read
/// as a normal 95% one): (estimate, low, high).
fn combined(a: Rating, b: Rating) -> Rating {
    let variance = |(_, low, high): Rating| ((high - low) / (2.0 * 1.96)).powi(2);
    let (wa, wb) = (1.0 / variance(a), 1.0 / variance(b));
    let estimate = (wa * a.0 + wb * b.0) / (wa + wb);
    let half = 1.96 / (wa + wb).sqrt();
    (estimate, estimate - half, estimate + half)
}

/// The off-ladder engines' ratings by results from 200 games (docs/intrinsic.md,
/// "Engines off the ladder"), the truth their intervals should hold, and their results
/// intervals' widths from 8 of those games.
const OFF_LADDER: [(&str, f64, f64); 4] = [
    ("n-least:1", 167.0, 656.0),
    ("n-most:1", 122.0, 579.0),
    ("n-hand:4", 146.0, 567.0),
    ("first-legal-move", 25.0, 215.0),
];

#[test]
#[ignore = "an analysis of logs/intrinsic-playouts (scripts/intrinsic-playouts.sh writes it)"]
fn values_by_playouts_at_the_weak_end() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let playouts: u32 = std::env::var("PLAYOUTS").map_or(64, |p| p.parse().unwrap());
    let folder = |name: &str| -> Vec<PathBuf> {
        std::fs::read_dir(root.join("logs/intrinsic-playouts").join(name))
            .expect("no logs/intrinsic-playouts: run scripts/intrinsic-playouts.sh first")
            .map(|entry| entry.unwrap().path())
            .collect()
    };
    let started = std::time::Instant::now();
    let ladder_gains = gains_of_runs(&folder("ladder"), playouts);
    let mut off_gains = gains_of_runs(&folder("offladder"), playouts);
    off_gains.insert("first-legal-move".into(), first_legal_move_games(40, playouts));
    let decisions: usize = ladder_gains
        .values()
        .chain(off_gains.values())
        .flatten()
        .map(Vec::len)
        .sum();
    println!(
        "{decisions} decisions valued by {playouts} playouts a move in {:.0} s",
        started.elapsed().as_secs_f64()
    );
    let ladder = Ladder::from_toml(&std::fs::read_to_string(root.join("docs/ladder-ratings.toml")).unwrap()).unwrap();
    let rungs: Vec<(&str, f64, Vec<&Vec<Gain>>)> = ladder
        .rungs
        .iter()
        .filter_map(|r| Some((r.player.as_str(), r.elo, ladder_gains.get(&r.player)?.iter().collect())))
        .collect();
    let mut summaries: Vec<(String, f64, f64, usize, usize, String)> = Vec::new();
    for metric in &metrics() {
        summaries.push(report(metric, &rungs, &off_gains));
    }
    println!("\n| values | residual | leave-one-rung-out RMS | pairs in ladder order | k=8: held, width ratios |");
    println!("|---|---|---|---|---|");
    for (name, residual, loo, ordered, pairs, at8) in summaries {
        println!("| {name} | {residual:.0} | {loo:.0} | {ordered} of {pairs} | {at8} |");
    }
    let moves: f64 = ladder_gains.values().flatten().flatten().map(|g| g.moves as f64).sum();
    println!("mean legal moves a decision: {:.1}", moves / decisions as f64);
}

/// One metric's rows: each rung's figure beside its ladder Elo, the line's fit, and the
/// off-ladder engines rated through it from 4, 8 and 16 games.
fn report(
    metric: &Metric,
    rungs: &[(&str, f64, Vec<&Vec<Gain>>)],
    off: &BTreeMap<String, Vec<Vec<Gain>>>,
) -> (String, f64, f64, usize, usize, String) {
    let points: Vec<(f64, f64)> = rungs
        .iter()
        .map(|(_, elo, games)| (figure(games, metric), *elo))
        .collect();
    let (a, b) = line(&points);
    let residuals: Vec<f64> = points.iter().map(|(x, y)| y - (a + b * x)).collect();
    let residual = (residuals.iter().map(|r| r * r).sum::<f64>() / (points.len() as f64 - 2.0)).sqrt();
    let loo: Vec<f64> = (0..points.len())
        .map(|i| {
            let others: Vec<(f64, f64)> = points
                .iter()
                .enumerate()
                .filter(|(j, _)| *j != i)
                .map(|(_, p)| *p)
                .collect();
            let (a, b) = line(&others);
            points[i].1 - (a + b * points[i].0)
        })
        .collect();
    let loo_rms = (loo.iter().map(|r| r * r).sum::<f64>() / loo.len() as f64).sqrt();
    let (mut ordered, mut pairs) = (0, 0);
    for (i, p) in points.iter().enumerate() {
        for q in &points[i + 1..] {
            if p.1 != q.1 {
                pairs += 1;
                ordered += usize::from((p.0 - q.0) * (p.1 - q.1) > 0.0);
            }
        }
    }
    println!("\n## {}\nElo = {a:.0} + {b:.0} x figure; residual {residual:.0} Elo, leave-one-rung-out RMS {loo_rms:.0}, pairs in ladder order {ordered} of {pairs}", metric.name());
    println!("| rung | ladder Elo | figure | fitted Elo | left-out error |");
    println!("|---|---|---|---|---|");
    for (((name, elo, _), (x, _)), e) in rungs.iter().zip(&points).zip(&loo) {
        println!("| {name} | {elo:.0} | {x:.4} | {:.0} | {e:.0} |", a + b * x);
    }
    let at8 = yardsticks(metric, (a, b), loo_rms, off);
    (metric.name(), residual, loo_rms, ordered, pairs, at8.join(", "))
}

/// The off-ladder engines rated through the line `(a, b)` from their first 4, 8 and
/// 16 games, alone and with their results; the summary of each at k = 8.
fn yardsticks(
    metric: &Metric,
    (a, b): (f64, f64),
    loo_rms: f64,
    off: &BTreeMap<String, Vec<Vec<Gain>>>,
) -> Vec<String> {
    let mut at8 = Vec::new();
    println!("| engine | truth (200 games) | k | Elo [95%] | width | holds | width / results' (8 games; the client: 40) | with results: Elo [95%] | holds | width / results' (k games) |");
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for (name, truth, results_width) in OFF_LADDER {
        let Some(games) = off.get(name) else { continue };
        for k in [4, 8, 16] {
            let first: Vec<&Vec<Gain>> = games.iter().take(k).collect();
            let estimate = a + b * figure(&first, metric);
            // Bootstrap over the k games, then the map's left-out error in quadrature.
            let mut rng = ChaCha8Rng::seed_from_u64(k as u64);
            let mut draws: Vec<f64> = (0..200)
                .map(|_| {
                    let drawn: Vec<&Vec<Gain>> =
                        (0..first.len()).map(|_| first[rng.gen_range(0..first.len())]).collect();
                    a + b * figure(&drawn, metric)
                })
                .collect();
            draws.sort_by(f64::total_cmp);
            let (low, high) = (draws[5] - estimate, draws[194] - estimate);
            let spread = 1.96 * loo_rms;
            let (low, high) = (
                estimate - (low * low + spread * spread).sqrt(),
                estimate + (high * high + spread * spread).sqrt(),
            );
            if k == 8 {
                at8.push(format!(
                    "{}{} {:.2}",
                    name,
                    if (low..=high).contains(&truth) { "" } else { " missed" },
                    (high - low) / results_width
                ));
            }
            let results = RESULTS_FROM_K
                .iter()
                .find(|(n, _)| *n == name)
                .and_then(|(_, rows)| rows.iter().find(|r| r.0 == k));
            let joint = match results {
                Some(&(_, (r, rl, rh))) => {
                    let (e, l, h) = combined((estimate, low, high), (r, rl, rh));
                    format!(
                        "{e:.0} [{l:.0}, {h:.0}] | {} | {:.2}",
                        if (l..=h).contains(&truth) { "yes" } else { "no" },
                        (h - l) / (rh - rl)
                    )
                }
                None => "- | - | -".to_string(),
            };
            println!(
                "| {name} | {truth:.0} | {k} | {estimate:.0} [{low:.0}, {high:.0}] | {:.0} | {} | {:.2} | {joint} |",
                high - low,
                if (low..=high).contains(&truth) { "yes" } else { "no" },
                (high - low) / results_width
            );
        }
    }
    at8
}
