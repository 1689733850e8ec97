//! Structure-aware fuzzing of everything that reads outside input: the answer parser
//! and tool-call recovery (model text), the tool-argument decoder, the board-text
//! parser (logged requests) and the response decoder (server bodies).
//!
//! Plain random strings almost never contain `</think>`, a coordinate or a JSON tool
//! call, so the inputs here are built from the pieces real outputs are made of, then
//! mutated. Each property also checks an oracle where there is one. Run a long
//! campaign with `PROPTEST_CASES=1000000 cargo test --release --test fuzz`; proptest
//! prints the shrunk failing input, which becomes a `regress_` test below.

use agent::tools::{SimulateMove, ToolRegistry};
use agent::{parse_answer, Answer, AnswerKind, AnswerPolicy};
use game::othello::{Board, Color, Labels, Move, Perspective, TextStyle};
use proptest::prelude::*;
use record::decode_reply;
use record::recover_tool_calls;
use serde_json::{json, Map, Value};

/// Pieces of real model output: coordinates in several spellings, think tags, JSON
/// tool-call fragments, Japanese and full-width text, markdown.
const ANSWER_PIECES: &[&str] = &[
    "d3",
    "D3",
    "c4",
    "f5",
    "e6",
    "a1",
    "h8",
    "z9",
    "i1",
    "d0",
    "d33",
    "3d",
    "d 3",
    "ｄ３",
    "d3d4",
    "pass",
    "<think>",
    "</think>",
    "</think",
    "<think/>",
    "```json",
    "```",
    "{",
    "}",
    "[",
    "]",
    "\"",
    ":",
    ",",
    "\"name\"",
    "\"simulate_move\"",
    "\"arguments\"",
    "\"coord\"",
    "\"d3\"",
    "{\"name\": \"simulate_move\", \"arguments\": {\"coord\": \"c4\"}}",
    "<tool_call>",
    "</tool_call>",
    "**",
    "「",
    "」",
    "。",
    "黒",
    "白",
    "置ける位置",
    "最善手は",
    "Answer:",
    " ",
    "\n",
    "\t",
    "\u{200b}",
    "é",
    "🙂",
    "\\",
    "null",
];

fn answer_soup() -> impl Strategy<Value = String> {
    proptest::collection::vec(proptest::sample::select(ANSWER_PIECES), 0..24).prop_map(|pieces| pieces.concat())
}

/// A position reached by `choices` from the start (a pass when forced).
fn position(choices: &[usize]) -> Board {
    let mut board = Board::new();
    for choice in choices {
        if board.is_game_over() {
            break;
        }
        let moves: Vec<_> = board.legal_moves().squares().collect();
        let mv = if moves.is_empty() {
            Move::Pass
        } else {
            Move::Place(moves[choice % moves.len()])
        };
        board = board.play(mv);
    }
    board
}

fn positions() -> impl Strategy<Value = Board> {
    proptest::collection::vec(0usize..64, 0..60).prop_map(|c| position(&c))
}

const JSON_KEYS: &[&str] = &[
    "message",
    "content",
    "thinking",
    "role",
    "tool_calls",
    "function",
    "name",
    "arguments",
    "coord",
    "choices",
    "usage",
    "prompt_tokens",
    "completion_tokens",
    "prompt_eval_count",
    "eval_count",
    "done",
    "id",
    "index",
    "error",
];

/// JSON values whose keys are the ones decoders look for.
fn json_like() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<f64>().prop_map(|f| json!(f)),
        answer_soup().prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            proptest::collection::vec((proptest::sample::select(JSON_KEYS), inner), 0..6).prop_map(|pairs| {
                Value::Object(
                    pairs
                        .into_iter()
                        .map(|(k, v)| (k.to_string(), v))
                        .collect::<Map<_, _>>(),
                )
            }),
        ]
    })
}

/// An edit to a text: delete, insert or replace one character.
#[derive(Clone, Debug)]
enum Edit {
    Delete(usize),
    Insert(usize, char),
    Replace(usize, char),
}

fn edits() -> impl Strategy<Value = Vec<Edit>> {
    let ch = proptest::sample::select(vec![
        'B', 'W', '.', ' ', '\n', '1', '9', 'a', 'i', '黒', '白', 'é', '\r',
    ]);
    let edit = prop_oneof![
        (0usize..400).prop_map(Edit::Delete),
        (0usize..400, ch.clone()).prop_map(|(i, c)| Edit::Insert(i, c)),
        (0usize..400, ch).prop_map(|(i, c)| Edit::Replace(i, c)),
    ];
    proptest::collection::vec(edit, 1..6)
}

fn apply(text: &str, edits: &[Edit]) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    for edit in edits {
        let len = chars.len().max(1);
        match *edit {
            Edit::Delete(i) if !chars.is_empty() => {
                chars.remove(i % len);
            }
            Edit::Insert(i, c) => chars.insert(i % (chars.len() + 1), c),
            Edit::Replace(i, c) if !chars.is_empty() => chars[i % len] = c,
            _ => {}
        }
    }
    chars.into_iter().collect()
}

