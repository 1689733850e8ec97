//! The OpenAI-compatible backend: `POST /v1/chat/completions` (llama.cpp's
//! `llama-server`, vLLM, LM Studio, LiteLLM).
//!
//! Differences from Ollama handled here: tool-call `arguments` travel as a JSON
//! string, every tool result carries the `tool_call_id` of its call, sampling options
//! are top-level fields (`num_predict` becomes `max_tokens`; `num_ctx` and
//! `keep_alive` have no equivalent and are not sent), `think` becomes
//! `chat_template_kwargs.enable_thinking` (or `reasoning_effort` for a level), and a
//! reply's `reasoning_content` is read as thinking; a structured answer's schema
//! goes as `response_format: {"type": "json_schema", ...}` (Ollama: `format`). The API key goes in the
//! `Authorization` header only, never in a logged body.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::api::Api;
use super::error::LlmError;
use super::host::without_credentials;
use super::http::{chat_attempt, get_json, http_client, Target};
use super::retry::RetryPolicy;
use super::types::{ChatReply, ChatRequest, Exchange, Message, Role, Think, ToolSpec};
use super::{serves, Endpoint};

/// Talks to an OpenAI-compatible server.
#[derive(Clone)]
pub struct OpenAiBackend {
    base_url: String,
    api_key: Option<String>,
    /// The variable the key came from, for error messages.
    key_env: Option<String>,
    http: reqwest::Client,
    timeout: Duration,
    retry: RetryPolicy,
    /// `base_url` without credentials, for logs and messages.
    host: String,
}

impl std::fmt::Debug for OpenAiBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenAiBackend")
            .field("host", &self.host)
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .finish()
    }
}

/// `/v1/chat/completions` request body.
#[derive(Debug, Serialize)]
struct WireRequest<'a> {
    model: &'a str,
    messages: Vec<WireMessage<'a>>,
    stream: bool,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    tools: &'a [ToolSpec],
    #[serde(skip_serializing_if = "Option::is_none")]
    temperature: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    seed: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_tokens: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    top_p: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    top_k: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    chat_template_kwargs: Option<TemplateKwargs>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reasoning_effort: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    response_format: Option<ResponseFormat<'a>>,
}

/// `response_format` holding the answer to a JSON schema.
#[derive(Debug, Serialize)]
struct ResponseFormat<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    json_schema: JsonSchemaFormat<'a>,
}

/// The named schema of a [`ResponseFormat`].
#[derive(Debug, Serialize)]
struct JsonSchemaFormat<'a> {
    name: &'static str,
    strict: bool,
    schema: &'a Value,
}

/// llama-server's switch for thinking templates.
#[derive(Debug, Serialize)]
struct TemplateKwargs {
    enable_thinking: bool,
}

/// One message in OpenAI's shape.
#[derive(Debug, Serialize)]
struct WireMessage<'a> {
    role: Role,
    content: &'a str,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tool_calls: Vec<WireToolCall>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_call_id: Option<String>,
}

/// A tool call in a request's history: arguments as a JSON string.
#[derive(Debug, Serialize)]
struct WireToolCall {
    id: String,
    #[serde(rename = "type")]
    kind: &'static str,
    function: WireFunction,
}

/// The function of a [`WireToolCall`].
#[derive(Debug, Serialize)]
struct WireFunction {
    name: String,
    arguments: String,
}

/// `GET /v1/models`.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct WireModels {
    data: Vec<WireModel>,
}

