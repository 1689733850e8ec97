//! Test positions: drawn from seeded engine self-play, labelled with every legal
//! move's reference score (and optionally a teacher engine's move), stored as JSONL.
//!
//! One position per line:
//! `{"board": <64 chars>, "side": "black"|"white", "empties": n, "exact": bool,
//! "depth": d, "scores": {"c4": 2.0, ...}, "best": ["c4"], "teacher": "n-hand:3",
//! "teacher_move": "d3"}`; the last two only when a teacher labelled the position.
//! `scores` are final disc differences for the side to move (exact when `exact`,
//! else the reference search's estimate at `depth` plies). A position of another game
//! says so in `game` (`marubatsu`: a 9-character board, scores 1 / 0 / -1 by the
//! perfect player) and may name its `motif` (`win`, `block`).

use std::collections::{BTreeMap, HashSet};
use std::ops::RangeInclusive;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use crate::{EngineError, EngineSpec, Engines, MoveScores};
use game::derive_seed;
use game::othello::{Board, Color, Move, Square};
use game::{Game, Rules};

/// Share of self-play moves chosen at random rather than by the engine.
const RANDOM_MOVE_SHARE: f64 = 0.25;

/// Positions from seeded self-play: `count` distinct positions, each with a number of
/// empties drawn uniformly from `empties` and a legal move for the side to move. Each
/// game is played by `search`-free engines (greedy with a quarter of random moves) so
/// that generation is fast and the positions are varied but plausible.
pub fn self_play_positions(count: usize, empties: RangeInclusive<u32>, seed: u64) -> Vec<Board> {
    let mut seen = HashSet::new();
    let mut positions = Vec::with_capacity(count);
    let mut stream = 0u64;
    // Each attempt ends in a position or a finished game; a generous cap keeps
    // impossible ranges (no position of that kind exists) from looping forever.
    while positions.len() < count && stream < 1000 + 100 * count as u64 {
        let mut rng = ChaCha8Rng::seed_from_u64(derive_seed(seed, stream));
        stream += 1;
        let target = rng.gen_range(empties.clone());
        let board = self_play(&mut rng, |board| board.empties() > target);
        if board.empties() == target && !board.legal_moves().is_empty() && seen.insert(board) {
            positions.push(board);
        }
    }
    positions
}

/// Plays a seeded self-play game from the start (greedy with a quarter of random
/// moves) as long as `go_on` holds for the position reached and the game is not over;
/// returns the last position.
pub(crate) fn self_play(rng: &mut ChaCha8Rng, mut go_on: impl FnMut(&Board) -> bool) -> Board {
    let mut greedy = EngineSpec::Greedy.build(rng.gen());
    let mut board = Board::new();
    while go_on(&board) && !board.is_game_over() {
        let moves: Vec<Square> = board.legal_moves().squares().collect();
        let mv = if moves.is_empty() {
            Move::Pass
        } else if rng.gen_bool(RANDOM_MOVE_SHARE) {
            Move::Place(moves[rng.gen_range(0..moves.len())])
        } else {
            greedy.choose(&board).map(|d| d.mv).unwrap_or(Move::Place(moves[0]))
        };
        board = board.play(mv);
    }
    board
}

/// A position with its labels.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LabelledPosition {
    /// The game, when it is not Othello.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub game: Option<String>,
    /// What the position asks of the mover, when it was chosen for that (`win`,
    /// `block`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub motif: Option<String>,
    /// The board as the game's logs write it (64 characters for Othello).
    pub board: String,
    /// The side to move.
    pub side: String,
    /// Empty squares.
    pub empties: u32,
    /// Whether `scores` are exact.
    pub exact: bool,
    /// Search depth behind `scores` (the empties when exact).
    pub depth: u32,
    /// Every legal move's score for the side to move.
    pub scores: BTreeMap<String, f64>,
    /// The moves with the best score.
    pub best: Vec<String>,
    /// The engine whose move is `teacher_move`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub teacher: Option<String>,
    /// The teacher's move (seed 000's expected answer).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub teacher_move: Option<String>,
}

/// A labelled position that does not describe a playable position.
#[derive(Debug, thiserror::Error)]
#[error("bad position: {reason}")]
pub struct BadPosition {
    /// What is wrong.
    pub reason: String,
}

