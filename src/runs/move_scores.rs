//! `move-scores.jsonl`, typed: one scored move a line, written by `--score-moves` and
//! read back by the intrinsic ratings.
//!
//! A line's `values` (every legal move of the position with the reference's value, in
//! row-major order, final discs for the mover) came later than the other fields: lines
//! written before it read back with no values.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use record::lines::LineError;
use record::MoveSource;
use serde::{Deserialize, Serialize};

/// The file a run folder's scored moves are written to.
pub const MOVE_SCORES_FILE: &str = "move-scores.jsonl";

/// The longest line of a [`MOVE_SCORES_FILE`] read (a line with every legal move's
/// value takes under 2 KB).
pub const MOVE_SCORES_LINE_CAP: usize = 64 << 10;

/// The largest [`MOVE_SCORES_FILE`] read (about 100,000 games' decisions).
pub const MOVE_SCORES_FILE_CAP: u64 = 1 << 30;

/// One move measured against the reference.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScoredMove {
    /// Game number in the run (from 1).
    pub game: usize,
    /// Ply (from 1, opening included).
    pub ply: usize,
    /// The mover (`black` or `white`).
    pub color: String,
    /// How the move was chosen.
    pub source: MoveSource,
    /// The move.
    #[serde(rename = "move")]
    pub mv: String,
    /// Empty squares before the move.
    pub empties: u32,
    /// The reference's best moves.
    pub best_moves: Vec<String>,
    /// Best score minus this move's score, in the game's unit (discs for Othello).
    pub regret: f64,
    /// The regret is at least the game's blunder threshold (`Engines::BLUNDER`).
    pub blunder: bool,
    /// Whether the scores were exact.
    pub exact: bool,
    /// The reference's search depth (the empties when exact).
    pub depth: u32,
    /// Every legal move of the position with its value, row-major (empty on lines
    /// written before values were kept).
    #[serde(default)]
    pub values: Vec<(String, f64)>,
}

impl ScoredMove {
    /// The player's decision this line records, for an intrinsic fit: `None` for a
    /// fallback move (never the player's decision), a line without values, a move
    /// with no alternative (a forced move carries no information), or one among moves
    /// all of one value ([`ScoredMove::is_level`]: none either).
    pub fn choice(&self) -> Option<stats::Choice> {
        if self.source == MoveSource::Fallback {
            return None;
        }
        let values: Vec<f64> = self.values.iter().map(|v| v.1).collect();
        let chosen = self.values.iter().position(|v| v.0 == self.mv)?;
        stats::Choice::from_values(&values, chosen)
    }

    /// Whether this line is the player's decision among moves all of one value (no
    /// information: [`stats::Choice::is_level`]), left out of the fits and counted apart.
    pub fn is_level(&self) -> bool {
        let values: Vec<f64> = self.values.iter().map(|v| v.1).collect();
        self.source != MoveSource::Fallback
            && self.values.iter().any(|v| v.0 == self.mv)
            && stats::Choice::is_level(&values)
    }

    /// Whether the move was one of the reference's best.
    pub fn is_best(&self) -> bool {
        self.regret <= 0.0
    }

    /// Whether the reference exact at `exact_empties` or fewer empty squares and
    /// searching `depth` plies before (`--exact-empties`, `--reference-depth`) valued
    /// this line: solved where the position had that few empties, else searched that
    /// deep (our reference searches at least one ply).
    pub fn valued_by(&self, exact_empties: u32, depth: u32) -> bool {
        if self.empties <= exact_empties {
            self.exact && self.depth == self.empties
        } else {
            !self.exact && self.depth == depth.max(1)
        }
    }
}

