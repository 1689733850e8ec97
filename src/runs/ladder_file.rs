//! A ladder file, the rate command's other file format, read and written in one place:
//! `--ladder FILE` read (the built-in published ladder when the default path is not in
//! the working directory: [`Ladder::load`]), the ladder a command's flags choose
//! ([`LadderChoice::from_flags`]), a ladder run's engines written as one
//! ([`Ladder::file_text`], `--write-ladder`), and the ratings as `--csv` writes them
//! ([`ratings_csv`]).

use std::path::{Path, PathBuf};

use record::lines::LineError;

use crate::leaderboard::{Ladder, LadderError, Leaderboard, RatingView};
use crate::rating::{published_ladder, LadderChoice, PUBLISHED_LADDER, PUBLISHED_LADDER_PATH};
use crate::CsvTable;

/// A ladder file named by `--ladder` that cannot be read or used.
#[derive(Debug, thiserror::Error)]
pub enum LoadLadderError {
    /// The file cannot be read.
    #[error("cannot read --ladder {}", .path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: LineError,
    },
    /// The file is not a ladder.
    #[error("bad --ladder {}", .path.display())]
    Bad {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: LadderError,
    },
}

/// Why a ladder run's engines cannot be written as a ladder.
#[derive(Debug, thiserror::Error)]
pub enum WriteLadderError {
    /// The runs rate no engine.
    #[error("bad --write-ladder: these runs rate no engine")]
    NoEngine(#[source] LadderError),
    /// The ladder does not write as TOML.
    #[error("cannot write the ladder as TOML")]
    Toml(#[source] toml::ser::Error),
}

impl Ladder {
    /// The ladder file at `path` (`--ladder`), checked; when `path` is
    /// [`PUBLISHED_LADDER_PATH`] and the working directory has no such file, the
    /// built-in published ladder.
    pub fn load(path: &Path) -> Result<Ladder, LoadLadderError> {
        let shipped = (PUBLISHED_LADDER_PATH, PUBLISHED_LADDER);
        let text = record::lines::read_settings_or_built_in(path, shipped).map_err(|source| LoadLadderError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        Ladder::from_toml(&text).map_err(|source| LoadLadderError::Bad {
            path: path.to_path_buf(),
            source,
        })
    }

    /// The engines' ratings of `as_played` (a ladder run's, the runs at `runs`) as the
    /// ladder file `--write-ladder` writes, its source naming the command and the time.
    pub fn file_text(runs: &[PathBuf], as_played: &Leaderboard) -> Result<String, WriteLadderError> {
        let runs: Vec<String> = runs.iter().map(|p| p.display().to_string()).collect();
        let source = format!(
            "othello-arena rate {} --write-ladder, {}",
            runs.join(" "),
            crate::utc_now().0
        );
        let ladder = Ladder::from_board(as_played, source).map_err(WriteLadderError::NoEngine)?;
        Ok(format!(
            "# A published engine ladder for `othello-arena rate --ladder FILE`: the engines' ratings\n\
             # from the runs named in `source`, held fixed when other players are rated.\n{}",
            toml::to_string(&ladder).map_err(WriteLadderError::Toml)?
        ))
    }
}

impl LadderChoice {
    /// The ladder that holds the engines: `--ladder`'s file (`ladder`), none with
    /// `--no-ladder` or when the command writes a ladder (a ladder run rates its
    /// engines from its own games), else the published one.
    pub fn from_flags(
        ladder: Option<&Path>,
        no_ladder: bool,
        writes_ladder: bool,
    ) -> Result<LadderChoice, LoadLadderError> {
        Ok(match ladder {
            Some(path) => LadderChoice::File(path.display().to_string(), Ladder::load(path)?),
            None if no_ladder || writes_ladder => LadderChoice::Off,
            None => LadderChoice::Published,
        })
    }

    /// The ladder's source and rungs (what a calibration is fitted on), if there is one.
    pub fn rungs(&self) -> Option<(&str, &Ladder)> {
        match self {
            LadderChoice::File(source, ladder) => Some((source.as_str(), ladder)),
            LadderChoice::Published => Some((PUBLISHED_LADDER_PATH, published_ladder())),
            LadderChoice::Off => None,
        }
    }
}

/// An interval bound for the CSV: empty when there is no interval.
fn bound(value: f64) -> String {
    if value.is_finite() {
        format!("{value:.1}")
    } else {
        String::new()
    }
}

/// The ratings as `rate --csv` writes them: a row per player of each view (as played,
/// then with fallback games as losses when there is that view).
pub fn ratings_csv(as_played: &Leaderboard, as_loss: Option<&Leaderboard>) -> String {
    let mut table = CsvTable::new(&[
        "view",
        "player",
        "kind",
        "elo",
        "low",
        "high",
        "games",
        "score",
        "model_moves",
        "moves_asked",
        "ladder",
    ]);
    for board in std::iter::once(as_played).chain(as_loss) {
        let view = match board.view {
            RatingView::AsPlayed => "as_played",
            RatingView::FallbackAsLoss => "fallback_as_loss",
        };
        for row in &board.rows {
            let r = &row.rating;
            let (asked, decided) = row
                .moves
                .map_or((String::new(), String::new()), |(a, d)| (a.to_string(), d.to_string()));
            let kind = serde_json::to_value(row.kind)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default();
            table.row(&[
                view.to_string(),
                row.player.clone(),
                kind,
                format!("{:.1}", r.elo),
                bound(r.low),
                bound(r.high),
                r.games.to_string(),
                r.score.to_string(),
                decided,
                asked,
                row.ladder.clone().unwrap_or_default(),
            ]);
        }
    }
    table.finish()
}
