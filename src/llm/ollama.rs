//! The Ollama backend: `POST /api/chat` with `stream: false`.

use std::time::Duration;

use serde::Deserialize;
use serde_json::{json, Value};

use super::error::LlmError;
use super::http::{chat_exchange, http_client, status_error, transport_error, Target};
use super::retry::RetryPolicy;
use super::types::{ChatReply, ChatRequest, Exchange, Message};
use super::ChatBackend;

/// Talks to an Ollama server.
#[derive(Clone, Debug)]
pub struct OllamaBackend {
    base_url: String,
    http: reqwest::blocking::Client,
    timeout: Duration,
    retry: RetryPolicy,
}

/// Ollama's `/api/chat` answer (non-streaming); unknown fields are ignored.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct WireResponse {
    message: Message,
    done_reason: Option<String>,
    prompt_eval_count: Option<u64>,
    eval_count: Option<u64>,
    error: Option<String>,
}

impl OllamaBackend {
    /// A backend for the server at `base_url` (such as `http://127.0.0.1:11434`).
    pub fn new(base_url: &str, timeout: Duration, retry: RetryPolicy) -> Result<OllamaBackend, LlmError> {
        Ok(OllamaBackend {
            base_url: base_url.trim_end_matches('/').to_string(),
            http: http_client(timeout, base_url)?,
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
        let mut body = json!({
            "model": request.model,
            "messages": request.messages,
            "stream": false,
        });
        if !request.tools.is_empty() {
            body["tools"] = json!(request.tools);
        }
        if !request.options.is_empty() {
            body["options"] = json!(request.options);
        }
        if let Some(think) = &request.think {
            body["think"] = json!(think);
        }
        if let Some(keep_alive) = &request.keep_alive {
            body["keep_alive"] = json!(keep_alive);
        }
        body
    }

    /// Reads a 200 body into a reply; an `{"error": ...}` body (Ollama reports some
    /// failures inside a 200) or an undecodable one is an error message.
    pub fn parse_response(raw: &Value) -> Result<ChatReply, String> {
        let wire: WireResponse =
            serde_json::from_value(raw.clone()).map_err(|e| format!("not an Ollama chat response ({e})"))?;
        if let Some(message) = wire.error {
            return Err(format!("the server reported an error: {message}"));
        }
        Ok(ChatReply {
            message: wire.message,
            prompt_tokens: wire.prompt_eval_count,
            completion_tokens: wire.eval_count,
            done_reason: wire.done_reason,
        })
    }
}

impl ChatBackend for OllamaBackend {
    fn chat(&self, request: &ChatRequest) -> Result<Exchange, LlmError> {
        let url = format!("{}/api/chat", self.base_url);
        let target = Target {
            url: &url,
            base_url: &self.base_url,
            model: &request.model,
            timeout: self.timeout,
        };
        let body = OllamaBackend::wire_request(request);
        chat_exchange(
            &self.http,
            &target,
            None,
            &self.retry,
            body,
            OllamaBackend::parse_response,
        )
    }

    fn describe(&self) -> String {
        format!("ollama {}", self.base_url)
    }

    fn model_info(&self, model: &str) -> Option<Value> {
        OllamaBackend::model_info(self, model)
    }
}

impl OllamaBackend {
    /// `POST /api/create`: creates `model` from the request fields (`from`, `system`,
    /// `template`, `parameters`), calling `progress` with each streamed status line.
    pub fn create_model(&self, body: &Value, progress: &mut dyn FnMut(&str)) -> Result<(), LlmError> {
        use std::io::BufRead;
        let url = format!("{}/api/create", self.base_url);
        let model = body["model"].as_str().unwrap_or_default().to_string();
        let response = self
            .http
            .post(&url)
            .json(body)
            .send()
            .map_err(|e| transport_error(e, &url, self.timeout))?;
        let status = response.status();
        if !status.is_success() {
            let text = response.text().unwrap_or_default();
            let target = Target {
                url: &url,
                base_url: &self.base_url,
                model: &model,
                timeout: self.timeout,
            };
            return Err(status_error(status.as_u16(), &target, text, None));
        }
        let mut success = false;
        for line in std::io::BufReader::new(response).lines() {
            let line = line.map_err(|e| LlmError::Status {
                code: 502,
                url: url.clone(),
                body: format!("stream cut: {e}"),
                retry_after_s: None,
            })?;
            if line.trim().is_empty() {
                continue;
            }
            let value: Value = serde_json::from_str(&line).map_err(|source| LlmError::Decode {
                url: url.clone(),
                body: line.clone(),
                source,
            })?;
            if let Some(error) = value["error"].as_str() {
                return Err(LlmError::Status {
                    code: 400,
                    url: url.clone(),
                    body: error.to_string(),
                    retry_after_s: None,
                });
            }
            if let Some(status) = value["status"].as_str() {
                progress(status);
                success |= status == "success";
            }
        }
        if success {
            Ok(())
        } else {
            Err(LlmError::Status {
                code: 502,
                url,
                body: "the stream ended without \"success\"".into(),
                retry_after_s: None,
            })
        }
    }

    /// What the server knows of `model`: `details`, `capabilities`, `parameters` and
    /// `modified_at` from `POST /api/show`, and its `digest` from `GET /api/tags`.
    /// `None` when the server does not have the model (or is not Ollama).
    pub fn model_info(&self, model: &str) -> Option<Value> {
        let url = format!("{}/api/show", self.base_url);
        let show: Value = self
            .http
            .post(&url)
            .json(&json!({ "model": model }))
            .send()
            .ok()?
            .error_for_status()
            .ok()?
            .json()
            .ok()?;
        let tags: Value = self
            .http
            .get(format!("{}/api/tags", self.base_url))
            .send()
            .ok()
            .and_then(|r| r.json().ok())
            .unwrap_or(Value::Null);
        let wanted = if model.contains(':') {
            model.to_string()
        } else {
            format!("{model}:latest")
        };
        let digest = tags["models"]
            .as_array()
            .and_then(|models| {
                models
                    .iter()
                    .find(|m| m["name"] == wanted.as_str() || m["model"] == wanted.as_str())
            })
            .and_then(|m| m["digest"].as_str())
            .map(str::to_string);
        Some(json!({
            "digest": digest,
            "details": show["details"],
            "capabilities": show["capabilities"],
            "parameters": show["parameters"],
            "modified_at": show["modified_at"],
        }))
    }
}
