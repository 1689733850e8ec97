//! A tournament file's `[[llm]]` table ([`LlmEntry`]): the model, its name, its agent
//! file, its grid of agent settings and its hosts (the host flags' keys), each host
//! value held to its flag's range.

use std::path::PathBuf;

use llm::HostOptions;
use serde::Deserialize;

/// One LLM player of a tournament file (or one per combination of its grid).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LlmEntry {
    /// The model (`llm:MODEL`).
    pub model: String,
    /// Tells apart two players of one model (`llm:MODEL@NAME` in logs and tables).
    pub name: Option<String>,
    /// Its agent file.
    pub agent_file: Option<PathBuf>,
    /// Agent settings with several values each: one player per combination.
    pub grid: Option<runs::Grid>,
    /// Its server: the host flags' keys (`api`, `host`, `fleet`, `max_in_flight`,
    /// `api_key_env`, `timeout`, `max_retries`), each left out the flag's default.
    #[serde(flatten)]
    pub hosts: HostOptions,
}

impl LlmEntry {
    /// Refuses a host value out of its flag's range (the message names the key).
    pub fn check_hosts(&self) -> Result<(), String> {
        crate::connection::check_ranges(&self.hosts).map_err(|(key, e)| format!("{key} = {e}"))
    }

    /// Whether its players are named by their thinking level: not when its grid
    /// varies the level, which then names them in its own parts
    /// ([`crate::llm_player_name`]).
    pub fn think_named(&self) -> bool {
        !self.grid.as_ref().is_some_and(|grid| grid.varies("think"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An `[[llm]]` table's host keys are the host flags', read in place; a key that is
    /// neither a host flag nor the table's own is refused.
    #[test]
    fn an_llm_table_reads_its_host_keys_and_refuses_others() {
        let entry: LlmEntry = toml::from_str("model = \"m\"\nhost = [\"h:1\"]\ntimeout = 5.0\n").unwrap();
        assert_eq!(
            (entry.hosts.host.as_slice(), entry.hosts.timeout),
            (&["h:1".to_string()][..], 5.0)
        );
        assert_eq!(
            entry.hosts.max_retries,
            HostOptions::MAX_RETRIES,
            "a key left out is the flag's default"
        );
        let err = toml::from_str::<LlmEntry>("model = \"m\"\nhosts = [\"h:1\"]\n").unwrap_err();
        assert!(err.to_string().contains("unknown field `hosts`"), "{err}");
        let entry: LlmEntry = toml::from_str("model = \"m\"\nmax_in_flight = 0\n").unwrap();
        let err = entry.check_hosts().unwrap_err();
        assert!(err.starts_with("max_in_flight = 0 is out of range"), "{err}");
    }
}
