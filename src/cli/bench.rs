//! `bench`: speed figures for the move generator, the searches and the rating fit.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::args::{BenchArgs, BenchTarget};
use super::intrinsic::load_calibration;
use super::positions::parse_empties;
use super::progress::{steps_line, Progress};
use super::stdout::outln;
use arena::{accuracy, calibration, random_opening, solve_all};
use engines::lab::self_play_positions;
use engines::midgame::search_value;
use engines::{
    pattern, AlphaBeta, Engine, Evaluation, Evaluator, LinearEval, Reference, Search, Solver, DEFAULT_DEPTH,
    DEFAULT_EXACT_EMPTIES, MAX_EXACT_EMPTIES,
};
use game::othello::{perft, Board, Color, Convention};
use game::Othello;
use runs::{coverage_text, read_game_logs, Decisions};
use stats::{check_resamples, fit_ratings, mean_and_sd, Draws, RatedGame, RatingOptions, RatingWatch};

/// The FFO endgame suite (id, board, side, best moves, score, empties per line).
const FFO: &str = include_str!("../../tests/data/ffo-endgames.txt");

pub(super) fn run(args: BenchArgs) -> Result<()> {
    match args.what {
        BenchTarget::Perft => bench_perft(args.perft_depth)?,
        BenchTarget::Alphabeta => bench_search()?,
        BenchTarget::Solve => bench_solve(&args.ffo)?,
        BenchTarget::Eval => bench_eval(&args)?,
        BenchTarget::Probcut => bench_probcut(&args)?,
        BenchTarget::Rate => bench_rate(args.players, args.games_each, args.resamples, args.seed)?,
        BenchTarget::IntrinsicCoverage => bench_intrinsic_coverage(&args)?,
        BenchTarget::All => {
            bench_perft(args.perft_depth)?;
            bench_search()?;
        }
    }
    Ok(())
}

fn bench_perft(depth: u32) -> Result<()> {
    outln!("perft from the start position, one thread, bulk counting at the last ply")?;
    for d in (depth.saturating_sub(2).max(1))..=depth {
        let start = Instant::now();
        let leaves = perft(&Board::new(), d, Convention::A);
        let secs = start.elapsed().as_secs_f64();
        outln!(
            "  depth {d:2}: {leaves:>14} leaves in {secs:7.3} s = {:.3e} leaves/s",
            leaves as f64 / secs
        )?;
    }
    Ok(())
}

/// Midgame positions: 20 random plies from the start (seeds 0..), as seed 004 measured.
fn midgame_positions(count: u64) -> Vec<Board> {
    (0..count)
        .map(|seed| *random_opening::<Othello>(Board::new(), 20, seed).board())
        .filter(|b| !b.legal_moves().is_empty())
        .collect()
}

fn bench_search() -> Result<()> {
    outln!("seed 004 alpha-beta (alphabeta:D:weight), nodes counted as seed 004 counts them")?;
    for depth in [4, 6] {
        let mut engine = AlphaBeta::new(depth, Evaluation::Weight);
        let start = Instant::now();
        let decision = engine.choose(&Board::new()).map(|d| d.nodes).unwrap_or(0);
        let secs = start.elapsed().as_secs_f64();
        outln!(
            "  start position, depth {depth}: {decision} nodes in {:.2} ms",
            secs * 1e3
        )?;
    }
    let positions = midgame_positions(100);
    for depth in [4, 6] {
        let mut nodes: Vec<u64> = Vec::new();
        let start = Instant::now();
        for board in &positions {
            let mut engine = AlphaBeta::new(depth, Evaluation::Weight);
            nodes.push(engine.choose(board).map(|d| d.nodes).unwrap_or(0));
        }
        let secs = start.elapsed().as_secs_f64();
        let total: u64 = nodes.iter().sum();
        nodes.sort_unstable();
        outln!(
            "  {} midgame positions (20 random plies), depth {depth}: nodes median {}, p90 {}, max {}, mean {:.0}; {:.3e} nodes/s",
            positions.len(),
            nodes[nodes.len() / 2],
            nodes[nodes.len() * 9 / 10],
            nodes[nodes.len() - 1],
            total as f64 / nodes.len() as f64,
            total as f64 / secs
        )?;
    }
    let start = Instant::now();
    let mut total = 0;
    for board in &positions {
        total += Search::new().choose(board).map(|d| d.nodes).unwrap_or(0);
    }
    let secs = start.elapsed().as_secs_f64();
    outln!(
        "seed 001 search on the same positions: {total} nodes in {secs:.3} s = {:.3e} nodes/s",
        total as f64 / secs
    )?;
    Ok(())
}

/// The problem numbers of the FFO suite.
fn ffo_ids() -> Vec<u32> {
    FFO.lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| l.split_whitespace().next()?.parse().ok())
        .collect()
}

