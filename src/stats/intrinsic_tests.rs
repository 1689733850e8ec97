//! Tests of the choice models against players with known answers.

use super::*;

/// `n` positions of 2 to 12 moves, gaps in whole discs from 0 to 40 (one best move
/// at 0), from a fixed seed.
fn positions(n: usize, seed: u64) -> Vec<Vec<f64>> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..n)
        .map(|_| {
            let moves = rng.gen_range(2..=12);
            let mut gaps: Vec<f64> = (0..moves).map(|_| f64::from(rng.gen_range(0..=20) * 2)).collect();
            gaps[0] = 0.0;
            gaps
        })
        .collect()
}

/// A player drawn from the model with `params`: games of 30 decisions each.
fn synthetic(params: Params, games: usize, seed: u64) -> Vec<Vec<Choice>> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x5eed);
    positions(games * 30, seed)
        .chunks(30)
        .map(|game| {
            game.iter()
                .map(|gaps| {
                    let weights: Vec<f64> = gaps.iter().map(|g| (-(g / params.s).powf(params.c)).exp()).collect();
                    let mut draw = rng.gen::<f64>() * weights.iter().sum::<f64>();
                    let chosen = weights
                        .iter()
                        .position(|w| {
                            draw -= w;
                            draw <= 0.0
                        })
                        .unwrap_or(gaps.len() - 1);
                    Choice {
                        gaps: gaps.clone(),
                        chosen,
                    }
                })
                .collect()
        })
        .collect()
}

fn interval(fits: &[ChoiceFit], param: impl Fn(&Params) -> f64) -> (f64, f64) {
    let values: Vec<f64> = fits.iter().map(|f| param(&f.params)).collect();
    (
        crate::percentile(&values, 2.5).unwrap(),
        crate::percentile(&values, 97.5).unwrap(),
    )
}

#[test]
fn a_player_that_always_plays_a_best_move_fits_on_the_sharp_bound() {
    let choices: Vec<Choice> = positions(200, 1)
        .into_iter()
        .map(|gaps| Choice { gaps, chosen: 0 })
        .collect();
    for model in ChoiceModel::ALL {
        let fit = fit_choices(&choices, model);
        assert_eq!(fit.at_bound, Some(Bound::Sharpest), "{model:?}: {fit:?}");
        assert_eq!(fit.decisions, 200);
    }
}

#[test]
fn a_uniform_chooser_fits_flat_and_a_map_gives_it_no_number() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let choices: Vec<Choice> = positions(600, 2)
        .into_iter()
        .map(|gaps| {
            let chosen = rng.gen_range(0..gaps.len());
            Choice { gaps, chosen }
        })
        .collect();
    let fit = fit_choices(&choices, ChoiceModel::Softmax);
    assert!(fit.at_bound == Some(Bound::Flattest) || fit.params.s > 100.0, "{fit:?}");
    let map = EloMap::fit(&line_points()).unwrap();
    assert_eq!(map.rate(&fit, &[]).elo, None);
}

#[test]
fn a_player_drawn_from_the_softmax_is_recovered_within_its_interval() {
    let truth = Params { s: 4.0, c: 1.0 };
    let games = synthetic(truth, 16, 3);
    let fit = fit_choices(games.iter().flatten(), ChoiceModel::Softmax);
    let (low, high) = interval(&bootstrap_fits(&games, ChoiceModel::Softmax, 200, 9), |p| p.s);
    assert!(low <= truth.s && truth.s <= high, "{low} {high} {fit:?}");
    assert!(low <= fit.params.s && fit.params.s <= high);
    assert!(high / low < 2.0, "a tight interval from 480 decisions: {low} {high}");
}

