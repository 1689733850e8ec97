//! One tally of a game, called by every report: `eval`'s tables, `stats`, `compare`,
//! `rate` and tournaments all see a game as a [`GameSummary`] (built from its log, or
//! from a game just played) and count it with [`Matchup::add`].

use super::eval::AgentStats;
use super::game::GameRecord;
use super::player::PlayerSpec;
use super::stats::Tally;
use crate::othello::{ByColor, Color};
use crate::record::{game_start, Event, PlayerKind, Record};

/// One game as the reports see it.
#[derive(Clone, Debug, PartialEq)]
pub struct GameSummary {
    /// Game number in its run.
    pub number: usize,
    /// Each side's player spec.
    pub players: ByColor<String>,
    /// Each side's kind of player.
    pub kinds: ByColor<PlayerKind>,
    /// The random opening the players started from.
    pub opening: Vec<String>,
    /// Black's discs minus White's at the end; `None` when the game did not finish.
    pub black_margin: Option<i32>,
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
            opening: start.opening.clone(),
            black_margin: None,
            agents: ByColor::default(),
        };
        for record in records {
            match &record.event {
                Event::Move(m) => {
                    if let (Some(decision), Ok(color)) = (&m.agent, m.color.parse::<Color>()) {
                        summary.agents[color].add(decision);
                    }
                }
                Event::GameEnd(end) => summary.black_margin = Some(end.black_discs as i32 - end.white_discs as i32),
                _ => {}
            }
        }
        Ok(summary)
    }

    /// A game just played, numbered `number`, between `players`.
    pub fn from_game(number: usize, players: ByColor<&PlayerSpec>, record: &GameRecord) -> GameSummary {
        let mut agents: ByColor<AgentStats> = ByColor::default();
        for ply in &record.plies {
            if let Some(decision) = &ply.played.agent {
                agents[ply.color].add(decision);
            }
        }
        GameSummary {
            number,
            players: ByColor {
                black: players.black.to_string(),
                white: players.white.to_string(),
            },
            kinds: ByColor {
                black: players.black.kind(),
                white: players.white.kind(),
            },
            opening: record.game.moves()[..record.opening_plies]
                .iter()
                .map(ToString::to_string)
                .collect(),
            black_margin: Some(record.disc_difference),
            agents,
        }
    }

    /// The final disc difference from `color`'s view, when the game finished.
    pub fn margin_for(&self, color: Color) -> Option<i32> {
        self.black_margin.map(|m| match color {
            Color::Black => m,
            Color::White => -m,
        })
    }

    /// `color`'s score (1 win, 0.5 draw, 0 loss), when the game finished.
    pub fn score_for(&self, color: Color) -> Option<f64> {
        self.margin_for(color).map(|m| match m.signum() {
            1 => 1.0,
            0 => 0.5,
            _ => 0.0,
        })
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
}

impl Matchup {
    /// Counts `game` from the view of its `color` side.
    pub fn add(&mut self, game: &GameSummary, color: Color) {
        self.agent.merge(&game.agents[color]);
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
