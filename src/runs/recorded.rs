//! What a run's files record of how it was played, beside the players: an external
//! engine's `[[engine]]` table and the opening suite. `arena` plays from them; the run
//! files keep them typed.

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// One `[[engine]]` table, as a file gives it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EngineTable {
    /// The engine's name in specs (`ext:NAME`), logs and tables: letters, digits,
    /// `.`, `_`, `-`.
    pub name: String,
    /// `gtp` or `nboard`.
    pub protocol: String,
    /// The program to run (a path, or a name looked up on `PATH`).
    pub command: String,
    /// Its arguments.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub args: Vec<String>,
    /// The folder it runs in (Edax reads `data/` from there); default: the current one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dir: Option<PathBuf>,
    /// Search depth: NBoard's `set depth`; over GTP only a label (set the depth with
    /// the engine's own flags, as Edax's `-l`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depth: Option<u32>,
    /// Seconds per move: GTP's `time_settings 0 T 1` (GTP only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_per_move: Option<f64>,
    /// Processes (games) at once; default 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_in_flight: Option<usize>,
    /// Seconds each answer may take before the engine counts as hung; default 60, or
    /// 10 more than three times `time_per_move`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout: Option<f64>,
}

/// The order in which a suite's openings are dealt to the pairs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OpeningsOrder {
    /// In the file's order: pair `p` plays line `p`.
    #[default]
    Sequential,
    /// Shuffled by the run's opening seed, the same for every run with that seed.
    Shuffle,
}

impl FromStr for OpeningsOrder {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim() {
            "sequential" => Ok(OpeningsOrder::Sequential),
            "shuffle" => Ok(OpeningsOrder::Shuffle),
            other => Err(format!(
                "{other:?} is not an openings order: give sequential or shuffle"
            )),
        }
    }
}

impl fmt::Display for OpeningsOrder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            OpeningsOrder::Sequential => "sequential",
            OpeningsOrder::Shuffle => "shuffle",
        })
    }
}

/// A run's opening suite as its run.json records it: a resume refuses a file whose
/// text changed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OpeningsRecord {
    /// The file as given.
    pub file: String,
    /// sha256 of its text, hex.
    pub sha256: String,
    /// Openings in the file.
    pub openings_in_file: usize,
    /// How they were dealt.
    pub order: OpeningsOrder,
    /// Whether they start over when the pairs outnumber them.
    pub cycle: bool,
    /// The opening of each pair, in pair order.
    pub used: Vec<String>,
}

impl OpeningsRecord {
    /// Why a resume whose openings are `now` cannot continue a run that recorded
    /// `then` (`None`: random openings), if it cannot: its remaining games would start
    /// elsewhere than its finished ones.
    pub fn changed_on_resume(then: Option<&OpeningsRecord>, now: Option<&OpeningsRecord>) -> Option<String> {
        match (then, now) {
            (None, None) => None,
            (Some(then), Some(now)) => then.changed(now),
            (None, Some(now)) => Some(format!("the run played random openings, not {}", now.file)),
            (Some(then), None) => Some(format!("the run played the openings of {}", then.file)),
        }
    }

    /// Why a resume with `now` (the suite as given again) cannot continue the run that
    /// recorded `self`, if it cannot.
    pub fn changed(&self, now: &OpeningsRecord) -> Option<String> {
        if self.sha256 != now.sha256 {
            Some(format!(
                "the openings file {} is not the one the run played (sha256 {} then, {} now)",
                now.file, self.sha256, now.sha256
            ))
        } else if (self.order, self.cycle) != (now.order, now.cycle) {
            Some(format!(
                "the openings were dealt {}{} and now {}{}",
                self.order,
                if self.cycle { " cycling" } else { "" },
                now.order,
                if now.cycle { " cycling" } else { "" }
            ))
        } else {
            None
        }
    }
}
