//! Games between players, matches with statistics, and the wipeout search.

mod game;
mod matchup;
mod stats;
mod wipeouts;

pub use game::{play_game, random_opening, GameRecord, PlyObserver};
pub use matchup::{run_match, MatchConfig, MatchError, MatchEvent, MatchResult, SpecTally};
pub use stats::{wilson_interval, Tally};
pub use wipeouts::{find_wipeouts, WipeoutError};
