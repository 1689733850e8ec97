//! `tournament FILE.toml`: engines and LLM players in a gauntlet or a round robin, each
//! pairing in colour-swapped pairs on one opening list, optionally stopped early per
//! pairing; logs, resume and Ctrl-C as for `eval`; ratings at the end.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Instant;

use anyhow::{bail, Context, Result};

use super::agent_args::{parse_player, AgentArgs, HostArgs};
use super::args::TournamentArgs;
use super::args::DEFAULT_CALIBRATION;
use super::eval::Interrupted;
use super::external;
use super::grid::{self, Variant};
use super::inputs::{read_user_file, SETTINGS_CAP};
use super::progress::GameBar;
use super::quality;
use super::stats::print_notes;
use super::stdout::{out, outln};
use arena::{
    recorded_tournament, Connection, Entrants, ExternalEngine, LlmEntry, PlayerSpec, Tournament, TournamentFile,
    TournamentRating,
};
use game::Othello;
use runs::{leaderboard_tables, read_game_logs, PairingResult, RunResults, TournamentRatings, TournamentResults};

/// An `[[llm]]` table's hosts as the host flags, checked (the message names the key).
fn hosts(entry: &LlmEntry) -> Result<HostArgs, String> {
    entry.check_hosts()?;
    Ok(HostArgs::from(entry.hosts.clone()))
}

/// The agent flags of an `[[llm]]` table (its agent file) and the connection to its
/// hosts. Players on the same hosts share one connection (kept in `connections`), so a
/// host's max_in_flight holds across them (hosts named in an agent file are that
/// file's own); a new connection adds its capacity to `fleet_capacity`.
async fn connect(
    entry: &LlmEntry,
    connections: &mut HashMap<String, Connection>,
    fleet_capacity: &mut usize,
    env: &dyn Fn(&str) -> Option<String>,
    path: &Path,
) -> Result<(AgentArgs, Connection)> {
    let agent = AgentArgs {
        agent_file: entry.agent_file.clone(),
        ..AgentArgs::default()
    };
    let hosts = hosts(entry)
        .map_err(|e| anyhow::anyhow!("bad tournament file {}: [[llm]] {}: {e}", path.display(), entry.model))?;
    let key = if hosts.given() {
        format!("{hosts:?}")
    } else {
        format!("{hosts:?} {:?}", entry.agent_file)
    };
    if let Some(connection) = connections.get(&key) {
        return Ok((agent, connection.clone()));
    }
    let connection = hosts
        .connect(&agent, env)
        .await
        .with_context(|| format!("bad [[llm]] {} in {}", entry.model, path.display()))?;
    *fleet_capacity += connection.default_parallel();
    connections.insert(key, connection.clone());
    Ok((agent, connection))
}

/// The players of an `[[llm]]` table over `base` (its agent file): one, or one per
/// combination of its grid, each with the name parts its settings give.
fn variants(entry: &LlmEntry, base: &AgentArgs) -> Result<Vec<Variant>> {
    match &entry.grid {
        None => Ok(vec![Variant {
            agent: base.clone(),
            name_parts: Vec::new(),
        }]),
        Some(grid) => grid::variants(grid, base),
    }
}

/// The `llm:MODEL` player of one of an `[[llm]]` table's variants on `connection`,
/// named as [`arena::llm_player_name`] says.
fn player(entry: &LlmEntry, variant: &Variant, connection: &Connection, path: &Path) -> Result<PlayerSpec> {
    let agent = &variant.agent;
    let spec = format!("llm:{}", entry.model);
    let mut player = parse_player(&spec, "[[llm]]", agent, Some(connection))
        .with_context(|| format!("bad [[llm]] {} in {}", entry.model, path.display()))?;
    if let PlayerSpec::Llm(llm_player) = &mut player {
        let think = llm_player.config.think.as_ref();
        let name = arena::llm_player_name(entry.name.as_deref(), think, entry.think_named(), &variant.name_parts)
            .map_err(|e| anyhow::anyhow!("bad [[llm]] {} in {}: {e}", entry.model, path.display()))?;
        if let Some(name) = name {
            let mut config = (*llm_player.config).clone();
            config.name = Some(name);
            llm_player.config = Arc::new(config);
        }
    }
    Ok(player)
}

pub(super) async fn run(args: TournamentArgs, env: &dyn Fn(&str) -> Option<String>) -> Result<()> {
    let mut tournament = read(&args)?;
    tournament.no_score_moves |= args.no_score_moves;
    let (openings, notes) = tournament.openings(args.openings.as_deref())?;
    print_notes(&notes);
    let stop = arena::stop_judge::<Othello>(tournament.rule)?;
    let mut entrants = entrants(&tournament, env).await?;
    if let Some((_, run)) = &tournament.resume {
        entrants.keep_recorded_caps(run);
    }
    external::identify(&entrants.players).await?;
    let parallel = entrants.parallel(args.parallel);
    let open = tournament.open(&entrants, openings, (parallel, args.log_dir.as_deref()))?;
    let log_dir = open.run.path();
    if let Some(resumed) = open.resumed {
        eprintln!(
            "resuming {}: {} games already finished; {} unfinished log(s) kept aside",
            log_dir.display(),
            resumed.finished,
            resumed.set_aside
        );
    }
    let bar = GameBar::new(open.plan.schedule.len(), args.json, "games (at most)");
    let started = Instant::now();
    let played = open
        .play(&entrants.players, stop.as_ref(), &|event| bar.count(&event))
        .await?;
    bar.finish();
    let interrupted = played.interrupted;
    let games = open.games_to_score(&played, &entrants.llm);
    if let (false, Some(scoring), false) = (interrupted, tournament.valuing().scoring, games.is_empty()) {
        let (playing, valuing) = (started.elapsed(), Instant::now());
        let never = AtomicBool::new(false);
        let stop = open.options.stop.as_deref().unwrap_or(&never);
        let valued = tokio::task::block_in_place(|| {
            quality::with_progress::<Othello, _>(games.len(), &scoring, args.json, |watch| {
                scoring.value(&games, (quality::cores(), watch, stop), Some(log_dir))
            })
        });
        super::eval::valued_or_stopped(valued, (games.len(), args.json), (valuing, playing))?;
    }
    let results = TournamentResults {
        pairings: played.pairings,
        ratings: rate(&tournament, args.no_ladder, log_dir, interrupted)?,
        complete: !interrupted,
        log_dir: log_dir.display().to_string(),
    };
    open.run.finish(&RunResults::Tournament(&results))?;
    print_results(&results, args.json)?;
    if interrupted {
        let records = &played.games.records;
        return Err(Interrupted {
            command: "tournament",
            finished: records.iter().filter(|r| r.is_some()).count(),
            total: records.len(),
            dir: log_dir.to_path_buf(),
        }
        .into());
    }
    Ok(())
}

