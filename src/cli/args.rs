//! Command-line arguments as clap parses them (raw; validated in the commands).

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use super::agent_args::{AgentArgs, HostArgs, LabelsArg};
use super::limits;
use engines::lab::TrainSettings;
use game::othello::{Color, Convention};
use runs::{Anchor, OpeningsOrder};
use stats::StopRule;

/// Measure how well LLM agents play Othello against classical engines.
#[derive(Debug, Parser)]
#[command(name = "othello-arena", version, about)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Count the leaves of the game tree (the last line printed is the count).
    Perft(PerftArgs),
    /// Show an engine's move, score, nodes and time in one position.
    Analyze(AnalyzeArgs),
    /// Play a match between two players (engines or llm:MODEL) and print the results.
    Play(PlayArgs),
    /// Evaluate an LLM agent: N games as black and N as white against each opponent.
    Eval(EvalArgs),
    /// List every attacker line that wipes out an engine within N plies.
    Wipeouts(WipeoutArgs),
    /// Measure speed: perft leaves/s, alpha-beta nodes/s, endgame solve times (FFO).
    Bench(BenchArgs),
    /// Solve a position exactly: best moves and final disc difference (empties to the winner).
    Solve(SolveArgs),
    /// Train the pattern evaluation on self-play positions it labels itself (the solver
    /// near the end, search before) and write the weights file.
    TrainEval(TrainEvalArgs),
    /// Replay a game log ply by ply: positions, the model's exchanges, moves, score.
    Replay(ReplayArgs),
    /// Recompute results and agent statistics from logs, grouped by model, prompt and opponent.
    Stats(StatsArgs),
    /// Rate every player of the given runs on one Elo scale (Bradley-Terry, bootstrap
    /// intervals), anchored to an engine.
    Rate(RateArgs),
    /// Place one player (an engine, llm:MODEL or ext:NAME) on the published ladder with
    /// as few games as it takes: each colour-swapped pair against the rung nearest its
    /// current rating, until the 95% interval is as narrow as asked.
    Place(PlaceArgs),
    /// Play a tournament file: engines and LLM players in a gauntlet or round robin,
    /// colour-swapped pairs on shared openings, optional early stopping; ratings at the end.
    Tournament(TournamentArgs),
    /// Write a self-contained HTML report: results, charts and every game replayable.
    Report(ReportArgs),
    /// Write finished games as GGF records (Edax, Egaroucid, NBoard, GGS) or move
    /// transcripts, one game a line.
    Export(ExportArgs),
    /// Compare runs side by side; runs that share openings are compared game pair by pair.
    Compare(CompareArgs),
    /// Seal run folders in one result bundle (a .tar.gz with a manifest of every file's
    /// SHA-256; docs/bundles.md) that anyone can check with `verify`.
    Bundle(BundleArgs),
    /// Check a bundle or a run folder: every file against the manifest, every game
    /// replayed through the rules and against the run's plan, every figure of
    /// results.json derived again; exits 0 only when everything holds.
    Verify(VerifyArgs),
    /// Write an Ollama Modelfile, and optionally create the model on the server.
    Modelfile(ModelfileArgs),
    /// List the prompts, templates and agent files built in (name, flag, sha256, use).
    Prompts,
    /// Opening suites: make a balanced one, or value each opening of a file.
    #[command(subcommand)]
    Openings(OpeningsCommand),
    /// Make test positions from seeded self-play, each move labelled with its score.
    #[command(subcommand)]
    Positions(PositionsCommand),
    /// Ask an LLM for one move in each test position: accuracy, regret, invalid and
    /// fallback rates, and a CSV of input, expected and actual moves.
    Probe(ProbeArgs),
    /// Write LoRA training data in seed 000's format, labelled by a teacher engine.
    Datagen(DatagenArgs),
    /// Open the web app: play any engine or model in the browser, watch the runs
    /// under --runs live, replay games, rate runs.
    Serve(ServeArgs),
    /// Serve one of our engines over GTP or NBoard on stdin/stdout (for NBoard, or
    /// as an external engine of a run).
    Engine(super::engine_server::EngineArgs),
    /// Serve games over the Model Context Protocol on stdin/stdout: any MCP client
    /// plays through tools, logged and rated like every other player (docs/mcp.md).
    Mcp(McpArgs),
}

/// `openings`.
#[derive(Debug, Subcommand)]
pub enum OpeningsCommand {
    /// Write distinct seeded random openings (symmetries removed) whose value by the
    /// reference, its opening bias taken out, lies within --max-abs discs.
    Generate(OpeningsGenerateArgs),
    /// Print each opening of a suite file with its value by the reference, and a
    /// histogram of the values.
    Check(OpeningsCheckArgs),
}

/// `--force`, the one flag of every command that writes an output file (`-o`,
/// `--csv`, `--write-ladder`).
#[derive(Clone, Copy, Debug, Args)]
pub struct Overwrite {
    /// Replace an output file that exists and holds something (without it, such a
    /// file is refused before any work).
    #[arg(long)]
    pub force: bool,
}

