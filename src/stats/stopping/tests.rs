use super::*;

use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn rule(text: &str) -> StopRule {
    text.parse().unwrap_or_else(|e| panic!("{text}: {e}"))
}

/// Trials from a pentanomial count, each pair of score 1 entered as a win and a loss.
fn pairs(counts: [u32; 5]) -> Trials {
    use GameScore::{Draw, Loss, Win};
    let shapes = [(Loss, Loss), (Loss, Draw), (Win, Loss), (Draw, Win), (Win, Win)];
    let mut trials = Trials::new();
    for (&(first, second), &count) in shapes.iter().zip(&counts) {
        for _ in 0..count {
            trials.add_pair(first, second);
        }
    }
    trials
}

#[test]
fn parses_the_documented_shapes() {
    assert_eq!(
        rule("sprt:0,50"),
        StopRule::Sprt {
            elo0: 0.0,
            elo1: 50.0,
            alpha: 0.05,
            beta: 0.05
        }
    );
    assert_eq!(
        rule("sprt:-10.5,5,0.05,0.1"),
        StopRule::Sprt {
            elo0: -10.5,
            elo1: 5.0,
            alpha: 0.05,
            beta: 0.1
        }
    );
    assert_eq!(
        rule(" sprt: -400 , -200 "),
        StopRule::Sprt {
            elo0: -400.0,
            elo1: -200.0,
            alpha: 0.05,
            beta: 0.05
        }
    );
    assert_eq!(rule("ci:40"), StopRule::Interval { width: 40.0 });
    assert_eq!(rule("ci:2.5e1"), StopRule::Interval { width: 25.0 });
}

#[test]
fn display_round_trips() {
    for text in [
        "sprt:0,50",
        "sprt:-10.5,5,0.05,0.1",
        "sprt:0,50,0.01,0.05",
        "ci:40",
        "ci:0.125",
        "intrinsic:300",
    ] {
        assert_eq!(rule(text).to_string(), text);
        assert_eq!(rule(&rule(text).to_string()), rule(text));
    }
}

proptest! {
    #[test]
    fn display_round_trips_any_valid_rule(
        elo0 in -2000.0f64..1000.0,
        gap in 1e-9f64..1000.0,
        alpha in 1e-6f64..0.4999,
        beta in 1e-6f64..0.4999,
        width in 1e-6f64..1e6,
    ) {
        for rule in [StopRule::Sprt { elo0, elo1: elo0 + gap, alpha, beta }, StopRule::Interval { width }] {
            prop_assert_eq!(rule.to_string().parse::<StopRule>(), Ok(rule));
        }
    }
}

