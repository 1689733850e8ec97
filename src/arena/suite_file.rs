//! Opening suites named on the command line or in a tournament file, read and checked
//! in one place: a suite file ([`OpeningSuite::read`]), the built-in balanced suite
//! ([`Openings::balanced`]), and the openings a run's flags ask for
//! ([`Openings::from_flags`]: random plies, or a suite dealt in its order).

use std::path::{Path, PathBuf};

use agent::ModelGame;
use record::lines::{LineError, DATA_FILE_CAP, USER_LINE_CAP};
use runs::OpeningsOrder;

use super::openings::{OpeningSuite, Openings};

/// The name run.json records for the built-in balanced suite.
pub(crate) const BALANCED_SUITE: &str = "balanced-8 (built in: docs/openings/balanced-8.txt)";

/// A suite file that cannot be read.
#[derive(Debug, thiserror::Error)]
#[error("cannot read {what} {}", .file.display())]
pub struct CannotRead {
    /// What names it: the flag or the key.
    pub what: String,
    /// The file.
    pub file: PathBuf,
    /// Why.
    #[source]
    pub source: LineError,
}

/// Why the openings asked for cannot be dealt.
#[derive(Debug, thiserror::Error)]
pub enum SuiteFileError {
    /// The suite file cannot be read.
    #[error("bad {}: give a file of openings", .0.what)]
    Read(#[source] CannotRead),
    /// A line of it is not an opening.
    #[error(
        "bad {what} {}: {reason}; a line holds a move transcript (f5d6c3, -- or pa for a pass) \
         or a board with the side to move, # starts a comment",
        .file.display()
    )]
    Line {
        /// What names it: the flag or the key.
        what: String,
        /// The file.
        file: PathBuf,
        /// The line and what is wrong with it.
        reason: String,
    },
    /// Random plies the game cannot play.
    #[error("bad --opening-random: {0}")]
    Plies(String),
    /// The built-in suite does not read.
    #[error("the built-in suite {BALANCED_SUITE} does not read ({0}): a broken build")]
    BuiltIn(String),
}

impl<R: ModelGame> OpeningSuite<R> {
    /// The openings of the suite file `file` (named `what` in errors: the flag or the
    /// key), every line checked against the rules of `R`.
    pub fn read(what: &str, file: &Path) -> Result<OpeningSuite<R>, SuiteFileError> {
        let text = record::lines::read_file(file, USER_LINE_CAP, DATA_FILE_CAP).map_err(|source| {
            SuiteFileError::Read(CannotRead {
                what: what.to_string(),
                file: file.to_path_buf(),
                source,
            })
        })?;
        OpeningSuite::<R>::parse(&file.display().to_string(), &text).map_err(|e| SuiteFileError::Line {
            what: what.to_string(),
            file: file.to_path_buf(),
            reason: e.to_string(),
        })
    }
}

impl<R: ModelGame> Openings<R> {
    /// The suite file `file` (named `what` in errors) dealt in `order` (shuffled by
    /// `seed`), starting over when `cycle`; with notes on the openings it repeats.
    pub fn from_file(
        what: &str,
        file: &Path,
        (order, cycle, seed): (OpeningsOrder, bool, u64),
    ) -> Result<(Openings<R>, Vec<String>), SuiteFileError> {
        let suite = OpeningSuite::<R>::read(what, file)?;
        let notes = suite.repeats();
        Ok((Openings::suite(suite, order, cycle, seed), notes))
    }

    /// The balanced suite that ships in the binary (docs/openings/balanced-8.txt, made
    /// by `openings generate`), dealt in `order` (shuffled by `seed`).
    pub fn balanced(order: OpeningsOrder, cycle: bool, seed: u64) -> Result<Openings<R>, SuiteFileError> {
        let text = include_str!("../../docs/openings/balanced-8.txt");
        let suite =
            OpeningSuite::<R>::parse(BALANCED_SUITE, text).map_err(|e| SuiteFileError::BuiltIn(e.to_string()))?;
        Ok(Openings::suite(suite, order, cycle, seed))
    }

    /// The openings a run's flags ask for: `--openings FILE` (`suite`) dealt in its
    /// order, else `--opening-random` plies (`random`), checked against the rules of `R`.
    pub fn from_flags(
        suite: Option<&Path>,
        random: usize,
        deal: (OpeningsOrder, bool, u64),
    ) -> Result<(Openings<R>, Vec<String>), SuiteFileError> {
        match suite {
            Some(file) => Openings::from_file("--openings", file, deal),
            None => {
                game::check_opening::<R>(random).map_err(|e| SuiteFileError::Plies(e.to_string()))?;
                Ok((Openings::random(random), Vec::new()))
            }
        }
    }
}
