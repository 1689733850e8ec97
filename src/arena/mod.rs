//! Games between players, matches and evaluations with statistics, replay of logged
//! games, wipeout search.

mod eval;
mod game;
mod matchup;
mod player;
mod replay;
mod schedule;
mod stats;
mod wipeouts;

pub use eval::{run_eval, AgentStats, EvalConfig, EvalResult, OpponentResult};
pub use game::{play_game, random_opening, GameContext, GameError, GameRecord, PlyObserver, PlyRecord};
pub use matchup::{run_match, MatchConfig, MatchResult, SpecTally};
pub use player::{LlmPlayer, PlayError, Played, Player, PlayerSpec};
pub use replay::{replay_records, replay_seed_lines, ExchangeView, GameReplay, PlyView, ReplayError, ToolView};
pub use schedule::{derive_seed, run_games, MatchError, MatchEvent, RunOptions, ScheduledGame};
pub use stats::{percentile, wilson_interval, Tally};
pub use wipeouts::{find_wipeouts, WipeoutError};