#[test]
fn rejects_bad_specs_with_messages() {
    let cases = [
        ("", "unknown stop rule ``: expected `sprt:ELO0,ELO1[,ALPHA,BETA]`, `ci:WIDTH` or `intrinsic:WIDTH`"),
        ("sprt", "unknown stop rule `sprt`: expected `sprt:ELO0,ELO1[,ALPHA,BETA]`, `ci:WIDTH` or `intrinsic:WIDTH`"),
        ("wald:0,5", "unknown stop rule `wald:0,5`: expected `sprt:ELO0,ELO1[,ALPHA,BETA]`, `ci:WIDTH` or `intrinsic:WIDTH`"),
        ("sprt:0", "stop rule `sprt:0` has 1 numbers: expected `sprt:ELO0,ELO1[,ALPHA,BETA]`"),
        ("sprt:0,5,0.05", "stop rule `sprt:0,5,0.05` has 3 numbers: expected `sprt:ELO0,ELO1[,ALPHA,BETA]`"),
        ("ci:10,20", "stop rule `ci:10,20` has 2 numbers: expected `ci:WIDTH`"),
        ("sprt:zero,5", "stop rule `sprt:zero,5`: ELO0 `zero` is not a finite number; expected `sprt:ELO0,ELO1[,ALPHA,BETA]`"),
        ("sprt:0,inf", "stop rule `sprt:0,inf`: ELO1 `inf` is not a finite number; expected `sprt:ELO0,ELO1[,ALPHA,BETA]`"),
        ("sprt:0,5,NaN,0.05", "stop rule `sprt:0,5,NaN,0.05`: ALPHA `NaN` is not a finite number; expected `sprt:ELO0,ELO1[,ALPHA,BETA]`"),
        ("sprt:0,5,0.05,", "stop rule `sprt:0,5,0.05,`: BETA `` is not a finite number; expected `sprt:ELO0,ELO1[,ALPHA,BETA]`"),
        ("ci:", "stop rule `ci:`: WIDTH `` is not a finite number; expected `ci:WIDTH`"),
        ("sprt:0,2500", "stop rule `sprt:0,2500`: ELO1 (2500) must lie within ±2000 Elo in `sprt:ELO0,ELO1[,ALPHA,BETA]`"),
        ("sprt:-1e9,0", "stop rule `sprt:-1e9,0`: ELO0 (-1000000000) must lie within ±2000 Elo in `sprt:ELO0,ELO1[,ALPHA,BETA]`"),
        ("sprt:5,5", "stop rule `sprt:5,5`: ELO0 (5) must be below ELO1 (5) in `sprt:ELO0,ELO1[,ALPHA,BETA]`"),
        ("sprt:50,0", "stop rule `sprt:50,0`: ELO0 (50) must be below ELO1 (0) in `sprt:ELO0,ELO1[,ALPHA,BETA]`"),
        (
            "sprt:0,5,0,0.05",
            "stop rule `sprt:0,5,0,0.05`: ALPHA (0) must lie strictly between 0 and 0.5 in `sprt:ELO0,ELO1[,ALPHA,BETA]`",
        ),
        (
            "sprt:0,5,0.05,0.5",
            "stop rule `sprt:0,5,0.05,0.5`: BETA (0.5) must lie strictly between 0 and 0.5 in `sprt:ELO0,ELO1[,ALPHA,BETA]`",
        ),
        (
            "sprt:0,5,-0.1,0.05",
            "stop rule `sprt:0,5,-0.1,0.05`: ALPHA (-0.1) must lie strictly between 0 and 0.5 in `sprt:ELO0,ELO1[,ALPHA,BETA]`",
        ),
        ("ci:0", "stop rule `ci:0`: WIDTH (0) must be a positive number of Elo in `ci:WIDTH`"),
        ("ci:-40", "stop rule `ci:-40`: WIDTH (-40) must be a positive number of Elo in `ci:WIDTH`"),
        (
            "intrinsic:0",
            "stop rule `intrinsic:0`: WIDTH (0) must be a positive number of Elo in `intrinsic:WIDTH`",
        ),
        ("intrinsic:", "stop rule `intrinsic:`: WIDTH `` is not a finite number; expected `intrinsic:WIDTH`"),
        ("intrinsic:1,2", "stop rule `intrinsic:1,2` has 2 numbers: expected `intrinsic:WIDTH`"),
    ];
    for (input, message) in cases {
        let error = input.parse::<StopRule>().expect_err(input);
        assert_eq!(error.to_string(), message, "{input}");
    }
    assert_eq!(
        "sprt:50,0".parse::<StopRule>(),
        Err(ParseStopRuleError::EloOrder {
            input: "sprt:50,0".into(),
            elo0: 50.0,
            elo1: 0.0
        })
    );
}

#[test]
fn error_is_send_and_sync() {
    fn check<T: Send + Sync + std::error::Error>() {}
    check::<ParseStopRuleError>();
}

#[test]
fn default_bounds_are_wald_s() {
    let (lower, upper) = rule("sprt:0,5").llr_bounds().unwrap();
    assert!((lower + 2.944_438_979).abs() < 1e-8 && (upper - 2.944_438_979).abs() < 1e-8);
    let (lower, upper) = rule("sprt:0,5,0.05,0.1").llr_bounds().unwrap();
    assert!((lower - (0.1f64 / 0.95).ln()).abs() < 1e-12 && (upper - (0.9f64 / 0.05).ln()).abs() < 1e-12);
    assert_eq!(rule("ci:40").llr_bounds(), None);
}

