//! The OpenAI-compatible backend against a scripted `/v1/chat/completions` server on
//! 127.0.0.1 (standing in for llama-server, vLLM, LM Studio), through the same agent loop.

use std::sync::Arc;
use std::time::Duration;

use crate::support::{Reply, StubServer};
use agent::{Agent, AgentConfig, AnswerKind, MoveContext};
use game::othello::Board;
use game::Othello;
use llm::{ChatBackend, OpenAiBackend, RetryPolicy, Think};
use record::{read_game_log, GameLog, GameWriter, MoveSource};
use serde_json::json;

const KEY: &str = "sk-test-secret-0123456789";

fn backend(server: &StubServer) -> Arc<dyn ChatBackend> {
    let retry = RetryPolicy {
        max_retries: 1,
        initial_backoff: Duration::ZERO,
        max_backoff: Duration::ZERO,
    };
    Arc::new(
        OpenAiBackend::new(
            &format!("{}/v1/", server.url),
            Some(KEY.into()),
            Duration::from_secs(5),
            retry,
        )
        .unwrap(),
    )
}

#[tokio::test]
async fn tool_calls_travel_in_openai_shape_and_the_key_stays_out_of_logs() {
    let server = StubServer::start(|_, n| match n {
        0 => Reply::openai(json!({
            "role": "assistant",
            "content": null,
            "tool_calls": [{"id": "call_abc", "type": "function", "function": {"name": "simulate_move", "arguments": "{\"coord\":\"c4\"}"}}]
        })),
        _ => Reply::openai(json!({"role": "assistant", "content": "c4", "reasoning_content": "c4 keeps options"})),
    });
    let mut config = AgentConfig::new("qwen");
    config.think = Some(Think::Enabled(false));
    config.options.temperature = Some(0.2);
    config.options.num_predict = Some(256);
    config.options.num_ctx = Some(4096);
    let dir = std::env::temp_dir().join(format!("othello-openai-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("game.jsonl");
    let log = GameLog::create(&path).unwrap();
    let mut agent = Agent::<Othello>::new(Arc::new(config), backend(&server), 1);
    let choice = agent
        .decide(
            &Board::new(),
            MoveContext {
                ply: 1,
                log: GameWriter::new(Some(&log), 1),
            },
        )
        .await
        .unwrap()
        .into_move()
        .expect("the agent moves");
    assert_eq!(choice.mv.to_string(), "c4");
    let decision = choice.agent.expect("an agent's move carries its decision");
    assert_eq!(decision.source, Some(MoveSource::Llm));
    assert_eq!(
        (decision.tool_calls, decision.answer_kind),
        (1, Some(AnswerKind::Clean))
    );
    assert_eq!(decision.prompt_tokens, 240);

    let requests = server.requests();
    let first = &requests[0];
    assert_eq!(first["stream"], false);
    assert_eq!(first["temperature"], 0.2);
    assert_eq!(first["max_tokens"], 256);
    assert!(first.get("num_ctx").is_none() && first.get("options").is_none());
    assert_eq!(first["chat_template_kwargs"], json!({"enable_thinking": false}));
    assert_eq!(first["tools"][0]["type"], "function");
    let second = requests[1]["messages"].as_array().unwrap();
    assert_eq!(second[1]["tool_calls"][0]["id"], "call_abc");
    assert_eq!(
        second[1]["tool_calls"][0]["function"]["arguments"], "{\"coord\":\"c4\"}",
        "arguments as a JSON string"
    );
    assert_eq!(second[2]["role"], "tool");
    assert_eq!(second[2]["tool_call_id"], "call_abc");
    // The key is sent as a bearer token and appears nowhere in the log.
    assert_eq!(
        server.authorizations()[0].as_deref(),
        Some(format!("Bearer {KEY}").as_str())
    );
    let log_text = std::fs::read_to_string(&path).unwrap();
    assert!(!log_text.contains(KEY));
    assert_eq!(read_game_log(&path).unwrap().len(), 2);
    assert!(!format!(
        "{:?}",
        OpenAiBackend::new(
            "http://x",
            Some(KEY.into()),
            Duration::from_secs(1),
            RetryPolicy::default()
        )
        .unwrap()
    )
    .contains(KEY));
}

#[tokio::test]
async fn recovered_calls_get_ids_the_server_accepts() {
    let server = StubServer::start(|_, n| match n {
        0 => Reply::openai(
            json!({"role": "assistant", "content": "```json\n{\"name\": \"simulate_move\", \"arguments\": {\"coord\": \"e6\"}}\n```"}),
        ),
        _ => Reply::openai(json!({"role": "assistant", "content": "e6"})),
    });
    let mut agent = Agent::<Othello>::new(Arc::new(AgentConfig::new("qwen")), backend(&server), 1);
    let choice = agent
        .decide(
            &Board::new(),
            MoveContext {
                ply: 1,
                log: GameWriter::new(None, 1),
            },
        )
        .await
        .unwrap()
        .into_move()
        .expect("the agent moves");
    assert_eq!(
        (
            choice.mv.to_string().as_str(),
            choice.agent.unwrap().recovered_tool_calls
        ),
        ("e6", 1)
    );
    let messages = server.requests()[1]["messages"].as_array().unwrap().clone();
    assert_eq!(messages[1]["tool_calls"][0]["id"], "recovered-1");
    assert_eq!(
        messages[1]["tool_calls"][0]["function"]["arguments"],
        "{\"coord\":\"e6\"}"
    );
    assert_eq!(messages[2]["tool_call_id"], "recovered-1");
}

#[tokio::test]
async fn server_errors_keep_their_body_and_omit_the_key() {
    let server = StubServer::start(|_, _| Reply {
        status: 401,
        body: "{\"error\":{\"message\":\"invalid api key\"}}".into(),
        retry_after: None,
        fault: None,
    });
    let mut agent = Agent::<Othello>::new(Arc::new(AgentConfig::new("qwen")), backend(&server), 1);
    let err = agent
        .decide(
            &Board::new(),
            MoveContext {
                ply: 1,
                log: GameWriter::new(None, 1),
            },
        )
        .await
        .unwrap_err();
    let mut text = err.to_string();
    let mut source = std::error::Error::source(&err);
    while let Some(s) = source {
        text.push_str(&format!(" / {s}"));
        source = s.source();
    }
    assert!(text.contains("HTTP 401") && text.contains("invalid api key"), "{text}");
    assert!(!text.contains(KEY));
    assert_eq!(server.requests().len(), 1, "401 is not retried");
}

/// llama-server's own accounting (`timings`, in the shape its build in
/// scripts/local-llm.sh sends) is read as the server's work: the prompt tokens it
/// processed after its cache, not the prompt's size in `usage`; a server that sends no
/// timings, or broken ones, is not timed.
#[test]
fn llama_servers_timings_are_its_work_and_other_servers_send_none() {
    let body = |timings: serde_json::Value| {
        json!({
            "choices": [{"message": {"role": "assistant", "content": "d3"}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 249, "completion_tokens": 6},
            "timings": timings,
        })
    };
    let timed = body(json!({
        "cache_n": 124, "prompt_n": 125, "prompt_ms": 250.0, "prompt_per_second": 500.0,
        "predicted_n": 6, "predicted_ms": 120.0, "predicted_per_second": 50.0,
    }));
    let reply = OpenAiBackend::parse_response(&timed).unwrap();
    assert_eq!(reply.prompt_tokens, Some(249));
    let work = reply.server.expect("timed");
    assert_eq!((work.requests, work.prompt_tokens, work.generated_tokens), (1, 125, 6));
    assert_eq!((work.prompt_ms, work.generation_ms), (250.0, 120.0));
    assert_eq!(work.prefill_tokens_per_s(), Some(500.0));
    assert_eq!(work.decode_tokens_per_s(), Some(50.0));
    let mut untimed = timed.clone();
    untimed.as_object_mut().unwrap().remove("timings");
    assert_eq!(OpenAiBackend::parse_response(&untimed).unwrap().server, None);
    for broken in [
        json!({"prompt_n": 125, "prompt_ms": -1.0, "predicted_n": 6, "predicted_ms": 120.0}),
        json!({"prompt_n": 125, "prompt_ms": 250.0, "predicted_ms": 120.0}),
        json!("fast"),
    ] {
        let reply = OpenAiBackend::parse_response(&body(broken.clone()));
        assert_eq!(reply.map(|r| r.server), Ok(None), "{broken}");
    }
}
