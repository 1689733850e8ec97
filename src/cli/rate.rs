//! `rate`: every player of the given runs on one Elo scale, as played and with
//! fallback games scored as losses: [`runs::rate_games`], as every face rates.

use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::Arc;

use anyhow::{Context, Result};
use serde_json::json;

use super::args::RateArgs;
use super::inputs::{open_runs, read_or_built_in, SETTINGS_CAP};
use super::outputs::{check_output_flag, write_output};
use super::progress::{steps_line, Progress};
use super::stats::print_notes;
use super::stdout::{out, outln};
use game::Game;
use runs::CsvTable;
use runs::{
    leaderboard_tables, published_ladder, rate_games, read_game_logs, Ladder, LadderChoice, Leaderboard, RateSettings,
    RatingView, Ratings, RunGame, PUBLISHED_LADDER_PATH,
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
    let ladder = ladder_choice(&args)?;
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
        write_ladder(&args.paths, path, &rated.as_played)?;
    }
    let (as_played, as_loss) = (&rated.as_played, rated.fallback_as_loss.as_ref());
    if let Some(path) = &args.csv {
        write_output("--csv", path, csv(as_played, as_loss).as_bytes())?;
    }
    let rungs = match &ladder {
        LadderChoice::File(source, ladder) => Some((source.as_str(), ladder)),
        LadderChoice::Published => Some((PUBLISHED_LADDER_PATH, published_ladder())),
        LadderChoice::Off => None,
    };
    let mut intrinsic = super::intrinsic::table(&args, rungs, bootstrap)?;
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

/// The ladder that holds the engines: `--ladder`'s file, none with `--no-ladder` or
/// `--write-ladder` (a ladder run rates its engines from its own games), else the
/// published one.
fn ladder_choice(args: &RateArgs) -> Result<LadderChoice> {
    Ok(match &args.ladder {
        Some(path) => {
            let (path, ladder) = read_ladder(path)?;
            LadderChoice::File(path.display().to_string(), ladder)
        }
        None if args.no_ladder || args.write_ladder.is_some() => LadderChoice::Off,
        None => LadderChoice::Published,
    })
}

/// The engines' ratings of `as_played` (a ladder run's, the runs under `paths`)
/// written as a ladder file to `path`.
fn write_ladder(paths: &[PathBuf], path: &Path, as_played: &Leaderboard) -> Result<()> {
    let runs: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    let source = format!(
        "othello-arena rate {} --write-ladder, {}",
        runs.join(" "),
        runs::utc_now().0
    );
    let ladder = Ladder::from_board(as_played, source).context("bad --write-ladder: these runs rate no engine")?;
    let text = format!(
        "# A published engine ladder for `othello-arena rate --ladder FILE`: the engines' ratings\n\
         # from the runs named in `source`, held fixed when other players are rated.\n{}",
        toml::to_string(&ladder).context("cannot write the ladder as TOML")?
    );
    write_output("--write-ladder", path, text.as_bytes())
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

/// The ladder file `path` (the built-in published ladder when it is
/// [`PUBLISHED_LADDER_PATH`] and not in the working directory), checked.
fn read_ladder(path: &Path) -> Result<(PathBuf, Ladder)> {
    let built_in = (path == Path::new(PUBLISHED_LADDER_PATH)).then_some(runs::PUBLISHED_LADDER);
    let text = read_or_built_in("--ladder", path, built_in, SETTINGS_CAP)?;
    let ladder = Ladder::from_toml(&text).with_context(|| format!("bad --ladder {}", path.display()))?;
    Ok((path.to_path_buf(), ladder))
}

/// Every game under `paths`, read by [`read_game_logs`] (each log once, checked against
/// the rules, a game cut off by a crash unfinished; the notes go to stderr); the run of
/// each game is the folder it lies in.
pub(super) fn read_games(paths: &[std::path::PathBuf]) -> Result<Vec<RunGame>> {
    let (games, notes, _) = read_games_with_notes(paths)?;
    print_notes(&notes);
    Ok(games)
}

/// [`read_games`], with the reader's notes returned rather than printed, and the game
/// the logs play.
fn read_games_with_notes(paths: &[std::path::PathBuf]) -> Result<(Vec<RunGame>, Vec<String>, Game)> {
    let logs = read_game_logs(paths)?;
    let games = RunGame::from_logs(&logs);
    let game = logs.game;
    Ok((games, logs.notes, game))
}

/// An interval bound for the CSV: empty when there is no interval.
fn bound(value: f64) -> String {
    if value.is_finite() {
        format!("{value:.1}")
    } else {
        String::new()
    }
}

fn csv(as_played: &Leaderboard, as_loss: Option<&Leaderboard>) -> String {
    let mut table = CsvTable::new(&[
        "view",
        "player",
        "kind",
        "elo",
        "low",
        "high",
        "games",
        "score",
        "model_moves",
        "moves_asked",
        "ladder",
    ]);
    for board in std::iter::once(as_played).chain(as_loss) {
        let view = match board.view {
            RatingView::AsPlayed => "as_played",
            RatingView::FallbackAsLoss => "fallback_as_loss",
        };
        for row in &board.rows {
            let r = &row.rating;
            let (asked, decided) = row
                .moves
                .map_or((String::new(), String::new()), |(a, d)| (a.to_string(), d.to_string()));
            let kind = serde_json::to_value(row.kind)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default();
            table.row(&[
                view.to_string(),
                row.player.clone(),
                kind,
                format!("{:.1}", r.elo),
                bound(r.low),
                bound(r.high),
                r.games.to_string(),
                r.score.to_string(),
                decided,
                asked,
                row.ladder.clone().unwrap_or_default(),
            ]);
        }
    }
    table.finish()
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