/// Published LLRs in logistic Elo, from fastchess's unit tests
/// (repository Disservin/fastchess, path app/tests/sprt_test.cpp, the "logistic trinomial"
/// and "logistic pentanomial" cases). fastchess ports fishtest's `LLR_logistic`, the form
/// computed here, and states each LLR to two decimals: tolerance 0.006, the rounding (0.005)
/// plus a little for fastchess's loose root tolerance (1e-3 on `x`).
#[test]
fn llr_matches_published_examples() {
    // fastchess's `Stats(wins, losses, draws)`; our trinomial is [losses, draws, wins].
    let trinomial = [
        ("sprt:0.5,2.5", [21184, 40708, 21404], -1.57),
        ("sprt:0,2", [57030, 106593, 57433], -2.59),
    ];
    for (text, counts, published) in trinomial {
        let llr = rule(text).decide(&Trials::from_trinomial(counts), None).llr.unwrap();
        assert!(
            (llr - published).abs() < 0.006,
            "{text} {counts:?}: {llr} vs {published}"
        );
    }
    // fastchess's `Stats(ll, ld, wl, dd, wd, ww)`; WL and DD both score one point a pair.
    let pentanomial = [
        ("sprt:0.5,2.5", [223, 9863, 20279 + 1000, 10037, 246], -3.07),
        ("sprt:0,2", [871, 26175, 55003 + 980, 26678, 821], -4.98),
    ];
    for (text, counts, published) in pentanomial {
        let decision = rule(text).decide(&pairs(counts), None);
        assert_eq!(decision.unit, TrialUnit::Pair);
        let llr = decision.llr.unwrap();
        assert!(
            (llr - published).abs() < 0.006,
            "{text} {counts:?}: {llr} vs {published}"
        );
        assert_eq!(decision.verdict, Verdict::AcceptH0);
    }
}

/// LLRs from fishtest's own code: `LLRcalc.LLR_logistic(elo0, elo1, counts)` from
/// official-stockfish/fishtest, server/fishtest/stats/LLRcalc.py (commit b8eecff2), run with
/// scipy 1.17 (not published; computed for this test). The large samples are those above and
/// the one in fishtest's server/fishtest/stats/stat_util.py `__main__`; the small ones cover
/// empty counts. Tolerance 1e-6: both solve the same equation, scipy's `brentq` to 2e-12.
#[test]
fn llr_matches_fishtest_code() {
    let cases: [(&str, &[u32], f64); 12] = [
        ("sprt:0.5,2.5", &[21184, 40708, 21404], -1.571_888_792_694_338),
        ("sprt:0,2", &[57030, 106593, 57433], -2.593_024_163_515_815),
        ("sprt:0.5,2.5", &[223, 9863, 21279, 10037, 246], -3.074_126_439_589_081),
        ("sprt:0,2", &[871, 26175, 55983, 26678, 821], -4.978_672_863_444_156),
        ("sprt:-3,1", &[10789, 19328, 33806, 19402, 10543], 2.131_067_811_794_081),
        ("sprt:0,50", &[3, 1, 4], 0.070_172_713_679_360),
        ("sprt:0,50", &[5, 0, 0], -0.771_177_041_245_061),
        ("sprt:0,50", &[0, 0, 7], 0.935_122_236_749_613),
        ("sprt:-400,-200", &[12, 0, 0, 0, 0], -2.153_080_626_288_456),
        ("sprt:-400,-200", &[9, 1, 0, 0, 1], -0.600_165_130_718_653),
        ("sprt:0,50", &[2, 3, 5, 1, 0], -1.695_657_367_256_805),
        ("sprt:0,50", &[0, 0, 6, 0, 0], -0.918_501_395_689_911),
    ];
    for (text, counts, fishtest) in cases {
        let StopRule::Sprt { elo0, elo1, .. } = rule(text) else {
            unreachable!()
        };
        let ours = llr(counts, elo_to_score(elo0), elo_to_score(elo1));
        assert!(
            (ours - fishtest).abs() < 1e-6,
            "{text} {counts:?}: {ours} vs {fishtest}"
        );
    }
}

/// Fishtest's mean and variance approximation (`LLR_alt2` times N), for comparison only.
fn approximate_llr(counts: &[u32], s0: f64, s1: f64) -> f64 {
    let n: f64 = counts.iter().map(|&c| f64::from(c)).sum();
    let mean = counts
        .iter()
        .enumerate()
        .map(|(i, &c)| f64::from(c) * points(i, counts.len()))
        .sum::<f64>()
        / n;
    let variance = counts
        .iter()
        .enumerate()
        .map(|(i, &c)| f64::from(c) * (points(i, counts.len()) - mean).powi(2))
        .sum::<f64>()
        / n;
    n * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * variance)
}

