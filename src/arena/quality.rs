//! Move quality: every move of finished games scored against the reference
//! evaluator (regret, best-move agreement, blunders), by game phase.
//!
//! A move's regret is the best move's score minus its own, in final discs for the
//! mover: exact when the position had at most the reference's exact-empties, else an
//! estimate of its depth-limited search (each scored move says which). Fallback moves
//! are scored but kept apart: the quality of a player is measured on the moves it
//! chose itself (model answers, engine decisions), never on moves played for it.

use agent::ModelGame;
use std::fmt::Write as _;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use serde::Serialize;
use serde_json::{json, Value};

use super::engine_process::ExternalError;
use super::external::ExternalScorer;
use super::play::GameRecord;
use engines::lab::parallel_map;
use engines::MoveScores;
use game::othello::Color;
use game::Othello;
use record::MoveSource;
pub use runs::ScoredMove;
use stats::{mean_interval, wilson_interval};

/// Game phases, by empty squares before the move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Phase {
    /// 41 or more empties (the first 20 moves).
    Opening,
    /// 21 to 40 empties.
    Midgame,
    /// 20 or fewer empties.
    Endgame,
}

impl Phase {
    /// The three phases in game order.
    pub const ALL: [Phase; 3] = [Phase::Opening, Phase::Midgame, Phase::Endgame];

    /// The phase of a position with `empties` empty squares.
    pub fn of(empties: u32) -> Phase {
        match empties {
            41.. => Phase::Opening,
            21..=40 => Phase::Midgame,
            _ => Phase::Endgame,
        }
    }

    /// Its name, with the empties it covers.
    pub fn label(self) -> &'static str {
        match self {
            Phase::Opening => "opening (60-41 empty)",
            Phase::Midgame => "midgame (40-21 empty)",
            Phase::Endgame => "endgame (20-1 empty)",
        }
    }
}

/// Quality figures over a set of moves.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct QualityTally {
    /// Moves counted.
    pub moves: u32,
    /// Moves that were among the best.
    pub best: u32,
    /// Moves whose regret makes them blunders ([`Engines::BLUNDER`](engines::Engines::BLUNDER)).
    pub blunders: u32,
    /// Moves scored exactly.
    pub exact: u32,
    /// Each move's regret.
    pub regrets: Vec<f64>,
}

impl QualityTally {
    /// Adds one move.
    pub fn add(&mut self, m: &ScoredMove) {
        self.moves += 1;
        self.best += u32::from(m.is_best());
        self.blunders += u32::from(m.blunder);
        self.exact += u32::from(m.exact);
        self.regrets.push(m.regret);
    }

    /// Mean regret with a normal-approximation 95% interval (`None` without moves);
    /// regret is never negative, so neither is the interval.
    pub fn mean_regret(&self) -> Option<(f64, f64, f64)> {
        mean_interval(&self.regrets).map(|(mean, low, high)| (mean, low.max(0.0), high))
    }

    /// The figures as JSON, with Wilson intervals for the two rates.
    pub fn to_json(&self) -> Value {
        let rate = |k: u32| {
            let (low, high) = wilson_interval(k, self.moves);
            json!({ "count": k, "rate": if self.moves == 0 { 0.0 } else { f64::from(k) / f64::from(self.moves) }, "ci_low": low, "ci_high": high })
        };
        let regret = self
            .mean_regret()
            .map(|(mean, low, high)| json!({ "mean": mean, "ci_low": low, "ci_high": high }));
        json!({
            "moves": self.moves,
            "exact_moves": self.exact,
            "mean_regret": regret,
            "best_move_agreement": rate(self.best),
            "blunders": rate(self.blunders),
        })
    }
}

/// A player's move quality: its own moves by phase, and the fallback moves apart.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MoveQuality {
    /// Own moves (model or engine decisions) by [`Phase::ALL`] order.
    pub by_phase: [QualityTally; 3],
    /// Own moves over all phases.
    pub all: QualityTally,
    /// Moves the fallback played (not in the figures above).
    pub fallback: QualityTally,
}

