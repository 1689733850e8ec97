//! `verify`: a run folder, or every run of a result bundle ([`runs::Bundle`]), worked
//! out again from its games alone, stopping at the first thing that differs (named by
//! its file and figure):
//! - a bundle's every entry against its manifest (the `runs` crate's reading), and the
//!   ladder and calibration it holds against the ones this build rates with;
//! - the prompt texts of run.json (and a bundle's `prompts/` copies) against their
//!   recorded SHA-256;
//! - every game log replayed through the rules ([`runs::replay_records`]: each move
//!   legal and by the side to move, passes only where forced, the final discs and the
//!   result as logged), each move's source as its decision records it, and every move
//!   of a built-in engine chosen again by that engine from the game's seed;
//! - for an eval or a play (of either game: the one the run's logs name), the games
//!   against its plan; for an eval, its tallies and agent statistics derived again
//!   from the logs ([`runs::Matchup::add`]);
//! - for a tournament, the games against the plan its run.json and file make
//!   ([`Plan::tournament`]: players, colours, seeds and openings of every game; a
//!   game missing from a pairing, one added, one after its pairing's stop), the stop
//!   rule's decisions asked again pair by pair (decisions.jsonl), and results.json's
//!   pairings and ratings derived again by the functions that wrote them, figure by
//!   figure.

use std::path::{Path, PathBuf};

use agent::ModelGame;
use engines::GameEngine;
use game::othello::Color;
use game::{Game, Line, Marubatsu, Othello};
use record::{game_log_path, game_start, is_game_log, read_game_log_prefix, Event, MoveSource, Record};
use runs::{
    first_difference, is_bundle, prompt_files, rate_games, read_game_logs, read_run_text, replay_records, sha256_bytes,
    Anchor, Bundle, BundleError, OpeningsOrder, RateSettings, RunFile, RunGame, RunKind, TournamentRatings,
    TournamentResults, TournamentRun, CALIBRATION_ENTRY, LADDER_ENTRY, PUBLISHED_LADDER, SHIPPED_CALIBRATION,
};
use serde_json::Value;
use stats::{RatingWatch, StopRule};

use super::eval::{opponent_tables, EvalResult};
use super::intrinsic::stop_judge;
use super::lifecycle::RunGames;
use super::matchup::match_plan;
use super::openings::{OpeningSuite, Openings};
use super::plan::Plan;
use super::play::GameRecord;
use super::resume::{check_players, rebuild_game, ResumeError};
use super::scheduled::ScheduledGame;
use super::sequential::decide_played;
use super::stop_judge::StopJudge;
use super::tournament::{pairing_results, TournamentFile};

/// What a verification went through, all of it holding.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Verified {
    /// Runs checked.
    pub runs: usize,
    /// Bundle entries checked against the manifest (0 for a run folder).
    pub files: usize,
    /// Prompt texts checked against their hashes.
    pub prompts: usize,
    /// Finished games replayed.
    pub games: usize,
    /// Moves replayed (passes included).
    pub moves: usize,
    /// Moves of built-in engines chosen again from the game's seed.
    pub engine_moves: usize,
    /// Moves of models, people and external engines in runs whose plan was derived
    /// again: legal by the rules, but taken as the log gives them (nobody can be asked
    /// again).
    pub logged_moves: usize,
    /// Figures of results.json and decisions.jsonl derived again and compared.
    pub figures: usize,
    /// What was not derived again, one line each (nothing for a tournament).
    pub notes: Vec<String>,
}

