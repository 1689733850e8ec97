//! Sequential stopping rules for a pairing of two players, A and B: stop a match as soon
//! as its games answer the question asked, instead of after a fixed number of games.
//!
//! Two rules, chosen with `--stop`:
//!
//! - `sprt:ELO0,ELO1[,ALPHA,BETA]`: the generalized sequential probability ratio test
//!   (GSPRT) as fishtest runs it in *logistic* Elo (A minus B); fastchess has the same test
//!   as its `logistic` model, OpenBench runs the family in normalized Elo. H0 is
//!   "A is ELO0 stronger than B", H1 is "A is ELO1 stronger"; `ALPHA` bounds the chance of
//!   accepting H1 when H0 holds and `BETA` the chance of accepting H0 when H1 holds (both
//!   0.05 by default). The test stops when the log-likelihood ratio leaves
//!   `[ln(BETA / (1 - ALPHA)), ln((1 - BETA) / ALPHA)]` (±2.944 by default).
//! - `ci:WIDTH`: stop once the 95% interval of the Elo difference is narrower than `WIDTH`
//!   Elo (its full width, high minus low: `ci:40` asks for about ±20).
//! - `intrinsic:WIDTH`: stop once A's intrinsic rating (the quality of its valued
//!   decisions, mapped to Elo by a calibration: `stats::EloMap`) has a 95% interval
//!   narrower than `WIDTH` Elo. The caller values the decisions and rates them; the rule
//!   only compares the width.
//!
//! A cap on the number of games is the caller's business; these rules only say whether
//! the evidence so far is enough.
//!
//! # Trials
//!
//! The unit of evidence is a *trial*. When games come in colour-swapped pairs (the same
//! opening played twice, each player once with each colour) a trial is the pair: its score
//! for A is 0, ½, 1, 1½ or 2 points, kept as five counts (the *pentanomial*) and scaled to
//! 0, ¼, ½, ¾, 1 so that a trial's mean score is a per-game score. Pairs cancel most of the
//! opening's bias, so their variance is lower and the test needs fewer games. Otherwise a
//! trial is one game: loss, draw or win, scored 0, ½, 1 (the *trinomial*). [`Trials`] keeps
//! both: if a single unpaired game is ever added, pairing is lost and every game, including
//! those of pairs, counts as a trial of its own.
//!
//! # The log-likelihood ratio
//!
//! The GSPRT compares the best fit of each hypothesis to the observed distribution of trial
//! scores, with no model of how draws come about. For `p̂_i`, the share of the `N` trials
//! scoring `a_i`, and `s0`, `s1` the expected scores at ELO0 and ELO1, with
//! `score(elo) = 1 / (1 + 10^(-elo / 400))`:
//!
//! ```text
//! p_i(s) = p̂_i / (1 + x_s (a_i - s))     where x_s solves  Σ p̂_i (a_i - s) / (1 + x_s (a_i - s)) = 0
//! LLR    = N Σ p̂_i ln(p_i(s1) / p_i(s0))
//! ```
//!
//! `p(s)` is the distribution of mean score `s` most likely to have produced the sample
//! (M. Van den Bergh, "Comments on normalized Elo", Proposition 1.1). This is what fishtest
//! computes (`LLR_logistic` in `server/fishtest/stats/LLRcalc.py`, with `MLE_expected` and
//! `secular`) and what fastchess ports; we solve for `x_s` by Newton's method kept inside its
//! bracket `(-1/(1-s), 1/s)`, where the sum falls from +∞ to -∞.
//!
//! Fishtest also has the mean and variance approximation
//! `LLR ≈ N (s1 - s0)(2m - s0 - s1) / (2v)` (`LLR_alt2`, for sample mean `m` and variance
//! `v`). On large samples the two agree to 5e-4, but on the small, lopsided samples of an LLM
//! against an engine the approximation trusts a sample variance that is far too small. In
//! simulation (`sprt:-400,-200`, single games, 1000 runs with the truth at -200) it accepted
//! H0 in 22% of runs when guarded against zero variance, 10% with a lost and a won
//! pseudo-game added, and 62% with fishtest's 1e-3 stand-ins below, against 4.8% for the form
//! above (nominal 5%). Hence the exact form.
//!
//! # Small and degenerate samples
//!
//! Like fishtest, an empty count is replaced by 1e-3 of a trial before the LLR. This does not
//! pretend such results happened (they weigh 1e-3 in the sum) but lets `p(s)` give them the
//! probability a mean of `s` needs, so the LLR is finite for any sample and any hypotheses
//! inside (0, 1): ten lost games in a row give about `10 ln((1 - s1) / (1 - s0))`, Wald's
//! test of wins against losses. A sample that only ever scored the same therefore still moves the LLR,
//! at Wald's pace, not at once. Neither rule stops before [`MIN_TRIALS`] trials, so that a
//! single result cannot cross bounds made narrow by `ALPHA` and `BETA` near 0.5.
//!
//! # The Elo interval
//!
//! The estimate is `elo(m)` for the observed mean score `m`, with
//! `elo(s) = -400 * log10(1/s - 1)` after clamping `s` to `[0.001, 0.999]` as fishtest's
//! `stat_util.elo` does (so ±1200 Elo at most). The interval is the normal one,
//! `m' ± 1.959964 * sqrt(v' / N')`, mapped through `elo`, where `m'`, `v'`, `N'` are the mean,
//! variance and count after adding `1.959964² / 2` (about 1.92) pseudo-trials at each extreme,
//! a lost and a won trial. For games without draws that is the Agresti-Coull interval
//! (`(wins + 1.92) / (games + 3.84)` at its centre), which keeps its coverage on small samples
//! and never has zero width: without it, a 10-0 sweep would have variance 0 and would look
//! "narrow" after its first game. A long enough sweep still narrows once both ends pass the
//! ±1200 clamp.

