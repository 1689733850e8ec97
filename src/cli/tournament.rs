//! `tournament FILE.toml`: engines and LLM players in a gauntlet or a round robin, each
//! pairing in colour-swapped pairs on one opening list, optionally stopped early per
//! pairing; logs, resume and Ctrl-C as for `eval`; ratings at the end.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{bail, Context, Result};
use serde::Deserialize;

use super::agent_args::{parse_player, AgentArgs, HostArgs};
use super::args::TournamentArgs;
use super::args::DEFAULT_CALIBRATION;
use super::eval::Interrupted;
use super::external;
use super::grid::{Grid, Variant};
use super::inputs::{read_user_file, SETTINGS_CAP};
use super::intrinsic::logs_table;
use super::limits;
use super::openings;
use super::progress::progress_bar;
use super::rate::{player_name, read_games};
use super::stats::print_notes;
use super::stdout::{out, outln};
use agent::AgentConfig;
use arena::{
    Connection, ExternalEngine, Format, GameRecord, MatchEvent, Openings, Plan, PlayerSpec, Run, RunGames, RunOptions,
    Start,
};
use game::Othello;
use llm::Think;
use runs::{
    changed_agent_settings, leaderboard_tables, read_game_logs, utc_now, Anchor, EngineTable, Leaderboard,
    OpeningsOrder, PairingResult, PairingStop, RateSettings, ReadRunError, Resume, RunFile, RunKind, RunResults,
    TournamentRatings, TournamentResults, TournamentRun,
};
use stats::{StopRule, Tally};

/// A tournament file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct TournamentFile {
    /// `gauntlet` (every LLM player against every engine) or `round-robin`.
    #[serde(default)]
    format: Format,
    /// Engine specs.
    #[serde(default)]
    engines: Vec<String>,
    /// External engines (`[[engine]]` tables, players `ext:NAME@...`).
    #[serde(default, rename = "engine")]
    external: Vec<EngineTable>,
    /// LLM players.
    #[serde(default, rename = "llm")]
    llms: Vec<LlmEntry>,
    /// Games per pairing (an even number: colour-swapped pairs); with `stop`, the most.
    games: usize,
    /// Random opening plies (a file that names neither this nor `openings` plays the
    /// built-in balanced suite).
    opening_random: Option<usize>,
    /// An opening suite file (one opening a line), instead of random plies.
    openings: Option<PathBuf>,
    /// How the suite is dealt: `sequential` or `shuffle` (by `seed`).
    #[serde(default)]
    openings_order: OpeningsOrder,
    /// Whether the suite starts over when the pairs outnumber it.
    #[serde(default)]
    openings_cycle: bool,
    /// Seed of the openings and the engines' choices.
    #[serde(default = "one")]
    seed: u64,
    /// Per-pairing stop rule: `sprt:ELO0,ELO1[,ALPHA,BETA]` or `ci:WIDTH`.
    stop: Option<String>,
    /// The player ratings are anchored to, `SPEC=ELO` (default: the published ladder's
    /// engines held when they play, else [`Anchor::among`] the players: `random=0`,
    /// else the first player at 0).
    anchor: Option<String>,
}

/// One LLM player of a tournament file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct LlmEntry {
    model: String,
    /// Tells apart two players of one model (`llm:MODEL@NAME` in logs and tables).
    name: Option<String>,
    agent_file: Option<PathBuf>,
    /// Agent settings with several values each: one player per combination.
    grid: Option<Grid>,
    /// Its server: the host flags' keys (`api`, `host`, `fleet`, `max_in_flight`,
    /// `api_key_env`, `timeout`, `max_retries`), each left out the flag's default.
    #[serde(flatten)]
    hosts: HostArgs,
}

/// The default player name of a thinking setting: `think-on`, `think-off`, `think-high`.
fn think_name(think: &Think) -> String {
    match think {
        Think::Enabled(true) => "think-on".to_string(),
        Think::Enabled(false) => "think-off".to_string(),
        Think::Level(level) => format!("think-{level}"),
    }
}

