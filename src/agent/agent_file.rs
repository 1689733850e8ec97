//! An agent file ([`AgentFile`]): the agent settings under the flags' names, and the
//! server to ask.

use llm::Api;
use serde::Deserialize;
use settings::AgentSettings;

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

#[cfg(test)]
#[path = "agent_file_tests.rs"]
mod tests;
