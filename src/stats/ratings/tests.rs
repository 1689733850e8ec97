//! Rating tests: exact small cases, recovery and interval coverage on simulated
//! tournaments, the prior, the anchor, connectivity, pair resampling, reproducibility.

use super::*;

/// The players of the simulated tournaments, by true rating; player 0 is the anchor.
const TRUTH: [f64; 5] = [0.0, 100.0, 250.0, 400.0, 600.0];

fn expected_score(first: f64, second: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf((second - first) / 400.0))
}

fn game(first: usize, second: usize, score: f64) -> RatedGame {
    RatedGame {
        first,
        second,
        score,
        pair: None,
    }
}

/// A round robin of `per_pairing` games for each two players of `truth`, colours
/// alternating, each game won or lost by the model's probability.
fn round_robin(truth: &[f64], per_pairing: usize, rng: &mut ChaCha8Rng) -> Vec<RatedGame> {
    let mut games = Vec::new();
    for i in 0..truth.len() {
        for j in i + 1..truth.len() {
            for k in 0..per_pairing {
                let (first, second) = if k % 2 == 0 { (i, j) } else { (j, i) };
                let won = rng.gen_bool(expected_score(truth[first], truth[second]));
                games.push(game(first, second, if won { 1.0 } else { 0.0 }));
            }
        }
    }
    games
}

/// `p0`, `p1`, ...: the names of `count` players.
fn players(count: usize) -> Vec<String> {
    (0..count).map(|player| format!("p{player}")).collect()
}

/// [`fit_ratings`] of players `p0`, `p1`, ...: the ratings alone.
fn fit(count: usize, games: &[RatedGame], options: &RatingOptions) -> Result<Vec<Rating>, RatingError> {
    fit_ratings(&players(count), games, options, &[], &RatingWatch::default()).map(|fit| fit.ratings)
}

/// [`fit_ratings`], with players held, of players `p0`, `p1`, ...: the ratings alone.
fn fit_held(
    count: usize,
    games: &[RatedGame],
    options: &RatingOptions,
    held: &[(usize, f64)],
) -> Result<Vec<Rating>, RatingError> {
    fit_ratings(&players(count), games, options, held, &RatingWatch::default()).map(|fit| fit.ratings)
}

fn options(bootstrap: usize, seed: u64) -> RatingOptions {
    RatingOptions {
        bootstrap,
        seed,
        ..RatingOptions::default()
    }
}

#[test]
fn two_players_match_the_closed_form() {
    // Player 0 scores 2.5 of 4 (a win, a win, a draw, a loss); with the virtual draw
    // the fit sees 3 of 5, so the gap is 400 log10(0.6 / 0.4).
    let games = [game(0, 1, 1.0), game(1, 0, 0.0), game(0, 1, 0.5), game(1, 0, 1.0)];
    let options = RatingOptions {
        anchor: 1,
        anchor_elo: 1000.0,
        ..options(200, 3)
    };
    let ratings = fit(2, &games, &options).unwrap();
    let gap = 400.0 * 1.5f64.log10();
    assert!((ratings[0].elo - (1000.0 + gap)).abs() < 1e-6, "{ratings:?}");
    assert_eq!(ratings[1].elo, 1000.0);
    assert_eq!((ratings[0].games, ratings[0].score), (4, 2.5));
    assert_eq!((ratings[1].games, ratings[1].score), (4, 1.5));
}

#[test]
fn the_prior_shrinks_as_the_module_doc_says() {
    // (wins, games, Elo gap the module doc quotes)
    for (wins, played, quoted) in [(7, 10, 132.0), (70, 100, 146.0), (10, 10, 529.0), (100, 100, 921.0)] {
        let games: Vec<RatedGame> = (0..played)
            .map(|k| game(1, 0, if k < wins { 1.0 } else { 0.0 }))
            .collect();
        let ratings = fit(2, &games, &options(0, 0)).unwrap();
        assert!(
            (ratings[1].elo - quoted).abs() < 1.0,
            "{wins}/{played}: {}",
            ratings[1].elo
        );
        // Without resamples the interval is the likelihood's: around the point, not on it.
        assert!(ratings[1].low < ratings[1].elo - 50.0 && ratings[1].elo + 50.0 < ratings[1].high);
    }
}