/// `openings generate`.
#[derive(Debug, Args)]
pub struct OpeningsGenerateArgs {
    /// Random plies an opening.
    #[arg(long, default_value_t = 8, value_parser = limits::flag::opening_plies)]
    pub plies: usize,
    /// Openings to write.
    #[arg(long, default_value_t = 100, value_parser = limits::flag::count)]
    pub count: usize,
    /// Keep openings whose centred value lies within this many discs of even.
    #[arg(long, default_value_t = 2.0, value_parser = limits::disc_margin)]
    pub max_abs: f64,
    /// The reference's search depth.
    #[arg(long, default_value_t = arena::OPENINGS_DEPTH, value_parser = limits::flag::reference_depth)]
    pub depth: u32,
    /// Seed of the random openings.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// The suite file to write.
    #[arg(short, long)]
    pub output: PathBuf,
    #[command(flatten)]
    pub overwrite: Overwrite,
}

/// `openings check`.
#[derive(Debug, Args)]
pub struct OpeningsCheckArgs {
    /// The suite file.
    pub file: PathBuf,
    /// The reference's search depth.
    #[arg(long, default_value_t = arena::OPENINGS_DEPTH, value_parser = limits::flag::reference_depth)]
    pub depth: u32,
    /// Print one JSON object instead of the table.
    #[arg(long)]
    pub json: bool,
}

/// `positions`.
#[derive(Debug, Subcommand)]
pub enum PositionsCommand {
    /// Generate labelled positions (JSONL) from seeded engine self-play.
    Generate(GenerateArgs),
}

/// `positions generate`.
#[derive(Debug, Args)]
pub struct GenerateArgs {
    /// The game: othello (positions from self-play), or marubatsu (the reachable
    /// positions where the mover wins at once or must block, each with its motif).
    #[arg(long, value_enum, default_value_t = GameArg::Othello)]
    pub game: GameArg,
    /// Number of distinct positions.
    #[arg(long, value_parser = limits::flag::count)]
    pub count: usize,
    /// Empty squares, a range such as 20-40 (Othello: each position's count drawn
    /// uniformly; default 20-40; marubatsu: a filter, default any).
    #[arg(long)]
    pub empties: Option<String>,
    /// Seed of the self-play games (of the sample, for marubatsu).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Also label each position with this engine's move (seed 000's expected answer).
    #[arg(long)]
    pub teacher: Option<String>,
    /// Output file (JSONL).
    #[arg(short = 'o', long = "output")]
    pub output: PathBuf,
    #[command(flatten)]
    pub overwrite: Overwrite,
    #[command(flatten)]
    pub reference: ReferenceArgs,
}

/// `probe`.
#[derive(Debug, Args)]
pub struct ProbeArgs {
    /// The LLM player: llm:MODEL.
    #[arg(long = "agent")]
    pub agent_spec: String,
    /// Positions file from `positions generate`.
    #[arg(long)]
    pub positions: PathBuf,
    /// What each position asks: move (a move, graded against the labels),
    /// legal-moves (every legal move: precision, recall, exact set) or after-move (the
    /// board after the position's best move: squares right, exact board). The last two
    /// show the board without its legal moves (Othello positions).
    #[arg(long, default_value = "move")]
    pub ask: arena::Ask,
    /// Positions asked at once.
    #[arg(long, default_value_t = 1, value_parser = limits::flag::parallel)]
    pub parallel: usize,
    /// Seed of the fallback's random choices.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Write one row per position (input, expected, actual, grade, regret) to this CSV.
    #[arg(long)]
    pub csv: Option<PathBuf>,
    #[command(flatten)]
    pub overwrite: Overwrite,
    /// Folder for the exchanges log and results (default logs/<time>-probe-<model>).
    #[arg(long)]
    pub log_dir: Option<PathBuf>,
    /// Print one JSON object instead of the table.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub agent: AgentArgs,
    #[command(flatten)]
    pub hosts: HostArgs,
}

/// `datagen`.
#[derive(Debug, Args)]
pub struct DatagenArgs {
    /// The teacher: n-hand[:N], n-least[:N], n-most[:N], greedy, alphabeta:D, or
    /// reference[:D[:E]] (the move-quality evaluator, in discs).
    #[arg(long)]
    pub teacher: String,
    /// Number of examples.
    #[arg(long, value_parser = limits::flag::count)]
    pub count: usize,
    /// Empty squares of the positions, a range such as 4-59.
    #[arg(long, default_value = "4-59")]
    pub empties: String,
    /// Seed of the self-play games and of the teacher's tie-breaks.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Language of the board text and the reasoning: ja (seed 000) or en.
    #[arg(long, value_enum, ignore_case = true, default_value_t = LabelsArg::Ja)]
    pub labels: LabelsArg,
    /// Output file (JSONL, one {"conversations": [...]} per line).
    #[arg(short = 'o', long = "output")]
    pub output: PathBuf,
    #[command(flatten)]
    pub overwrite: Overwrite,
}

/// A position given on the command line.
#[derive(Debug, Args)]
pub struct PositionArgs {
    /// 64 characters a1..h8 row by row: X = black, O = white, - = empty
    /// (default: the start position).
    #[arg(long, allow_hyphen_values = true)]
    pub board: Option<String>,
    /// Side to move with --board: black or white.
    #[arg(long, value_enum, default_value_t = Side::Black)]
    pub side: Side,
    /// Moves played from that position first, such as "c4 c3 c2" (passes as "pass").
    #[arg(long)]
    pub moves: Option<String>,
}

/// `perft`.
#[derive(Debug, Args)]
pub struct PerftArgs {
    /// Plies to count.
    #[arg(value_parser = limits::flag::perft_depth)]
    pub depth: u32,
    #[command(flatten)]
    pub position: PositionArgs,
    /// a: pass = 1 ply, finished games are leaves (default); b: exact depth only;
    /// c: pass = 0 ply.
    #[arg(long, value_enum, default_value_t = ConventionArg::A)]
    pub convention: ConventionArg,
}

