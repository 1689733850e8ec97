//! What each answer cost and why it failed, through the real HTTP clients of both APIs
//! against scripted servers on 127.0.0.1 (tests/support): a reply cut off at the token
//! limit (`done_reason` / `finish_reason` `length`) is counted apart from invalid
//! answers and re-asked with its own message, and thinking is counted apart from the
//! answer. The scripted servers stand in for a model that runs out of tokens on demand,
//! which a real one does only by chance.

use std::sync::Arc;
use std::time::Duration;

use crate::support::{first_decision, no_retry, scripted, Reply, StubServer};
use agent::{AgentConfig, AnswerFormat, InvalidPolicy, Mode};
use game::othello::Labels;
use llm::{ChatBackend, OllamaBackend, OpenAiBackend};
use record::MoveSource;
use serde_json::{json, Value};

fn ollama(server: &StubServer) -> Arc<dyn ChatBackend> {
    Arc::new(OllamaBackend::new(&server.url, Duration::from_secs(5), no_retry()).unwrap())
}

fn openai(server: &StubServer) -> Arc<dyn ChatBackend> {
    Arc::new(OpenAiBackend::new(&server.url, None, Duration::from_secs(5), no_retry()).unwrap())
}

/// An Ollama answer with `content` that stopped for `reason`, `eval_count` tokens.
fn ollama_reply(message: Value, reason: &str, eval_count: u64) -> Reply {
    let reply = Reply::message(message);
    let mut body: Value = serde_json::from_str(&reply.body).unwrap();
    body["done_reason"] = json!(reason);
    body["eval_count"] = json!(eval_count);
    reply.with_body(body)
}

/// An OpenAI-compatible answer that stopped for `reason`, with `usage`.
fn openai_reply(message: Value, reason: &str, usage: Value) -> Reply {
    let reply = Reply::openai(message);
    let mut body: Value = serde_json::from_str(&reply.body).unwrap();
    body["choices"][0]["finish_reason"] = json!(reason);
    body["usage"] = usage;
    reply.with_body(body)
}

fn direct(format: AnswerFormat) -> AgentConfig {
    let mut config = AgentConfig::new("m");
    config.mode = Mode::Direct;
    config.answer_format = format;
    config.on_invalid = InvalidPolicy::Feedback;
    config.style.labels = Labels::English;
    config
}

/// The user messages of the request `n` sent.
fn last_user_message(server: &StubServer, n: usize) -> String {
    let requests = server.requests();
    let messages = requests[n]["messages"].as_array().unwrap();
    messages.last().unwrap()["content"].as_str().unwrap().to_string()
}

#[tokio::test]
async fn an_ollama_answer_cut_at_the_token_limit_is_counted_apart_and_reasked_as_such() {
    let server = scripted(vec![
        ollama_reply(json!({"role": "assistant", "content": "{\"move\":   "}), "length", 64),
        ollama_reply(json!({"role": "assistant", "content": "{\"mo"}), "stop", 3),
        ollama_reply(json!({"role": "assistant", "content": "{\"move\": \"f5\"}"}), "stop", 6),
    ]);
    let (mv, decision) = first_decision(ollama(&server), direct(AnswerFormat::JsonLegal)).await;
    assert_eq!(mv.to_string(), "f5");
    assert_eq!(decision.source, Some(MoveSource::Llm));
    assert_eq!(
        (
            decision.cut_off_answers,
            decision.invalid_answers,
            decision.schema_violations
        ),
        (1, 1, 1),
        "the cut-off answer is not an invalid one; the finished broken one is"
    );
    let after_cut = last_user_message(&server, 1);
    assert!(after_cut.contains("cut off at the token limit"), "{after_cut}");
    assert!(
        after_cut.contains("d3, c4, f5, e6"),
        "the legal moves follow: {after_cut}"
    );
    let after_invalid = last_user_message(&server, 2);
    assert!(!after_invalid.contains("cut off"), "{after_invalid}");
}

#[tokio::test]
async fn the_agent_file_message_replaces_the_harness_sentence_and_retry_names_the_cut() {
    let server = scripted(vec![
        ollama_reply(
            json!({"role": "assistant", "content": "Let me think about d"}),
            "length",
            64,
        ),
        ollama_reply(json!({"role": "assistant", "content": "c4"}), "stop", 1),
    ]);
    let mut config = direct(AnswerFormat::Text);
    config.cut_off_message = Some("Too long. Be brief.".into());
    let (mv, decision) = first_decision(ollama(&server), config).await;
    assert_eq!((mv.to_string(), decision.cut_off_answers), ("c4".into(), 1));
    assert!(last_user_message(&server, 1).starts_with("Too long. Be brief. Legal moves: "));

    // With `retry`, a session that ends on a cut-off answer says so in the fallback's reason.
    let server = scripted(vec![
        ollama_reply(json!({"role": "assistant", "content": "Hmm"}), "length", 64),
        ollama_reply(json!({"role": "assistant", "content": "Hmm"}), "length", 64),
    ]);
    let mut config = direct(AnswerFormat::Text);
    config.on_invalid = InvalidPolicy::Retry;
    config.max_sessions = 2;
    let (_, decision) = first_decision(ollama(&server), config).await;
    assert_eq!(decision.source, Some(MoveSource::Fallback));
    assert_eq!((decision.cut_off_answers, decision.invalid_answers), (2, 0));
    let reason = decision.fallback_reason.unwrap();
    assert!(reason.contains("cut off, cut off"), "{reason}");
}

