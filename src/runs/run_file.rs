//! `run.json`, typed: what a run was (the harness, the command and its settings) and
//! each time it was resumed. Every command builds a [`RunFile`] and
//! [`RunFolder::write_run`](crate::RunFolder::write_run) writes it; `--resume` (and
//! [`RunFolder::add_resume`](crate::RunFolder::add_resume)) parse it through
//! [`RunFile::read`]. Grouping reads only the recorded prompt, from any run.json, as it
//! always has ([`prompt_hash`]).
//!
//! Reading is lenient where versions differ: a key an older version did not write is
//! an `Option` that stays absent when the file is written back (a resume), and a key
//! this version does not know is ignored. An agent's settings are its typed
//! [`AgentConfig`] (the agent crate keeps their keys); settings other crates serialise
//! by hand (a fleet, model information, the move-scoring reference) are kept as the
//! JSON they wrote.

use std::path::{Path, PathBuf};

use game::othello::{Color, Labels, Perspective, TextStyle};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use settings::{AgentConfig, LegalMoves};

use crate::recorded::{EngineTable, OpeningsRecord};
use crate::run_folder::utc_now;
use record::lines::LineError;
use record::EngineId;

/// A run folder's `run.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunFile {
    /// The program that made the run.
    pub harness: Harness,
    /// When the run started, UTC (`YYYY-MM-DDTHH:MM:SSZ`).
    pub created_utc: String,
    /// The command (written as the `command` key) and its settings.
    #[serde(flatten)]
    pub run: RunKind,
    /// Each resume of the run, in order; absent until the first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resumes: Vec<Resume>,
}

/// The program that wrote a run.json.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Harness {
    /// `othello-arena`.
    pub name: String,
    /// Its version (the workspace's package version).
    pub version: String,
}

/// A command's settings, by the `command` key of run.json.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "command", rename_all = "lowercase")]
// One run.json is read per command: the size of its largest variant costs nothing.
#[allow(clippy::large_enum_variant)]
pub enum RunKind {
    /// `eval`: an LLM player against each opponent.
    Eval(EvalRun),
    /// `play`: a match between two players.
    Play(PlayRun),
    /// `tournament`: a gauntlet or round robin.
    Tournament(TournamentRun),
    /// `probe`: an LLM player's answers on labelled positions.
    Probe(ProbeRun),
    /// `serve`: one game against a person in the browser.
    Serve(ServeRun),
    /// `mcp`: the games an MCP client played through the server's tools.
    Mcp(McpRun),
    /// `place`: one player placed on the ladder, pair by pair.
    Place(PlaceRun),
}

impl RunKind {
    /// The command, as run.json's `command` key writes it.
    pub fn command(&self) -> &'static str {
        match self {
            RunKind::Eval(_) => "eval",
            RunKind::Play(_) => "play",
            RunKind::Tournament(_) => "tournament",
            RunKind::Probe(_) => "probe",
            RunKind::Serve(_) => "serve",
            RunKind::Mcp(_) => "mcp",
            RunKind::Place(_) => "place",
        }
    }
}

/// The settings of an `eval` run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EvalRun {
    /// The command line after the program's name, which `eval --resume` parses again;
    /// absent in runs older than resuming.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub argv: Option<Vec<String>>,
    /// The model server, as the backend describes itself.
    pub backend: String,
    /// The fleet's hosts (URLs without credentials), `null` without a fleet; absent in
    /// runs older than fleets.
    #[serde(
        default,
        deserialize_with = "record::present",
        skip_serializing_if = "Option::is_none"
    )]
    pub fleet: Option<Value>,
    /// The model's digest, `null` when the server did not say; absent in older runs.
    #[serde(
        default,
        deserialize_with = "record::present",
        skip_serializing_if = "Option::is_none"
    )]
    pub model_digest: Option<Option<String>>,
    /// What the server said about the model, as it said it (`null`: nothing); absent
    /// in older runs.
    #[serde(
        default,
        deserialize_with = "record::present",
        skip_serializing_if = "Option::is_none"
    )]
    pub model_info: Option<Option<Value>>,
    /// The agent's settings.
    pub agent: AgentConfig,
    /// The opponents' specs, in schedule order.
    pub opponents: Vec<String>,
    /// The external engines among them, with their tables and handshakes; absent when
    /// there are none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub engines: Vec<RunEngine>,
    /// Games the agent plays as each colour against each opponent.
    pub games_per_color: usize,
    /// Random opening plies.
    pub opening_random: usize,
    /// The opening suite (`--openings`), absent for random openings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub openings: Option<OpeningsRecord>,
    /// The seed of the engines' choices.
    pub seed: u64,
    /// The seed of the openings; absent in older runs (the openings used `seed`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub opening_seed: Option<u64>,
    /// Games played at once.
    pub parallel: usize,
    /// The move-scoring reference's settings with `--score-moves`, else `null`; absent
    /// in older runs.
    #[serde(
        default,
        deserialize_with = "record::present",
        skip_serializing_if = "Option::is_none"
    )]
    pub score_moves: Option<Option<Value>>,
}