impl MoveQuality {
    /// Adds one scored move where it belongs.
    pub fn add(&mut self, m: &ScoredMove) {
        if m.source == MoveSource::Fallback {
            self.fallback.add(m);
            return;
        }
        let phase = Phase::ALL
            .iter()
            .position(|p| *p == Phase::of(m.empties))
            .expect("every phase is listed");
        self.by_phase[phase].add(m);
        self.all.add(m);
    }

    /// The figures as JSON.
    pub fn to_json(&self) -> Value {
        let phases: serde_json::Map<String, Value> = Phase::ALL
            .iter()
            .zip(&self.by_phase)
            .map(|(p, t)| (json!(p).as_str().unwrap_or_default().to_string(), t.to_json()))
            .collect();
        json!({
            "all": self.all.to_json(),
            "by_phase": phases,
            "fallback_moves": self.fallback.to_json(),
        })
    }
}

impl QualityTally {
    /// One row of a quality table, labelled `label`.
    fn row(&self, out: &mut String, label: &str) {
        let pct = |k: u32| {
            let (low, high) = wilson_interval(k, self.moves);
            let rate = if self.moves == 0 {
                0.0
            } else {
                f64::from(k) / f64::from(self.moves)
            };
            format!("{:5.1}% [{:5.1}, {:5.1}]", 100.0 * rate, 100.0 * low, 100.0 * high)
        };
        let regret = self.mean_regret().map_or_else(
            || format!("{:20}", "-"),
            |(mean, low, high)| format!("{mean:6.2} [{low:5.2}, {high:5.2}]"),
        );
        let _ = writeln!(
            out,
            "  {label:22} {:5}  {:5}  {regret}  {}  {}",
            self.moves,
            self.exact,
            pct(self.best),
            pct(self.blunders)
        );
    }
}

impl MoveQuality {
    /// The move-quality table of one player, a blunder being a regret of `blunder` or
    /// more: a row per phase played, all phases, and the fallback moves left out.
    pub fn text(&self, blunder: f64) -> String {
        let mut out = format!(
            "  {:22} {:>5}  {:>5}  {:20}  {:22}  blunders (regret >= {blunder}) [95% CI]\n",
            "phase", "moves", "exact", "mean regret [95% CI]", "best move [95% CI]",
        );
        for (phase, tally) in Phase::ALL.iter().zip(&self.by_phase) {
            if tally.moves > 0 {
                tally.row(&mut out, phase.label());
            }
        }
        self.all.row(&mut out, "all");
        if self.fallback.moves > 0 {
            let mean = self.fallback.mean_regret().map_or(0.0, |(m, _, _)| m);
            let _ = writeln!(
                out,
                "  not counted above: {} fallback move(s), mean regret {mean:.2}",
                self.fallback.moves
            );
        }
        out
    }
}

/// Which moves of a game to score.
#[derive(Clone, Debug)]
pub struct GameToScore<'a, R: ModelGame = Othello> {
    /// Game number (from 1).
    pub number: usize,
    /// The game.
    pub record: &'a GameRecord<R>,
    /// The colors whose moves are scored.
    pub colors: Vec<Color>,
}

/// How far a scoring is, for a progress line on another thread.
#[derive(Debug, Default)]
pub struct ScoringWatch {
    /// Games scored so far.
    pub games_done: AtomicUsize,
    /// Moves scored so far.
    pub moves_done: AtomicUsize,
}

/// A scoring stopped by its stop flag (Ctrl-C).
#[derive(Debug, thiserror::Error)]
#[error("move scoring stopped after {games_done} of {games} games")]
pub struct ScoringStopped {
    /// Games scored before the stop.
    pub games_done: usize,
    /// Games to score.
    pub games: usize,
}

/// Why a scoring gave no scores.
#[derive(Debug, thiserror::Error)]
pub enum ScoringError {
    /// Its stop flag was set.
    #[error(transparent)]
    Stopped(ScoringStopped),
    /// The external reference failed on a move.
    #[error("cannot score ply {ply} of game {game}")]
    Reference {
        /// Game number (from 1).
        game: usize,
        /// Ply (from 1, opening included).
        ply: usize,
        /// What the engine did.
        #[source]
        source: Box<ExternalError>,
    },
}

