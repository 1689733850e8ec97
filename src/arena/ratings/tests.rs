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
    let ratings = fit_ratings(2, &games, &options).unwrap();
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
        let ratings = fit_ratings(2, &games, &options(0, 0)).unwrap();
        assert!(
            (ratings[1].elo - quoted).abs() < 1.0,
            "{wins}/{played}: {}",
            ratings[1].elo
        );
        // Without resamples the interval is the point.
        assert_eq!((ratings[1].low, ratings[1].high), (ratings[1].elo, ratings[1].elo));
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
        let ratings = fit_ratings(TRUTH.len(), &games, &options(1000, seed)).unwrap();
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
    let ratings = fit_ratings(TRUTH.len(), &games, &options(200, 11)).unwrap();
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
    let ratings = fit_ratings(TRUTH.len(), &games, &options).unwrap();
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
    let at_bottom = fit_ratings(TRUTH.len(), &games, &options(0, 0)).unwrap();
    let top = RatingOptions {
        anchor: 4,
        anchor_elo: 600.0,
        ..options(0, 0)
    };
    let at_top = fit_ratings(TRUTH.len(), &games, &top).unwrap();
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
    let ratings = fit_ratings(truth.len(), &games, &options(0, 0)).unwrap();
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
    let ratings = fit_ratings(4, &games, &options(300, 21)).unwrap();
    let top = ratings[3];
    assert!(
        top.elo.is_finite() && top.low.is_finite() && top.high.is_finite(),
        "{top:?}"
    );
    assert!(ratings[..3].iter().all(|r| r.elo < top.elo), "{ratings:?}");
    assert_eq!((top.games, top.score), (30, 30.0));
    // And a player who lost everything lands finite at the bottom.
    let flipped: Vec<RatedGame> = games.iter().map(|g| game(g.first, g.second, 1.0 - g.score)).collect();
    let ratings = fit_ratings(4, &flipped, &options(0, 0)).unwrap();
    assert!(ratings[3].elo.is_finite() && ratings[..3].iter().all(|r| r.elo > ratings[3].elo));
}

#[test]
fn players_cut_off_from_the_anchor_are_named() {
    let games = [game(0, 1, 1.0), game(2, 3, 0.5), game(3, 2, 0.0)];
    assert_eq!(
        fit_ratings(4, &games, &options(10, 0)),
        Err(RatingError::Disconnected {
            players: vec![2, 3],
            anchor: 0
        })
    );
    // A player with no games at all is cut off too; from the other side, so is the rest.
    let games = [game(0, 1, 1.0), game(1, 2, 0.0)];
    let error = fit_ratings(4, &games, &options(10, 0)).unwrap_err();
    assert_eq!(
        error,
        RatingError::Disconnected {
            players: vec![3],
            anchor: 0
        }
    );
    assert!(error
        .to_string()
        .starts_with("players [3] have no chain of games to the anchor 0"));
    let lonely = RatingOptions {
        anchor: 3,
        ..options(10, 0)
    };
    assert!(matches!(
        fit_ratings(4, &games, &lonely),
        Err(RatingError::Disconnected { players, anchor: 3 }) if players == [0, 1, 2]
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
    let by_pair = fit_ratings(2, &paired, &options(1000, 4)).unwrap();
    let by_game = fit_ratings(2, &loose, &options(1000, 4)).unwrap();
    assert_eq!(by_pair[1].elo, by_game[1].elo);
    let width = |r: &Rating| r.high - r.low;
    let ratio = width(&by_pair[1]) / width(&by_game[1]);
    assert!((1.2..1.7).contains(&ratio), "{ratio}: {by_pair:?} {by_game:?}");
    assert_eq!(fit_ratings(2, &paired, &options(1000, 4)).unwrap(), by_pair);
}

#[test]
fn the_same_input_and_seed_give_the_same_ratings_on_any_pool() {
    let mut rng = ChaCha8Rng::seed_from_u64(77);
    let games = round_robin(&TRUTH, 12, &mut rng);
    let on = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| fit_ratings(TRUTH.len(), &games, &options(300, 77)).unwrap())
    };
    let once = on(1);
    assert_eq!(on(3), once);
    assert_eq!(fit_ratings(TRUTH.len(), &games, &options(300, 77)).unwrap(), once);
    // Another seed draws other resamples: same points, other bounds.
    let other = fit_ratings(TRUTH.len(), &games, &options(300, 78)).unwrap();
    assert!(other.iter().zip(&once).all(|(a, b)| a.elo == b.elo));
    assert_ne!(other, once);
}

