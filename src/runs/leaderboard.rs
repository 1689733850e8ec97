//! Leaderboards: the games of any set of runs rated on one Elo scale.
//!
//! Players are named by their spec in the logs (`greedy`, `llm:MODEL`). A game counts
//! once however many times it is given; unfinished games count nowhere. Games of one
//! run between the same two players on the same opening are taken two by two, in game
//! order, as a colour-swapped pair (their bootstrap unit). Two views: as played, and
//! with every game in which an LLM player's fallback moved scored as that player's loss
//! (both lose: a draw), so a rating the fallback engine earned is visible as such. A
//! player with fewer than [`MIN_UNITS`] pairs has no interval (its bounds are infinite,
//! `null` in JSON): a bootstrap of one pair would only redraw it and claim certainty.
//!
//! The [`Anchor`] (and the default one, [`Anchor::among`]) and the text tables
//! ([`leaderboard_tables`]) are those of `rate`, `tournament` and `serve` alike; which
//! scale every face rates on is [`crate::rate_games`]'s.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::Serialize;

use super::agent_stats::AgentStats;
use super::logs::GameLogs;
use super::players::PlayerNames;
use super::tally::GameSummary;
use game::othello::Color;
use record::PlayerKind;
use stats::whole;
use stats::{fit_ratings, ladder_position, RatedGame, Rating, RatingError, RatingOptions, RatingWatch};

/// Colour-swapped pairs (or single games) a player needs for an interval.
pub const MIN_UNITS: usize = 2;

/// How games with fallback moves are scored.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RatingView {
    /// As the games ended.
    AsPlayed,
    /// A game in which an LLM player's fallback moved is that player's loss.
    FallbackAsLoss,
}

/// One game of a run, for rating.
#[derive(Clone, Debug)]
pub struct RunGame {
    /// Which run it belongs to (pairs never span runs).
    pub run: usize,
    /// The game.
    pub game: GameSummary,
}

impl RunGame {
    /// Every game `logs` read, each with its run: the folder it lies in, numbered in
    /// the order the logs reach them; each player named by its settings
    /// ([`PlayerNames`]: one model's runs with other settings are other players).
    pub fn from_logs(logs: &GameLogs) -> Vec<RunGame> {
        let names = PlayerNames::of(logs);
        let mut runs: Vec<&std::path::Path> = Vec::new();
        let mut games = Vec::new();
        for logged in &logs.games {
            let run = match runs.iter().position(|r| *r == logged.run) {
                Some(run) => run,
                None => {
                    runs.push(&logged.run);
                    runs.len() - 1
                }
            };
            let mut game = logged.summary.clone();
            for name in [&mut game.players.black, &mut game.players.white] {
                *name = names.name(&logged.run, name);
            }
            games.push(RunGame { run, game });
        }
        games
    }
}

/// Bootstrap resamples when none is asked for (every face's: [`crate::RateSettings`]).
pub const DEFAULT_BOOTSTRAP: u32 = 1000;
/// Bootstrap seed when none is asked for (every face's).
pub const DEFAULT_BOOTSTRAP_SEED: u64 = 1;

/// The leaderboard as played, and when an LLM player's fallback moved in some game,
/// the one with those games scored as its losses; the resamples of both fits are
/// counted on `watch` as they finish (for a progress line).
pub fn leaderboards(
    games: &[RunGame],
    anchor: (&str, f64),
    held: &[(String, f64)],
    bootstrap: usize,
    seed: u64,
    watch: &RatingWatch,
) -> Result<(Leaderboard, Option<Leaderboard>), LeaderboardError> {
    let rate = |view| leaderboard(games, view, anchor, held, bootstrap, seed, watch);
    let as_played = rate(RatingView::AsPlayed)?;
    let any_fallback = as_played.rows.iter().any(|r| r.fallback_games.is_some_and(|n| n > 0));
    let as_loss = any_fallback.then(|| rate(RatingView::FallbackAsLoss)).transpose()?;
    Ok((as_played, as_loss))
}