/// The first thing that does not hold.
#[derive(Debug, thiserror::Error)]
pub enum VerifyError {
    /// A file says something its games (or its hashes) do not.
    #[error("{file}: {what}")]
    Differs {
        /// The file, as the bundle names it (`BUNDLE:runs/NAME/FILE`) or its path.
        file: String,
        /// The figure and both values, or what is missing or added.
        what: String,
    },
    /// The bundle cannot be read, or an entry is not the manifest's.
    #[error(transparent)]
    Bundle(#[from] BundleError),
}

/// How a stop rule is judged again.
type JudgeFor<'a> = &'a dyn Fn(StopRule) -> Result<StopJudge, String>;

/// A stop rule judged again as a run judges it ([`stop_judge`]).
fn judge_again(rule: StopRule) -> Result<StopJudge, String> {
    match stop_judge::<Othello>(Some(rule)) {
        Ok(Some(judge)) => Ok(judge),
        Ok(None) => Err("no stop rule".to_string()),
        Err(e) => Err(e.to_string()),
    }
}

/// Verifies `path`: a bundle file, or a run folder.
pub fn verify(path: &Path) -> Result<Verified, VerifyError> {
    let judge: JudgeFor<'_> = &judge_again;
    let mut verified = Verified::default();
    if !path.exists() {
        return Err(differs(
            path,
            "no such file or folder: give a result bundle (`othello-arena bundle` writes one) or a run folder",
        ));
    }
    if path.is_file() && !is_bundle(path) {
        return Err(differs(
            path,
            "neither a result bundle (the .tar.gz that `othello-arena bundle` writes) nor a run folder",
        ));
    }
    if !is_bundle(path) {
        verify_run(path, false, judge, &mut verified).map_err(|e| e.named(path, None))?;
        return Ok(verified);
    }
    let bundle = Bundle::open(path)?;
    verified.files = bundle.manifest.files.len() + 1;
    for (entry, ours) in [
        (LADDER_ENTRY, PUBLISHED_LADDER),
        (CALIBRATION_ENTRY, SHIPPED_CALIBRATION),
    ] {
        let held = bundle.entry_text(entry).ok_or_else(|| VerifyError::Differs {
            file: format!("{}:{entry}", path.display()),
            what: "missing: a bundle holds the ladder and calibration its runs were rated with".to_string(),
        })?;
        if held != ours {
            return Err(VerifyError::Differs {
                file: format!("{}:{entry}", path.display()),
                what: format!(
                    "sha256 {} is not this build's ({}): check the bundle with the build that wrote it ({} {})",
                    sha256_bytes(held.as_bytes()),
                    sha256_bytes(ours.as_bytes()),
                    bundle.manifest.harness.version,
                    bundle.manifest.harness.commit.as_deref().unwrap_or("commit unknown")
                ),
            });
        }
    }
    for dir in bundle.run_dirs() {
        verify_run(&dir, true, judge, &mut verified).map_err(|e| e.named(path, Some(bundle.root())))?;
    }
    Ok(verified)
}

impl VerifyError {
    /// The error with its file named from the bundle (`BUNDLE:runs/NAME/FILE`) or as
    /// the path given.
    fn named(self, given: &Path, root: Option<&Path>) -> VerifyError {
        match (self, root) {
            (VerifyError::Differs { file, what }, Some(root)) => {
                let inner = Path::new(&file)
                    .strip_prefix(root)
                    .map_or(file.clone(), |p| p.display().to_string());
                VerifyError::Differs {
                    file: format!("{}:{inner}", given.display()),
                    what,
                }
            }
            (other, _) => other,
        }
    }
}

fn differs(file: &Path, what: impl Into<String>) -> VerifyError {
    VerifyError::Differs {
        file: file.display().to_string(),
        what: what.into(),
    }
}

/// One finished game log: its number, path and records.
struct Logged {
    number: usize,
    path: PathBuf,
    records: Vec<Record>,
}

fn verify_run(dir: &Path, bundled: bool, judge: JudgeFor<'_>, verified: &mut Verified) -> Result<(), VerifyError> {
    let run = RunFile::read(dir).map_err(|e| differs(&dir.join("run.json"), format!("{e:#}")))?;
    check_prompts(dir, &run, bundled, verified)?;
    let logs = replay_logs(dir, verified)?;
    verified.runs += 1;
    // A run plays one game (run.json does not name it; its logs do): a log of another
    // game is found when the logs are held to the plan.
    let game = logs
        .first()
        .and_then(|log| game_start(&log.records))
        .map_or(Game::Othello, |start| start.game());
    match (&run.run, game) {
        (RunKind::Tournament(tournament), _) => check_tournament(dir, tournament, &logs, judge, verified),
        (RunKind::Eval(eval), Game::Othello) => check_eval::<Othello>(dir, eval, &logs, judge, verified),
        (RunKind::Eval(eval), Game::Marubatsu) => check_eval::<Marubatsu>(dir, eval, &logs, judge, verified),
        (RunKind::Play(play), Game::Othello) => check_play::<Othello>(dir, play, &logs, verified),
        (RunKind::Play(play), Game::Marubatsu) => check_play::<Marubatsu>(dir, play, &logs, verified),
        (other, _) => {
            verified.notes.push(format!(
                "{}: a {} run: its games replayed and its prompts checked; plans are derived again for tournament, \
                 eval and play runs only",
                dir.display(),
                other.command()
            ));
            Ok(())
        }
    }
}

/// Each prompt text of run.json against its recorded hash; a bundle's `prompts/`
/// copies against their names, each recorded prompt present.
fn check_prompts(dir: &Path, run: &RunFile, bundled: bool, verified: &mut Verified) -> Result<(), VerifyError> {
    let run_json = dir.join("run.json");
    for (spec, agent) in run.agents() {
        let prompts = [
            ("system_prompt", &agent.system_prompt),
            ("user_template", &agent.user_template),
        ];
        for (key, prompt) in prompts {
            let Some(prompt) = prompt else { continue };
            let hashed = sha256_bytes(prompt.text.as_bytes());
            if hashed != prompt.sha256 {
                return Err(differs(
                    &run_json,
                    format!(
                        "player {spec}: {key}.sha256 is {}, but its text hashes to {hashed}: the text was edited",
                        prompt.sha256
                    ),
                ));
            }
            verified.prompts += 1;
        }
    }
    if !bundled {
        return Ok(());
    }
    for (name, text) in prompt_files(run) {
        let path = dir.join(&name);
        let held = std::fs::read(&path)
            .map_err(|_| differs(&path, "missing: the bundle holds each prompt text its run.json records"))?;
        if held != text.as_bytes() {
            return Err(differs(
                &path,
                format!(
                    "its text hashes to {}, not the {} its name and run.json record: the text was edited",
                    sha256_bytes(&held),
                    name.trim_start_matches("prompts/").trim_end_matches(".txt")
                ),
            ));
        }
        verified.prompts += 1;
    }
    Ok(())
}

/// Every game log of `dir` (`game-NNNN.jsonl`) read and, when finished, replayed
/// through the rules; the finished ones, by number.
fn replay_logs(dir: &Path, verified: &mut Verified) -> Result<Vec<Logged>, VerifyError> {
    let entries = std::fs::read_dir(dir).map_err(|e| differs(dir, format!("cannot be read: {e}")))?;
    let mut paths: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| is_game_log(p))
        .collect();
    paths.sort();
    let mut logged = Vec::new();
    for path in paths {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let number = name
            .strip_prefix("game-")
            .and_then(|n| n.strip_suffix(".jsonl"))
            .and_then(|n| n.parse::<usize>().ok())
            .filter(|&n| n > 0 && game_log_path(dir, n) == path)
            .ok_or_else(|| differs(&path, "not named as a run's game log (game-NNNN.jsonl)"))?;
        let log = read_game_log_prefix(&path).map_err(|e| differs(&path, format!("{e:#}")))?;
        let finished = !log.torn_tail && log.records.iter().any(|r| matches!(r.event, Event::GameEnd(_)));
        if !finished {
            verified
                .notes
                .push(format!("{}: an unfinished game (not counted)", path.display()));
            continue;
        }
        replay_records(&log.records).map_err(|e| differs(&path, e.to_string()))?;
        verified.moves += check_sources(&path, &log.records)?;
        verified.games += 1;
        logged.push(Logged {
            number,
            path,
            records: log.records,
        });
    }
    Ok(logged)
}

