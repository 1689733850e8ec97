//! `rate`: every player of the given runs on one Elo scale, as played and with
//! fallback games scored as losses: [`runs::rate_games`], as every face rates.

use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::Arc;

use anyhow::{Context, Result};
use serde_json::json;

use super::args::RateArgs;
use super::inputs::open_runs;
use super::outputs::{check_output_flag, write_output};
use super::progress::{steps_line, Progress};
use super::stats::print_notes;
use super::stdout::{out, outln};
use game::Game;
use runs::{
    leaderboard_tables, rate_games, ratings_csv, read_game_logs, Ladder, LadderChoice, RateSettings, Ratings, RunGame,
};
use stats::{check_resamples, RatingWatch};

pub(super) fn run(mut args: RateArgs) -> Result<()> {
    let bootstrap = check_bootstrap(args.bootstrap)?;
    let inputs: Vec<&Path> = args.paths.iter().map(PathBuf::as_path).collect();
    for (flag, path) in [
        ("--csv", &args.csv),
        ("--write-ladder", &args.write_ladder),
        ("--write-intrinsic", &args.write_intrinsic),
    ] {
        if let Some(path) = path {
            check_output_flag(flag, path, args.overwrite, &inputs, &[])?;
        }
    }
    // Bundles are read as the run folders they hold (checked against their manifests).
    let opened = open_runs(&args.paths)?;
    args.paths.clone_from(&opened.paths);
    let ladder = LadderChoice::from_flags(args.ladder.as_deref(), args.no_ladder, args.write_ladder.is_some())?;
    let settings = RateSettings {
        anchor: args.anchor.clone(),
        ladder: ladder.clone(),
        bootstrap,
        seed: args.seed,
    };
    let (games, mut notes, game) = read_games_with_notes(&args.paths)?;
    print_notes(&notes);
    let rated = rate_with_progress(&games, game, &settings)?;
    print_notes(&rated.notes);
    notes.extend(rated.notes.iter().cloned());
    if let Some(path) = &args.write_ladder {
        let text = Ladder::file_text(&args.paths, &rated.as_played)?;
        write_output("--write-ladder", path, text.as_bytes())?;
    }
    let (as_played, as_loss) = (&rated.as_played, rated.fallback_as_loss.as_ref());
    if let Some(path) = &args.csv {
        write_output("--csv", path, ratings_csv(as_played, as_loss).as_bytes())?;
    }
    let mut intrinsic = super::intrinsic::table(&args, ladder.rungs(), bootstrap)?;
    intrinsic.beside(as_played);
    if args.json {
        outln!(
            "{}",
            json!({ "as_played": as_played, "fallback_as_loss": as_loss, "notes": notes, "intrinsic": intrinsic })
        )?;
    } else {
        out!("{}", leaderboard_tables(as_played, as_loss))?;
        out!("\n{}", intrinsic.text())?;
    }
    Ok(())
}

/// `--bootstrap` as a count of resamples, refused below the fit's minimum with the rule.
fn check_bootstrap(resamples: u32) -> Result<usize> {
    let resamples = resamples as usize;
    check_resamples(resamples).with_context(|| format!("bad --bootstrap {resamples}"))?;
    Ok(resamples)
}

/// [`rate_games`] with a progress line on a terminal while the resamples run.
fn rate_with_progress(games: &[RunGame], game: Game, settings: &RateSettings) -> Result<Ratings> {
    let watch = Arc::new(RatingWatch::default());
    let polled = watch.clone();
    let progress = Progress::start(move |elapsed| {
        let done = polled.resamples_done.load(Ordering::Relaxed) as u64;
        let total = polled.resamples_total.load(Ordering::Relaxed) as u64;
        steps_line("rating (bootstrap)", done, total, "resamples", elapsed)
    });
    let rated = rate_games(games, game, settings, &watch);
    drop(progress);
    Ok(rated?)
}

/// Every game under `paths`, read by [`read_game_logs`] (each log once, checked against
/// the rules, a game cut off by a crash unfinished), with the reader's notes and the
/// game the logs play; the run of each game is the folder it lies in.
fn read_games_with_notes(paths: &[std::path::PathBuf]) -> Result<(Vec<RunGame>, Vec<String>, Game)> {
    let logs = read_game_logs(paths)?;
    let games = RunGame::from_logs(&logs);
    let game = logs.game;
    Ok((games, logs.notes, game))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn too_few_resamples_are_refused_naming_the_flag_and_the_minimum() {
        let error = format!("{:#}", check_bootstrap(1).unwrap_err());
        assert_eq!(
            error,
            "bad --bootstrap 1: too few bootstrap resamples (1) for an interval; ask for at least 100 \
             (1000 is plenty)"
        );
        assert!(check_bootstrap(99).is_err());
        assert_eq!(check_bootstrap(100).unwrap(), 100);
    }
}