/// What scores every legal move of a position: the game's own reference evaluator,
/// or an external engine's values (Othello only).
pub enum MoveScorer<R: ModelGame> {
    /// The game's reference, as built by [`Engines::reference`](engines::Engines::reference).
    Ours(R::Reference),
    /// An NBoard engine's `hint` values.
    External(Box<ExternalScorer>),
}

impl<R: ModelGame> MoveScorer<R> {
    fn score(&mut self, position: &R::Position, ply: usize) -> Result<MoveScores, ExternalError> {
        match self {
            MoveScorer::Ours(reference) => Ok(R::score_moves(reference, position)),
            MoveScorer::External(engine) => engine.score::<R>(position, ply),
        }
    }
}

/// Why one game's scoring ended early.
enum Halt {
    Stopped,
    Failed { ply: usize, source: Box<ExternalError> },
}

/// Scores the moves (placements after the opening) of the given colors in each game,
/// `parallel` games at a time, each worker with its own scorer built by `scorer`;
/// publishes its progress to `watch` and stops, before the next move is scored, once
/// `stop` is set. Returns the scored moves in game and ply order, or the first game's
/// failure.
pub(crate) fn score_games<R: ModelGame>(
    games: &[GameToScore<'_, R>],
    scorer: &(dyn Fn() -> MoveScorer<R> + Sync),
    parallel: usize,
    watch: &ScoringWatch,
    stop: &AtomicBool,
) -> Result<Vec<ScoredMove>, ScoringError> {
    let scored = parallel_map(games, parallel, scorer, |scorer, _, game| {
        let moves = score_game(game, scorer, watch, stop);
        if moves.is_ok() {
            watch.games_done.fetch_add(1, Ordering::Relaxed);
        }
        moves.map_err(|halt| (game.number, halt))
    });
    let mut all = Vec::new();
    for moves in scored {
        match moves {
            Ok(moves) => all.extend(moves),
            Err((_, Halt::Stopped)) => {
                return Err(ScoringError::Stopped(ScoringStopped {
                    games_done: watch.games_done.load(Ordering::Relaxed),
                    games: games.len(),
                }))
            }
            Err((game, Halt::Failed { ply, source })) => return Err(ScoringError::Reference { game, ply, source }),
        }
    }
    Ok(all)
}

/// The game's scored moves, or why it stopped before the last one.
fn score_game<R: ModelGame>(
    game: &GameToScore<'_, R>,
    scorer: &mut MoveScorer<R>,
    watch: &ScoringWatch,
    stop: &AtomicBool,
) -> Result<Vec<ScoredMove>, Halt> {
    let record = game.record;
    let mut board = *record.game.start();
    let mut scored = Vec::new();
    for (index, &mv) in record.game.moves().iter().enumerate() {
        let ply = index
            .checked_sub(record.opening_plies)
            .and_then(|i| record.plies.get(i));
        if let (Some(ply), Some(square)) = (ply, R::coordinate(mv)) {
            if game.colors.contains(&ply.color) && ply.played.source != MoveSource::ForcedPass {
                if stop.load(Ordering::Relaxed) {
                    return Err(Halt::Stopped);
                }
                let scores = scorer.score(&board, index + 1).map_err(|source| Halt::Failed {
                    ply: index + 1,
                    source: Box::new(source),
                })?;
                watch.moves_done.fetch_add(1, Ordering::Relaxed);
                if let Some(regret) = scores.regret(square) {
                    scored.push(ScoredMove {
                        game: game.number,
                        ply: index + 1,
                        color: ply.color.to_string(),
                        source: ply.played.source,
                        mv: square.to_string(),
                        empties: R::empties(&board),
                        best_moves: scores.best_moves().iter().map(ToString::to_string).collect(),
                        regret,
                        blunder: regret >= R::BLUNDER,
                        exact: scores.exact,
                        depth: scores.depth,
                        values: scores
                            .scores
                            .iter()
                            .map(|&(sq, value)| (sq.to_string(), value))
                            .collect(),
                    });
                }
            }
        }
        board = R::play(&board, mv).expect("a game record holds legal moves");
    }
    Ok(scored)
}
