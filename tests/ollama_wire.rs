//! The Ollama client over real HTTP: request shape, retries, and errors that name the fix.

use std::time::Duration;

use crate::support::{Reply, StubServer};
use llm::{ChatBackend, ChatOptions, ChatRequest, LlmError, Message, OllamaBackend, RetryPolicy, Role, Think};
use serde_json::json;

fn client(server: &StubServer, max_retries: u32) -> OllamaBackend {
    let retry = RetryPolicy {
        max_retries,
        initial_backoff: Duration::from_millis(5),
        max_backoff: Duration::from_millis(20),
    };
    OllamaBackend::new(&server.url, Duration::from_secs(5), retry).unwrap()
}

fn request() -> ChatRequest {
    ChatRequest {
        model: "gemma4:e4b".to_string(),
        messages: vec![Message::new(Role::User, "hello")],
        tools: Vec::new(),
        options: ChatOptions::default(),
        think: None,
        keep_alive: None,
        format: None,
        affinity: None,
    }
}

#[tokio::test]
async fn options_think_and_keep_alive_are_sent_as_ollama_expects() {
    let server = StubServer::start(|_, _| Reply::content("d3"));
    let mut req = request();
    req.options = ChatOptions {
        temperature: Some(0.0),
        seed: Some(101),
        num_ctx: Some(8192),
        num_predict: Some(512),
        ..ChatOptions::default()
    };
    req.think = Some(Think::Level("low".into()));
    req.keep_alive = Some("10m".into());
    let exchange = client(&server, 0).chat(&req).await.unwrap();
    assert_eq!(
        server.requests()[0],
        json!({
            "model": "gemma4:e4b",
            "messages": [{"role": "user", "content": "hello"}],
            "stream": false,
            "options": {"temperature": 0.0, "seed": 101, "num_ctx": 8192, "num_predict": 512},
            "think": "low",
            "keep_alive": "10m"
        })
    );
    assert_eq!(exchange.request, server.requests()[0]);
    assert_eq!(exchange.reply.message.content, "d3");
    assert_eq!(exchange.reply.prompt_tokens, Some(100));
    let mut off = request();
    off.think = Some(Think::Enabled(false));
    client(&server, 0).chat(&off).await.unwrap();
    assert_eq!(server.requests()[1]["think"], false);
}

#[tokio::test]
async fn transient_failures_are_retried() {
    let server = StubServer::start(|_, n| match n {
        0 => Reply::error(500, "internal"),
        1 => Reply {
            retry_after: Some(0),
            ..Reply::error(429, "slow down")
        },
        2 => Reply {
            status: 200,
            body: "{not json".into(),
            retry_after: None,
            fault: None,
        },
        _ => Reply::content("c4"),
    });
    let exchange = client(&server, 3).chat(&request()).await.unwrap();
    assert_eq!(exchange.retries, 3);
    assert_eq!(exchange.reply.message.content, "c4");
}

#[tokio::test]
async fn a_response_slower_than_the_timeout_is_retried() {
    let server = StubServer::start(|_, n| {
        if n == 0 {
            std::thread::sleep(Duration::from_millis(1500));
        }
        Reply::content("e6")
    });
    let retry = RetryPolicy {
        max_retries: 1,
        initial_backoff: Duration::ZERO,
        max_backoff: Duration::ZERO,
    };
    let backend = OllamaBackend::new(&server.url, Duration::from_millis(500), retry).unwrap();
    let exchange = backend.chat(&request()).await.unwrap();
    assert_eq!((exchange.retries, exchange.reply.message.content.as_str()), (1, "e6"));
    // Without retries the timeout is reported with the fix.
    let slow = StubServer::start(|_, _| {
        std::thread::sleep(Duration::from_millis(1500));
        Reply::content("e6")
    });
    let retry = RetryPolicy {
        max_retries: 0,
        ..retry
    };
    let err = OllamaBackend::new(&slow.url, Duration::from_millis(500), retry)
        .unwrap()
        .chat(&request())
        .await
        .unwrap_err();
    let last = match &err {
        LlmError::RetriesExhausted { last, .. } => last.to_string(),
        other => other.to_string(),
    };
    assert!(last.contains("within 0.5 s: raise --timeout"), "{last}");
}