/// `analyze`.
#[derive(Debug, Args)]
pub struct AnalyzeArgs {
    /// Engine spec (random, n-hand:3, greedy, search, alphabeta:4, ...).
    #[arg(long)]
    pub engine: String,
    #[command(flatten)]
    pub position: PositionArgs,
    /// Seed for engines with random choices.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Print one JSON object (keys move, score, nodes, ms, candidates).
    #[arg(long)]
    pub json: bool,
}

/// `play`.
#[derive(Debug, Args)]
pub struct PlayArgs {
    /// The game: othello, or marubatsu (seed 003's tic-tac-toe; black is 〇, who
    /// moves first, white is ×).
    #[arg(long, value_enum, default_value_t = GameArg::Othello)]
    pub game: GameArg,
    /// Spec of the player that starts as black.
    #[arg(long)]
    pub black: String,
    /// Spec of the player that starts as white.
    #[arg(long)]
    pub white: String,
    /// Number of games.
    #[arg(long, default_value_t = 1, value_parser = limits::flag::games)]
    pub games: usize,
    /// Alternate colors: each spec plays half the games as black; a pair of games
    /// shares its opening.
    #[arg(long)]
    pub swap: bool,
    #[command(flatten)]
    pub openings: OpeningsArgs,
    /// Seed for openings and engines' random choices.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Games played at once (default: the number of CPU cores).
    #[arg(long, value_parser = limits::flag::parallel)]
    pub parallel: Option<usize>,
    /// Write the per-player, per-color results as CSV to this file.
    #[arg(long)]
    pub csv: Option<PathBuf>,
    #[command(flatten)]
    pub overwrite: Overwrite,
    /// Print one JSON object instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Print the board after every move (plays one game at a time).
    #[arg(long)]
    pub show: bool,
    /// Folder for the run's logs (default with an llm: player: logs/<time>-<players>).
    #[arg(long)]
    pub log_dir: Option<PathBuf>,
    /// Score every move of both players against the reference evaluator: mean
    /// regret, best-move agreement and blunder rate by game phase.
    #[arg(long)]
    pub score_moves: bool,
    #[command(flatten)]
    pub reference: ReferenceArgs,
    /// Score with this external engine instead of ours: ext:NAME of --engines, an
    /// NBoard engine whose hint values are read as discs.
    #[arg(long = "reference", value_name = "ext:NAME", requires = "score_moves")]
    pub reference_engine: Option<String>,
    #[command(flatten)]
    pub agent: AgentArgs,
    #[command(flatten)]
    pub hosts: HostArgs,
}

/// Where the games start: random plies, or an opening suite's lines.
#[derive(Clone, Debug, Default, Args)]
pub struct OpeningsArgs {
    /// Random opening plies (seeded) so that games differ.
    #[arg(long, default_value_t = 0, value_parser = limits::flag::opening_plies)]
    pub opening_random: usize,
    /// Openings from a file, one a line: a move transcript (f5d6c3; -- or pa for a
    /// pass) or a board with the side to move; pair p of every pairing plays the p-th,
    /// with both colours.
    #[arg(long, value_name = "FILE", conflicts_with = "opening_random")]
    pub openings: Option<PathBuf>,
    /// The order the file's openings are dealt in: sequential, or shuffle (by the
    /// opening seed).
    #[arg(long, value_name = "ORDER", default_value_t = OpeningsOrder::Sequential, requires = "openings")]
    pub openings_order: OpeningsOrder,
    /// Start the file's openings over when the pairs outnumber them (else refused).
    #[arg(long, requires = "openings")]
    pub openings_cycle: bool,
}

/// The reference evaluator that scores moves.
#[derive(Clone, Copy, Debug, Args)]
pub struct ReferenceArgs {
    /// Score positions with this many empty squares or fewer exactly (endgame solve).
    #[arg(long, default_value_t = engines::DEFAULT_EXACT_EMPTIES, value_parser = limits::flag::exact_empties)]
    pub exact_empties: u32,
    /// Before that, estimate scores by a search this many plies deep.
    #[arg(long, default_value_t = engines::DEFAULT_DEPTH, value_parser = limits::flag::reference_depth)]
    pub reference_depth: u32,
}

