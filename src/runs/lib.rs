//! Run folders and what they hold, typed, and everything that reads them: one API for
//! "the logs of this folder" ([`read_game_logs`], [`Groups::read`]) and "its run.json"
//! ([`RunFolder`], [`RunFile`]), called by every command and face that reads a run.
//!
//! - [`run_folder`]: a run folder's life on disk (atomic name, lock, run.json,
//!   results.json, decisions.jsonl, set-aside logs);
//! - [`run_file`] and [`recorded`]: run.json typed (players, agent settings, an external
//!   engine's table, the opening suite); [`results_file`]: results.json typed;
//! - [`logs`], [`replay`], [`tally`] and [`agent_stats`]: game logs read back, a game
//!   replayed as the agent saw it, a game as the reports count it ([`GameSummary`],
//!   [`Matchup::add`]), what an LLM player did;
//! - [`groups`], [`leaderboard`], [`hosts`], [`report`], [`export`]: the readers' views
//!   (pairings, ratings on one scale, per-host usage, the HTML report, GGF and
//!   transcripts).
//!
//! Statistics come from the `stats` crate; playing (and resume's replaying of a game's
//! moves) is `arena`'s. The workspace's crate map is in the `game` crate's documentation.

#![deny(missing_docs)]

pub mod agent_stats;
pub mod export;
pub mod groups;
pub mod hosts;
pub mod leaderboard;
pub mod logs;
pub mod recorded;
pub mod replay;
pub mod report;
pub mod results_file;
pub mod run_file;
pub mod run_folder;
pub mod tally;

pub use agent_stats::{AgentRates, AgentStats};
pub use export::{ggf, transcript, ExportError};
pub use groups::{collect_groups, groups_json, Group, GroupGame, Groups, GroupsError, Key};
pub use hosts::{host_usage, HostUsage};
pub use leaderboard::{
    default_leaderboards, leaderboard, leaderboard_tables, leaderboards, rated_players, Anchor, Ladder, LadderError,
    LeaderRow, Leaderboard, LeaderboardError, RatingView, RunGame, Rung, DEFAULT_BOOTSTRAP, DEFAULT_BOOTSTRAP_SEED,
    MIN_UNITS,
};
pub use logs::{cut_off_note, read_game_logs, GameLogs, LoggedGame, LogsError};
pub use recorded::{EngineTable, OpeningsOrder, OpeningsRecord};
pub use replay::{replay_records, replay_seed_lines, ExchangeView, GameReplay, PlyView, ReplayError, ToolView};
pub use report::{report_page, REPORT_TEMPLATE};
pub use results_file::{
    EvalResults, GradeCounts, MeanRegret, OpponentResults, PairingResult, PairingStop, ProbeResults, RunResults,
    Stopping, TallySummary, TournamentRatings, TournamentResults,
};
pub use run_file::{
    changed_agent_settings, EvalRun, Harness, PlayRun, ProbeRun, ReadRunError, Resume, RunEngine, RunFile, RunKind,
    RunPlayer, ServeRun, TournamentRun,
};
pub use run_folder::{check_output, utc_now, OutputError, RunFolder, RunFolderError, LOCK_FILE};
pub use tally::{GameSummary, Matchup, NotAGameLog};