use std::fmt;
use std::str::FromStr;

use serde::Serialize;

use crate::elo::{elo_to_score, score_to_elo};
use crate::interval::Z_95;
use game::othello::{Color, Outcome};

/// The default `ALPHA` and `BETA` of `sprt:ELO0,ELO1`.
pub const DEFAULT_ERROR_RATE: f64 = 0.05;

/// Neither rule stops before this many trials have been observed.
pub const MIN_TRIALS: u32 = 2;

/// ELO0 and ELO1 must lie within ±this: a score beyond it is within 1e-5 of 0 or 1.
pub const MAX_ELO: f64 = 2000.0;

/// Fishtest's stand-in for an empty count in the LLR, in trials.
const EMPTY_COUNT: f64 = 1e-3;

/// Pseudo-trials added at each extreme for the interval: `z² / 2`, as Agresti and Coull do.
pub(crate) const INTERVAL_PRIOR: f64 = Z_95 * Z_95 / 2.0;

/// Scores are clamped to `[SCORE_CLAMP, 1 - SCORE_CLAMP]` before turning into Elo.
const SCORE_CLAMP: f64 = 1e-3;

/// The shape of a `--stop` value, for error messages.
const SHAPE: &str = "`sprt:ELO0,ELO1[,ALPHA,BETA]`, `ci:WIDTH` or `intrinsic:WIDTH`";
const SPRT_SHAPE: &str = "`sprt:ELO0,ELO1[,ALPHA,BETA]`";
const CI_SHAPE: &str = "`ci:WIDTH`";
const INTRINSIC_SHAPE: &str = "`intrinsic:WIDTH`";

/// When to stop playing games between A and B, parsed from `--stop`. The module docs of
/// `arena/stopping.rs` give the formulas, their sources and the small-sample rules.
///
/// ```
/// use stats::StopRule;
///
/// let rule: StopRule = "sprt:0,50".parse().unwrap();
/// assert_eq!(rule, StopRule::Sprt { elo0: 0.0, elo1: 50.0, alpha: 0.05, beta: 0.05 });
/// assert_eq!(rule.to_string(), "sprt:0,50");
/// assert_eq!("ci:40".parse::<StopRule>().unwrap(), StopRule::Interval { width: 40.0 });
/// assert_eq!("intrinsic:300".parse::<StopRule>().unwrap(), StopRule::Intrinsic { width: 300.0 });
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(tag = "rule", rename_all = "snake_case")]
pub enum StopRule {
    /// The GSPRT of H0 "A is `elo0` stronger than B" against H1 "A is `elo1` stronger", in
    /// logistic Elo, with error rates `alpha` (accepting H1 under H0) and `beta` (accepting H0
    /// under H1).
    Sprt {
        /// Elo difference (A minus B) of the null hypothesis.
        elo0: f64,
        /// Elo difference (A minus B) of the alternative; above `elo0`.
        elo1: f64,
        /// Largest chance of accepting H1 when H0 holds, in (0, 0.5).
        alpha: f64,
        /// Largest chance of accepting H0 when H1 holds, in (0, 0.5).
        beta: f64,
    },
    /// Stop once the 95% interval of the Elo difference is narrower than `width` Elo.
    Interval {
        /// Full width of the interval (high minus low) to reach, in Elo; positive.
        width: f64,
    },
    /// Stop once A's intrinsic rating has a 95% interval narrower than `width` Elo.
    Intrinsic {
        /// Full width of the interval (high minus low) to reach, in Elo; positive.
        width: f64,
    },
}

