//! Pure statistics for othello-arena's tables, the way fishtest keeps its `stats/`:
//! maths only, no I/O, no async runtime, no knowledge of logs or players' specs.
//!
//! - `elo`: the logistic Elo curve, written once ([`elo_to_score`] and its inverse);
//! - `interval`: Wilson's interval of a proportion ([`wilson_interval`]), the normal
//!   interval of a mean ([`mean_interval`]), percentiles;
//! - `tally`: wins, losses and draws from one side's view ([`Tally`]);
//! - `stopping`: sequential stopping of a pairing ([`StopRule`]: GSPRT on the
//!   pentanomial or trinomial model, or a target interval width), and a game's score
//!   from its margin ([`GameScore`]);
//! - `ratings`: the Bradley-Terry fit on the Elo scale with bootstrap intervals,
//!   anchored, with some players held ([`fit_ratings`]); `rating_bench` times it on a
//!   synthetic field of known ratings ([`rating_bench`]);
//! - `intrinsic`: intrinsic ratings from every valued decision ([`fit_choices`] of a
//!   [`ChoiceModel`], [`held_out_log_loss`], [`bootstrap_fits`], the [`EloMap`]);
//! - `sign_test`: the exact two-sided sign test for paired comparisons ([`sign_test`]).
//!
//! The workspace's crate map is in the `game` crate's documentation.

#![deny(missing_docs)]

mod elo;
mod interval;
mod intrinsic;
mod paired;
mod rating_bench;
mod ratings;
mod sign_test;
mod stopping;
mod tally;

pub use elo::elo_to_score;
pub use interval::{mean_and_sd, mean_interval, order_free_sum, percentile, whole, wilson_interval};
pub use intrinsic::{
    bootstrap_fits, fit_choices, fit_mixture, held_out_log_loss, interval_coverage, mixture_held_out_log_loss, Bound,
    Choice, ChoiceFit, ChoiceModel, Coverage, Draws, EloMap, IntrinsicElo, MapError, MapPoint, Mixture, Params,
    E_RANGE, HELD_OUT_FOLDS, S_RANGE,
};
pub use paired::paired_elo;
pub use rating_bench::{rating_bench, RatingBench};
pub use ratings::{
    check_resamples, fit_ratings, ladder_position, RatedGame, Rating, RatingError, RatingFit, RatingOptions,
    RatingWatch, MIN_BOOTSTRAP,
};
pub use sign_test::sign_test;
pub use stopping::{Decision, EloInterval, GameScore, ParseStopRuleError, StopRule, TrialUnit, Trials, Verdict};
pub use tally::Tally;