/// Reads the tournament file, or the text a `--resume` run folder keeps, and checks
/// it as the flags of the same names are checked; each message names the file and the
/// key.
fn read(args: &TournamentArgs) -> Result<Tournament> {
    let (path, resume, text) = match (&args.file, &args.resume) {
        (_, Some(dir)) => {
            let run = recorded_tournament(dir)?;
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
            "bad tournament file {}: see docs/tournament.md (format, engines, [[engine]] and [[llm]] tables, games, opening_random, seed, stop, anchor)",
            path.display()
        )
    })?;
    file.check(&path)?;
    // A grid's values are checked now, before any server is asked for anything.
    for entry in &file.llms {
        variants(entry, &AgentArgs::default())
            .map_err(|e| anyhow::anyhow!("bad tournament file {}: [[llm]] {}: {e}", path.display(), entry.model))?;
    }
    Ok(arena::Tournament::new((path, text), resume, file)?)
}

/// The file's players, in its order (engines, external engines, then LLM players), the
/// LLM players connected to their hosts (players on the same hosts share one
/// connection); refused when two share a name or the format lacks players.
async fn entrants(tournament: &Tournament, env: &dyn Fn(&str) -> Option<String>) -> Result<Entrants> {
    let (file, path) = (&tournament.file, &tournament.path);
    let mut players: Vec<PlayerSpec> = Vec::new();
    for engine in &file.engines {
        players.push(parse_player(engine, "engines", &AgentArgs::default(), None)?);
    }
    for table in &file.external {
        let engine =
            ExternalEngine::new(table.clone()).with_context(|| format!("bad tournament file {}", path.display()))?;
        players.push(PlayerSpec::External(engine));
    }
    let mut llm = Vec::new();
    let mut fleet_capacity = 0;
    let mut connections: HashMap<String, Connection> = HashMap::new();
    for entry in &file.llms {
        let (agent, connection) = connect(entry, &mut connections, &mut fleet_capacity, env, path).await?;
        let variants =
            variants(entry, &agent).with_context(|| format!("bad [[llm]] {} in {}", entry.model, path.display()))?;
        let first = players.len();
        for variant in &variants {
            let player = player(entry, variant, &connection, path)?;
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
    Ok(Entrants::new(players, llm, fleet_capacity, (file.format, path))?)
}

/// The run's ratings ([`Tournament::rate`], on blocking threads, off the async
/// workers), its notes on stderr; an interrupted run not rated yet says why.
fn rate(tournament: &Tournament, no_ladder: bool, log_dir: &Path, interrupted: bool) -> Result<TournamentRatings> {
    let rated = tokio::task::block_in_place(|| tournament.rate(no_ladder, log_dir, interrupted))?;
    match rated {
        TournamentRating::Rated { ratings, notes } => {
            print_notes(&notes);
            Ok(ratings)
        }
        TournamentRating::NotYet { notes, why } => {
            print_notes(&notes);
            eprintln!("no ratings yet: {:#}", anyhow::Error::from(why));
            Ok(TournamentRatings {
                as_played: None,
                fallback_as_loss: None,
            })
        }
    }
}

/// The results printed: as JSON with `--json`, else the pairings, the ratings and the
/// intrinsic table (`rate`'s, through the shipped calibration).
fn print_results(results: &TournamentResults, json: bool) -> Result<()> {
    if json {
        outln!("{}", RunResults::Tournament(results).to_json())?;
        return Ok(());
    }
    out!("{}", PairingResult::table(&results.pairings))?;
    outln!()?;
    if let Some(as_played) = &results.ratings.as_played {
        out!(
            "{}",
            leaderboard_tables(as_played, results.ratings.fallback_as_loss.as_ref())
        )?;
    }
    let logs = read_game_logs(&[PathBuf::from(&results.log_dir)])?;
    let mut intrinsic = tokio::task::block_in_place(|| {
        arena::logs_table(
            &logs,
            Path::new(DEFAULT_CALIBRATION),
            runs::DEFAULT_BOOTSTRAP as usize,
            runs::DEFAULT_BOOTSTRAP_SEED,
        )
    })?;
    if let Some(as_played) = &results.ratings.as_played {
        intrinsic.beside(as_played);
    }
    outln!()?;
    out!("{}", intrinsic.text())?;
    outln!("logs: {}", results.log_dir)?;
    Ok(())
}
