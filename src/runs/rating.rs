//! One rating, computed once: `rate`, a tournament's final table, `serve`'s "Rate the
//! ticked runs" and the report's charts all call [`rate_games`] with [`RateSettings`]
//! (their defaults: [`DEFAULT_BOOTSTRAP`] resamples seeded by
//! [`DEFAULT_BOOTSTRAP_SEED`], and the published ladder), so the same games give the
//! same numbers and intervals in every face.
//!
//! The scale: when the published ladder's engines ([`PUBLISHED_LADDER`], built from
//! docs/ladder-ratings.toml) are among the players and no anchor is named, they are
//! held at the ladder's ratings and only the other players are fitted, with a note
//! that says so; [`LadderChoice::Off`] (`--no-ladder`) fits everyone from these games
//! alone, anchored at [`RateSettings::anchor`] or [`Anchor::among`] the players.

use std::sync::OnceLock;

use game::Game;
use stats::RatingWatch;

use crate::leaderboard::{
    leaderboards, rated_players, Anchor, Ladder, LadderError, Leaderboard, LeaderboardError, Rated, RunGame,
    DEFAULT_BOOTSTRAP, DEFAULT_BOOTSTRAP_SEED,
};
use record::PlayerKind;

/// The published engine ladder, as docs/ladder-ratings.toml holds it (built in, so
/// every face holds the same ratings wherever the binary runs).
pub const PUBLISHED_LADDER: &str = include_str!("../../docs/ladder-ratings.toml");

/// Where [`PUBLISHED_LADDER`] lives in the sources, as notes name it.
pub const PUBLISHED_LADDER_PATH: &str = "docs/ladder-ratings.toml";

/// Which ladder, if any, holds the engines.
#[derive(Clone, Debug, PartialEq)]
pub enum LadderChoice {
    /// The published ladder, when no anchor is named and its engines played (the
    /// default of every face).
    Published,
    /// A ladder file the user named: where it came from, and the ladder (checked).
    File(String, Ladder),
    /// No ladder: every player is fitted from these games alone.
    Off,
}

/// How games are rated: one set of defaults for every face.
#[derive(Clone, Debug, PartialEq)]
pub struct RateSettings {
    /// The player held fixed, and its rating; `None`: [`Anchor::among`] the players
    /// (or the ladder's anchor when a ladder holds the engines). A named anchor turns
    /// the published ladder off.
    pub anchor: Option<Anchor>,
    /// The ladder that holds the engines.
    pub ladder: LadderChoice,
    /// Bootstrap resamples for the 95% intervals.
    pub bootstrap: usize,
    /// Seed of the bootstrap.
    pub seed: u64,
}

impl Default for RateSettings {
    /// No anchor named, the published ladder, [`DEFAULT_BOOTSTRAP`] resamples seeded by
    /// [`DEFAULT_BOOTSTRAP_SEED`].
    fn default() -> RateSettings {
        RateSettings {
            anchor: None,
            ladder: LadderChoice::Published,
            bootstrap: DEFAULT_BOOTSTRAP as usize,
            seed: DEFAULT_BOOTSTRAP_SEED,
        }
    }
}

impl RateSettings {
    /// The defaults, with the published ladder off when `no_ladder` (`--no-ladder`,
    /// serve's unticked "on the ladder").
    pub fn with_ladder(no_ladder: bool) -> RateSettings {
        RateSettings {
            ladder: if no_ladder {
                LadderChoice::Off
            } else {
                LadderChoice::Published
            },
            ..RateSettings::default()
        }
    }
}

/// Rated games: the leaderboards and what a reader must know about their scale.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Ratings {
    /// As played.
    pub as_played: Leaderboard,
    /// With every game in which an LLM player's fallback moved scored as its loss,
    /// when there was such a game.
    pub fallback_as_loss: Option<Leaderboard>,
    /// The scale's notes (engines held at a ladder's ratings, or engines that meet
    /// only through other players), then what the fit left out.
    pub notes: Vec<String>,
}

/// Why games cannot be rated.
#[derive(Debug, thiserror::Error)]
pub enum RateError {
    /// No finished game.
    #[error("no finished games in these runs")]
    NoGames,
    /// A ladder file none of whose engines played.
    #[error("the ladder {path}: none of its engines played in these runs (they played {players})")]
    LadderUnplayed {
        /// The ladder file.
        path: String,
        /// The players there are.
        players: String,
    },
    /// The fit failed, or the anchor did not play.
    #[error(transparent)]
    Leaderboard(#[from] LeaderboardError),
}

/// The published ladder, read and checked once (on the first call).
pub fn published_ladder() -> &'static Ladder {
    static LADDER: OnceLock<Ladder> = OnceLock::new();
    LADDER.get_or_init(|| {
        Ladder::from_toml(PUBLISHED_LADDER)
            .expect("docs/ladder-ratings.toml is a checked ladder (a unit test reads it)")
    })
}

/// Rates the finished games of `games` (played under `game`'s rules) as `settings`
/// say: the scale (anchor, engines held at a ladder's ratings), both views, and the
/// notes; the resamples are counted on `watch` as they finish.
pub fn rate_games(
    games: &[RunGame],
    game: Game,
    settings: &RateSettings,
    watch: &RatingWatch,
) -> Result<Ratings, RateError> {
    let names = rated_players(games);
    if names.is_empty() {
        return Err(RateError::NoGames);
    }
    let (anchor, held, mut notes) = scale(games, game, &names, settings)?;
    let (as_played, fallback_as_loss) = leaderboards(
        games,
        (&anchor.0, anchor.1),
        &held,
        settings.bootstrap,
        settings.seed,
        watch,
    )?;
    // Both views leave out the same games.
    notes.extend(as_played.notes.iter().cloned());
    Ok(Ratings {
        as_played,
        fallback_as_loss,
        notes,
    })
}