impl StopRule {
    /// The LLR bounds `(ln(beta / (1 - alpha)), ln((1 - beta) / alpha))` of an SPRT; `None`
    /// for the interval rule.
    pub fn llr_bounds(&self) -> Option<(f64, f64)> {
        match *self {
            StopRule::Sprt { alpha, beta, .. } => Some(((beta / (1.0 - alpha)).ln(), ((1.0 - beta) / alpha).ln())),
            StopRule::Interval { .. } | StopRule::Intrinsic { .. } => None,
        }
    }

    /// Whether the rule follows A's intrinsic rating, which the caller must then give
    /// to [`StopRule::decide`].
    pub fn is_intrinsic(&self) -> bool {
        matches!(self, StopRule::Intrinsic { .. })
    }

    /// Whether the trials so far are enough to stop, with the numbers behind the answer;
    /// `intrinsic` is A's intrinsic rating so far (`None` when it has no number yet),
    /// which only the intrinsic rule reads.
    ///
    /// ```
    /// use stats::{GameScore, StopRule, Trials, Verdict};
    ///
    /// let rule: StopRule = "sprt:0,50".parse().unwrap();
    /// let mut trials = Trials::new();
    /// for _ in 0..20 {
    ///     trials.add_pair(GameScore::Loss, GameScore::Loss);
    /// }
    /// let decision = rule.decide(&trials, None);
    /// assert_eq!(decision.verdict, Verdict::AcceptH0);
    /// assert!(decision.llr.unwrap() <= decision.lower.unwrap());
    /// ```
    pub fn decide(&self, trials: &Trials, intrinsic: Option<EloInterval>) -> Decision {
        let observed = trials.count();
        let counts = trials.counts();
        let elo = (observed > 0).then(|| elo_interval(counts));
        let enough = observed >= MIN_TRIALS;
        let mut decision = Decision {
            verdict: Verdict::Continue,
            llr: None,
            lower: None,
            upper: None,
            elo,
            intrinsic: intrinsic.filter(|_| self.is_intrinsic()),
            trials: observed,
            unit: trials.unit(),
        };
        match *self {
            StopRule::Sprt { elo0, elo1, .. } => {
                let (lower, upper) = self.llr_bounds().expect("an SPRT has LLR bounds");
                let llr = llr(counts, elo_to_score(elo0), elo_to_score(elo1));
                decision.verdict = if enough && llr <= lower {
                    Verdict::AcceptH0
                } else if enough && llr >= upper {
                    Verdict::AcceptH1
                } else {
                    Verdict::Continue
                };
                decision.llr = Some(llr);
                decision.lower = Some(lower);
                decision.upper = Some(upper);
            }
            StopRule::Interval { width } => {
                if enough && elo.is_some_and(|elo| elo.width() < width) {
                    decision.verdict = Verdict::Narrow;
                }
            }
            StopRule::Intrinsic { width } => {
                if enough && decision.intrinsic.is_some_and(|elo| elo.width() < width) {
                    decision.verdict = Verdict::IntrinsicNarrow;
                }
            }
        }
        decision
    }
}

impl fmt::Display for StopRule {
    /// `sprt:ELO0,ELO1` (with `,ALPHA,BETA` unless both are the default), `ci:WIDTH` or
    /// `intrinsic:WIDTH`; parsing the text gives the same rule back.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            StopRule::Sprt {
                elo0,
                elo1,
                alpha,
                beta,
            } => {
                write!(f, "sprt:{elo0},{elo1}")?;
                if alpha != DEFAULT_ERROR_RATE || beta != DEFAULT_ERROR_RATE {
                    write!(f, ",{alpha},{beta}")?;
                }
                Ok(())
            }
            StopRule::Interval { width } => write!(f, "ci:{width}"),
            StopRule::Intrinsic { width } => write!(f, "intrinsic:{width}"),
        }
    }
}