/// On large samples the approximation the module docs mention agrees with the exact LLR.
#[test]
fn approximation_agrees_on_large_samples() {
    let cases: [(&str, &[u32]); 4] = [
        ("sprt:0.5,2.5", &[21184, 40708, 21404]),
        ("sprt:0,2", &[57030, 106593, 57433]),
        ("sprt:0.5,2.5", &[223, 9863, 21279, 10037, 246]),
        ("sprt:0,2", &[871, 26175, 55983, 26678, 821]),
    ];
    for (text, counts) in cases {
        let StopRule::Sprt { elo0, elo1, .. } = rule(text) else {
            unreachable!()
        };
        let (s0, s1) = (elo_to_score(elo0), elo_to_score(elo1));
        let (exact, approximate) = (llr(counts, s0, s1), approximate_llr(counts, s0, s1));
        assert!(
            (exact - approximate).abs() < 5e-4,
            "{text} {counts:?}: {exact} vs {approximate}"
        );
    }
}

/// With only losses the LLR is Wald's for wins against losses, `n ln((1 - s1) / (1 - s0))`,
/// up to the 1e-3 stand-ins for the empty counts.
#[test]
fn losses_alone_give_wald_s_llr() {
    let (s0, s1) = (0.5, elo_to_score(50.0));
    let wald = 5.0 * ((1.0 - s1) / (1.0 - s0)).ln();
    let ours = rule("sprt:0,50")
        .decide(&Trials::from_trinomial([5, 0, 0]), None)
        .llr
        .unwrap();
    assert!((ours - wald).abs() < 1e-3, "{ours} vs {wald}");
    assert!((wald + 0.771_156).abs() < 1e-6, "{wald}");
}

#[test]
fn identical_results_stop_at_wald_s_pace() {
    // Pairs lost 0-2 in a row move the LLR by about ln((1 - s1) / (1 - s0)) each: -0.154 at
    // sprt:0,50 and -0.180 at sprt:-400,-200, so -2.944 is crossed after 20 and 17 pairs.
    for (text, expected) in [("sprt:0,50", 20), ("sprt:-400,-200", 17)] {
        let rule = rule(text);
        let mut trials = Trials::new();
        let mut stopped = None;
        for n in 1..=100 {
            trials.add_pair(GameScore::Loss, GameScore::Loss);
            let decision = rule.decide(&trials, None);
            assert!(decision.llr.unwrap().is_finite());
            if decision.verdict.is_stop() {
                assert_eq!(decision.verdict, Verdict::AcceptH0);
                stopped = Some(n);
                break;
            }
        }
        assert_eq!(stopped, Some(expected), "{text}");
    }
    // All draws: evidence for an even score, against H1, at ln(1 - 2 (s1 - 1/2)) per pair.
    let mut trials = Trials::new();
    for _ in 0..5 {
        trials.add_pair(GameScore::Draw, GameScore::Draw);
    }
    let decision = rule("sprt:0,50").decide(&trials, None);
    assert_eq!(decision.verdict, Verdict::Continue);
    assert!(decision.llr.unwrap() < 0.0, "{decision:?}");
}

#[test]
fn no_verdict_before_min_trials() {
    // Bounds of ±0.04 that the pseudo-trials alone would cross.
    let loose = rule("sprt:-1000,1000,0.49,0.49");
    let mut trials = Trials::new();
    let empty = loose.decide(&trials, None);
    assert_eq!((empty.verdict, empty.trials, empty.elo), (Verdict::Continue, 0, None));
    trials.add_game(GameScore::Win);
    let one = loose.decide(&trials, None);
    assert!(one.llr.unwrap() >= one.upper.unwrap(), "{one:?}");
    assert_eq!(one.verdict, Verdict::Continue);
    trials.add_game(GameScore::Win);
    assert_eq!(loose.decide(&trials, None).verdict, Verdict::AcceptH1);

    let wide = rule("ci:100000");
    let mut trials = Trials::new();
    trials.add_game(GameScore::Draw);
    assert_eq!(wide.decide(&trials, None).verdict, Verdict::Continue);
    trials.add_game(GameScore::Draw);
    assert_eq!(wide.decide(&trials, None).verdict, Verdict::Narrow);
}

#[test]
fn an_unpaired_game_turns_every_game_into_a_trial() {
    let mut trials = Trials::new();
    trials.add_pair(GameScore::Win, GameScore::Draw);
    trials.add_pair(GameScore::Loss, GameScore::Win);
    assert_eq!(
        (trials.unit(), trials.count(), trials.games(), trials.pairs()),
        (TrialUnit::Pair, 2, 4, 2)
    );
    assert_eq!(trials.pentanomial(), [0, 0, 1, 1, 0]);
    trials.add_game(GameScore::Loss);
    assert_eq!((trials.unit(), trials.count(), trials.games()), (TrialUnit::Game, 5, 5));
    assert_eq!(trials.trinomial(), [2, 1, 2]);
    assert_eq!(Trials::from_trinomial([1, 2, 3]).count(), 6);
    assert_eq!(Trials::new().unit(), TrialUnit::Game);
}

