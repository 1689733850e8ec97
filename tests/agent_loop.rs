//! The agent loop through the real HTTP client against the scripted Ollama server,
//! one test per path (see tests/support for what the stub stands in for).

use std::sync::Arc;
use std::time::Duration;

use crate::support::{first_decision, legal_moves_in, scripted, temp_dir, Reply, StubServer};
use agent::{Agent, AgentConfig, AnswerKind, AnswerPolicy, InvalidPolicy, Mode, MoveContext, Prompt};
use game::othello::{Board, Labels, Move};
use game::Othello;
use llm::{ChatBackend, OllamaBackend, RetryPolicy};
use record::{read_game_log, Event, GameLog, GameWriter, MoveSource};
use serde_json::{json, Value};

fn backend(server: &StubServer) -> Arc<dyn ChatBackend> {
    let retry = RetryPolicy {
        max_retries: 2,
        initial_backoff: Duration::from_millis(10),
        max_backoff: Duration::from_millis(50),
    };
    Arc::new(OllamaBackend::new(&server.url, Duration::from_secs(10), retry).unwrap())
}

async fn decide(server: &StubServer, config: AgentConfig) -> (Move, record::AgentDecision) {
    first_decision(backend(server), config).await
}

fn config() -> AgentConfig {
    AgentConfig::new("stub-model")
}

#[tokio::test]
async fn tool_use_then_a_clean_answer() {
    let server = scripted(vec![
        Reply::tool_call("simulate_move", json!({"coord": "d3"})),
        Reply::content("d3"),
    ]);
    let mut config = config();
    config.system_prompt = Some(Prompt::from_text("inline", "You play Othello."));
    let (mv, decision) = decide(&server, config).await;
    assert_eq!(mv.to_string(), "d3");
    assert_eq!(decision.source, Some(MoveSource::Llm));
    assert_eq!(
        (decision.tool_calls, decision.recovered_tool_calls, decision.turns),
        (1, 0, 2)
    );
    assert_eq!(decision.answer_kind, Some(AnswerKind::Clean));
    assert_eq!((decision.prompt_tokens, decision.completion_tokens), (200, 20));
    let requests = server.requests();
    // The first request: stream off, the tool schema, system prompt then the board.
    assert_eq!(requests[0]["stream"], false);
    assert_eq!(requests[0]["model"], "stub-model");
    assert_eq!(requests[0]["tools"][0]["function"]["name"], "simulate_move");
    assert_eq!(
        requests[0]["tools"][0]["function"]["parameters"]["required"],
        json!(["coord"])
    );
    assert_eq!(
        requests[0]["messages"][0],
        json!({"role": "system", "content": "You play Othello."})
    );
    assert!(requests[0]["messages"][1]["content"]
        .as_str()
        .unwrap()
        .ends_with("置ける位置: d3, c4, f5, e6"));
    assert!(requests[0].get("options").is_none(), "unset options are left out");
    // The second carries the assistant's call and the tool result, named for Ollama.
    let tool_message = &requests[1]["messages"][3];
    assert_eq!(tool_message["role"], "tool");
    assert_eq!(tool_message["tool_name"], "simulate_move");
    let result: Value = serde_json::from_str(tool_message["content"].as_str().unwrap()).unwrap();
    assert_eq!(result["flipped"], json!(["d4"]));
    assert_eq!(
        requests[1]["messages"][2]["tool_calls"][0]["function"]["arguments"],
        json!({"coord": "d3"})
    );
}

#[tokio::test]
async fn an_illegal_coordinate_in_a_tool_call_is_answered_and_the_session_goes_on() {
    let server = scripted(vec![
        Reply::tool_call("simulate_move", json!({"coord": "a1"})),
        Reply::content("c4"),
    ]);
    let (mv, decision) = decide(&server, config()).await;
    assert_eq!(mv.to_string(), "c4");
    assert_eq!(decision.tool_errors, 1);
    let tool_message = &server.requests()[1]["messages"][2];
    assert!(tool_message["content"]
        .as_str()
        .unwrap()
        .contains("a1 is not a legal move for black"));
}

