//! Games between players, matches and evaluations with statistics, replay of logged
//! games, resuming interrupted runs, wipeout search.
//!
//! A move's way from a player to the tables, one shape per stage:
//! - a player's turn gives an [`Action`]: a [`Played`] move (the move, its source, the
//!   agent's [`record::AgentDecision`] for an LLM) or a forfeit; the agent builds it,
//!   engines and forced passes too;
//! - the game loop logs it through [`record::GameWriter`] (the one writer of every
//!   line of a game's log; the agent writes its exchanges through it too) and keeps it
//!   as a [`PlyRecord`] of the finished [`GameRecord`];
//! - every report counts a game as a [`GameSummary`], built from a game just played or
//!   from its log, by one tally ([`Matchup::add`]).
//!
//! The workspace's crate map is in the `game` crate's documentation.

#![deny(missing_docs)]

mod accuracy;
mod agent_stats;
mod balanced;
mod connection;
mod engine_group;
mod engine_process;
mod engine_streams;
mod eval;
mod export;
mod external;
mod groups;
mod hosts;
mod leaderboard;
mod logs;
mod matchup;
mod openings;
mod plan;
mod play;
mod player;
mod players;
mod probe;
mod quality;
mod ratings;
mod replay;
mod report;
mod results_file;
mod resume;
mod run_file;
mod run_folder;
mod schedule;
mod sequential;
mod stats;
mod stopping;
mod tally;

pub use accuracy::{accuracy, calibration, solve_all, Accuracy, Calibration, Solved};
pub use agent_stats::{AgentRates, AgentStats};
pub use balanced::{balanced_openings, start_bias, suite_values, value_for_black, BalancedSettings, RatedOpening};
pub use connection::{ConnectError, Connection, HostSettings};
pub use engine_group::end_engine_processes;
pub use engine_process::ExternalError;
pub use eval::{run_eval, run_eval_sequential, EvalConfig, EvalGame, EvalResult, OpponentResult};
pub use export::{ggf, transcript, ExportError};
pub use external::{EngineTable, EngineTableError, ExternalEngine, ExternalPlayer, ExternalScorer, Strength};
pub use groups::{collect_groups, groups_json, Group, GroupGame, Groups, GroupsError, Key};
pub use hosts::{host_usage, HostUsage};
pub use leaderboard::{
    default_leaderboards, leaderboard, leaderboard_tables, leaderboards, rated_players, Anchor, Ladder, LadderError,
    LeaderRow, Leaderboard, LeaderboardError, RatingView, RunGame, Rung, DEFAULT_BOOTSTRAP, DEFAULT_BOOTSTRAP_SEED,
    MIN_UNITS,
};
pub use logs::{cut_off_note, read_game_logs, GameLogs, LoggedGame, LogsError};
pub use matchup::{run_match, MatchConfig, MatchResult, SpecTally};
pub use openings::{OpeningSuite, Openings, OpeningsOrder, OpeningsRecord, SuiteLineError, SuiteOpening};
pub use plan::{Format, Plan};
pub use play::{play_game, random_opening, Forfeit, GameContext, GameError, GameRecord, PlyObserver, PlyRecord};
pub use player::{Action, LlmPlayer, PlayError, Played, Player, PlayerSpec};
pub use players::{llm_model, OpponentError, Players};
pub use probe::{run_probe, Grade, ProbeResult};
pub use quality::{
    score_games, GameToScore, MoveQuality, MoveScorer, Phase, QualityTally, ScoredMove, ScoringError, ScoringStopped,
    ScoringWatch,
};
pub use ratings::{
    check_resamples, fit_ratings, fit_ratings_held, ladder_position, RatedGame, Rating, RatingError, RatingFit,
    RatingOptions, RatingWatch, MIN_BOOTSTRAP,
};
pub use replay::{replay_records, replay_seed_lines, ExchangeView, GameReplay, PlyView, ReplayError, ToolView};
pub use report::{report_page, ReportError, REPORT_TEMPLATE};
pub use results_file::{
    EvalResults, GradeCounts, MeanRegret, OpponentResults, PairingResult, ProbeResults, RunResults, Stopping,
    TallySummary, TournamentRatings, TournamentResults,
};
pub use resume::{load_resume_state, rebuild_game, ResumeError, ResumeState};
pub use run_file::{
    changed_agent_settings, EvalRun, Harness, PlayRun, ProbeRun, ReadRunError, Resume, RunEngine, RunFile, RunKind,
    RunPlayer, ServeRun, TournamentRun,
};
pub use run_folder::{check_output, utc_now, OutputError, RunFolder, RunFolderError, LOCK_FILE};
pub use schedule::{play_logged, run_games, MatchError, MatchEvent, RunOptions, ScheduledGame, Seat};
pub use sequential::{run_sequential, Pairing, PairingStop, SequentialResult};
pub use stats::{mean_and_sd, mean_interval, percentile, whole, wilson_interval, Tally};
pub use stopping::{Decision, GameScore, StopRule, TrialUnit, Trials, Verdict};
pub use tally::{GameSummary, Matchup, NotAGameLog};
