//! `rate`: every player of the given runs on one Elo scale, as played and with
//! fallback games scored as losses.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde_json::json;

use super::args::RateArgs;
use super::outputs::check_output_flag;
use super::stats::print_notes;
use arena::{leaderboards, read_game_logs, Leaderboard, RatingView, RunGame};
use engines::EngineSpec;
use game::Game;
use record::PlayerKind;

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
        print!("{}", tables(&as_played, as_loss.as_ref()));
    }
    Ok(())
}

/// The player ratings are held to, and its rating: `SPEC=ELO`, read by one parser from
/// `rate --anchor` and a tournament file's `anchor`.
#[derive(Clone, Debug, PartialEq)]
pub struct Anchor {
    /// The player, as given (callers put an engine spec in the form logs write).
    pub spec: String,
    /// Its rating, a finite number.
    pub elo: f64,
}

impl Default for Anchor {
    /// `random=0`.
    fn default() -> Anchor {
        Anchor {
            spec: "random".to_string(),
            elo: 0.0,
        }
    }
}

impl Anchor {
    /// The anchor when none is named: the default (`random` at 0) when it is among
    /// `players`, else the first of them at 0; `None` when there are none. (`rate`
    /// takes the default as it is: its error names the players when random is absent.)
    pub(super) fn among<'a>(players: impl IntoIterator<Item = &'a str>) -> Option<Anchor> {
        let default = Anchor::default();
        let players: Vec<&str> = players.into_iter().collect();
        if players.contains(&default.spec.as_str()) {
            return Some(default);
        }
        players.first().map(|first| Anchor {
            spec: first.to_string(),
            elo: default.elo,
        })
    }
}

impl std::str::FromStr for Anchor {
    type Err = String;

    /// `SPEC=ELO`, such as `random=0`: a player before the last `=`, a finite number after.
    fn from_str(text: &str) -> Result<Anchor, String> {
        let (spec, elo) = text
            .rsplit_once('=')
            .ok_or_else(|| format!("{text:?} is not SPEC=ELO, such as random=0"))?;
        let elo: f64 = elo
            .trim()
            .parse()
            .ok()
            .filter(|e: &f64| e.is_finite())
            .ok_or_else(|| format!("{text:?}: the rating after = must be a number, such as random=0"))?;
        if spec.trim().is_empty() {
            return Err(format!("{text:?}: name the anchor player before =, such as random=0"));
        }
        Ok(Anchor {
            spec: spec.trim().to_string(),
            elo,
        })
    }
}

impl std::fmt::Display for Anchor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}={}", self.spec, self.elo)
    }
}

/// The text tables of [`arena::leaderboards`].
pub(super) fn tables(as_played: &Leaderboard, as_loss: Option<&Leaderboard>) -> String {
    let mut out = table(as_played, "as played");
    if let Some(as_loss) = as_loss {
        out.push('\n');
        out.push_str(&table(
            as_loss,
            "every game in which a fallback moved scored as the LLM player's loss",
        ));
    }
    out
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

/// The text table: rank, player, rating with its interval, games, score, and for LLM
/// players the share of moves the model decided and where it falls among the engines.
fn table(board: &Leaderboard, view: &str) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Ratings ({view}): Bradley-Terry on the Elo scale, {} held at {:.0}, 95% bootstrap intervals, {} games",
        board.anchor.0, board.anchor.1, board.games
    );
    let width = board.rows.iter().map(|r| r.player.len()).max().unwrap_or(6).max(6);
    let _ = writeln!(
        out,
        "{:>3}  {:width$}  {:>6}  {:>15}  {:>5}  {:>6}  model moves",
        "#", "player", "elo", "95% interval", "games", "score"
    );
    for (rank, row) in board.rows.iter().enumerate() {
        let r = &row.rating;
        let score = if r.games == 0 {
            0.0
        } else {
            100.0 * r.score / f64::from(r.games)
        };
        let llm = match (row.kind, row.moves) {
            (PlayerKind::Llm, Some((asked, decided))) => {
                let share = if asked == 0 {
                    0.0
                } else {
                    100.0 * f64::from(decided) / f64::from(asked)
                };
                let ladder = row.ladder.as_deref().map(|l| format!("; {l}")).unwrap_or_default();
                format!("{decided}/{asked} ({share:.0}%){ladder}")
            }
            _ => String::new(),
        };
        let _ = writeln!(
            out,
            "{:>3}  {:width$}  {:>6.0}  {:>15}  {:>5}  {:>5.1}%  {llm}",
            rank + 1,
            row.player,
            r.elo,
            if r.low.is_finite() && r.high.is_finite() {
                format!("[{:.0}, {:.0}]", r.low, r.high)
            } else {
                "too few games".to_string()
            },
            r.games,
            score
        );
    }
    out
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
    let mut out = String::from("view,player,kind,elo,low,high,games,score,model_moves,moves_asked,ladder\n");
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
            let ladder = row.ladder.clone().unwrap_or_default().replace('"', "'");
            let _ = writeln!(
                out,
                "{view},{},{kind},{:.1},{},{},{},{},{decided},{asked},\"{ladder}\"",
                row.player,
                r.elo,
                bound(r.low),
                bound(r.high),
                r.games,
                r.score
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_anchor_is_spec_equals_a_finite_rating() {
        let anchor: Anchor = " reference = -150.5 ".parse().unwrap();
        assert_eq!((anchor.spec.as_str(), anchor.elo), ("reference", -150.5));
        assert_eq!(Anchor::default().to_string(), "random=0");
        assert_eq!(Anchor::default().to_string().parse(), Ok(Anchor::default()));
        for bad in ["random", "random=NaN", "random=inf", "random=", "=0"] {
            assert!(bad.parse::<Anchor>().is_err(), "{bad}");
        }
    }

    #[test]
    fn the_default_anchor_is_random_when_it_played_else_the_first_player() {
        assert_eq!(Anchor::among(["greedy", "random"]), Some(Anchor::default()));
        let first = Anchor::among(["greedy", "n-hand:3"]).unwrap();
        assert_eq!((first.spec.as_str(), first.elo), ("greedy", 0.0));
        assert_eq!(Anchor::among([]), None);
    }
}