fn style(english: bool, relative: bool) -> TextStyle {
    TextStyle {
        labels: if english { Labels::English } else { Labels::Japanese },
        perspective: if relative {
            Perspective::Relative
        } else {
            Perspective::Absolute
        },
    }
}

/// 1000 cases per property in `cargo test`; `PROPTEST_CASES` sets a longer campaign.
fn config() -> ProptestConfig {
    let mut config = ProptestConfig::default();
    if std::env::var_os("PROPTEST_CASES").is_none() {
        config.cases = 1000;
    }
    config
}

/// Found by the campaign (proptest `cc 3bc80d74...`): a coordinate wrapped in
/// markdown and corner brackets is a clean answer; the first oracle measured
/// cleanliness in bytes and called it wrong.
#[test]
fn regress_clean_answer_wrapped_in_marks() {
    // The position of the failing case, as proptest printed it.
    let board = Board::from_bitboards(206_225_932_288, 4_433_346_824_192, Color::Black).unwrap();
    let e6 = "e6".parse().unwrap();
    assert!(board.legal_moves().contains(e6));
    assert_eq!(
        parse_answer("e6**「「「", board.legal_moves(), AnswerPolicy::Last, false),
        Answer::Move {
            square: e6,
            kind: AnswerKind::Clean
        }
    );
    assert_eq!(
        parse_answer("**「d3」**", Board::new().legal_moves(), AnswerPolicy::Last, false),
        Answer::Move {
            square: "d3".parse().unwrap(),
            kind: AnswerKind::Clean
        }
    );
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn answers_yield_only_legal_moves_that_the_answer_names(
        board in positions(),
        text in answer_soup(),
        policy in prop_oneof![Just(AnswerPolicy::Last), Just(AnswerPolicy::First), Just(AnswerPolicy::Strict)],
        think_first in any::<bool>(),
    ) {
        if let Answer::Move { square, kind } = parse_answer(&text, board.legal_moves(), policy, think_first) {
            prop_assert!(board.legal_moves().contains(square));
            let answer = agent::answer_text(&text).to_ascii_lowercase();
            prop_assert!(answer.contains(&square.to_string()), "{square} is not in {answer:?}");
            if kind == AnswerKind::Clean {
                // Nothing but the coordinate and wrapping marks.
                let letters: String = answer.chars().filter(|c| c.is_alphanumeric()).collect();
                prop_assert_eq!(letters, square.to_string(), "a clean answer is one coordinate: {:?}", answer);
            }
        }
        for call in recover_tool_calls(&text) {
            prop_assert!(!call.function.name.is_empty());
        }
    }

    #[test]
    fn tool_arguments_always_get_a_json_result(board in positions(), args in json_like(), coord in answer_soup()) {
        let registry = ToolRegistry::new(SimulateMove::default());
        for args in [args, json!({ "coord": coord }), Value::String(coord.clone())] {
            let outcome = registry.call(&board, "simulate_move", &args);
            let result: Value = serde_json::from_str(&outcome.content).expect("tool results are JSON");
            prop_assert_eq!(outcome.is_error, result.get("error").is_some());
        }
        if let Some(square) = board.legal_moves().squares().next() {
            let outcome = registry.call(&board, "simulate_move", &json!({ "coord": square.to_string() }));
            prop_assert!(!outcome.is_error, "a legal coordinate failed: {}", outcome.content);
        }
    }

    #[test]
    fn board_text_round_trips_and_edits_never_panic(
        board in positions(),
        english in any::<bool>(),
        relative in any::<bool>(),
        edits in edits(),
    ) {
        let text = board.to_text(style(english, relative));
        prop_assert_eq!(Board::parse_text(&text).expect("our own rendering parses"), board);
        let _ = Board::parse_text(&apply(&text, &edits));
        let squares = board.to_squares_string();
        let _ = Board::parse_squares(&apply(&squares, &edits), board.side_to_move());
    }

    #[test]
    fn response_bodies_decode_or_are_refused(body in json_like(), message in json_like(), content in answer_soup()) {
        let _ = decode_reply(&body);
        let _ = decode_reply(&json!({ "message": message.clone(), "done": true }));
        let _ = decode_reply(&json!({ "choices": [{ "message": message, "finish_reason": "stop" }] }));
        // A well-formed answer keeps its text exactly, whatever the text.
        let ollama = decode_reply(&json!({ "message": { "role": "assistant", "content": content.clone() }, "done": true }));
        prop_assert_eq!(ollama.map(|r| r.message.content), Some(content.clone()));
        let openai = decode_reply(&json!({ "choices": [{ "message": { "role": "assistant", "content": content.clone() } }] }));
        prop_assert_eq!(openai.map(|r| r.message.content), Some(content));
    }
}
