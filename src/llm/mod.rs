//! Chat backends: typed messages, the Ollama `/api/chat` and OpenAI-compatible
//! `/v1/chat/completions` clients, retry policy.
//!
//! Every backend sits behind [`ChatBackend`], so the agent's loop, policy, logs and
//! statistics do not depend on the server's API.

mod error;
mod host;
mod http;
mod ollama;
mod openai;
mod retry;
mod types;

pub use error::{retry_class, LlmError, RetryClass};
pub use host::{ollama_base_url, ParseHostError, DEFAULT_OLLAMA_HOST};
pub use ollama::OllamaBackend;
pub use openai::OpenAiBackend;
pub use retry::RetryPolicy;
pub use types::{
    ChatOptions, ChatReply, ChatRequest, Exchange, FunctionCall, FunctionSpec, Message, Role, Think, ToolCall, ToolSpec,
};

/// A chat server: sends one request, returns the exchange with its raw bodies.
pub trait ChatBackend: Send + Sync {
    /// Sends `request`; transient failures are retried inside.
    fn chat(&self, request: &ChatRequest) -> Result<Exchange, LlmError>;

    /// What and where the backend is, for the run configuration.
    fn describe(&self) -> String;

    /// What the server knows of `model` (digest, details), when it can say.
    fn model_info(&self, _model: &str) -> Option<serde_json::Value> {
        None
    }
}

/// Decodes a logged response body of either API (OpenAI-compatible bodies have
/// `choices`, Ollama's a `message`); `None` when it is neither.
pub fn decode_reply(raw: &serde_json::Value) -> Option<ChatReply> {
    if raw.get("choices").is_some() {
        OpenAiBackend::parse_response(raw).ok()
    } else {
        OllamaBackend::parse_response(raw).ok()
    }
}
