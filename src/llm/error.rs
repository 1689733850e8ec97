//! Errors from chat backends, and whether they are worth retrying.

/// A chat request that failed.
#[derive(Debug, thiserror::Error)]
pub enum LlmError {
    /// No connection to the server.
    #[error("cannot connect to {url}: is the server running? (set --host or OLLAMA_HOST)")]
    Connect {
        /// The URL tried.
        url: String,
        /// The transport error.
        #[source]
        source: reqwest::Error,
    },
    /// The server did not answer within the timeout.
    #[error("no answer from {url} within {timeout_s} s: raise --timeout or use a smaller model")]
    Timeout {
        /// The URL tried.
        url: String,
        /// The timeout in seconds.
        timeout_s: f64,
    },
    /// Another transport failure (connection dropped, body cut short).
    #[error("request to {url} failed")]
    Transport {
        /// The URL tried.
        url: String,
        /// The transport error.
        #[source]
        source: reqwest::Error,
    },
    /// The model (or, on an OpenAI-compatible server, the route) is not on the server.
    #[error("{hint}; server said: {body}")]
    ModelNotFound {
        /// The model asked for.
        model: String,
        /// The server.
        host: String,
        /// What is missing and what to do, for the server's API: `ollama pull` for
        /// Ollama; the base URL and the server's model list for an OpenAI-compatible
        /// server.
        hint: String,
        /// The server's error body.
        body: String,
    },
    /// The server refused the request's credentials (401, 403).
    #[error("{url} refused the request with HTTP {code}: {hint}; server said: {body}")]
    Unauthorized {
        /// The status code.
        code: u16,
        /// The URL.
        url: String,
        /// Whether a key was sent, and which flag or variable sets it.
        hint: String,
        /// The body, as received (an echoed key redacted).
        body: String,
    },
    /// The URL's scheme is not what the server speaks: https to a plain-HTTP port, or
    /// http to a TLS port.
    #[error("the server at {server} speaks {speaks}: use {fix}")]
    WrongScheme {
        /// The URL tried.
        url: String,
        /// The server's base URL as given.
        server: String,
        /// What the server speaks (`plain HTTP` or `TLS (https)`).
        speaks: &'static str,
        /// The base URL to give instead.
        fix: String,
    },
    /// The model cannot take tools.
    #[error("model {model:?} does not support tools: use --mode direct, or a model whose template supports tools; server said: {body}")]
    ToolsUnsupported {
        /// The model asked for.
        model: String,
        /// The server's error body.
        body: String,
    },
    /// The model cannot think, but `think` was set.
    #[error("model {model:?} does not support thinking: drop --think; server said: {body}")]
    ThinkingUnsupported {
        /// The model asked for.
        model: String,
        /// The server's error body.
        body: String,
    },
    /// Any other HTTP error status.
    #[error("server answered HTTP {code} from {url}: {body}")]
    Status {
        /// The status code.
        code: u16,
        /// The URL.
        url: String,
        /// The body, as received.
        body: String,
        /// Seconds the server asked us to wait (Retry-After), if any.
        retry_after_s: Option<f64>,
    },
    /// The server answered with a redirect, which is not followed: the answer would come
    /// from another server and be credited to this one.
    #[error(
        "{url} answered {code}, a redirect to {location}: redirects are not followed (the answer would be \
         credited to the wrong host); give --host the server that answers itself"
    )]
    Redirected {
        /// The URL asked.
        url: String,
        /// The status (301, 302, 307, 308 ...).
        code: u16,
        /// Where it pointed (its `Location` header; `nowhere` when it gave none), without credentials.
        location: String,
    },
    /// A 200 answer whose body is not the expected JSON.
    #[error("cannot decode the answer from {url}: {source}; body: {body}")]
    Decode {
        /// The URL.
        url: String,
        /// The body, as received.
        body: String,
        /// The JSON error.
        #[source]
        source: serde_json::Error,
    },
    /// A JSON answer that is not the API's chat response (or an error the server
    /// reported inside a 200 answer).
    #[error("the answer from {url} is not a chat response ({reason}); body: {body}")]
    UnexpectedReply {
        /// The URL.
        url: String,
        /// What was wrong with it.
        reason: String,
        /// The body, as received.
        body: String,
    },
    /// The answer was longer than the harness reads.
    #[error(
        "the answer from {url} is over {limit_bytes} bytes: the model rambles; set --num-predict to bound its output"
    )]
    TooLarge {
        /// The URL.
        url: String,
        /// The limit.
        limit_bytes: u64,
    },
    /// No host of a fleet can take the request now.
    #[error("no host can serve model {model:?} now: {why}")]
    NoHost {
        /// The model.
        model: String,
        /// Why not.
        why: String,
    },
    /// Transient failures kept happening.
    #[error("gave up after {attempts} attempts")]
    RetriesExhausted {
        /// Attempts made (1 + retries).
        attempts: u32,
        /// The last failure.
        #[source]
        last: Box<LlmError>,
    },
}

/// Whether a failure may go away on its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RetryClass {
    /// Worth another attempt after a pause.
    Transient,
    /// Will fail the same way again.
    Permanent,
}

/// Connect, timeout, transport errors, truncated, undecodable, unexpected or oversized bodies, 429
/// and 5xx are transient (a sampled answer may differ next time); other statuses (404 model not found, 400 capability,
/// 401/403 credentials) and a wrong URL scheme are permanent.
pub(crate) fn retry_class(err: &LlmError) -> RetryClass {
    match err {
        LlmError::Connect { .. }
        | LlmError::Timeout { .. }
        | LlmError::Transport { .. }
        | LlmError::Decode { .. }
        | LlmError::UnexpectedReply { .. }
        | LlmError::NoHost { .. }
        | LlmError::TooLarge { .. } => RetryClass::Transient,
        LlmError::Status { code, .. } if *code == 429 || *code >= 500 => RetryClass::Transient,
        _ => RetryClass::Permanent,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assert_send_sync<T: Send + Sync>() {}

    #[test]
    fn errors_are_send_and_sync() {
        assert_send_sync::<LlmError>();
    }

    #[test]
    fn statuses_are_classified() {
        let status = |code| LlmError::Status {
            code,
            url: "u".into(),
            body: String::new(),
            retry_after_s: None,
        };
        assert_eq!(retry_class(&status(429)), RetryClass::Transient);
        assert_eq!(retry_class(&status(503)), RetryClass::Transient);
        assert_eq!(retry_class(&status(400)), RetryClass::Permanent);
        let missing = LlmError::ModelNotFound {
            model: "m".into(),
            host: "h".into(),
            hint: String::new(),
            body: String::new(),
        };
        assert_eq!(retry_class(&missing), RetryClass::Permanent);
        let refused = LlmError::Unauthorized {
            code: 401,
            url: "u".into(),
            hint: String::new(),
            body: String::new(),
        };
        assert_eq!(retry_class(&refused), RetryClass::Permanent);
        let scheme = LlmError::WrongScheme {
            url: "https://h:1/v1/chat/completions".into(),
            server: "https://h:1".into(),
            speaks: "plain HTTP",
            fix: "http://h:1".into(),
        };
        assert_eq!(retry_class(&scheme), RetryClass::Permanent);
    }
}
