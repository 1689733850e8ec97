//! Run folders and what they hold, typed, and everything that reads them: one API for
//! "the logs of this folder" ([`read_game_logs`], [`Groups::read`]) and "its run.json"
//! ([`RunFolder`], [`RunFile`]), called by every command and face that reads a run.
//!
//! - `bundle`: run folders sealed in one checkable file ([`write_bundle`], read back by
//!   [`Bundle::open`]; docs/bundles.md is the format);
//! - `run_folder`: a run folder's life on disk ([`RunFolder`]: atomic name, lock,
//!   run.json, results.json, decisions.jsonl, set-aside logs); `output_file`: where a
//!   command's output files may go and how they are written ([`write_output_file`]);
//! - `run_file` and `recorded`: run.json typed ([`RunFile`]: players, agent settings,
//!   an external engine's [`EngineTable`], the [`OpeningsRecord`]); `results_file`:
//!   results.json typed ([`RunResults`]), `probe_text` the probe's tables;
//! - `logs`, `replay`, `tally` and `agent_stats`: game logs read back
//!   ([`read_game_logs`]), a game replayed as the agent saw it ([`GameReplay`], read
//!   and shown as text by `replay_text`), a game as the reports count it
//!   ([`GameSummary`], [`Matchup::add`]), what an LLM player did ([`AgentStats`], its
//!   report lines in `agent_text`: [`agent_lines`], [`opponent_rows`]);
//! - `players`: a player is its settings ([`PlayerNames`]: runs of one model with
//!   other settings are other players, in every reader); `grid`: a tournament entry's
//!   settings grid expanded into players ([`Grid`]);
//! - `compare`: two runs' verdict ([`Compared`]: paired games, the pooled Elo
//!   difference with its interval, the settings that differ);
//! - `move_scores` and `intrinsic`: `move-scores.jsonl` typed ([`ScoredMove`]), each
//!   player's valued decisions ([`Decisions`]) rated by a choice model through the
//!   ladder's [`Calibration`] ([`IntrinsicTable`]); `two_tables`: where the method was
//!   validated ([`Validated`]) and the row that says when the two tables disagree;
//! - `groups`, `leaderboard`, `rating`, `hosts`, `report`, `export`, `csv_table`: the
//!   readers' views ([`Groups`], ratings on one scale: [`Leaderboard`], rated once
//!   for every face by [`rate_games`], per-host usage:
//!   [`HostUsage`], the HTML report: [`report_page`], GGF and transcripts: [`ggf`],
//!   every CSV table: [`CsvTable`]); `ladder_file`: the ladder file read, chosen and
//!   written ([`Ladder::load`], [`LadderChoice::from_flags`]); `listing`: a folder of
//!   runs listed for the watch page ([`list_runs`]: each run, its games at a glance,
//!   whether it is running).
//!
//! Statistics come from the `stats` crate; playing (and resume's replaying of a game's
//! moves) is `arena`'s. The workspace's crate map is in the `game` crate's documentation.

#![deny(missing_docs)]

mod agent_stats;
mod agent_text;
mod bundle;
mod calibration_file;
mod compare;
mod csv_table;
mod export;
mod grid;
mod groups;
mod hosts;
mod intrinsic;
mod ladder_file;
mod leaderboard;
mod listing;
mod logs;
mod move_scores;
mod output_file;
mod players;
mod probe_text;
mod rating;
mod recorded;
mod replay;
mod replay_text;
mod report;
mod results_file;
mod run_file;
mod run_folder;
mod tail;
mod tally;
mod two_tables;

pub use agent_stats::{AgentRates, AgentStats, ServerSpeed};
pub use agent_text::{agent_lines, opponent_rows};
pub use bundle::{
    first_difference, is_bundle, prompt_files, sha256_bytes, write_bundle, Bundle, BundleError, BundleHarness,
    Manifest, ManifestFile, RunInputs, BUNDLE_FORMAT, BUNDLE_VERSION, CALIBRATION_ENTRY, LADDER_ENTRY,
};
pub use calibration_file::{LoadCalibrationError, ReadCalibrationError, SHIPPED_CALIBRATION, SHIPPED_CALIBRATION_PATH};
pub use compare::{
    compared_folders, load_run, CompareError, Compared, ComparedRun, Comparison, Paired, Pooled, Verdict,
};
pub use csv_table::CsvTable;
pub use export::{ggf, transcript, ExportError};
pub use grid::{Grid, GridError, GridPlayer};
pub use groups::{collect_groups, groups_json, Group, GroupGame, Groups, GroupsError, Key};
pub use hosts::{folder_host_usage, host_usage, HostUsage};
pub use intrinsic::{
    coverage_heading, coverage_text, intrinsic_table, Calibration, CalibrationError, CalibrationReference,
    CalibrationRung, CoverageRow, DecisionFilter, Decisions, HeldScores, IntrinsicRow, IntrinsicTable,
    CALIBRATION_DEPTH, CALIBRATION_EXACT_EMPTIES, MAX_INTRINSIC_RESAMPLES, REGAN_MARGIN,
};
pub use ladder_file::{ratings_csv, LoadLadderError, WriteLadderError};
pub use leaderboard::{
    canonical_player, leaderboard, leaderboard_tables, leaderboards, Anchor, Ladder, LadderError, LeaderRow,
    Leaderboard, LeaderboardError, RatingView, RunGame, Rung, DEFAULT_BOOTSTRAP, DEFAULT_BOOTSTRAP_SEED,
};
pub use listing::{
    folder_game_logs, is_running, list_runs, GameGlance, ListedRun, RunList, LIVE_WITHIN, MAX_LISTED_RUNS,
};
pub use logs::{read_game_logs, run_folders, GameLogs, LoggedGame, LogsError};
pub use move_scores::{
    faulty_games, read_move_scores, write_move_scores, MoveScoresError, ScoredMove, MOVE_SCORES_FILE,
    SEARCHED_VALUE_BOUND, VALUE_BOUND,
};
pub use output_file::{check_output_file, write_output_file, OutputFileError, WriteError};
pub use players::PlayerNames;
pub use rating::{
    published_ladder, rate_games, LadderChoice, RateError, RateSettings, Ratings, PUBLISHED_LADDER,
    PUBLISHED_LADDER_PATH,
};
pub use recorded::{EngineTable, OpeningsOrder, OpeningsRecord};
pub use replay::{replay_records, ExchangeView, GameReplay, PlyView, Reading, ReplayError, SentMessage, ToolView};
pub use replay_text::ReadReplayError;
pub use report::{report_page, REPORT_TEMPLATE};
pub use results_file::{
    EvalResults, GradeCounts, MeanRegret, OpponentResults, PairingResult, PairingStop, ProbeResults, RulesProbeResults,
    RunResults, Share, Stopping, TallySummary, TournamentRatings, TournamentResults,
};
pub use run_file::{
    changed_agent_settings, read_run_text, EvalRun, Harness, McpClient, McpRun, PlaceRun, PlayRun, ProbeRun,
    ReadRunError, RecordedSettings, Resume, RunEngine, RunFile, RunKind, RunPlayer, ServeRun, TournamentRun,
};
pub use run_folder::{check_output, utc_now, OutputError, RunFolder, RunFolderError, LOCK_FILE};
pub use tail::{LogTail, NewLines};
pub use tally::{tally_header, tally_row, GameSummary, Matchup, NotAGameLog};
pub use two_tables::Validated;
