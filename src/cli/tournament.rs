//! `tournament FILE.toml`: engines and LLM players in a gauntlet or a round robin, each
//! pairing in colour-swapped pairs on one opening list, optionally stopped early per
//! pairing; logs, resume and Ctrl-C as for `eval`; ratings at the end.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use anyhow::Result;

use super::args::TournamentArgs;
use super::eval::Interrupted;
use super::external;
use super::progress::GameBar;
use super::quality;
use super::stats::print_notes;
use super::stdout::{out, outln};
use arena::{Tournament, TournamentRating};
use game::Othello;
use runs::{leaderboard_tables, read_game_logs, PairingResult, RunResults, TournamentRatings, TournamentResults};

pub(super) async fn run(args: TournamentArgs, env: &dyn Fn(&str) -> Option<String>) -> Result<()> {
    let mut tournament = Tournament::read(args.file.as_deref(), args.resume.as_deref())?;
    tournament.no_score_moves |= args.no_score_moves;
    let (openings, notes) = tournament.openings(args.openings.as_deref())?;
    print_notes(&notes);
    let stop = arena::stop_judge::<Othello>(tournament.rule)?;
    let entrants = tournament.entrants(env).await?;
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
    let mut intrinsic = tokio::task::block_in_place(|| arena::logs_table(&logs))?;
    if let Some(as_played) = &results.ratings.as_played {
        intrinsic.beside(as_played);
    }
    outln!()?;
    out!("{}", intrinsic.text())?;
    outln!("logs: {}", results.log_dir)?;
    Ok(())
}
