//! Structured final answers (`--answer-format`) through real HTTP clients against
//! scripted servers on 127.0.0.1 (tests/support): the schema each API is sent, a server
//! that ignores it, an answer cut mid-JSON, and the re-ask of an invalid free answer.
//! The scripted servers stand in for a model whose answers are not held to the schema,
//! which a real constrained server never produces on demand.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::support::{first_decision, no_retry, scripted, Reply, StubServer};
use agent::{AgentConfig, AnswerFormat, AnswerKind, InvalidPolicy, Mode};
use llm::{ChatBackend, OllamaBackend, OpenAiBackend};
use record::{AgentDecision, MoveSource};
use serde_json::{json, Value};

async fn decide(backend: Arc<dyn ChatBackend>, config: AgentConfig) -> (String, AgentDecision) {
    let (mv, decision) = first_decision(backend, config).await;
    (mv.to_string(), decision)
}

fn ollama(server: &StubServer) -> Arc<dyn ChatBackend> {
    Arc::new(OllamaBackend::new(&server.url, Duration::from_secs(5), no_retry()).unwrap())
}

fn config(format: AnswerFormat) -> AgentConfig {
    let mut config = AgentConfig::new("m");
    config.answer_format = format;
    config
}

#[tokio::test]
async fn after_the_tool_budget_the_answer_is_held_to_the_legal_moves() {
    let server = scripted(vec![
        Reply::tool_call("simulate_move", json!({"coord": "d3"})),
        Reply::content(r#"{"move": "d3", "reason": "it flips d4"}"#),
    ]);
    let mut config = config(AnswerFormat::JsonLegal);
    config.max_tool_rounds = 1;
    let (mv, decision) = decide(ollama(&server), config).await;
    assert_eq!(mv, "d3");
    assert_eq!(decision.answer_kind, Some(AnswerKind::Clean));
    assert_eq!((decision.invalid_answers, decision.schema_violations), (0, 0));
    let requests = server.requests();
    assert!(requests[0].get("format").is_none(), "a tool round stays free");
    assert!(requests[0].get("tools").is_some());
    assert!(requests[1].get("tools").is_none());
    let schema = &requests[1]["format"];
    assert_eq!(schema["type"], "object");
    assert_eq!(schema["properties"]["move"]["enum"], json!(["d3", "c4", "f5", "e6"]));
    assert_eq!(schema["required"], json!(["move"]));
    let last = requests[1]["messages"].as_array().unwrap().last().unwrap()["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(last.contains("JSON"), "the model is told to answer as JSON: {last}");
}

#[tokio::test]
async fn a_server_that_ignores_the_schema_gives_counted_violations_not_a_crash() {
    // Prose, then JSON cut short: two violations; then a JSON answer.
    let server = scripted(vec![
        Reply::content("I would play d3 here."),
        Reply::content(r#"{"move": "d"#),
        Reply::content(r#"{"move": "c4"}"#),
    ]);
    let mut config = config(AnswerFormat::Json);
    config.mode = Mode::Direct;
    config.on_invalid = InvalidPolicy::Feedback;
    let (mv, decision) = decide(ollama(&server), config).await;
    assert_eq!(mv, "c4");
    assert_eq!((decision.invalid_answers, decision.schema_violations), (2, 2));
    assert_eq!(decision.source, Some(MoveSource::Llm));
    let requests = server.requests();
    assert_eq!(requests.len(), 3);
    assert!(requests
        .iter()
        .all(|r| r["format"]["properties"]["move"]["enum"].as_array().unwrap().len() == 64));
}

#[tokio::test]
async fn an_illegal_square_in_valid_json_is_an_illegal_answer_not_a_violation() {
    let server = scripted(vec![Reply::content(r#"{"move": "a1"}"#)]);
    let mut config = config(AnswerFormat::Json);
    config.mode = Mode::Direct;
    config.max_sessions = 1;
    let (_, decision) = decide(ollama(&server), config).await;
    assert_eq!((decision.invalid_answers, decision.schema_violations), (1, 0));
    assert_eq!(decision.source, Some(MoveSource::Fallback));
}

#[tokio::test]
async fn without_a_tool_budget_an_invalid_free_answer_is_asked_again_with_the_schema() {
    let server = scripted(vec![
        Reply::tool_call("simulate_move", json!({"coord": "f5"})),
        Reply::content("Let me think about the corners."),
        Reply::content(r#"{"move": "f5"}"#),
    ]);
    let (mv, decision) = decide(ollama(&server), config(AnswerFormat::JsonLegal)).await;
    assert_eq!(mv, "f5");
    assert_eq!(
        (decision.invalid_answers, decision.schema_violations, decision.turns),
        (1, 0, 3)
    );
    let requests = server.requests();
    assert!(requests[1].get("format").is_none() && requests[1].get("tools").is_some());
    assert!(requests[2].get("format").is_some(), "the re-ask carries the schema");
    assert!(
        requests[2].get("tools").is_none(),
        "and withholds the tools for that turn"
    );
}

#[tokio::test]
async fn the_openai_backend_sends_the_schema_as_response_format() {
    let server = StubServer::start(|_, _| Reply::openai(json!({"role": "assistant", "content": "{\"move\":\"e6\"}"})));
    let backend: Arc<dyn ChatBackend> =
        Arc::new(OpenAiBackend::new(&server.url, None, Duration::from_secs(5), no_retry()).unwrap());
    let mut config = config(AnswerFormat::JsonLegal);
    config.mode = Mode::Direct;
    let (mv, _) = decide(backend, config).await;
    assert_eq!(mv, "e6");
    let request: Value = server.requests()[0].clone();
    let format = &request["response_format"];
    assert_eq!(format["type"], "json_schema");
    assert_eq!(format["json_schema"]["name"], "answer");
    assert_eq!(format["json_schema"]["strict"], true);
    assert_eq!(
        format["json_schema"]["schema"]["properties"]["move"]["enum"],
        json!(["d3", "c4", "f5", "e6"])
    );
    assert!(request.get("format").is_none());
}

#[tokio::test]
async fn an_openai_server_that_ignores_the_schema_or_cuts_the_json_gives_counted_violations() {
    let replies = Mutex::new(
        vec![
            Reply::openai(json!({"role": "assistant", "content": "d3, I think."})),
            Reply::openai(json!({"role": "assistant", "content": "{\"move\": \"f"})),
            Reply::openai(json!({"role": "assistant", "content": "{\"move\": \"f5\"}"})),
        ]
        .into_iter(),
    );
    let server = StubServer::start(move |_, _| replies.lock().unwrap().next().unwrap());
    let backend: Arc<dyn ChatBackend> =
        Arc::new(OpenAiBackend::new(&server.url, None, Duration::from_secs(5), no_retry()).unwrap());
    let mut config = config(AnswerFormat::JsonLegal);
    config.mode = Mode::Direct;
    config.on_invalid = InvalidPolicy::Feedback;
    let (mv, decision) = decide(backend, config).await;
    assert_eq!(mv, "f5");
    assert_eq!((decision.invalid_answers, decision.schema_violations), (2, 2));
    assert!(server
        .requests()
        .iter()
        .all(|r| r["response_format"]["type"] == "json_schema"));
}