fn one() -> u64 {
    1
}

impl LlmEntry {
    /// The host flags this table stands for, each value held to its flag's limits
    /// (the message names the key).
    fn hosts(&self) -> Result<&HostArgs, String> {
        let hosts = &self.hosts;
        limits::PARALLEL
            .check(hosts.max_in_flight as i64)
            .map_err(|e| format!("max_in_flight = {e}"))?;
        limits::timeout_seconds(hosts.timeout).map_err(|e| format!("timeout = {e}"))?;
        limits::RETRIES
            .check(i64::from(hosts.max_retries))
            .map_err(|e| format!("max_retries = {e}"))?;
        Ok(hosts)
    }

    /// The players of this table over `base` (its agent file): one, or one per
    /// combination of its grid, each with the name parts its settings give.
    fn variants(&self, base: &AgentArgs) -> Result<Vec<Variant>> {
        match &self.grid {
            None => Ok(vec![Variant {
                agent: base.clone(),
                name_parts: Vec::new(),
            }]),
            Some(grid) => grid.variants(base),
        }
    }

    /// The `llm:MODEL` player of one of this table's variants on `connection`, named
    /// by the table's `name` (else its thinking level, when the grid does not vary it)
    /// followed by the variant's name parts.
    fn player(&self, variant: &Variant, connection: &Connection, path: &Path) -> Result<PlayerSpec> {
        let agent = &variant.agent;
        let spec = format!("llm:{}", self.model);
        let mut player = parse_player(&spec, "[[llm]]", agent, Some(connection))
            .with_context(|| format!("bad [[llm]] {} in {}", self.model, path.display()))?;
        if let PlayerSpec::Llm(llm_player) = &mut player {
            // A player whose agent file sets a thinking level is named by it unless
            // named otherwise (`llm:MODEL@think-high`), as leaderboards of thinking
            // models do; a grid that varies the level names it in its own parts.
            let think_named = !self.grid.as_ref().is_some_and(|grid| grid.varies("think"));
            let base = self.name.clone().or_else(|| {
                let think = llm_player.config.think.as_ref().filter(|_| think_named);
                think.map(think_name)
            });
            let parts: Vec<String> = base.into_iter().chain(variant.name_parts.iter().cloned()).collect();
            if !parts.is_empty() {
                let name = parts.join("-");
                AgentConfig::check_name(&name)
                    .map_err(|e| anyhow::anyhow!("bad [[llm]] {} in {}: {e}", self.model, path.display()))?;
                let mut config = (*llm_player.config).clone();
                config.name = Some(name);
                llm_player.config = Arc::new(config);
            }
        }
        Ok(player)
    }
}

pub(super) async fn run(args: TournamentArgs, env: &dyn Fn(&str) -> Option<String>) -> Result<()> {
    let tournament = Tournament::read(&args)?;
    let mut entrants = Entrants::connect(&tournament, env).await?;
    if let Some((_, run)) = &tournament.resume {
        for (recorded, player) in run.players.iter().zip(&mut entrants.players) {
            if let Some(then) = &recorded.agent {
                player.keep_recorded_cap(then);
            }
        }
    }
    external::identify(&entrants.players).await?;
    // Refused now rather than after every game: the anchor must be one of the players.
    check_anchor(tournament.anchor.as_ref(), &entrants.names)
        .with_context(|| format!("bad tournament file {}", tournament.path.display()))?;
    let file = &tournament.file;
    let plan = Plan::tournament(&entrants.names, &entrants.llm, file.format, file.games / 2, file.seed);
    tournament
        .openings
        .check(&plan.schedule)
        .map_err(|e| anyhow::anyhow!("bad tournament file {}: {e}", tournament.path.display()))?;
    let parallel = args.parallel.unwrap_or(entrants.fleet_capacity.max(1));
    let (run, options) = open_run(&args, &tournament, &entrants.players, &plan, parallel)?;
    let rule = tournament.rule.as_ref();
    let bar = progress_bar(plan.schedule.len(), args.json, "games (at most)");
    let report = |event: MatchEvent<'_>| {
        if let MatchEvent::GameDone { .. } = event {
            bar.inc(1);
        }
    };
    let played = (&entrants.players[..], &plan.schedule[..], &plan.pairings[..]);
    let RunGames { records, stops } = run.play(played, rule, &options, &report).await?;
    bar.finish_and_clear();
    let log_dir = run.path();
    let interrupted = interrupted(&records, &stops, rule.is_some());
    let pairings = pairing_results(&plan, &records, &stops);
    let (as_played, as_loss) = rate(&tournament, args.no_ladder, log_dir, interrupted)?;
    let results = TournamentResults {
        pairings,
        ratings: TournamentRatings {
            as_played,
            fallback_as_loss: as_loss,
        },
        complete: !interrupted,
        log_dir: log_dir.display().to_string(),
    };
    run.finish(&RunResults::Tournament(&results))?;
    print_results(&results, args.json)?;
    if interrupted {
        return Err(Interrupted {
            command: "tournament",
            finished: records.iter().filter(|r| r.is_some()).count(),
            total: records.len(),
            dir: log_dir.display().to_string(),
        }
        .into());
    }
    Ok(())
}

