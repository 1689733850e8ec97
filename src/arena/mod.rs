//! Games between players, matches and evaluations with statistics, replay of logged
//! games, resuming interrupted runs, wipeout search.

mod datagen;
mod eval;
mod game;
mod hosts;
mod matchup;
mod parallel;
mod player;
mod positions;
mod probe;
mod quality;
mod ratings;
mod replay;
mod resume;
mod schedule;
mod stats;
mod stopping;
mod tally;
mod wipeouts;

pub use datagen::{Teacher, TeacherError};
pub use eval::{run_eval, AgentStats, EvalConfig, EvalGame, EvalResult, OpponentResult};
pub use game::{play_game, random_opening, GameContext, GameError, GameRecord, PlyObserver, PlyRecord};
pub use hosts::{host_usage, HostUsage};
pub use matchup::{run_match, MatchConfig, MatchResult, SpecTally};
pub use parallel::parallel_map;
pub use player::{LlmPlayer, PlayError, Played, Player, PlayerSpec};
pub use positions::{self_play_positions, BadPosition, LabelledPosition};
pub use probe::{run_probe, Grade, ProbeResult};
pub use quality::{score_games, GameToScore, MoveQuality, Phase, QualityTally, ScoredMove, BLUNDER_DISCS};
pub use replay::{replay_records, replay_seed_lines, ExchangeView, GameReplay, PlyView, ReplayError, ToolView};
pub use resume::{game_log_path, load_resume_state, rebuild_game, ResumeError, ResumeState};
pub use schedule::{derive_seed, run_games, MatchError, MatchEvent, RunOptions, ScheduledGame};
pub use ratings::{fit_ratings, ladder_position, RatedGame, Rating, RatingError, RatingOptions};
pub use stopping::{Decision, EloInterval, GameScore, ParseStopRuleError, StopRule, TrialUnit, Trials, Verdict};
pub use stats::{mean_interval, percentile, wilson_interval, Tally};
pub use tally::{GameSummary, Matchup, NotAGameLog};
pub use wipeouts::{find_wipeouts, WipeoutError};