#[test]
fn simulated_tournaments_recover_the_truth_and_cover_it() {
    // 200 tournaments of 100 games per pairing (1000 games), 1000 resamples each.
    // A true 95% interval covers 190 of 200 on average (sd 3.1, 1.5 points); 88%
    // (176) is 4.5 sd below that, so an honest interval fails it with odds near
    // 1 in 100000, while one with 85% true coverage fails it nine times in ten.
    // 99% (198) is 2.6 sd above: an interval far too wide fails that side.
    const SEEDS: u64 = 200;
    let mut covered = [0u32; TRUTH.len()];
    let mut error_sum = [0.0; TRUTH.len()];
    for seed in 0..SEEDS {
        let mut rng = ChaCha8Rng::seed_from_u64(derive_seed(0x5eed, seed));
        let games = round_robin(&TRUTH, 100, &mut rng);
        let ratings = fit(TRUTH.len(), &games, &options(1000, seed)).unwrap();
        for (player, (rating, truth)) in ratings.iter().zip(TRUTH).enumerate() {
            if rating.low <= truth && truth <= rating.high {
                covered[player] += 1;
            }
            error_sum[player] += rating.elo - truth;
        }
    }
    let coverage: Vec<f64> = covered.iter().map(|&c| f64::from(c) / SEEDS as f64).collect();
    let bias: Vec<f64> = error_sum.iter().map(|e| e / SEEDS as f64).collect();
    assert_eq!(coverage[0], 1.0);
    for player in 1..TRUTH.len() {
        assert!(
            (0.88..=0.99).contains(&coverage[player]),
            "player {player}: coverage {coverage:?}"
        );
        // The mean of 200 fits has a standard error near 2 Elo; the prior squeezes
        // the ladder toward the anchor by a few more (about 5 Elo here).
        assert!(bias[player].abs() < 20.0, "player {player}: mean error {bias:?}");
    }
}

#[test]
fn a_long_tournament_lands_close_to_the_truth() {
    // 400 games per pairing: the top player's estimate has an sd near 15 Elo.
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let games = round_robin(&TRUTH, 400, &mut rng);
    let ratings = fit(TRUTH.len(), &games, &options(200, 11)).unwrap();
    for (rating, truth) in ratings.iter().zip(TRUTH).skip(1) {
        assert!((rating.elo - truth).abs() < 50.0, "{truth}: {rating:?}");
        let width = rating.high - rating.low;
        assert!(width > 20.0 && width < 100.0, "{truth}: {rating:?}");
        assert!(
            rating.low < rating.elo && rating.elo < rating.high,
            "{truth}: {rating:?}"
        );
    }
}

#[test]
fn the_anchor_sits_exactly_at_its_rating() {
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let games = round_robin(&TRUTH, 20, &mut rng);
    let options = RatingOptions {
        anchor: 2,
        anchor_elo: 1234.5,
        ..options(300, 5)
    };
    let ratings = fit(TRUTH.len(), &games, &options).unwrap();
    assert_eq!(
        (ratings[2].elo, ratings[2].low, ratings[2].high),
        (1234.5, 1234.5, 1234.5)
    );
    for (player, rating) in ratings.iter().enumerate().filter(|(player, _)| *player != 2) {
        assert!(rating.high > rating.low, "player {player}: {rating:?}");
    }
}

#[test]
fn moving_the_anchor_moves_the_gaps_only_a_little() {
    // The prior pulls toward the anchor, so the gaps depend on which player it is,
    // by a few Elo at 100 games per pairing.
    let mut rng = ChaCha8Rng::seed_from_u64(8);
    let games = round_robin(&TRUTH, 100, &mut rng);
    let at_bottom = fit(TRUTH.len(), &games, &options(0, 0)).unwrap();
    let top = RatingOptions {
        anchor: 4,
        anchor_elo: 600.0,
        ..options(0, 0)
    };
    let at_top = fit(TRUTH.len(), &games, &top).unwrap();
    for player in 1..TRUTH.len() {
        let gap = |ratings: &[Rating]| ratings[player].elo - ratings[0].elo;
        let moved = gap(&at_top) - gap(&at_bottom);
        assert!(moved.abs() < 10.0, "player {player}: {at_bottom:?} {at_top:?}");
    }
}