/// The anchor, the players held at a ladder's ratings, and the scale's note.
fn scale(
    games: &[RunGame],
    game: Game,
    names: &[String],
    settings: &RateSettings,
) -> Result<(Rated, Vec<Rated>, Vec<String>), RateError> {
    let played: Vec<&str> = names.iter().map(String::as_str).collect();
    let ladder = match (&settings.ladder, &settings.anchor) {
        (LadderChoice::File(path, ladder), _) => {
            let scale = ladder.scale_for(&played).ok_or_else(|| RateError::LadderUnplayed {
                path: path.clone(),
                players: names.join(", "),
            })?;
            Some((format!("the ladder {path}"), ladder.source.clone(), scale))
        }
        (LadderChoice::Published, None) if game == Game::Othello => {
            let ladder = published_ladder();
            let scale = ladder.scale_for(&played).filter(|(_, held)| !held.is_empty());
            scale.map(|scale| {
                (
                    format!("the published ladder ({PUBLISHED_LADDER_PATH})"),
                    ladder.source.clone(),
                    scale,
                )
            })
        }
        _ => None,
    };
    if let Some((which, source, (anchor, held))) = ladder {
        let note = held_note(&which, &source, &anchor, &held);
        return Ok((anchor, held, vec![note]));
    }
    let anchor = match &settings.anchor {
        // An engine anchor in the canonical form the game's logs write (`random` is
        // marubatsu's `ai2`); an LLM player as given.
        Some(anchor) => Anchor {
            spec: engines::canonical_spec(game, &anchor.spec).unwrap_or_else(|_| anchor.spec.clone()),
            elo: anchor.elo,
        },
        None => Anchor::among(game, played).ok_or(RateError::NoGames)?,
    };
    let notes = engines_apart_note(games).into_iter().collect();
    Ok(((anchor.spec, anchor.elo), Vec::new(), notes))
}

/// The note of a scale held by a ladder (`which`, made from `source`).
fn held_note(which: &str, source: &str, anchor: &Rated, held: &[Rated]) -> String {
    let held: Vec<&str> = held.iter().map(|(name, _)| name.as_str()).collect();
    let others = if held.is_empty() {
        String::new()
    } else {
        format!(" and {} at the ladder's ratings", held.join(", "))
    };
    format!(
        "rated on {which}, from `{source}`: {} held at {}{others}, only the other players fitted; turn the ladder \
         off (--no-ladder) to fit every player from these games alone",
        anchor.0,
        stats::whole(anchor.1),
    )
}

/// A note when the engines of `games` fall into groups that meet only through other
/// players (a gauntlet: each engine plays only the models), whose ratings then rest on
/// the models' games alone.
fn engines_apart_note(games: &[RunGame]) -> Option<String> {
    use game::othello::Color;
    let is_engine = |g: &RunGame, color| g.game.kinds[color] == PlayerKind::Engine;
    let mut engines: Vec<&str> = Vec::new();
    for g in games {
        for color in [Color::Black, Color::White] {
            let name = g.game.players[color].as_str();
            if is_engine(g, color) && !engines.contains(&name) {
                engines.push(name);
            }
        }
    }
    // Groups of engines joined by engine-against-engine games.
    let mut group: Vec<usize> = (0..engines.len()).collect();
    let find = |group: &Vec<usize>, mut i: usize| {
        while group[i] != i {
            i = group[i];
        }
        i
    };
    let index = |name: &str| engines.iter().position(|e| *e == name).expect("collected above");
    for g in games
        .iter()
        .filter(|g| is_engine(g, Color::Black) && is_engine(g, Color::White))
    {
        let (a, b) = (
            find(&group, index(&g.game.players.black)),
            find(&group, index(&g.game.players.white)),
        );
        group[a] = b;
    }
    let groups = (0..engines.len()).filter(|&i| find(&group, i) == i).count();
    (groups > 1).then(|| {
        format!(
            "the engines here ({}) meet each other only through other players, so their ratings rest on those \
             players' games alone; `othello-arena rate --ladder FILE` on the same games holds them at a published ladder's ratings",
            engines.join(", ")
        )
    })
}

impl Ladder {
    /// A ladder file's text, read and [checked](Ladder::checked).
    pub fn from_toml(text: &str) -> Result<Ladder, LadderError> {
        let ladder: Ladder = toml::from_str(text).map_err(|e| LadderError::NotToml { why: e.to_string() })?;
        ladder.checked()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_published_ladder_is_a_checked_ladder_anchored_at_random() {
        let ladder = published_ladder();
        assert_eq!(ladder.anchor, "random=0");
        assert!(ladder.rungs.iter().any(|rung| rung.player == "greedy"));
        assert!(std::ptr::eq(ladder, published_ladder()), "read once");
    }

    #[test]
    fn the_default_settings_are_every_faces() {
        let settings = RateSettings::default();
        assert_eq!(settings, RateSettings::with_ladder(false));
        assert_eq!(
            (settings.bootstrap, settings.seed),
            (DEFAULT_BOOTSTRAP as usize, DEFAULT_BOOTSTRAP_SEED)
        );
        assert_eq!(RateSettings::with_ladder(true).ladder, LadderChoice::Off);
    }
}