#[test]
fn game_scores_from_margins() {
    assert_eq!(GameScore::from_margin(-64), GameScore::Loss);
    assert_eq!(GameScore::from_margin(0), GameScore::Draw);
    assert_eq!(GameScore::from_margin(2), GameScore::Win);
    assert_eq!(
        [GameScore::Loss, GameScore::Draw, GameScore::Win].map(GameScore::points),
        [0.0, 0.5, 1.0]
    );
}

#[test]
fn decision_serializes_for_the_log() {
    let decision = rule("sprt:0,50").decide(&Trials::from_trinomial([3, 1, 4]), None);
    let json = serde_json::to_value(decision).unwrap();
    let mut keys: Vec<&str> = json.as_object().unwrap().keys().map(String::as_str).collect();
    keys.sort_unstable();
    assert_eq!(keys, ["elo", "llr", "lower", "trials", "unit", "upper", "verdict"]);
    assert_eq!(json["verdict"], "continue");
    assert_eq!(json["unit"], "game");
    assert_eq!(json["trials"], 8);
    assert!(json["elo"]["low"].as_f64().unwrap() < json["elo"]["high"].as_f64().unwrap());

    let json = serde_json::to_value(rule("ci:40").decide(&Trials::new(), None)).unwrap();
    assert_eq!(
        json,
        serde_json::json!({ "verdict": "continue", "trials": 0, "unit": "game" })
    );
    assert_eq!(serde_json::to_value(Verdict::AcceptH1).unwrap(), "accept_h1");
    assert_eq!(
        serde_json::to_value(rule("sprt:0,5")).unwrap(),
        serde_json::json!({ "rule": "sprt", "elo0": 0.0, "elo1": 5.0, "alpha": 0.05, "beta": 0.05 })
    );
}

#[test]
fn elo_interval_by_hand() {
    // 3 losses, 1 draw, 4 wins: the estimate is elo(4.5 / 8). With k = 1.959964² / 2 =
    // 1.920729 pseudo-games at each end: N' = 11.841459, m' = 6.420729 / N' = 0.542225,
    // v' = (3 m'² + (0.5 - m')² + 4 (1 - m')² + k (m'² + (1 - m')²)) / N' = 0.227105,
    // so m' ± 1.959964 sqrt(v' / N') = 0.542225 ± 0.271431 = [0.270794, 0.813655].
    let elo = rule("ci:40")
        .decide(&Trials::from_trinomial([3, 1, 4]), None)
        .elo
        .unwrap();
    let to_elo = |s: f64| -400.0 * (1.0 / s - 1.0).log10();
    assert!((elo.estimate - to_elo(0.5625)).abs() < 1e-9, "{elo:?}");
    assert!(
        (elo.low - to_elo(0.270_794)).abs() < 0.01 && (elo.high - to_elo(0.813_655)).abs() < 0.01,
        "{elo:?}"
    );
    // Clamped to [0.001, 0.999]: 400 * log10(999) = 1199.83 Elo.
    assert!((clamped_elo(1.0) - 1199.83).abs() < 0.01 && (clamped_elo(-0.2) + 1199.83).abs() < 0.01);
}

/// The true strength of A against B in simulated games.
#[derive(Clone, Copy, Debug)]
struct Model {
    /// Logistic Elo difference, A minus B.
    elo: f64,
    /// Share of games drawn.
    draws: f64,
    /// Each opening favours its first game's colour by a uniform amount in `[-bias, bias]` of
    /// expected score, and the second game (colours swapped) by the opposite: pairs cancel it.
    bias: f64,
}

impl Model {
    /// A game with expected score `expected` for A.
    fn game(&self, rng: &mut ChaCha8Rng, expected: f64) -> GameScore {
        let win = expected - self.draws / 2.0;
        assert!(
            win >= 0.0 && win + self.draws <= 1.0,
            "{self:?} cannot score {expected}"
        );
        let u: f64 = rng.gen();
        if u < win {
            GameScore::Win
        } else if u < win + self.draws {
            GameScore::Draw
        } else {
            GameScore::Loss
        }
    }

