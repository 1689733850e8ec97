//! `rate`: every player of the given runs on one Elo scale, as played and with
//! fallback games scored as losses.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde_json::json;

use super::args::RateArgs;
use super::csv_table::CsvTable;
use super::outputs::check_output_flag;
use super::stats::print_notes;
use arena::{leaderboard_tables, leaderboards, read_game_logs, Anchor, Leaderboard, RatingView, RunGame};
use engines::EngineSpec;
use game::Game;

pub(super) fn run(args: RateArgs) -> Result<()> {
    if let Some(path) = &args.csv {
        let inputs: Vec<&Path> = args.paths.iter().map(PathBuf::as_path).collect();
        check_output_flag("--csv", path, &inputs, &[])?;
    }
    let (games, notes, game) = read_games_with_notes(&args.paths)?;
    print_notes(&notes);
    // An engine anchor in the canonical form the game's logs write (`random` is
    // marubatsu's `ai2`); an LLM player as given.
    let spec = engines::canonical_spec(game, &args.anchor.spec).unwrap_or_else(|_| args.anchor.spec.clone());
    let anchor = Anchor { spec, ..args.anchor };
    let (as_played, as_loss) = leaderboards(&games, (&anchor.spec, anchor.elo), args.bootstrap as usize, args.seed)?;
    if let Some(path) = &args.csv {
        std::fs::write(path, csv(&as_played, as_loss.as_ref()))
            .with_context(|| format!("cannot write --csv {}", path.display()))?;
    }
    if args.json {
        println!(
            "{}",
            json!({ "as_played": as_played, "fallback_as_loss": as_loss, "notes": notes })
        );
    } else {
        print!("{}", leaderboard_tables(&as_played, as_loss.as_ref()));
    }
    Ok(())
}

/// A player as the logs name it: an engine spec in its full form (`reference` is
/// `reference:8:18`), anything else as given.
pub(super) fn player_name(spec: &str) -> String {
    spec.parse::<EngineSpec>()
        .map_or_else(|_| spec.trim().to_string(), |engine| engine.to_string())
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
    let game = logs.game.parse().map_err(anyhow::Error::msg)?;
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