/// `eval`.
#[derive(Debug, Args)]
pub struct EvalArgs {
    /// The LLM player: llm:MODEL.
    #[arg(long = "agent", required_unless_present = "resume")]
    pub agent_spec: Option<String>,
    /// Continue the interrupted run in this folder with the settings in its run.json:
    /// finished games are kept, unfinished ones are played again.
    #[arg(long, value_name = "RUN-DIR", conflicts_with_all = [
        "game", "agent_spec", "vs", "games", "OpeningsArgs", "seed", "opening_seed", "log_dir", "stop", "agent_file", "engines",
        "AgentSettings",
        "ReferenceArgs", "reference_engine",
    ])]
    pub resume: Option<PathBuf>,
    /// The game: othello, or marubatsu (seed 003's tic-tac-toe).
    #[arg(long, value_enum, default_value_t = GameArg::Othello)]
    pub game: GameArg,
    /// Opponents, comma-separated engine specs (default: the game's ladder,
    /// n-hand:3,n-least:3,n-most:3,random for Othello, ai2,ai8s,perfect for marubatsu).
    #[arg(long, value_delimiter = ',')]
    pub vs: Vec<String>,
    /// Games per color per opponent (with --stop: the most).
    #[arg(long, default_value_t = 1, value_parser = limits::flag::games)]
    pub games: usize,
    /// Stop each opponent's games early, deciding after every colour-swapped pair:
    /// sprt:ELO0,ELO1[,ALPHA,BETA] (GSPRT on logistic Elo), ci:WIDTH (the Elo
    /// difference's 95% interval narrower than WIDTH) or intrinsic:WIDTH (the agent's
    /// intrinsic rating's 95% interval narrower than WIDTH; docs/intrinsic.md).
    #[arg(long, value_name = "RULE")]
    pub stop: Option<StopRule>,
    #[command(flatten)]
    pub openings: OpeningsArgs,
    /// Seed for engines' random choices (and openings, unless --opening-seed is given).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Seed for the random openings alone: runs with the same value meet the same
    /// positions, so their games can be compared pair by pair (see `compare`).
    #[arg(long)]
    pub opening_seed: Option<u64>,
    /// Games played at once (the servers must serve that many requests in parallel);
    /// default 1 (a fleet: its total max_in_flight), or the interrupted run's value
    /// with --resume.
    #[arg(long, value_parser = limits::flag::parallel)]
    pub parallel: Option<usize>,
    /// Write seed 000's CSV (model,date,games_per_matchup,opponent,b_win,...) to this file.
    #[arg(long)]
    pub csv: Option<PathBuf>,
    #[command(flatten)]
    pub overwrite: Overwrite,
    /// Folder for the run's logs (default logs/<time>-<model>).
    #[arg(long)]
    pub log_dir: Option<PathBuf>,
    /// Print one JSON object (keys opponents and agent) instead of the tables.
    #[arg(long)]
    pub json: bool,
    /// Report the quality of the agent's moves against the reference evaluator: mean
    /// regret, best-move agreement and blunder rate by game phase (tables, results.json
    /// and run.json). The moves are valued (move-scores.jsonl) by default either way.
    #[arg(long)]
    pub score_moves: bool,
    /// Value none of the agent's decisions. By default every decision is valued by the
    /// reference after the games (every legal move's value, in move-scores.jsonl, for
    /// the intrinsic ratings); the results never depend on it.
    #[arg(long, conflicts_with_all = ["score_moves", "reference_engine"])]
    pub no_score_moves: bool,
    #[command(flatten)]
    pub reference: ReferenceArgs,
    /// Score with this external engine instead of ours: ext:NAME of --engines, an
    /// NBoard engine whose hint values are read as discs.
    #[arg(long = "reference", value_name = "ext:NAME", requires = "score_moves")]
    pub reference_engine: Option<String>,
    #[command(flatten)]
    pub agent: AgentArgs,
    #[command(flatten)]
    pub hosts: HostArgs,
}

/// `place`.
#[derive(Debug, Args)]
pub struct PlaceArgs {
    /// The player to place: an engine spec (standing in for a model), llm:MODEL or
    /// ext:NAME; not a rung of the ladder.
    #[arg(required_unless_present = "resume")]
    pub spec: Option<String>,
    /// Stop once the player's 95% interval (as `rate` computes it, the ladder's rungs
    /// held) is at most this wide, in Elo.
    #[arg(long, default_value_t = arena::DEFAULT_WIDTH, value_parser = limits::interval_width)]
    pub width: f64,
    /// The most colour-swapped pairs played, in all.
    #[arg(long, default_value_t = arena::DEFAULT_MAX_PAIRS, value_parser = limits::flag::games)]
    pub max_pairs: usize,
    /// A fixed gauntlet instead: these rungs of the ladder in turn, one pair each
    /// (comma-separated), with the same stop (the yardstick the adaptive choice is
    /// measured against).
    #[arg(long, value_delimiter = ',')]
    pub gauntlet: Vec<String>,
    /// Continue the interrupted run in this folder with the settings in its run.json.
    #[arg(long, value_name = "RUN-DIR", conflicts_with_all = [
        "spec", "width", "max_pairs", "gauntlet", "opening_random", "openings", "seed", "log_dir", "agent_file",
        "engines",
        "AgentSettings",
    ])]
    pub resume: Option<PathBuf>,
    /// Random opening plies (seeded), as the published ladder was played.
    #[arg(long, default_value_t = 4, value_parser = limits::flag::opening_plies)]
    pub opening_random: usize,
    /// Openings from a file instead, one a line: pair p plays the p-th, with both colours.
    #[arg(long, value_name = "FILE", conflicts_with = "opening_random")]
    pub openings: Option<PathBuf>,
    /// Seed for the players' random choices and the openings.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Games played at once (a pair is two games; default 2).
    #[arg(long, value_parser = limits::flag::parallel)]
    pub parallel: Option<usize>,
    /// Folder for the run's logs (default logs/<time>-<player>).
    #[arg(long)]
    pub log_dir: Option<PathBuf>,
    /// Print place.json's object instead of the table.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub agent: AgentArgs,
    #[command(flatten)]
    pub hosts: HostArgs,
}

/// `wipeouts`.
#[derive(Debug, Args)]
pub struct WipeoutArgs {
    /// The engine to wipe out.
    #[arg(long)]
    pub vs: String,
    /// The attacker's color.
    #[arg(long, value_enum, default_value_t = Side::Black)]
    pub attacker: Side,
    /// Longest line searched, in plies from the start (both sides' moves).
    #[arg(long, value_parser = limits::flag::wipeout_plies)]
    pub max_plies: usize,
    /// Seed for engines with random choices.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Print one JSON object (keys count, sequences).
    #[arg(long)]
    pub json: bool,
}