/// Reads `--ffo` (such as 40-44, or 40): a range that holds at least one problem.
fn ffo_range(range: &str) -> Result<(u32, u32)> {
    let ids = ffo_ids();
    let (first, last) = (
        ids.iter().min().copied().unwrap_or(0),
        ids.iter().max().copied().unwrap_or(0),
    );
    let valid = format!("give problem numbers from {first} to {last}, such as 40-44 or 40");
    let (low, high) = range.split_once('-').unwrap_or((range, range));
    let (low, high): (u32, u32) = match (low.trim().parse(), high.trim().parse()) {
        (Ok(low), Ok(high)) => (low, high),
        _ => bail!("bad --ffo {range:?}: {valid}"),
    };
    if low > high {
        bail!("bad --ffo {range:?}: the range is empty ({low} is above {high}): {valid}");
    }
    if !ids.iter().any(|id| (low..=high).contains(id)) {
        bail!("bad --ffo {range:?}: the suite has no problem in it: {valid}");
    }
    Ok((low, high))
}

/// Solves FFO problems `range` (such as 40-44) one after another with one solver and
/// checks each score against the suite.
fn bench_solve(range: &str) -> Result<()> {
    let (low, high) = ffo_range(range)?;
    outln!(
        "exact solve of FFO #{low}-#{high}, one thread (score and every best move, both checked against the suite)"
    )?;
    outln!("  (nodes include those of the midgame searches that order moves, also shown apart)")?;
    outln!(
        "  {:<4} {:>7}  {:>5}  {:<9} {:>5}  {:>13}  {:>11}  {:>8}  {:>9}",
        "id",
        "empties",
        "score",
        "best",
        "moves",
        "nodes",
        "of ordering",
        "time (s)",
        "Mnodes/s"
    )?;
    let mut solver = Solver::new();
    let (mut total_secs, mut total_nodes) = (0.0, 0);
    for line in FFO.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()) {
        let f: Vec<&str> = line.split_whitespace().collect();
        let id: u32 = f[0].parse()?;
        if !(low..=high).contains(&id) {
            continue;
        }
        let side = if f[2] == "X" { Color::Black } else { Color::White };
        let board = Board::parse_squares(f[1], side)?;
        let start = Instant::now();
        let solution = solver.solve(&board);
        let secs = start.elapsed().as_secs_f64();
        let expected: i32 = f[4].parse()?;
        if solution.score != expected {
            bail!("FFO #{id}: solved {} but the suite says {expected}", solution.score);
        }
        let best: Vec<String> = solution.best_moves.iter().map(ToString::to_string).collect();
        let mut listed: Vec<String> = f[3].split(',').map(str::to_lowercase).collect();
        let mut found = best.clone();
        listed.sort();
        found.sort();
        if found != listed {
            bail!("FFO #{id}: best moves {} but the suite lists {}", best.join(","), f[3]);
        }
        outln!(
            "  #{id:<3} {:>7}  {:>+5}  {:<9} {:>5}  {:>13}  {:>11}  {secs:>8.2}  {:>9.2}",
            board.empties(),
            solution.score,
            best.join(","),
            board.legal_moves().count(),
            solution.nodes,
            solution.ordering_nodes,
            solution.nodes as f64 / secs / 1e6
        )?;
        total_secs += secs;
        total_nodes += solution.nodes;
    }
    outln!(
        "  total {total_secs:.2} s, {total_nodes} nodes, {:.2} Mnodes/s",
        total_nodes as f64 / total_secs / 1e6
    )?;
    Ok(())
}