/// A `move-scores.jsonl` that cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum MoveScoresError {
    /// The file exists but cannot be read.
    #[error("{why}: make it a readable file, or move it aside and `rate` values the run again")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why, naming the file (the bounded reader's error: cannot be opened, not a
        /// regular file, a cap passed); in the message, which notes show whole.
        why: LineError,
    },
    /// The file could not be written.
    #[error("cannot write {path}")]
    Write {
        /// The file.
        path: PathBuf,
        /// What the system said.
        #[source]
        source: std::io::Error,
    },
    /// The run folder is locked by a run in progress (an eval writing it): its file is
    /// that run's to write, and is left alone.
    #[error(
        "{path} was not written: its run is in progress ({holder} holds the folder's lock), and the file is \
         that run's to write"
    )]
    InProgress {
        /// The file.
        path: PathBuf,
        /// What the lock file says about its holder.
        holder: String,
    },
    /// A line that is not a scored move.
    #[error("line {line} of {path} is not a scored move: move the file aside and `rate` values the run again")]
    Line {
        /// The file.
        path: PathBuf,
        /// Its line number (from 1).
        line: usize,
        /// What the parser said.
        #[source]
        source: serde_json::Error,
    },
}

/// The scored moves of the run folder `dir` (`None` when it has no
/// [`MOVE_SCORES_FILE`]).
pub fn read_move_scores(dir: &Path) -> Result<Option<Vec<ScoredMove>>, MoveScoresError> {
    let path = dir.join(MOVE_SCORES_FILE);
    let text = match record::lines::read_file(&path, MOVE_SCORES_LINE_CAP, MOVE_SCORES_FILE_CAP) {
        Ok(text) => text,
        Err(LineError::Read { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(why) => return Err(MoveScoresError::Read { path, why }),
    };
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(i, line)| {
            serde_json::from_str(line).map_err(|source| MoveScoresError::Line {
                path: path.clone(),
                line: i + 1,
                source,
            })
        })
        .collect::<Result<Vec<_>, _>>()
        .map(Some)
}

/// Writes every scored move to the run folder `dir`'s [`MOVE_SCORES_FILE`], one object
/// a line, through a temporary file and a rename: a reader (or a crash) never sees
/// half of it.
pub fn write_move_scores(dir: &Path, moves: &[ScoredMove]) -> Result<(), MoveScoresError> {
    let path = dir.join(MOVE_SCORES_FILE);
    let mut text = String::new();
    for m in moves {
        // A scored move is squares, numbers and strings: it always serializes.
        text.push_str(&serde_json::to_string(m).unwrap_or_default());
        text.push('\n');
    }
    let temporary = dir.join(format!(".{MOVE_SCORES_FILE}.tmp"));
    std::fs::write(&temporary, text)
        .and_then(|()| std::fs::rename(&temporary, &path))
        .map_err(|source| MoveScoresError::Write { path, source })
}

/// The largest value an exact line may give a move, in absolute terms: a final disc
/// margin (Othello's; a marubatsu one is at most 1).
pub const VALUE_BOUND: f64 = 64.0;

/// The largest value a searched line may give a move: a search's estimate is on the
/// disc scale but may pass its ends a little (65 is written by our reference), so
/// four times the range, which still refuses values no reference gives (1e300).
pub const SEARCHED_VALUE_BOUND: f64 = 4.0 * VALUE_BOUND;

/// The games of `moves` (a run's `move-scores.jsonl`) whose lines cannot be taken as
/// they are, each with why (the first fault found, naming the line's ply): a decision
/// with two lines (a line written twice would count twice), a value that is not a
/// finite number within [`VALUE_BOUND`] of 0 ([`SEARCHED_VALUE_BOUND`] for a searched
/// line), or a regret (the best value less the move's) not within twice that. `rate`
/// values such a game again; a reader that does not value leaves its lines out, with a
/// note.
pub fn faulty_games(moves: &[ScoredMove]) -> BTreeMap<usize, String> {
    let mut faults = BTreeMap::new();
    let mut seen = BTreeSet::new();
    for m in moves {
        let bound = if m.exact { VALUE_BOUND } else { SEARCHED_VALUE_BOUND };
        let in_bounds = |value: f64| value.is_finite() && value.abs() <= bound;
        let why = if !seen.insert((m.game, m.ply)) {
            Some(format!("ply {} has two lines (one line a decision)", m.ply))
        } else if let Some((square, value)) = m.values.iter().find(|(_, v)| !in_bounds(*v)) {
            Some(format!(
                "ply {} values {square} at {value:?}, not a number within {bound} of 0",
                m.ply
            ))
        } else if !in_bounds(m.regret / 2.0) {
            let regret = m.regret;
            Some(format!(
                "ply {} has a regret of {regret:?}, not a number within {} of 0",
                m.ply,
                2.0 * bound
            ))
        } else {
            None
        };
        if let Some(why) = why {
            faults.entry(m.game).or_insert(why);
        }
    }
    faults
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(empties: u32, exact: bool, depth: u32) -> ScoredMove {
        ScoredMove {
            game: 1,
            ply: 5,
            color: "black".into(),
            source: MoveSource::Engine,
            mv: "c4".into(),
            empties,
            best_moves: vec!["c4".into()],
            regret: 0.0,
            blunder: false,
            exact,
            depth,
            values: vec![("c4".into(), 2.0)],
        }
    }

    #[test]
    fn a_game_with_a_decision_twice_or_a_value_out_of_range_is_at_fault() {
        let at = |game: usize, ply: usize, value: f64, regret: f64| ScoredMove {
            game,
            ply,
            values: vec![("c4".into(), value), ("d3".into(), -64.0)],
            regret,
            ..line(20, true, 20)
        };
        let sound = [at(1, 5, 64.0, 0.0), at(1, 6, -3.5, 128.0), at(2, 5, 0.0, 0.0)];
        assert!(faulty_games(&sound).is_empty());
        for (bad, why) in [
            (at(1, 5, 1.0, 0.0), "ply 5 has two lines"),
            (
                at(1, 7, 1e300, 0.0),
                "ply 7 values c4 at 1e300, not a number within 64 of 0",
            ),
            (at(1, 7, f64::NAN, 0.0), "ply 7 values c4 at NaN"),
            (at(1, 7, -64.5, 0.0), "values c4 at -64.5"),
            (at(1, 7, 1.0, f64::INFINITY), "ply 7 has a regret of inf"),
            (at(1, 7, 1.0, 128.5), "a regret of 128.5, not a number within 128 of 0"),
        ] {
            let faults = faulty_games(&[sound.as_slice(), &[bad]].concat());
            assert_eq!(faults.keys().collect::<Vec<_>>(), [&1], "{why}");
            assert!(faults[&1].contains(why), "{}", faults[&1]);
        }
        // A search's estimate may pass the disc range a little (65), never far.
        let searched = |value: f64| ScoredMove {
            values: vec![("c4".into(), value)],
            ..line(30, false, 4)
        };
        assert!(faulty_games(&[searched(65.0)]).is_empty());
        assert!(faulty_games(&[searched(-256.0)]).is_empty());
        assert!(faulty_games(&[searched(1e300)])[&1].contains("not a number within 256 of 0"));
    }

    #[test]
    fn a_line_is_valued_by_the_reference_that_solves_and_searches_as_it_says() {
        // Solved at 12 empties: any reference exact at 12 or more gave it.
        assert!(line(12, true, 12).valued_by(14, 4) && line(12, true, 12).valued_by(20, 8));
        assert!(!line(12, true, 12).valued_by(10, 4), "searched, not solved, at 10");
        // Searched 4 deep at 30 empties.
        assert!(line(30, false, 4).valued_by(14, 4) && line(30, false, 4).valued_by(20, 4));
        assert!(!line(30, false, 4).valued_by(14, 8), "another depth");
        // Searched at 18 empties: a reference exact from 20 would have solved it.
        assert!(line(18, false, 4).valued_by(14, 4) && !line(18, false, 4).valued_by(20, 4));
        // Depth 0 searches one ply, as the reference does.
        assert!(line(30, false, 1).valued_by(14, 0));
    }
}