/// `bench`.
#[derive(Debug, Args)]
pub struct BenchArgs {
    /// perft, alphabeta, solve, eval, probcut, rate, intrinsic-coverage, llm (a model
    /// server's speed on the harness's requests: needs --agent) or all (all: perft and
    /// alphabeta).
    #[arg(value_enum, default_value_t = BenchTarget::All)]
    pub what: BenchTarget,
    /// Perft depth.
    #[arg(long, default_value_t = 11, value_parser = limits::flag::perft_depth)]
    pub perft_depth: u32,
    /// FFO problems solved by `bench solve`, a range of numbers such as 40-49.
    #[arg(long, default_value = "40-44")]
    pub ffo: String,
    /// Self-play positions `bench eval` measures in each of its two parts (`bench
    /// probcut`: at each number of empties).
    #[arg(long, default_value_t = 40, value_parser = limits::flag::count)]
    pub positions: usize,
    /// Empty squares of the positions `bench eval` and `bench probcut` score against
    /// exact values.
    #[arg(long, default_value = "20-24")]
    pub empties: String,
    /// Seed of those positions' self-play games (training uses other games), and of
    /// `bench rate`'s field.
    #[arg(long, default_value_t = 7)]
    pub seed: u64,
    /// Players of `bench rate`'s synthetic field.
    #[arg(long, default_value_t = 1000, value_parser = limits::flag::count)]
    pub players: usize,
    /// Games each player of `bench rate` plays, on average (each against a random other).
    #[arg(long, default_value_t = 20, value_parser = limits::flag::count)]
    pub games_each: usize,
    /// Bootstrap resamples `bench rate` times (`bench intrinsic-coverage`: for each
    /// drawn set of games).
    #[arg(long, default_value_t = 1000, value_parser = limits::flag::count)]
    pub resamples: usize,
    /// `bench intrinsic-coverage`: the calibration's run folders (as
    /// scripts/intrinsic-calibration.sh writes them under logs/intrinsic-calibration).
    #[arg(long, num_args = 1..)]
    pub runs: Vec<PathBuf>,
    /// `bench intrinsic-coverage`: the calibration file whose rungs are left out in turn.
    #[arg(long, default_value = "docs/intrinsic-calibration.toml")]
    pub intrinsic: PathBuf,
    /// `bench intrinsic-coverage`: sets of games drawn for each rung and each k.
    #[arg(long, default_value_t = 200, value_parser = limits::flag::count)]
    pub samples: usize,
    /// `bench intrinsic-coverage`: the numbers of games k in each drawn set.
    #[arg(long, value_delimiter = ',', default_value = "4,8,16")]
    pub k: Vec<usize>,
    /// `bench llm`: the LLM player, llm:MODEL, asked for a move in --positions
    /// seeded positions (default 40; a few, such as 10, on a slow server) with the
    /// agent and host flags below.
    #[arg(long = "agent")]
    pub agent_spec: Option<String>,
    /// `bench llm`: positions asked at once (send as many as the server has slots).
    #[arg(long, default_value_t = 1, value_parser = limits::flag::parallel)]
    pub parallel: usize,
    #[command(flatten)]
    pub agent: AgentArgs,
    #[command(flatten)]
    pub hosts: HostArgs,
}

/// `replay`.
#[derive(Debug, Args)]
pub struct ReplayArgs {
    /// A game log (game-NNNN.jsonl) or a seed 000 log of {"request","response"} lines.
    pub log: PathBuf,
    /// Show only this ply.
    #[arg(long)]
    pub ply: Option<usize>,
    /// Print the replay as one JSON object.
    #[arg(long)]
    pub json: bool,
}

/// `stats`.
#[derive(Debug, Args)]
pub struct StatsArgs {
    /// Run folders, folders of runs (logs/: every run under it), game logs
    /// (game-NNNN.jsonl) and/or result bundles (`bundle`).
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// Print one JSON object (key groups) instead of the tables.
    #[arg(long)]
    pub json: bool,
}