/// A positions file that cannot be read, named by `file` (`bad --positions FILE:LINE`).
#[derive(Debug, thiserror::Error)]
pub enum PositionsFileError {
    /// A line that is not a labelled position's JSON.
    #[error("bad --positions: {file}:{line} is not a labelled position")]
    NotAPosition {
        /// The file.
        file: String,
        /// The line, from 1.
        line: usize,
        /// Why.
        #[source]
        source: serde_json::Error,
    },
    /// A position that is not playable or does not score every legal move.
    #[error("bad --positions: {file}:{line}")]
    Bad {
        /// The file.
        file: String,
        /// The line, from 1.
        line: usize,
        /// Why.
        #[source]
        source: BadPosition,
    },
    /// A position of another game than the file's first.
    #[error("bad --positions: {file}:{line}: a {this} position in a file of {game} positions")]
    MixedGames {
        /// The file.
        file: String,
        /// The line, from 1.
        line: usize,
        /// Its game.
        this: Game,
        /// The file's game.
        game: Game,
    },
    /// No position at all.
    #[error("bad --positions: {file} holds no positions")]
    Empty {
        /// The file.
        file: String,
    },
}

/// The positions of the positions file `file` (its `text`), each checked playable
/// with every legal move scored; all of one game, which comes back with them.
pub fn read_positions(file: &str, text: &str) -> Result<(Game, Vec<LabelledPosition>), PositionsFileError> {
    let mut positions = Vec::new();
    let mut game = None;
    for (index, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let (file, line_number) = (file.to_string(), index + 1);
        let bad = |source| PositionsFileError::Bad {
            file: file.clone(),
            line: line_number,
            source,
        };
        let position: LabelledPosition =
            serde_json::from_str(line).map_err(|source| PositionsFileError::NotAPosition {
                file: file.clone(),
                line: line_number,
                source,
            })?;
        let this = position.game().map_err(bad)?;
        let first = *game.get_or_insert(this);
        if first != this {
            return Err(PositionsFileError::MixedGames {
                file,
                line: line_number,
                this,
                game: first,
            });
        }
        match this {
            Game::Othello => position.check::<game::Othello>(),
            Game::Marubatsu => position.check::<game::Marubatsu>(),
        }
        .map_err(bad)?;
        positions.push(position);
    }
    game.map(|game| (game, positions))
        .ok_or_else(|| PositionsFileError::Empty { file: file.to_string() })
}

/// How [`label_positions`] labels: the reference's settings, the teacher (with its
/// seed) if any, and the worker threads.
#[derive(Clone, Debug)]
pub struct Labelling<S> {
    /// The reference's exact empties.
    pub exact_empties: u32,
    /// Its search depth.
    pub depth: u32,
    /// The teacher's spec, whose move each position records.
    pub teacher: Option<S>,
    /// The seed the teacher's seed for each position derives from.
    pub seed: u64,
    /// Worker threads.
    pub threads: usize,
}

/// A `--teacher` that cannot label positions.
#[derive(Debug, thiserror::Error)]
pub enum TeacherSpecError {
    /// Not an engine spec of the game.
    #[error("bad --teacher")]
    Spec(#[source] UnknownTeacher),
    /// A person at the terminal.
    #[error("bad --teacher human: positions are labelled unattended; give an engine spec")]
    Human,
}

/// Why a teacher spec names no engine of the game (the spec parser's words).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UnknownTeacher(pub String);

impl<S: std::str::FromStr<Err: std::fmt::Display>> Labelling<S> {
    /// The labelling of game `R` that `--teacher` (when given), the reference
    /// (`exact_empties`, `depth`) and `seed` ask for, on every core: the teacher must be
    /// an engine of the game that answers by itself.
    pub fn from_flags<R: Engines<Spec = S>>(
        teacher: Option<&str>,
        (exact_empties, depth): (u32, u32),
        seed: u64,
    ) -> Result<Labelling<S>, TeacherSpecError> {
        let teacher = teacher
            .map(|text| {
                text.parse::<S>()
                    .map_err(|e| TeacherSpecError::Spec(UnknownTeacher(e.to_string())))
            })
            .transpose()?;
        if teacher.as_ref().is_some_and(R::is_human) {
            return Err(TeacherSpecError::Human);
        }
        Ok(Labelling {
            exact_empties,
            depth,
            teacher,
            seed,
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
        })
    }
}

/// Labels `boards` of game `R` (each with its motif, if any) with the reference's
/// scores and the teacher's move, on `labelling.threads` threads, calling `done` after
/// each position; in the boards' order.
pub fn label_positions<R: Engines>(
    boards: &[(R::Position, Option<&str>)],
    labelling: &Labelling<R::Spec>,
    done: &(dyn Fn() + Sync),
) -> Result<Vec<LabelledPosition>, EngineError> {
    let name = labelling.teacher.as_ref().map(ToString::to_string).unwrap_or_default();
    let labelled = super::parallel_map(
        boards,
        labelling.threads,
        || R::reference(labelling.exact_empties, labelling.depth),
        |reference, index, (board, motif)| -> Result<LabelledPosition, EngineError> {
            // The teacher is seeded per position, so the labels do not depend on which
            // worker took the position.
            let teacher_move = match &labelling.teacher {
                Some(spec) => Some(R::decision_move(
                    &R::engine(spec, derive_seed(labelling.seed, index as u64)).choose(board)?,
                )),
                None => None,
            };
            let mut position =
                LabelledPosition::label::<R>(board, reference, teacher_move.map(|mv| (name.as_str(), mv)));
            position.motif = motif.map(str::to_string);
            done();
            Ok(position)
        },
    );
    labelled.into_iter().collect()
}

impl LabelledPosition {
    /// Checks that the position is playable in game `R` and scores every legal move.
    pub fn check<R: Rules>(&self) -> Result<(), BadPosition> {
        let board = self.position::<R>()?;
        self.move_scores::<R>(&board).map(drop)
    }

