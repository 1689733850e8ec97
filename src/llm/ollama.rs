//! The Ollama backend: `POST /api/chat` with `stream: false`.

use std::time::Duration;

use futures_util::StreamExt;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::api::Api;
use super::error::LlmError;
use super::host::without_credentials;
use super::http::{chat_attempt, get_json, http_client, post_json, status_error, transport_error, Target};
use super::modelfile::Modelfile;
use super::retry::RetryPolicy;
use super::types::{ChatOptions, ChatReply, ChatRequest, Exchange, Message, Think, ToolSpec};
use super::{tagged, Endpoint};

/// Talks to an Ollama server.
#[derive(Clone, Debug)]
pub struct OllamaBackend {
    base_url: String,
    http: reqwest::Client,
    timeout: Duration,
    retry: RetryPolicy,
    /// `base_url` without credentials, for logs and messages.
    host: String,
}

/// Ollama's `/api/chat` request body.
#[derive(Debug, Serialize)]
struct WireRequest<'a> {
    model: &'a str,
    messages: &'a [Message],
    stream: bool,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    tools: &'a [ToolSpec],
    #[serde(skip_serializing_if = "ChatOptions::is_empty")]
    options: &'a ChatOptions,
    #[serde(skip_serializing_if = "Option::is_none")]
    format: Option<&'a Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    think: Option<&'a Think>,
    #[serde(skip_serializing_if = "Option::is_none")]
    keep_alive: Option<&'a str>,
}

/// `GET /api/tags`: the models on the server.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct WireTags {
    models: Vec<WireTag>,
}

/// One model in `/api/tags`.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct WireTag {
    name: String,
    model: String,
    digest: Option<String>,
}

/// `POST /api/show`'s body.
#[derive(Debug, Serialize)]
struct WireShow<'a> {
    model: &'a str,
}

/// One line of `/api/create`'s streamed progress.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct WireProgress {
    status: Option<String>,
    error: Option<String>,
}

impl OllamaBackend {
    /// A backend for the server at `base_url` (such as `http://127.0.0.1:11434`).
    pub fn new(base_url: &str, timeout: Duration, retry: RetryPolicy) -> Result<OllamaBackend, LlmError> {
        let base_url = base_url.trim_end_matches('/').to_string();
        Ok(OllamaBackend {
            host: without_credentials(&base_url),
            http: http_client(timeout, &base_url)?,
            base_url,
            timeout,
            retry,
        })
    }

    /// The server's base URL.
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// The request body exactly as it will be sent.
    pub fn wire_request(request: &ChatRequest) -> Value {
        let wire = WireRequest {
            model: &request.model,
            messages: &request.messages,
            stream: false,
            tools: &request.tools,
            options: &request.options,
            format: request.format.as_ref(),
            think: request.think.as_ref(),
            keep_alive: request.keep_alive.as_deref(),
        };
        serde_json::to_value(wire).expect("a chat request always serialises")
    }

    /// Decodes a response body ([`record::decode_ollama`]).
    pub fn parse_response(raw: &Value) -> Result<ChatReply, String> {
        record::decode_ollama(raw)
    }