/// The settings of a `play` run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlayRun {
    /// The two players, first player first.
    pub players: Vec<RunPlayer>,
    /// Games in the match.
    pub games: usize,
    /// Whether the players change colours every game.
    pub swap: bool,
    /// Random opening plies.
    pub opening_random: usize,
    /// The opening suite (`--openings`), absent for random openings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub openings: Option<OpeningsRecord>,
    /// The seed of the openings and the engines' choices.
    pub seed: u64,
}

/// The settings of a `place` run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlaceRun {
    /// The command line after the program's name, which `place --resume` parses again.
    pub argv: Vec<String>,
    /// The player placed, then its candidate opponents.
    pub players: Vec<RunPlayer>,
    /// The opponents' ratings on the ladder that held them, in the same order.
    pub opponent_elos: Vec<f64>,
    /// `nearest` (the rung nearest the estimate) or `in-turn` (a fixed gauntlet).
    pub chooser: String,
    /// The interval width it stops at (Elo).
    pub width: f64,
    /// The most colour-swapped pairs.
    pub max_pairs: usize,
    /// The opening suite, absent for random openings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub openings: Option<OpeningsRecord>,
    /// The seed of the players' choices and the openings.
    pub seed: u64,
    /// Games played at once.
    pub parallel: usize,
}

/// The settings of a `tournament` run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TournamentRun {
    /// The tournament file's text, which `tournament --resume` reads again.
    pub tournament_file: String,
    /// The players, in the file's order (engines, external engines, then LLM players).
    pub players: Vec<RunPlayer>,
    /// The pairings' labels, in schedule order.
    pub pairings: Vec<String>,
    /// The opening suite (`openings` in the file), absent for random openings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub openings: Option<OpeningsRecord>,
    /// Games played at once.
    pub parallel: usize,
    /// Whether its LLM players' decisions are left unvalued (`--no-score-moves`, kept
    /// by a resume); absent when they are valued.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub no_score_moves: bool,
}

/// The settings of a `probe` run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ProbeRun {
    /// The model server, as the backend describes itself.
    pub backend: String,
    /// The fleet's hosts, `null` without a fleet; absent in runs older than fleets.
    #[serde(
        default,
        deserialize_with = "record::present",
        skip_serializing_if = "Option::is_none"
    )]
    pub fleet: Option<Value>,
    /// The agent's settings.
    pub agent: AgentConfig,
    /// The positions file, as given.
    pub positions_file: String,
    /// Positions in it.
    pub positions: usize,
    /// Positions asked at once.
    pub parallel: usize,
    /// The seed of the agent's choices.
    pub seed: u64,
    /// What a rules probe asked (`legal-moves`, `after-move`); absent for a probe of
    /// moves (every older probe).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ask: Option<String>,
}

/// The settings of a game in the browser (`serve`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ServeRun {
    /// Black, then white: the person is `human`.
    pub players: Vec<RunPlayer>,
    /// Games: 1.
    pub games: usize,
    /// The colour the person plays.
    pub human_color: Color,
}