/// `rate`.
#[derive(Debug, Args)]
pub struct RateArgs {
    /// Run folders, folders of runs (logs/: every run under it), game logs and/or
    /// result bundles (`bundle`).
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// The player held fixed, and its rating: SPEC=ELO (default: random=0, else the
    /// first player at 0). Naming one turns the published ladder off.
    #[arg(long)]
    pub anchor: Option<Anchor>,
    /// Hold every engine of a ladder file at its rating and fit only the other
    /// players (default file: docs/ladder-ratings.toml), so that the engines of a
    /// gauntlet, which meet only the models, stay where the ladder put them. Without
    /// this flag the published ladder (docs/ladder-ratings.toml) holds its engines.
    #[arg(long, value_name = "FILE", num_args = 0..=1, default_missing_value = runs::PUBLISHED_LADDER_PATH, conflicts_with_all = ["anchor", "write_ladder", "no_ladder"])]
    pub ladder: Option<PathBuf>,
    /// Fit every player from these games alone: the published ladder's engines are
    /// not held at its ratings.
    #[arg(long)]
    pub no_ladder: bool,
    /// Write the engines' ratings of these runs (a ladder run) as a ladder file for
    /// --ladder.
    #[arg(long, value_name = "FILE")]
    pub write_ladder: Option<PathBuf>,
    /// Fit the intrinsic ratings' calibration on the --ladder rungs' valued decisions
    /// in these runs and write it to this file (docs/intrinsic-calibration.toml is
    /// rebuilt so by scripts/intrinsic-calibration.sh).
    #[arg(long, value_name = "FILE", requires = "ladder")]
    pub write_intrinsic: Option<PathBuf>,
    /// With --write-intrinsic: fit only decisions valued exactly (the calibration file
    /// records it, and players are then rated on the same decisions).
    #[arg(long, requires = "write_intrinsic")]
    pub intrinsic_exact: bool,
    /// With --write-intrinsic: fit only decisions whose moves' values spread at least
    /// this many discs (the stakes; recorded in the file like --intrinsic-exact).
    #[arg(long, value_name = "DISCS", default_value_t = 0.0, value_parser = limits::disc_margin, requires = "write_intrinsic")]
    pub intrinsic_min_spread: f64,
    /// The intrinsic ratings' calibration (default: the one shipped under docs/).
    #[arg(long, value_name = "FILE", default_value = DEFAULT_CALIBRATION)]
    pub intrinsic: PathBuf,
    /// Do not value the decisions of runs without values (by default `rate` values
    /// them with the calibration's reference, as --score-moves values, and writes move-scores.jsonl
    /// into each run folder for the next time).
    #[arg(long)]
    pub no_value: bool,
    /// Value decisions with this reference: solve positions with this many empty
    /// squares or fewer exactly (default: the --intrinsic calibration's reference, the
    /// kind of values it was fitted on; --score-moves' default reference is deeper).
    /// Naming it or --reference-depth values again the runs valued otherwise; without
    /// either, the values a run holds are kept.
    #[arg(long, value_parser = limits::flag::exact_empties, conflicts_with = "no_value")]
    pub exact_empties: Option<u32>,
    /// Value decisions with this reference: search this many plies deep before the
    /// exact empties (default: the --intrinsic calibration's reference).
    #[arg(long, value_parser = limits::flag::reference_depth, conflicts_with = "no_value")]
    pub reference_depth: Option<u32>,
    /// Bootstrap resamples for the 95% intervals.
    #[arg(long, default_value_t = runs::DEFAULT_BOOTSTRAP, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub bootstrap: u32,
    /// Seed of the bootstrap.
    #[arg(long, default_value_t = runs::DEFAULT_BOOTSTRAP_SEED)]
    pub seed: u64,
    /// Also write the table as CSV to this file.
    #[arg(long)]
    pub csv: Option<PathBuf>,
    #[command(flatten)]
    pub overwrite: Overwrite,
    /// Print one JSON object (keys as_played, fallback_as_loss) instead of the tables.
    #[arg(long)]
    pub json: bool,
}

/// `tournament`.
#[derive(Debug, Args)]
pub struct TournamentArgs {
    /// The tournament file (TOML: format, engines, [[llm]] players, games, stop, ...).
    #[arg(required_unless_present = "resume")]
    pub file: Option<PathBuf>,
    /// Continue the interrupted tournament in this run folder.
    #[arg(long, value_name = "RUN-DIR", conflicts_with_all = ["file", "log_dir", "openings"])]
    pub resume: Option<PathBuf>,
    /// An opening suite file, in place of the tournament file's `openings` (one
    /// opening a line: a move transcript or a board with the side to move).
    #[arg(long, value_name = "FILE")]
    pub openings: Option<PathBuf>,
    /// Games played at once (default: the LLM players' hosts' total max_in_flight, or 1).
    #[arg(long, value_parser = limits::flag::parallel)]
    pub parallel: Option<usize>,
    /// Folder for the run (default logs/<time>-tournament).
    #[arg(long)]
    pub log_dir: Option<PathBuf>,
    /// Print one JSON object (pairings and ratings) instead of the tables.
    #[arg(long)]
    pub json: bool,
    /// Rate every player from the tournament's games alone: the published ladder's
    /// engines are not held at its ratings.
    #[arg(long)]
    pub no_ladder: bool,
    /// Value none of the LLM players' decisions. By default every decision is valued by
    /// the reference after the games (move-scores.jsonl, which the intrinsic table
    /// reads); the results never depend on it. run.json records it, and a resume keeps
    /// it.
    #[arg(long)]
    pub no_score_moves: bool,
}

/// `report`.
#[derive(Debug, Args)]
pub struct ReportArgs {
    /// Run folders, folders of runs (logs/: every run under it), game logs and/or
    /// result bundles (`bundle`).
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// Rate every player from these games alone: the published ladder's engines are
    /// not held at its ratings.
    #[arg(long)]
    pub no_ladder: bool,
    /// The HTML file to write.
    #[arg(short, long, default_value = "report.html")]
    pub output: PathBuf,
    #[command(flatten)]
    pub overwrite: Overwrite,
}

/// `export`.
#[derive(Debug, Args)]
pub struct ExportArgs {
    /// Run folders, folders of runs (logs/: every run under it), game logs and/or
    /// result bundles (`bundle`).
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// ggf (one record a game: players, result, start position, every move and pass,
    /// the model's and the fallback's moves in a comment) or transcript (f5d6c3...).
    #[arg(long, value_enum, default_value_t = ExportFormat::Ggf)]
    pub format: ExportFormat,
    /// The file to write (default: stdout).
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    #[command(flatten)]
    pub overwrite: Overwrite,
}

