//! The OpenAI-compatible backend: `POST /v1/chat/completions` (llama.cpp's
//! `llama-server`, vLLM, LM Studio).
//!
//! Differences from Ollama handled here: tool-call `arguments` travel as a JSON
//! string, every tool result carries the `tool_call_id` of its call, sampling options
//! are top-level fields (`num_predict` becomes `max_tokens`; `num_ctx` and
//! `keep_alive` have no equivalent and are not sent), `think` becomes
//! `chat_template_kwargs.enable_thinking` (or `reasoning_effort` for a level), and a
//! reply's `reasoning_content` is read as thinking. The API key goes in the
//! `Authorization` header only, never in a logged body.

use std::time::Duration;

use serde_json::{json, Map, Value};

use super::error::LlmError;
use super::http::{chat_exchange, http_client, Target};
use super::retry::RetryPolicy;
use super::types::{ChatReply, ChatRequest, Exchange, FunctionCall, Message, Role, Think, ToolCall};
use super::ChatBackend;

/// Talks to an OpenAI-compatible server.
#[derive(Clone)]
pub struct OpenAiBackend {
    base_url: String,
    api_key: Option<String>,
    http: reqwest::blocking::Client,
    timeout: Duration,
    retry: RetryPolicy,
}

impl std::fmt::Debug for OpenAiBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenAiBackend")
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .finish()
    }
}

impl OpenAiBackend {
    /// A backend for the server at `base_url` (with or without a trailing `/v1`).
    pub fn new(
        base_url: &str,
        api_key: Option<String>,
        timeout: Duration,
        retry: RetryPolicy,
    ) -> Result<Self, LlmError> {
        let trimmed = base_url.trim_end_matches('/');
        let base_url = trimmed.strip_suffix("/v1").unwrap_or(trimmed).to_string();
        Ok(OpenAiBackend {
            http: http_client(timeout, &base_url)?,
            base_url,
            api_key,
            timeout,
            retry,
        })
    }

    /// The request body exactly as it will be sent.
    pub fn wire_request(request: &ChatRequest) -> Value {
        let messages: Vec<Value> = request.messages.iter().map(wire_message).collect();
        let mut body = json!({ "model": request.model, "messages": messages, "stream": false });
        if !request.tools.is_empty() {
            body["tools"] = json!(request.tools);
        }
        let o = &request.options;
        let fields = [
            ("temperature", o.temperature.map(Value::from)),
            ("seed", o.seed.map(Value::from)),
            ("max_tokens", o.num_predict.filter(|n| *n > 0).map(Value::from)),
            ("top_p", o.top_p.map(Value::from)),
            ("top_k", o.top_k.map(Value::from)),
        ];
        for (key, value) in fields {
            if let Some(value) = value {
                body[key] = value;
            }
        }
        match &request.think {
            Some(Think::Enabled(on)) => body["chat_template_kwargs"] = json!({ "enable_thinking": on }),
            Some(Think::Level(level)) => body["reasoning_effort"] = json!(level),
            None => {}
        }
        body
    }

    /// Reads a 200 body into a reply.
    pub fn parse_response(raw: &Value) -> Result<ChatReply, String> {
        let choice = raw["choices"].get(0).ok_or("no choices in the response")?;
        let message = &choice["message"];
        let text = |v: &Value| v.as_str().map(str::to_string);
        let tool_calls = message["tool_calls"]
            .as_array()
            .map(|calls| {
                calls
                    .iter()
                    .map(|call| ToolCall {
                        id: text(&call["id"]),
                        function: FunctionCall {
                            name: text(&call["function"]["name"]).unwrap_or_default(),
                            arguments: call["function"]["arguments"].clone(),
                        },
                    })
                    .collect()
            })
            .unwrap_or_default();
        let count = |key: &str| raw["usage"][key].as_u64();
        Ok(ChatReply {
            message: Message {
                role: Role::Assistant,
                content: text(&message["content"]).unwrap_or_default(),
                thinking: text(&message["reasoning_content"]).filter(|t| !t.is_empty()),
                tool_calls,
                ..Message::default()
            },
            prompt_tokens: count("prompt_tokens"),
            completion_tokens: count("completion_tokens"),
            done_reason: text(&choice["finish_reason"]),
        })
    }
}

/// One message in OpenAI's shape.
fn wire_message(message: &Message) -> Value {
    let mut out = Map::new();
    out.insert("role".into(), json!(message.role));
    out.insert("content".into(), json!(message.content));
    if !message.tool_calls.is_empty() {
        let calls: Vec<Value> = message
            .tool_calls
            .iter()
            .enumerate()
            .map(|(i, call)| {
                let arguments = match &call.function.arguments {
                    Value::String(text) => text.clone(),
                    other => other.to_string(),
                };
                json!({
                    "id": call.id.clone().unwrap_or_else(|| format!("call-{i}")),
                    "type": "function",
                    "function": { "name": call.function.name, "arguments": arguments },
                })
            })
            .collect();
        out.insert("tool_calls".into(), Value::Array(calls));
    }
    if message.role == Role::Tool {
        let id = message.tool_call_id.clone().unwrap_or_else(|| "call-0".to_string());
        out.insert("tool_call_id".into(), json!(id));
    }
    Value::Object(out)
}

impl ChatBackend for OpenAiBackend {
    fn chat(&self, request: &ChatRequest) -> Result<Exchange, LlmError> {
        let url = format!("{}/v1/chat/completions", self.base_url);
        let target = Target {
            url: &url,
            base_url: &self.base_url,
            model: &request.model,
            timeout: self.timeout,
        };
        let body = OpenAiBackend::wire_request(request);
        chat_exchange(
            &self.http,
            &target,
            self.api_key.as_deref(),
            &self.retry,
            body,
            OpenAiBackend::parse_response,
        )
    }

    fn describe(&self) -> String {
        format!("openai {}", self.base_url)
    }
}
