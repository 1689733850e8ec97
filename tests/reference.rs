//! The reference evaluator against exact endgame scores (outside truth: the solver,
//! itself checked on the FFO positions), and the shipped pattern evaluation against
//! the seven-feature linear one it replaced.

use arena::{accuracy, calibration, solve_all};
use engines::lab::self_play_positions;
use engines::pattern::{self, SCALE, SHIPPED_SHA256};
use engines::{
    linear_evaluate, linear_features as features, LinearEval, Reference, Solver, DEFAULT_DEPTH, DEFAULT_EXACT_EMPTIES,
    ESTIMATED_REGRET_ERROR, EVAL_WEIGHTS, FEATURES,
};
use game::othello::Board;
use game::Othello;

/// (features, exact score) of self-play positions.
fn exact_samples(
    count: usize,
    empties: std::ops::RangeInclusive<u32>,
    seed: u64,
) -> Vec<([f64; FEATURES], f64, Board)> {
    let mut solver = Solver::new();
    self_play_positions(count, empties, seed)
        .into_iter()
        .map(|board| {
            let exact = f64::from(solver.solve(&board).score);
            (features(board.player(), board.opponent()), exact, board)
        })
        .collect()
}

fn correlation(pairs: &[(f64, f64)]) -> f64 {
    let n = pairs.len() as f64;
    let (mx, my) = pairs.iter().fold((0.0, 0.0), |(a, b), (x, y)| (a + x / n, b + y / n));
    let cov: f64 = pairs.iter().map(|(x, y)| (x - mx) * (y - my)).sum();
    let vx: f64 = pairs.iter().map(|(x, _)| (x - mx).powi(2)).sum();
    let vy: f64 = pairs.iter().map(|(_, y)| (y - my).powi(2)).sum();
    cov / (vx * vy).sqrt()
}

#[test]
fn the_shipped_pattern_weights_load_and_match_their_hash() {
    let weights = pattern::shipped().expect("the shipped weights load");
    let bytes = weights.to_bytes();
    assert_eq!(
        pattern::sha256_hex(&bytes),
        SHIPPED_SHA256,
        "the file written back is the file shipped"
    );
    assert_eq!(bytes.len(), 20 + 2 * pattern::PHASES * pattern::layout().classes());
}

#[test]
fn the_pattern_evaluation_tracks_exact_scores_closer_than_the_linear_one() {
    // A small fixed sample at 14 empties (solved in about a second), held apart from
    // training by its seed: mean absolute error and correlation, in discs.
    let samples = exact_samples(300, 14..=14, 99);
    assert!(samples.len() >= 290, "self-play gives enough distinct positions");
    let weights = pattern::shipped().unwrap();
    let measure = |value: &dyn Fn(&Board) -> f64| {
        let pairs: Vec<(f64, f64)> = samples.iter().map(|(_, exact, board)| (value(board), *exact)).collect();
        let mae = pairs.iter().map(|(v, e)| (v - e).abs()).sum::<f64>() / pairs.len() as f64;
        (mae, correlation(&pairs))
    };
    let (linear_mae, linear_r) = measure(&|b| linear_evaluate(b.player(), b.opponent()));
    let (pattern_mae, pattern_r) =
        measure(&|b| f64::from(weights.evaluate(b.player(), b.opponent())) / f64::from(SCALE));
    println!(
        "at 14 empties: linear MAE {linear_mae:.2} (r {linear_r:.3}), pattern MAE {pattern_mae:.2} (r {pattern_r:.3})"
    );
    assert!(
        linear_r > 0.75,
        "the baseline still tracks exact scores: r {linear_r:.3}"
    );
    assert!(pattern_mae < 0.85 * linear_mae, "{pattern_mae:.2} vs {linear_mae:.2}");
    assert!(pattern_r > linear_r, "{pattern_r:.3} vs {linear_r:.3}");
}

#[test]
fn the_pattern_evaluation_searches_to_better_moves_than_the_linear_one() {
    // 30 positions at 18 empties: the depth-4 search's value and choice, both evaluations.
    let solved = solve_all(&self_play_positions(30, 18..=18, 21));
    let linear = accuracy(&solved, &LinearEval, 4);
    let pattern = accuracy(&solved, pattern::shipped_weights(), 4);
    println!("at 18 empties, depth 4: linear {linear:?}; pattern {pattern:?}");
    assert!(pattern.search_error < linear.search_error, "{pattern:?} vs {linear:?}");
    assert!(
        pattern.choice_regret <= linear.choice_regret,
        "{pattern:?} vs {linear:?}"
    );
}

#[test]
fn searched_moves_lose_far_less_than_random_ones() {
    // At 18 empties: the estimated best move (search only, depth 4) against the exact
    // scores of every move.
    let mut exact = Reference::new(18, 1);
    let mut searched = Reference::new(0, 4);
    let (mut search_regret, mut random_regret, mut n) = (0.0, 0.0, 0.0);
    for board in self_play_positions(40, 18..=18, 5) {
        let truth = exact.score_moves(&board);
        assert!(truth.exact);
        let estimate = searched.score_moves(&board);
        assert!(!estimate.exact && estimate.depth == 4);
        let pick = estimate.best_moves()[0];
        search_regret += truth.regret(pick).unwrap();
        let mean: f64 = truth
            .scores
            .iter()
            .map(|(sq, _)| truth.regret(*sq).unwrap())
            .sum::<f64>()
            / truth.scores.len() as f64;
        random_regret += mean;
        n += 1.0;
    }
    let (search_regret, random_regret) = (search_regret / n, random_regret / n);
    println!("mean exact regret at 18 empties: depth-4 reference {search_regret:.2}, random move {random_regret:.2}");
    assert!(
        search_regret < 0.4 * random_regret,
        "{search_regret:.2} vs {random_regret:.2}"
    );
}