/// A tournament as its file defines it, checked as the flags of the same names are.
struct Tournament {
    /// Where the file's text came from (the file, or the run.json of `--resume`).
    path: PathBuf,
    /// The run folder `--resume` continues, with what its run.json recorded.
    resume: Option<(PathBuf, TournamentRun)>,
    /// The file's text, which run.json keeps.
    text: String,
    /// What it says.
    file: TournamentFile,
    /// Its `anchor`, read.
    anchor: Option<Anchor>,
    /// Its `stop`, read.
    rule: Option<StopRule>,
    /// Where its games start: `opening_random` plies, or the `openings` suite.
    openings: Openings<Othello>,
}

impl Tournament {
    /// Reads the tournament file, or the text a `--resume` run folder keeps, and checks
    /// it; each message names the file and the key.
    fn read(args: &TournamentArgs) -> Result<Tournament> {
        let (path, resume, text) = match (&args.file, &args.resume) {
            (_, Some(dir)) => {
                let RunKind::Tournament(run) = resumed_run(dir)?.run else {
                    bail!("bad --resume: {} is not a tournament run", dir.display());
                };
                let text = run.tournament_file.clone();
                (dir.join("run.json"), Some((dir.clone(), run)), text)
            }
            (Some(file), None) => {
                let text = read_user_file("the tournament file", file, SETTINGS_CAP)?;
                (file.clone(), None, text)
            }
            (None, None) => bail!("give a tournament file, or --resume RUN-DIR"),
        };
        let file: TournamentFile = toml::from_str(&text).with_context(|| {
            format!(
                "bad tournament file {}: see README (format, engines, [[engine]] and [[llm]] tables, games, opening_random, seed, stop, anchor)",
                path.display()
            )
        })?;
        let checks = [
            ("games", &limits::GAMES, file.games),
            (
                "opening_random",
                &limits::OPENING_PLIES,
                file.opening_random.unwrap_or(0),
            ),
        ];
        for (key, bounds, value) in checks {
            if let Err(e) = bounds.check(value as i64) {
                bail!("bad tournament file {}: {key} = {e}", path.display());
            }
        }
        for name in file.llms.iter().filter_map(|entry| entry.name.as_deref()) {
            AgentConfig::check_name(name)
                .map_err(|e| anyhow::anyhow!("bad tournament file {}: [[llm]] name: {e}", path.display()))?;
        }
        // A grid's values are checked now, before any server is asked for anything.
        for entry in &file.llms {
            entry
                .variants(&AgentArgs::default())
                .map_err(|e| anyhow::anyhow!("bad tournament file {}: [[llm]] {}: {e}", path.display(), entry.model))?;
        }
        if file.games < 2 || file.games % 2 == 1 {
            bail!(
                "bad tournament file {}: games = {} must be an even number of at least 2 (colour-swapped pairs)",
                path.display(),
                file.games
            );
        }
        // Refused now, as `rate --anchor` refuses it, rather than after every game.
        let anchor: Option<Anchor> = file
            .anchor
            .as_deref()
            .map(str::parse)
            .transpose()
            .map_err(|e: String| anyhow::anyhow!("bad tournament file {}: anchor = {e}", path.display()))?;
        let rule: Option<StopRule> = file
            .stop
            .as_deref()
            .map(str::parse)
            .transpose()
            .with_context(|| format!("bad stop in {}", path.display()))?;
        let openings = tournament_openings(args, &file, resume.as_ref().map(|(_, run)| run), &path)?;
        Ok(Tournament {
            path,
            resume,
            text,
            file,
            anchor,
            rule,
            openings,
        })
    }
}

