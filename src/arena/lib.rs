//! Games between players, matches and evaluations with statistics, replay of logged
//! games, resuming interrupted runs, wipeout search.
//!
//! The workspace's crate map is in the `game` crate's documentation.

#![deny(missing_docs)]

mod accuracy;
mod agent_stats;
mod eval;
mod groups;
mod hosts;
mod leaderboard;
mod logs;
mod matchup;
mod plan;
mod play;
mod player;
mod probe;
mod quality;
mod ratings;
mod replay;
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
pub use eval::{run_eval, run_eval_sequential, EvalConfig, EvalGame, EvalResult, OpponentResult};
pub use groups::{collect_groups, Group, GroupGame, Groups, GroupsError, Key};
pub use hosts::{host_usage, HostUsage};
pub use leaderboard::{
    leaderboard, leaderboards, LeaderRow, Leaderboard, LeaderboardError, RatingView, RunGame, MIN_UNITS,
};
pub use logs::{cut_off_note, read_game_logs, GameLogs, LoggedGame, LogsError};
pub use matchup::{run_match, MatchConfig, MatchResult, SpecTally};
pub use plan::{Format, Plan};
pub use play::{play_game, random_opening, Forfeit, GameContext, GameError, GameRecord, PlyObserver, PlyRecord};
pub use player::{Action, LlmPlayer, PlayError, Played, Player, PlayerSpec};
pub use probe::{run_probe, Grade, ProbeResult};
pub use quality::{
    score_games, GameToScore, MoveQuality, Phase, QualityTally, ScoredMove, ScoringStopped, ScoringWatch,
};
pub use ratings::{fit_ratings, ladder_position, RatedGame, Rating, RatingError, RatingOptions};
pub use replay::{replay_records, replay_seed_lines, ExchangeView, GameReplay, PlyView, ReplayError, ToolView};
pub use results_file::{
    EvalResults, GradeCounts, MeanRegret, OpponentResults, PairingResult, ProbeResults, RunResults, Stopping,
    TallySummary, TournamentRatings, TournamentResults,
};
pub use resume::{load_resume_state, rebuild_game, ResumeError, ResumeState};
pub use run_file::{
    EvalRun, Harness, PlayRun, ProbeRun, ReadRunError, Resume, RunFile, RunKind, RunPlayer, ServeRun, TournamentRun,
};
pub use run_folder::{check_output, utc_now, OutputError, RunFolder, RunFolderError, LOCK_FILE};
pub use schedule::{play_logged, run_games, MatchError, MatchEvent, RunOptions, ScheduledGame, Seat};
pub use sequential::{run_sequential, Pairing, PairingStop, SequentialResult};
pub use stats::{mean_interval, percentile, wilson_interval, Tally};
pub use stopping::{Decision, GameScore, StopRule, TrialUnit, Trials, Verdict};
pub use tally::{GameSummary, Matchup, NotAGameLog};