#[test]
fn a_wide_ladder_is_squeezed_only_a_little() {
    // 30 players 50 Elo apart, 24 games per pairing, the bottom one the anchor: the
    // prior's pulls add up along the ladder (the module doc quotes the result).
    let truth: Vec<f64> = (0..30).map(|step| 50.0 * f64::from(step)).collect();
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let games = round_robin(&truth, 24, &mut rng);
    let ratings = fit(truth.len(), &games, &options(0, 0)).unwrap();
    let low_by = 1450.0 - ratings[29].elo;
    assert!((25.0..70.0).contains(&low_by), "{ratings:?}");
    for (rating, truth) in ratings.iter().zip(&truth) {
        assert!((rating.elo - truth).abs() < 80.0, "{truth}: {rating:?}");
    }
}

#[test]
fn a_player_who_won_everything_gets_a_finite_rating_on_top() {
    let mut rng = ChaCha8Rng::seed_from_u64(21);
    let mut games = round_robin(&TRUTH[..3], 20, &mut rng);
    for opponent in 0..3 {
        for k in 0..10 {
            games.push(if k % 2 == 0 {
                game(3, opponent, 1.0)
            } else {
                game(opponent, 3, 0.0)
            });
        }
    }
    let ratings = fit(4, &games, &options(300, 21)).unwrap();
    let top = ratings[3];
    assert!(
        top.elo.is_finite() && top.low.is_finite() && top.high.is_finite(),
        "{top:?}"
    );
    assert!(ratings[..3].iter().all(|r| r.elo < top.elo), "{ratings:?}");
    assert_eq!((top.games, top.score), (30, 30.0));
    // And a player who lost everything lands finite at the bottom.
    let flipped: Vec<RatedGame> = games.iter().map(|g| game(g.first, g.second, 1.0 - g.score)).collect();
    let ratings = fit(4, &flipped, &options(0, 0)).unwrap();
    assert!(ratings[3].elo.is_finite() && ratings[..3].iter().all(|r| r.elo > ratings[3].elo));
}

#[test]
fn players_cut_off_from_the_anchor_are_named() {
    let games = [game(0, 1, 1.0), game(2, 3, 0.5), game(3, 2, 0.0)];
    assert_eq!(
        fit(4, &games, &options(0, 0)),
        Err(RatingError::Disconnected {
            players: vec!["p2".to_string(), "p3".to_string()],
            anchor: "p0".to_string()
        })
    );
    // A player with no games at all is cut off too; from the other side, so is the rest.
    let games = [game(0, 1, 1.0), game(1, 2, 0.0)];
    let error = fit(4, &games, &options(0, 0)).unwrap_err();
    assert_eq!(
        error,
        RatingError::Disconnected {
            players: vec!["p3".to_string()],
            anchor: "p0".to_string()
        }
    );
    assert!(error
        .to_string()
        .starts_with("players p3 have no chain of games to the anchor p0"));
    let lonely = RatingOptions {
        anchor: 3,
        ..options(0, 0)
    };
    assert!(matches!(
        fit(4, &games, &lonely),
        Err(RatingError::Disconnected { players, anchor }) if players == ["p0", "p1", "p2"] && anchor == "p3"
    ));
}

/// Two players of true ratings 0 and 100, `count` colour-swapped pairs in which the
/// opening decides: one draw of the model picks who wins both games.
fn decided_pairs(count: u64, seed: u64, with_ids: bool) -> Vec<RatedGame> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut games = Vec::new();
    for id in 0..count {
        let score = if rng.gen_bool(expected_score(0.0, 100.0)) {
            1.0
        } else {
            0.0
        };
        let pair = with_ids.then_some(id);
        games.push(RatedGame {
            first: 0,
            second: 1,
            score,
            pair,
        });
        games.push(RatedGame {
            first: 1,
            second: 0,
            score: 1.0 - score,
            pair,
        });
    }
    games
}

#[test]
fn pairs_are_resampled_together() {
    // Both games of a pair go the same way, so a pair carries one game's information;
    // resampling pairs sees that (about sqrt 2 wider), resampling games does not.
    let paired = decided_pairs(100, 9, true);
    let loose = decided_pairs(100, 9, false);
    let by_pair = fit(2, &paired, &options(1000, 4)).unwrap();
    let by_game = fit(2, &loose, &options(1000, 4)).unwrap();
    assert_eq!(by_pair[1].elo, by_game[1].elo);
    let width = |r: &Rating| r.high - r.low;
    let ratio = width(&by_pair[1]) / width(&by_game[1]);
    assert!((1.2..1.7).contains(&ratio), "{ratio}: {by_pair:?} {by_game:?}");
    assert_eq!(fit(2, &paired, &options(1000, 4)).unwrap(), by_pair);
}