/// Each move's source against its decision's (a model's move is not a fallback's);
/// returns the moves.
fn check_sources(path: &Path, records: &[Record]) -> Result<usize, VerifyError> {
    let mut moves = 0;
    for record in records {
        let Event::Move(m) = &record.event else { continue };
        moves += 1;
        if let Some(source) = m.agent.as_ref().and_then(|a| a.source) {
            if source != m.source {
                return Err(differs(
                    path,
                    format!(
                        "ply {}: the move {} is logged as the {:?}'s, but its decision says the {:?}'s",
                        m.ply, m.mv, m.source, source
                    ),
                ));
            }
        }
    }
    Ok(moves)
}

/// A tournament's plan as its run.json and tournament file make it: the players as
/// logs name them, the plan, and where each game starts.
struct Planned<R: ModelGame> {
    names: Vec<String>,
    plan: Plan,
    openings: Openings<R>,
}

fn planned(
    run_json: &Path,
    run: &TournamentRun,
    file: &TournamentFile<toml::Table>,
) -> Result<Planned<Othello>, VerifyError> {
    let names: Vec<String> = run.players.iter().map(|p| p.spec.clone()).collect();
    let llm: Vec<usize> = (0..names.len()).filter(|&i| run.players[i].agent.is_some()).collect();
    let plan = Plan::tournament(&names, &llm, file.format, file.games / 2, file.seed);
    let labels: Vec<String> = plan.pairings.iter().map(|p| p.label.clone()).collect();
    if labels != run.pairings {
        return Err(differs(
            run_json,
            format!(
                "pairings: it lists [{}], but its players and tournament file plan [{}]",
                run.pairings.join(", "),
                labels.join(", ")
            ),
        ));
    }
    let openings = openings_of(run_json, run.openings.as_ref(), file.opening_random.unwrap_or(0))?;
    Ok(Planned { names, plan, openings })
}