/// Where a tournament's games start: `--openings`, else the file's `openings` suite,
/// else its `opening_random` plies, else (a file naming neither) the built-in balanced
/// suite. A resume deals what its run recorded: the suite it played, read again (and
/// refused later if it changed), or for a run without one (every run before suites)
/// the random plies its file meant then.
fn tournament_openings(
    args: &TournamentArgs,
    file: &TournamentFile,
    resume: Option<&TournamentRun>,
    path: &Path,
) -> Result<Openings<Othello>> {
    if file.openings.is_some() && file.opening_random.is_some_and(|plies| plies > 0) {
        bail!(
            "bad tournament file {}: give openings (a suite file) or opening_random (random plies), not both",
            path.display()
        );
    }
    let (order, cycle, seed) = (file.openings_order, file.openings_cycle, file.seed);
    let what = format!("openings in {}", path.display());
    let deal = |suite: &Path| openings::read_suite::<Othello>(&what, suite, order, cycle, seed);
    if let Some(run) = resume {
        return match &run.openings {
            Some(recorded) if recorded.file == openings::BALANCED_SUITE => openings::balanced_suite(order, cycle, seed),
            Some(recorded) => deal(Path::new(&recorded.file)),
            None => Ok(Openings::random(file.opening_random.unwrap_or(0))),
        };
    }
    match (&args.openings, &file.openings, file.opening_random) {
        (Some(suite), _, _) | (None, Some(suite), _) => deal(suite),
        (None, None, Some(plies)) => Ok(Openings::random(plies)),
        (None, None, None) => openings::balanced_suite(order, cycle, seed),
    }
}

/// Refuses a resume whose LLM players' settings (agent files and prompts read again)
/// are not the ones the run recorded, naming each player and setting.
fn refuse_changed_players(dir: &Path, run: &TournamentRun, players: &[PlayerSpec]) -> Result<()> {
    let mut changed = Vec::new();
    for (recorded, player) in run.players.iter().zip(players) {
        if let (Some(then), Some(now)) = (&recorded.agent, player.agent_config()) {
            let lines = changed_agent_settings(then, now);
            changed.extend(lines.into_iter().map(|line| format!("{}: {line}", recorded.spec)));
        }
    }
    if !changed.is_empty() {
        bail!(
            "bad --resume {}: the players' settings are not the ones the run recorded: {}; restore them, or start a new run",
            dir.display(),
            changed.join("; ")
        );
    }
    Ok(())
}

/// The run.json of the run `--resume` continues.
fn resumed_run(dir: &Path) -> Result<RunFile> {
    RunFile::read(dir).map_err(|err| match err {
        ReadRunError::Io { source, .. } => {
            anyhow::Error::new(source).context(format!("bad --resume: {} has no run.json", dir.display()))
        }
        ReadRunError::NotJson { source, .. } => {
            anyhow::Error::new(source).context(format!("bad --resume: {}/run.json is not JSON", dir.display()))
        }
        err @ ReadRunError::Shape { .. } => anyhow::Error::new(err).context("bad --resume"),
    })
}

