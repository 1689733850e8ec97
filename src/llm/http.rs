//! The HTTP round trip shared by the backends: one POST of a JSON body, with every
//! failure mapped to the [`LlmError`] that names its fix.

use std::io::Read;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::error::LlmError;
use super::retry::RetryPolicy;
use super::types::{ChatReply, Exchange};

/// Where a request goes, for the request and its error messages.
pub(crate) struct Target<'a> {
    /// The full endpoint URL.
    pub url: &'a str,
    /// The server's base URL.
    pub base_url: &'a str,
    /// The model asked for.
    pub model: &'a str,
    /// The request timeout.
    pub timeout: Duration,
}

/// One chat round trip shared by the backends: POSTs `body` (retrying transient
/// failures under `retry`), decodes the answer with `parse`, and keeps both bodies.
/// An answer `parse` rejects is a (transient) 502 carrying the body as received.
pub(crate) fn chat_exchange(
    http: &reqwest::blocking::Client,
    target: &Target<'_>,
    bearer: Option<&str>,
    retry: &RetryPolicy,
    body: Value,
    parse: fn(&Value) -> Result<ChatReply, String>,
) -> Result<Exchange, LlmError> {
    let attempt = || -> Result<(Value, ChatReply, f64), LlmError> {
        let (raw, text, latency_ms) = post_json(http, target, &body, bearer)?;
        let reply = parse(&raw).map_err(|why| LlmError::Status {
            code: 502,
            url: target.url.to_string(),
            body: format!("{why}: {text}"),
            retry_after_s: None,
        })?;
        Ok((raw, reply, latency_ms))
    };
    let ((response, reply, latency_ms), retries) = retry.run(attempt)?;
    Ok(Exchange {
        request: body,
        response,
        reply,
        latency_ms,
        retries,
    })
}

/// POSTs `body` as JSON (with a bearer token when given) and returns the decoded JSON
/// answer, its text as received, and the latency in milliseconds.
fn post_json(
    http: &reqwest::blocking::Client,
    target: &Target<'_>,
    body: &Value,
    bearer: Option<&str>,
) -> Result<(Value, String, f64), LlmError> {
    let url = target.url;
    let start = Instant::now();
    let mut request = http.post(url).json(body);
    if let Some(token) = bearer {
        request = request.bearer_auth(token);
    }
    let response = request.send().map_err(|e| transport_error(e, url, target.timeout))?;
    let status = response.status();
    let retry_after_s = retry_after(&response);
    let mut text = read_body(response, url, target.timeout)?;
    if let Some(token) = bearer.filter(|t| !t.is_empty() && text.contains(*t)) {
        // A proxy that echoes the Authorization header must not put the key in a log
        // line or an error message.
        text = text.replace(token, REDACTED);
    }
    let latency_ms = start.elapsed().as_secs_f64() * 1000.0;
    if !status.is_success() {
        return Err(status_error(status.as_u16(), target, text, retry_after_s));
    }
    let raw: Value = serde_json::from_str(&text).map_err(|source| LlmError::Decode {
        url: url.to_string(),
        body: text.clone(),
        source,
    })?;
    Ok((raw, text, latency_ms))
}

/// What an API key echoed back by a server is replaced with.
pub const REDACTED: &str = "[api key redacted]";

/// The longest answer body read: far beyond any chat answer (a model that rambles to
/// its context limit writes well under a megabyte), small enough to never exhaust memory.
pub const MAX_RESPONSE_BYTES: u64 = 16 << 20;

/// Reads an answer body of at most [`MAX_RESPONSE_BYTES`].
fn read_body(response: reqwest::blocking::Response, url: &str, timeout: Duration) -> Result<String, LlmError> {
    let too_large = || LlmError::TooLarge {
        url: url.to_string(),
        limit_bytes: MAX_RESPONSE_BYTES,
    };
    if response.content_length().is_some_and(|n| n > MAX_RESPONSE_BYTES) {
        return Err(too_large());
    }
    let mut bytes = Vec::new();
    response
        .take(MAX_RESPONSE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(
            |e| match e.into_inner().map(|inner| inner.downcast::<reqwest::Error>()) {
                Some(Ok(err)) => transport_error(*err, url, timeout),
                Some(Err(other)) => LlmError::Body {
                    url: url.to_string(),
                    reason: other.to_string(),
                },
                None => LlmError::Body {
                    url: url.to_string(),
                    reason: "the connection failed while reading the answer".to_string(),
                },
            },
        )?;
    if bytes.len() as u64 > MAX_RESPONSE_BYTES {
        return Err(too_large());
    }
    Ok(String::from_utf8_lossy(&bytes).into_owned())
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
fn retry_after(response: &reqwest::blocking::Response) -> Option<f64> {
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
pub(crate) fn status_error(code: u16, target: &Target<'_>, body: String, retry_after_s: Option<f64>) -> LlmError {
    let (url, host, model) = (target.url, target.base_url, target.model);
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