#[test]
fn the_same_input_and_seed_give_the_same_ratings_on_any_pool() {
    let mut rng = ChaCha8Rng::seed_from_u64(77);
    let games = round_robin(&TRUTH, 12, &mut rng);
    let on = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| fit(TRUTH.len(), &games, &options(300, 77)).unwrap())
    };
    let once = on(1);
    assert_eq!(on(3), once);
    assert_eq!(fit(TRUTH.len(), &games, &options(300, 77)).unwrap(), once);
    // Another seed draws other resamples: same points, other bounds.
    let other = fit(TRUTH.len(), &games, &options(300, 78)).unwrap();
    assert!(other.iter().zip(&once).all(|(a, b)| a.elo == b.elo));
    assert_ne!(other, once);
}

#[test]
fn bad_input_is_refused_with_the_fix() {
    let good = [game(0, 1, 1.0)];
    let cases: Vec<(usize, Vec<RatedGame>, RatingOptions, RatingError)> = vec![
        (2, vec![], options(0, 0), RatingError::NoGames),
        (
            2,
            good.to_vec(),
            RatingOptions {
                anchor: 2,
                ..options(0, 0)
            },
            RatingError::BadAnchor { anchor: 2, players: 2 },
        ),
        (
            2,
            good.to_vec(),
            RatingOptions {
                confidence: 1.0,
                ..options(0, 0)
            },
            RatingError::BadConfidence { confidence: 1.0 },
        ),
        (
            2,
            vec![game(0, 1, 1.0), game(0, 2, 1.0)],
            options(0, 0),
            RatingError::UnknownPlayer {
                index: 1,
                player: 2,
                players: 2,
            },
        ),
        (2, vec![game(1, 1, 0.5)], options(0, 0), RatingError::NoGames),
        (
            2,
            good.to_vec(),
            options(99, 0),
            RatingError::TooFewResamples {
                resamples: 99,
                min: 100,
            },
        ),
        (
            2,
            vec![game(0, 1, 1.0), game(1, 0, 1.5)],
            options(0, 0),
            RatingError::BadScore {
                index: 1,
                first: "p1".to_string(),
                second: "p0".to_string(),
                score: 1.5,
            },
        ),
    ];
    for (players, games, options, expected) in cases {
        let error = fit(players, &games, &options).unwrap_err();
        assert_eq!(error, expected);
        let message = error.to_string();
        assert!(message.contains("; ") && !message.ends_with('.'), "{message}");
        assert!(message.starts_with(|c: char| !c.is_uppercase()), "{message}");
    }
    // NaN is no score and no confidence.
    assert!(matches!(
        fit(2, &[game(0, 1, f64::NAN)], &options(0, 0)),
        Err(RatingError::BadScore { index: 0, .. })
    ));
    let nan = RatingOptions {
        confidence: f64::NAN,
        ..options(0, 0)
    };
    assert!(matches!(fit(2, &good, &nan), Err(RatingError::BadConfidence { .. })));
}

#[test]
fn rating_errors_are_send_and_sync() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<RatingError>();
}

#[test]
fn ladder_positions_read_naturally() {
    let ladder: Vec<(String, f64)> = [
        ("greedy", 905.0),
        ("random", -0.2),
        ("alphabeta:1", 812.0),
        ("reference", 1450.0),
    ]
    .iter()
    .map(|(name, elo)| (name.to_string(), *elo))
    .collect();
    assert_eq!(
        ladder_position(&ladder, 850.0),
        "between alphabeta:1 (812) and greedy (905)"
    );
    assert_eq!(ladder_position(&ladder, 1600.0), "above reference (1450)");
    assert_eq!(ladder_position(&ladder, -50.0), "below random (0)");
    assert_eq!(ladder_position(&ladder, 905.0), "level with greedy (905)");
    assert_eq!(ladder_position(&[], 905.0), "not on the ladder");
    assert_eq!(ladder_position(&ladder, f64::NAN), "not on the ladder");
}