/// A tournament's players, in the file's order: its engines, its external engines,
/// then its LLM players.
struct Entrants {
    /// The players.
    players: Vec<PlayerSpec>,
    /// Their names, as logs and tables write them.
    names: Vec<String>,
    /// Which of them are LLM players.
    llm: Vec<usize>,
    /// The LLM players' hosts' total `max_in_flight`: the default `--parallel`.
    fleet_capacity: usize,
}

impl Entrants {
    /// The file's players, the LLM players connected to their hosts (players on the
    /// same hosts share one connection); refused when two share a name or the format
    /// lacks players.
    async fn connect(tournament: &Tournament, env: &dyn Fn(&str) -> Option<String>) -> Result<Entrants> {
        let (file, path) = (&tournament.file, &tournament.path);
        let mut players: Vec<PlayerSpec> = Vec::new();
        for engine in &file.engines {
            players.push(parse_player(engine, "engines", &AgentArgs::default(), None)?);
        }
        for table in &file.external {
            let engine = ExternalEngine::new(table.clone())
                .with_context(|| format!("bad tournament file {}", path.display()))?;
            players.push(PlayerSpec::External(engine));
        }
        let mut llm = Vec::new();
        let mut fleet_capacity = 0;
        let mut connections: HashMap<String, Connection> = HashMap::new();
        for entry in &file.llms {
            let agent = AgentArgs {
                agent_file: entry.agent_file.clone(),
                ..AgentArgs::default()
            };
            let hosts = entry
                .hosts()
                .map_err(|e| anyhow::anyhow!("bad tournament file {}: [[llm]] {}: {e}", path.display(), entry.model))?;
            // Players on the same hosts share one connection, so a host's max_in_flight
            // holds across them (hosts named in an agent file are that file's own).
            let key = if hosts.given() {
                format!("{hosts:?}")
            } else {
                format!("{hosts:?} {:?}", entry.agent_file)
            };
            let connection = match connections.get(&key) {
                Some(connection) => connection.clone(),
                None => {
                    let connection = hosts
                        .connect(&agent, env)
                        .await
                        .with_context(|| format!("bad [[llm]] {} in {}", entry.model, path.display()))?;
                    fleet_capacity += connection.default_parallel();
                    connections.insert(key, connection.clone());
                    connection
                }
            };
            let variants = entry
                .variants(&agent)
                .with_context(|| format!("bad [[llm]] {} in {}", entry.model, path.display()))?;
            let first = players.len();
            for variant in &variants {
                let player = entry.player(variant, &connection, path)?;
                // Two values of one grid that make one name (`0.7` and `0.70`) are the
                // values' fault, not the table's: say so.
                if let Some(twice) = players[first..].iter().find(|p| p.to_string() == player.to_string()) {
                    bail!(
                        "bad tournament file {}: [[llm]] {}: two values of its grid make the one player {twice}; \
                         list each value once",
                        path.display(),
                        entry.model
                    );
                }
                llm.push(players.len());
                players.push(player);
            }
        }
        let names: Vec<String> = players.iter().map(ToString::to_string).collect();
        let entrants = Entrants {
            players,
            names,
            llm,
            fleet_capacity,
        };
        entrants.check(file.format, path)?;
        Ok(entrants)
    }

    /// Refuses two players of one name, and too few players for the format.
    fn check(&self, format: Format, path: &Path) -> Result<()> {
        let names = &self.names;
        if let Some((index, twice)) = names.iter().enumerate().find(|(i, n)| names[..*i].contains(n)) {
            let advice = if self.llm.contains(&index) {
                "give each [[llm]] of one model a name"
            } else {
                "list each engine once"
            };
            bail!(
                "bad tournament file {}: {twice} appears twice; {advice}",
                path.display()
            );
        }
        if let Some(person) = self.players.iter().find(|p| p.is_human()) {
            bail!(
                "bad tournament file {}: {person} is a person at the terminal, and a tournament plays unattended: \
                 list engines and [[llm]] players only",
                path.display()
            );
        }
        if format == Format::Gauntlet && (self.llm.is_empty() || self.llm.len() == self.players.len()) {
            bail!(
                "bad tournament file {}: a gauntlet needs [[llm]] players and engines",
                path.display()
            );
        }
        if self.players.len() < 2 {
            bail!(
                "bad tournament file {}: a tournament needs two players or more",
                path.display()
            );
        }
        Ok(())
    }
}