#[tokio::test]
async fn retries_are_bounded_and_keep_the_last_body() {
    let server = StubServer::start(|_, _| Reply {
        status: 200,
        body: "{truncated".into(),
        retry_after: None,
        fault: None,
    });
    let err = client(&server, 2).chat(&request()).await.unwrap_err();
    assert_eq!(server.requests().len(), 3, "max_retries counts extra attempts");
    let LlmError::RetriesExhausted { attempts: 3, last } = &err else {
        panic!("{err}")
    };
    assert!(last.to_string().contains("body: {truncated"), "{last}");
}

/// Stands in for a host that answers 200 with something that is not a chat answer (a
/// health endpoint, a proxy's placeholder): a host failure, never an empty model answer.
#[tokio::test]
async fn a_body_that_is_not_a_chat_answer_is_a_host_failure() {
    for body in [json!({}), json!([]), json!({"status": "ok"}), json!({"done": true})] {
        let server = StubServer::start(move |_, _| Reply::content("d3").with_body(body.clone()));
        let err = client(&server, 1).chat(&request()).await.unwrap_err();
        assert_eq!(server.requests().len(), 2, "retried as a transient host failure");
        let text = format!("{err}: {}", llm::error_chain(&err));
        assert!(text.contains("not an Ollama chat response"), "{text}");
    }
}

/// Stands in for a host behind a proxy that redirects elsewhere: the redirect is refused,
/// not followed (the answer would be credited to the first host).
#[tokio::test]
async fn a_redirect_is_refused_not_followed() {
    let server = StubServer::start(|_, _| Reply {
        status: 307,
        body: String::new(),
        retry_after: None,
        fault: None,
    });
    let err = client(&server, 3).chat(&request()).await.unwrap_err();
    assert!(matches!(err, LlmError::Redirected { code: 307, .. }), "{err}");
    assert_eq!(server.requests().len(), 1, "not retried");
    assert!(err.to_string().contains("redirects are not followed"), "{err}");
}

#[tokio::test]
async fn permanent_failures_name_the_model_and_the_fix() {
    let server = StubServer::start(|_, _| Reply::error(404, "model \"gemma4:e4b\" not found, try pulling it first"));
    let err = client(&server, 3).chat(&request()).await.unwrap_err().to_string();
    assert_eq!(server.requests().len(), 1, "not retried");
    assert!(
        err.contains("model \"gemma4:e4b\" not found") && err.contains("ollama pull gemma4:e4b"),
        "{err}"
    );

    let server =
        StubServer::start(|_, _| Reply::error(400, "registry.ollama.ai/library/gemma3:4b does not support tools"));
    let err = client(&server, 3).chat(&request()).await.unwrap_err().to_string();
    assert!(err.contains("does not support tools: use --mode direct"), "{err}");

    let server = StubServer::start(|_, _| Reply::error(400, "\"gemma3:4b\" does not support thinking"));
    let err = client(&server, 3).chat(&request()).await.unwrap_err().to_string();
    assert!(err.contains("drop --think"), "{err}");
}

#[tokio::test]
async fn an_unreachable_server_says_how_to_point_at_one() {
    // A port that nothing listens on: bind, read the port, close.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let backend = OllamaBackend::new(
        &format!("http://127.0.0.1:{port}"),
        Duration::from_secs(2),
        RetryPolicy {
            max_retries: 1,
            initial_backoff: Duration::ZERO,
            max_backoff: Duration::ZERO,
        },
    )
    .unwrap();
    let err = backend.chat(&request()).await.unwrap_err();
    let text = format!(
        "{err}: {}",
        std::error::Error::source(&err)
            .map(|s| s.to_string())
            .unwrap_or_default()
    );
    assert!(
        text.contains("gave up after 2 attempts") && text.contains("set --host or OLLAMA_HOST"),
        "{text}"
    );
}

/// Ollama's counts and durations (nanoseconds) are read as the server's work; a reply
/// without them (an older server) is not timed.
#[test]
fn ollamas_durations_are_its_work() {
    let timed = json!({
        "model": "gemma3:4b", "message": {"role": "assistant", "content": "d3"}, "done_reason": "stop",
        "prompt_eval_count": 125, "prompt_eval_duration": 250_000_000u64,
        "eval_count": 6, "eval_duration": 120_000_000u64,
    });
    let work = OllamaBackend::parse_response(&timed).unwrap().server.expect("timed");
    assert_eq!((work.requests, work.prompt_tokens, work.generated_tokens), (1, 125, 6));
    assert_eq!((work.prompt_ms, work.generation_ms), (250.0, 120.0));
    let mut untimed = timed.clone();
    untimed.as_object_mut().unwrap().remove("eval_duration");
    assert_eq!(OllamaBackend::parse_response(&untimed).unwrap().server, None);
}
