//! The Ollama backend: `POST /api/chat` with `stream: false`.

use std::time::{Duration, Instant};

use serde::Deserialize;
use serde_json::{json, Value};

use super::error::LlmError;
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

    fn attempt(&self, url: &str, model: &str, body: &Value) -> Result<(Value, ChatReply, f64), LlmError> {
        let start = Instant::now();
        let response = self
            .http
            .post(url)
            .json(body)
            .send()
            .map_err(|e| transport_error(e, url, self.timeout))?;
        let status = response.status();
        let retry_after_s = retry_after(&response);
        let text = response.text().map_err(|e| transport_error(e, url, self.timeout))?;
        let latency_ms = start.elapsed().as_secs_f64() * 1000.0;
        if !status.is_success() {
            return Err(status_error(
                status.as_u16(),
                url,
                &self.base_url,
                model,
                text,
                retry_after_s,
            ));
        }
        let raw: Value = serde_json::from_str(&text).map_err(|source| LlmError::Decode {
            url: url.to_string(),
            body: text.clone(),
            source,
        })?;
        let wire: WireResponse = serde_json::from_value(raw.clone()).map_err(|source| LlmError::Decode {
            url: url.to_string(),
            body: text.clone(),
            source,
        })?;
        if let Some(message) = wire.error {
            // Ollama reports some failures inside a 200 body.
            return Err(LlmError::Status {
                code: 500,
                url: url.to_string(),
                body: message,
                retry_after_s: None,
            });
        }
        let reply = ChatReply {
            message: wire.message,
            prompt_tokens: wire.prompt_eval_count,
            completion_tokens: wire.eval_count,
            done_reason: wire.done_reason,
        };
        Ok((raw, reply, latency_ms))
    }
}

impl ChatBackend for OllamaBackend {
    fn chat(&self, request: &ChatRequest) -> Result<Exchange, LlmError> {
        let url = format!("{}/api/chat", self.base_url);
        let body = OllamaBackend::wire_request(request);
        let ((response, reply, latency_ms), retries) = self.retry.run(|| self.attempt(&url, &request.model, &body))?;
        Ok(Exchange {
            request: body,
            response,
            reply,
            latency_ms,
            retries,
        })
    }

    fn describe(&self) -> String {
        format!("ollama {}", self.base_url)
    }
}

/// A blocking HTTP client with a per-request timeout.
pub(crate) fn http_client(timeout: Duration, url: &str) -> Result<reqwest::blocking::Client, LlmError> {
    reqwest::blocking::Client::builder()
        .timeout(timeout)
        .connect_timeout(timeout.min(Duration::from_secs(10)))
        .build()
        .map_err(|source| LlmError::Transport {
            url: url.to_string(),
            source,
        })
}

/// Classifies a reqwest failure.
pub(crate) fn transport_error(err: reqwest::Error, url: &str, timeout: Duration) -> LlmError {
    if err.is_timeout() {
        LlmError::Timeout {
            url: url.to_string(),
            timeout_s: timeout.as_secs_f64(),
        }
    } else if err.is_connect() {
        LlmError::Connect {
            url: url.to_string(),
            source: err,
        }
    } else {
        LlmError::Transport {
            url: url.to_string(),
            source: err,
        }
    }
}

/// Seconds from a `Retry-After: <seconds>` header.
pub(crate) fn retry_after(response: &reqwest::blocking::Response) -> Option<f64> {
    response
        .headers()
        .get(reqwest::header::RETRY_AFTER)?
        .to_str()
        .ok()?
        .trim()
        .parse()
        .ok()
}

/// Maps an error status to the error that names its fix.
pub(crate) fn status_error(
    code: u16,
    url: &str,
    host: &str,
    model: &str,
    body: String,
    retry_after_s: Option<f64>,
) -> LlmError {
    let lower = body.to_ascii_lowercase();
    if code == 404 && lower.contains("not found") {
        LlmError::ModelNotFound {
            model: model.to_string(),
            host: host.to_string(),
            body,
        }
    } else if code == 400 && lower.contains("does not support tools") {
        LlmError::ToolsUnsupported {
            model: model.to_string(),
            body,
        }
    } else if code == 400 && lower.contains("does not support thinking") {
        LlmError::ThinkingUnsupported {
            model: model.to_string(),
            body,
        }
    } else {
        LlmError::Status {
            code,
            url: url.to_string(),
            body,
            retry_after_s,
        }
    }
}