/// The settings of an `mcp` server's run: the games one MCP client played.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct McpRun {
    /// The client, then each opponent it may choose (the first is the default).
    pub players: Vec<RunPlayer>,
    /// The client as its MCP handshake named itself.
    pub client: McpClient,
    /// Where games start: `N random opening plies`, or `openings from FILE (...)`.
    pub openings: String,
    /// The seed of the openings and the engines' choices.
    pub seed: u64,
    /// Illegal `play_move` calls on one ply before the fallback plays (or the client
    /// forfeits).
    pub max_invalid: u32,
    /// What happens then: `forfeit`, or the engine that moves for the client.
    pub fallback: String,
    /// Games open at once.
    pub max_games: usize,
    /// `hidden` when the client was never told its legal moves; absent when shown (as
    /// every run before blind play).
    #[serde(default, skip_serializing_if = "is_shown")]
    pub legal_moves: LegalMoves,
    /// The language of the client's boards (`en`, `ja`), as an agent's
    /// `board_labels`; runs written before it was kept read as `en`, the server's
    /// default.
    #[serde(default = "english")]
    pub board_labels: Labels,
    /// Whose discs its boards drew as `B`, as an agent's `board_perspective`.
    #[serde(default)]
    pub board_perspective: Perspective,
}

/// The labels an MCP run written before they were kept was shown: the server's default.
fn english() -> Labels {
    Labels::English
}

/// Whether the legal moves were shown (the default, which run.json leaves out).
fn is_shown(legal_moves: &LegalMoves) -> bool {
    legal_moves.shown()
}

/// An MCP client's name and version as its `initialize` request gave them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct McpClient {
    /// `clientInfo.name`.
    pub name: String,
    /// `clientInfo.version`.
    pub version: String,
}

/// One player of a run.json's `players`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunPlayer {
    /// The player's spec, as logs and tables write it.
    pub spec: String,
    /// An LLM player's settings; `null` for an engine or a person.
    pub agent: Option<AgentConfig>,
    /// An external engine's table and handshake; absent for other players.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub engine: Option<RunEngine>,
}

/// An external engine as run.json records it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunEngine {
    /// Its `[[engine]]` table.
    pub table: EngineTable,
    /// How its handshake named it before the run (absent when it was not started).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<EngineId>,
}

impl RunEngine {
    /// The external engines of `now` whose `[[engine]]` table is not the one `recorded`
    /// holds under the same name, one line each (a changed command or argument changes
    /// what plays without changing the player's name). Engines the run did not record
    /// (runs older than external engines) are not compared.
    pub fn changed_tables(recorded: &[RunEngine], now: &[RunEngine]) -> Vec<String> {
        now.iter()
            .filter_map(|engine| {
                let then = recorded.iter().find(|r| r.table.name == engine.table.name)?;
                (then.table != engine.table).then(|| {
                    format!(
                        "ext:{}: its [[engine]] table is not the one the run recorded",
                        engine.table.name
                    )
                })
            })
            .collect()
    }
}

impl RunPlayer {
    /// The player `spec`, with its settings when it is an LLM player.
    pub fn new(spec: String, agent: Option<AgentConfig>) -> RunPlayer {
        RunPlayer {
            spec,
            agent,
            engine: None,
        }
    }
}

/// One resume of a run, as `resumes` records it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Resume {
    /// When the resume started, UTC.
    pub created_utc: String,
    /// Games played at once in this session.
    pub parallel: usize,
    /// An eval's fleet in this session (`null` without one); absent for a tournament
    /// and in older runs.
    #[serde(
        default,
        deserialize_with = "record::present",
        skip_serializing_if = "Option::is_none"
    )]
    pub fleet: Option<Value>,
    /// An eval's games finished before this session; absent for a tournament.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub games_finished_before: Option<usize>,
}

/// Why a run.json could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ReadRunError {
    /// The file cannot be read, is not a regular file, or passes a cap.
    #[error("cannot read {path}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why (the bounded reader's error, naming the file and any cap).
        #[source]
        source: LineError,
    },
    /// The file is not JSON.
    #[error("{path} is not JSON")]
    NotJson {
        /// The file.
        path: PathBuf,
        /// The parse error.
        #[source]
        source: serde_json::Error,
    },
    /// The file is JSON, but not a run.json this version knows.
    #[error("{path} is not a run.json this version reads")]
    Shape {
        /// The file.
        path: PathBuf,
        /// What did not fit.
        #[source]
        source: serde_json::Error,
    },
}

