//! External engines on the command line: `ext:NAME` names an `[[engine]]` table of
//! the `--engines FILE` (tournament files hold the same tables), and each engine is
//! started once before a run to check its command and record its handshake.

use std::path::Path;

use anyhow::{bail, Context, Result};
use serde::Deserialize;

use super::inputs::{read_user_file, SETTINGS_CAP};
use arena::{ExternalEngine, PlayerSpec};
use game::{Othello, Rules};
use runs::EngineTable;

/// An `--engines` file: `[[engine]]` tables.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct EnginesFile {
    #[serde(default, rename = "engine")]
    engines: Vec<EngineTable>,
}

/// The `[[engine]]` tables of the `--engines` file `file`.
fn read_tables(file: &Path) -> Result<Vec<EngineTable>> {
    let source = read_user_file("--engines", file, SETTINGS_CAP)?;
    let engines: EnginesFile = toml::from_str(&source).with_context(|| {
        format!(
            "bad --engines {}: expected [[engine]] tables (name, protocol, command, args, dir, depth or time_per_move, max_in_flight, timeout)",
            file.display()
        )
    })?;
    Ok(engines.engines)
}

/// Every engine of the `--engines` file `file` (none without one), for `serve`.
pub(super) fn all(file: Option<&Path>) -> Result<Vec<ExternalEngine>> {
    let Some(file) = file else { return Ok(Vec::new()) };
    read_tables(file)?
        .into_iter()
        .map(|table| ExternalEngine::new(table).with_context(|| format!("bad --engines {}", file.display())))
        .collect()
}

/// The external engine `ext:NAME` (or `ext:NAME@STRENGTH`, as logs write it) names in
/// the `--engines` file `file`, for flag `flag`, in a game of `R`.
pub(super) fn resolve<R: Rules>(text: &str, flag: &str, file: Option<&Path>) -> Result<ExternalEngine> {
    let name = text.trim().strip_prefix("ext:").unwrap_or(text).trim();
    let (name, strength) = name.split_once('@').unwrap_or((name, ""));
    if R::NAME != Othello::NAME {
        bail!(
            "bad {flag} {text:?}: external engines play {}, not {}",
            Othello::NAME,
            R::NAME
        );
    }
    let Some(file) = file else {
        bail!("bad {flag} {text:?}: name the file of [[engine]] tables with --engines FILE");
    };
    let tables = read_tables(file)?;
    let known: Vec<&str> = tables.iter().map(|t| t.name.as_str()).collect();
    let Some(table) = tables.iter().find(|t| t.name == name) else {
        bail!(
            "bad {flag} {text:?}: --engines {} has no [[engine]] named {name:?} (it has: {})",
            file.display(),
            known.join(", ")
        );
    };
    let engine = ExternalEngine::new(table.clone()).with_context(|| format!("bad --engines {}", file.display()))?;
    if !strength.is_empty() && engine.name() != format!("ext:{name}@{strength}") {
        bail!(
            "bad {flag} {text:?}: the table in --engines {} is {}; give ext:{name}",
            file.display(),
            engine.name()
        );
    }
    Ok(engine)
}

/// Starts each external engine among `players` once and checks its handshake, so a
/// bad command fails before the first game and run.json records what it said it is.
pub(super) async fn identify<R: game::Rules + agent::ModelGame>(players: &[PlayerSpec<R>]) -> Result<()> {
    for engine in players.iter().filter_map(PlayerSpec::external) {
        let id = engine
            .identify()
            .await
            .with_context(|| format!("bad {}: its handshake failed", engine.name()))?;
        tracing::debug!(engine = %engine.name(), name = %id.name, version = ?id.version, "external engine ready");
    }
    Ok(())
}