    /// Adds one trial: a pair from one opening, or a single game.
    fn play(&self, rng: &mut ChaCha8Rng, unit: TrialUnit, trials: &mut Trials) {
        let score = elo_to_score(self.elo);
        let tilt = rng.gen_range(-self.bias..=self.bias);
        match unit {
            TrialUnit::Pair => {
                let first = self.game(rng, score + tilt);
                let second = self.game(rng, score - tilt);
                trials.add_pair(first, second);
            }
            TrialUnit::Game => {
                let game = self.game(rng, score + tilt);
                trials.add_game(game);
            }
        }
    }

    /// Variance of one trial's score (a pair's scaled to [0, 1]) at expected score `score`:
    /// a game's is `s(1-s) - draws/4`; a pair's halves that and subtracts half the variance of
    /// the tilt (`bias²/3`), which its two games share with opposite signs.
    fn trial_variance(&self, score: f64, unit: TrialUnit) -> f64 {
        let game = score * (1.0 - score) - self.draws / 4.0;
        match unit {
            TrialUnit::Pair => (game - self.bias.powi(2) / 3.0) / 2.0,
            TrialUnit::Game => game,
        }
    }
}

/// Plays until `rule` stops (or `cap` trials): the last decision and the one before it.
fn run(rule: StopRule, model: Model, unit: TrialUnit, rng: &mut ChaCha8Rng, cap: u32) -> (Decision, Option<Decision>) {
    let mut trials = Trials::new();
    let mut previous = None;
    loop {
        model.play(rng, unit, &mut trials);
        let decision = rule.decide(&trials, None);
        if decision.verdict.is_stop() || decision.trials >= cap {
            return (decision, previous);
        }
        previous = Some(decision);
    }
}

/// z at one-sided level 0.05.
const Z_95_ONE_SIDED: f64 = 1.644_853_626_951_472;

/// Runs the SPRT `RUNS` times with the truth at ELO0 and at ELO1, and checks both error rates
/// and that the average run is far shorter than a fixed-length test with the same errors.
///
/// Margin: with `RUNS` runs an error rate whose true value is `alpha` has standard deviation
/// `sqrt(alpha (1 - alpha) / RUNS)` (0.0069 at 1000 runs); we allow `alpha` plus three of
/// those (0.071), which a correct test fails about once in a thousand reseedings. Wald's
/// bounds are approximate for a sequential test (overshoot pulls the error rates down, the
/// estimated nuisance parameters push them up); the printed rates stay near nominal.
fn check_error_rates(text: &str, draws: f64, bias: f64, max_ratio: f64) {
    const RUNS: u32 = 1000;
    let rule = rule(text);
    let StopRule::Sprt {
        elo0,
        elo1,
        alpha,
        beta,
    } = rule
    else {
        unreachable!()
    };
    let (s0, s1) = (elo_to_score(elo0), elo_to_score(elo1));
    for unit in [TrialUnit::Pair, TrialUnit::Game] {
        for (truth, wanted, nominal) in [(elo0, Verdict::AcceptH0, alpha), (elo1, Verdict::AcceptH1, beta)] {
            let model = Model {
                elo: truth,
                draws,
                bias,
            };
            let mut rng = ChaCha8Rng::seed_from_u64(truth.to_bits() ^ unit as u64);
            let (mut wrong, mut total) = (0u32, 0u64);
            for _ in 0..RUNS {
                let (decision, _) = run(rule, model, unit, &mut rng, 100_000);
                wrong += u32::from(decision.verdict != wanted);
                total += u64::from(decision.trials);
            }
            let rate = f64::from(wrong) / f64::from(RUNS);
            let average = total as f64 / f64::from(RUNS);
            // A one-sided z-test of s0 against s1 with the same alpha and beta.
            let sigma = model.trial_variance((s0 + s1) / 2.0, unit).sqrt();
            let fixed = ((Z_95_ONE_SIDED + Z_95_ONE_SIDED) * sigma / (s1 - s0)).powi(2);
            println!(
                "{text} {unit:?}s, true Elo {truth}: wrong verdict {rate:.3} (nominal {nominal}), \
                 average {average:.1} trials, fixed-length test {fixed:.0} trials"
            );
            let margin = 3.0 * (nominal * (1.0 - nominal) / f64::from(RUNS)).sqrt();
            assert!(
                rate <= nominal + margin,
                "{text} {unit:?} at {truth}: error rate {rate}"
            );
            assert!(
                average < max_ratio * fixed,
                "{text} {unit:?} at {truth}: {average} trials vs {fixed}"
            );
        }
    }
}