/// One player's line.
#[derive(Clone, Debug, Serialize)]
pub struct LeaderRow {
    /// The player's spec.
    pub player: String,
    /// Engine, person or LLM.
    pub kind: PlayerKind,
    /// Rating, interval, games and points.
    #[serde(flatten)]
    pub rating: Rating,
    /// For an LLM player: moves it was asked for, and how many the model decided.
    pub moves: Option<(u32, u32)>,
    /// For an LLM player: games in which its fallback moved.
    pub fallback_games: Option<u32>,
    /// For an LLM player: where it falls among the engines ("between a and b").
    pub ladder: Option<String>,
    /// For an LLM player: what its moves cost and how its answers failed, over the
    /// rated games (the statistics of `stats`, with their rates per move).
    #[serde(serialize_with = "agent_json", skip_serializing_if = "Option::is_none")]
    pub agent: Option<AgentStats>,
}

fn agent_json<S: serde::Serializer>(agent: &Option<AgentStats>, serializer: S) -> Result<S::Ok, S::Error> {
    agent.as_ref().map(AgentStats::to_json).serialize(serializer)
}

/// A rated set of games.
#[derive(Clone, Debug, Serialize)]
pub struct Leaderboard {
    /// The view the games were scored in.
    pub view: RatingView,
    /// The player held fixed, and its rating.
    pub anchor: (String, f64),
    /// The other players held at given ratings (a published ladder's), if any.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub held: Vec<(String, f64)>,
    /// Finished games rated.
    pub games: usize,
    /// Best first.
    pub rows: Vec<LeaderRow>,
    /// What the fit left out (a player's games against itself), one line each.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// Why a leaderboard could not be made.
#[derive(Debug, thiserror::Error)]
pub enum LeaderboardError {
    /// The anchor did not play.
    #[error("the anchor {anchor} played none of these games: give --anchor SPEC=ELO with one of {players}")]
    AnchorAbsent {
        /// The anchor asked for.
        anchor: String,
        /// The players there are.
        players: String,
    },
    /// The fit failed.
    #[error("cannot rate these games")]
    Fit(#[source] RatingError),
}

/// The players of the finished games of `games` (the ones a leaderboard rates), sorted.
pub(crate) fn rated_players(games: &[RunGame]) -> Vec<String> {
    let mut names: Vec<String> = games
        .iter()
        .filter(|g| g.game.black_margin.is_some())
        .flat_map(|g| [g.game.players.black.clone(), g.game.players.white.clone()])
        .collect();
    names.sort();
    names.dedup();
    names
}

/// Rates the finished games of `games` in `view`, `anchor` held at its rating and each
/// player of `held` that played held at its own (a published ladder; the others are
/// left out); `bootstrap` resamples seeded by `seed` give the 95% intervals, each
/// counted on `watch` as it finishes.
pub fn leaderboard(
    games: &[RunGame],
    view: RatingView,
    anchor: (&str, f64),
    held: &[(String, f64)],
    bootstrap: usize,
    seed: u64,
    watch: &RatingWatch,
) -> Result<Leaderboard, LeaderboardError> {
    let finished: Vec<&RunGame> = games.iter().filter(|g| g.game.black_margin.is_some()).collect();
    let names = rated_players(games);
    let Some(anchor_index) = names.iter().position(|n| n == anchor.0) else {
        return Err(LeaderboardError::AnchorAbsent {
            anchor: anchor.0.to_string(),
            players: names.join(", "),
        });
    };
    let (rated, facts) = rate_games(&finished, &names, view);
    let options = RatingOptions {
        anchor: anchor_index,
        anchor_elo: anchor.1,
        bootstrap,
        seed,
        confidence: 0.95,
    };
    let held: Vec<(usize, f64)> = held
        .iter()
        .filter_map(|(name, elo)| names.iter().position(|n| n == name).map(|i| (i, *elo)))
        .filter(|&(i, _)| i != anchor_index)
        .collect();
    let fit = fit_ratings(&names, &rated, &options, &held, watch).map_err(LeaderboardError::Fit)?;
    let mut ratings = fit.ratings;
    let fixed: Vec<usize> = std::iter::once(anchor_index)
        .chain(held.iter().map(|&(i, _)| i))
        .collect();
    withhold_thin_intervals(&mut ratings, &rated, &fixed);
    let held = held.iter().map(|&(i, elo)| (names[i].clone(), elo)).collect();
    let mut rows = leader_rows(names, ratings, facts);
    rows.sort_by(|a, b| b.rating.elo.total_cmp(&a.rating.elo));
    Ok(Leaderboard {
        view,
        anchor: (anchor.0.to_string(), anchor.1),
        held,
        games: rated.len() - fit.skipped.len(),
        rows,
        notes: fit.notes,
    })
}

/// What the table says of a player besides its rating.
#[derive(Clone)]
struct PlayerFacts {
    kind: PlayerKind,
    /// For an LLM player: what it did over the rated games.
    agent: Option<AgentStats>,
    /// For an LLM player: games in which the fallback played.
    fallback_games: Option<u32>,
}

/// The rated games of `finished` (players by index into the sorted `names`), scored as
/// `view` says, each with the id of its colour-swapped pair; and each player's facts.
fn rate_games(finished: &[&RunGame], names: &[String], view: RatingView) -> (Vec<RatedGame>, Vec<PlayerFacts>) {
    let index = |name: &str| {
        names
            .binary_search_by(|n| n.as_str().cmp(name))
            .expect("every name was collected")
    };
    let mut facts = vec![
        PlayerFacts {
            kind: PlayerKind::Engine,
            agent: None,
            fallback_games: None,
        };
        names.len()
    ];
    let mut pairs: BTreeMap<(usize, String, String, Vec<String>), u64> = BTreeMap::new();
    let mut rated = Vec::new();
    for g in finished {
        let game = &g.game;
        let (first, second) = (index(&game.players.black), index(&game.players.white));
        for (color, player) in [(Color::Black, first), (Color::White, second)] {
            let facts = &mut facts[player];
            facts.kind = game.kinds[color];
            if game.kinds[color] == PlayerKind::Llm {
                let agent = &game.agents[color];
                facts.agent.get_or_insert_with(AgentStats::default).merge(agent);
                *facts.fallback_games.get_or_insert(0) += u32::from(agent.fallback_moves > 0);
            }
        }
        let fell_back = |color: Color| game.kinds[color] == PlayerKind::Llm && game.agents[color].fallback_moves > 0;
        let played = game.score_for(Color::Black).expect("only finished games are rated");
        let score = match (view, fell_back(Color::Black), fell_back(Color::White)) {
            (RatingView::FallbackAsLoss, true, true) => 0.5,
            (RatingView::FallbackAsLoss, true, false) => 0.0,
            (RatingView::FallbackAsLoss, false, true) => 1.0,
            _ => played,
        };
        let (low, high) = if game.players.black <= game.players.white {
            (&game.players.black, &game.players.white)
        } else {
            (&game.players.white, &game.players.black)
        };
        let seen = pairs
            .entry((g.run, low.clone(), high.clone(), game.opening.clone()))
            .or_insert(0);
        let pair = hash_pair(g.run, low, high, &game.opening, *seen / 2);
        *seen += 1;
        rated.push(RatedGame {
            first,
            second,
            score,
            pair: Some(pair),
        });
    }
    (rated, facts)
}

/// A bootstrap over a single pair (or game) can only redraw it: its interval would
/// claim a certainty the games do not have. Such a player (the `fixed` ones aside: the
/// anchor and any held) has none.
fn withhold_thin_intervals(ratings: &mut [Rating], rated: &[RatedGame], fixed: &[usize]) {
    let mut units: Vec<std::collections::BTreeSet<u64>> = vec![Default::default(); ratings.len()];
    for game in rated.iter().filter(|game| game.first != game.second) {
        let unit = game.pair.expect("every rated game has a pair id");
        units[game.first].insert(unit);
        units[game.second].insert(unit);
    }
    for (i, rating) in ratings.iter_mut().enumerate() {
        if !fixed.contains(&i) && units[i].len() < MIN_UNITS {
            rating.low = f64::NEG_INFINITY;
            rating.high = f64::INFINITY;
        }
    }
}

/// One row per player; an LLM player's row places it on the engines' ladder.
fn leader_rows(names: Vec<String>, ratings: Vec<Rating>, facts: Vec<PlayerFacts>) -> Vec<LeaderRow> {
    let engines: Vec<(String, f64)> = names
        .iter()
        .zip(&ratings)
        .zip(&facts)
        .filter(|(_, facts)| facts.kind == PlayerKind::Engine)
        .map(|((name, rating), _)| (name.clone(), rating.elo))
        .collect();
    names
        .into_iter()
        .zip(ratings)
        .zip(facts)
        .map(|((player, rating), facts)| LeaderRow {
            ladder: (facts.kind == PlayerKind::Llm && !engines.is_empty())
                .then(|| ladder_position(&engines, rating.elo)),
            player,
            kind: facts.kind,
            rating,
            moves: facts.agent.as_ref().map(|a| (a.moves, a.llm_moves)),
            fallback_games: facts.fallback_games,
            agent: facts.agent,
        })
        .collect()
}

/// A pair id from what identifies a pair: run, players, opening, and the pair's number
/// among that run's games of the same players and opening.
fn hash_pair(run: usize, low: &str, high: &str, opening: &[String], nth: u64) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    (run, low, high, opening, nth).hash(&mut hasher);
    hasher.finish()
}

/// A published ladder: the engines' ratings from a ladder run (`rate RUN
/// --write-ladder FILE`), which `rate --ladder FILE` holds fixed so that a gauntlet,
/// whose engines meet only the models, is rated on the ladder's scale.
#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Ladder {
    /// What the ratings rest on: the runs, the date, the command.
    pub source: String,
    /// The ladder run's anchor, `SPEC=ELO`.
    pub anchor: String,
    /// Finished games rated.
    pub games: usize,
    /// The engines, best first.
    #[serde(rename = "rung")]
    pub rungs: Vec<Rung>,
}