impl RunFile {
    /// A run of `run` starting now, by this harness.
    pub fn new(run: RunKind) -> RunFile {
        RunFile {
            harness: Harness {
                name: "othello-arena".to_string(),
                version: env!("CARGO_PKG_VERSION").to_string(),
            },
            created_utc: utc_now().0,
            run,
            resumes: Vec::new(),
        }
    }

    /// The agent settings of the player `spec` (as the logs name it), when the run
    /// records that player as an LLM agent.
    pub fn agent_of(&self, spec: &str) -> Option<&AgentConfig> {
        match &self.run {
            RunKind::Eval(EvalRun { agent, .. }) | RunKind::Probe(ProbeRun { agent, .. }) => {
                Some(agent).filter(|agent| agent.spec() == spec)
            }
            _ => self
                .agents()
                .into_iter()
                .find(|(s, _)| *s == spec)
                .map(|(_, agent)| agent),
        }
    }

    /// Every LLM player the run records, with its spec as the logs name it (an eval's or
    /// a probe's agent, else the players that have agent settings).
    pub fn agents(&self) -> Vec<(String, &AgentConfig)> {
        match &self.run {
            RunKind::Eval(EvalRun { agent, .. }) | RunKind::Probe(ProbeRun { agent, .. }) => {
                vec![(agent.spec(), agent)]
            }
            RunKind::Play(PlayRun { players, .. })
            | RunKind::Tournament(TournamentRun { players, .. })
            | RunKind::Serve(ServeRun { players, .. })
            | RunKind::Mcp(McpRun { players, .. })
            | RunKind::Place(PlaceRun { players, .. }) => players
                .iter()
                .filter_map(|p| Some((p.spec.clone(), p.agent.as_ref()?)))
                .collect(),
        }
    }

    /// How the player `spec` was shown boards: its agent's style, or for an MCP
    /// run's client the server's; `None` for an engine.
    pub fn style_of(&self, spec: &str) -> Option<TextStyle> {
        match self.mcp_client(spec) {
            Some(mcp) => Some(TextStyle {
                labels: mcp.board_labels,
                perspective: mcp.board_perspective,
            }),
            None => self.agent_of(spec).map(|agent| agent.style),
        }
    }

    /// Whether the player `spec` was shown its legal moves; `None` for an engine, which
    /// is shown nothing.
    pub fn legal_moves_of(&self, spec: &str) -> Option<LegalMoves> {
        match self.mcp_client(spec) {
            Some(mcp) => Some(mcp.legal_moves),
            None => self.agent_of(spec).map(|agent| agent.legal_moves),
        }
    }

    /// The settings of an `mcp` run whose client is `spec` (its first player).
    fn mcp_client(&self, spec: &str) -> Option<&McpRun> {
        match &self.run {
            RunKind::Mcp(mcp) if mcp.players.first().is_some_and(|p| p.spec == spec) => Some(mcp),
            _ => None,
        }
    }

    /// The run.json of the run folder `dir`.
    pub fn read(dir: &Path) -> Result<RunFile, ReadRunError> {
        read_run_json(dir)
    }

    /// The file as JSON, its keys sorted as run.json has always been written: the
    /// files were once built with `json!`, whose objects (serde_json without
    /// `preserve_order`) sort their keys, so the file goes through a [`Value`] rather
    /// than printing the fields in declaration order.
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).expect("a run.json has string keys only")
    }
}

/// The longest line of a run folder's JSON files (run.json, results.json) read: a
/// prompt's or a tournament file's text is one line of them.
pub const RUN_LINE_CAP: usize = 16 << 20;

/// The largest run.json or results.json read.
pub const RUN_FILE_CAP: u64 = 64 << 20;

/// The text of a run folder's JSON file (run.json, results.json), through the one
/// bounded reader: within `RUN_LINE_CAP` and `RUN_FILE_CAP`, a regular file only.
pub fn read_run_text(path: &Path) -> Result<String, LineError> {
    record::lines::read_file(path, RUN_LINE_CAP, RUN_FILE_CAP)
}