impl FromStr for StopRule {
    type Err = ParseStopRuleError;

    /// Parses `sprt:ELO0,ELO1`, `sprt:ELO0,ELO1,ALPHA,BETA`, `ci:WIDTH` or
    /// `intrinsic:WIDTH`. Numbers must be
    /// finite, `ELO0 < ELO1` within ±`MAX_ELO` (2000), `ALPHA` and `BETA` within (0, 0.5) and
    /// `WIDTH` positive.
    fn from_str(input: &str) -> Result<Self, Self::Err> {
        let (kind, rest) = input
            .trim()
            .split_once(':')
            .ok_or_else(|| ParseStopRuleError::Unknown {
                input: input.to_owned(),
            })?;
        let numbers: Vec<&str> = rest.split(',').collect();
        match kind.trim() {
            "sprt" => parse_sprt(input, &numbers),
            "ci" => parse_width(input, &numbers, CI_SHAPE).map(|width| StopRule::Interval { width }),
            "intrinsic" => parse_width(input, &numbers, INTRINSIC_SHAPE).map(|width| StopRule::Intrinsic { width }),
            _ => Err(ParseStopRuleError::Unknown {
                input: input.to_owned(),
            }),
        }
    }
}

/// The finite number `text`, the `field` of a stop rule of `shape`.
fn rule_number(input: &str, field: &'static str, text: &str, shape: &'static str) -> Result<f64, ParseStopRuleError> {
    text.trim()
        .parse::<f64>()
        .ok()
        .filter(|x| x.is_finite())
        .ok_or_else(|| ParseStopRuleError::Number {
            input: input.to_owned(),
            field,
            text: text.to_owned(),
            shape,
        })
}

/// `sprt:ELO0,ELO1[,ALPHA,BETA]` from the numbers after `sprt:`.
fn parse_sprt(input: &str, numbers: &[&str]) -> Result<StopRule, ParseStopRuleError> {
    let owned = || input.to_owned();
    if numbers.len() != 2 && numbers.len() != 4 {
        return Err(ParseStopRuleError::Arity {
            input: owned(),
            found: numbers.len(),
            shape: SPRT_SHAPE,
        });
    }
    let number = |field, text| rule_number(input, field, text, SPRT_SHAPE);
    let elo0 = number("ELO0", numbers[0])?;
    let elo1 = number("ELO1", numbers[1])?;
    let (alpha, beta) = if numbers.len() == 4 {
        (number("ALPHA", numbers[2])?, number("BETA", numbers[3])?)
    } else {
        (DEFAULT_ERROR_RATE, DEFAULT_ERROR_RATE)
    };
    for (field, value) in [("ELO0", elo0), ("ELO1", elo1)] {
        if value.abs() > MAX_ELO {
            return Err(ParseStopRuleError::EloRange {
                input: owned(),
                field,
                value,
            });
        }
    }
    if elo0 >= elo1 {
        return Err(ParseStopRuleError::EloOrder {
            input: owned(),
            elo0,
            elo1,
        });
    }
    for (field, value) in [("ALPHA", alpha), ("BETA", beta)] {
        if !(value > 0.0 && value < 0.5) {
            return Err(ParseStopRuleError::ErrorRate {
                input: owned(),
                field,
                value,
            });
        }
    }
    Ok(StopRule::Sprt {
        elo0,
        elo1,
        alpha,
        beta,
    })
}

/// The `WIDTH` of `ci:WIDTH` or `intrinsic:WIDTH` (the rule's `shape`) from the numbers
/// after the colon.
fn parse_width(input: &str, numbers: &[&str], shape: &'static str) -> Result<f64, ParseStopRuleError> {
    if numbers.len() != 1 {
        return Err(ParseStopRuleError::Arity {
            input: input.to_owned(),
            found: numbers.len(),
            shape,
        });
    }
    let width = rule_number(input, "WIDTH", numbers[0], shape)?;
    if width <= 0.0 {
        return Err(ParseStopRuleError::Width {
            input: input.to_owned(),
            width,
            shape,
        });
    }
    Ok(width)
}