/// A rating to a tenth of an Elo point, as a ladder publishes it (infinite bounds stay).
fn tenth(elo: f64) -> f64 {
    if elo.is_finite() {
        (elo * 10.0).round() / 10.0 + 0.0
    } else {
        elo
    }
}

/// An Othello player's spec in the one form the logs, ladders, anchors and tables name
/// it: an engine spec as its parser writes it back (aliases and spacing resolved), any
/// other player (`llm:MODEL`, `ext:NAME`, `human`) trimmed.
pub fn canonical_player(spec: &str) -> String {
    let spec = spec.trim();
    spec.parse::<engines::EngineSpec>()
        .map_or_else(|_| spec.to_string(), |engine| engine.to_string())
}

/// A player and the rating it is held at.
pub type Rated = (String, f64);

/// One engine of a [`Ladder`].
#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rung {
    /// The engine's spec, as the logs name it.
    pub player: String,
    /// Its rating.
    pub elo: f64,
    /// Its 95% interval in the ladder run (infinite: too few games for one).
    pub low: f64,
    /// The interval's high end.
    pub high: f64,
    /// Games it played in the ladder run.
    pub games: u32,
}

/// Why a ladder cannot be used.
#[derive(Debug, PartialEq, thiserror::Error)]
pub enum LadderError {
    /// No engine rated (a run without engines).
    #[error("the ladder lists no engine")]
    Empty,
    /// Not a ladder file's TOML.
    #[error("not a ladder file ({why}): write one with `othello-arena rate LADDER-RUN --write-ladder FILE`")]
    NotToml {
        /// What the TOML reader said.
        why: String,
    },
    /// A rating that is not a number, or an engine listed twice.
    #[error("rung {player:?}: {why}")]
    BadRung {
        /// The rung's player.
        player: String,
        /// What is wrong.
        why: &'static str,
    },
}