/// Each finished game against the plan's game of its number (players and colours,
/// seed, opening), rebuilt; by schedule index.
fn planned_games<R: ModelGame>(
    planned: &Planned<R>,
    logs: &[Logged],
    verified: &mut Verified,
) -> Result<Vec<Option<GameRecord<R>>>, VerifyError> {
    let schedule = &planned.plan.schedule;
    let mut records: Vec<Option<GameRecord<R>>> = vec![None; schedule.len()];
    for log in logs {
        let Some(scheduled) = schedule.get(log.number - 1) else {
            return Err(differs(
                &log.path,
                format!(
                    "game {} is not in the run's plan of {} games: a game was added",
                    log.number,
                    schedule.len()
                ),
            ));
        };
        check_players(
            &log.path,
            log.number,
            &log.records,
            &planned.names,
            scheduled,
            &planned.openings,
        )
        .map_err(|e| not_planned(&log.path, e))?;
        let record = rebuild_game::<R>(&log.records).map_err(|e| differs(&log.path, e))?;
        let (asked, logged) = check_engine_moves(&log.path, &record, &planned.names, scheduled)?;
        verified.engine_moves += asked;
        verified.logged_moves += logged;
        records[log.number - 1] = Some(record);
    }
    Ok(records)
}

/// A log whose players, seed or opening are not its game's in the plan, said as
/// verify says it (the file named once; the log, not the settings, is at fault).
fn not_planned(path: &Path, error: ResumeError) -> VerifyError {
    match error {
        ResumeError::Mismatch {
            game, found, expected, ..
        } => differs(
            path,
            format!(
                "game {game} was played by {found}, but the run's plan has {expected}: the log is not the plan's game"
            ),
        ),
        other => differs(path, other.to_string()),
    }
}