    /// Labels `board` of game `R` with `reference`'s scores and, when given, a
    /// teacher's (name, move).
    pub fn label<R: Engines>(
        board: &R::Position,
        reference: &mut R::Reference,
        teacher: Option<(&str, R::Move)>,
    ) -> LabelledPosition {
        let scored = R::score_moves(reference, board);
        let (teacher, teacher_move) = match teacher {
            Some((name, mv)) => (Some(name.to_string()), Some(mv.to_string())),
            None => (None, None),
        };
        LabelledPosition {
            game: Game::log_name::<R>(),
            motif: None,
            board: R::to_squares(board),
            side: R::to_move(board).to_string(),
            empties: R::empties(board),
            exact: scored.exact,
            depth: scored.depth,
            scores: scored.scores.iter().map(|(sq, s)| (sq.to_string(), *s)).collect(),
            best: scored.best_moves().iter().map(ToString::to_string).collect(),
            teacher,
            teacher_move,
        }
    }

    /// The game the position belongs to.
    pub fn game(&self) -> Result<Game, BadPosition> {
        Game::from_log(self.game.as_deref()).map_err(|reason| BadPosition { reason })
    }

    /// The position in game `R`, checked: its board parses and its side has a legal
    /// move.
    pub fn position<R: Rules>(&self) -> Result<R::Position, BadPosition> {
        let side: Color = self.side.parse().map_err(|e| BadPosition {
            reason: format!("side: {e}"),
        })?;
        let board = R::parse_squares(&self.board, side).map_err(|e| BadPosition {
            reason: format!("board: {e}"),
        })?;
        if R::legal_moves(&board).is_empty() {
            return Err(BadPosition {
                reason: format!("{} has no legal move in {}", self.side, self.board),
            });
        }
        Ok(board)
    }

    /// The stored scores as [`MoveScores`], checked against the position's legal moves.
    pub fn move_scores<R: Rules>(&self, board: &R::Position) -> Result<MoveScores, BadPosition> {
        let mut scores = Vec::new();
        for square in R::legal_coordinates(board).squares() {
            let score = self.scores.get(&square.to_string()).ok_or_else(|| BadPosition {
                reason: format!("no score for the legal move {square}"),
            })?;
            scores.push((square, *score));
        }
        Ok(MoveScores {
            scores,
            exact: self.exact,
            depth: self.depth,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::EngineSpec;
    use game::Othello;

    /// A teacher is an engine spec of the game that answers by itself; none is none.
    #[test]
    fn a_teacher_is_an_engine_that_answers_by_itself() {
        let labelling = Labelling::<EngineSpec>::from_flags::<Othello>(Some("greedy"), (14, 4), 7).unwrap();
        assert_eq!(
            (labelling.teacher, labelling.exact_empties, labelling.seed),
            (Some(EngineSpec::Greedy), 14, 7)
        );
        assert!(Labelling::<EngineSpec>::from_flags::<Othello>(None, (14, 4), 7)
            .unwrap()
            .teacher
            .is_none());
        let human = Labelling::<EngineSpec>::from_flags::<Othello>(Some("human"), (14, 4), 7).unwrap_err();
        assert!(matches!(human, TeacherSpecError::Human), "{human}");
        let unknown = Labelling::<EngineSpec>::from_flags::<Othello>(Some("nonsense"), (14, 4), 7).unwrap_err();
        assert_eq!(unknown.to_string(), "bad --teacher");
        assert!(std::error::Error::source(&unknown).is_some());
    }
}