impl Ladder {
    /// The engines of `board` (a ladder run's ratings as played) as a ladder, each
    /// rating to a tenth of a point.
    pub fn from_board(board: &Leaderboard, source: String) -> Result<Ladder, LadderError> {
        let rungs: Vec<Rung> = board
            .rows
            .iter()
            .filter(|row| row.kind == PlayerKind::Engine)
            .map(|row| Rung {
                player: row.player.clone(),
                elo: tenth(row.rating.elo),
                low: tenth(row.rating.low),
                high: tenth(row.rating.high),
                games: row.rating.games,
            })
            .collect();
        Ladder {
            source,
            anchor: format!("{}={}", board.anchor.0, board.anchor.1),
            games: board.games,
            rungs,
        }
        .checked()
    }

    /// The ladder with every rung and its anchor named in the canonical form the logs
    /// write (`alphabeta:1` is `alphabeta:1:weight`, spaces trimmed), so an alias holds
    /// the engine it names; refuses an empty ladder, a rating that is not a finite
    /// number, and an engine listed twice under any of its names.
    pub fn checked(mut self) -> Result<Ladder, LadderError> {
        if self.rungs.is_empty() {
            return Err(LadderError::Empty);
        }
        for rung in &mut self.rungs {
            rung.player = canonical_player(&rung.player);
        }
        if let Some((spec, elo)) = self.anchor.split_once('=') {
            self.anchor = format!("{}={}", canonical_player(spec), elo.trim());
        }
        for (i, rung) in self.rungs.iter().enumerate() {
            let bad = |why| LadderError::BadRung {
                player: rung.player.clone(),
                why,
            };
            if !rung.elo.is_finite() || rung.elo.abs() > 1e5 {
                return Err(bad("elo must be a finite number of at most 100000"));
            }
            if self.rungs[..i].iter().any(|r| r.player == rung.player) {
                return Err(bad("listed twice (under this name or an alias of it)"));
            }
        }
        Ok(self)
    }

