//! Games grouped by (player, system prompt of its run, opponent), a player named by its
//! settings ([`PlayerNames`]): what `stats`,
//! `compare`, the HTML report and `serve` tabulate, read once from the logs.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use super::logs::{read_game_logs, GameLogs, LogsError};
use super::players::PlayerNames;
use super::run_file;
use super::tally::{GameSummary, Matchup};
use crate::TallySummary;
use game::othello::Color;

/// Games of one (model, prompt, opponent) group.
#[derive(Default)]
pub struct Group {
    /// The games, from the agent's view.
    pub matchup: Matchup,
    /// The group's games.
    pub games: Vec<GroupGame>,
}

/// One game of a group.
pub struct GroupGame {
    /// Its index in [`Groups::logs`].
    pub index: usize,
    /// The agent's color.
    pub color: Color,
}

/// The key: model spec, prompt sha256 (its first 12 digits, or `-`), opponent spec.
pub type Key = (String, String, String);

/// The games with an LLM player under some paths, grouped, with the reader's notes.
pub struct Groups {
    /// The groups by (model, prompt, opponent).
    pub groups: BTreeMap<Key, Group>,
    /// Every game read, each once, and the notes (cut-off games, repeated paths).
    pub logs: GameLogs,
}

/// The groups as JSON (`stats --json`'s `groups`): per-color tallies, unfinished games
/// and agent statistics.
pub fn groups_json(groups: &BTreeMap<Key, Group>) -> Vec<Value> {
    groups
        .iter()
        .map(|((model, prompt, opponent), g)| {
            json!({
                "model": model, "prompt_sha256": prompt, "opponent": opponent,
                "as_black": TallySummary::from(&g.matchup.as_black), "as_white": TallySummary::from(&g.matchup.as_white),
                "overall": TallySummary::from(&g.matchup.overall()),
                "unfinished_games": g.matchup.unfinished, "agent": g.matchup.agent.to_json(),
            })
        })
        .collect()
}

/// Why games cannot be grouped.
#[derive(Debug, thiserror::Error)]
pub enum GroupsError {
    /// The paths do not lead to logs that can be counted.
    #[error(transparent)]
    Logs(#[from] LogsError),
    /// No game has an LLM player; the reader's notes say what was read.
    #[error("no game with an llm: player in these logs")]
    NoLlmGame {
        /// The reader's notes.
        notes: Vec<String>,
    },
}

/// [`Groups::read`], failing when no game has an LLM player (`stats`, `compare` and
/// `report` tabulate those).
pub fn collect_groups(paths: &[PathBuf]) -> Result<Groups, GroupsError> {
    let groups = Groups::read(paths)?;
    if groups.groups.is_empty() {
        return Err(GroupsError::NoLlmGame {
            notes: groups.logs.notes,
        });
    }
    Ok(groups)
}

impl Groups {
    /// Every game in `paths` (read once each by [`read_game_logs`]), those with an LLM
    /// player grouped by (player named by its settings as [`PlayerNames`] names it,
    /// prompt of its run, opponent); a game between two LLM
    /// players counts in both players' groups. With no LLM game there is no group, only
    /// the games.
    pub fn read(paths: &[PathBuf]) -> Result<Groups, LogsError> {
        let logs = read_game_logs(paths)?;
        let names = PlayerNames::of(&logs);
        let mut groups: BTreeMap<Key, Group> = BTreeMap::new();
        let mut prompts: BTreeMap<PathBuf, String> = BTreeMap::new();
        for (index, logged) in logs.games.iter().enumerate() {
            let prompt = prompts
                .entry(logged.run.clone())
                .or_insert_with(|| prompt_hash(&logged.run))
                .clone();
            let game = &logged.summary;
            let name = |color| names.name(&logged.run, &game.players[color]);
            for color in game.llm_colors() {
                let key = (name(color), prompt.clone(), name(!color));
                let group = groups.entry(key).or_default();
                group.matchup.add(game, color);
                group.games.push(GroupGame { index, color });
            }
        }
        Ok(Groups { groups, logs })
    }

    /// Every pairing of the games read, whoever played (engines, people, LLMs), keyed
    /// as the groups are (player, `-`, opponent) from the view of the player whose
    /// spec sorts first: what a run without an LLM player is tabulated by.
    pub fn pairings(&self) -> BTreeMap<Key, Group> {
        let mut pairings: BTreeMap<Key, Group> = BTreeMap::new();
        for (index, logged) in self.logs.games.iter().enumerate() {
            let game = &logged.summary;
            let color = if game.players[Color::Black] <= game.players[Color::White] {
                Color::Black
            } else {
                Color::White
            };
            let key = (
                game.players[color].clone(),
                "-".to_string(),
                game.players[!color].clone(),
            );
            let pairing = pairings.entry(key).or_default();
            pairing.matchup.add(game, color);
            pairing.games.push(GroupGame { index, color });
        }
        pairings
    }

    /// The game of `game`.
    pub fn summary(&self, game: &GroupGame) -> &GameSummary {
        &self.logs.games[game.index].summary
    }
}

/// The system prompt's sha256 (first 12 digits) recorded in a run folder's run.json
/// (an eval's agent, else a tournament's first LLM player with one), or `-`.
fn prompt_hash(run_dir: &Path) -> String {
    run_file::prompt_hash(run_dir).unwrap_or_else(|| "-".to_string())
}