/// Makes the run folder (or takes the one `--resume` continues, with its finished
/// games), writes its run.json and listens for Ctrl-C; returns the folder and the run's
/// options.
fn open_run(
    args: &TournamentArgs,
    tournament: &Tournament,
    players: &[PlayerSpec],
    plan: &Plan,
    parallel: usize,
) -> Result<(Run, RunOptions)> {
    let start = match &tournament.resume {
        Some((dir, _)) => Start::Resume(dir),
        None => Start::New {
            dir: args.log_dir.as_deref(),
            label: "tournament",
        },
    };
    let run = Run::open("tournament", start)?;
    let mut options = run.options(tournament.openings.clone(), parallel);
    let openings = options.openings.record(&plan.schedule);
    if let Some((_, recorded)) = &tournament.resume {
        refuse_changed_players(run.path(), recorded, players)?;
        openings::refuse_changed(run.path(), recorded.openings.as_ref(), openings.as_ref())?;
        let state = run.resume((players, &plan.schedule, &options.openings), |_| Resume {
            created_utc: utc_now().0,
            parallel,
            fleet: None,
            games_finished_before: None,
        })?;
        eprintln!(
            "resuming {}: {} games already finished; {} unfinished log(s) kept aside",
            run.path().display(),
            state.finished.len(),
            state.set_aside.len()
        );
        options.finished = state.finished;
    } else {
        run.record(&RunFile::new(RunKind::Tournament(TournamentRun {
            tournament_file: tournament.text.clone(),
            players: players.iter().map(PlayerSpec::run_player).collect(),
            pairings: plan.pairings.iter().map(|p| p.label.clone()).collect(),
            openings,
            parallel,
        })))?;
    }
    run.stop_on_ctrl_c();
    Ok((run, options))
}

/// The ratings of every game in the run folder ([`runs::rate_games`], as `rate` rates
/// them: the file's anchor, else the published ladder unless `--no-ladder`; the
/// scale's notes on stderr): as played, and with fallback games as losses when there
/// were any. An interrupted run that cannot be rated yet (the anchor may not have
/// played) has none, and still says how to resume.
fn rate(
    tournament: &Tournament,
    no_ladder: bool,
    log_dir: &Path,
    interrupted: bool,
) -> Result<(Option<Leaderboard>, Option<Leaderboard>)> {
    let settings = RateSettings {
        anchor: tournament.anchor.clone(),
        ..RateSettings::with_ladder(no_ladder)
    };
    // The bootstrap searches on blocking threads, off the async workers.
    let rated = tokio::task::block_in_place(|| -> Result<_> {
        let games = read_games(&[log_dir.to_path_buf()])?;
        Ok(runs::rate_games(
            &games,
            game::Game::Othello,
            &settings,
            &stats::RatingWatch::default(),
        )?)
    });
    match rated {
        Ok(rated) => {
            print_notes(&rated.notes);
            Ok((Some(rated.as_played), rated.fallback_as_loss))
        }
        Err(err) if interrupted => {
            eprintln!("no ratings yet: {err:#}");
            Ok((None, None))
        }
        Err(err) => Err(err),
    }
}

/// Refuses a file's anchor that is not one of `names` (an engine in the form logs
/// write), and a tournament of fewer than two players.
fn check_anchor(given: Option<&Anchor>, names: &[String]) -> Result<()> {
    if let Some(anchor) = given {
        let spec = player_name(&anchor.spec);
        if !names.contains(&spec) {
            bail!(
                "anchor = {spec}: it is not a player here; give one of {}",
                names.join(", ")
            );
        }
    }
    if names.len() < 2 {
        bail!("a tournament needs two players or more");
    }
    Ok(())
}

