//! A recorded reply read back: the chat messages of both APIs (Ollama's `/api/chat`
//! shape, which the logs keep) and the decoding of a response body as a server sent it
//! (Ollama's, or an OpenAI-compatible `/v1/chat/completions` one) into a [`ChatReply`].
//! The HTTP client (`llm`) decodes what it receives with the same functions that
//! `replay` and the watch page use to read a log, so a log reads as it was played, and
//! nothing that reads logs needs an HTTP client.
//!
//! The serde shapes accept whatever the server sends (`#[serde(default)]`, unknown
//! fields ignored) and leave out absent optional fields when written.

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
    pub server: Option<crate::ServerWork>,
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

/// Decodes a logged response body of either API (OpenAI-compatible bodies have
/// `choices`, Ollama's a `message`); `None` when it is neither.
pub fn decode_reply(raw: &Value) -> Option<ChatReply> {
    if raw.get("choices").is_some() {
        decode_openai(raw).ok()
    } else {
        decode_ollama(raw).ok()
    }
}

/// Ollama's `/api/chat` answer (non-streaming); unknown fields are ignored.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct OllamaResponse {
    /// Absent in anything that is not a chat answer (`{}`, `{"status": "ok"}`).
    message: Option<Message>,
    done_reason: Option<String>,
    prompt_eval_count: Option<u64>,
    /// Nanoseconds spent evaluating the prompt.
    prompt_eval_duration: Option<u64>,
    eval_count: Option<u64>,
    /// Nanoseconds spent generating.
    eval_duration: Option<u64>,
    error: Option<String>,
    model: Option<String>,
}

/// The work Ollama says it did: its counts with their durations (nanoseconds). Its
/// `prompt_eval_count` counts only the prompt tokens it evaluated, not those its cache
/// held; a reply without durations (an older server, a fully cached prompt that
/// reports no count) is not timed.
fn ollama_server_work(wire: &OllamaResponse) -> Option<crate::ServerWork> {
    const NS_PER_MS: f64 = 1e6;
    let (generated_tokens, generation_ns) = (wire.eval_count?, wire.eval_duration?);
    Some(crate::ServerWork {
        requests: 1,
        prompt_tokens: wire.prompt_eval_count.unwrap_or(0),
        prompt_ms: wire.prompt_eval_duration.unwrap_or(0) as f64 / NS_PER_MS,
        generated_tokens,
        generation_ms: generation_ns as f64 / NS_PER_MS,
    })
}

/// Decodes an Ollama `/api/chat` body (a 200) into a reply; an `{"error": ...}` body (Ollama reports some
/// failures inside a 200), an undecodable one or one without the answer's
/// `message` (a body that is not a chat answer: the host failed, the model did not
/// answer) is an error message.
pub fn decode_ollama(raw: &Value) -> Result<ChatReply, String> {
    let wire = OllamaResponse::deserialize(raw).map_err(|e| format!("not an Ollama chat response ({e})"))?;
    if let Some(message) = wire.error {
        return Err(format!("the server reported an error: {message}"));
    }
    let server = ollama_server_work(&wire);
    let Some(message) = wire.message else {
        return Err("not an Ollama chat response (it has no `message`): is the host an Ollama server?".into());
    };
    Ok(ChatReply {
        message,
        prompt_tokens: wire.prompt_eval_count,
        completion_tokens: wire.eval_count,
        done_reason: wire.done_reason,
        // Ollama counts thinking inside `eval_count`, never apart.
        thinking_tokens: None,
        server,
        model: wire.model,
    })
}

/// `/v1/chat/completions` answer; unknown fields are ignored, nulls read as absent.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct OpenAiResponse {
    choices: Option<Vec<OpenAiChoice>>,
    usage: Option<OpenAiUsage>,
    /// llama-server's own accounting of the request (other servers send none), read
    /// apart: timings in another shape leave the reply untimed, not unread.
    timings: Option<Value>,
}

/// llama-server's `timings`: the prompt tokens it processed after reusing its cache
/// (`prompt_n`; `cache_n` were reused) and the tokens it generated, each with its time.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct OpenAiTimings {
    prompt_n: Option<u64>,
    prompt_ms: Option<f64>,
    predicted_n: Option<u64>,
    predicted_ms: Option<f64>,
}

impl OpenAiTimings {
    /// The timings as the log keeps them; `None` unless all four are there and the
    /// times are finite and not negative.
    fn server_work(&self) -> Option<crate::ServerWork> {
        let time = |ms: Option<f64>| ms.filter(|ms| ms.is_finite() && *ms >= 0.0);
        Some(crate::ServerWork {
            requests: 1,
            prompt_tokens: self.prompt_n?,
            prompt_ms: time(self.prompt_ms)?,
            generated_tokens: self.predicted_n?,
            generation_ms: time(self.predicted_ms)?,
        })
    }
}

/// One choice of an answer.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct OpenAiChoice {
    message: Option<OpenAiMessage>,
    finish_reason: Option<String>,
}

/// The assistant message of a choice.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct OpenAiMessage {
    content: Option<String>,
    reasoning_content: Option<String>,
    tool_calls: Option<Vec<OpenAiToolCall>>,
}

/// A tool call as the server sends it.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct OpenAiToolCall {
    id: Option<String>,
    function: Option<OpenAiFunction>,
}

/// The function of a [`OpenAiToolCall`]; `arguments` kept as sent (a JSON string).
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct OpenAiFunction {
    name: Option<String>,
    arguments: Value,
}

/// Token counts.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct OpenAiUsage {
    prompt_tokens: Option<u64>,
    completion_tokens: Option<u64>,
    completion_tokens_details: Option<OpenAiTokenDetails>,
}

/// What the generated tokens were spent on.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct OpenAiTokenDetails {
    reasoning_tokens: Option<u64>,
}

/// Decodes an OpenAI-compatible `/v1/chat/completions` body (a 200) into a reply.
pub fn decode_openai(raw: &Value) -> Result<ChatReply, String> {
    let wire = OpenAiResponse::deserialize(raw).map_err(|e| format!("not a chat completion ({e})"))?;
    let choice = wire
        .choices
        .and_then(|choices| choices.into_iter().next())
        .ok_or("no choices in the response")?;
    let message = choice.message.unwrap_or_default();
    let tool_calls = message
        .tool_calls
        .unwrap_or_default()
        .into_iter()
        .map(|call| {
            let function = call.function.unwrap_or_default();
            ToolCall {
                id: call.id,
                function: FunctionCall {
                    name: function.name.unwrap_or_default(),
                    arguments: function.arguments,
                },
            }
        })
        .collect();
    let usage = wire.usage.unwrap_or_default();
    Ok(ChatReply {
        message: Message {
            role: Role::Assistant,
            content: message.content.unwrap_or_default(),
            thinking: message.reasoning_content.filter(|t| !t.is_empty()),
            tool_calls,
            ..Message::default()
        },
        prompt_tokens: usage.prompt_tokens,
        completion_tokens: usage.completion_tokens,
        done_reason: choice.finish_reason,
        thinking_tokens: usage.completion_tokens_details.and_then(|d| d.reasoning_tokens),
        server: wire
            .timings
            .and_then(|timings| OpenAiTimings::deserialize(timings).ok())
            .and_then(|timings| timings.server_work()),
        model: None,
    })
}
