//! The APIs a model server may speak.

use serde::{Deserialize, Serialize};

/// The API a host speaks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Api {
    /// Ollama's `/api/chat`.
    #[default]
    Ollama,
    /// An OpenAI-compatible `/v1/chat/completions` (llama-server, vLLM, LiteLLM).
    Openai,
}

impl std::str::FromStr for Api {
    type Err = String;
    fn from_str(s: &str) -> Result<Api, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "ollama" => Ok(Api::Ollama),
            "openai" => Ok(Api::Openai),
            other => Err(format!("unknown api {other:?}: expected ollama or openai")),
        }
    }
}

impl std::fmt::Display for Api {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Api::Ollama => "ollama",
            Api::Openai => "openai",
        })
    }
}
