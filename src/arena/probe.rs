//! Position probes: a player is asked for one move in each labelled position (no
//! game), and each answer is graded against the labels: seed 000's test_inference
//! (correct / wrong / invalid / error), plus the move's regret.

use agent::ModelGame;
use futures_util::StreamExt;
use std::path::Path;

use serde::Serialize;
use serde_json::{json, Value};

use super::connection::Connection;
use super::lifecycle::{Run, RunError, Start};
use super::player::{Action, Played};
use super::player_spec::PlayerSpec;
use super::rules_probe::Ask;
use super::suite_file::CannotRead;
use agent::AgentConfig;
use agent::MoveContext;
use engines::lab::{read_positions, LabelledPosition};
use game::derive_seed;
use llm::error_chain;
use record::lines::{DATA_FILE_CAP, USER_LINE_CAP};
use record::{AgentDecision, AnswerKind, GameLog, GameWriter, MoveSource};
use runs::{AgentStats, CsvTable, GradeCounts, MeanRegret, ProbeResults, ProbeRun, RunFile, RunKind, RunResults};
use stats::{mean_interval, wilson_interval};

/// Why a probe run stopped.
#[derive(Debug, thiserror::Error)]
pub enum ProbeError {
    /// Every request failed: nothing was measured.
    #[error("every probe failed; the first: {0}")]
    AllFailed(String),
    /// The probe's log cannot be written.
    #[error(transparent)]
    Log(#[from] record::LogError),
    /// The run folder cannot be written.
    #[error(transparent)]
    Run(#[from] RunError),
}

/// A positions file (`--positions`) that cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum PositionsError {
    /// The file cannot be read.
    #[error("bad --positions: make one with `positions generate`")]
    Read(#[source] CannotRead),
    /// An entry is not a labelled position (the error names the line).
    #[error(transparent)]
    Entry(#[from] engines::lab::PositionsFileError),
}

/// The labelled positions of the file at `path` (`--positions`, written by `positions
/// generate`), and their game; a bad entry is named by its line ([`read_positions`]).
pub fn read_positions_file(path: &Path) -> Result<(game::Game, Vec<LabelledPosition>), PositionsError> {
    let text = record::lines::read_file(path, USER_LINE_CAP, DATA_FILE_CAP).map_err(|source| {
        PositionsError::Read(CannotRead {
            what: "--positions".to_string(),
            file: path.to_path_buf(),
            source,
        })
    })?;
    Ok(read_positions(&path.display().to_string(), &text)?)
}

/// What a probe asks and of whom, as its run.json records it.
pub struct ProbePlan<'a> {
    /// The model server or fleet.
    pub connection: &'a Connection,
    /// The agent's settings.
    pub agent: &'a AgentConfig,
    /// The positions file, and how many positions it holds.
    pub positions: (&'a Path, usize),
    /// Probes at once.
    pub parallel: usize,
    /// The seed of every probe.
    pub seed: u64,
    /// What each position asks.
    pub ask: Ask,
}

/// The probe's run folder (in `dir`, else under logs/), with its run.json.
pub fn open_probe_run(dir: Option<&Path>, plan: &ProbePlan<'_>) -> Result<Run, RunError> {
    let label = format!("probe-{}", plan.agent.model);
    let run = Run::open("probe", Start::New { dir, label: &label })?;
    run.record(&RunFile::new(RunKind::Probe(ProbeRun {
        backend: plan.connection.backend.describe(),
        fleet: Some(plan.connection.fleet_json()),
        agent: plan.agent.clone(),
        positions_file: plan.positions.0.display().to_string(),
        positions: plan.positions.1,
        parallel: plan.parallel,
        seed: plan.seed,
        ask: (plan.ask != Ask::Move).then(|| plan.ask.to_string()),
    })))?;
    Ok(run)
}

/// The log every probe of a run writes (`probe.jsonl` in its folder).
pub(crate) fn probe_log(run: &Run) -> Result<GameLog, record::LogError> {
    GameLog::create(&run.path().join("probe.jsonl"))
}

/// [`run_probe`] in the run folder of `run`: logged to probe.jsonl, its table written
/// to probe.csv and its [`probe_summary`] to results.json; the summary and the table
/// come back.
pub async fn probe_run<R: ModelGame>(
    run: &Run,
    player: &PlayerSpec<R>,
    positions: &[LabelledPosition],
    parallel: usize,
    seed: u64,
    report: &(dyn Fn(&ProbeResult) + Sync),
) -> Result<(ProbeResults, String), ProbeError> {
    let log = probe_log(run)?;
    let results = run_probe(player, positions, parallel, seed, Some(&log), report).await;
    if results.iter().all(|r| r.grade == Grade::Error) {
        if let Some(failed) = results.first() {
            let first = failed.error.as_deref().unwrap_or("unknown error");
            return Err(ProbeError::AllFailed(first.to_string()));
        }
    }
    let csv = probe_csv(positions, &results);
    run.folder().write_text("probe.csv", &csv).map_err(RunError::from)?;
    let summary = probe_summary(positions, &results, run.path());
    run.finish(&RunResults::Probe(&summary))?;
    Ok((summary, csv))
}

/// How one answer is graded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Grade {
    /// The player's own move matches the label.
    Correct,
    /// The player's own move, not the labelled one.
    Wrong,
    /// No legal answer: the fallback moved.
    Invalid,
    /// The request failed (a harness or server failure).
    Error,
}

/// One probed position.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ProbeResult {
    /// Position number in the file (from 1).
    pub index: usize,
    /// Empty squares.
    pub empties: u32,
    /// The move played (`None` on error).
    #[serde(rename = "move")]
    pub mv: Option<String>,
    /// Where it came from.
    pub source: Option<MoveSource>,
    /// How the model's answer was read.
    pub answer_kind: Option<AnswerKind>,
    /// Against the reference's best moves.
    pub grade: Grade,
    /// Against the teacher's move, when the position has one.
    pub teacher_grade: Option<Grade>,
    /// Best score minus the move's score (`None` on error).
    pub regret: Option<f64>,
    /// Whether the scores are exact.
    pub exact: bool,
    /// Invalid answers before the move.
    pub invalid_answers: u32,
    /// The failure, on error.
    pub error: Option<String>,
    /// The agent's decision (`None` on error), which the probe's statistics
    /// ([`AgentStats`](runs::AgentStats)) count.
    #[serde(skip)]
    pub agent: Option<AgentDecision>,
}

fn grade<R: ModelGame>(played: &Played<R>, labelled: &[String]) -> Grade {
    if played.source == MoveSource::Fallback {
        Grade::Invalid
    } else if labelled.contains(&played.mv.to_string()) {
        Grade::Correct
    } else {
        Grade::Wrong
    }
}

/// Asks `player` for a move in every position, `parallel` at a time (concurrently on
/// the caller's task) (a fresh player
/// per position, seeded from `seed` and the position's index, so results do not
/// depend on scheduling), logging exchanges to `log`. Results come
/// in file order. A position that is not playable is an error, not a panic.
pub async fn run_probe<R: ModelGame>(
    player: &PlayerSpec<R>,
    positions: &[LabelledPosition],
    parallel: usize,
    seed: u64,
    log: Option<&GameLog>,
    report: &(dyn Fn(&ProbeResult) + Sync),
) -> Vec<ProbeResult> {
    futures_util::stream::iter(positions.iter().enumerate())
        .map(|(index, position)| async move {
            let mut player = player.build(derive_seed(seed, index as u64));
            let result = probe_one(player.as_mut(), index + 1, position, log).await;
            report(&result);
            result
        })
        .buffered(parallel.max(1))
        .collect()
        .await
}

async fn probe_one<R: ModelGame>(
    player: &mut dyn super::player::Player<R>,
    index: usize,
    position: &LabelledPosition,
    log: Option<&GameLog>,
) -> ProbeResult {
    let failed = |error: String| ProbeResult {
        index,
        empties: position.empties,
        mv: None,
        source: None,
        answer_kind: None,
        grade: Grade::Error,
        teacher_grade: position.teacher_move.as_ref().map(|_| Grade::Error),
        regret: None,
        exact: position.exact,
        invalid_answers: 0,
        error: Some(error),
        agent: None,
    };
    let board = match position.position::<R>() {
        Ok(board) => board,
        Err(e) => return failed(e.to_string()),
    };
    let scores = match position.move_scores::<R>(&board) {
        Ok(scores) => scores,
        Err(e) => return failed(e.to_string()),
    };
    let ctx = MoveContext {
        // The ply the position would be reached at from the start.
        ply: (R::empties(&R::start()) + 1 - R::empties(&board)) as usize,
        log: GameWriter::new(log, index),
    };
    let played = match player.act(&board, ctx).await {
        Ok(Action::Move(played)) => played,
        Ok(Action::Forfeit(decision)) => {
            // No legal answer and no fallback move: graded as invalid.
            return ProbeResult {
                grade: Grade::Invalid,
                teacher_grade: position.teacher_move.as_ref().map(|_| Grade::Invalid),
                source: decision.source,
                invalid_answers: decision.invalid_answers,
                error: None,
                agent: Some(decision),
                ..failed(String::new())
            };
        }
        Err(e) => return failed(error_chain(&e)),
    };
    let regret = R::coordinate(played.mv).and_then(|square| scores.regret(square));
    let agent = played.agent.as_ref();
    ProbeResult {
        index,
        empties: position.empties,
        mv: Some(played.mv.to_string()),
        source: Some(played.source),
        answer_kind: agent.and_then(|a| a.answer_kind),
        grade: grade(&played, &position.best),
        teacher_grade: position
            .teacher_move
            .as_ref()
            .map(|t| grade(&played, std::slice::from_ref(t))),
        regret,
        exact: position.exact,
        invalid_answers: agent.map_or(0, |a| a.invalid_answers),
        error: None,
        agent: played.agent.clone(),
    }
}

/// Counts of each grade.
fn grade_counts(grades: impl Iterator<Item = Grade>) -> [u32; 4] {
    let mut counts = [0; 4];
    for g in grades {
        counts[g as usize] += 1;
    }
    counts
}

/// The probe's CSV: one row per position (the position, what was expected, what the
/// model answered and how it was graded).
pub(crate) fn probe_csv(positions: &[LabelledPosition], results: &[ProbeResult]) -> String {
    let mut table = CsvTable::new(&[
        "index",
        "board",
        "side",
        "empties",
        "expected",
        "teacher_move",
        "actual",
        "source",
        "answer_kind",
        "grade",
        "teacher_grade",
        "regret",
        "exact",
        "invalid_answers",
        "error",
    ]);
    let name = |v: &Value| v.as_str().unwrap_or_default().to_string();
    for (p, r) in positions.iter().zip(results) {
        let fields = [
            r.index.to_string(),
            p.board.clone(),
            p.side.clone(),
            p.empties.to_string(),
            p.best.join(" "),
            p.teacher_move.clone().unwrap_or_default(),
            r.mv.clone().unwrap_or_default(),
            r.source.map(|s| name(&json!(s))).unwrap_or_default(),
            r.answer_kind.map(|k| name(&json!(k))).unwrap_or_default(),
            name(&json!(r.grade)),
            r.teacher_grade.map(|g| name(&json!(g))).unwrap_or_default(),
            r.regret.map(|x| format!("{x}")).unwrap_or_default(),
            r.exact.to_string(),
            r.invalid_answers.to_string(),
            r.error.clone().unwrap_or_default(),
        ];
        table.row(&fields);
    }
    table.finish()
}

/// The probe's statistics (results.json): the grades, the regret of the model's own
/// moves, fallbacks and invalid answers.
pub fn probe_summary(positions: &[LabelledPosition], results: &[ProbeResult], dir: &Path) -> ProbeResults {
    let best = grade_counts(results.iter().map(|r| r.grade));
    let teacher = positions.iter().find_map(|p| p.teacher.clone());
    let teacher_counts = teacher
        .as_ref()
        .map(|_| grade_counts(results.iter().filter_map(|r| r.teacher_grade)));
    let mut regrets = Vec::new();
    let stats: AgentStats = results.iter().filter_map(|r| r.agent.as_ref()).collect();
    let (fallback, invalid_answers) = (stats.fallback_moves, stats.invalid_answers);
    let mut exact = 0;
    for r in results {
        if let (Some(x), Some(MoveSource::Llm)) = (r.regret, r.source) {
            regrets.push(x);
            exact += u32::from(r.exact);
        }
    }
    let n = results.len() as u32;
    let (fallback_low, fallback_high) = wilson_interval(fallback, n);
    let mean = mean_interval(&regrets).map(|(m, low, high)| (m, low.max(0.0), high));
    ProbeResults {
        positions: n,
        against_best: GradeCounts::new(best),
        teacher,
        against_teacher: teacher_counts.map(GradeCounts::new),
        model_moves: regrets.len(),
        mean_regret: mean.map(|(mean, ci_low, ci_high)| MeanRegret {
            mean,
            ci_low,
            ci_high,
            exact_moves: exact,
        }),
        fallback_moves: fallback,
        fallback_rate: f64::from(fallback) / f64::from(n.max(1)),
        fallback_ci_low: fallback_low,
        fallback_ci_high: fallback_high,
        invalid_answers,
        invalid_answers_per_position: f64::from(invalid_answers) / f64::from(n.max(1)),
        log_dir: dir.display().to_string(),
    }
}