#[tokio::test]
async fn an_unknown_tool_gets_the_list_of_tools() {
    let server = scripted(vec![
        Reply::tool_call("play_move", json!({"coord": "d3"})),
        Reply::content("d3"),
    ]);
    let (_, decision) = decide(&server, config()).await;
    assert_eq!(decision.tool_errors, 1);
    let content = server.requests()[1]["messages"][2]["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        content.contains("unknown tool") && content.contains("simulate_move"),
        "{content}"
    );
}

#[tokio::test]
async fn a_natural_language_answer_is_extracted_and_counted_apart() {
    let server = scripted(vec![Reply::content("最終的な座標指定は f5 を採用する。")]);
    let (mv, decision) = decide(&server, config()).await;
    assert_eq!(mv.to_string(), "f5");
    assert_eq!(decision.answer_kind, Some(AnswerKind::Extracted));
}

#[tokio::test]
async fn several_coordinates_follow_the_answer_policy() {
    let answer = "d3 flips one disc, c4 too; I choose e6.";
    for (policy, expected) in [(AnswerPolicy::Last, "e6"), (AnswerPolicy::First, "d3")] {
        let server = scripted(vec![Reply::content(answer)]);
        let mut config = config();
        config.answer = policy;
        assert_eq!(decide(&server, config).await.0.to_string(), expected);
    }
    // Strict refuses prose; with every session failing the fallback plays.
    let server = StubServer::start(move |_, _| Reply::content(answer));
    let mut config = config();
    config.answer = AnswerPolicy::Strict;
    let (_, decision) = decide(&server, config).await;
    assert_eq!(decision.source, Some(MoveSource::Fallback));
    assert_eq!(decision.invalid_answers, 3);
}

#[tokio::test]
async fn an_illegal_final_move_retries_with_a_new_session() {
    let server = scripted(vec![Reply::content("a1"), Reply::content("d3")]);
    let (mv, decision) = decide(&server, config()).await;
    assert_eq!(mv.to_string(), "d3");
    assert_eq!((decision.sessions, decision.invalid_answers), (2, 1));
    // The second session starts over: only the board again.
    assert_eq!(server.requests()[1]["messages"].as_array().unwrap().len(), 1);
}

#[tokio::test]
async fn an_illegal_final_move_gets_feedback_in_the_same_session() {
    let server = scripted(vec![Reply::content("a1"), Reply::content("d3")]);
    let mut config = config();
    config.on_invalid = InvalidPolicy::Feedback;
    let (mv, decision) = decide(&server, config).await;
    assert_eq!(mv.to_string(), "d3");
    assert_eq!((decision.sessions, decision.invalid_answers), (1, 1));
    let messages = server.requests()[1]["messages"].as_array().unwrap().clone();
    assert_eq!(messages.len(), 3);
    assert_eq!(messages[1], json!({"role": "assistant", "content": "a1"}));
    assert_eq!(
        messages[2]["content"],
        "a1 には置けません。a1 では裏返せる石がありません。置ける位置: d3, c4, f5, e6。この中から座標を1つだけ答えてください。"
    );
}

#[tokio::test]
async fn a_tool_call_written_as_text_is_recovered_and_counted() {
    let fenced = "```json\n{\"name\": \"simulate_move\", \"arguments\": {\"coord\": \"f5\"}}\n```";
    let server = scripted(vec![Reply::content(fenced), Reply::content("f5")]);
    let (mv, decision) = decide(&server, config()).await;
    assert_eq!(mv.to_string(), "f5");
    assert_eq!((decision.tool_calls, decision.recovered_tool_calls), (0, 1));
    let messages = server.requests()[1]["messages"].as_array().unwrap().clone();
    assert_eq!(messages[1]["tool_calls"][0]["id"], "recovered-1");
    assert_eq!(messages[2]["role"], "tool");
}

