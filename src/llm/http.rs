//! The HTTP round trip shared by the backends: one POST of a JSON body, with every
//! failure mapped to the [`LlmError`] that names its fix.

use std::time::{Duration, Instant};

use futures_util::StreamExt;
use serde_json::Value;

use super::error::LlmError;
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

/// A JSON answer as received: decoded, its text, and the latency in milliseconds.
pub(crate) struct Answered {
    /// The decoded body.
    pub raw: Value,
    /// The body's text, as received (with any echoed key redacted).
    pub text: String,
    /// Wall time of the round trip.
    pub latency_ms: f64,
}

/// POSTs `body` as JSON (with a bearer token when given) and returns the answer.
pub(crate) async fn post_json(
    http: &reqwest::Client,
    target: &Target<'_>,
    body: &impl serde::Serialize,
    bearer: Option<&str>,
) -> Result<Answered, LlmError> {
    let mut request = http.post(target.url).json(body);
    if let Some(token) = bearer {
        request = request.bearer_auth(token);
    }
    send_for_json(request, target, bearer).await
}

/// One chat attempt: POSTs `body`, reads the answer with `parse` (a reply that is not
/// the API's chat response is [`LlmError::UnexpectedReply`] with its body), and keeps
/// both bodies in the exchange; `host` is the server's base URL.
pub(crate) async fn chat_attempt(
    http: &reqwest::Client,
    target: &Target<'_>,
    bearer: Option<&str>,
    body: Value,
    parse: fn(&Value) -> Result<ChatReply, String>,
) -> Result<Exchange, LlmError> {
    let answered = post_json(http, target, &body, bearer).await?;
    let reply = parse(&answered.raw).map_err(|reason| LlmError::UnexpectedReply {
        url: target.url.to_string(),
        reason,
        body: answered.text,
    })?;
    Ok(Exchange {
        request: body,
        response: answered.raw,
        reply,
        latency_ms: answered.latency_ms,
        retries: 0,
        host: target.base_url.to_string(),
        failures: Vec::new(),
    })
}

/// GETs `url` and returns the JSON answer (model lists, health probes).
pub(crate) async fn get_json(
    http: &reqwest::Client,
    target: &Target<'_>,
    bearer: Option<&str>,
) -> Result<Answered, LlmError> {
    let mut request = http.get(target.url);
    if let Some(token) = bearer {
        request = request.bearer_auth(token);
    }
    send_for_json(request, target, bearer).await
}

async fn send_for_json(
    request: reqwest::RequestBuilder,
    target: &Target<'_>,
    bearer: Option<&str>,
) -> Result<Answered, LlmError> {
    let url = target.url;
    let start = Instant::now();
    let response = request
        .send()
        .await
        .map_err(|e| transport_error(e, url, target.timeout))?;
    let status = response.status();
    let retry_after_s = retry_after(&response);
    let mut text = read_body(response, url, target.timeout).await?;
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
    Ok(Answered { raw, text, latency_ms })
}

/// What an API key echoed back by a server is replaced with.
pub const REDACTED: &str = "[api key redacted]";

/// The longest answer body read: far beyond any chat answer (a model that rambles to
/// its context limit writes well under a megabyte), small enough to never exhaust memory.
pub const MAX_RESPONSE_BYTES: u64 = 16 << 20;

/// Reads an answer body of at most [`MAX_RESPONSE_BYTES`].
async fn read_body(response: reqwest::Response, url: &str, timeout: Duration) -> Result<String, LlmError> {
    let too_large = || LlmError::TooLarge {
        url: url.to_string(),
        limit_bytes: MAX_RESPONSE_BYTES,
    };
    if response.content_length().is_some_and(|n| n > MAX_RESPONSE_BYTES) {
        return Err(too_large());
    }
    let mut bytes = Vec::new();
    let mut chunks = response.bytes_stream();
    while let Some(chunk) = chunks.next().await {
        let chunk = chunk.map_err(|err| transport_error(err, url, timeout))?;
        bytes.extend_from_slice(&chunk);
        if bytes.len() as u64 > MAX_RESPONSE_BYTES {
            return Err(too_large());
        }
    }
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// An HTTP client with a per-request timeout.
pub(crate) fn http_client(timeout: Duration, url: &str) -> Result<reqwest::Client, LlmError> {
    reqwest::Client::builder()
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
fn retry_after(response: &reqwest::Response) -> Option<f64> {
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
