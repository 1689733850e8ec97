//! The HTTP round trip shared by the backends: one POST of a JSON body, with every
//! failure mapped to the [`LlmError`] that names its fix.

use std::time::{Duration, Instant};

use futures_util::StreamExt;
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::api::Api;
use super::error::LlmError;
use super::host::without_credentials;
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
    /// The server's API, for the fix an error names.
    pub api: Api,
    /// The environment variable the API key comes from (OpenAI-compatible servers).
    pub key_env: Option<&'a str>,
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
    let response = match request.send().await {
        Ok(response) => response,
        Err(err) => {
            let err = transport_error(err, url, target.timeout);
            return Err(wrong_scheme(&err, target).await.unwrap_or(err));
        }
    };
    let status = response.status();
    if status.is_redirection() {
        let location = response.headers().get(reqwest::header::LOCATION);
        return Err(LlmError::Redirected {
            url: url.to_string(),
            code: status.as_u16(),
            location: location
                .and_then(|l| l.to_str().ok())
                .map_or("nowhere".to_string(), without_credentials),
        });
    }
    let retry_after_s = retry_after(&response);
    let mut text = read_body(response, url, target.timeout).await?;
    if let Some(token) = bearer.filter(|t| !t.is_empty() && text.contains(*t)) {
        // A proxy that echoes the Authorization header must not put the key in a log
        // line or an error message.
        text = text.replace(token, REDACTED);
    }
    let latency_ms = start.elapsed().as_secs_f64() * 1000.0;
    if !status.is_success() {
        let key_sent = bearer.is_some_and(|t| !t.is_empty());
        return Err(status_error(status.as_u16(), target, text, retry_after_s, key_sent));
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

/// Installs rustls's `ring` crypto provider for the process, which every reqwest client
/// needs before it is built (rustls's default provider, aws-lc, is not compiled in); a
/// no-op once one is installed.
pub fn install_tls_provider() {
    // Err only when a provider is installed already, which is as good.
    let _ = rustls::crypto::ring::default_provider().install_default();
}

/// An HTTP client with a per-request timeout. `https://` hosts are reached through
/// rustls on the `ring` provider (installed for the process on first use; it builds in
/// seconds where rustls's default, aws-lc, takes minutes of a cold `cargo test`).
pub(crate) fn http_client(timeout: Duration, url: &str) -> Result<reqwest::Client, LlmError> {
    install_tls_provider();
    reqwest::Client::builder()
        // A redirect is an error ([`LlmError::Redirected`]): followed, its answer would
        // be logged and tallied as this host's.
        .redirect(reqwest::redirect::Policy::none())
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

/// Maps an error status to the error that names its fix; `key_sent` says whether the
/// request carried an API key.
pub(crate) fn status_error(
    code: u16,
    target: &Target<'_>,
    body: String,
    retry_after_s: Option<f64>,
    key_sent: bool,
) -> LlmError {
    let (url, host, model) = (target.url, target.base_url, target.model);
    let lower = body.to_ascii_lowercase();
    let not_found = match target.api {
        Api::Ollama => code == 404 && lower.contains("not found"),
        // vLLM says "does not exist", llama-server "File Not Found", a proxy anything.
        Api::Openai => code == 404,
    };
    if not_found {
        LlmError::ModelNotFound {
            model: model.to_string(),
            host: host.to_string(),
            hint: not_found_hint(target),
            body,
        }
    } else if code == 401 || code == 403 {
        LlmError::Unauthorized {
            code,
            url: url.to_string(),
            hint: key_hint(target, key_sent),
            body,
        }
    } else if code == 400 && lower.contains("plain http request was sent to https port") {
        // nginx's answer to plain HTTP on its TLS port.
        wrong_scheme_error(target, true)
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

/// What to do about a 404, for the server's API. An OpenAI-compatible server answers
/// 404 for a model it does not serve and for a route it does not have alike.
pub(crate) fn not_found_hint(target: &Target<'_>) -> String {
    let (url, host, model) = (target.url, target.base_url, target.model);
    match target.api {
        Api::Ollama => {
            format!("model {model:?} not found on {host}: pull it first (ollama pull {model}) or check the model name")
        }
        Api::Openai => format!(
            "{url} answered 404 for model {model:?}: the route or the model is wrong on this server; check the \
             model against {host}/v1/models and that --host is the server's base URL (such as \
             http://127.0.0.1:8080, with or without /v1)"
        ),
    }
}

/// What to do about a 401 or 403: which key was sent (none, or the one in which
/// variable) and how to set it.
fn key_hint(target: &Target<'_>, key_sent: bool) -> String {
    match (target.api, target.key_env, key_sent) {
        (Api::Openai, Some(var), false) => format!(
            "no API key was sent ({var} is unset or empty): export {var}=<key>, or name the variable \
             holding the key with --api-key-env (api_key_env in a fleet file)"
        ),
        (Api::Openai, Some(var), true) => format!(
            "the API key in {var} was refused: check that it is this server's key (--api-key-env, or \
             api_key_env in a fleet file, names the variable it is read from)"
        ),
        (Api::Openai, None, false) => {
            "no API key was sent: name the variable holding the key with --api-key-env (api_key_env in a \
             fleet file)"
                .to_string()
        }
        (Api::Openai, None, true) => "the API key was refused: check that it is this server's key".to_string(),
        (Api::Ollama, ..) => "the server wants credentials: give them in the host URL (--host \
                              http://USER:PASSWORD@HOST:PORT; run.json keeps none, so give --host again with \
                              --resume), check that --host is the Ollama server itself, or use --api openai \
                              with --api-key-env for a server that takes a key"
            .to_string(),
    }
}

/// The base URL with the other scheme, for a server that speaks `tls` or not.
fn wrong_scheme_error(target: &Target<'_>, tls: bool) -> LlmError {
    let server = target.base_url.to_string();
    let rest = server.split_once("://").map_or(server.as_str(), |(_, rest)| rest);
    let (speaks, fix) = if tls {
        ("TLS (https)", format!("https://{rest}"))
    } else {
        ("plain HTTP", format!("http://{rest}"))
    };
    LlmError::WrongScheme {
        url: target.url.to_string(),
        server,
        speaks,
        fix,
    }
}

/// For a request that failed before any answer: whether the server speaks the other
/// scheme, asked of the server itself. https to a plain-HTTP port fails the TLS
/// handshake (the server answers `HTTP/1.1 400`); http to a TLS port gets a TLS alert
/// where an HTTP status line should be ("invalid HTTP version"). `None` when that is
/// not the failure, or the probe cannot tell.
async fn wrong_scheme(err: &LlmError, target: &Target<'_>) -> Option<LlmError> {
    let source = match err {
        LlmError::Connect { source, .. } | LlmError::Transport { source, .. } => source,
        _ => return None,
    };
    let chain = error_chain(source).to_ascii_lowercase();
    let https = target.url.starts_with("https://");
    if https && chain.contains("certificate") {
        return None; // a TLS server with a certificate we do not trust
    }
    if !https && !chain.contains("invalid http version") {
        return None; // never probe a plain-HTTP server that answered in HTTP
    }
    let url = reqwest::Url::parse(target.url).ok()?;
    let host = url
        .host_str()?
        .trim_start_matches('[')
        .trim_end_matches(']')
        .to_string();
    let port = url.port_or_known_default()?;
    let speaks_tls = probe_speaks_tls(&host, port).await?;
    (speaks_tls != https).then(|| wrong_scheme_error(target, speaks_tls))
}

/// An error and its sources in one line (`a: b: c`).
pub fn error_chain(err: &dyn std::error::Error) -> String {
    let mut text = err.to_string();
    let mut source = err.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

/// The most a scheme probe waits for the connection, and then for the answer.
const PROBE_WAIT: Duration = Duration::from_secs(2);

/// Sends a plain `GET /` to `host:port` and reads the first bytes of the answer:
/// `Some(false)` for an HTTP status line, `Some(true)` for a TLS record (an alert or a
/// handshake) or nginx's "plain HTTP request was sent to HTTPS port", `None` otherwise.
async fn probe_speaks_tls(host: &str, port: u16) -> Option<bool> {
    let connect = tokio::net::TcpStream::connect((host, port));
    let mut stream = tokio::time::timeout(PROBE_WAIT, connect).await.ok()?.ok()?;
    let request = format!("GET / HTTP/1.0\r\nHost: {host}\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await.ok()?;
    let mut answer = Vec::new();
    let mut buffer = [0u8; 512];
    let deadline = tokio::time::Instant::now() + PROBE_WAIT;
    while answer.len() < 512 {
        match tokio::time::timeout_at(deadline, stream.read(&mut buffer)).await {
            Ok(Ok(n)) if n > 0 => answer.extend_from_slice(&buffer[..n]),
            _ => break,
        }
    }
    classify_probe(&answer)
}

/// Reads a probe's answer (see [`probe_speaks_tls`]).
fn classify_probe(answer: &[u8]) -> Option<bool> {
    if answer.starts_with(b"HTTP/") {
        let text = String::from_utf8_lossy(answer).to_ascii_lowercase();
        return Some(text.contains("plain http request was sent to https port"));
    }
    // A TLS record: content type alert (21) or handshake (22), protocol major 3.
    match answer {
        [21 | 22, 3, ..] => Some(true),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probe_answers_are_read_as_http_or_tls() {
        assert_eq!(classify_probe(b"HTTP/1.1 400 Bad Request\r\n\r\n"), Some(false));
        assert_eq!(
            classify_probe(b"HTTP/1.1 400 Bad Request\r\n\r\nThe plain HTTP request was sent to HTTPS port"),
            Some(true)
        );
        assert_eq!(classify_probe(&[21, 3, 3, 0, 2, 2, 50]), Some(true));
        assert_eq!(classify_probe(&[22, 3, 1]), Some(true));
        assert_eq!(classify_probe(b""), None);
        assert_eq!(classify_probe(b"SSH-2.0-OpenSSH"), None);
    }

    #[test]
    fn a_404_names_the_fix_of_its_api() {
        let target = |api| Target {
            url: "http://h:1/v1/chat/completions",
            base_url: "http://h:1",
            model: "qwen",
            timeout: Duration::from_secs(1),
            api,
            key_env: Some("OPENAI_API_KEY"),
        };
        let ollama = status_error(
            404,
            &target(Api::Ollama),
            "model \"qwen\" not found".into(),
            None,
            false,
        );
        assert!(ollama.to_string().contains("ollama pull qwen"), "{ollama}");
        let openai = status_error(404, &target(Api::Openai), "File Not Found".into(), None, false).to_string();
        assert!(!openai.contains("ollama pull"), "{openai}");
        assert!(
            openai.contains("http://h:1/v1/models") && openai.contains("base URL"),
            "{openai}"
        );
        let refused = status_error(401, &target(Api::Openai), "no".into(), None, false).to_string();
        assert!(
            refused.contains("no API key was sent (OPENAI_API_KEY is unset or empty)"),
            "{refused}"
        );
        let wrong = status_error(401, &target(Api::Openai), "no".into(), None, true).to_string();
        assert!(wrong.contains("the API key in OPENAI_API_KEY was refused"), "{wrong}");
    }

    /// An `https://` host reaches rustls (on ring) and fails its handshake with a
    /// transport error, not a panic: here a local socket that hangs up at once.
    #[tokio::test]
    async fn an_https_host_is_reached_through_rustls() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        tokio::spawn(async move {
            while let Ok((socket, _)) = listener.accept().await {
                drop(socket);
            }
        });
        let url = format!("https://127.0.0.1:{port}/api/chat");
        let client = http_client(Duration::from_secs(5), &url).expect("a client");
        let err = client.get(&url).send().await.expect_err("no TLS server there");
        assert!(err.is_connect() || err.is_request(), "{err:?}");
    }
}