/// Why a `--stop` value did not parse; each variant keeps the whole input.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ParseStopRuleError {
    /// Not `sprt:...`, `ci:...` or `intrinsic:...`.
    #[error("unknown stop rule `{input}`: expected {SHAPE}")]
    Unknown {
        /// The text given.
        input: String,
    },
    /// The wrong count of comma-separated numbers.
    #[error("stop rule `{input}` has {found} numbers: expected {shape}")]
    Arity {
        /// The text given.
        input: String,
        /// How many comma-separated fields it has.
        found: usize,
        /// The shape expected.
        shape: &'static str,
    },
    /// A field that is not a finite number.
    #[error("stop rule `{input}`: {field} `{text}` is not a finite number; expected {shape}")]
    Number {
        /// The text given.
        input: String,
        /// The field's name in the shape: `ELO0`, `ELO1`, `ALPHA`, `BETA` or `WIDTH`.
        field: &'static str,
        /// The field's text.
        text: String,
        /// The shape expected.
        shape: &'static str,
    },
    /// `ELO0` or `ELO1` beyond ±`MAX_ELO` (2000).
    #[error("stop rule `{input}`: {field} ({value}) must lie within ±{MAX_ELO} Elo in {SPRT_SHAPE}")]
    EloRange {
        /// The text given.
        input: String,
        /// `ELO0` or `ELO1`.
        field: &'static str,
        /// The value read.
        value: f64,
    },
    /// `ELO0` is not below `ELO1`.
    #[error("stop rule `{input}`: ELO0 ({elo0}) must be below ELO1 ({elo1}) in {SPRT_SHAPE}")]
    EloOrder {
        /// The text given.
        input: String,
        /// The `ELO0` read.
        elo0: f64,
        /// The `ELO1` read.
        elo1: f64,
    },
    /// `ALPHA` or `BETA` outside (0, 0.5).
    #[error("stop rule `{input}`: {field} ({value}) must lie strictly between 0 and 0.5 in {SPRT_SHAPE}")]
    ErrorRate {
        /// The text given.
        input: String,
        /// `ALPHA` or `BETA`.
        field: &'static str,
        /// The value read.
        value: f64,
    },
    /// `WIDTH` not positive.
    #[error("stop rule `{input}`: WIDTH ({width}) must be a positive number of Elo in {shape}")]
    Width {
        /// The text given.
        input: String,
        /// The width read.
        width: f64,
        /// The shape expected.
        shape: &'static str,
    },
}

/// One game's result from A's view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum GameScore {
    /// A lost: 0 points.
    Loss,
    /// Equal discs: ½ point.
    Draw,
    /// A won: 1 point.
    Win,
}

impl GameScore {
    /// The result of a game that A finished `margin` discs ahead (negative when behind).
    pub fn from_margin(margin: i32) -> GameScore {
        match Outcome::from_black_margin(margin) {
            Outcome::Win(Color::Black) => GameScore::Win,
            Outcome::Win(Color::White) => GameScore::Loss,
            Outcome::Draw => GameScore::Draw,
        }
    }

    /// A's points: 0, 0.5 or 1.
    pub fn points(self) -> f64 {
        match self {
            GameScore::Loss => 0.0,
            GameScore::Draw => 0.5,
            GameScore::Win => 1.0,
        }
    }

    /// A's points doubled: 0, 1 or 2; the index into trinomial counts.
    fn half_points(self) -> usize {
        match self {
            GameScore::Loss => 0,
            GameScore::Draw => 1,
            GameScore::Win => 2,
        }
    }
}

/// What one trial is: a colour-swapped pair of games, or a single game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TrialUnit {
    /// Pentanomial trials: pairs scoring 0, ½, 1, 1½ or 2 points for A.
    Pair,
    /// Trinomial trials: games scoring 0, ½ or 1.
    Game,
}

/// The results of A against B so far, counted per pair and per game.
///
/// Pairs are the trials while every game came in a pair ([`Trials::add_pair`]); after the
/// first [`Trials::add_game`] every game counts as a trial, those of pairs included.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Trials {
    /// Pairs by A's points ×2: `[0, ½, 1, 1½, 2]` points, i.e. LL, LD, WL+DD, WD, WW.
    pentanomial: [u32; 5],
    /// All games, those of pairs included, as `[losses, draws, wins]` for A.
    trinomial: [u32; 3],
    /// Games added one at a time with [`Trials::add_game`].
    unpaired: u32,
}

