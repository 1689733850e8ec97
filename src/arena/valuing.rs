//! Valuing a run folder's decisions from its logs, for the intrinsic ratings of runs
//! played without `--score-moves`: the finished games read back as a resume reads them
//! ([`rebuild_game`]), their moves scored as `--score-moves` scores them
//! ([`score_games`], the reference's value of every legal move), and the folder's
//! `move-scores.jsonl` written whole ([`runs::write_move_scores`]) so that the next
//! reader reuses it, under the folder's lock: a run in progress (an eval) keeps its
//! folder, and its values are then held in memory only, with a note. Othello only:
//! the intrinsic calibration is Othello's.
//!
//! Values are kept or made again by game and side: a side of a finished game whose
//! lines all hold values (of the [`Valuing`]'s reference when it is strict) is kept as
//! it is; any other side that made a move is valued, all its moves (fallback moves too,
//! kept apart by their source as `--score-moves` keeps them). A game with a line that is
//! not one of its decisions (another side, ply or move, values of other squares than
//! the legal moves there: a file edited or copied from another run), or with a line
//! [`runs::faulty_games`] finds at fault (a decision written twice, a value that is not
//! a finite number within the game's range), is valued again whole, its lines
//! replaced, with a note saying why ([`RunValues::notes`]). Lines of other games stay.
//! Nothing here writes a game log: a run stopped while it is valued keeps its logs, and
//! its `move-scores.jsonl` is the old one or the new one, whole.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use engines::Engines;
use game::othello::{Color, Move, Square};
use game::{Othello, Rules};
use record::{game_start, read_game_log_prefix, Event, MoveSource, ReadLogError};
use runs::{
    faulty_games, read_move_scores, write_move_scores, MoveScoresError, RunFolder, RunFolderError, ScoredMove,
    MOVE_SCORES_FILE,
};

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
    /// Finished games, and the sides of each to value.
    games: Vec<ToValue>,
    /// The lines of its `move-scores.jsonl` (none without one).
    held: Vec<ScoredMove>,
    /// Why games are valued again whole ([`RunValues::notes`]).
    notes: Vec<String>,
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
        let faults = faulty_games(&held);
        let (mut games, mut notes) = (Vec::new(), Vec::new());
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
            let decisions = decisions(&record);
            // A line that is not one of this game's decisions (another side, ply or
            // move; values of squares that are not the legal moves there) was not
            // made from this log, and a line written twice or with values no game
            // gives was not made by a reference: the game is valued again whole, its
            // lines replaced, with a note saying why.
            let why = faults.get(&number).cloned().or_else(|| {
                let misfit = held.iter().find(|m| m.game == number && !fits(m, &decisions))?;
                Some(format!("its line for ply {} is not one of its decisions", misfit.ply))
            });
            if let Some(why) = &why {
                let file = dir.join(MOVE_SCORES_FILE);
                notes.push(format!("{}: game {number} is valued again: {why}", file.display()));
            }
            let whole = why.is_some();
            let sides: Vec<Color> = Color::BOTH
                .into_iter()
                .filter(|&color| decisions.values().any(|d| d.color == color))
                .filter(|&color| whole || !kept(&held, valuing, number, color))
                .collect();
            games.push(ToValue {
                number,
                record,
                sides,
                whole,
            });
        }
        Ok(RunValues {
            dir: dir.to_path_buf(),
            valuing,
            games,
            held,
            notes,
        })
    }

    /// Why games are valued again whole, one sentence each naming the file and game.
    pub fn notes(&self) -> &[String] {
        &self.notes
    }

    /// Games with a side to value.
    pub fn games_to_value(&self) -> usize {
        self.games.iter().filter(|g| !g.sides.is_empty()).count()
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
            .filter(|g| !g.sides.is_empty())
            .map(|g| GameToScore {
                number: g.number,
                record: &g.record,
                colors: g.sides.clone(),
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
            self.games.iter().any(|g| {
                g.number == m.game
                    && !g.sides.is_empty()
                    && (g.whole || g.sides.iter().any(|c| c.to_string() == m.color))
            })
        };
        let mut moves: Vec<ScoredMove> = self.held.into_iter().filter(|m| !again(m)).collect();
        moves.extend(valued);
        moves.sort_by_key(|m| (m.game, m.ply));
        let unwritten = write_beside_a_run(&self.dir, &moves).err();
        Ok(Valued { moves, unwritten })
    }
}

