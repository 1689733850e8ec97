//! The solver's own tests: the last-empties solvers against a plain negamax, and the
//! watch. The FFO suite is checked in tests/endgame.rs.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::*;

/// Plain negamax to the end (no pruning): the scores everything else must match.
fn negamax(player: u64, opponent: u64, passed: bool) -> i32 {
    let moves = legal_moves(player, opponent);
    if moves == 0 {
        if passed {
            return final_score(player, opponent);
        }
        return -negamax(opponent, player, true);
    }
    Bitboard(moves)
        .into_iter()
        .map(|square| {
            let f = flips(player, opponent, square);
            -negamax(opponent & !f, player | f | square.bit(), false)
        })
        .max()
        .expect("a legal move")
}

/// Positions with `empties` empty squares reached by random play from the start
/// (games that end sooner are dropped), with the side to move as it falls.
fn random_positions(empties: u32, count: usize, seed: u64) -> Vec<(u64, u64)> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut positions = Vec::new();
    while positions.len() < count {
        let (mut player, mut opponent) = (Board::new().player(), Board::new().opponent());
        let mut passes = 0;
        while (!(player | opponent)).count_ones() > empties && passes < 2 {
            let moves: Vec<Square> = Bitboard(legal_moves(player, opponent)).into_iter().collect();
            if moves.is_empty() {
                passes += 1;
            } else {
                passes = 0;
                let square = moves[rng.gen_range(0..moves.len())];
                let f = flips(player, opponent, square);
                (player, opponent) = (player | f | square.bit(), opponent & !f);
            }
            (player, opponent) = (opponent, player);
        }
        if passes < 2 {
            positions.push((player, opponent));
        }
    }
    positions
}

#[test]
fn the_last_empties_solvers_agree_with_negamax_in_every_window() {
    for empties in 0..=SHALLOW_MAX_EMPTIES {
        for (i, (player, opponent)) in random_positions(empties, 300, u64::from(empties))
            .into_iter()
            .enumerate()
        {
            let exact = negamax(player, opponent, false);
            let mut nodes = 0;
            assert_eq!(
                last::solve_small(player, opponent, -64, 64, &mut nodes),
                exact,
                "{empties} empties, #{i}"
            );
            assert!(nodes > 0);
            for (alpha, beta) in [
                (exact - 1, exact + 1),
                (exact, exact + 1),
                (exact - 1, exact),
                (-64, exact - 3),
                (exact + 2, 64),
            ] {
                let (alpha, beta) = (alpha.max(-65), beta.min(65));
                if alpha >= beta {
                    continue;
                }
                let value = last::solve_small(player, opponent, alpha, beta, &mut nodes);
                // Fail-soft: a bound on the side that fails, the score inside.
                let fine = if value <= alpha {
                    exact <= value
                } else if value >= beta {
                    exact >= value
                } else {
                    exact == value
                };
                assert!(
                    fine,
                    "{empties} empties, #{i}: {value} in ({alpha}, {beta}), exact {exact}"
                );
            }
        }
    }
}

#[test]
fn the_solver_agrees_with_negamax_on_random_positions() {
    let mut solver = Solver::new();
    for empties in [7, 9, 10] {
        for (player, opponent) in random_positions(empties, 40, 100 + u64::from(empties)) {
            let board = Board::from_bitboards(player, opponent, game::othello::Color::Black).expect("disjoint discs");
            let exact = negamax(player, opponent, false);
            let solution = solver.solve(&board);
            assert_eq!(solution.score, exact, "{empties} empties");
            let best: Vec<Square> = Bitboard(legal_moves(player, opponent))
                .into_iter()
                .filter(|&square| {
                    let f = flips(player, opponent, square);
                    -negamax(opponent & !f, player | f | square.bit(), false) == exact
                })
                .collect();
            assert_eq!(solution.best_moves, best, "{empties} empties");
        }
    }
}

#[test]
fn a_watched_solve_publishes_its_nodes_and_the_root_moves_checked() {
    // FFO #1 (14 empties), black to move.
    let board = Board::parse_squares(
        "--XXXXX--OOOXX-O-OOOXXOX-OXOXOXXOXXXOXXX--XOXOXX-XXXOOO--OOOOO--",
        game::othello::Color::Black,
    )
    .expect("a valid board");
    let watch = Arc::new(SolveWatch::default());
    let mut solver = Solver::new();
    solver.watch(watch.clone());
    let solution = solver.solve(&board);
    assert_eq!(watch.nodes.load(Ordering::Relaxed), solution.nodes);
    let moves = board.legal_moves().count();
    assert_eq!(watch.moves.load(Ordering::Relaxed), moves);
    assert_eq!(watch.moves_checked.load(Ordering::Relaxed), moves);
    assert_eq!(solution, Solver::new().solve(&board), "watching changes nothing");
}

#[test]
fn the_last_move_counted_from_the_lines_flips_what_the_move_generator_flips() {
    for (player, opponent) in random_positions(1, 2000, 77) {
        let empty = !(player | opponent);
        let index = empty.trailing_zeros();
        for (mover, other) in [(player, opponent), (opponent, player)] {
            let square = Square::new(index as u8).expect("a square");
            assert_eq!(
                last::last_flips(mover, index),
                flips(mover, other, square).count_ones() as i32
            );
        }
    }
}

/// A fail-soft search whose true value is `value`: a bound beyond the window on the
/// side it fails, anywhere between the value and the window's edge.
fn consistent(value: i32, slack: i32) -> impl FnMut(i32, i32) -> i32 {
    move |alpha, beta| {
        assert!(
            alpha < beta && (-64..=64).contains(&alpha) && (-64..=64).contains(&beta),
            "({alpha}, {beta})"
        );
        if value <= alpha {
            (value + slack).min(alpha)
        } else if value >= beta {
            (value - slack).max(beta)
        } else {
            value
        }
    }
}

#[test]
fn the_aspiration_window_finds_every_value_from_every_guess() {
    for guess in [-90, -64, -63, -20, 0, 1, 37, 63, 64, 90] {
        for value in -64..=64 {
            for slack in [0, 3] {
                for selective in [false, true] {
                    let mut searches = 0;
                    let mut search = consistent(value, slack);
                    let found = aspiration(guess, selective, |alpha, beta| {
                        searches += 1;
                        search(alpha, beta)
                    });
                    assert_eq!(found, value, "guess {guess}, slack {slack}");
                    assert!(searches <= 10, "guess {guess}, value {value}: {searches} searches");
                }
            }
        }
    }
}

/// Regression: a selective pass whose cuts depend on the window failed low in one
/// window and high in the next for ever, and scoring every move of a game at 22
/// empties (`play --score-moves --exact-empties 22`) never finished.
#[test]
fn regress_a_selective_search_that_fails_both_ways_still_ends() {
    // Fails low in every window from 0 up, high in every window reaching below it:
    // before the fix the windows went (3, 64), (-64, 4), (3, 64), ... for ever.
    let unstable = |alpha: i32, beta: i32| if alpha >= 0 { alpha } else { beta };
    let mut searches = 0;
    aspiration(10, true, |alpha, beta| {
        searches += 1;
        assert!(searches < 100, "still searching in ({alpha}, {beta})");
        unstable(alpha, beta)
    });
    assert!(searches <= 4, "{searches} searches");
}
