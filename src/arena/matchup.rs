//! A match: N games between two players, optionally swapping colors; the games it
//! plays at once and its run folder settled here ([`MatchConfig::parallel`],
//! [`MatchConfig::open_run`]).

use std::path::Path;

use agent::ModelGame;
use runs::{OpeningsRecord, PlayRun, RunFile, RunKind};
use serde::Serialize;

use super::connection::Connection;
use super::lifecycle::{Run, RunError, Start};

use super::plan::Plan;
use super::play::GameRecord;
use super::player_spec::PlayerSpec;
use super::schedule::{run_games, MatchError, MatchEvent, RunOptions};
use super::scheduled::ScheduledGame;
use game::othello::Color;
use game::Othello;
use stats::Tally;

/// What a match plays.
#[derive(Clone, Debug)]
pub struct MatchConfig<R: ModelGame = Othello> {
    /// The two players: the first starts as black, the second as white.
    pub players: [PlayerSpec<R>; 2],
    /// Number of games.
    pub games: usize,
    /// Alternate colors: the first player is black in even games and white in odd ones.
    /// With swap, games 2k and 2k+1 share their random opening (a paired comparison).
    pub swap: bool,
    /// Fixes every random choice (openings and seeded engines).
    pub seed: u64,
    /// Opening plies, parallelism and logging.
    pub run: RunOptions<R>,
}

impl<R: ModelGame> MatchConfig<R> {
    /// Games at once: one when each move is `shown` (a person playing, a board
    /// printout); else `given` (`--parallel`), by default the model server's capacity
    /// (`connection`: one game for a single host) or the CPU cores.
    pub fn parallel(shown: bool, given: Option<usize>, connection: Option<&Connection>) -> usize {
        match (shown, given, connection) {
            (true, _, _) => 1,
            (false, Some(parallel), _) => parallel,
            (false, None, Some(connection)) => connection.default_parallel(),
            (false, None, None) => std::thread::available_parallelism().map_or(1, |n| n.get()),
        }
    }

    /// The match's run folder (in `dir`, else under logs/), when `dir` is given or a
    /// player is an LLM, with its run.json (`opening_random` plies or the suite's
    /// `openings` record).
    pub fn open_run(
        &self,
        dir: Option<&Path>,
        opening_random: usize,
        openings: Option<OpeningsRecord>,
    ) -> Result<Option<Run>, RunError> {
        let players = &self.players;
        if dir.is_none() && !players.iter().any(|p| p.agent_config().is_some()) {
            return Ok(None);
        }
        let label = format!("{}-vs-{}", players[0], players[1]);
        let run = Run::open("play", Start::New { dir, label: &label })?;
        run.record(&RunFile::new(RunKind::Play(PlayRun {
            players: players.iter().map(PlayerSpec::run_player).collect(),
            games: self.games,
            swap: self.swap,
            opening_random,
            openings,
            seed: self.seed,
        })))?;
        Ok(Some(run))
    }
}

/// Results of one player over the match.
#[derive(Clone, Debug, Default, Serialize)]
pub struct SpecTally {
    /// The player's spec string.
    pub spec: String,
    /// All games.
    pub overall: Tally,
    /// Games as black.
    pub as_black: Tally,
    /// Games as white.
    pub as_white: Tally,
}

impl SpecTally {
    /// Adds a game played as `color` with final margin `margin` (own view).
    pub fn record(&mut self, color: Color, margin: i32) {
        self.overall.record(margin);
        match color {
            Color::Black => self.as_black.record(margin),
            Color::White => self.as_white.record(margin),
        }
    }
}

/// A finished match.
#[derive(Clone, Debug)]
pub struct MatchResult<R: ModelGame = Othello> {
    /// Every game in schedule order, with the color of the first player.
    pub games: Vec<(Color, GameRecord<R>)>,
    /// The two players' tallies, in `MatchConfig::players` order.
    pub tallies: [SpecTally; 2],
}

impl<R: ModelGame> MatchConfig<R> {
    /// The schedule: colors and seeds of every game (with `swap`, pairs on one opening
    /// each, the first player black then white; an odd last game is a pair's first).
    pub fn schedule(&self) -> Vec<ScheduledGame> {
        let names: Vec<String> = self.players.iter().map(ToString::to_string).collect();
        match_plan(&names, self.games, self.swap, self.seed).schedule
    }
}

/// The plan of a match of `games` between the two players `names`: with `swap`, pairs
/// on one opening each, the first player black then white (an odd last game is a
/// pair's first); without it, every game its own pair, the first player black.
pub(crate) fn match_plan(names: &[String], games: usize, swap: bool, seed: u64) -> Plan {
    let pairs = if swap { games.div_ceil(2) } else { games };
    let mut plan = Plan::new(names, &[(0, 1)], pairs, swap, seed, seed);
    plan.schedule.truncate(games);
    plan
}

/// Plays the match; `report` sees every move and every finished game.
pub async fn run_match<R: ModelGame>(
    config: &MatchConfig<R>,
    report: &(dyn Fn(MatchEvent<'_, R>) + Sync),
) -> Result<MatchResult<R>, MatchError> {
    let schedule = config.schedule();
    let records = run_games(&config.players, &schedule, &config.run, report).await?;
    let mut tallies: [SpecTally; 2] = Default::default();
    for (i, tally) in tallies.iter_mut().enumerate() {
        tally.spec = config.players[i].to_string();
    }
    let games: Vec<(Color, GameRecord<R>)> = records
        .into_iter()
        .zip(&schedule)
        .filter_map(|(r, scheduled)| Some((scheduled.color_of(0), r?)))
        .collect();
    for (first_color, record) in &games {
        tallies[0].record(*first_color, record.margin_for(*first_color));
        tallies[1].record(!*first_color, record.margin_for(!*first_color));
    }
    Ok(MatchResult { games, tallies })
}
