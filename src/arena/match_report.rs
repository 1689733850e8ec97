//! What `play` reports of a finished match ([`MatchResult`]): each player's tallies as
//! a table, CSV rows and JSON, what each LLM player did, and each player's moves
//! scored.

use std::fmt::Write as _;
use std::path::Path;
use std::sync::atomic::AtomicBool;

use agent::ModelGame;
use serde::Serialize;
use serde_json::Value;

use super::matchup::{MatchConfig, MatchResult, SpecTally};
use super::player_spec::PlayerSpec;
use super::quality::{GameToScore, MoveQuality, ScoringWatch};
use super::scoring::{Scoring, ValueMovesError};
use game::othello::Color;
use runs::{tally_header, tally_row, AgentStats, CsvTable, ScoredMove, TallySummary};
use stats::Tally;

/// A player in `play --json` (the keys sorted, as `json!` wrote them).
#[derive(Serialize)]
struct PlayerJson<'a> {
    #[serde(flatten)]
    overall: TallySummary,
    spec: &'a str,
    as_black: TallySummary,
    as_white: TallySummary,
    #[serde(skip_serializing_if = "Option::is_none")]
    agent: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    move_quality: Option<Value>,
}

/// `play --json`'s document.
#[derive(Serialize)]
struct MatchJson<'a> {
    games: usize,
    players: Vec<PlayerJson<'a>>,
}

impl<R: ModelGame> MatchResult<R> {
    /// What each LLM player of `players` did over the match (`None` for engines), in
    /// players order.
    pub fn agent_stats(&self, players: &[PlayerSpec<R>; 2]) -> [Option<AgentStats>; 2] {
        let mut stats: [Option<AgentStats>; 2] =
            std::array::from_fn(|i| players[i].agent_config().map(|_| AgentStats::default()));
        for (first_color, record) in &self.games {
            for (color, decision) in record.agent_decisions() {
                if let Some(stats) = stats[usize::from(color != *first_color)].as_mut() {
                    stats.add(decision);
                }
            }
        }
        stats
    }

    /// Every game, both players' moves to be scored.
    pub fn games_to_score(&self) -> Vec<GameToScore<'_, R>> {
        self.games
            .iter()
            .enumerate()
            .map(|(i, (_, record))| GameToScore {
                number: i + 1,
                record,
                colors: Color::BOTH.to_vec(),
            })
            .collect()
    }

    /// Both players' moves in every game valued by `scoring` ([`Scoring::value`],
    /// counting in `watch` on `cores` workers), per player in players order;
    /// move-scores.jsonl written in `log_dir` when the match has a folder.
    pub fn value_moves(
        &self,
        scoring: &Scoring,
        (cores, watch): (usize, &ScoringWatch),
        log_dir: Option<&Path>,
    ) -> Result<[MoveQuality; 2], ValueMovesError> {
        let never = AtomicBool::new(false);
        let moves = scoring.value(&self.games_to_score(), (cores, watch, &never), log_dir)?;
        Ok(self.quality_by_player(&moves))
    }

    /// The scored `moves` of [`Self::games_to_score`] per player, in players order.
    pub fn quality_by_player(&self, moves: &[ScoredMove]) -> [MoveQuality; 2] {
        let mut per_player: [MoveQuality; 2] = Default::default();
        for m in moves {
            let first_color = self.games[m.game - 1].0;
            let player = usize::from(m.color != first_color.to_string());
            per_player[player].add(m);
        }
        per_player
    }

    /// Each player's rows: all games, then as each side (named as game `R` names it).
    fn rows(&self) -> Vec<(&str, &'static str, &Tally)> {
        self.tallies
            .iter()
            .flat_map(|t| {
                [
                    (t.spec.as_str(), "all", &t.overall),
                    (t.spec.as_str(), R::side_name(Color::Black), &t.as_black),
                    (t.spec.as_str(), R::side_name(Color::White), &t.as_white),
                ]
            })
            .collect()
    }

    /// The match's table: what `config` played (in `secs` seconds), then each player's
    /// rows.
    pub fn text(&self, config: &MatchConfig<R>, secs: f64) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "{} vs {}: {} games{}, {}, seed {} ({secs:.1} s)",
            config.players[0],
            config.players[1],
            config.games,
            if config.swap { ", colors alternating" } else { "" },
            config.run.openings,
            config.seed,
        );
        let width = self.tallies.iter().map(|t| t.spec.len()).max().unwrap_or(6).max(6);
        let _ = writeln!(out, "{}", tally_header("player", width, R::MARGIN));
        for (spec, color, t) in self.rows() {
            if t.games() > 0 {
                let _ = writeln!(out, "{}", tally_row(spec, width, color, t));
            }
        }
        let _ = writeln!(
            out,
            "win% counts a draw as not won; the interval is the Wilson 95% score interval of wins/games."
        );
        out
    }

    /// `play --csv`: each player's rows.
    pub fn csv(&self) -> String {
        let mut table = CsvTable::new(&[
            "player",
            "color",
            "games",
            "wins",
            "losses",
            "draws",
            "win_rate",
            "ci_low",
            "ci_high",
            "mean_disc_diff",
        ]);
        for (spec, color, t) in self.rows() {
            let (low, high) = t.win_interval();
            table.row(&[
                spec.to_string(),
                color.to_string(),
                t.games().to_string(),
                t.wins.to_string(),
                t.losses.to_string(),
                t.draws.to_string(),
                format!("{:.4}", t.win_rate()),
                format!("{low:.4}"),
                format!("{high:.4}"),
                format!("{:.3}", t.mean_margin()),
            ]);
        }
        table.finish()
    }

    /// `play --json`: the games, and each player's tallies, agent statistics (`agents`)
    /// and move quality (`quality`: the reference's settings and each player's).
    pub fn to_json(
        &self,
        games: usize,
        agents: &[Option<AgentStats>; 2],
        quality: Option<(&Value, &[MoveQuality; 2])>,
    ) -> String {
        let players = self
            .tallies
            .iter()
            .zip(agents)
            .enumerate()
            .map(|(i, (t, stats)): (usize, (&SpecTally, _))| PlayerJson {
                overall: TallySummary::from(&t.overall),
                spec: &t.spec,
                as_black: TallySummary::from(&t.as_black),
                as_white: TallySummary::from(&t.as_white),
                agent: stats.as_ref().map(AgentStats::to_json),
                move_quality: quality.map(|(reference, q)| {
                    let mut value = q[i].to_json();
                    value["reference"] = reference.clone();
                    value
                }),
            })
            .collect();
        serde_json::to_value(MatchJson { games, players })
            .map(|v| v.to_string())
            .unwrap_or_default()
    }
}