#[test]
fn regans_form_is_recovered_and_predicts_its_own_players_better() {
    let truth = Params { s: 8.0, c: 2.5 };
    let games = synthetic(truth, 16, 4);
    let fits = bootstrap_fits(&games, ChoiceModel::Regan, 40, 5);
    let (s_low, s_high) = interval(&fits, |p| p.s);
    let (c_low, c_high) = interval(&fits, |p| p.c);
    assert!(s_low <= truth.s && truth.s <= s_high, "s in [{s_low}, {s_high}]");
    assert!(c_low <= truth.c && truth.c <= c_high, "c in [{c_low}, {c_high}]");
    let regan = held_out_log_loss(&games, ChoiceModel::Regan).unwrap();
    let softmax = held_out_log_loss(&games, ChoiceModel::Softmax).unwrap();
    assert!(regan < softmax, "regan {regan} softmax {softmax}");
}

#[test]
fn held_out_loss_needs_two_games() {
    assert_eq!(held_out_log_loss(&[vec![]], ChoiceModel::Softmax), None);
    assert_eq!(held_out_log_loss(&[vec![], vec![]], ChoiceModel::Softmax), None);
}

#[test]
fn choices_without_information_are_refused() {
    assert!(Choice::from_values(&[1.0, 2.0], 2).is_none());
    assert!(Choice::from_values(&[1.0, f64::NAN], 0).is_none());
    assert!(Choice::from_values(&[], 0).is_none());
    // Every move of one value: any choice is a best one.
    assert!(Choice::from_values(&[-2.0, -2.0], 1).is_none());
    assert!(Choice::is_level(&[0.0, 0.0, 0.0]) && !Choice::is_level(&[0.0, 0.0, 1.0]) && !Choice::is_level(&[4.0]));
}

/// Decisions whose moves all have one value used to be fitted: alone, their flat
/// likelihood put the player on the sharpest bound ("sharper than the strongest
/// rung"); now they are none of the player's choices, and a fit without them is the
/// uniform one with no number.
#[test]
fn level_decisions_are_no_choices_and_do_not_make_a_player_sharp() {
    let level: Vec<Choice> = (0..30).filter_map(|i| Choice::from_values(&[1.0; 5], i % 5)).collect();
    assert!(level.is_empty());
    let fit = fit_choices(&level, ChoiceModel::Softmax);
    assert_ne!(fit.at_bound, Some(Bound::Sharpest), "{fit:?}");
    assert_eq!(fit.decisions, 0);
}

/// Three players on the line `elo = 1000 - 200 ln s`, and a fourth off it.
fn line_points() -> Vec<MapPoint> {
    [(2.0, 0.0), (5.0, 0.0), (20.0, 0.0), (10.0, 60.0)]
        .iter()
        .map(|&(s, off): &(f64, f64)| MapPoint {
            player: format!("s{s}"),
            elo: 1000.0 - 200.0 * s.ln() + off,
            s,
        })
        .collect()
}

#[test]
fn the_map_is_a_falling_line_with_its_residual_and_range() {
    let map = EloMap::fit(&line_points()).unwrap();
    assert!(map.slope < -150.0 && map.slope > -250.0, "{map:?}");
    assert!(map.residual_sd > 10.0 && map.residual_sd < 60.0, "{map:?}");
    assert!(
        (map.s_low - 2.0).abs() < 1e-9 && (map.s_high - 20.0).abs() < 1e-9,
        "{map:?}"
    );
    assert!(!map.holds_for(1.0) && !map.holds_for(30.0) && map.holds_for(7.0));
    let fit = |s: f64| ChoiceFit {
        model: ChoiceModel::Softmax,
        params: Params { s, c: 1.0 },
        log_likelihood: 0.0,
        decisions: 10,
        at_bound: None,
    };
    let rated = map.rate(&fit(5.0), &[fit(4.0), fit(6.0), fit(5.0)]);
    let (elo, low, high) = (rated.elo.unwrap(), rated.low.unwrap(), rated.high.unwrap());
    assert!(low < elo && elo < high);
    assert!(
        high - low >= 2.0 * crate::interval::Z_95 * map.residual_sd,
        "the residual is in the interval"
    );
    assert_eq!(map.rate(&fit(1.5), &[]).elo, None, "sharper than the sharpest rung");
    assert_eq!(map.rate(&fit(40.0), &[]).elo, None, "flatter than the flattest rung");
}