/// The run.json of the run folder `dir`, read as `T`.
fn read_run_json<T: serde::de::DeserializeOwned>(dir: &Path) -> Result<T, ReadRunError> {
    let path = dir.join("run.json");
    let text = read_run_text(&path).map_err(|source| ReadRunError::Io {
        path: path.clone(),
        source,
    })?;
    serde_json::from_str(&text).map_err(|source| {
        if source.is_data() {
            ReadRunError::Shape { path, source }
        } else {
            ReadRunError::NotJson { path, source }
        }
    })
}

/// What `compare` reads of a run.json: the LLM player's settings (an eval's or a
/// probe's) and the run-wide settings it names when they differ, each as written
/// (`null` when absent). Read leniently, as grouping reads the prompt: any JSON object
/// will do (a run.json made by hand too), whatever its command.
#[derive(Clone, Debug, Default, Deserialize)]
pub struct RecordedSettings {
    /// The LLM player's settings.
    #[serde(default)]
    pub agent: Option<AgentConfig>,
    /// The model's digest.
    #[serde(default)]
    pub model_digest: Value,
    /// The openings' seed.
    #[serde(default)]
    pub opening_seed: Value,
    /// Random opening plies.
    #[serde(default)]
    pub opening_random: Value,
    /// Games per colour and opponent.
    #[serde(default)]
    pub games_per_color: Value,
    /// The model server.
    #[serde(default)]
    pub backend: Value,
}

impl RecordedSettings {
    /// The settings recorded in the run.json of `dir`.
    pub fn read(dir: &Path) -> Result<RecordedSettings, ReadRunError> {
        read_run_json(dir)
    }

    /// The run-wide settings, by run.json's key.
    pub fn run_wide(&self) -> [(&'static str, &Value); 5] {
        [
            ("model_digest", &self.model_digest),
            ("opening_seed", &self.opening_seed),
            ("opening_random", &self.opening_random),
            ("games_per_color", &self.games_per_color),
            ("backend", &self.backend),
        ]
    }
}

/// The system prompt's sha256 (first 12 digits) recorded in the run.json of `dir`: an
/// eval's or probe's agent, else the first player with one. Read leniently, as
/// grouping always has: any JSON with an `agent` or `players[].agent` will do (a
/// run.json made by hand too), and anything else has none.
pub(crate) fn prompt_hash(dir: &Path) -> Option<String> {
    let run: RecordedAgents = read_run_text(&dir.join("run.json"))
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())?;
    let hash = |agent: &Option<RecordedAgent>| {
        let hash = &agent.as_ref()?.system_prompt.as_ref()?.sha256;
        Some(hash[..12.min(hash.len())].to_string())
    };
    hash(&run.agent).or_else(|| run.players.iter().find_map(|p| hash(&p.agent)))
}

/// The agent settings a run.json records, as far as [`prompt_hash`] reads them.
#[derive(Deserialize)]
struct RecordedAgents {
    #[serde(default)]
    agent: Option<RecordedAgent>,
    #[serde(default)]
    players: Vec<RecordedPlayer>,
}

/// One of `players`.
#[derive(Deserialize)]
struct RecordedPlayer {
    #[serde(default)]
    agent: Option<RecordedAgent>,
}

/// An agent's recorded system prompt.
#[derive(Deserialize)]
struct RecordedAgent {
    #[serde(default)]
    system_prompt: Option<PromptHash>,
}

/// A recorded prompt's hash.
#[derive(Deserialize)]
struct PromptHash {
    sha256: String,
}