#[test]
fn sprt_error_rates_near_an_even_score() {
    check_error_rates("sprt:0,50", 0.05, 0.3, 0.6);
}

#[test]
fn sprt_error_rates_far_from_an_even_score() {
    // An LLM against a strong engine: few wins, so small and lopsided samples.
    check_error_rates("sprt:-400,-200", 0.02, 0.05, 1.0);
}

#[test]
fn interval_rule_stops_once_narrow_enough() {
    const RUNS: u32 = 200;
    let width = 100.0;
    let rule = StopRule::Interval { width };
    let model = Model {
        elo: 100.0,
        draws: 0.05,
        bias: 0.3,
    };
    let score = elo_to_score(model.elo);
    // Delta method: the full width is 2 * z * sigma / sqrt(N) * d(elo)/d(score).
    let slope = 400.0 / (std::f64::consts::LN_10 * score * (1.0 - score));
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    for unit in [TrialUnit::Pair, TrialUnit::Game] {
        let expected = (2.0 * Z_95 * model.trial_variance(score, unit).sqrt() * slope / width).powi(2);
        let (mut total, mut covered) = (0u64, 0u32);
        for _ in 0..RUNS {
            let (decision, previous) = run(rule, model, unit, &mut rng, 100_000);
            let elo = decision.elo.unwrap();
            assert_eq!(decision.verdict, Verdict::Narrow);
            assert!(elo.width() < width, "{decision:?}");
            let previous = previous.unwrap();
            assert!(previous.elo.unwrap().width() >= width, "{previous:?}");
            assert!(
                (0.5..2.0).contains(&(f64::from(decision.trials) / expected)),
                "{decision:?} vs {expected}"
            );
            total += u64::from(decision.trials);
            covered += u32::from(elo.low <= model.elo && model.elo <= elo.high);
        }
        let average = total as f64 / f64::from(RUNS);
        let coverage = f64::from(covered) / f64::from(RUNS);
        println!("ci:{width} {unit:?}s, true Elo 100: average {average:.1} trials (delta method {expected:.1}), coverage {coverage:.3}");
        // Binomial sd of the coverage at 0.95 over 200 runs is 0.015: allow four.
        assert!(coverage >= 0.89, "{unit:?}: coverage {coverage}");
    }
    // A sweep is never narrow early: its interval runs up to the +1200 clamp.
    let mut trials = Trials::new();
    for _ in 0..200 {
        trials.add_game(GameScore::Win);
    }
    let decision = rule.decide(&trials, None);
    assert_eq!(decision.verdict, Verdict::Continue);
    assert!(decision.elo.unwrap().width() > 400.0, "{decision:?}");
}

#[test]
fn the_intrinsic_rule_follows_the_intrinsic_interval_it_is_given() {
    let intrinsic = rule("intrinsic:300");
    assert!(intrinsic.is_intrinsic() && intrinsic.llr_bounds().is_none());
    let mut trials = Trials::new();
    trials.add_pair(GameScore::Win, GameScore::Win);
    trials.add_pair(GameScore::Win, GameScore::Win);
    let narrow = EloInterval {
        estimate: 400.0,
        low: 300.0,
        high: 590.0,
    };
    let wide = EloInterval { high: 610.0, ..narrow };
    // No number yet, or an interval too wide: play on, whatever the results say.
    assert_eq!(intrinsic.decide(&trials, None).verdict, Verdict::Continue);
    assert_eq!(intrinsic.decide(&trials, Some(wide)).verdict, Verdict::Continue);
    let decision = intrinsic.decide(&trials, Some(narrow));
    assert_eq!(
        (decision.verdict, decision.intrinsic),
        (Verdict::IntrinsicNarrow, Some(narrow))
    );
    // Not before MIN_TRIALS pairs.
    let mut one = Trials::new();
    one.add_pair(GameScore::Win, GameScore::Loss);
    assert_eq!(intrinsic.decide(&one, Some(narrow)).verdict, Verdict::Continue);
    // The other rules ignore an intrinsic interval and do not log one.
    let ci = rule("ci:100000").decide(&trials, Some(narrow));
    assert_eq!((ci.verdict, ci.intrinsic), (Verdict::Narrow, None));
}