#[test]
fn a_map_is_refused_when_ratings_rise_with_sensitivity_or_points_are_few() {
    let mut points = line_points();
    for p in &mut points {
        p.elo = -p.elo;
    }
    assert!(matches!(EloMap::fit(&points), Err(MapError::NotMonotone { .. })));
    assert_eq!(EloMap::fit(&points[..2]), Err(MapError::TooFewPoints { points: 2 }));
}

#[test]
fn coverage_counts_intervals_that_hold_a_player_drawn_from_the_model() {
    // The map `elo = 1000 - 200 ln s` exactly (no residual) over s in [2, 20]; a
    // player drawn with s = 5 is worth 1000 - 200 ln 5 on it.
    let map = EloMap {
        intercept: 1000.0,
        slope: -200.0,
        residual_sd: 0.0,
        s_low: 2.0,
        s_high: 20.0,
    };
    let games = synthetic(Params { s: 5.0, c: 1.0 }, 16, 6);
    let draws = Draws {
        k: 8,
        samples: 40,
        resamples: 40,
        seed: 7,
    };
    let truth = map.line(5.0);
    let at_truth = interval_coverage(&games, ChoiceModel::Softmax, &map, truth, draws);
    assert_eq!((at_truth.samples, at_truth.rated), (40, 40), "{at_truth:?}");
    assert!(at_truth.held_share().unwrap() >= 0.8, "{at_truth:?}");
    let width = at_truth.mean_width().unwrap();
    assert!(width > 0.0 && width < 400.0, "{width}");
    let far = interval_coverage(&games, ChoiceModel::Softmax, &map, truth + 1000.0, draws);
    assert_eq!(
        (far.rated, far.held),
        (40, 0),
        "no interval holds a rating 1000 Elo off"
    );
    assert_eq!(
        at_truth,
        interval_coverage(&games, ChoiceModel::Softmax, &map, truth, draws),
        "seeded"
    );
    let uniform = synthetic(Params { s: 1e6, c: 1.0 }, 16, 8);
    let flat = interval_coverage(&uniform, ChoiceModel::Softmax, &map, 0.0, draws);
    assert_eq!(
        (flat.samples, flat.rated, flat.held_share()),
        (40, 0, None),
        "no number, no interval"
    );
    assert_eq!(
        interval_coverage(&[], ChoiceModel::Softmax, &map, 0.0, draws),
        Coverage::default()
    );
}

/// A player who blunders (a uniform pick) with chance `e` and otherwise plays the
/// softmax with `s`, over the positions of [`synthetic`].
fn blunderer(e: f64, s: f64, games: usize, seed: u64) -> Vec<Vec<Choice>> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0xb1d);
    synthetic(Params { s, c: 1.0 }, games, seed)
        .into_iter()
        .map(|game| {
            game.into_iter()
                .map(|mut choice| {
                    if rng.gen::<f64>() < e {
                        choice.chosen = rng.gen_range(0..choice.gaps.len());
                    }
                    choice
                })
                .collect()
        })
        .collect()
}

#[test]
fn a_blunderer_is_recovered_by_the_mixture_which_predicts_it_better() {
    let games = blunderer(0.3, 2.0, 32, 11);
    let (fit, ll) = fit_mixture(games.iter().flatten());
    assert!((fit.e - 0.3).abs() < 0.08 && (fit.s - 2.0).abs() < 0.8, "{fit:?}");
    assert!(ll.is_finite() && ll < 0.0);
    let mixture = mixture_held_out_log_loss(&games).unwrap();
    let softmax = held_out_log_loss(&games, ChoiceModel::Softmax).unwrap();
    assert!(mixture < softmax, "mixture {mixture} softmax {softmax}");
}

#[test]
fn a_player_without_blunders_fits_a_mixture_near_no_blunders() {
    let games = synthetic(Params { s: 4.0, c: 1.0 }, 16, 12);
    let (fit, _) = fit_mixture(games.iter().flatten());
    assert!(fit.e < 0.05 && (fit.s - 4.0).abs() < 1.0, "{fit:?}");
    assert_eq!(mixture_held_out_log_loss(&games[..1]), None, "one game is no fold");
}
