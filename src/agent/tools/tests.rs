//! Tool tests: the exact schema sent, results, and errors that keep the conversation going.

use serde_json::{json, Value};

use super::*;
use game::othello::Board;

/// The description sent follows the tool's blind setting: in blind play it promises no
/// legal moves (it used to promise "the opponent's legal replies" to the agent).
#[test]
fn a_blind_simulate_move_is_described_without_legal_moves() {
    let blind = SimulateMove {
        legal_moves: crate::LegalMoves::Hidden,
        ..SimulateMove::default()
    };
    let spec = serde_json::to_value(ToolRegistry::new(blind).specs()).unwrap();
    let description = spec[0]["function"]["description"].as_str().unwrap();
    assert_eq!(description, simulate_move::BLIND_DESCRIPTION);
    assert!(!description.contains("legal replies") && description.contains("no legal moves"));
    assert_eq!(SimulateMove::default().description(), SimulateMove::DESCRIPTION);
}

#[test]
fn simulate_move_spec_is_exactly_this_json() {
    let spec = serde_json::to_value(ToolRegistry::new(SimulateMove::default()).specs()).unwrap();
    assert_eq!(
        spec,
        json!([{
            "type": "function",
            "function": {
                "name": "simulate_move",
                "description": SimulateMove::DESCRIPTION,
                "parameters": {
                    "type": "object",
                    "required": ["coord"],
                    "properties": {
                        "coord": {
                            "description": "The square to try: a column a-h then a row 1-8, such as \"d3\".",
                            "type": "string"
                        }
                    },
                    "additionalProperties": false
                }
            }
        }])
    );
}

fn call(args: Value) -> Value {
    let registry = ToolRegistry::new(SimulateMove::default());
    let outcome = registry.call(&Board::new(), "simulate_move", &args);
    serde_json::from_str(&outcome.content).unwrap()
}

#[test]
fn simulate_move_reports_seed_000_fields() {
    let result = call(json!({"coord": "d3"}));
    assert_eq!(result["my_stones"], 4);
    assert_eq!(result["opponent_stones"], 1);
    assert_eq!(result["stable_gained"], 0);
    assert_eq!(result["flipped"], json!(["d4"]));
    assert_eq!(result["opponent_valid_moves"], json!(["c3", "e3", "c5"]));
    let board = result["board"].as_str().unwrap();
    assert!(board.ends_with("白の手番\n置ける位置: c3, e3, c5"), "{board}");
    let keys: Vec<&String> = result.as_object().unwrap().keys().collect();
    assert_eq!(keys.len(), 6);
    // OpenAI-compatible servers send the arguments as a JSON string.
    assert_eq!(call(json!("{\"coord\": \"D3\"}")), result);
}

#[test]
fn bad_calls_return_errors_for_the_model() {
    let err = call(json!({"coord": "d4"}));
    assert_eq!(
        err["error"],
        "d4 is not a legal move for black (the square is occupied); legal moves: d3, c4, f5, e6"
    );
    let err = call(json!({"coord": "a1"}));
    assert!(err["error"].as_str().unwrap().contains("flips no disc"));
    let err = call(json!({"coord": "z9"}));
    assert!(err["error"].as_str().unwrap().contains("invalid square"));
    let err = call(json!({"row": 2, "col": 3}));
    assert!(
        err["error"]
            .as_str()
            .unwrap()
            .starts_with("invalid arguments for simulate_move"),
        "{err}"
    );
    assert!(err["error"].as_str().unwrap().contains("coord"));
    let err = call(json!("not json"));
    assert!(err["error"].as_str().unwrap().contains("not JSON"));
    let registry = ToolRegistry::new(SimulateMove::default());
    let outcome = registry.call(&Board::new(), "play_move", &json!({"coord": "d3"}));
    assert!(outcome.is_error);
    assert!(
        outcome
            .content
            .contains("unknown tool \\\"play_move\\\"; the available tools are: simulate_move"),
        "{}",
        outcome.content
    );
}

/// The schemas sent to models, to the byte: they travel in every logged request, so a
/// schemars upgrade must leave them as they were (these are schemars 0.8's).
#[test]
fn the_schemas_sent_to_models_are_pinned() {
    let pinned = [
        (
            crate::tools::parameters_schema::<super::SimulateMoveArgs>(),
            r#"{"additionalProperties":false,"properties":{"coord":{"description":"The square to try: a column a-h then a row 1-8, such as \"d3\".","type":"string"}},"required":["coord"],"type":"object"}"#,
        ),
        (
            crate::tools::parameters_schema::<super::SimulateMarkArgs>(),
            r#"{"additionalProperties":false,"properties":{"coord":{"description":"The square to try: a column a-c then a row 1-3, such as \"b2\".","type":"string"}},"required":["coord"],"type":"object"}"#,
        ),
        (
            crate::tools::parameters_schema::<crate::StructuredAnswer>(),
            r#"{"additionalProperties":false,"properties":{"move":{"description":"The square to play, such as \"d3\".","type":"string"},"reason":{"default":"","description":"Why, in a sentence (optional).","type":"string"}},"required":["move"],"type":"object"}"#,
        ),
    ];
    for (schema, text) in pinned {
        assert_eq!(schema.to_string(), text);
    }
}
