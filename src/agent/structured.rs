//! Structured final answers (`--answer-format json|json-legal`): the answering request
//! carries a JSON schema that the server holds the model to while decoding (Ollama's
//! `format`, the OpenAI-compatible `response_format`), and the move is read from the
//! JSON. `json` allows any of the 64 squares, so a parse failure is impossible but an
//! illegal square is not; `json-legal` allows only the legal moves, so only the choice
//! is measured. A reply that is not JSON against the schema (a server that ignores the
//! format, an answer cut short) is a *schema violation*, counted apart.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};

use super::answer::{answer_text, Answer, AnswerKind};
use super::text;
use crate::tools::parameters_schema;
use crate::AnswerFormat;
use game::othello::{Bitboard, Labels, Square};

/// The longest `reason` a JSON answer's schema allows, in characters (a sentence):
/// unbounded, a small model held to the schema wrote 8,046 tokens into it.
pub const REASON_MAX_CHARS: usize = 200;

/// The final answer as JSON.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StructuredAnswer {
    /// The square to play, such as "d3".
    #[serde(rename = "move")]
    pub mv: String,
    /// Why, in a sentence (optional).
    #[serde(default)]
    pub reason: String,
}

/// The schema the answering request carries in `format`: the `move` is one of the
/// `board`'s squares (`json`) or of the `legal` moves (`json-legal`), with the optional
/// `reason` when `with_reason` (a small model can spend its whole token budget on it);
/// `None` for text.
pub(crate) fn answer_schema(
    format: AnswerFormat,
    legal: Bitboard,
    board: Bitboard,
    with_reason: bool,
) -> Option<Value> {
    let squares: Vec<String> = match format {
        AnswerFormat::Text => return None,
        AnswerFormat::Json => board.squares().map(|s| s.to_string()).collect(),
        AnswerFormat::JsonLegal => legal.squares().map(|s| s.to_string()).collect(),
    };
    let mut schema = parameters_schema::<StructuredAnswer>();
    schema["properties"]["move"]["enum"] = json!(squares);
    if with_reason {
        // Bounded in the schema itself, so a server that enforces it (llama.cpp's
        // grammar, Ollama's format) cuts the reason short, not the answer.
        schema["properties"]["reason"]["maxLength"] = json!(REASON_MAX_CHARS);
    } else if let Some(properties) = schema["properties"].as_object_mut() {
        properties.remove("reason");
    }
    Some(schema)
}

/// The line that asks for an answer in `format`, in the board's language (empty for
/// text).
pub(crate) fn json_instruction(format: AnswerFormat, labels: Labels) -> &'static str {
    match format {
        AnswerFormat::Text => "",
        AnswerFormat::Json | AnswerFormat::JsonLegal => text::json_answer(labels),
    }
}

/// Reads a structured answer: the move named in the JSON after any `</think>`.
pub fn parse_structured(content: &str, legal: Bitboard) -> Answer {
    let text = answer_text(content).trim();
    let Ok(answer) = serde_json::from_str::<StructuredAnswer>(text) else {
        return Answer::SchemaViolation;
    };
    let Ok(square) = answer.mv.trim().parse::<Square>() else {
        return Answer::SchemaViolation;
    };
    if legal.contains(square) {
        Answer::Move {
            square,
            kind: AnswerKind::Clean,
        }
    } else {
        Answer::Illegal { found: vec![square] }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use game::othello::Board;

    #[test]
    fn formats_parse_and_print() {
        for text in ["text", "json", "json-legal"] {
            assert_eq!(text.parse::<AnswerFormat>().unwrap().to_string(), text);
        }
        assert!("xml"
            .parse::<AnswerFormat>()
            .unwrap_err()
            .contains("expected text, json or json-legal"));
    }

    #[test]
    fn the_schema_names_the_squares_allowed() {
        let legal = Board::new().legal_moves();
        assert_eq!(answer_schema(AnswerFormat::Text, legal, Bitboard(u64::MAX), true), None);
        let all = answer_schema(AnswerFormat::Json, legal, Bitboard(u64::MAX), true).unwrap();
        assert_eq!(all["properties"]["move"]["enum"].as_array().unwrap().len(), 64);
        assert_eq!(all["required"], json!(["move"]));
        assert_eq!(all["additionalProperties"], false);
        let only = answer_schema(AnswerFormat::JsonLegal, legal, Bitboard(u64::MAX), true).unwrap();
        assert_eq!(only["properties"]["move"]["enum"], json!(["d3", "c4", "f5", "e6"]));
        assert_eq!(only["properties"]["reason"]["maxLength"], json!(REASON_MAX_CHARS));
        let bare = answer_schema(AnswerFormat::JsonLegal, legal, Bitboard(u64::MAX), false).unwrap();
        assert_eq!(
            bare["properties"].as_object().unwrap().len(),
            1,
            "only the move: {bare}"
        );
        assert_eq!(bare["additionalProperties"], false);
    }

    #[test]
    fn answers_are_read_from_the_json() {
        let legal = Board::new().legal_moves();
        let read = |text| parse_structured(text, legal);
        assert!(matches!(
            read(r#"{"move": "d3"}"#),
            Answer::Move {
                kind: AnswerKind::Clean,
                ..
            }
        ));
        assert!(matches!(
            read(r#"{"move": "c4", "reason": "mobility"}"#),
            Answer::Move { .. }
        ));
        assert!(matches!(read(r#"<think>x</think> {"move":"f5"}"#), Answer::Move { .. }));
        assert_eq!(
            read(r#"{"move": "a1"}"#),
            Answer::Illegal {
                found: vec!["a1".parse().unwrap()]
            }
        );
        for bad in ["d3", r#"{"move": "d"#, r#"{"square": "d3"}"#, r#"{"move": "z9"}"#, ""] {
            assert_eq!(read(bad), Answer::SchemaViolation, "{bad}");
        }
    }
}
