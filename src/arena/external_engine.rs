//! An external engine's checked table: its name, protocol, strength, timeouts, process
//! slots and, once started, its identity. Starting and driving its processes is in
//! `engine_process`; playing and scoring with them in `external`.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use protocol::{nboard, Protocol};
use record::EngineId;
use runs::{EngineTable, RunEngine};
use tokio::sync::Semaphore;

/// How strong the engine is asked to play.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Strength {
    /// A search depth.
    Depth(u32),
    /// Seconds per move.
    Time(f64),
}

/// The most processes of one engine at once.
const MAX_IN_FLIGHT: usize = 256;
/// Processes at once when the table does not say (`max_in_flight`).
const DEFAULT_MAX_IN_FLIGHT: usize = 1;

/// A `[[engine]]` table that cannot be used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("bad [[engine]] {name:?}: {reason}")]
pub struct EngineTableError {
    /// The table's name.
    pub name: String,
    /// What is wrong, naming the key and the fix.
    pub reason: String,
}

/// An external engine: its checked table, its process slots and its identity.
#[derive(Clone, Debug)]
pub struct ExternalEngine {
    table: Arc<EngineTable>,
    protocol: Protocol,
    strength: Option<Strength>,
    timeout: Duration,
    slots: Arc<Semaphore>,
    identity: Arc<OnceLock<EngineId>>,
}

impl PartialEq for ExternalEngine {
    fn eq(&self, other: &ExternalEngine) -> bool {
        self.table == other.table
    }
}

impl ExternalEngine {
    /// This engine as run.json records it: its table and, once started, its handshake.
    pub fn run_engine(&self) -> RunEngine {
        RunEngine {
            table: self.table().clone(),
            id: self.identity().cloned(),
        }
    }

    /// Checks `table`: a usable name, a known protocol, one strength the protocol can
    /// set, bounds on `max_in_flight`, `depth`, `time_per_move` and `timeout`.
    pub fn new(table: EngineTable) -> Result<ExternalEngine, EngineTableError> {
        let bad = |reason: String| EngineTableError {
            name: table.name.clone(),
            reason,
        };
        let name_ok = |c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-');
        if table.name.is_empty() || !table.name.chars().all(name_ok) {
            return Err(bad(
                "name must be letters, digits, '.', '_' or '-', as in name = \"edax\"".to_string(),
            ));
        }
        let protocol: Protocol = table.protocol.parse().map_err(|e| bad(format!("protocol: {e}")))?;
        if table.command.trim().is_empty() {
            return Err(bad("command is empty: give the program to run".to_string()));
        }
        let strength = match (table.depth, table.time_per_move) {
            (Some(_), Some(_)) => return Err(bad("give depth or time_per_move, not both".to_string())),
            (Some(depth), None) if (1..=nboard::MAX_DEPTH).contains(&depth) => Some(Strength::Depth(depth)),
            (Some(depth), None) => return Err(bad(format!("depth = {depth}: give 1 to {}", nboard::MAX_DEPTH))),
            (None, Some(t)) if protocol == Protocol::Nboard => {
                return Err(bad(format!(
                    "time_per_move = {t}: NBoard sets no time, give depth instead"
                )))
            }
            (None, Some(t)) if t.is_finite() && (0.01..=3600.0).contains(&t) => Some(Strength::Time(t)),
            (None, Some(t)) => return Err(bad(format!("time_per_move = {t}: give 0.01 to 3600 seconds"))),
            (None, None) if protocol == Protocol::Nboard => {
                return Err(bad("an NBoard engine needs depth (its set depth)".to_string()))
            }
            (None, None) => None,
        };
        let max_in_flight = table.max_in_flight.unwrap_or(DEFAULT_MAX_IN_FLIGHT);
        if !(1..=MAX_IN_FLIGHT).contains(&max_in_flight) {
            return Err(bad(format!(
                "max_in_flight = {max_in_flight}: give 1 to {MAX_IN_FLIGHT}"
            )));
        }
        let timeout = match (table.timeout, strength) {
            (Some(t), _) if t.is_finite() && (0.1..=86_400.0).contains(&t) => t,
            (Some(t), _) => return Err(bad(format!("timeout = {t}: give 0.1 to 86400 seconds"))),
            (None, Some(Strength::Time(t))) => 3.0 * t + 10.0,
            (None, _) => 60.0,
        };
        Ok(ExternalEngine {
            protocol,
            strength,
            timeout: Duration::from_secs_f64(timeout),
            slots: Arc::new(Semaphore::new(max_in_flight)),
            identity: Arc::new(OnceLock::new()),
            table: Arc::new(table),
        })
    }