/// Every move a built-in engine made in `record`, chosen again by that engine built
/// with the seed the game gave it, on the same positions in the same order: an engine
/// is a function of its seed and the positions it is asked, so a move that differs was
/// not the engine's. Models, people and external engines are not asked again: answers
/// how many moves were asked again, and how many of the others' (forced passes aside)
/// were taken as logged.
fn check_engine_moves<R: ModelGame>(
    path: &Path,
    record: &GameRecord<R>,
    names: &[String],
    scheduled: &ScheduledGame,
) -> Result<(usize, usize), VerifyError> {
    let engine_of = |player: usize| {
        let spec = names[player].parse::<R::Spec>().ok()?;
        (!R::is_human(&spec)).then(|| R::engine(&spec, scheduled.player_seed(player)))
    };
    let mut engines = [engine_of(scheduled.black), engine_of(scheduled.white)];
    let mut line = Line::<R>::new(*record.game.start());
    let (mut asked, mut logged) = (0, 0);
    for &mv in &record.game.moves()[..record.opening_plies] {
        line.try_play(mv)
            .map_err(|e| differs(path, format!("the opening: {e}")))?;
    }
    for ply in &record.plies {
        let number = line.moves().len() + 1;
        match engines[usize::from(ply.color == Color::White)].as_mut() {
            Some(engine) => {
                let played = (ply.played.mv, ply.played.source);
                asked += usize::from(ask_again(path, number, engine.as_mut(), line.board(), played)?);
            }
            None => logged += usize::from(ply.played.source != MoveSource::ForcedPass),
        }
        line.try_play(ply.played.mv)
            .map_err(|e| differs(path, format!("ply {number}: {e}")))?;
    }
    Ok((asked, logged))
}

/// Ply `ply` of a built-in engine, `(mv, source)` on `board`, against the engine's own
/// choice there; whether it was asked (a forced pass is not). Every move of a built-in
/// engine is its own: one the log gives to a model or a fallback would escape the
/// check, so it does not hold.
fn ask_again<R: ModelGame>(
    path: &Path,
    ply: usize,
    engine: &mut dyn GameEngine<R>,
    board: &R::Position,
    (mv, source): (R::Move, MoveSource),
) -> Result<bool, VerifyError> {
    match source {
        MoveSource::ForcedPass => return Ok(false),
        MoveSource::Engine => {}
        other => {
            return Err(differs(
                path,
                format!(
                    "ply {ply}: the log gives {}'s move {mv} to the {}, but {} is a built-in engine, which makes \
                     every move of its own: the move was not the engine's",
                    engine.name(),
                    format!("{other:?}").to_lowercase(),
                    engine.name()
                ),
            ))
        }
    }
    let chosen = engine
        .choose(board)
        .map_err(|e| differs(path, format!("ply {ply}: {} cannot move again: {e}", engine.name())))?;
    let chosen = R::decision_move(&chosen);
    if chosen != mv {
        return Err(differs(
            path,
            format!(
                "ply {ply}: the log says {} played {mv}, but {} with the game's seed plays {chosen}",
                engine.name(),
                engine.name(),
            ),
        ));
    }
    Ok(true)
}

/// A tournament's games against its plan, its stop rule's decisions and its results.
fn check_tournament(
    dir: &Path,
    run: &TournamentRun,
    logs: &[Logged],
    judge: JudgeFor<'_>,
    verified: &mut Verified,
) -> Result<(), VerifyError> {
    let run_json = dir.join("run.json");
    let file: TournamentFile<toml::Table> = toml::from_str(&run.tournament_file)
        .map_err(|e| differs(&run_json, format!("tournament_file does not read: {e}")))?;
    let planned = planned(&run_json, run, &file)?;
    let plan = &planned.plan;
    let records = planned_games(&planned, logs, verified)?;
    let results_path = dir.join("results.json");
    let results = read_results(dir)?;
    let complete = results["complete"].as_bool().unwrap_or(true);
    let rule: Option<StopRule> = file
        .stop
        .as_deref()
        .map(str::parse)
        .transpose()
        .map_err(|e| differs(&run_json, format!("tournament_file: stop: {e}")))?;
    let stops = stops_of(dir, plan, &records, (rule, judge, complete), verified)?;
    let games = RunGames { records, stops };
    check_unneeded(plan, &games, logs)?;
    let derived = TournamentResults {
        pairings: pairing_results(plan, &games),
        ratings: derive_ratings(dir, file.anchor.as_deref(), &results)?,
        complete: !games.interrupted(rule.is_some()),
        log_dir: results["log_dir"].as_str().unwrap_or_default().to_string(),
    };
    let derived = runs::RunResults::Tournament(&derived).to_json();
    match first_difference("", &results, &derived, &mut verified.figures) {
        Some(diff) => Err(differs(&results_path, diff)),
        None => Ok(()),
    }
}

