//! An `--engines` file (`[[engine]]` tables, as a tournament file holds them) read whole
//! in one place: its tables checked ([`engines_file`]), the engine `ext:NAME` names in
//! it found ([`resolve_engine`]), and each engine of a run started once to check its
//! handshake before the first game ([`identify_engines`]).

use std::path::{Path, PathBuf};

use agent::ModelGame;
use game::{Othello, Rules};
use record::lines::LineError;
use runs::EngineTable;
use serde::Deserialize;

use super::engine_process::ExternalError;
use super::external::ExternalScorer;
use super::external_engine::{EngineTableError, ExternalEngine};
use super::player_spec::PlayerSpec;

/// An `--engines` file: `[[engine]]` tables.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct EnginesFile {
    #[serde(default, rename = "engine")]
    engines: Vec<EngineTable>,
}

/// Why an external engine named on the command line cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum EnginesFileError {
    /// The file cannot be read.
    #[error("cannot read --engines {}", .file.display())]
    Read {
        /// The file.
        file: PathBuf,
        /// Why.
        #[source]
        source: LineError,
    },
    /// The file is not `[[engine]]` tables.
    #[error(
        "bad --engines {}: expected [[engine]] tables (name, protocol, command, args, dir, depth or time_per_move, max_in_flight, timeout)",
        .file.display()
    )]
    Toml {
        /// The file.
        file: PathBuf,
        /// The parse error.
        #[source]
        source: toml::de::Error,
    },
    /// A table cannot be used.
    #[error("bad --engines {}", .file.display())]
    Table {
        /// The file.
        file: PathBuf,
        /// Why.
        #[source]
        source: EngineTableError,
    },
    /// The spec names no engine of the file, or one of another game.
    #[error("bad {flag} {text:?}: {problem}")]
    Spec {
        /// The flag that named it.
        flag: String,
        /// The spec given.
        text: String,
        /// What is wrong and what to do.
        problem: String,
    },
    /// An engine's handshake failed.
    #[error("bad {name}: its handshake failed")]
    Handshake {
        /// The engine.
        name: String,
        /// Why.
        #[source]
        source: Box<ExternalError>,
    },
}

/// The `[[engine]]` tables of the `--engines` file `file`.
fn read_tables(file: &Path) -> Result<Vec<EngineTable>, EnginesFileError> {
    let source = record::lines::read_file(file, record::lines::USER_LINE_CAP, record::lines::SETTINGS_FILE_CAP)
        .map_err(|source| EnginesFileError::Read {
            file: file.to_path_buf(),
            source,
        })?;
    let engines: EnginesFile = toml::from_str(&source).map_err(|source| EnginesFileError::Toml {
        file: file.to_path_buf(),
        source,
    })?;
    Ok(engines.engines)
}

/// The engine of `table`, from the `--engines` file `file`.
fn engine(table: EngineTable, file: &Path) -> Result<ExternalEngine, EnginesFileError> {
    ExternalEngine::new(table).map_err(|source| EnginesFileError::Table {
        file: file.to_path_buf(),
        source,
    })
}

/// Every engine of the `--engines` file `file` (none without one), for `serve`.
pub fn engines_file(file: Option<&Path>) -> Result<Vec<ExternalEngine>, EnginesFileError> {
    let Some(file) = file else { return Ok(Vec::new()) };
    read_tables(file)?
        .into_iter()
        .map(|table| engine(table, file))
        .collect()
}

/// The external engine `ext:NAME` (or `ext:NAME@STRENGTH`, as logs write it) names in
/// the `--engines` file `file`, for flag `flag`, in a game of `R`.
pub fn resolve_engine<R: Rules>(
    text: &str,
    flag: &str,
    file: Option<&Path>,
) -> Result<ExternalEngine, EnginesFileError> {
    let refuse = |problem: String| EnginesFileError::Spec {
        flag: flag.to_string(),
        text: text.to_string(),
        problem,
    };
    let name = text.trim().strip_prefix("ext:").unwrap_or(text).trim();
    let (name, strength) = name.split_once('@').unwrap_or((name, ""));
    if R::NAME != Othello::NAME {
        return Err(refuse(format!(
            "external engines play {}, not {}",
            Othello::NAME,
            R::NAME
        )));
    }
    let Some(file) = file else {
        return Err(refuse(
            "name the file of [[engine]] tables with --engines FILE".to_string(),
        ));
    };
    let tables = read_tables(file)?;
    let known: Vec<&str> = tables.iter().map(|t| t.name.as_str()).collect();
    let Some(table) = tables.iter().find(|t| t.name == name) else {
        return Err(refuse(format!(
            "--engines {} has no [[engine]] named {name:?} (it has: {})",
            file.display(),
            known.join(", ")
        )));
    };
    let engine = engine(table.clone(), file)?;
    if !strength.is_empty() && engine.name() != format!("ext:{name}@{strength}") {
        return Err(refuse(format!(
            "the table in --engines {} is {}; give ext:{name}",
            file.display(),
            engine.name()
        )));
    }
    Ok(engine)
}

/// Why `--reference` names no external engine that can value moves.
#[derive(Debug, thiserror::Error)]
pub enum ReferenceError {
    /// Not an external engine spec.
    #[error(
        "bad --reference {0:?}: give an external engine ext:NAME of --engines (our own reference is the default; set it with --exact-empties and --reference-depth)"
    )]
    NotExternal(String),
    /// No such engine in the `--engines` file.
    #[error(transparent)]
    Resolve(#[from] EnginesFileError),
    /// The engine cannot value moves (it does not speak NBoard).
    #[error("bad --reference {reference}")]
    Unfit {
        /// The spec as given.
        reference: String,
        /// Why.
        #[source]
        source: ExternalError,
    },
    /// Its handshake failed.
    #[error("bad --reference {name}: its handshake failed")]
    Handshake {
        /// The engine.
        name: String,
        /// Why.
        #[source]
        source: ExternalError,
    },
}

/// The external move-valuing reference `--reference ext:NAME` names in the `--engines`
/// file `engines`, for a game of `R`: one that values every move (NBoard), started once
/// here to check its handshake.
pub async fn reference_engine<R: Rules>(
    reference: &str,
    engines: Option<&Path>,
) -> Result<ExternalEngine, Box<ReferenceError>> {
    if !reference.trim().starts_with("ext:") {
        return Err(Box::new(ReferenceError::NotExternal(reference.to_string())));
    }
    let engine = resolve_engine::<R>(reference, "--reference", engines).map_err(ReferenceError::from)?;
    ExternalScorer::new(&engine, None).map_err(|source| ReferenceError::Unfit {
        reference: reference.to_string(),
        source,
    })?;
    engine.identify().await.map_err(|source| ReferenceError::Handshake {
        name: engine.name(),
        source,
    })?;
    Ok(engine)
}

/// Starts each external engine among `players` once and checks its handshake, so a
/// bad command fails before the first game and run.json records what it said it is.
pub async fn identify_engines<R: ModelGame>(players: &[PlayerSpec<R>]) -> Result<(), EnginesFileError> {
    for engine in players.iter().filter_map(PlayerSpec::external) {
        let id = engine.identify().await.map_err(|source| EnginesFileError::Handshake {
            name: engine.name(),
            source: Box::new(source),
        })?;
        tracing::debug!(engine = %engine.name(), name = %id.name, version = ?id.version, "external engine ready");
    }
    Ok(())
}