/// The shipped pattern evaluation and the linear one it replaced, against exact scores.
fn bench_eval(args: &BenchArgs) -> Result<()> {
    let empties = parse_empties(&args.empties, MAX_EXACT_EMPTIES)?;
    let pattern = pattern::shipped()?;
    let evaluators: [(&str, &'static dyn Evaluator); 2] =
        [("linear (7 features)", &LinearEval), ("pattern (shipped)", pattern)];
    let boards = self_play_positions(args.positions, empties.clone(), args.seed);
    outln!(
        "{} self-play positions at {}-{} empties (seed {}), solved exactly",
        boards.len(),
        empties.start(),
        empties.end(),
        args.seed
    )?;
    let start = Instant::now();
    let solved = solve_all(&boards);
    outln!("  solved in {:.1} s on every core", start.elapsed().as_secs_f64())?;
    outln!(
        "  {:<20}  {:>10}  {:>12}  {:>22}",
        "evaluation",
        "static MAE",
        "depth-4 MAE",
        "depth-4 choice regret"
    )?;
    for (name, evaluator) in evaluators {
        let a = accuracy(&solved, evaluator, 4);
        outln!(
            "  {name:<20}  {:>10.2}  {:>12.2}  {:>22.2}",
            a.static_error,
            a.search_error,
            a.choice_regret
        )?;
    }
    let low = DEFAULT_EXACT_EMPTIES + 1;
    let boards = self_play_positions(args.positions, low..=low + 2, args.seed);
    outln!(
        "the reference's estimates (depth {DEFAULT_DEPTH}) against every move solved: {} positions at {low}-{} empties (seed {})",
        boards.len(),
        low + 2,
        args.seed
    )?;
    outln!("  (means over positions, 95% intervals)")?;
    outln!(
        "  {:<20}  {:>26}  {:>21}  {:>20}  {:>11}",
        "evaluation",
        "|estimated - exact regret|",
        "estimated - exact",
        "regret of its choice",
        "random move"
    )?;
    let interval = |(mean, low, high): (f64, f64, f64)| format!("{mean:+.2} [{low:+.2}, {high:+.2}]");
    for (name, evaluator) in evaluators {
        let c = calibration(&boards, || Reference::new(0, DEFAULT_DEPTH).with_evaluator(evaluator));
        outln!(
            "  {name:<20}  {:>26}  {:>21}  {:>20.2}  {:>11.2}",
            interval(c.regret_error).replace('+', ""),
            interval(c.regret_bias),
            c.choice_regret,
            c.random_regret
        )?;
    }
    Ok(())
}

/// The error of shallow searches against exact scores, empties by empties: what the
/// solver's selective passes assume when a shallow search cuts a node.
fn bench_probcut(args: &BenchArgs) -> Result<()> {
    let empties = parse_empties(&args.empties, MAX_EXACT_EMPTIES)?;
    if args.positions < 2 {
        bail!(
            "bad --positions {}: a standard deviation needs at least 2 positions; ask for 2 or more",
            args.positions
        );
    }
    let pattern = pattern::shipped()?;
    outln!(
        "exact score - shallow search with the pattern evaluation, in discs: {} self-play positions \
         at each number of empties (seed {})",
        args.positions,
        args.seed
    )?;
    outln!("  (mean and standard deviation per search depth)")?;
    let depths = 1..=6u32;
    let header: Vec<String> = depths
        .clone()
        .map(|d| format!("{:>13}", format!("depth {d}")))
        .collect();
    outln!("  {:>7}  {}", "empties", header.join("  "))?;
    for e in empties {
        let boards = self_play_positions(args.positions, e..=e, args.seed);
        let solved = solve_all(&boards);
        let mut cells = Vec::new();
        for depth in depths.clone() {
            let errors: Vec<f64> = solved
                .iter()
                .map(|s| {
                    let value = search_value(pattern, s.board.player(), s.board.opponent(), depth, &mut 0);
                    f64::from(s.score) - f64::from(value) / f64::from(pattern::SCALE)
                })
                .collect();
            let Some((mean, sd)) = mean_and_sd(&errors) else {
                bail!(
                    "bad --empties {:?}: self-play reached {} distinct positions with {e} empties, \
                     too few for a standard deviation; choose other empties",
                    args.empties,
                    errors.len()
                );
            };
            cells.push(format!("{:>13}", format!("{mean:+.2} {sd:.2}")));
        }
        outln!("  {e:>7}  {}", cells.join("  "))?;
    }
    Ok(())
}

/// A synthetic field for the rating fit: `players` true ratings spread evenly at
/// random over 0..2000 Elo, and `players * games_each / 2` games, each between a player
/// (every player in turn) and a random other, won by the model's probability (no
/// draws, no pairs), so each plays `games_each` games on average.
fn rating_field(players: usize, games_each: usize, seed: u64) -> (Vec<f64>, Vec<RatedGame>) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let truth: Vec<f64> = (0..players).map(|_| rng.gen_range(0.0..2000.0)).collect();
    let mut games = Vec::new();
    for k in 0..players * games_each / 2 {
        let first = k % players;
        let second = (first + rng.gen_range(1..players)) % players;
        let expected = stats::elo_to_score(truth[first] - truth[second]);
        let score = if rng.gen_bool(expected) { 1.0 } else { 0.0 };
        games.push(RatedGame {
            first,
            second,
            score,
            pair: None,
        });
    }
    (truth, games)
}

/// Times the rating fit on [`rating_field`]: the point estimate (with the likelihood
/// intervals), then the same with `resamples` bootstrap resamples; and says how close
/// the fit came to the truth.
fn bench_intrinsic_coverage(args: &BenchArgs) -> Result<()> {
    if args.runs.is_empty() {
        bail!("bench intrinsic-coverage needs --runs: the calibration's run folders (logs/intrinsic-calibration/*, written by scripts/intrinsic-calibration.sh)");
    }
    check_resamples(args.resamples).with_context(|| format!("bad --resamples {}", args.resamples))?;
    let calibration = load_calibration(&args.intrinsic)?;
    let decisions = Decisions::read(&read_game_logs(&args.runs)?, calibration.decisions)?;
    outln!(
        "intrinsic coverage: each rung of {} left out of the map in turn, {} draws of k of its games \
         (with replacement), {} bootstrap fits each, seed {}; held: rated draws whose 95% interval holds \
         the ladder rating; rated: draws given a number; width: mean interval width, Elo",
        args.intrinsic.display(),
        args.samples,
        args.resamples,
        args.seed
    )?;
    let start = Instant::now();
    let draws = Draws {
        k: 0,
        samples: args.samples,
        resamples: args.resamples,
        seed: args.seed,
    };
    let rows = calibration.coverage(&decisions, &args.k, draws);
    outln!("{}", coverage_text(&rows, &args.k))?;
    outln!("  {:.1} s", start.elapsed().as_secs_f64())?;
    Ok(())
}

fn bench_rate(players: usize, games_each: usize, resamples: usize, seed: u64) -> Result<()> {
    if players < 2 {
        bail!("bad --players {players}: a rating needs at least 2 players");
    }
    check_resamples(resamples).with_context(|| format!("bad --resamples {resamples}"))?;
    let (truth, games) = rating_field(players, games_each, seed);
    let names: Vec<String> = (0..players).map(|p| format!("p{p}")).collect();
    outln!(
        "rating fit: {players} players 0-2000 Elo apart, {} games ({games_each} each on average, \
         random opponents, seed {seed}), on {} cores; the anchor the player nearest 1000",
        games.len(),
        std::thread::available_parallelism().map_or(1, usize::from)
    )?;
    // In the middle, so that the prior's pull toward the anchor squeezes the field
    // evenly: with 1000 virtual draws and 20 real games of the anchor, the field's
    // centre follows the anchor's level.
    let anchor = (0..players)
        .min_by(|&a, &b| (truth[a] - 1000.0).abs().total_cmp(&(truth[b] - 1000.0).abs()))
        .expect("at least 2 players");
    let options = RatingOptions {
        anchor,
        anchor_elo: truth[anchor],
        bootstrap: 0,
        seed,
        confidence: 0.95,
    };
    let watch = Arc::new(RatingWatch::default());
    let start = Instant::now();
    let point = fit_ratings(&names, &games, &options, &[], &watch)?;
    let point_secs = start.elapsed().as_secs_f64();
    outln!("  point estimate and likelihood intervals: {point_secs:8.3} s")?;
    let polled = watch.clone();
    let progress = Progress::start(move |elapsed| {
        let done = polled.resamples_done.load(Ordering::Relaxed) as u64;
        steps_line("bench rate", done, resamples as u64, "resamples", elapsed)
    });
    let start = Instant::now();
    let bootstrap = RatingOptions {
        bootstrap: resamples,
        ..options
    };
    let fitted = fit_ratings(&names, &games, &bootstrap, &[], &watch);
    drop(progress);
    let fitted = fitted?;
    let secs = start.elapsed().as_secs_f64();
    outln!(
        "  with {resamples} resamples:                {secs:8.3} s ({:.1} ms a resample)",
        1e3 * (secs - point_secs).max(0.0) / resamples as f64
    )?;
    let free = (players - 1) as f64;
    let others = || (0..players).filter(|&p| p != anchor);
    let rms = (others().map(|p| (point.ratings[p].elo - truth[p]).powi(2)).sum::<f64>() / free).sqrt();
    let covered = others()
        .filter(|&p| fitted.ratings[p].low <= truth[p] && truth[p] <= fitted.ratings[p].high)
        .count();
    outln!(
        "  error against the truth: rms {rms:.0} Elo; 95% intervals hold the truth for {:.1}% of the players",
        100.0 * covered as f64 / free
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rating_field_is_seeded_and_every_player_plays() {
        let (truth, games) = rating_field(50, 20, 3);
        assert_eq!((truth.len(), games.len()), (50, 500));
        assert!(games
            .iter()
            .all(|g| g.first != g.second && g.first < 50 && g.second < 50));
        assert!((0..50).all(|p| games.iter().any(|g| g.first == p || g.second == p)));
        assert_eq!(rating_field(50, 20, 3).1, games);
    }

    #[test]
    fn ffo_ranges_hold_a_problem() {
        assert_eq!(ffo_range("40-44").unwrap(), (40, 44));
        assert_eq!(ffo_range("41").unwrap(), (41, 41));
        for bad in ["45-40", "80-90", "0", "x-3", ""] {
            assert!(ffo_range(bad).is_err(), "{bad}");
        }
    }
}