    /// The anchor and the held players for the games of `names` (the players who
    /// played): the ladder's own anchor when it played, else its best rung that did,
    /// and every other rung that played held; `None` when no rung played.
    pub fn scale_for(&self, names: &[&str]) -> Option<(Rated, Vec<Rated>)> {
        let played: Vec<&Rung> = self
            .rungs
            .iter()
            .filter(|rung| names.contains(&rung.player.as_str()))
            .collect();
        let own = self.anchor.split('=').next().unwrap_or_default().trim();
        let anchor = played.iter().find(|rung| rung.player == own).or(played.first())?;
        let held = played
            .iter()
            .filter(|rung| rung.player != anchor.player)
            .map(|rung| (rung.player.clone(), rung.elo))
            .collect();
        Some(((anchor.player.clone(), anchor.elo), held))
    }
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
    /// The anchor when none is named: `game`'s random player at 0 when it is among
    /// `players` (`random`, marubatsu's `ai2`), else the first of them at 0; `None`
    /// when there are none.
    pub fn among<'a>(game: game::Game, players: impl IntoIterator<Item = &'a str>) -> Option<Anchor> {
        let default = Anchor::default();
        let random = engines::canonical_spec(game, &default.spec).unwrap_or(default.spec);
        let players: Vec<&str> = players.into_iter().collect();
        if players.contains(&random.as_str()) {
            return Some(Anchor {
                spec: random,
                elo: default.elo,
            });
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

/// The text tables of [`leaderboards`], as `rate` prints them.
pub fn leaderboard_tables(as_played: &Leaderboard, as_loss: Option<&Leaderboard>) -> String {
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

/// The text table: rank, player, rating with its interval, games, score, and for LLM
/// players the share of moves the model decided and where it falls among the engines.
fn table(board: &Leaderboard, view: &str) -> String {
    let mut out = String::new();
    let held = if board.held.is_empty() {
        String::new()
    } else {
        format!(", and {} more held at the ladder's ratings", board.held.len())
    };
    let _ = writeln!(
        out,
        "Ratings ({view}): Bradley-Terry on the Elo scale, {} held at {:.0}{held}, 95% bootstrap intervals, {} games",
        board.anchor.0,
        whole(board.anchor.1),
        board.games
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
            whole(r.elo),
            if board.held.iter().any(|(name, _)| *name == row.player) {
                "held".to_string()
            } else if r.low.is_finite() && r.high.is_finite() {
                format!("[{:.0}, {:.0}]", whole(r.low), whole(r.high))
            } else {
                "too few games".to_string()
            },
            r.games,
            score
        );
    }
    cost_table(board, width, &mut out);
    illegal_play_lines(board, width, &mut out);
    out
}

/// Below the costs, each LLM player's illegal play over its rated games
/// ([`AgentStats::illegal_play`]), so a rating is read with the tries it took.
fn illegal_play_lines(board: &Leaderboard, width: usize, out: &mut String) {
    for row in &board.rows {
        if let Some(agent) = &row.agent {
            let _ = writeln!(
                out,
                "{:>3}  {:width$}  {}",
                "",
                row.player,
                agent.illegal_play(row.rating.games)
            );
        }
    }
}

/// Below the ratings, each LLM player's cost per move and failed answers: tokens
/// (prompt, thinking, answer), seconds (median and 95th percentile), answers without
/// a legal move and answers cut off at the token limit.
fn cost_table(board: &Leaderboard, width: usize, out: &mut String) {
    let agents: Vec<(&str, &AgentStats)> = board
        .rows
        .iter()
        .filter_map(|row| Some((row.player.as_str(), row.agent.as_ref()?)))
        .collect();
    if agents.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "{:>3}  {:width$}  {:>23}  {:>15}  {:>7}  {:>7}  {:>21}",
        "", "per move", "tokens prompt/think/ans", "seconds p50/p95", "invalid", "cut off", "server tok/s pre/dec"
    );
    for (player, agent) in agents {
        let a = agent.rates();
        let seconds = |ms: Option<f64>| ms.map_or("-".to_string(), |ms| format!("{:.1}", ms / 1000.0));
        let _ = writeln!(
            out,
            "{:>3}  {:width$}  {:>23}  {:>15}  {:>7.2}  {:>7.2}  {:>21}",
            "",
            player,
            if agent.answers_measured() {
                format!(
                    "{:.0}/{}{:.0}/{:.0}",
                    a.prompt_tokens_per_move,
                    if agent.thinking_estimated > 0 { "~" } else { "" },
                    a.thinking_tokens_per_move,
                    a.answer_tokens_per_move
                )
            } else {
                "not measured".to_string()
            },
            format!("{}/{}", seconds(a.latency_ms_p50), seconds(a.latency_ms_p95)),
            a.invalid_answers_per_move,
            a.cut_off_answers_per_move,
            a.server.map_or("not reported".to_string(), |server| {
                let speed = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.0}"));
                format!(
                    "{}/{}",
                    speed(server.prefill_tokens_per_s),
                    speed(server.decode_tokens_per_s)
                )
            })
        );
    }
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
        let othello = game::Game::Othello;
        assert_eq!(Anchor::among(othello, ["greedy", "random"]), Some(Anchor::default()));
        let first = Anchor::among(othello, ["greedy", "n-hand:3"]).unwrap();
        assert_eq!((first.spec.as_str(), first.elo), ("greedy", 0.0));
        assert_eq!(Anchor::among(othello, []), None);
        let ai2 = Anchor::among(game::Game::Marubatsu, ["ai1", "ai2"]).unwrap();
        assert_eq!(ai2.to_string(), "ai2=0");
    }

    fn ladder(players: &[&str], anchor: &str) -> Ladder {
        let rungs = players
            .iter()
            .enumerate()
            .map(|(i, player)| Rung {
                player: player.to_string(),
                elo: 100.0 * i as f64,
                low: 0.0,
                high: 0.0,
                games: 2,
            })
            .collect();
        Ladder {
            source: "test".into(),
            anchor: anchor.into(),
            games: 4,
            rungs,
        }
    }

    #[test]
    fn a_ladder_names_its_engines_as_the_logs_do() {
        let checked = ladder(&["alphabeta:1", " greedy ", "ext:edax@d4"], " random = 0")
            .checked()
            .unwrap();
        let names: Vec<&str> = checked.rungs.iter().map(|r| r.player.as_str()).collect();
        assert_eq!(names, ["alphabeta:1:weight", "greedy", "ext:edax@d4"]);
        assert_eq!(checked.anchor, "random=0");
        // The rung now holds the engine the logs name.
        let (_, held) = checked.scale_for(&["alphabeta:1:weight", "greedy", "random"]).unwrap();
        assert_eq!(held.len(), 1, "{held:?}");
        let twice = ladder(&["alphabeta:1", "alphabeta:1:weight"], "random=0").checked();
        assert!(
            matches!(twice, Err(LadderError::BadRung { ref player, .. }) if player == "alphabeta:1:weight"),
            "{twice:?}"
        );
    }
}