#[test]
fn held_players_stay_at_their_ratings_and_place_the_players_they_met() {
    // 0 the anchor, 1 held at 400, 2 plays only 1 (even), 3 plays only 0 (even), 4
    // plays nobody held: it meets only 2.
    let mut games = Vec::new();
    for k in 0..40 {
        let (a, b) = if k % 2 == 0 { (2, 1) } else { (1, 2) };
        games.push(game(a, b, if k % 4 < 2 { 1.0 } else { 0.0 }));
        games.push(game(3, 0, 0.5));
        games.push(game(4, 2, 0.5));
    }
    let ratings = fit_held(5, &games, &options(200, 3), &[(1, 400.0)]).unwrap();
    assert_eq!((ratings[0].elo, ratings[0].low, ratings[0].high), (0.0, 0.0, 0.0));
    assert_eq!((ratings[1].elo, ratings[1].low, ratings[1].high), (400.0, 400.0, 400.0));
    // Even with the held player, a little below it: its prior draw is at the anchor's level.
    assert!((380.0..400.0).contains(&ratings[2].elo), "{:?}", ratings[2]);
    assert!(ratings[2].low < ratings[2].elo && ratings[2].elo < ratings[2].high);
    assert!(ratings[3].elo.abs() < 1e-6, "{:?}", ratings[3]);
    assert!((330.0..400.0).contains(&ratings[4].elo), "{:?}", ratings[4]);
    // Nothing held: the same fit as without.
    let field = round_robin(&TRUTH, 4, &mut ChaCha8Rng::seed_from_u64(9));
    let plain = fit(5, &field, &options(100, 3)).unwrap();
    assert_eq!(fit_held(5, &field, &options(100, 3), &[]).unwrap(), plain);
    // A player who met no fixed one, directly or through others, is refused.
    let apart = [game(0, 1, 1.0), game(2, 3, 1.0)];
    assert!(matches!(
        fit_held(4, &apart, &options(0, 1), &[(1, 100.0)]),
        Err(RatingError::Disconnected { players, .. }) if players == ["p2", "p3"]
    ));
}

/// Every pair of `count` players meets in one colour-swapped pair, both games won by
/// the higher-numbered player: a legal ladder with no upset at all.
fn swept_ladder(count: usize) -> Vec<RatedGame> {
    let mut games = Vec::new();
    for low in 0..count {
        for high in low + 1..count {
            let pair = Some((low * count + high) as u64);
            games.push(RatedGame {
                first: high,
                second: low,
                score: 1.0,
                pair,
            });
            games.push(RatedGame {
                first: low,
                second: high,
                score: 0.0,
                pair,
            });
        }
    }
    games
}

/// The swept ladder of `count` players fits, anchored at the bottom and in the
/// middle, with every player above the one below it and inside its interval. (The
/// anchor itself is out of order: held at its rating, it pulls the players near it
/// toward it. At the bottom, the players above it are placed by the ones they lost
/// to, far below the anchor, which the prior cannot lift.)
fn check_swept_ladder(count: usize) {
    let games = swept_ladder(count);
    for anchor in [0, count / 2] {
        let options = RatingOptions {
            anchor,
            ..options(100, 1)
        };
        let ratings = fit(count, &games, &options).unwrap_or_else(|e| panic!("{count} players: {e}"));
        let free: Vec<&Rating> = (0..count).filter(|&p| p != anchor).map(|p| &ratings[p]).collect();
        for (player, pair) in free.windows(2).enumerate() {
            assert!(pair[1].elo > pair[0].elo, "{count} players, {player}: {ratings:?}");
        }
        for rating in &ratings {
            assert!(rating.elo.is_finite(), "{rating:?}");
            assert!(rating.low <= rating.elo && rating.elo <= rating.high, "{rating:?}");
        }
    }
}

#[test]
fn a_ladder_where_every_pair_is_swept_converges_with_30_players() {
    check_swept_ladder(30);
}

#[test]
fn a_ladder_where_every_pair_is_swept_converges_with_50_players() {
    check_swept_ladder(50);
}

#[test]
fn a_ladder_where_every_pair_is_swept_converges_with_70_players() {
    check_swept_ladder(70);
}

#[test]
fn a_ladder_where_every_pair_is_swept_converges_with_100_players() {
    check_swept_ladder(100);
}

