//! `--score-moves`: the [`Scoring`] the flags ask for, and the scoring run with a
//! progress line; the tables are [`arena::MoveQuality::text`]'s.

use agent::ModelGame;
use std::path::Path;
use std::sync::atomic::AtomicBool;

use anyhow::{bail, Context, Result};

use super::args::ReferenceArgs;
use super::external;
pub(super) use arena::Scoring;
use arena::{ExternalScorer, GameToScore, MoveQuality, ScoredMove};

/// The reference that values decisions when `--score-moves` is not given (eval's and
/// tournament's default valuing): the shipped intrinsic calibration's, as `rate`'s, so
/// that the values are of the kind its map was fitted on (and cheap: exact only from 14
/// empties).
pub(super) const VALUING: ReferenceArgs = ReferenceArgs {
    exact_empties: runs::CALIBRATION_EXACT_EMPTIES,
    reference_depth: runs::CALIBRATION_DEPTH,
};

/// The scoring the flags ask for (none without `--score-moves`): `reference`, when
/// given, is an `ext:NAME` of the `--engines` file `engines`, started once here to
/// check its handshake.
pub(super) async fn from_flags<R: ModelGame>(
    score_moves: bool,
    settings: ReferenceArgs,
    reference: Option<&str>,
    engines: Option<&Path>,
) -> Result<Option<Scoring>> {
    let (exact, depth) = (settings.exact_empties, settings.reference_depth);
    let Some(reference) = reference.filter(|_| score_moves) else {
        return Ok(score_moves.then(|| Scoring::ours(exact, depth)));
    };
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
    Ok(Some(Scoring::external(exact, depth, engine)))
}

/// Scores `games` of game `R` (on every CPU core with our reference, on as many
/// processes as an external one's `max_in_flight` allows, their stderr appended to
/// `log_dir`), with a note on stderr (scoring takes a while) and a progress line on a
/// terminal; stops before the next move once `stop` is set.
pub(super) fn score<R: ModelGame>(
    games: &[GameToScore<'_, R>],
    scoring: &Scoring,
    quiet: bool,
    stop: Option<&AtomicBool>,
    log_dir: Option<&Path>,
) -> Result<Vec<ScoredMove>> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    if !quiet {
        eprintln!("scoring moves of {} game(s) ({})", games.len(), scoring.describe::<R>());
    }
    let (build, parallel) = scoring.scorers::<R>(cores, log_dir)?;
    super::progress::score_with_progress(games, &*build, parallel, quiet, stop)
}

/// The move-quality table of one player of game `R`.
pub(super) fn quality_lines<R: ModelGame>(q: &MoveQuality, out: &mut String) {
    out.push_str(&q.text(R::BLUNDER));
}

/// The heading above a quality table.
pub(super) fn heading<R: ModelGame>(who: &str, scoring: &Scoring) -> String {
    scoring.heading::<R>(who)
}
