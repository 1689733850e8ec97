//! Chat requests, tools and exchanges, shared by every backend; the messages, tool
//! calls and replies are the log format's (`record`, which also decodes a response
//! body, so that reading a log needs no HTTP client), re-exported here.
//!
//! The serde shapes are Ollama's `/api/chat` wire format; other backends convert.
//! Wire types accept whatever the server sends (`#[serde(default)]`, unknown
//! fields ignored) and leave out absent optional fields when sending.

use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use record::{
    ChatOptions, ChatReply, FunctionCall, Message, ParseThinkError, Role, Think, ThinkingTokens, ToolCall,
};

/// A tool offered to the model.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ToolSpec {
    /// Always `function`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// The function's name, description and JSON schema.
    pub function: FunctionSpec,
}

/// Name, description and parameter schema of a tool.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FunctionSpec {
    /// The tool's name.
    pub name: String,
    /// What it does, for the model.
    pub description: String,
    /// JSON schema of the arguments.
    pub parameters: Value,
}

/// One chat request, independent of the backend.
#[derive(Clone, Debug, PartialEq)]
pub struct ChatRequest {
    /// Model name.
    pub model: String,
    /// The conversation so far.
    pub messages: Vec<Message>,
    /// Tools offered (none in direct mode).
    pub tools: Vec<ToolSpec>,
    /// Sampling options.
    pub options: ChatOptions,
    /// Thinking switch, when set.
    pub think: Option<Think>,
    /// How long the server keeps the model loaded, when set (Ollama).
    pub keep_alive: Option<String>,
    /// A JSON schema the answer must follow (Ollama's `format`, OpenAI's
    /// `response_format`), when the answer is structured.
    pub format: Option<Value>,
    /// The host that answered this conversation's previous request, if any: a fleet
    /// sends the request there while it has room (its prompt cache is warm). Never sent.
    pub affinity: Option<String>,
}

/// One request/response round trip, with both bodies exactly as sent and received.
#[derive(Clone, Debug, PartialEq)]
pub struct Exchange {
    /// The request body as sent.
    pub request: Value,
    /// The response body as received (a JSON string value when it was not JSON).
    pub response: Value,
    /// The decoded answer.
    pub reply: ChatReply,
    /// Wall time of the successful HTTP attempt, in milliseconds.
    pub latency_ms: f64,
    /// Transient failures retried before this answer.
    pub retries: u32,
    /// The base URL of the server that answered.
    pub host: String,
    /// The failed attempts before the answer, in order (as many as `retries`).
    pub failures: Vec<AttemptFailure>,
}

impl Exchange {
    /// The model the reply names when it is not the one the request asked for.
    pub fn answered_by(&self) -> Option<&str> {
        self.reply
            .other_model(self.request["model"].as_str().unwrap_or_default())
    }
}

/// An attempt that failed before a request was answered (on the same host or another).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AttemptFailure {
    /// The base URL of the server tried.
    pub host: String,
    /// What went wrong.
    pub error: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thinking_reads_words_and_switches_and_writes_ollamas_value() {
        for (text, think) in [
            ("on", Think::Enabled(true)),
            ("OFF", Think::Enabled(false)),
            ("false", Think::Enabled(false)),
            (" High ", Think::Level("high".into())),
        ] {
            assert_eq!(text.parse::<Think>(), Ok(think), "{text}");
        }
        let message = "maybe".parse::<Think>().unwrap_err().to_string();
        assert!(message.contains("expected on, off, low, medium, high"), "{message}");
        for (json, think) in [
            ("true", Think::Enabled(true)),
            ("false", Think::Enabled(false)),
            ("\"max\"", Think::Level("max".into())),
        ] {
            assert_eq!(serde_json::to_string(&think).unwrap(), json);
            assert_eq!(serde_json::from_str::<Think>(json).unwrap(), think);
        }
        assert_eq!(serde_json::from_str::<Think>("\"on\"").unwrap(), Think::Enabled(true));
        assert!(serde_json::from_str::<Think>("3").is_err());
    }
}