#[test]
fn the_stated_calibration_holds_on_a_fresh_sample() {
    // Every move of 16 positions at the three empties just beyond the default exact
    // horizon solved, and estimated at the default depth, as the stated figure was
    // measured. Positions differ widely (10 positions at 19 empties once gave 6.5
    // discs), so the check is loose: it catches a stated figure that no longer
    // describes the reference, not sampling noise.
    let low = DEFAULT_EXACT_EMPTIES + 1;
    let boards = self_play_positions(16, low..=low + 2, 13);
    let measured = calibration(&boards, || Reference::new(0, DEFAULT_DEPTH));
    println!(
        "estimated regrets against exact ones at {low}-{} empties: {measured:?}",
        low + 2
    );
    assert!(
        (measured.regret_error.0 - ESTIMATED_REGRET_ERROR).abs() < 3.0,
        "stated {ESTIMATED_REGRET_ERROR}, measured {measured:?}"
    );
    assert!(measured.choice_regret < 0.5 * measured.random_regret, "{measured:?}");
}

#[test]
fn exact_scores_agree_with_the_solver_and_name_every_best_move() {
    let mut reference = Reference::default();
    let mut solver = Solver::new();
    for board in self_play_positions(20, 10..=14, 3) {
        let scores = reference.score_moves(&board);
        let solution = solver.solve(&board);
        assert!(scores.exact);
        assert_eq!(scores.best(), Some(f64::from(solution.score)));
        assert_eq!(scores.best_moves(), solution.best_moves);
    }
}

/// Refits the linear baseline's [`EVAL_WEIGHTS`] by least squares on exact scores at
/// 12-16 empties and prints them (how the baseline was made).
#[test]
#[ignore = "calibration: prints weights to paste into src/engine/linear.rs"]
fn fit_evaluation_weights() {
    let samples = exact_samples(3000, 12..=16, 2026);
    let mut ata = [[0.0; FEATURES]; FEATURES];
    let mut atb = [0.0; FEATURES];
    for (f, y, _) in &samples {
        for i in 0..FEATURES {
            atb[i] += f[i] * y;
            for j in 0..FEATURES {
                ata[i][j] += f[i] * f[j];
            }
        }
    }
    // Gaussian elimination with partial pivoting.
    let mut m: Vec<Vec<f64>> = (0..FEATURES).map(|i| [&ata[i][..], &[atb[i]]].concat()).collect();
    for col in 0..FEATURES {
        let pivot = (col..FEATURES)
            .max_by(|&a, &b| m[a][col].abs().total_cmp(&m[b][col].abs()))
            .unwrap();
        m.swap(col, pivot);
        let pivot_row = m[col].clone();
        for (row, values) in m.iter_mut().enumerate() {
            if row != col {
                let factor = values[col] / pivot_row[col];
                for (x, p) in values.iter_mut().zip(&pivot_row).skip(col) {
                    *x -= factor * p;
                }
            }
        }
    }
    let weights: Vec<f64> = (0..FEATURES).map(|i| m[i][FEATURES] / m[i][i]).collect();
    let fitted: Vec<(f64, f64)> = samples
        .iter()
        .map(|(f, y, _)| (f.iter().zip(&weights).map(|(a, b)| a * b).sum(), *y))
        .collect();
    let shipped: Vec<(f64, f64)> = samples
        .iter()
        .map(|(f, y, _)| (f.iter().zip(EVAL_WEIGHTS).map(|(a, b)| a * b).sum(), *y))
        .collect();
    println!("{} positions", samples.len());
    println!("fitted weights: {weights:.2?}, r = {:.3}", correlation(&fitted));
    println!("shipped weights: {EVAL_WEIGHTS:?}, r = {:.3}", correlation(&shipped));
}

#[tokio::test]
async fn the_evaluation_outplays_seed_004s_at_equal_depth() {
    // Search only (no exact endgame), 3 plies each, 100 games with random openings.
    use arena::{run_match, MatchConfig, PlayerSpec, RunOptions};
    let spec = |s: &str| PlayerSpec::<Othello>::Engine(s.parse().unwrap());
    let config = MatchConfig {
        players: [spec("reference:3:0"), spec("alphabeta:3:weight")],
        games: 100,
        swap: true,
        seed: 5,
        run: RunOptions {
            openings: arena::Openings::random(6),
            parallel: 2,
            ..RunOptions::default()
        },
    };
    let result = run_match(&config, &|_| {}).await.unwrap();
    let tally = &result.tallies[0].overall;
    let (low, _) = tally.win_interval();
    println!(
        "reference:3:0 vs alphabeta:3:weight: {} wins, {} losses, {} draws",
        tally.wins, tally.losses, tally.draws
    );
    assert!(low > 0.5, "the lower end of the win interval is {low:.2}");
}

#[test]
fn a_time_limit_stops_the_deepening_at_the_last_finished_depth() {
    let board = self_play_positions(1, 40..=40, 8)[0];
    let mut reference = Reference::new(0, 8);
    reference.time_limit = Some(std::time::Duration::ZERO);
    let scores = reference.score_moves(&board);
    assert_eq!((scores.exact, scores.depth), (false, 1), "one ply, then the time is up");
    reference.time_limit = None;
    assert_eq!(reference.score_moves(&board).depth, 8);
}