/// `bundle`.
#[derive(Debug, Args)]
pub struct BundleArgs {
    /// Run folders to seal.
    #[arg(required = true)]
    pub runs: Vec<PathBuf>,
    /// The bundle to write (`.tar.gz` by convention).
    #[arg(short, long)]
    pub output: PathBuf,
    #[command(flatten)]
    pub overwrite: Overwrite,
}

/// `verify`.
#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// A bundle file, or a run folder.
    pub path: PathBuf,
}

/// The record format of `export`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ExportFormat {
    /// Generic Game Format.
    Ggf,
    /// Moves from the usual start, passes left out.
    Transcript,
}

/// `compare`.
#[derive(Debug, Args)]
pub struct CompareArgs {
    /// Run folders, folders of runs (every run under it, by path) or result bundles
    /// (their runs): the first run is the baseline, each other one is compared with it.
    #[arg(required = true, num_args = 1..)]
    pub runs: Vec<PathBuf>,
    /// Print one JSON object (keys runs and comparisons) instead of the tables.
    #[arg(long)]
    pub json: bool,
}

/// `modelfile`.
#[derive(Debug, Args)]
pub struct ModelfileArgs {
    /// The base model (FROM): model:tag, a GGUF path or a safetensors folder.
    #[arg(long)]
    pub from: String,
    /// System prompt: a file, or a name in ./prompts/ or built in (`othello-arena prompts`).
    #[arg(long)]
    pub system: Option<String>,
    /// Prompt template file (TEMPLATE, Go template syntax).
    #[arg(long)]
    pub template: Option<PathBuf>,
    /// A parameter, such as temperature=0.3 or stop="<|im_end|>" (repeatable).
    #[arg(long = "param", value_name = "KEY=VALUE")]
    pub params: Vec<String>,
    /// Write the Modelfile here (default: standard output).
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    #[command(flatten)]
    pub overwrite: Overwrite,
    /// Create the model NAME on the Ollama server (POST /api/create), showing its progress.
    #[arg(long, value_name = "NAME")]
    pub create: Option<String>,
    /// Ollama server: host[:port] or URL (default: $OLLAMA_HOST, else 127.0.0.1:11434).
    #[arg(long)]
    pub host: Option<String>,
}

/// `train-eval`.
#[derive(Debug, Args)]
pub struct TrainEvalArgs {
    // The defaults are the settings the shipped weights were trained with.
    /// Self-play games to draw positions from.
    #[arg(long, default_value_t = TrainSettings::default().games, value_parser = limits::flag::count)]
    pub games: usize,
    /// Seed of the self-play games.
    #[arg(long, default_value_t = TrainSettings::default().seed)]
    pub seed: u64,
    /// Positions with at most this many empties are labelled exactly by the solver.
    #[arg(long, default_value_t = TrainSettings::default().exact_empties, value_parser = limits::flag::train_exact_empties)]
    pub exact_empties: u32,
    /// Depth of the labelling search before that.
    #[arg(long, default_value_t = TrainSettings::default().search_depth, value_parser = limits::flag::train_search_depth)]
    pub search_depth: u32,
    /// Fitting steps per phase.
    #[arg(long, default_value_t = TrainSettings::default().epochs, value_parser = limits::flag::epochs)]
    pub epochs: u32,
    /// The weights file to write (move it over src/engines/pattern/weights.bin and put
    /// its printed hash into SHIPPED_SHA256 to ship it).
    #[arg(short = 'o', long = "output")]
    pub output: PathBuf,
    #[command(flatten)]
    pub overwrite: Overwrite,
}

/// `solve`.
#[derive(Debug, Args)]
pub struct SolveArgs {
    #[command(flatten)]
    pub position: PositionArgs,
    /// Print one JSON object (keys best_moves, score, nodes, ms).
    #[arg(long)]
    pub json: bool,
}

/// A side, as flags name it.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum Side {
    /// Black (moves first).
    Black,
    /// White.
    White,
}

impl From<Side> for Color {
    fn from(side: Side) -> Color {
        match side {
            Side::Black => Color::Black,
            Side::White => Color::White,
        }
    }
}

/// `perft --convention`.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum ConventionArg {
    /// Pass = 1 ply, finished games are leaves.
    A,
    /// Pass = 1 ply, only paths of the full depth.
    B,
    /// Pass = 0 ply.
    C,
}

impl From<ConventionArg> for Convention {
    fn from(arg: ConventionArg) -> Convention {
        match arg {
            ConventionArg::A => Convention::A,
            ConventionArg::B => Convention::B,
            ConventionArg::C => Convention::C,
        }
    }
}

/// What `bench` measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum BenchTarget {
    /// perft and alphabeta.
    All,
    /// Perft leaves per second.
    Perft,
    /// Alpha-beta nodes per second.
    Alphabeta,
    /// FFO endgame solve times (`--ffo`).
    Solve,
    /// The evaluations against exact scores (`--positions`, `--empties`, `--seed`).
    Eval,
    /// Shallow searches against exact scores, the error model of the solver's
    /// selective passes (`--positions` at each of `--empties`, `--seed`).
    Probcut,
    /// The rating fit on a synthetic field (`--players`, `--games-each`, `--resamples`, `--seed`).
    Rate,
    /// The coverage of intrinsic intervals: each calibration rung left out of the map
    /// in turn and rated from `--samples` draws of k of its games (`--runs`,
    /// `--intrinsic`, `--k`, `--resamples`, `--seed`).
    IntrinsicCoverage,
    /// A model server's speed on the harness's own move requests, by its own clock and
    /// the wall's (`--agent`, `--positions`, `--parallel`, `--seed`, agent and host flags).
    Llm,
}