/// The agent settings that differ between what a run recorded (`recorded`) and what a
/// resume would play with (`now`), one line each, by run.json's key and with its
/// values: a prompt whose file changed says so with both hashes. A setting an older
/// run.json lacks reads as what that version played with. Empty when the resume plays
/// with exactly the run's settings.
pub fn changed_agent_settings(recorded: &AgentConfig, now: &AgentConfig) -> Vec<String> {
    // Each value as run.json writes it.
    let as_written = |config: &AgentConfig| serde_json::to_value(config).unwrap_or_default();
    let (then_written, now_written) = (as_written(recorded), as_written(now));
    let written = |json: &Value, key: &str| json.get(key).cloned().unwrap_or(Value::Null);
    let prompts = |key: &str| match key {
        "system_prompt" => (&recorded.system_prompt, &now.system_prompt),
        "user_template" => (&recorded.user_template, &now.user_template),
        _ => (&None, &None),
    };
    recorded
        .differing(now)
        .into_iter()
        .map(|key| match prompts(&key) {
            (Some(then), Some(now)) => format!(
                "{key} {}: its text changed (sha256 {} then, {} now)",
                now.source,
                short_hash(&then.sha256),
                short_hash(&now.sha256)
            ),
            _ => format!(
                "{key}: {} then, {} now",
                written(&then_written, &key),
                written(&now_written, &key)
            ),
        })
        .collect()
}

