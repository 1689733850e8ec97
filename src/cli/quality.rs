//! `--score-moves`: move quality against the reference evaluator, as tables, JSON
//! and `move-scores.jsonl`.

use agent::ModelGame;
use std::fmt::Write as _;
use std::path::Path;
use std::sync::atomic::AtomicBool;

use anyhow::{bail, Context, Result};
use serde_json::{json, Value};

use super::args::ReferenceArgs;
use super::external;
use arena::{ExternalEngine, ExternalScorer, GameToScore, MoveQuality, MoveScorer, Phase, QualityTally, ScoredMove};
use runs::RunEngine;

/// What `--score-moves` scores against: our reference evaluator with its settings,
/// or the external engine `--reference ext:NAME` names (its NBoard `hint` values).
#[derive(Clone, Debug)]
pub(super) struct Scoring {
    settings: ReferenceArgs,
    external: Option<ExternalEngine>,
}

impl Scoring {
    /// The scoring the flags ask for (none without `--score-moves`): `reference`,
    /// when given, is an `ext:NAME` of the `--engines` file `engines`, started once
    /// here to check its handshake.
    pub(super) async fn from_flags<R: ModelGame>(
        score_moves: bool,
        settings: ReferenceArgs,
        reference: Option<&str>,
        engines: Option<&Path>,
    ) -> Result<Option<Scoring>> {
        if !score_moves {
            return Ok(None);
        }
        let Some(reference) = reference else {
            return Ok(Some(Scoring {
                settings,
                external: None,
            }));
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
        Ok(Some(Scoring {
            settings,
            external: Some(engine),
        }))
    }

    /// The external reference as run.json records it (so a resume refuses a changed
    /// table), if there is one.
    pub(super) fn run_engine(&self) -> Option<RunEngine> {
        self.external.as_ref().map(ExternalEngine::run_engine)
    }

    /// The settings as JSON, for run.json and results, for game `R`.
    pub(super) fn to_json<R: ModelGame>(&self) -> Value {
        match &self.external {
            None => json!({
                "exact_empties": self.settings.exact_empties,
                "depth": self.settings.reference_depth,
                "blunder_regret": R::BLUNDER,
                "reference": self.describe::<R>(),
            }),
            Some(engine) => json!({
                "engine": engine.name(),
                "engine_id": engine.identity(),
                "blunder_regret": R::BLUNDER,
                "reference": self.describe::<R>(),
            }),
        }
    }

    /// One line saying how scores were obtained in game `R`.
    pub(super) fn describe<R: ModelGame>(&self) -> String {
        match &self.external {
            None => R::describe_reference(self.settings.exact_empties, self.settings.reference_depth),
            Some(engine) => format!(
                "{}'s NBoard hint values, read as final discs for the mover; exact where it searched to the end",
                engine.name()
            ),
        }
    }
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
    match &scoring.external {
        None => {
            let settings = scoring.settings;
            let build = || MoveScorer::Ours(R::reference(settings.exact_empties, settings.reference_depth));
            super::progress::score_with_progress(games, &build, cores, quiet, stop)
        }
        Some(engine) => {
            let stderr = log_dir.map(|dir| dir.join(format!("engine-{}-scoring.stderr", engine.table().name)));
            let scorer = ExternalScorer::new(engine, stderr)?;
            let build = || MoveScorer::External(Box::new(scorer.clone()));
            let parallel = cores.min(engine.max_in_flight());
            super::progress::score_with_progress(games, &build, parallel, quiet, stop)
        }
    }
}

fn row(out: &mut String, label: &str, t: &QualityTally) {
    let pct = |k: u32| {
        let (low, high) = stats::wilson_interval(k, t.moves);
        let rate = if t.moves == 0 {
            0.0
        } else {
            f64::from(k) / f64::from(t.moves)
        };
        format!("{:5.1}% [{:5.1}, {:5.1}]", 100.0 * rate, 100.0 * low, 100.0 * high)
    };
    let regret = t.mean_regret().map_or_else(
        || format!("{:20}", "-"),
        |(mean, low, high)| format!("{mean:6.2} [{low:5.2}, {high:5.2}]"),
    );
    let _ = writeln!(
        out,
        "  {label:22} {:5}  {:5}  {regret}  {}  {}",
        t.moves,
        t.exact,
        pct(t.best),
        pct(t.blunders)
    );
}

/// The move-quality table of one player of game `R`.
pub(super) fn quality_lines<R: ModelGame>(q: &MoveQuality, out: &mut String) {
    let _ = writeln!(
        out,
        "  {:22} {:>5}  {:>5}  {:20}  {:22}  blunders (regret >= {}) [95% CI]",
        "phase",
        "moves",
        "exact",
        "mean regret [95% CI]",
        "best move [95% CI]",
        R::BLUNDER
    );
    for (phase, tally) in Phase::ALL.iter().zip(&q.by_phase) {
        if tally.moves > 0 {
            row(out, phase.label(), tally);
        }
    }
    row(out, "all", &q.all);
    if q.fallback.moves > 0 {
        let mean = q.fallback.mean_regret().map_or(0.0, |(m, _, _)| m);
        let _ = writeln!(
            out,
            "  not counted above: {} fallback move(s), mean regret {mean:.2}",
            q.fallback.moves
        );
    }
}

/// The heading above a quality table.
pub(super) fn heading<R: ModelGame>(who: &str, scoring: &Scoring) -> String {
    format!(
        "Move quality of {who}, regret in {} against the reference ({}):\n",
        R::MARGIN,
        scoring.describe::<R>()
    )
}