/// The maximum of `tally` by dense Newton steps (the method this fit replaced), from
/// level: the reference the sparse solve must match.
fn dense_maximum(units: &Units, tally: &Tally, fixed: &[bool]) -> Vec<f64> {
    let free: Vec<usize> = (0..fixed.len()).filter(|&p| !fixed[p]).collect();
    let row = |player: usize| free.iter().position(|&f| f == player);
    let n = free.len();
    let mut theta: Vec<f64> = vec![0.0; fixed.len() + 1];
    for _ in 0..50 {
        let mut matrix = vec![vec![0.0; n + 1]; n];
        for (pairing, &(a, b)) in units.graph.ends.iter().enumerate() {
            let p = 1.0 / (1.0 + (theta[b] - theta[a]).exp());
            let (games, points) = (tally.games[pairing], tally.points[pairing]);
            let (slope, weight) = (points - games * p, games * p * (1.0 - p));
            let (ra, rb) = (row(a), row(b));
            if let Some(i) = ra {
                matrix[i][n] += slope;
                matrix[i][i] += weight;
            }
            if let Some(j) = rb {
                matrix[j][n] -= slope;
                matrix[j][j] += weight;
            }
            if let (Some(i), Some(j)) = (ra, rb) {
                matrix[i][j] -= weight;
                matrix[j][i] -= weight;
            }
        }
        // Gaussian elimination; the information is positive definite.
        for k in 0..n {
            for i in k + 1..n {
                let factor = matrix[i][k] / matrix[k][k];
                let pivot = matrix[k].clone();
                for (x, p) in matrix[i].iter_mut().zip(&pivot).skip(k) {
                    *x -= factor * p;
                }
            }
        }
        let mut step = vec![0.0; n];
        for i in (0..n).rev() {
            let known: f64 = (i + 1..n).map(|j| matrix[i][j] * step[j]).sum();
            step[i] = (matrix[i][n] - known) / matrix[i][i];
        }
        for (i, &player) in free.iter().enumerate() {
            theta[player] += step[i];
        }
    }
    theta
}

#[test]
fn the_sparse_solve_finds_the_dense_newton_maximum() {
    // Ordinary fields, where the method it replaced converged: the same ratings to
    // within the tolerance, for the whole tally and for resamples.
    let truth: Vec<f64> = (0..12).map(|step| 90.0 * f64::from(step)).collect();
    for seed in 0..4 {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut games = round_robin(&truth, 6, &mut rng);
        games.retain(|_| rng.gen_bool(0.7));
        let mut fixed = vec![false; truth.len()];
        fixed[0] = true;
        let units = Units::new(&fixed, &games);
        let everything: Vec<usize> = (0..units.units.len()).collect();
        let picks: Vec<usize> = (0..units.units.len())
            .map(|_| rng.gen_range(0..units.units.len()))
            .collect();
        for chosen in [everything, picks] {
            let tally = units.tally(&chosen);
            let sparse = units.graph.maximise(&tally, vec![0.0; truth.len() + 1]).unwrap();
            let dense = dense_maximum(&units, &tally, &fixed);
            for (s, d) in sparse.iter().zip(&dense) {
                assert!(((s - d) * ELO_PER_NAT).abs() < 1e-5, "{sparse:?}\n{dense:?}");
            }
        }
    }
}

#[test]
fn a_clean_sweep_has_an_interval_around_its_estimate() {
    // 20-0, colours alternating: every resample is 20-0 too, so the bootstrap alone
    // reads "645 [645, 645]".
    let games: Vec<RatedGame> = (0..20)
        .map(|k| if k % 2 == 0 { game(1, 0, 1.0) } else { game(0, 1, 0.0) })
        .collect();
    let ratings = fit(2, &games, &options(1000, 2)).unwrap();
    let top = ratings[1];
    assert!((top.elo - 400.0 * 41f64.log10()).abs() < 1e-6, "{top:?}");
    assert!(top.low < top.elo - 100.0 && top.elo + 100.0 < top.high, "{top:?}");
    // The likelihood interval of 20.5 of 21: [301, 1487] (module doc).
    assert!(
        (top.low - 301.1).abs() < 0.1 && (top.high - 1486.9).abs() < 0.1,
        "{top:?}"
    );
    assert_eq!(
        fit(2, &games, &options(0, 0)).unwrap()[1],
        top,
        "the bootstrap adds nothing here"
    );
}