/// Writes `moves` as the `move-scores.jsonl` of the run folder `dir` while holding the
/// folder's lock, as a run writing it does: a run in progress (an eval that would
/// replace the file when it ends) keeps it, and the file is not written
/// ([`MoveScoresError::InProgress`]). A folder whose lock cannot be taken otherwise (a
/// read-only one) is left to the write to fail or not.
fn write_beside_a_run(dir: &Path, moves: &[ScoredMove]) -> Result<(), MoveScoresError> {
    let _held = match RunFolder::hold(dir) {
        Err(RunFolderError::Locked { holder, .. }) => {
            let path = dir.join(MOVE_SCORES_FILE);
            return Err(MoveScoresError::InProgress { path, holder });
        }
        held => held.ok(),
    };
    write_move_scores(dir, moves)
}

/// A game, and the sides of it to value.
#[derive(Debug)]
struct ToValue {
    /// Its number in the run.
    number: usize,
    /// The game as its log holds it.
    record: GameRecord<Othello>,
    /// The sides to value (none when its values are kept).
    sides: Vec<Color>,
    /// Whether its lines are all replaced (some were not of this game), not only
    /// those of `sides`.
    whole: bool,
}

/// One decision of a game: what a line of `move-scores.jsonl` says of it.
#[derive(Debug)]
struct Decision {
    color: Color,
    mv: Square,
    empties: u32,
    /// The legal moves of the position, row-major.
    legal: Vec<Square>,
}

/// The decisions of `record` by ply (from 1, opening included): the moves a side chose
/// (a forced pass is no choice, the opening's moves none), as `--score-moves` values
/// them.
fn decisions(record: &GameRecord<Othello>) -> BTreeMap<usize, Decision> {
    let mut board = *record.game.start();
    let mut decisions = BTreeMap::new();
    for (index, &mv) in record.game.moves().iter().enumerate() {
        let ply = index
            .checked_sub(record.opening_plies)
            .and_then(|i| record.plies.get(i));
        if let (Some(ply), Move::Place(square)) = (ply, mv) {
            if ply.played.source != MoveSource::ForcedPass {
                let decision = Decision {
                    color: ply.color,
                    mv: square,
                    empties: board.empties(),
                    legal: board.legal_moves().squares().collect(),
                };
                decisions.insert(index + 1, decision);
            }
        }
        // The record was rebuilt by the rules: each of its moves is legal.
        let Ok(next) = Othello::play(&board, mv) else { break };
        board = next;
    }
    decisions
}

/// Whether `line` is one of `decisions`: its ply, side, move and empty squares, with
/// values (when it has any) of exactly the legal moves there, each once.
fn fits(line: &ScoredMove, decisions: &BTreeMap<usize, Decision>) -> bool {
    decisions.get(&line.ply).is_some_and(|d| {
        let mut valued: Vec<&str> = line.values.iter().map(|(square, _)| square.as_str()).collect();
        valued.sort_unstable();
        let mut legal: Vec<String> = d.legal.iter().map(ToString::to_string).collect();
        legal.sort_unstable();
        line.color == d.color.to_string()
            && line.mv == d.mv.to_string()
            && line.empties == d.empties
            && (valued.is_empty() || valued == legal)
    })
}

/// Whether `held` values game `number`'s `color` side in full, as `valuing` keeps
/// values: it has lines, and every one is kept.
fn kept(held: &[ScoredMove], valuing: Valuing, number: usize, color: Color) -> bool {
    let color = color.to_string();
    let mut lines = held.iter().filter(|m| m.game == number && m.color == color).peekable();
    lines.peek().is_some() && lines.all(|m| valuing.keeps(m))
}
