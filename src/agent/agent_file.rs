//! An agent file ([`AgentFile`]): the agent settings under the flags' names, and the
//! server to ask; read from a path or, when no file is there, the binary's own copy of a
//! shipped one ([`AgentFile::read`]), its values held to their ranges. The agent
//! settings as data ([`AgentSource`]: the agent file, the settings given over it, the
//! external engines' file) resolved into one [`AgentConfig`] ([`AgentSource::config`]).

use std::path::{Path, PathBuf};

use llm::Api;
use record::lines::{read_user_file_or_built_in, UserFileError, SETTINGS_FILE_CAP};
use serde::Deserialize;
use settings::{shipped, AgentConfig, AgentSettings, RangeError, SettingsError, ShippedKind};

use crate::ModelGame;

/// An agent file: the agent settings, and the server (`api`, `host`: a comma list)
/// used unless the host flags name one.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AgentFile {
    /// The server's API.
    #[serde(default, deserialize_with = "record::by_its_parser")]
    pub api: Option<Api>,
    /// The server address(es), comma-separated.
    pub host: Option<String>,
    /// The agent settings.
    #[serde(flatten)]
    pub agent: AgentSettings,
}

/// An agent file that cannot be used (each message names `--agent-file`, as a
/// tournament's `agent_file` key is that flag).
#[derive(Debug, thiserror::Error)]
pub enum AgentFileError {
    /// The file cannot be read.
    #[error(transparent)]
    Read(#[from] UserFileError),
    /// The file is not the agent settings' TOML.
    #[error("bad --agent-file {}: fix the TOML (keys are the flag names, options under [options])", .path.display())]
    Toml {
        /// The file.
        path: PathBuf,
        /// The parse error.
        #[source]
        source: toml::de::Error,
    },
    /// A setting out of its range.
    #[error("bad {key} in --agent-file: {message}")]
    Setting {
        /// Its key.
        key: &'static str,
        /// The value and the range.
        message: String,
    },
    /// A model option of `[options]` out of its range.
    #[error("bad [options] in --agent-file: {key}: {message}")]
    Option {
        /// Its key under `[options]`.
        key: &'static str,
        /// The value and the range.
        message: String,
    },
}

impl AgentFile {
    /// The agent file at `path`, or, when no file is there and `path` names a shipped
    /// agent file (`prompts/small-model.toml`, `small-model`), the binary's own copy;
    /// read within the settings files' caps, its values held to their ranges
    /// ([`AgentSettings::check`]).
    pub fn read(path: &Path) -> Result<AgentFile, AgentFileError> {
        let built_in = path
            .to_str()
            .and_then(shipped)
            .filter(|f| f.kind == ShippedKind::AgentFile);
        let text = read_user_file_or_built_in("--agent-file", path, built_in.map(|f| f.text), SETTINGS_FILE_CAP)?;
        let file: AgentFile = toml::from_str(&text).map_err(|source| AgentFileError::Toml {
            path: path.to_path_buf(),
            source,
        })?;
        file.agent.check().map_err(|e| match e {
            RangeError::Setting { key, message } => AgentFileError::Setting { key, message },
            RangeError::Option { key, message } => AgentFileError::Option { key, message },
        })?;
        Ok(file)
    }
}

/// An `llm:MODEL` player's settings as data, as the agent flags give them: the agent
/// file, the settings given over it, and the external engines' file that an `ext:NAME`
/// spec names its engine in (which `arena` reads). Nothing is read until asked: a file
/// no player needs is never opened.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AgentSource {
    /// The agent file (`--agent-file`; a path, or a shipped file's name).
    pub file: Option<PathBuf>,
    /// The settings given over the file's (each `None` one is the file's, else
    /// [`AgentConfig::default`]'s).
    pub settings: AgentSettings,
    /// The file of `[[engine]]` tables (`--engines`).
    pub engines: Option<PathBuf>,
}

/// Agent settings that cannot be used: the agent file's fault, or the settings'.
#[derive(Debug, thiserror::Error)]
pub enum AgentSourceError {
    /// The agent file.
    #[error(transparent)]
    File(#[from] AgentFileError),
    /// The settings, the file's and the given ones together.
    #[error(transparent)]
    Settings(#[from] SettingsError),
}

impl AgentSource {
    /// The agent file, read and checked ([`AgentFile::read`]); none given: an empty one.
    pub fn file(&self) -> Result<AgentFile, AgentFileError> {
        self.file
            .as_deref()
            .map_or_else(|| Ok(AgentFile::default()), AgentFile::read)
    }

    /// The agent settings for `model` playing game `R`: the given settings over the
    /// agent file's ([`AgentSettings::over`]), resolved by [`AgentSettings::config`];
    /// `prompts` is the folder prompt names resolve in.
    pub fn config<R: ModelGame>(&self, model: &str, prompts: &Path) -> Result<AgentConfig, AgentSourceError> {
        let file = self.file()?;
        Ok(self.settings.over(&file.agent).config::<R>(model, prompts)?)
    }
}

#[cfg(test)]
#[path = "agent_file_tests.rs"]
mod tests;
