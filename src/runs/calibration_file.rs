//! A calibration file read back (`rate --intrinsic`, the shipped
//! docs/intrinsic-calibration.toml behind `serve`, `bench` and the intrinsic stop
//! rule): parsed and checked in one place, [`Calibration::from_toml`], so that no
//! reader rates through a map that is not one. The checks: every number of the map
//! and of each rung finite, the map one a fit could have made ([`EloMap::check`]:
//! a falling line, a residual not below 0, a range of sensitivities), and the
//! `[reference]` within the ranges `--exact-empties` and `--reference-depth` accept.

use std::path::{Path, PathBuf};

use engines::{MAX_EXACT_EMPTIES, MAX_REFERENCE_DEPTH};
use record::lines::LineError;
use stats::MapError;

use crate::intrinsic::{Calibration, CalibrationReference};

/// The shipped calibration, as docs/intrinsic-calibration.toml holds it (built in, so
/// every face rates through it wherever the binary runs; a file at
/// [`SHIPPED_CALIBRATION_PATH`] in the working directory is read instead).
pub const SHIPPED_CALIBRATION: &str = include_str!("../../docs/intrinsic-calibration.toml");

/// Where [`SHIPPED_CALIBRATION`] lives in the sources: `rate --intrinsic`'s default.
pub const SHIPPED_CALIBRATION_PATH: &str = "docs/intrinsic-calibration.toml";

/// A calibration file named by `--intrinsic` that cannot be read or used.
#[derive(Debug, thiserror::Error)]
pub enum LoadCalibrationError {
    /// The file cannot be read (missing, not a regular file, over the caps).
    #[error("cannot read --intrinsic {}", .path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: LineError,
    },
    /// The file is not a calibration a reader can rate through.
    #[error(
        "bad --intrinsic {}: write one with `othello-arena rate RUNS --ladder --write-intrinsic FILE`",
        .path.display()
    )]
    Bad {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: ReadCalibrationError,
    },
}

/// A calibration file that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ReadCalibrationError {
    /// The text is not a calibration's TOML.
    #[error("not a calibration file")]
    Toml(#[source] toml::de::Error),
    /// Its map is not one a fit could have made.
    #[error(transparent)]
    Map(#[from] MapError),
    /// A rung's number is not finite.
    #[error("rung {player}'s {field} is {value}, not a finite number: the file was edited or damaged; write it again")]
    Rung {
        /// The rung's player.
        player: String,
        /// The field (`elo`, `softmax_s`, `regan_s`, `regan_c`).
        field: &'static str,
        /// Its value.
        value: f64,
    },
    /// The reference is outside the range its flag accepts.
    #[error(
        "[reference] {field} = {value} is outside {low}..={high}, the range {flag} accepts: \
         the values it names could not be made again; write the file again"
    )]
    Reference {
        /// The key (`exact_empties`, `depth`).
        field: &'static str,
        /// Its value.
        value: u32,
        /// The flag with the same range.
        flag: &'static str,
        /// The lowest value accepted.
        low: u32,
        /// The highest.
        high: u32,
    },
}

impl Calibration {
    /// The calibration file at `path` (`--intrinsic`), read within a settings file's
    /// caps and checked; when `path` is [`SHIPPED_CALIBRATION_PATH`] and the working
    /// directory has no such file, the built-in [`SHIPPED_CALIBRATION`].
    pub fn load(path: &Path) -> Result<Calibration, LoadCalibrationError> {
        let shipped = (SHIPPED_CALIBRATION_PATH, SHIPPED_CALIBRATION);
        let text =
            record::lines::read_settings_or_built_in(path, shipped).map_err(|source| LoadCalibrationError::Read {
                path: path.to_path_buf(),
                source,
            })?;
        Calibration::from_toml(&text).map_err(|source| LoadCalibrationError::Bad {
            path: path.to_path_buf(),
            source,
        })
    }

    /// The shipped calibration (a file at [`SHIPPED_CALIBRATION_PATH`] in the working
    /// directory overrides the built-in one), or why there is none, in a sentence:
    /// what `serve`'s leaderboard and the intrinsic stop rule rate through.
    pub fn shipped() -> Result<Calibration, String> {
        Calibration::load(Path::new(SHIPPED_CALIBRATION_PATH)).map_err(|err| {
            let mut text = err.to_string();
            let mut source = std::error::Error::source(&err);
            while let Some(cause) = source {
                text.push_str(&format!(": {cause}"));
                source = cause.source();
            }
            text
        })
    }

    /// The calibration as the file `rate --write-intrinsic` writes: a comment saying
    /// what it is, then its TOML.
    pub fn to_file_text(&self) -> Result<String, toml::ser::Error> {
        Ok(format!(
            "# The calibration of intrinsic ratings (`othello-arena rate`): each rung's choice models fitted on\n\
             # its valued decisions, the model kept, and the map from its sensitivity to the ladder's Elo.\n{}",
            toml::to_string(self)?
        ))
    }

    /// The calibration in `text` (TOML, as `rate --write-intrinsic` writes it), checked
    /// (see the module's doc): the one way a calibration is read.
    pub fn from_toml(text: &str) -> Result<Calibration, ReadCalibrationError> {
        let calibration: Calibration = toml::from_str(text).map_err(ReadCalibrationError::Toml)?;
        calibration.check()?;
        Ok(calibration)
    }

    /// Whether every number a reader uses is sound (see the module's doc).
    pub fn check(&self) -> Result<(), ReadCalibrationError> {
        self.map.check()?;
        for rung in &self.rungs {
            let numbers = [
                ("elo", rung.elo),
                ("softmax_s", rung.softmax_s),
                ("regan_s", rung.regan_s),
                ("regan_c", rung.regan_c),
            ];
            if let Some(&(field, value)) = numbers.iter().find(|(_, value)| !value.is_finite()) {
                return Err(ReadCalibrationError::Rung {
                    player: rung.player.clone(),
                    field,
                    value,
                });
            }
        }
        self.reference.check()
    }
}

impl CalibrationReference {
    /// Whether `exact_empties` and `depth` lie in the ranges of `--exact-empties`
    /// (0 to [`MAX_EXACT_EMPTIES`]) and `--reference-depth` (1 to [`MAX_REFERENCE_DEPTH`]).
    pub fn check(&self) -> Result<(), ReadCalibrationError> {
        let keys = [
            (
                "exact_empties",
                self.exact_empties,
                "--exact-empties",
                0,
                MAX_EXACT_EMPTIES,
            ),
            ("depth", self.depth, "--reference-depth", 1, MAX_REFERENCE_DEPTH),
        ];
        match keys
            .into_iter()
            .find(|&(_, value, _, low, high)| !(low..=high).contains(&value))
        {
            Some((field, value, flag, low, high)) => Err(ReadCalibrationError::Reference {
                field,
                value,
                flag,
                low,
                high,
            }),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
#[path = "calibration_file_tests.rs"]
mod tests;