    /// The player's name in logs, tables and ratings: `ext:NAME`, with `@dN` for a
    /// depth or `@tSECONDSs` for a time per move.
    pub fn name(&self) -> String {
        let name = &self.table.name;
        match self.strength {
            Some(Strength::Depth(depth)) => format!("ext:{name}@d{depth}"),
            Some(Strength::Time(t)) => format!("ext:{name}@t{t}s"),
            None => format!("ext:{name}"),
        }
    }

    /// The table it was built from.
    pub fn table(&self) -> &EngineTable {
        &self.table
    }

    /// The protocol it speaks.
    pub fn protocol(&self) -> Protocol {
        self.protocol
    }

    /// The strength it is asked for.
    pub fn strength(&self) -> Option<Strength> {
        self.strength
    }

    /// How long an answer may take.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// How many of its processes may run at once.
    pub fn max_in_flight(&self) -> usize {
        self.table.max_in_flight.unwrap_or(DEFAULT_MAX_IN_FLIGHT)
    }

    /// Its process slots (`max_in_flight`).
    pub(crate) fn slots(&self) -> &Arc<Semaphore> {
        &self.slots
    }

    /// What [`ExternalEngine::identify`] found, once it ran.
    pub fn identity(&self) -> Option<&EngineId> {
        self.identity.get()
    }

    /// Records what the handshake named, the first time; returns what is kept.
    pub(crate) fn keep_identity(&self, id: EngineId) -> EngineId {
        self.identity.get_or_init(|| id).clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(protocol: &str) -> EngineTable {
        EngineTable {
            name: "edax".to_string(),
            protocol: protocol.to_string(),
            command: "edax".to_string(),
            args: Vec::new(),
            dir: None,
            depth: None,
            time_per_move: None,
            max_in_flight: None,
            timeout: None,
        }
    }

    #[test]
    fn a_table_names_its_player_with_its_strength() {
        let gtp = ExternalEngine::new(table("gtp")).unwrap();
        assert_eq!(
            (gtp.name(), gtp.timeout()),
            ("ext:edax".to_string(), Duration::from_secs(60))
        );
        let deep = ExternalEngine::new(EngineTable {
            depth: Some(4),
            ..table("nboard")
        })
        .unwrap();
        assert_eq!(deep.name(), "ext:edax@d4");
        let timed = ExternalEngine::new(EngineTable {
            time_per_move: Some(0.5),
            ..table("GTP")
        })
        .unwrap();
        assert_eq!(
            (timed.name(), timed.timeout()),
            ("ext:edax@t0.5s".to_string(), Duration::from_secs_f64(11.5))
        );
    }

    #[test]
    fn bad_tables_name_the_key_and_the_fix() {
        let refused = |t: EngineTable| ExternalEngine::new(t).unwrap_err().to_string();
        assert_eq!(
            refused(table("uci")),
            "bad [[engine]] \"edax\": protocol: unknown protocol \"uci\": expected gtp or nboard"
        );
        assert!(refused(table("nboard")).contains("needs depth"));
        let both = EngineTable {
            depth: Some(2),
            time_per_move: Some(1.0),
            ..table("gtp")
        };
        assert!(refused(both).contains("not both"));
        let spaced = EngineTable {
            name: "my edax".to_string(),
            ..table("gtp")
        };
        assert!(refused(spaced).contains("name must be"));
        let crowd = EngineTable {
            max_in_flight: Some(0),
            ..table("gtp")
        };
        assert!(refused(crowd).contains("max_in_flight = 0"));
    }
}