impl Trials {
    /// No results yet.
    pub fn new() -> Trials {
        Trials::default()
    }

    /// Counts of single games, `[losses, draws, wins]` for A, as trinomial trials.
    pub fn from_trinomial(counts: [u32; 3]) -> Trials {
        Trials {
            pentanomial: [0; 5],
            trinomial: counts,
            unpaired: counts.iter().sum(),
        }
    }

    /// Adds a colour-swapped pair: A's results in its first and second game.
    pub fn add_pair(&mut self, first: GameScore, second: GameScore) {
        self.pentanomial[first.half_points() + second.half_points()] += 1;
        self.trinomial[first.half_points()] += 1;
        self.trinomial[second.half_points()] += 1;
    }

    /// Adds a game that has no partner; from now on every game is a trial.
    pub fn add_game(&mut self, score: GameScore) {
        self.trinomial[score.half_points()] += 1;
        self.unpaired += 1;
    }

    /// Whether trials are pairs or games: pairs once at least one pair and no single game
    /// has been added.
    pub fn unit(&self) -> TrialUnit {
        if self.unpaired == 0 && self.pairs() > 0 {
            TrialUnit::Pair
        } else {
            TrialUnit::Game
        }
    }

    /// Trials so far, in [`Trials::unit`]s.
    pub fn count(&self) -> u32 {
        match self.unit() {
            TrialUnit::Pair => self.pairs(),
            TrialUnit::Game => self.games(),
        }
    }

    /// Games so far, paired or not.
    pub fn games(&self) -> u32 {
        self.trinomial.iter().sum()
    }

    /// Pairs so far.
    pub fn pairs(&self) -> u32 {
        self.pentanomial.iter().sum()
    }

    /// The counts of the trials: the pentanomial for pairs, the trinomial for games.
    fn counts(&self) -> &[u32] {
        match self.unit() {
            TrialUnit::Pair => &self.pentanomial,
            TrialUnit::Game => &self.trinomial,
        }
    }

    /// Pairs by A's points: `[0, ½, 1, 1½, 2]`.
    pub fn pentanomial(&self) -> [u32; 5] {
        self.pentanomial
    }

    /// All games by A's result: `[losses, draws, wins]`.
    pub fn trinomial(&self) -> [u32; 3] {
        self.trinomial
    }
}

/// What a stop rule says about the trials so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Play on.
    Continue,
    /// The SPRT accepts H0 (A is about ELO0 stronger, or less).
    AcceptH0,
    /// The SPRT accepts H1 (A is about ELO1 stronger, or more).
    AcceptH1,
    /// The interval rule is met: the 95% Elo interval is narrower than asked.
    Narrow,
    /// The intrinsic rule is met: A's intrinsic rating's 95% interval is narrower than
    /// asked.
    IntrinsicNarrow,
}

impl Verdict {
    /// Whether to stop playing.
    pub fn is_stop(self) -> bool {
        self != Verdict::Continue
    }
}

/// An Elo difference (A minus B) with its 95% interval.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct EloInterval {
    /// `elo(mean score)`.
    pub estimate: f64,
    /// Lower end of the 95% interval.
    pub low: f64,
    /// Upper end of the 95% interval.
    pub high: f64,
}

impl EloInterval {
    /// `high - low`.
    pub fn width(&self) -> f64 {
        self.high - self.low
    }
}

/// A stop rule's answer with the numbers behind it, for the run log.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Decision {
    /// Stop or go on, and why.
    pub verdict: Verdict,
    /// The log-likelihood ratio of H1 against H0 (SPRT only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub llr: Option<f64>,
    /// The LLR at or below which H0 is accepted (SPRT only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lower: Option<f64>,
    /// The LLR at or above which H1 is accepted (SPRT only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub upper: Option<f64>,
    /// The Elo difference and its 95% interval; `None` before the first trial.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub elo: Option<EloInterval>,
    /// A's intrinsic rating and its 95% interval (the intrinsic rule only; `None` while
    /// it has no number).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub intrinsic: Option<EloInterval>,
    /// Trials observed (pairs or games, see `unit`), pseudo-trials not included.
    pub trials: u32,
    /// What a trial is.
    pub unit: TrialUnit,
}

