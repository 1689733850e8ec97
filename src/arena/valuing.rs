//! Valuing a run folder's decisions from its logs, for the intrinsic ratings of runs
//! played without `--score-moves`: the finished games read back as a resume reads them
//! ([`rebuild_game`]), their moves scored as `--score-moves` scores them
//! ([`score_games`], the reference's value of every legal move), and the folder's
//! `move-scores.jsonl` written whole ([`runs::write_move_scores`]) so that the next
//! reader reuses it. Othello only: the intrinsic calibration is Othello's.
//!
//! Values are kept or made again by game and side: a side of a finished game whose
//! lines all hold values (of the [`Valuing`]'s reference when it is strict) is kept as
//! it is; any other side that made a move is valued, all its moves (fallback moves too,
//! kept apart by their source as `--score-moves` keeps them). Lines of other games stay.
//! Nothing here writes a game log: a run stopped while it is valued keeps its logs, and
//! its `move-scores.jsonl` is the old one or the new one, whole.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use engines::Engines;
use game::othello::{Color, Move};
use game::Othello;
use record::{game_start, read_game_log_prefix, Event, MoveSource, ReadLogError};
use runs::{read_move_scores, write_move_scores, MoveScoresError, ScoredMove};

use super::play::GameRecord;
use super::quality::{score_games, GameToScore, MoveScorer, ScoringError, ScoringWatch};
use super::resume::rebuild_game;

/// The reference a run's decisions are valued with, and which values already there
/// are kept.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Valuing {
    /// Positions with this many empty squares or fewer are solved exactly.
    pub exact_empties: u32,
    /// Before that, the reference searches this many plies deep.
    pub depth: u32,
    /// Whether values already there must be this reference's ([`ScoredMove::valued_by`]);
    /// when not, any values a run holds are kept.
    pub strict: bool,
}

impl Valuing {
    /// Whether the values of `scored` are kept.
    pub fn keeps(&self, scored: &ScoredMove) -> bool {
        !scored.values.is_empty() && (!self.strict || scored.valued_by(self.exact_empties, self.depth))
    }

    /// How the reference values moves, in a sentence.
    pub fn describe(&self) -> String {
        Othello::describe_reference(self.exact_empties, self.depth)
    }
}

/// Why a run folder's decisions were not valued.
#[derive(Debug, thiserror::Error)]
pub enum ValueError {
    /// A game log cannot be read.
    #[error(transparent)]
    Read(#[from] ReadLogError),
    /// A finished log whose moves cannot be replayed.
    #[error("{path}: {reason}; move the file aside to value the run's other games")]
    Corrupt {
        /// The log.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// The run's `move-scores.jsonl` cannot be read.
    #[error(transparent)]
    MoveScores(#[from] MoveScoresError),
    /// The scoring stopped.
    #[error(transparent)]
    Scoring(#[from] ScoringError),
}

/// One run folder's decisions: its finished games (of the logs asked for), the scored
/// moves it holds, and the sides of games left to value.
#[derive(Debug)]
pub struct RunValues {
    dir: PathBuf,
    valuing: Valuing,
    /// Finished games by number, and the sides of each to value.
    games: Vec<(usize, GameRecord<Othello>, Vec<Color>)>,
    /// The lines of its `move-scores.jsonl` (none without one).
    held: Vec<ScoredMove>,
}

/// A run folder's scored moves after valuing, and whether they reached its file.
#[derive(Debug)]
pub struct Valued {
    /// Every scored move, in game and ply order.
    pub moves: Vec<ScoredMove>,
    /// Why `move-scores.jsonl` was not written (a read-only folder): the moves are then
    /// held in memory only.
    pub unwritten: Option<MoveScoresError>,
}

impl RunValues {
    /// The decisions of the run folder `dir` in its game logs `logs` (unfinished games
    /// are left out), with its `move-scores.jsonl`, to be valued by `valuing`.
    pub fn read(dir: &Path, logs: &[&Path], valuing: Valuing) -> Result<RunValues, ValueError> {
        let held = read_move_scores(dir)?.unwrap_or_default();
        let mut games = Vec::new();
        for &path in logs {
            let log = read_game_log_prefix(path)?;
            let finished = !log.torn_tail && log.records.iter().any(|r| matches!(r.event, Event::GameEnd(_)));
            let Some(number) = game_start(&log.records).map(|start| start.game) else {
                continue;
            };
            if !finished {
                continue;
            }
            let record = rebuild_game::<Othello>(&log.records).map_err(|reason| ValueError::Corrupt {
                path: path.to_path_buf(),
                reason,
            })?;
            let sides: Vec<Color> = Color::BOTH
                .into_iter()
                .filter(|&color| decides(&record, color) && !kept(&held, valuing, number, color))
                .collect();
            games.push((number, record, sides));
        }
        Ok(RunValues {
            dir: dir.to_path_buf(),
            valuing,
            games,
            held,
        })
    }

    /// Games with a side to value.
    pub fn games_to_value(&self) -> usize {
        self.games.iter().filter(|(_, _, sides)| !sides.is_empty()).count()
    }

    /// The scored moves as they are when nothing is left to value.
    pub fn held(self) -> Vec<ScoredMove> {
        self.held
    }

    /// Values the sides left, `parallel` games at a time, publishing progress to
    /// `watch`; the folder's scored moves then, written to its `move-scores.jsonl` when
    /// anything was valued.
    pub fn value(self, parallel: usize, watch: &ScoringWatch) -> Result<Valued, ValueError> {
        let to_score: Vec<GameToScore<'_, Othello>> = self
            .games
            .iter()
            .filter(|(_, _, sides)| !sides.is_empty())
            .map(|(number, record, sides)| GameToScore {
                number: *number,
                record,
                colors: sides.clone(),
            })
            .collect();
        if to_score.is_empty() {
            return Ok(Valued {
                moves: self.held,
                unwritten: None,
            });
        }
        let (exact_empties, depth) = (self.valuing.exact_empties, self.valuing.depth);
        let scorer = || MoveScorer::Ours(Othello::reference(exact_empties, depth));
        let valued = score_games(&to_score, &scorer, parallel, watch, &AtomicBool::new(false))?;
        let again = |m: &ScoredMove| {
            to_score
                .iter()
                .any(|g| g.number == m.game && g.colors.iter().any(|c| c.to_string() == m.color))
        };
        let mut moves: Vec<ScoredMove> = self.held.into_iter().filter(|m| !again(m)).collect();
        moves.extend(valued);
        moves.sort_by_key(|m| (m.game, m.ply));
        let unwritten = write_move_scores(&self.dir, &moves).err();
        Ok(Valued { moves, unwritten })
    }
}

/// Whether `color` chose a move of its own in `record` (a forced pass is no choice).
fn decides(record: &GameRecord<Othello>, color: Color) -> bool {
    record
        .plies
        .iter()
        .any(|p| p.color == color && p.played.source != MoveSource::ForcedPass && matches!(p.played.mv, Move::Place(_)))
}

/// Whether `held` values game `number`'s `color` side in full, as `valuing` keeps
/// values: it has lines, and every one is kept.
fn kept(held: &[ScoredMove], valuing: Valuing, number: usize, color: Color) -> bool {
    let color = color.to_string();
    let mut lines = held.iter().filter(|m| m.game == number && m.color == color).peekable();
    lines.peek().is_some() && lines.all(|m| valuing.keeps(m))
}
