//! Hosts that share one machine's cores take turns: CPU model servers on one machine
//! (llama-server, Ollama without a GPU) slow each other far below taking turns when
//! they compute at once (their threads spin on the same cores), so the hosts a user
//! puts in one group (`share_cores = "NAME"`, `--share-cores NAME`) hold at most one
//! request in flight between them, across every player and connection of the process.
//! Hosts in no group (remote servers, GPUs) are not held back.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use tokio::sync::Semaphore;

use super::error::LlmError;
use super::retry::RetryPolicy;
use super::types::{ChatRequest, Exchange};
use super::Endpoint;

/// The longest group name (a word a user writes, not a text).
pub(crate) const MAX_GROUP_NAME: usize = 64;

/// A `share_cores` group name that is none.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "bad share_cores {name:?}: name the group of hosts that share one machine's cores with a word of at most \
     {MAX_GROUP_NAME} letters, digits, '-', '_' or '.' (such as \"local\")"
)]
pub struct GroupNameError {
    /// The name as given.
    pub name: String,
}

/// Checks a group name: a word of letters, digits, `-`, `_`, `.`.
pub fn check_group_name(name: &str) -> Result<(), GroupNameError> {
    let word = !name.is_empty()
        && name.len() <= MAX_GROUP_NAME
        && name.chars().all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c));
    if word {
        Ok(())
    } else {
        Err(GroupNameError { name: name.to_string() })
    }
}

/// The turn of group `name`: one permit, shared by every host of the group in this
/// process.
fn turn_of(name: &str) -> Arc<Semaphore> {
    static GROUPS: OnceLock<Mutex<HashMap<String, Arc<Semaphore>>>> = OnceLock::new();
    let mut groups = GROUPS
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|p| p.into_inner());
    groups
        .entry(name.to_string())
        .or_insert_with(|| Arc::new(Semaphore::new(1)))
        .clone()
}

/// A host's client, taking turns with the other hosts of its `share_cores` group when
/// it is in one: each attempt waits for the group's turn, and its latency counts from
/// when it has it.
pub(crate) struct TakingTurns {
    inner: Arc<dyn Endpoint>,
    turn: Option<Arc<Semaphore>>,
}

impl TakingTurns {
    /// `endpoint` in group `group` (none: it never waits).
    pub(crate) fn new(endpoint: Arc<dyn Endpoint>, group: Option<&str>) -> TakingTurns {
        TakingTurns {
            inner: endpoint,
            turn: group.map(turn_of),
        }
    }
}

#[async_trait::async_trait]
impl Endpoint for TakingTurns {
    fn host(&self) -> &str {
        self.inner.host()
    }

    fn api(&self) -> &'static str {
        self.inner.api()
    }

    fn retry(&self) -> &RetryPolicy {
        self.inner.retry()
    }

    async fn attempt(&self, request: &ChatRequest) -> Result<Exchange, LlmError> {
        let _turn = match &self.turn {
            Some(turn) => Some(turn.acquire().await.expect("a group's turn is never closed")),
            None => None,
        };
        self.inner.attempt(request).await
    }

    async fn models(&self) -> Result<Vec<String>, LlmError> {
        self.inner.models().await
    }

    async fn model_info(&self, model: &str) -> Option<serde_json::Value> {
        self.inner.model_info(model).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn group_names_are_words() {
        for good in ["local", "laptop-1", "box_2.cpu"] {
            assert_eq!(check_group_name(good), Ok(()), "{good}");
        }
        for bad in ["", "two words", "a/b", &"x".repeat(MAX_GROUP_NAME + 1)] {
            let message = check_group_name(bad).unwrap_err().to_string();
            assert!(message.contains("such as \"local\""), "{message}");
        }
    }

    #[test]
    fn one_group_is_one_turn_and_groups_are_apart() {
        assert!(Arc::ptr_eq(&turn_of("t-same"), &turn_of("t-same")));
        assert!(!Arc::ptr_eq(&turn_of("t-same"), &turn_of("t-other")));
        assert_eq!(turn_of("t-fresh").available_permits(), 1);
    }
}