/// One model of `/v1/models`.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct WireModel {
    id: String,
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
            host: without_credentials(&base_url),
            base_url,
            api_key,
            key_env: None,
            timeout,
            retry,
        })
    }

    /// The request body exactly as it will be sent.
    pub fn wire_request(request: &ChatRequest) -> Value {
        let o = &request.options;
        let wire = WireRequest {
            model: &request.model,
            messages: request.messages.iter().map(wire_message).collect(),
            stream: false,
            tools: &request.tools,
            temperature: o.temperature,
            seed: o.seed,
            max_tokens: o.num_predict.filter(|n| *n > 0),
            top_p: o.top_p,
            top_k: o.top_k,
            chat_template_kwargs: match &request.think {
                Some(Think::Enabled(on)) => Some(TemplateKwargs { enable_thinking: *on }),
                _ => None,
            },
            reasoning_effort: match &request.think {
                Some(Think::Level(level)) => Some(level),
                _ => None,
            },
            response_format: request.format.as_ref().map(|schema| ResponseFormat {
                kind: "json_schema",
                json_schema: JsonSchemaFormat {
                    name: "answer",
                    strict: true,
                    schema,
                },
            }),
        };
        serde_json::to_value(wire).expect("a chat request always serialises")
    }

    /// Decodes a response body ([`record::decode_openai`]).
    pub fn parse_response(raw: &Value) -> Result<ChatReply, String> {
        record::decode_openai(raw)
    }

    fn target<'a>(&'a self, url: &'a str, model: &'a str) -> Target<'a> {
        Target {
            url,
            base_url: &self.host,
            model,
            timeout: self.timeout,
            api: Api::Openai,
            key_env: self.key_env.as_deref(),
        }
    }

    /// Names the environment variable the API key came from, so that a refused or
    /// missing key is reported with the variable to set.
    pub fn with_key_env(mut self, name: &str) -> OpenAiBackend {
        self.key_env = Some(name.to_string());
        self
    }

    /// A 404's hint made precise by the server's model list: the model is missing
    /// (and which ones it has), or the server has it and the route is wrong, or the
    /// model list is not there either (the base URL is wrong).
    async fn not_found_hint(&self, url: &str, model: &str) -> String {
        const SHOWN: usize = 10;
        let (host, listed) = (&self.host, format!("{}/v1/models", self.host));
        match self.models().await {
            Ok(models) if serves(&models, model) => format!(
                "{url} answered 404 for model {model:?}, which {listed} lists, so the route is wrong: give \
                 --host the server's base URL (such as http://127.0.0.1:8080, with or without /v1)"
            ),
            Ok(models) if models.is_empty() => {
                format!("model {model:?} is not on {host}: {listed} lists no models; load one on the server")
            }
            Ok(models) => {
                let mut names = models.iter().take(SHOWN).cloned().collect::<Vec<_>>().join(", ");
                if models.len() > SHOWN {
                    names.push_str(&format!(" and {} more", models.len() - SHOWN));
                }
                format!("model {model:?} is not on {host}: {listed} lists {names}; use one of those as llm:MODEL")
            }
            Err(err) => format!(
                "{url} answered 404 for model {model:?}, and {listed} does not answer either ({err}): check \
                 that --host is the server's base URL (such as http://127.0.0.1:8080, with or without /v1) and \
                 that it speaks the OpenAI API (an Ollama server: --api ollama)"
            ),
        }
    }
}

/// One message in OpenAI's shape: tool-call arguments as a string, ids on calls and
/// on tool results.
fn wire_message(message: &Message) -> WireMessage<'_> {
    let tool_calls = message
        .tool_calls
        .iter()
        .enumerate()
        .map(|(i, call)| WireToolCall {
            id: call.id.clone().unwrap_or_else(|| format!("call-{i}")),
            kind: "function",
            function: WireFunction {
                name: call.function.name.clone(),
                arguments: match &call.function.arguments {
                    Value::String(text) => text.clone(),
                    other => other.to_string(),
                },
            },
        })
        .collect();
    WireMessage {
        role: message.role,
        content: &message.content,
        tool_calls,
        tool_call_id: (message.role == Role::Tool)
            .then(|| message.tool_call_id.clone().unwrap_or_else(|| "call-0".to_string())),
    }
}

#[async_trait::async_trait]
impl Endpoint for OpenAiBackend {
    fn host(&self) -> &str {
        &self.host
    }

    fn api(&self) -> &'static str {
        "openai"
    }

    fn retry(&self) -> &RetryPolicy {
        &self.retry
    }

    async fn attempt(&self, request: &ChatRequest) -> Result<Exchange, LlmError> {
        let url = format!("{}/v1/chat/completions", self.base_url);
        let body = OpenAiBackend::wire_request(request);
        let target = self.target(&url, &request.model);
        let result = chat_attempt(
            &self.http,
            &target,
            self.api_key.as_deref(),
            body,
            OpenAiBackend::parse_response,
        )
        .await;
        match result {
            Err(LlmError::ModelNotFound { model, host, body, .. }) => Err(LlmError::ModelNotFound {
                hint: self.not_found_hint(&url, &model).await,
                model,
                host,
                body,
            }),
            other => other,
        }
    }

    async fn models(&self) -> Result<Vec<String>, LlmError> {
        let url = format!("{}/v1/models", self.base_url);
        let answered = get_json(&self.http, &self.target(&url, ""), self.api_key.as_deref()).await?;
        let models = WireModels::deserialize(&answered.raw).map_err(|e| LlmError::UnexpectedReply {
            url,
            reason: format!("not a model list ({e})"),
            body: answered.text,
        })?;
        Ok(models.data.into_iter().map(|m| m.id).collect())
    }
}