#[tokio::test]
async fn an_openai_answer_cut_off_with_counted_reasoning_tokens() {
    let usage = |completion, reasoning| {
        json!({"prompt_tokens": 120, "completion_tokens": completion,
               "completion_tokens_details": {"reasoning_tokens": reasoning}})
    };
    let server = scripted(vec![
        openai_reply(
            json!({"role": "assistant", "content": "", "reasoning_content": "The corners matter, so"}),
            "length",
            usage(256, 256),
        ),
        openai_reply(
            json!({"role": "assistant", "content": "{\"move\": \"d3\"}", "reasoning_content": "d3."}),
            "stop",
            usage(40, 30),
        ),
    ]);
    let (mv, decision) = first_decision(openai(&server), direct(AnswerFormat::JsonLegal)).await;
    assert_eq!(mv.to_string(), "d3");
    assert_eq!((decision.cut_off_answers, decision.invalid_answers), (1, 0));
    assert_eq!((decision.completion_tokens, decision.thinking_tokens), (296, 286));
    assert_eq!(decision.thinking_estimated, 0, "the server counted them");
    assert!(last_user_message(&server, 1).contains("cut off"));
}

#[tokio::test]
async fn ollama_thinking_is_split_from_the_answer_by_its_share_of_the_characters() {
    // 30 characters of thinking, 2 of answer, 32 tokens: 30 thinking, 2 answer.
    let thinking = "a".repeat(30);
    let server = scripted(vec![ollama_reply(
        json!({"role": "assistant", "content": "d3", "thinking": thinking}),
        "stop",
        32,
    )]);
    let (mv, decision) = first_decision(ollama(&server), direct(AnswerFormat::Text)).await;
    assert_eq!(mv.to_string(), "d3");
    assert_eq!((decision.thinking_tokens, decision.thinking_estimated), (30, 1));

    // Thinking written inline before `</think>` (seed 000's direct model) counts too.
    let server = scripted(vec![ollama_reply(
        json!({"role": "assistant", "content": format!("<think>{}</think>d3", "b".repeat(11))}),
        "stop",
        20,
    )]);
    let (_, decision) = first_decision(ollama(&server), direct(AnswerFormat::Text)).await;
    assert_eq!((decision.thinking_tokens, decision.thinking_estimated), (18, 1));
}

/// Direct text answers sampled `k` times per decision, one session per sample.
fn voting(k: u32) -> AgentConfig {
    let mut config = direct(AnswerFormat::Text);
    config.on_invalid = InvalidPolicy::Retry;
    config.max_sessions = 1;
    config.vote = k;
    config
}

#[tokio::test]
async fn a_vote_plays_the_most_frequent_move_and_counts_every_sample() {
    let server = scripted(vec![Reply::content("d3"), Reply::content("c4"), Reply::content("d3")]);
    let (mv, decision) = first_decision(ollama(&server), voting(3)).await;
    assert_eq!(mv.to_string(), "d3");
    assert_eq!(decision.source, Some(MoveSource::Llm));
    assert_eq!(server.requests().len(), 3, "every sample is its own request");
    assert_eq!((decision.turns, decision.sessions), (3, 3));
    let vote = decision.vote.as_ref().expect("a voted decision keeps its samples");
    assert_eq!(
        (vote.samples, record::join_moves(&vote.moves)),
        (3, "d3 c4 d3".to_string())
    );
    assert!(!vote.unanimous());
    let stats: runs::AgentStats = [&decision].into_iter().collect();
    assert_eq!((stats.voted_decisions, stats.unanimous_votes), (1, 0));
    assert_eq!(stats.rates().unanimous_vote_share, Some(0.0));
}

#[tokio::test]
async fn a_vote_ties_to_the_earliest_move_and_a_failed_sample_gives_none() {
    // The first sample names no legal move (its only session fails), the others tie.
    let server = scripted(vec![Reply::content("a1"), Reply::content("f5"), Reply::content("c4")]);
    let (mv, decision) = first_decision(ollama(&server), voting(3)).await;
    assert_eq!(mv.to_string(), "f5", "ties go to the earliest sample's move");
    assert_eq!(decision.source, Some(MoveSource::Llm));
    assert_eq!(decision.invalid_answers, 1);
    let vote = decision.vote.as_ref().unwrap();
    assert_eq!(record::join_moves(&vote.moves), "f5 c4");
    assert!(!vote.unanimous(), "a sample without a move is not agreement");

    // Every sample the same: unanimous; a single sample is no vote at all.
    let server = scripted(vec![Reply::content("e6"), Reply::content("e6")]);
    let (_, decision) = first_decision(ollama(&server), voting(2)).await;
    assert!(decision.vote.as_ref().unwrap().unanimous());
    let server = scripted(vec![Reply::content("e6")]);
    let (_, decision) = first_decision(ollama(&server), voting(1)).await;
    assert_eq!(decision.vote, None);
}
