//! `eval`: the agent against each opponent, N games as black and N as white, with the
//! agent's statistics.

use agent::ModelGame;

use super::plan::Plan;
use super::play::GameRecord;
use super::player_spec::PlayerSpec;
use super::schedule::{run_games, MatchError, MatchEvent, RunOptions};
use super::scheduled::ScheduledGame;
use game::othello::{ByColor, Color};
use game::Othello;
use runs::{AgentStats, CsvTable, Matchup, OpponentResults};

/// What an evaluation plays.
#[derive(Clone, Debug)]
pub struct EvalConfig<R: ModelGame = Othello> {
    /// The LLM player.
    pub agent: PlayerSpec<R>,
    /// The opponents, in table order.
    pub opponents: Vec<PlayerSpec<R>>,
    /// Games with the agent as black, and as many as white, per opponent.
    pub games_per_color: usize,
    /// Fixes the seeded players (and the openings, unless `opening_seed` is set).
    pub seed: u64,
    /// Fixes the random openings: game pair i meets the same opening against every
    /// opponent, its two games (agent black, agent white) share it, and every run with
    /// the same opening seed plays the same openings, so two prompts meet the same
    /// positions.
    pub opening_seed: Option<u64>,
    /// Opening plies, parallelism and logging.
    pub run: RunOptions<R>,
}

/// The agent's results against one opponent.
#[derive(Clone, Debug, Default)]
pub struct OpponentResult {
    /// The opponent's spec.
    pub opponent: String,
    /// The agent's games against it, from the agent's view.
    pub matchup: Matchup,
}

/// One finished game of an evaluation.
#[derive(Clone, Debug)]
pub struct EvalGame<R: ModelGame = Othello> {
    /// Game number (schedule index + 1, as in its log's name).
    pub number: usize,
    /// Index of the opponent in [`EvalConfig::opponents`].
    pub opponent: usize,
    /// The agent's color.
    pub agent_color: Color,
    /// The game.
    pub record: GameRecord<R>,
}

/// A finished evaluation.
#[derive(Clone, Debug)]
pub struct EvalResult<R: ModelGame = Othello> {
    /// Per opponent, in the configured order.
    pub opponents: Vec<OpponentResult>,
    /// Over all games.
    pub agent: AgentStats,
    /// Every finished game in schedule order.
    pub games: Vec<EvalGame<R>>,
    /// Scheduled games that did not finish (the run was stopped); counted nowhere.
    pub unfinished: usize,
}

impl<R: ModelGame> EvalResult<R> {
    /// Each opponent's tallies and agent statistics as results.json holds them (the
    /// move quality is added once scored).
    pub fn opponent_results(&self, games_per_color: usize) -> Vec<OpponentResults> {
        self.opponents
            .iter()
            .map(|o| OpponentResults {
                opponent: o.opponent.clone(),
                games_per_color,
                as_black: (&o.matchup.as_black).into(),
                as_white: (&o.matchup.as_white).into(),
                overall: (&o.matchup.overall()).into(),
                agent: o.matchup.agent.to_json(),
                move_quality: None,
            })
            .collect()
    }

    /// Seed 000's Evaluator CSV: one row per opponent, W/L/D per agent color, for
    /// `model` on `date` (`YYYY-MM-DD`).
    pub fn seed_csv(&self, model: &str, games_per_color: usize, date: &str) -> String {
        let mut table = CsvTable::new(&[
            "model",
            "date",
            "games_per_matchup",
            "opponent",
            "b_win",
            "b_lose",
            "b_draw",
            "w_win",
            "w_lose",
            "w_draw",
        ]);
        for o in &self.opponents {
            let (black, white) = (&o.matchup.as_black, &o.matchup.as_white);
            table.row(&[
                model.to_string(),
                date.to_string(),
                games_per_color.to_string(),
                o.opponent.clone(),
                black.wins.to_string(),
                black.losses.to_string(),
                black.draws.to_string(),
                white.wins.to_string(),
                white.losses.to_string(),
                white.draws.to_string(),
            ]);
        }
        table.finish()
    }
}

