//! Valuing moves, shown: the external reference `--reference ext:NAME` resolved and
//! its handshake checked, and a valuing ([`arena::Scoring::value`]) with a line on
//! stderr and a progress line; what is valued and where it is written is the
//! library's ([`arena::MoveValuing`]).

use agent::ModelGame;
use std::path::Path;
use std::sync::Arc;

use anyhow::{bail, Context, Result};

use super::external;
use super::progress::scoring_progress;
use arena::{ExternalEngine, ExternalScorer, Scoring, ScoringWatch};

/// The external reference `--reference` names, an `ext:NAME` of the `--engines` file
/// `engines`, started once here to check its handshake.
pub(super) async fn reference_engine<R: ModelGame>(reference: &str, engines: Option<&Path>) -> Result<ExternalEngine> {
    if !reference.trim().starts_with("ext:") {
        bail!(
            "bad --reference {reference:?}: give an external engine ext:NAME of --engines (our own reference is the default; set it with --exact-empties and --reference-depth)"
        );
    }
    let engine = external::resolve::<R>(reference, "--reference", engines)?;
    ExternalScorer::new(&engine, None).with_context(|| format!("bad --reference {reference}"))?;
    engine
        .identify()
        .await
        .with_context(|| format!("bad --reference {}: its handshake failed", engine.name()))?;
    Ok(engine)
}

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