/// `--game`: which game a command plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum GameArg {
    /// Othello (the default).
    Othello,
    /// Seed 003's marubatsu (tic-tac-toe).
    Marubatsu,
}

/// `serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Address to listen on (port 8765 by default, which the model servers' own
    /// defaults, 8080 and 11434, leave free). Anything but a loopback address needs a
    /// token (--token, or one generated and printed at start).
    #[arg(long, default_value = "127.0.0.1:8765", value_parser = limits::listen_address)]
    pub bind: SocketAddr,
    /// The runs folder: games played in the browser are logged here, and the watch
    /// page shows (only) the run folders under it.
    #[arg(long, default_value = "logs")]
    pub runs: PathBuf,
    #[command(flatten)]
    pub listen: ListenArgs,
    /// Games played in the browser at once.
    #[arg(long, default_value_t = 16, value_parser = limits::flag::parallel)]
    pub max_games: usize,
    /// Abandon a browser game that waits this many seconds for the person's move (its
    /// log ends `game_stopped`, reason `abandoned`; its slot is freed).
    #[arg(long, value_name = "SECONDS", default_value_t = 3600.0, value_parser = limits::timeout)]
    pub move_wait: f64,
    #[command(flatten)]
    pub agent: AgentArgs,
    #[command(flatten)]
    pub hosts: HostArgs,
}

/// The flags of a face that listens for HTTP (`serve`, `mcp --http`).
#[derive(Debug, Args)]
pub struct ListenArgs {
    /// Require this token on every request (`Authorization: Bearer TOKEN`; serve's
    /// printed address carries it). Needed to listen on anything but a loopback
    /// address: without it, one is generated and printed at start.
    #[arg(long)]
    pub token: Option<String>,
    /// Connections open at once.
    #[arg(long, default_value_t = 64, value_parser = limits::flag::parallel)]
    pub max_connections: usize,
    /// Close a connection that has not sent a request's headers within this many
    /// seconds (so clients that never finish them cannot hold every connection).
    #[arg(long, value_name = "SECONDS", default_value_t = 10.0, value_parser = limits::timeout)]
    pub header_timeout: f64,
}

/// `mcp`.
#[derive(Debug, Args)]
// The listening flags bound connections over --http; over stdio there are none.
#[command(group(clap::ArgGroup::new("listening").args(["max_connections", "header_timeout"]).multiple(true).requires("http")))]
pub struct McpArgs {
    /// The game: othello, or marubatsu.
    #[arg(long, value_enum, default_value_t = GameArg::Othello)]
    pub game: GameArg,
    /// The opponent's spec (an engine, ext:NAME, llm:MODEL). Give it several times to
    /// offer several: new_game's `opponent` chooses among them, the first by default.
    #[arg(long = "opponent", value_name = "SPEC", default_value = "random")]
    pub opponents: Vec<String>,
    /// The run's own folder, new or empty, as in eval (default: a new run folder under
    /// --runs). A folder that already holds files but no run.json is read as --runs
    /// (its meaning before), with a note.
    #[arg(long, value_name = "RUN-DIR")]
    pub log_dir: Option<PathBuf>,
    /// The folder of runs, as in serve: without --log-dir, the client's games go to a
    /// new run folder under it, named after the client.
    #[arg(long, value_name = "DIR", default_value = "logs", conflicts_with = "log_dir")]
    pub runs: PathBuf,
    #[command(flatten)]
    pub openings: OpeningsArgs,
    /// Seed for openings and engines' random choices (game N derives its own).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// The client's player name in logs and tables, as mcp:NAME (default: the name
    /// and version the client's MCP handshake gives).
    #[arg(long)]
    pub name: Option<String>,
    /// Illegal play_move calls at one ply before --fallback moves for the client
    /// (forfeit: the client loses the game).
    #[arg(long, default_value_t = 3, value_parser = limits::flag::agent_rounds)]
    pub max_invalid: u32,
    /// Games open at once (over --http: for each client).
    #[arg(long, default_value_t = 16, value_parser = limits::flag::parallel)]
    pub max_games: usize,
    /// Serve MCP's Streamable HTTP transport at http://ADDR/mcp instead of stdio, for
    /// clients that are not one long-lived process (web agents, the MCP Inspector, the
    /// conformance suite). Loopback only unless a token is given (--token, or one
    /// generated and printed for any other address).
    #[arg(long, value_name = "ADDR", value_parser = limits::listen_address)]
    pub http: Option<SocketAddr>,
    #[command(flatten)]
    pub listen: ListenArgs,
    /// Over --http: a game that waits this many seconds for its client's next call at
    /// its turn is logged as stopped (`abandoned`), as is a session idle that long
    /// (`disconnected`).
    #[arg(long, value_name = "SECONDS", default_value_t = 3600.0, value_parser = limits::timeout, requires = "http")]
    pub move_wait: f64,
    #[command(flatten)]
    pub agent: AgentArgs,
    #[command(flatten)]
    pub hosts: HostArgs,
}

/// `--intrinsic` by default: the calibration shipped under docs/ (built in).
pub const DEFAULT_CALIBRATION: &str = runs::SHIPPED_CALIBRATION_PATH;

#[cfg(test)]
mod tests {
    use super::*;

    /// clap's own checks of every command's flags (names, groups, `requires`,
    /// conflicts), which it otherwise makes only when that command is run.
    #[test]
    fn every_command_s_flags_are_well_formed() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }
}