#[tokio::test]
async fn thinking_is_never_parsed_for_the_move() {
    let server = scripted(vec![Reply::message(
        json!({"role": "assistant", "thinking": "e6 is best", "content": "c4"}),
    )]);
    assert_eq!(decide(&server, config()).await.0.to_string(), "c4");
    let server = scripted(vec![
        Reply::message(json!({"role": "assistant", "thinking": "play e6", "content": ""})),
        Reply::content("d3"),
    ]);
    let (mv, decision) = decide(&server, config()).await;
    assert_eq!((mv.to_string().as_str(), decision.invalid_answers), ("d3", 1));
}

#[tokio::test]
async fn a_model_that_never_answers_falls_back_and_says_why() {
    let server = StubServer::start(|_, _| Reply::tool_call("simulate_move", json!({"coord": "d3"})));
    let mut config = config();
    config.max_turns = 4;
    config.max_sessions = 2;
    let (mv, decision) = decide(&server, config).await;
    assert!(Board::new().is_legal(mv));
    assert_eq!(decision.source, Some(MoveSource::Fallback));
    assert_eq!((decision.sessions, decision.turns, decision.tool_calls), (2, 8, 8));
    assert!(decision.fallback_reason.unwrap().contains("turns used up"));
    assert_eq!(server.requests().len(), 8, "every loop is bounded");
}

#[tokio::test]
async fn direct_mode_sends_no_tools_and_reads_after_think() {
    let server = scripted(vec![Reply::content(
        "<think>\n候補手を評価する:\n  e6: 3手先で黒が平均3.0石\n</think>\n\ne6",
    )]);
    let mut direct = config();
    direct.mode = Mode::Direct;
    let (mv, decision) = decide(&server, direct.clone()).await;
    assert_eq!(mv.to_string(), "e6");
    assert_eq!(decision.answer_kind, Some(AnswerKind::Clean));
    assert!(server.requests()[0].get("tools").is_none());
    // Three attempts, then the fallback.
    let server = StubServer::start(|_, _| Reply::content("<think>hmm"));
    let (_, decision) = decide(&server, direct).await;
    assert_eq!(
        (decision.sessions, decision.turns, decision.source),
        (3, 3, Some(MoveSource::Fallback))
    );
}

