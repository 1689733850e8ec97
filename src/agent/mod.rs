//! The LLM player.
mod answer;
pub use answer::{answer_text, coordinates, parse_answer, Answer, AnswerKind, AnswerPolicy};
