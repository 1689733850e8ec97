//! A tournament's players set up from its file ([`Tournament::entrants`]): its engine
//! specs, its `[[engine]]` tables, and each `[[llm]]` table's players (one, or one per
//! combination of its grid, each named by [`crate::llm_player_name`]) connected to
//! their hosts, players on the same hosts sharing one connection.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use agent::AgentSource;
use runs::GridPlayer;

use super::connection::{Connection, ReachError};
use super::external_engine::{EngineTableError, ExternalEngine};
use super::llm_table::LlmEntry;
use super::player_spec::{ParseSpecError, PlayerSpec};
use super::tournament::{llm_player_name, Entrants, Tournament, TournamentError};

/// Why a tournament's players cannot be set up (each message names the file, and the
/// `[[llm]]` table when it is one's).
#[derive(Debug, thiserror::Error)]
pub enum EntrantsError {
    /// An engine spec of `engines`.
    #[error(transparent)]
    Engine(#[from] Box<ParseSpecError>),
    /// An `[[engine]]` table.
    #[error("bad tournament file {}", .path.display())]
    External {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: EngineTableError,
    },
    /// An `[[llm]]` table's value (a host value out of range, two grid values making
    /// one player).
    #[error("bad tournament file {}: [[llm]] {model}: {problem}", .path.display())]
    Table {
        /// The file.
        path: PathBuf,
        /// The table's model.
        model: String,
        /// What is wrong and what to do.
        problem: String,
    },
    /// An `[[llm]]` table's hosts could not be set up or reached.
    #[error("bad [[llm]] {model} in {}", .path.display())]
    Hosts {
        /// The table's model.
        model: String,
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: Box<ReachError>,
    },
    /// An `[[llm]]` table's player: its settings, or its model on the fleet.
    #[error("bad [[llm]] {model} in {}", .path.display())]
    Player {
        /// The table's model.
        model: String,
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: Box<ParseSpecError>,
    },
    /// An `[[llm]]` player's name is no player name.
    #[error("bad [[llm]] {model} in {}: {problem}", .path.display())]
    Name {
        /// The table's model.
        model: String,
        /// The file.
        path: PathBuf,
        /// Why.
        problem: String,
    },
    /// The players together (a name twice, a person, a format without its players).
    #[error(transparent)]
    Players(#[from] TournamentError),
}

/// The connections made so far, by the hosts they reach, and their total capacity.
#[derive(Default)]
struct Connections {
    by_hosts: HashMap<String, Connection>,
    capacity: usize,
}

impl Tournament {
    /// The file's players, in its order (engines, external engines, then LLM players),
    /// the LLM players connected to their hosts (players on the same hosts share one
    /// connection, so a host's max_in_flight holds across them; hosts named in an agent
    /// file are that file's own); `env` looks up `OLLAMA_HOST` and API key variables.
    /// A resumed run's LLM players keep the token caps it recorded
    /// ([`Entrants::keep_recorded_caps`]). Refused when two share a name or the format
    /// lacks players.
    pub async fn entrants(&self, env: &dyn Fn(&str) -> Option<String>) -> Result<Entrants, EntrantsError> {
        let (file, path) = (&self.file, &self.path);
        let mut players: Vec<PlayerSpec> = Vec::new();
        for engine in &file.engines {
            players.push(PlayerSpec::parse(engine, "engines", &AgentSource::default(), None).map_err(Box::new)?);
        }
        for table in &file.external {
            let engine = ExternalEngine::new(table.clone()).map_err(|source| EntrantsError::External {
                path: path.clone(),
                source,
            })?;
            players.push(PlayerSpec::External(engine));
        }
        let (mut llm, mut connections) = (Vec::new(), Connections::default());
        for entry in &file.llms {
            let connection = connections.open(entry, env, path).await?;
            let first = players.len();
            for variant in variants(entry, path)? {
                let player = player(entry, &variant, &connection, path)?;
                // Two values of one grid that make one name (`0.7` and `0.70`) are the
                // values' fault, not the table's: say so.
                if let Some(twice) = players[first..].iter().find(|p| p.to_string() == player.to_string()) {
                    return Err(table_fault(
                        entry,
                        path,
                        format!("two values of its grid make the one player {twice}; list each value once"),
                    ));
                }
                llm.push(players.len());
                players.push(player);
            }
        }
        let mut entrants = Entrants::new(players, llm, connections.capacity, (file.format, path))?;
        if let Some((_, run)) = &self.resume {
            entrants.keep_recorded_caps(run);
        }
        Ok(entrants)
    }
}

/// A fault of the `[[llm]]` table `entry` of the file at `path`.
fn table_fault(entry: &LlmEntry, path: &Path, problem: String) -> EntrantsError {
    EntrantsError::Table {
        path: path.to_path_buf(),
        model: entry.model.clone(),
        problem,
    }
}

impl Connections {
    /// The connection to the hosts of `entry` (of the file at `path`): one made before
    /// to the same hosts, else a new one, its capacity added.
    async fn open(
        &mut self,
        entry: &LlmEntry,
        env: &dyn Fn(&str) -> Option<String>,
        path: &Path,
    ) -> Result<Connection, EntrantsError> {
        entry
            .check_hosts()
            .map_err(|problem| table_fault(entry, path, problem))?;
        let hosts = &entry.hosts;
        let key = if hosts.given() {
            format!("{hosts:?}")
        } else {
            format!("{hosts:?} {:?}", entry.agent_file)
        };
        if let Some(connection) = self.by_hosts.get(&key) {
            return Ok(connection.clone());
        }
        let connection = Connection::open(hosts, &entry_source(entry, None), env)
            .await
            .map_err(|source| EntrantsError::Hosts {
                model: entry.model.clone(),
                path: path.to_path_buf(),
                source: Box::new(source),
            })?;
        self.capacity += connection.default_parallel();
        self.by_hosts.insert(key, connection.clone());
        Ok(connection)
    }
}

/// The agent settings of an `[[llm]]` table's player: its agent file, under the
/// settings of its grid's `variant` when it has one.
fn entry_source(entry: &LlmEntry, variant: Option<&GridPlayer>) -> AgentSource {
    AgentSource {
        file: entry.agent_file.clone(),
        settings: variant.map(|v| v.settings.clone()).unwrap_or_default(),
        engines: None,
    }
}

/// The players of an `[[llm]]` table: one (no settings but its agent file's), or one
/// per combination of its grid, each with the name parts its settings give.
fn variants(entry: &LlmEntry, path: &Path) -> Result<Vec<GridPlayer>, EntrantsError> {
    match &entry.grid {
        None => Ok(vec![GridPlayer {
            settings: Default::default(),
            name_parts: Vec::new(),
        }]),
        Some(grid) => grid.players().map_err(|e| table_fault(entry, path, e.to_string())),
    }
}

/// The `llm:MODEL` player of one of an `[[llm]]` table's variants on `connection`,
/// named as [`llm_player_name`] says.
fn player(
    entry: &LlmEntry,
    variant: &GridPlayer,
    connection: &Connection,
    path: &Path,
) -> Result<PlayerSpec, EntrantsError> {
    let spec = format!("llm:{}", entry.model);
    let source = entry_source(entry, Some(variant));
    let mut player =
        PlayerSpec::parse(&spec, "[[llm]]", &source, Some(connection)).map_err(|source| EntrantsError::Player {
            model: entry.model.clone(),
            path: path.to_path_buf(),
            source: Box::new(source),
        })?;
    if let PlayerSpec::Llm(llm_player) = &mut player {
        let think = llm_player.config.think.as_ref();
        let name =
            llm_player_name(entry.name.as_deref(), think, entry.think_named(), &variant.name_parts).map_err(|e| {
                EntrantsError::Name {
                    model: entry.model.clone(),
                    path: path.to_path_buf(),
                    problem: e.to_string(),
                }
            })?;
        if let Some(name) = name {
            let mut config = (*llm_player.config).clone();
            config.name = Some(name);
            llm_player.config = Arc::new(config);
        }
    }
    Ok(player)
}
