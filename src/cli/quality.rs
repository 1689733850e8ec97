//! Valuing moves, shown: a valuing ([`arena::Scoring::value`]) with a line on stderr
//! and a progress line; what is valued, by which reference, and where it is written is
//! the library's ([`arena::MoveValuing`]).

use agent::ModelGame;
use std::sync::Arc;

use super::progress::scoring_progress;
use arena::{Scoring, ScoringWatch};

/// The workers a valuing runs on: every CPU core.
pub(super) fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// `value` (a valuing of `games` games of `R` against `scoring`, counting in the watch
/// it is given) with a note on stderr (valuing takes a while) and a progress line on a
/// terminal, both unless `quiet`.
pub(super) fn with_progress<R: ModelGame, T>(
    games: usize,
    scoring: &Scoring,
    quiet: bool,
    value: impl FnOnce(&ScoringWatch) -> T,
) -> T {
    if !quiet {
        eprintln!("scoring moves of {games} game(s) ({})", scoring.describe::<R>());
    }
    let watch = Arc::new(ScoringWatch::default());
    let progress = scoring_progress("scoring moves", watch.clone(), games, !quiet);
    let valued = value(&watch);
    drop(progress);
    valued
}