/// Logistic Elo of a score, clamped to `[SCORE_CLAMP, 1 - SCORE_CLAMP]` (±1200 Elo).
pub(crate) fn clamped_elo(score: f64) -> f64 {
    score_to_elo(score.clamp(SCORE_CLAMP, 1.0 - SCORE_CLAMP))
}

/// Score of trial outcome `i` of `len`, evenly spaced on [0, 1].
fn points(i: usize, len: usize) -> f64 {
    i as f64 / (len - 1) as f64
}

/// A count as it enters the LLR: empty ones become [`EMPTY_COUNT`].
fn weight(count: u32) -> f64 {
    if count == 0 {
        EMPTY_COUNT
    } else {
        f64::from(count)
    }
}

/// The GSPRT log-likelihood ratio of mean score `s1` against `s0` for trials counted by
/// outcome in `counts` (see the module docs), with empty counts set to [`EMPTY_COUNT`].
fn llr(counts: &[u32], s0: f64, s1: f64) -> f64 {
    let (x0, x1) = (tilt(counts, s0), tilt(counts, s1));
    // N Σ p̂_i ln(p_i(s1) / p_i(s0)), where N p̂_i is the (regularized) count and
    // p_i(s1) / p_i(s0) = (1 + x0 (a_i - s0)) / (1 + x1 (a_i - s1)).
    counts
        .iter()
        .enumerate()
        .map(|(i, &c)| {
            let a = points(i, counts.len());
            weight(c) * ((1.0 + x0 * (a - s0)).ln() - (1.0 + x1 * (a - s1)).ln())
        })
        .sum()
}

/// The `x` with `Σ p̂_i d_i / (1 + x d_i) = 0`, `d_i = a_i - s`, for `counts` regularized as in
/// [`llr`] and `0 < s < 1`. The sum falls from +∞ to -∞ across `(-1/(1-s), 1/s)`, where every
/// `1 + x d_i` is positive; Newton steps that leave the shrinking bracket are replaced by
/// bisection.
fn tilt(counts: &[u32], s: f64) -> f64 {
    let (mut low, mut high) = (-1.0 / (1.0 - s), 1.0 / s);
    let mut x = 0.0;
    for _ in 0..200 {
        let (mut value, mut slope) = (0.0, 0.0);
        for (i, &c) in counts.iter().enumerate() {
            let d = points(i, counts.len()) - s;
            let q = 1.0 + x * d;
            value += weight(c) * d / q;
            slope -= weight(c) * d * d / (q * q);
        }
        if value == 0.0 {
            return x;
        }
        if value > 0.0 {
            low = x;
        } else {
            high = x;
        }
        let newton = x - value / slope;
        let next = if newton > low && newton < high {
            newton
        } else {
            low + (high - low) / 2.0
        };
        if (next - x).abs() <= 1e-15 * (1.0 + x.abs()) {
            return next;
        }
        x = next;
    }
    x
}

/// `elo(m)` for the observed mean `m`, and the normal 95% interval of the mean after adding
/// [`INTERVAL_PRIOR`] trials at each extreme, mapped to Elo. Needs one trial.
fn elo_interval(counts: &[u32]) -> EloInterval {
    let len = counts.len();
    let observed: f64 = counts.iter().map(|&c| f64::from(c)).sum();
    let sum: f64 = counts
        .iter()
        .enumerate()
        .map(|(i, &c)| f64::from(c) * points(i, len))
        .sum();
    let total = observed + 2.0 * INTERVAL_PRIOR;
    let mean = (sum + INTERVAL_PRIOR) / total;
    let squares: f64 = counts
        .iter()
        .enumerate()
        .map(|(i, &c)| f64::from(c) * (points(i, len) - mean).powi(2))
        .sum::<f64>()
        + INTERVAL_PRIOR * (mean.powi(2) + (1.0 - mean).powi(2));
    let half = Z_95 * (squares / total / total).sqrt();
    EloInterval {
        estimate: clamped_elo(sum / observed),
        low: clamped_elo(mean - half),
        high: clamped_elo(mean + half),
    }
}

#[cfg(test)]
mod tests;
