//! One tally of a game, called by every report: `eval`'s tables, `stats`, `compare`,
//! `rate` and tournaments all see a game as a [`GameSummary`] (built from its log, or
//! from a game just played) and count it with [`Matchup::add`]. A forfeited game is a
//! loss of the forfeiting side by the game's forfeit margin ([`Rules::FORFEIT_MARGIN`]:
//! a 64-disc wipeout in Othello), and the forfeiting decision counts in that side's
//! agent statistics (as a move the model did not make).

use crate::agent_stats::AgentStats;
use game::othello::{ByColor, Color};
use record::{game_start, Event, PlayerKind, Record};
use stats::GameScore;
use stats::Tally;

/// One game as the reports see it.
#[derive(Clone, Debug, PartialEq)]
pub struct GameSummary {
    /// Game number in its run.
    pub number: usize,
    /// Each side's player spec.
    pub players: ByColor<String>,
    /// Each side's kind of player.
    pub kinds: ByColor<PlayerKind>,
    /// The opening the players started from, its moves as the log writes them (a key:
    /// compared, ordered and hashed as that text).
    pub opening: Vec<String>,
    /// Black's margin at the end in the game's unit (Othello: discs minus White's; after
    /// a forfeit, the game's forfeit margin for the winner); `None` when the game did
    /// not finish.
    pub black_margin: Option<i32>,
    /// The side that forfeited, when the game ended that way.
    pub forfeit: Option<Color>,
    /// What each side's agent did (empty for engines and people).
    pub agents: ByColor<AgentStats>,
}

/// A log that is not a game's.
#[derive(Debug, thiserror::Error)]
#[error("the log has no game_start record: is it a game log?")]
pub struct NotAGameLog;

impl GameSummary {
    /// The game a log tells (a log without `game_end` is an unfinished game).
    pub fn from_log(records: &[Record]) -> Result<GameSummary, NotAGameLog> {
        let start = game_start(records).ok_or(NotAGameLog)?;
        let mut summary = GameSummary {
            number: start.game,
            players: ByColor {
                black: start.black.clone(),
                white: start.white.clone(),
            },
            kinds: ByColor {
                black: start.kind(Color::Black),
                white: start.kind(Color::White),
            },
            opening: start.opening.iter().map(ToString::to_string).collect(),
            black_margin: None,
            forfeit: None,
            agents: ByColor::default(),
        };
        let mut ending = None;
        for record in records {
            match &record.event {
                Event::Move(m) => {
                    if let Some(decision) = &m.agent {
                        summary.agents[m.color].add(decision);
                    }
                }
                Event::Forfeit(f) => {
                    summary.agents[f.color].add(&f.agent);
                    summary.forfeit = Some(f.color);
                }
                Event::GameEnd(end) => ending = Some(end),
                _ => {}
            }
        }
        // A forfeit without game_end (the run died in between) is an unfinished game.
        summary.black_margin = ending.map(|end| end.black_margin(summary.forfeit));
        Ok(summary)
    }

    /// The final margin from `color`'s view, when the game finished (minus the game's
    /// forfeit margin for a side that forfeited, plus it for the other).
    pub fn margin_for(&self, color: Color) -> Option<i32> {
        self.black_margin.map(|m| match color {
            Color::Black => m,
            Color::White => -m,
        })
    }

    /// `color`'s score (1 win, 0.5 draw, 0 loss; a forfeit is a loss), when the game
    /// finished.
    pub fn score_for(&self, color: Color) -> Option<f64> {
        self.margin_for(color).map(|m| GameScore::from_margin(m).points())
    }

    /// The sides an LLM played.
    pub fn llm_colors(&self) -> Vec<Color> {
        [Color::Black, Color::White]
            .into_iter()
            .filter(|&c| self.kinds[c] == PlayerKind::Llm)
            .collect()
    }
}

/// One player's games against one opponent, from the player's view: results per color
/// and, for an LLM player, what it did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Matchup {
    /// Games with the player as black.
    pub as_black: Tally,
    /// Games with the player as white.
    pub as_white: Tally,
    /// What the player's agent did (over finished and unfinished games).
    pub agent: AgentStats,
    /// Games that did not finish (counted in no tally).
    pub unfinished: u32,
    /// Games the player forfeited (finished games: also counted as losses above).
    pub forfeits: u32,
}

impl Matchup {
    /// Counts `game` from the view of its `color` side.
    pub fn add(&mut self, game: &GameSummary, color: Color) {
        self.agent.merge(&game.agents[color]);
        self.forfeits += u32::from(game.forfeit == Some(color) && game.black_margin.is_some());
        match (game.margin_for(color), color) {
            (None, _) => self.unfinished += 1,
            (Some(margin), Color::Black) => self.as_black.record(margin),
            (Some(margin), Color::White) => self.as_white.record(margin),
        }
    }

    /// Both colors together.
    pub fn overall(&self) -> Tally {
        self.as_black.merged(&self.as_white)
    }
}

/// The header of a results table whose first column is `first` (`width` wide); the
/// last column is the mean margin in the game's unit (`margin`: Othello's "disc diff").
pub fn tally_header(first: &str, width: usize, margin: &str) -> String {
    format!("{first:width$}  color  games   wins losses  draws   win%  loss%  draw%  95% CI (Wilson)  mean {margin}")
}

/// One row of a results table: counts, the share of wins, losses and draws, the win
/// rate's Wilson interval, mean margin.
pub fn tally_row(first: &str, width: usize, color: &str, t: &Tally) -> String {
    let (low, high) = t.win_interval();
    let percent = |n: u32| 100.0 * f64::from(n) / f64::from(t.games().max(1));
    format!(
        "{first:width$}  {color:5}  {:5}  {:5}  {:5}  {:5}  {:5.1}  {:5.1}  {:5.1}  [{:5.1}, {:5.1}]   {:+7.2}",
        t.games(),
        t.wins,
        t.losses,
        t.draws,
        100.0 * t.win_rate(),
        percent(t.losses),
        percent(t.draws),
        100.0 * low,
        100.0 * high,
        t.mean_margin(),
    )
}
