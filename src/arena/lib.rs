//! Playing: plans and schedules (a match, an eval = a gauntlet of one LLM, a
//! tournament, a placement on the ladder: [`Placement`]), players (engines, LLMs,
//! external engine processes), openings, the game loop, resuming interrupted runs,
//! and move scoring against the reference. Run folders, logs and reports are the `runs` crate's; statistics the `stats` crate's.
//!
//! A move's way from a player to the tables, one shape per stage:
//! - a player's turn gives an `Action`: a `Played` move (the move, its source, the
//!   agent's [`record::AgentDecision`] for an LLM) or a forfeit; the agent builds it,
//!   engines and forced passes too;
//! - the game loop logs it through [`record::GameWriter`] (the one writer of every
//!   line of a game's log; the agent writes its exchanges through it too) and keeps it
//!   as a `PlyRecord` of the finished `GameRecord`;
//! - every report counts a game as a [`runs::GameSummary`], built from a game just
//!   played (`GameRecord::summary`) or from its log, by one tally
//!   ([`runs::Matchup::add`]).
//!
//! The workspace's crate map is in the `game` crate's documentation.

#![deny(missing_docs)]

mod accuracy;
mod balanced;
mod bench;
mod client;
mod client_calls;
mod client_game;
mod client_plan;
mod client_run;
mod client_seat;
mod client_store;
mod connection;
mod engine_group;
mod engine_process;
mod engine_streams;
mod engines_file;
mod eval;
mod eval_flags;
mod eval_plan;
mod eval_run;
mod external;
mod external_engine;
mod interrupt;
mod intrinsic;
mod lifecycle;
mod llm_bench;
mod llm_table;
mod match_report;
mod matchup;
mod openings;
mod place;
mod place_run;
mod plan;
mod play;
mod player;
mod player_spec;
mod players;
mod probe;
mod quality;
mod resume;
mod rules_probe;
mod schedule;
mod scheduled;
mod scoring;
mod sequential;
mod stop_judge;
mod suite_file;
mod tournament;
mod tournament_players;
mod valuing;
mod verify;
mod watch;

pub use accuracy::{
    accuracy, calibration, eval_bench, probcut_bench, solve_all, Accuracy, Calibration, EvalBench, ProbcutRow, Solved,
};
pub use balanced::{
    balanced_openings, histogram, start_bias, suite_file_text, suite_values, suite_values_text, BalancedSettings,
    RatedOpening, OPENINGS_DEPTH,
};
pub use bench::{ffo_range, perft_bench, search_bench, solve_bench, BenchError, PerftRow, SearchBench, SolveRow};
pub use client::{
    player_name, ClientGames, ClientSettings, MAX_ARGUMENT, MAX_CALLS_PER_PLY, MAX_CLIENTS, MAX_SESSION_GAMES,
};
pub use client_calls::{ClientAnswer, ClientCall, ClientError, ClientResult, ClientState, Discs};
pub use client_game::ClientSeat;
pub use client_plan::{ClientFlags, ClientPlan, ClientPlanError};
pub use client_run::ClientRun;
pub use client_store::ClientStore;
pub use connection::{ConnectError, Connection, HostSettings, HostSettingsError, ReachError};
pub use engine_process::ExternalError;
pub use engine_streams::LineReader;
pub use engines_file::{
    engines_file, identify_engines, reference_engine, resolve_engine, EnginesFileError, ReferenceError,
};
pub use eval::{run_eval, EvalConfig, EvalGame, EvalResult, OpponentResult};
pub use eval_flags::{EvalFlags, EvalFlagsError};
pub use eval_plan::{
    check_eval_csv, eval_opponents, resumed_scoring, ContraryScoringError, EvalEnd, EvalFinishError, EvalPlan,
    EvalWritten, MoveValuing, RESULTS_CSV,
};
pub use eval_run::{recorded_eval, EvalRunError, EvalSettings, OpenEval, RecordedEvalError};
pub use external::{ExternalPlayer, ExternalScorer};
pub use external_engine::{EngineTableError, ExternalEngine, Strength};
pub use interrupt::{watch_signals, Interrupt, ServerStop};
pub use intrinsic::{logs_table, stop_judge, IntrinsicError, IntrinsicFlags, IntrinsicPlan};
pub use lifecycle::{Interrupted, Resumed, Run, RunError, RunGames, Start};
pub use llm_bench::{llm_bench, LlmBench};
pub use llm_table::LlmEntry;
pub use matchup::{run_match, MatchConfig, MatchResult, SpecTally};
pub use openings::{OpeningSuite, Openings, SuiteLineError, SuiteOpening};
pub use place::{
    ladder_opponents, published_rating, Chooser, PlaceError, PlaceFlags, PlaceFlagsError, PlaceStep, PlaceStop, Placed,
    Placement, DEFAULT_MAX_PAIRS, DEFAULT_PARALLEL, DEFAULT_WIDTH, START_ELO,
};
pub use place_run::{recorded_place, OpenPlacement, PlaceResult, RecordedPlaceError};
pub use plan::{Format, Plan};
pub use play::random_opening;
pub use player_spec::{is_llm_spec, LlmPlayer, ParseSpecError, PlayerSpec, UnknownSpecError};
pub use players::{OpponentError, Players};
pub use probe::{
    open_probe_run, probe_run, probe_summary, read_positions_file, run_probe, Grade, PositionsError, ProbeError,
    ProbePlan, ProbeResult,
};
pub use quality::{
    GameToScore, MoveQuality, MoveScorer, Phase, QualityTally, ScoredMove, ScoringError, ScoringStopped, ScoringWatch,
};
pub use resume::{rebuild_game, ResumeError, ResumeState};
pub use rules_probe::{rules_probe_run, rules_summary, run_rules_probe, Ask, BoardScore, ListScore, RulesAnswer};
pub use schedule::{MatchError, MatchEvent, RunOptions};
pub use scheduled::ScheduledGame;
pub use scoring::{Scoring, ValueMovesError};
pub use sequential::Pairing;
pub use stop_judge::{StopJudge, StopJudgeError};
pub use suite_file::{CannotRead, SuiteFileError};
pub use tournament::{
    llm_player_name, recorded_tournament, AnchorError, Entrants, OpenTournament, RateRunError, Tournament,
    TournamentError, TournamentFile, TournamentGames, TournamentRating,
};
pub use tournament_players::EntrantsError;
pub use valuing::{RunValues, ValueError, Valued, Valuing};
pub use verify::{verify, Verified, VerifyError};
pub use watch::GameWatch;