impl<R: ModelGame> EvalConfig<R> {
    /// Players list: the agent first, then the opponents.
    pub fn players(&self) -> Vec<PlayerSpec<R>> {
        std::iter::once(self.agent.clone())
            .chain(self.opponents.iter().cloned())
            .collect()
    }

    /// The plan: a gauntlet of the agent (player 0) against each opponent in turn,
    /// `games_per_color` colour-swapped pairs each.
    pub fn plan(&self) -> Plan {
        let names: Vec<String> = self.players().iter().map(ToString::to_string).collect();
        let meetings: Vec<(usize, usize)> = (1..names.len()).map(|k| (0, k)).collect();
        let opening_seed = self.opening_seed.unwrap_or(self.seed);
        Plan::new(&names, &meetings, self.games_per_color, true, opening_seed, self.seed)
    }

    /// The schedule, with each game's opponent index and the agent's color.
    pub fn schedule(&self) -> Vec<(usize, Color, ScheduledGame)> {
        self.plan()
            .schedule
            .into_iter()
            .map(|game| (game.black.max(game.white) - 1, game.color_of(0), game))
            .collect()
    }
}

/// Plays the evaluation; `report` sees every move and finished game.
pub async fn run_eval<R: ModelGame>(
    config: &EvalConfig<R>,
    report: &(dyn Fn(MatchEvent<'_, R>) + Sync),
) -> Result<EvalResult<R>, MatchError> {
    let games: Vec<ScheduledGame> = config.schedule().into_iter().map(|(_, _, g)| g).collect();
    let records = run_games(&config.players(), &games, &config.run, report).await?;
    Ok(config.tally(records, &|_| true))
}

impl<R: ModelGame> EvalConfig<R> {
    /// The result of the schedule's games (`None`: not finished); a game that is not
    /// `needed` is not counted as unfinished.
    pub fn tally(&self, records: Vec<Option<GameRecord<R>>>, needed: &dyn Fn(usize) -> bool) -> EvalResult<R> {
        let config = self;
        let schedule = config.schedule();
        let mut opponents = opponent_tables(config.opponents.iter().map(ToString::to_string));
        let mut played = Vec::new();
        let mut unfinished = 0;
        let players = config.players();
        for (index, ((k, agent_color, scheduled), record)) in schedule.into_iter().zip(records).enumerate() {
            let Some(record) = record else {
                unfinished += usize::from(needed(index));
                continue;
            };
            let sides = ByColor {
                black: &players[scheduled.black],
                white: &players[scheduled.white],
            };
            opponents[k].matchup.add(&record.summary(index + 1, sides), agent_color);
            played.push(EvalGame {
                number: index + 1,
                opponent: k,
                agent_color,
                record,
            });
        }
        EvalResult::of(opponents, played, unfinished)
    }
}

/// No game yet against each of `opponents` (their names, in table order).
pub(crate) fn opponent_tables(opponents: impl IntoIterator<Item = String>) -> Vec<OpponentResult> {
    opponents
        .into_iter()
        .map(|opponent| OpponentResult {
            opponent,
            ..OpponentResult::default()
        })
        .collect()
}

impl<R: ModelGame> EvalResult<R> {
    /// The result of the `opponents`' matchups (the agent over all of them merged), the
    /// finished `games` and the `unfinished` count: what `eval` tallies as it plays and
    /// `verify` from the logs.
    pub(crate) fn of(opponents: Vec<OpponentResult>, games: Vec<EvalGame<R>>, unfinished: usize) -> EvalResult<R> {
        let mut agent = AgentStats::default();
        for result in &opponents {
            agent.merge(&result.matchup.agent);
        }
        EvalResult {
            opponents,
            agent,
            games,
            unfinished,
        }
    }
}