    fn target<'a>(&'a self, url: &'a str, model: &'a str) -> Target<'a> {
        Target {
            url,
            base_url: &self.host,
            model,
            timeout: self.timeout,
            api: Api::Ollama,
            key_env: None,
        }
    }

    async fn tags(&self) -> Result<WireTags, LlmError> {
        let url = format!("{}/api/tags", self.base_url);
        let answered = get_json(&self.http, &self.target(&url, ""), None).await?;
        WireTags::deserialize(&answered.raw).map_err(|e| LlmError::UnexpectedReply {
            url,
            reason: format!("not an Ollama model list ({e})"),
            body: answered.text,
        })
    }

    /// `POST /api/create` of `modelfile` as `model`, calling `progress` with each
    /// streamed status line.
    pub async fn create_model(
        &self,
        model: &str,
        modelfile: &Modelfile,
        progress: &mut dyn FnMut(&str),
    ) -> Result<(), LlmError> {
        let url = format!("{}/api/create", self.base_url);
        let response = self
            .http
            .post(&url)
            .json(&modelfile.create_request(model))
            .send()
            .await
            .map_err(|e| transport_error(e, &url, self.timeout))?;
        let status = response.status();
        if !status.is_success() {
            let text = response.text().await.unwrap_or_default();
            return Err(status_error(
                status.as_u16(),
                &self.target(&url, model),
                text,
                None,
                false,
            ));
        }
        let mut success = false;
        let mut buffer = Vec::new();
        let mut chunks = response.bytes_stream();
        while let Some(chunk) = chunks.next().await {
            buffer.extend_from_slice(&chunk.map_err(|e| transport_error(e, &url, self.timeout))?);
            while let Some(end) = buffer.iter().position(|&b| b == b'\n') {
                let line: Vec<u8> = buffer.drain(..=end).collect();
                success |= progress_line(&url, &line, progress)?;
            }
        }
        success |= progress_line(&url, &buffer, progress)?;
        if success {
            Ok(())
        } else {
            Err(LlmError::UnexpectedReply {
                url,
                reason: "the progress stream ended without \"success\"".into(),
                body: String::new(),
            })
        }
    }
}

/// Reads one line of `/api/create` progress: passes its status on, and says whether it
/// was the final "success".
fn progress_line(url: &str, line: &[u8], progress: &mut dyn FnMut(&str)) -> Result<bool, LlmError> {
    let line = String::from_utf8_lossy(line);
    if line.trim().is_empty() {
        return Ok(false);
    }
    let decoded: WireProgress = serde_json::from_str(&line).map_err(|source| LlmError::Decode {
        url: url.to_string(),
        body: line.to_string(),
        source,
    })?;
    if let Some(error) = decoded.error {
        return Err(LlmError::Status {
            code: 400,
            url: url.to_string(),
            body: error,
            retry_after_s: None,
        });
    }
    let Some(status) = decoded.status else {
        return Ok(false);
    };
    progress(&status);
    Ok(status == "success")
}

#[async_trait::async_trait]
impl Endpoint for OllamaBackend {
    fn host(&self) -> &str {
        &self.host
    }

    fn api(&self) -> &'static str {
        "ollama"
    }

    fn retry(&self) -> &RetryPolicy {
        &self.retry
    }

    async fn attempt(&self, request: &ChatRequest) -> Result<Exchange, LlmError> {
        let url = format!("{}/api/chat", self.base_url);
        let body = OllamaBackend::wire_request(request);
        let target = self.target(&url, &request.model);
        chat_attempt(&self.http, &target, None, body, OllamaBackend::parse_response).await
    }

    async fn models(&self) -> Result<Vec<String>, LlmError> {
        let tags = self.tags().await?;
        Ok(tags
            .models
            .into_iter()
            .flat_map(|m| [m.name, m.model])
            .filter(|n| !n.is_empty())
            .collect())
    }

    /// What the server knows of `model`: `details`, `capabilities`, `parameters` and
    /// `modified_at` from `POST /api/show`, and its `digest` from `GET /api/tags`.
    /// `None` when the server does not have the model (or is not Ollama).
    async fn model_info(&self, model: &str) -> Option<Value> {
        let url = format!("{}/api/show", self.base_url);
        let show = post_json(&self.http, &self.target(&url, model), &WireShow { model }, None)
            .await
            .ok()?
            .raw;
        let tags = self.tags().await.unwrap_or_default();
        let wanted = tagged(model);
        let digest = tags
            .models
            .into_iter()
            .find(|m| m.name == wanted || m.model == wanted)
            .and_then(|m| m.digest);
        Some(serde_json::json!({
            "digest": digest,
            "details": show["details"],
            "capabilities": show["capabilities"],
            "parameters": show["parameters"],
            "modified_at": show["modified_at"],
        }))
    }
}
