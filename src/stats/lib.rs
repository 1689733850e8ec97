//! Pure statistics for othello-arena's tables, the way fishtest keeps its `stats/`:
//! maths only, no I/O, no async runtime, no knowledge of logs or players' specs.
//!
//! - [`elo`]: the logistic Elo curve, written once ([`elo_to_score`], [`score_to_elo`]);
//! - [`interval`]: Wilson's interval of a proportion, the normal interval of a mean,
//!   percentiles;
//! - [`tally`]: wins, losses and draws from one side's view ([`Tally`]);
//! - [`stopping`]: sequential stopping of a pairing (GSPRT on the pentanomial or
//!   trinomial model, or a target interval width), and a game's score from its margin
//!   ([`GameScore`]);
//! - [`ratings`]: the Bradley-Terry fit on the Elo scale with bootstrap intervals,
//!   anchored or with some players held;
//! - [`sign_test()`]: the exact two-sided sign test for paired comparisons.
//!
//! The workspace's crate map is in the `game` crate's documentation.

#![deny(missing_docs)]

pub mod elo;
pub mod interval;
pub mod ratings;
pub mod sign_test;
pub mod stopping;
pub mod tally;

pub use elo::{elo_to_score, score_to_elo, ELO_PER_NAT};
pub use interval::{mean_and_sd, mean_interval, percentile, whole, wilson_interval, Z_95};
pub use ratings::{
    check_resamples, fit_ratings, fit_ratings_held, ladder_position, RatedGame, Rating, RatingError, RatingFit,
    RatingOptions, RatingWatch, MIN_BOOTSTRAP,
};
pub use sign_test::sign_test;
pub use stopping::{Decision, EloInterval, GameScore, ParseStopRuleError, StopRule, TrialUnit, Trials, Verdict};
pub use tally::Tally;