#[test]
fn the_likelihood_interval_is_where_the_likelihood_falls_by_the_quantile() {
    // Two players, 13-7: the interval's ends are exactly z^2 / 2 below the maximum.
    let games: Vec<RatedGame> = (0..20).map(|k| game(1, 0, if k < 13 { 1.0 } else { 0.0 })).collect();
    let ratings = fit(2, &games, &options(0, 0)).unwrap();
    let likelihood = |elo: f64| {
        let d = elo / ELO_PER_NAT;
        let p = 1.0 / (1.0 + (-d).exp());
        13.5 * p.ln() + 7.5 * (1.0 - p).ln()
    };
    let z = normal_quantile(0.975);
    for bound in [ratings[1].low, ratings[1].high] {
        let drop = likelihood(ratings[1].elo) - likelihood(bound);
        assert!((drop - z * z / 2.0).abs() < 1e-6, "{drop}: {:?}", ratings[1]);
    }
    // And with 1000 resamples, the bootstrap's percentiles are close to it.
    let with = fit(2, &games, &options(1000, 5)).unwrap();
    assert!(with[1].low <= ratings[1].low && with[1].high >= ratings[1].high);
    assert!(
        with[1].high - with[1].low < 1.2 * (ratings[1].high - ratings[1].low),
        "{with:?} {ratings:?}"
    );
}

#[test]
fn normal_quantiles_match_the_tables() {
    for (p, z) in [
        (0.5, 0.0),
        (0.975, 1.959_963_985),
        (0.995, 2.575_829_304),
        (0.841_344_746, 1.0),
        (0.001, -3.090_232_306),
    ] {
        assert!((normal_quantile(p) - z).abs() < 1e-8, "{p}: {}", normal_quantile(p));
    }
}

#[test]
fn games_against_itself_are_left_out_with_a_note() {
    let games = [
        game(0, 1, 1.0),
        game(1, 1, 0.5),
        game(1, 0, 0.5),
        game(1, 1, 1.0),
        game(0, 0, 0.0),
    ];
    let names = ["random", "greedy"];
    let fitted = fit_ratings(&names, &games, &options(100, 0), &[], &RatingWatch::default()).unwrap();
    assert_eq!(fitted.skipped, [1, 3, 4]);
    assert_eq!(
        fitted.notes,
        [
            "left out 2 games of greedy against itself: a player's games against itself say nothing of its rating",
            "left out 1 game of random against itself: a player's games against itself say nothing of its rating",
        ]
    );
    let without = fit_ratings(
        &names,
        &[games[0], games[2]],
        &options(100, 0),
        &[],
        &RatingWatch::default(),
    )
    .unwrap();
    assert_eq!(fitted.ratings, without.ratings);
    assert_eq!((fitted.ratings[1].games, fitted.ratings[1].score), (2, 0.5));
}

#[test]
fn errors_name_the_players() {
    let names = ["random", "greedy", "llm:qwen", "alphabeta:2"];
    let apart = [game(0, 1, 1.0), game(2, 3, 1.0)];
    let error = fit_ratings(&names, &apart, &options(0, 0), &[], &RatingWatch::default()).unwrap_err();
    assert_eq!(
        error.to_string(),
        "players llm:qwen, alphabeta:2 have no chain of games to the anchor random; \
         play games that link them or rate each group on its own"
    );
    let error = fit_ratings(
        &names,
        &[game(0, 1, 1.0), game(2, 1, 2.0)],
        &options(0, 0),
        &[],
        &RatingWatch::default(),
    )
    .unwrap_err();
    assert!(
        error
            .to_string()
            .starts_with("game 1 (llm:qwen against greedy) has score 2"),
        "{error}"
    );
    let stuck = RatingError::NoConvergence {
        iterations: 100,
        players: vec!["greedy".to_string(), "llm:qwen".to_string()],
    };
    assert!(
        stuck.to_string().contains("(still moving: greedy, llm:qwen)"),
        "{stuck}"
    );
}

#[test]
fn a_watch_counts_the_resamples() {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let games = round_robin(&TRUTH, 4, &mut rng);
    let watch = RatingWatch::default();
    for _ in 0..2 {
        fit_ratings(&players(TRUTH.len()), &games, &options(150, 3), &[], &watch).unwrap();
    }
    assert_eq!(watch.resamples_done.load(Ordering::Relaxed), 300);
    assert_eq!(watch.resamples_total.load(Ordering::Relaxed), 300);
}