/// A prompt's hash as messages show it: its first 12 digits.
fn short_hash(sha256: &str) -> String {
    sha256.chars().take(12).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The run folders the tests keep: today's pinned ones and the old binary's.
    fn kept_run_jsons() -> Vec<PathBuf> {
        let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data");
        let mut dirs = Vec::new();
        for kind in ["pinned", "runs"] {
            for entry in std::fs::read_dir(data.join(kind)).unwrap() {
                let dir = entry.unwrap().path();
                if dir.join("run.json").is_file() {
                    dirs.push(dir);
                }
            }
        }
        assert!(dirs.len() >= 8, "the tests' run folders are found");
        dirs
    }

    #[test]
    fn every_kept_run_json_is_written_back_byte_for_byte() {
        for dir in kept_run_jsons() {
            let text = std::fs::read_to_string(dir.join("run.json")).unwrap();
            let run = RunFile::read(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
            let again = serde_json::to_string_pretty(&run.to_json()).unwrap() + "\n";
            assert_eq!(again, text, "{}", dir.display());
        }
    }

    #[test]
    fn keys_older_versions_lacked_stay_absent_and_unknown_keys_are_ignored() {
        let old = r#"{"harness":{"name":"othello-arena","version":"0.0.1"},"command":"eval",
            "created_utc":"2026-11-28T10:00:00Z","backend":"ollama http://h","agent":{"model":"m"},
            "opponents":["greedy"],"games_per_color":2,"opening_random":0,"seed":1,"parallel":1,
            "a_key_from_the_future":[1,2]}"#;
        let run: RunFile = serde_json::from_str(old).unwrap();
        let RunKind::Eval(eval) = &run.run else {
            panic!("an eval run")
        };
        assert_eq!((&eval.argv, &eval.fleet, &eval.score_moves), (&None, &None, &None));
        let written = run.to_json();
        let keys: Vec<&String> = written.as_object().unwrap().keys().collect();
        assert_eq!(
            keys,
            [
                "agent",
                "backend",
                "command",
                "created_utc",
                "games_per_color",
                "harness",
                "opening_random",
                "opponents",
                "parallel",
                "seed"
            ]
        );
    }

    #[test]
    fn null_stays_null_and_resumes_keep_their_shape() {
        let mut run = RunFile::new(RunKind::Eval(EvalRun {
            argv: Some(vec!["eval".to_string()]),
            backend: "b".to_string(),
            fleet: Some(Value::Null),
            model_digest: Some(None),
            model_info: Some(None),
            agent: AgentConfig::new("m"),
            opponents: vec!["greedy".to_string()],
            engines: Vec::new(),
            games_per_color: 1,
            opening_random: 0,
            openings: None,
            seed: 1,
            opening_seed: Some(1),
            parallel: 1,
            score_moves: Some(None),
        }));
        run.resumes.push(Resume {
            created_utc: "t".to_string(),
            parallel: 2,
            fleet: None,
            games_finished_before: None,
        });
        let value = run.to_json();
        for key in ["fleet", "model_digest", "model_info", "score_moves"] {
            assert_eq!(value.get(key), Some(&Value::Null), "{key}");
        }
        assert_eq!(
            value["resumes"],
            serde_json::json!([{ "created_utc": "t", "parallel": 2 }])
        );
        let back: RunFile = serde_json::from_value(value).unwrap();
        assert_eq!(back, run);
    }

    #[test]
    fn a_run_json_that_is_not_json_or_not_a_run_says_which_and_still_groups() {
        let dir = std::env::temp_dir().join(format!("othello-run-file-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        assert!(matches!(RunFile::read(&dir), Err(ReadRunError::Io { .. })));
        std::fs::write(dir.join("run.json"), "{").unwrap();
        assert!(matches!(RunFile::read(&dir), Err(ReadRunError::NotJson { .. })));
        std::fs::write(dir.join("run.json"), r#"{"command":"dance"}"#).unwrap();
        assert!(matches!(RunFile::read(&dir), Err(ReadRunError::Shape { .. })));
        assert_eq!(prompt_hash(&dir), None);
        let made_by_hand = r#"{"players":[{"agent":null},{"agent":{"system_prompt":{"sha256":"0123456789abcdef"}}}]}"#;
        std::fs::write(dir.join("run.json"), made_by_hand).unwrap();
        assert_eq!(
            prompt_hash(&dir).as_deref(),
            Some("0123456789ab"),
            "grouping reads any run.json"
        );
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn every_recorded_setting_is_compared_and_changes_are_named_as_run_json_writes_them() {
        // Hidden legal moves, so that every key is written (shown ones write none).
        let mut config = AgentConfig::new("m");
        config.legal_moves = settings::LegalMoves::Hidden;
        assert!(changed_agent_settings(&config, &config).is_empty());
        let mut now = config.clone();
        now.max_turns = 5;
        now.mode = settings::Mode::Direct;
        now.max_tool_rounds = 2;
        now.system_prompt = Some(settings::Prompt::from_text("p", "text"));
        let mut then = config.clone();
        then.system_prompt = Some(settings::Prompt::from_text("p", "old text"));
        let hash = |text: &str| settings::sha256_hex(text)[..12].to_string();
        assert_eq!(
            changed_agent_settings(&then, &now),
            [
                "max_tool_rounds: null then, 2 now".to_string(),
                "max_turns: 10 then, 5 now".to_string(),
                "mode: \"tool\" then, \"direct\" now".to_string(),
                format!(
                    "system_prompt p: its text changed (sha256 {} then, {} now)",
                    hash("old text"),
                    hash("text")
                ),
            ]
        );
    }

    /// The agent settings of every kept run.json (today's and the old binary's) read
    /// into the typed settings, and each writes back the JSON it was read from.
    #[test]
    fn every_kept_agent_reads_typed_and_writes_back_as_recorded() {
        let mut agents = 0;
        for dir in kept_run_jsons() {
            let text = std::fs::read_to_string(dir.join("run.json")).unwrap();
            let raw: Value = serde_json::from_str(&text).unwrap();
            let run = RunFile::read(&dir).unwrap();
            let typed: Vec<&AgentConfig> = match &run.run {
                RunKind::Eval(eval) => vec![&eval.agent],
                RunKind::Probe(probe) => vec![&probe.agent],
                RunKind::Play(PlayRun { players, .. })
                | RunKind::Tournament(TournamentRun { players, .. })
                | RunKind::Serve(ServeRun { players, .. })
                | RunKind::Mcp(McpRun { players, .. })
                | RunKind::Place(PlaceRun { players, .. }) => players.iter().filter_map(|p| p.agent.as_ref()).collect(),
            };
            let recorded: Vec<&Value> = std::iter::once(&raw["agent"])
                .chain(raw["players"].as_array().into_iter().flatten().map(|p| &p["agent"]))
                .filter(|agent| agent.is_object())
                .collect();
            assert_eq!(typed.len(), recorded.len(), "{}", dir.display());
            for (typed, recorded) in typed.into_iter().zip(recorded) {
                assert_eq!(&serde_json::to_value(typed).unwrap(), recorded, "{}", dir.display());
                agents += 1;
            }
        }
        assert!(agents >= 4, "the kept runs hold LLM players: {agents}");
    }
}
