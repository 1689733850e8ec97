//! Chat messages, tool calls and requests, shared by every backend.
//!
//! The serde shapes are Ollama's `/api/chat` wire format; other backends convert.
//! Wire types accept whatever the server sends (`#[serde(default)]`, unknown
//! fields ignored) and leave out absent optional fields when sending.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Who wrote a message.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Instructions for the model.
    System,
    /// The harness, speaking for the user.
    #[default]
    User,
    /// The model.
    Assistant,
    /// A tool result.
    Tool,
}

/// One chat message.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Message {
    /// The author.
    pub role: Role,
    /// The text.
    pub content: String,
    /// The model's separate reasoning, when the server splits it out (logged, never parsed for a move).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub thinking: Option<String>,
    /// Structured tool calls.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    /// For a tool result: the tool's name (Ollama).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_name: Option<String>,
    /// For a tool result: the id of the call it answers (OpenAI-compatible servers).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
}

impl Message {
    /// A message with only a role and text.
    pub fn new(role: Role, content: impl Into<String>) -> Message {
        Message {
            role,
            content: content.into(),
            ..Message::default()
        }
    }

    /// A tool result answering `call`.
    pub fn tool_result(call: &ToolCall, content: impl Into<String>) -> Message {
        Message {
            role: Role::Tool,
            content: content.into(),
            tool_name: Some(call.function.name.clone()),
            tool_call_id: call.id.clone(),
            ..Message::default()
        }
    }
}

/// A tool call made by the model.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ToolCall {
    /// The call's id, when the server gives one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Which function, with what arguments.
    pub function: FunctionCall,
}

/// The function part of a tool call.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct FunctionCall {
    /// The tool's name.
    pub name: String,
    /// The arguments as the server sent them: an object (Ollama) or a JSON string (OpenAI).
    pub arguments: Value,
}

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

/// Whether and how much the model should think (Ollama's `think`): written as Ollama's
/// value (`true`, `false` or the level), read from that or from the `--think` words.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum Think {
    /// On or off.
    Enabled(bool),
    /// A level: low, medium, high (or max).
    Level(String),
}

/// A thinking setting that is neither on, off nor a level.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid thinking {text:?}: expected on, off, low, medium, high or max (or true, false)")]
pub struct ParseThinkError {
    /// The text given (trimmed, lowercase).
    pub text: String,
}

impl std::str::FromStr for Think {
    type Err = ParseThinkError;

    /// `on`/`true`, `off`/`false`, or a level (`low`, `medium`, `high`, `max`), any case.
    fn from_str(text: &str) -> Result<Think, ParseThinkError> {
        match text.trim().to_ascii_lowercase().as_str() {
            "true" | "on" => Ok(Think::Enabled(true)),
            "false" | "off" => Ok(Think::Enabled(false)),
            level @ ("low" | "medium" | "high" | "max") => Ok(Think::Level(level.to_string())),
            other => Err(ParseThinkError {
                text: other.to_string(),
            }),
        }
    }
}

impl<'de> Deserialize<'de> for Think {
    /// A boolean, or any text `Think` parses from (its `FromStr`).
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Think, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Given {
            Switch(bool),
            Text(String),
        }
        match Given::deserialize(deserializer)? {
            Given::Switch(on) => Ok(Think::Enabled(on)),
            Given::Text(text) => text.parse().map_err(serde::de::Error::custom),
        }
    }
}

/// Sampling and context options (Ollama's `options`; unset ones are left out).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChatOptions {
    /// Sampling temperature.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// Sampling seed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seed: Option<i64>,
    /// Context window in tokens.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub num_ctx: Option<u32>,
    /// Most tokens to generate per answer (-1: no limit).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub num_predict: Option<i32>,
    /// Nucleus sampling.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub top_p: Option<f64>,
    /// Top-k sampling.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub top_k: Option<u32>,
}

impl ChatOptions {
    /// Whether no option is set.
    pub fn is_empty(&self) -> bool {
        *self == ChatOptions::default()
    }
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

/// The model's answer to one request, independent of the backend.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ChatReply {
    /// The assistant message.
    pub message: Message,
    /// Tokens in the prompt, as the server counted them.
    pub prompt_tokens: Option<u64>,
    /// Tokens generated.
    pub completion_tokens: Option<u64>,
    /// Why generation stopped (`stop`, `length`, ...).
    pub done_reason: Option<String>,
    /// Of the generated tokens, those spent thinking, when the server counts them apart
    /// (OpenAI-compatible `usage.completion_tokens_details.reasoning_tokens`).
    pub thinking_tokens: Option<u64>,
    /// The model the reply says answered, where the API names it reliably (Ollama's
    /// `model`; OpenAI-compatible servers write aliases or file paths there, so none).
    pub model: Option<String>,
    /// What the server measured of the request, when it reports it (llama-server's
    /// `timings`, Ollama's counts and durations).
    pub server: Option<record::ServerWork>,
}

/// The generated tokens a reply spent thinking.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ThinkingTokens {
    /// How many.
    pub tokens: u64,
    /// Whether the server did not count them apart, so they are the generated tokens
    /// split by the share of characters that are thinking.
    pub estimated: bool,
}

impl ChatReply {
    /// The model the reply names when it is not `asked` (Ollama's implicit `:latest`
    /// tag aside): the host may serve another model than the one being measured.
    pub fn other_model(&self, asked: &str) -> Option<&str> {
        let untagged = |name: &str| name.strip_suffix(":latest").unwrap_or(name).to_string();
        let named = self.model.as_deref()?;
        (untagged(named) != untagged(asked)).then_some(named)
    }

    /// Whether generation stopped at the token limit (`done_reason` or `finish_reason`
    /// `length`): the answer was cut off, not finished.
    pub fn cut_off(&self) -> bool {
        self.done_reason.as_deref() == Some("length")
    }

    /// The thinking text's length in characters: the separate `thinking` field and
    /// the thinking written in the content.
    pub fn thinking_chars(&self) -> u64 {
        let field = self.message.thinking.as_deref().map_or(0, |t| t.chars().count());
        let (inline, _) = inline_thinking(&self.message.content);
        (field + inline.chars().count()) as u64
    }

    /// The generated tokens spent thinking: as the server counted them, else the
    /// generated tokens split by the thinking share of the characters (`estimated`);
    /// `None` when the reply did not think or the server counted no tokens.
    pub fn thinking_tokens(&self) -> Option<ThinkingTokens> {
        if let Some(tokens) = self.thinking_tokens {
            return Some(ThinkingTokens {
                tokens,
                estimated: false,
            });
        }
        let (thinking, generated) = (self.thinking_chars(), self.completion_tokens?);
        if thinking == 0 {
            return None;
        }
        let answer = inline_thinking(&self.message.content).1.chars().count() as u64;
        let share = thinking as f64 / (thinking + answer) as f64;
        Some(ThinkingTokens {
            tokens: (generated as f64 * share).round() as u64,
            estimated: true,
        })
    }
}

/// The thinking a content holds inline, and its answer: split at the last `</think>`;
/// a `<think>` never closed (cut off while thinking) makes the rest all thinking.
fn inline_thinking(content: &str) -> (&str, &str) {
    const END: &str = "</think>";
    if let Some(end) = content.rfind(END) {
        return (&content[..end], &content[end + END.len()..]);
    }
    match content.find("<think>") {
        Some(start) => (&content[start..], ""),
        None => ("", content),
    }
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