#[test]
fn bad_input_is_refused_with_the_fix() {
    let good = [game(0, 1, 1.0)];
    let cases: Vec<(usize, Vec<RatedGame>, RatingOptions, RatingError)> = vec![
        (2, vec![], options(10, 0), RatingError::NoGames),
        (
            2,
            good.to_vec(),
            RatingOptions {
                anchor: 2,
                ..options(10, 0)
            },
            RatingError::BadAnchor { anchor: 2, players: 2 },
        ),
        (
            2,
            good.to_vec(),
            RatingOptions {
                confidence: 1.0,
                ..options(10, 0)
            },
            RatingError::BadConfidence { confidence: 1.0 },
        ),
        (
            2,
            vec![game(0, 1, 1.0), game(0, 2, 1.0)],
            options(10, 0),
            RatingError::UnknownPlayer {
                index: 1,
                player: 2,
                players: 2,
            },
        ),
        (
            2,
            vec![game(1, 1, 0.5)],
            options(10, 0),
            RatingError::SelfGame { index: 0, player: 1 },
        ),
        (
            2,
            vec![game(0, 1, 1.0), game(1, 0, 1.5)],
            options(10, 0),
            RatingError::BadScore { index: 1, score: 1.5 },
        ),
    ];
    for (players, games, options, expected) in cases {
        let error = fit_ratings(players, &games, &options).unwrap_err();
        assert_eq!(error, expected);
        let message = error.to_string();
        assert!(message.contains("; ") && !message.ends_with('.'), "{message}");
        assert!(message.starts_with(|c: char| !c.is_uppercase()), "{message}");
    }
    // NaN is no score and no confidence.
    assert!(matches!(
        fit_ratings(2, &[game(0, 1, f64::NAN)], &options(10, 0)),
        Err(RatingError::BadScore { index: 0, .. })
    ));
    let nan = RatingOptions {
        confidence: f64::NAN,
        ..options(10, 0)
    };
    assert!(matches!(
        fit_ratings(2, &good, &nan),
        Err(RatingError::BadConfidence { .. })
    ));
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
    let ratings = fit_ratings_held(5, &games, &options(200, 3), &[(1, 400.0)]).unwrap();
    assert_eq!((ratings[0].elo, ratings[0].low, ratings[0].high), (0.0, 0.0, 0.0));
    assert_eq!((ratings[1].elo, ratings[1].low, ratings[1].high), (400.0, 400.0, 400.0));
    // Even with the held player, a little below it: its prior draw is at the anchor's level.
    assert!((380.0..400.0).contains(&ratings[2].elo), "{:?}", ratings[2]);
    assert!(ratings[2].low < ratings[2].elo && ratings[2].elo < ratings[2].high);
    assert!(ratings[3].elo.abs() < 1e-6, "{:?}", ratings[3]);
    assert!((330.0..400.0).contains(&ratings[4].elo), "{:?}", ratings[4]);
    // Nothing held: the same fit as without.
    let field = round_robin(&TRUTH, 4, &mut ChaCha8Rng::seed_from_u64(9));
    let plain = fit_ratings(5, &field, &options(50, 3)).unwrap();
    assert_eq!(fit_ratings_held(5, &field, &options(50, 3), &[]).unwrap(), plain);
    // A player who met no fixed one, directly or through others, is refused.
    let apart = [game(0, 1, 1.0), game(2, 3, 1.0)];
    assert!(matches!(
        fit_ratings_held(4, &apart, &options(0, 1), &[(1, 100.0)]),
        Err(RatingError::Disconnected { players, .. }) if players == vec![2, 3]
    ));
}