/// Whether the run was interrupted: a needed game did not finish.
fn interrupted(records: &[Option<GameRecord>], stops: &[Option<PairingStop>], sequential: bool) -> bool {
    if sequential {
        stops.iter().any(Option::is_none)
    } else {
        records.iter().any(Option::is_none)
    }
}

/// Per pairing: games, the first player's wins, draws and losses, and the stop.
fn pairing_results(plan: &Plan, records: &[Option<GameRecord>], stops: &[Option<PairingStop>]) -> Vec<PairingResult> {
    plan.pairings
        .iter()
        .enumerate()
        .map(|(p, pairing)| {
            let mut tally = Tally::default();
            for &i in pairing.pairs.iter().flatten() {
                let Some(record) = &records[i] else { continue };
                tally.record(record.margin_for(plan.schedule[i].color_of(pairing.first)));
            }
            PairingResult {
                pairing: pairing.label.clone(),
                games: tally.games(),
                wins: tally.wins,
                draws: tally.draws,
                losses: tally.losses,
                stop: stops.get(p).cloned().flatten(),
            }
        })
        .collect()
}

/// The results printed: as JSON with `--json`, else the pairings, the ratings and the
/// intrinsic table (`rate`'s, through the shipped calibration).
fn print_results(results: &TournamentResults, json: bool) -> Result<()> {
    if json {
        outln!("{}", RunResults::Tournament(results).to_json())?;
        return Ok(());
    }
    out!("{}", pairing_table(&results.pairings))?;
    outln!()?;
    if let Some(as_played) = &results.ratings.as_played {
        out!(
            "{}",
            leaderboard_tables(as_played, results.ratings.fallback_as_loss.as_ref())
        )?;
    }
    let logs = read_game_logs(&[PathBuf::from(&results.log_dir)])?;
    let intrinsic = tokio::task::block_in_place(|| {
        logs_table(
            &logs,
            Path::new(DEFAULT_CALIBRATION),
            runs::DEFAULT_BOOTSTRAP as usize,
            runs::DEFAULT_BOOTSTRAP_SEED,
        )
    })?;
    outln!()?;
    out!("{}", intrinsic.text())?;
    outln!("logs: {}", results.log_dir)?;
    Ok(())
}

fn pairing_table(pairings: &[PairingResult]) -> String {
    let mut out = String::new();
    let width = pairings.iter().map(|p| p.pairing.len()).max().unwrap_or(8).max(8);
    let _ = writeln!(out, "{:width$}  games  W-D-L (first player)  stop", "pairing");
    for p in pairings {
        let stop = p.stop.as_ref().map(PairingStop::describe).unwrap_or_default();
        let _ = writeln!(
            out,
            "{:width$}  {:>5}  {:>21}  {stop}",
            p.pairing,
            p.games,
            format!("{}-{}-{}", p.wins, p.draws, p.losses)
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An `[[llm]]` table's host keys are the host flags', read in place; a key that is
    /// neither a host flag nor the table's own is refused.
    #[test]
    fn an_llm_table_reads_its_host_keys_and_refuses_others() {
        let entry: LlmEntry = toml::from_str("model = \"m\"\nhost = [\"h:1\"]\ntimeout = 5.0\n").unwrap();
        assert_eq!(
            (entry.hosts.host.as_slice(), entry.hosts.timeout),
            (&["h:1".to_string()][..], 5.0)
        );
        assert_eq!(
            entry.hosts.max_retries,
            llm::HostOptions::MAX_RETRIES,
            "a key left out is the flag's default"
        );
        let err = toml::from_str::<LlmEntry>("model = \"m\"\nhosts = [\"h:1\"]\n").unwrap_err();
        assert!(err.to_string().contains("unknown field `hosts`"), "{err}");
        let entry: LlmEntry = toml::from_str("model = \"m\"\nmax_in_flight = 0\n").unwrap();
        let err = entry.hosts().unwrap_err();
        assert!(err.starts_with("max_in_flight = 0 is out of range"), "{err}");
    }
}