#[tokio::test]
async fn every_exchange_is_logged_raw_with_its_place() {
    let server = scripted(vec![
        Reply::tool_call("simulate_move", json!({"coord": "d3"})),
        Reply::content("d3"),
    ]);
    let dir = std::env::temp_dir().join(format!("othello-agent-log-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("game.jsonl");
    let log = GameLog::create(&path).unwrap();
    let mut agent = Agent::<Othello>::new(Arc::new(config()), backend(&server), 1);
    agent
        .decide(
            &Board::new(),
            MoveContext {
                ply: 1,
                log: GameWriter::new(Some(&log), 3),
            },
        )
        .await
        .unwrap();
    let records = read_game_log(&path).unwrap();
    assert_eq!(records.len(), 2);
    for (i, record) in records.iter().enumerate() {
        let Event::Exchange(exchange) = &record.event else {
            panic!("an exchange record")
        };
        assert_eq!(
            (exchange.game, exchange.ply, exchange.session, exchange.turn),
            (3, 1, 1, i as u32 + 1)
        );
        assert_eq!(exchange.request, server.requests()[i], "the request exactly as sent");
        assert_eq!(exchange.response["prompt_eval_count"], 100, "the response as received");
    }
}

#[tokio::test]
async fn a_spent_tool_budget_withholds_tools_and_asks_for_the_answer() {
    let call = || Reply::content("{\"name\": \"simulate_move\", \"arguments\": {\"coord\": \"c4\"}}");
    let server = scripted(vec![call(), call(), Reply::content("f5")]);
    let mut config = config();
    config.max_tool_rounds = 1;
    config.on_invalid = InvalidPolicy::Feedback;
    let (mv, decision) = decide(&server, config).await;
    assert_eq!(mv.to_string(), "f5");
    // Round 1 ran the call; turn 2's call text came when tools were withheld: not a move (c4).
    assert_eq!(
        (decision.recovered_tool_calls, decision.invalid_answers, decision.turns),
        (1, 1, 3)
    );
    let requests = server.requests();
    assert!(requests[0].get("tools").is_some());
    assert!(requests[1].get("tools").is_none() && requests[2].get("tools").is_none());
    let asked = requests[1]["messages"].as_array().unwrap().last().unwrap()["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(
        asked,
        "シミュレーションはここまでです。置ける位置: d3, c4, f5, e6。この中から座標を1つだけ答えてください。"
    );
}

#[tokio::test]
async fn a_user_template_wraps_the_board() {
    let server = scripted(vec![Reply::content("d3")]);
    let mut config = config();
    config.user_template = Some(Prompt::from_text(
        "inline",
        "{board}\n\nYou play {color}: {legal_moves}",
    ));
    decide(&server, config).await;
    let user = server.requests()[0]["messages"][0]["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(user.starts_with("  a b c d e f g h\n"));
    assert!(
        user.ends_with("置ける位置: d3, c4, f5, e6\n\nYou play black: d3, c4, f5, e6"),
        "{user}"
    );
}

#[tokio::test]
async fn a_list_of_legal_moves_in_direct_mode_is_told_and_logged_as_several_moves() {
    // Stands in for a small model that answers with several legal squares (qwen2.5-coder-0.5b
    // often does; a real one will not on demand) and, told so, names one.
    let list_then_one = |request: &Value, _| {
        let legal = legal_moves_in(request);
        let told = request["messages"].as_array().is_some_and(|m| m.len() > 1);
        match told {
            true => Reply::content(&legal[1]),
            false => Reply::content(&format!("{}, {}", legal[0], legal[2])),
        }
    };
    let told = [
        (
            Labels::English,
            "Your answer names several moves: d3, f5. Legal moves: d3, c4, f5, e6. Answer with exactly one of them.",
        ),
        (
            Labels::Japanese,
            "回答が複数の座標を挙げています: d3, f5。置ける位置: d3, c4, f5, e6。この中から座標を1つだけ答えてください。",
        ),
    ];
    for (labels, feedback) in told {
        let server = StubServer::start(list_then_one);
        let path = temp_dir("agent-loop", &format!("several-{labels:?}")).join("game.jsonl");
        let log = GameLog::create(&path).unwrap();
        let mut config = config();
        (config.mode, config.on_invalid, config.style.labels) = (Mode::Direct, InvalidPolicy::Feedback, labels);
        let mut agent = Agent::<Othello>::new(Arc::new(config), backend(&server), 1);
        let ctx = MoveContext {
            ply: 1,
            log: GameWriter::new(Some(&log), 1),
        };
        let played = agent
            .decide(&Board::new(), ctx)
            .await
            .unwrap()
            .into_move()
            .expect("the agent moves");
        let decision = played.agent.unwrap();
        assert_eq!(played.mv.to_string(), "c4");
        assert_eq!(
            (
                decision.sessions,
                decision.turns,
                decision.invalid_answers,
                decision.cut_off_answers
            ),
            (1, 2, 1, 0),
            "a list is an invalid answer, told in the same session"
        );
        let requests = server.requests();
        let sent = requests[1]["messages"].as_array().unwrap().last().unwrap()["content"].clone();
        assert_eq!(sent, feedback);
        assert!(!sent.as_str().unwrap().contains("no legal move"), "{sent}");

        // The exchange that carries the feedback records why it was sent; the first none.
        let exchanges: Vec<record::ExchangeRecord> = read_game_log(&path)
            .unwrap()
            .into_iter()
            .filter_map(|r| match r.event {
                Event::Exchange(x) => Some(x),
                _ => None,
            })
            .collect();
        let reasons: Vec<Option<&str>> = exchanges.iter().map(|x| x.feedback_reason.as_deref()).collect();
        assert_eq!(reasons, [None, Some("several moves named: d3, f5")]);
        assert_eq!(
            exchanges[1].request["messages"].as_array().unwrap().last().unwrap()["content"],
            sent
        );
        let lines = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = lines.lines().collect();
        assert!(
            !lines[0].contains("feedback_reason"),
            "left out where no feedback was sent"
        );
        assert!(lines[1].contains(r#""feedback_reason":"several moves named: d3, f5""#));
    }
}