/// A game logged after its pairing's stop rule stopped it (the rule never asked for it).
fn check_unneeded<R: ModelGame>(plan: &Plan, games: &RunGames<R>, logs: &[Logged]) -> Result<(), VerifyError> {
    let needed = games.needed(&plan.pairings);
    let Some(log) = logs.iter().find(|log| !needed[log.number - 1]) else {
        return Ok(());
    };
    let pairing = plan
        .pairings
        .iter()
        .find(|p| p.pairs.iter().flatten().any(|&i| i == log.number - 1));
    Err(differs(
        &log.path,
        format!(
            "game {} was played after its pairing {} stopped: its stop rule did not ask for it",
            log.number,
            pairing.map_or("?", |p| p.label.as_str())
        ),
    ))
}

/// results.json of `dir`, read.
fn read_results(dir: &Path) -> Result<Value, VerifyError> {
    let path = dir.join("results.json");
    read_run_text(&path)
        .map_err(|e| e.to_string())
        .and_then(|text| serde_json::from_str(&text).map_err(|e| e.to_string()))
        .map_err(|e| differs(&path, format!("does not read: {e}")))
}

/// The games of a run against its stop rule (`rule`, asked again pair by pair and held
/// to decisions.jsonl) or, without one, against its plan: a needed game missing from a
/// run that says it finished (`complete`) is found; each pairing's stop.
fn stops_of<R: ModelGame>(
    dir: &Path,
    plan: &Plan,
    records: &[Option<GameRecord<R>>],
    (rule, judge, complete): (Option<StopRule>, JudgeFor<'_>, bool),
    verified: &mut Verified,
) -> Result<Vec<Option<runs::PairingStop>>, VerifyError> {
    match rule {
        Some(rule) => {
            let judge = judge(rule).map_err(|e| differs(&dir.join("run.json"), format!("stop rule {rule}: {e}")))?;
            let (stops, decisions, missing) = decide_played(&plan.schedule, &plan.pairings, &judge, records);
            check_missing(dir, plan, missing.filter(|_| complete))?;
            compare_decisions(dir, &decisions, verified)?;
            Ok(stops)
        }
        None => {
            check_missing(dir, plan, records.iter().position(Option::is_none).filter(|_| complete))?;
            Ok(Vec::new())
        }
    }
}

/// An eval's games against its plan (the agent against each opponent in turn,
/// colour-swapped pairs), its stop rule's decisions, and results.json's tallies and
/// agent statistics derived again from the logs by the tally that wrote them
/// ([`runs::Matchup::add`] over each game's [`runs::GameSummary`]), figure by figure;
/// the move quality (from move-scores.jsonl) is taken as written, with a note.
fn check_eval<R: ModelGame>(
    dir: &Path,
    run: &runs::EvalRun,
    logs: &[Logged],
    judge: JudgeFor<'_>,
    verified: &mut Verified,
) -> Result<(), VerifyError> {
    let names: Vec<String> = std::iter::once(run.agent.spec())
        .chain(run.opponents.iter().cloned())
        .collect();
    let meetings: Vec<(usize, usize)> = (1..names.len()).map(|k| (0, k)).collect();
    let opening_seed = run.opening_seed.unwrap_or(run.seed);
    let plan = Plan::new(&names, &meetings, run.games_per_color, true, opening_seed, run.seed);
    let openings = openings_of::<R>(&dir.join("run.json"), run.openings.as_ref(), run.opening_random)?;
    let planned = Planned { names, plan, openings };
    let records = planned_games(&planned, logs, verified)?;
    let plan = &planned.plan;
    let results = read_results(dir)?;
    let complete = results["complete"].as_bool().unwrap_or(true);
    let rule: Option<StopRule> = results["stop_rule"]
        .as_str()
        .map(str::parse)
        .transpose()
        .map_err(|e| differs(&dir.join("results.json"), format!("stop_rule: {e}")))?;
    let stops = stops_of(dir, plan, &records, (rule, judge, complete), verified)?;
    let games = RunGames { records, stops };
    check_unneeded(plan, &games, logs)?;
    let needed = games.needed(&plan.pairings);
    let logged = read_game_logs(&[dir.to_path_buf()]).map_err(|e| differs(dir, format!("{e:#}")))?;
    let mut opponents = opponent_tables(run.opponents.iter().cloned());
    for game in logged.games.iter().filter(|g| g.summary.black_margin.is_some()) {
        let Some(log) = logs.iter().find(|log| log.path.file_name() == game.path.file_name()) else {
            continue;
        };
        let scheduled = &plan.schedule[log.number - 1];
        let opponent = scheduled.black.max(scheduled.white) - 1;
        opponents[opponent].matchup.add(&game.summary, scheduled.color_of(0));
    }
    let unfinished = (0..needed.len())
        .filter(|&i| needed[i] && games.records[i].is_none())
        .count();
    let result = EvalResult::<R>::of(opponents, Vec::new(), unfinished);
    let hosts = runs::folder_host_usage(dir).map_err(|e| differs(dir, format!("{e:#}")))?;
    let log_dir = results["log_dir"].as_str().unwrap_or_default();
    let stopping = (rule.as_ref(), &games.stops[..]);
    let derived = result.results(run.games_per_color, stopping, &hosts, None, Path::new(log_dir));
    let mut derived = runs::RunResults::Eval(&derived).to_json();
    if !results["move_quality"].is_null() {
        derived["move_quality"] = results["move_quality"].clone();
        for (k, opponent) in derived["opponents"].as_array_mut().into_iter().flatten().enumerate() {
            opponent["move_quality"] = results["opponents"][k]["move_quality"].clone();
        }
        verified.notes.push(format!(
            "{}: the move quality (move-scores.jsonl) is taken as written, not derived again",
            dir.display()
        ));
    }
    match first_difference("", &results, &derived, &mut verified.figures) {
        Some(diff) => Err(differs(&dir.join("results.json"), diff)),
        None => Ok(()),
    }
}

/// A match's games against its plan (players and colours, seeds, openings, engine
/// moves). Games start in number order and each writes its log as it starts, so a
/// planned game with no log below one that has a log was removed; planned games after
/// the last log were never started (an interrupted match), said in a note.
fn check_play<R: ModelGame>(
    dir: &Path,
    run: &runs::PlayRun,
    logs: &[Logged],
    verified: &mut Verified,
) -> Result<(), VerifyError> {
    let names: Vec<String> = run.players.iter().map(|p| p.spec.clone()).collect();
    let plan = match_plan(&names, run.games, run.swap, run.seed);
    let openings = openings_of::<R>(&dir.join("run.json"), run.openings.as_ref(), run.opening_random)?;
    let planned = Planned { names, plan, openings };
    planned_games(&planned, logs, verified)?;
    let started = (1..=run.games)
        .rev()
        .find(|&n| game_log_path(dir, n).exists())
        .unwrap_or(0);
    if let Some(removed) = (1..started).find(|&n| !game_log_path(dir, n).exists()) {
        return Err(differs(
            &game_log_path(dir, removed),
            format!("missing: game {removed} of the match started before game {started}, which has a log: a game was removed"),
        ));
    }
    if started < run.games {
        verified.notes.push(format!(
            "{}: a match of {} games with {started} started (stopped before the rest)",
            dir.display(),
            run.games
        ));
    }
    Ok(())
}

/// Where a run's games start: the suite openings its run.json recorded (pair `p`
/// plays `used[p]`), else `random` random plies.
fn openings_of<R: ModelGame>(
    run_json: &Path,
    record: Option<&runs::OpeningsRecord>,
    random: usize,
) -> Result<Openings<R>, VerifyError> {
    Ok(match record {
        Some(record) => {
            let suite = OpeningSuite::<R>::parse(&record.file, &record.used.join("\n"))
                .map_err(|e| differs(run_json, format!("openings.used: {e}")))?;
            Openings::suite(suite, OpeningsOrder::Sequential, false, 0)
        }
        None => Openings::random(random),
    })
}

/// A game the plan needs that has no finished log.
fn check_missing(dir: &Path, plan: &Plan, missing: Option<usize>) -> Result<(), VerifyError> {
    let Some(index) = missing else { return Ok(()) };
    let pairing = plan
        .pairings
        .iter()
        .find(|p| p.pairs.iter().flatten().any(|&i| i == index));
    let pair = plan.schedule[index].pair + 1;
    Err(differs(
        &game_log_path(dir, index + 1),
        format!(
            "missing: pairing {} needs game {} (pair {pair}) and the run says it finished: a game was removed",
            pairing.map_or("?", |p| p.label.as_str()),
            index + 1
        ),
    ))
}

/// decisions.jsonl against the rule's answers asked again.
fn compare_decisions(dir: &Path, decisions: &[runs::PairingStop], verified: &mut Verified) -> Result<(), VerifyError> {
    let path = dir.join("decisions.jsonl");
    let text = read_run_text(&path).map_err(|e| differs(&path, format!("does not read: {e}")))?;
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    if lines.len() != decisions.len() {
        return Err(differs(
            &path,
            format!(
                "it holds {} decisions, the stop rule asked again over the games gives {}",
                lines.len(),
                decisions.len()
            ),
        ));
    }
    for (i, (line, decision)) in lines.iter().zip(decisions).enumerate() {
        let found: Value = serde_json::from_str(line).map_err(|e| differs(&path, format!("line {}: {e}", i + 1)))?;
        let derived = serde_json::to_value(decision).expect("a decision serialises");
        if let Some(diff) = first_difference(&format!("line {}", i + 1), &found, &derived, &mut verified.figures) {
            return Err(differs(&path, diff));
        }
    }
    Ok(())
}

/// The ratings of the run's games as the tournament rated them ([`rate_games`] over
/// [`read_game_logs`]: its file's anchor, the published ladder unless results.json's
/// table holds no engine at the ladder's ratings, as `--no-ladder` writes it).
fn derive_ratings(dir: &Path, anchor: Option<&str>, results: &Value) -> Result<TournamentRatings, VerifyError> {
    let run_json = dir.join("run.json");
    let anchor: Option<Anchor> = anchor
        .map(str::parse)
        .transpose()
        .map_err(|e: String| differs(&run_json, format!("tournament_file: anchor = {e}")))?;
    if results["ratings"]["as_played"].is_null() {
        return Ok(TournamentRatings {
            as_played: None,
            fallback_as_loss: None,
        });
    }
    let logs = read_game_logs(&[dir.to_path_buf()]).map_err(|e| differs(dir, format!("{e:#}")))?;
    let games = RunGame::from_logs(&logs);
    let no_ladder = results["ratings"]["as_played"]["held"]
        .as_array()
        .is_none_or(Vec::is_empty);
    let rate = |no_ladder: bool| {
        let settings = RateSettings {
            anchor: anchor.clone(),
            ..RateSettings::with_ladder(no_ladder)
        };
        rate_games(&games, game::Game::Othello, &settings, &RatingWatch::default()).map_err(|e| {
            differs(
                &dir.join("results.json"),
                format!("ratings cannot be derived again: {e:#}"),
            )
        })
    };
    let mut rated = rate(false)?;
    if no_ladder && !rated.as_played.held.is_empty() {
        rated = rate(true)?;
    }
    Ok(TournamentRatings {
        as_played: Some(rated.as_played),
        fallback_as_loss: rated.fallback_as_loss,
    })
}
