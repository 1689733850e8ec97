//! The LLM player: prompts, the harness's own words to the model (`text`), the
//! conversation loop, its retry/fallback policy (an engine's move, or a forfeit), and
//! reading answers; its settings as a user gives them (flags, agent files) and as they
//! resolve.
//!
//! The workspace's crate map is in the `game` crate's documentation.

#![deny(missing_docs)]

mod answer;
mod blocking;
mod config;
mod games;
mod prompt;
mod rules;
mod runner;
mod settings;
mod shipped;
mod stored;
mod structured;
mod text;
pub mod tools;

pub use answer::{answer_text, coordinates, parse_answer, Answer, AnswerKind, AnswerPolicy};
pub use blocking::BlockingEngine;
pub use config::{
    name_char, AgentConfig, ConflictError, Fallback, InvalidPolicy, LegalMoves, Mode, ParseFallbackError,
    PlayerNameError, JSON_ANSWER_TOKENS, MAX_NAME,
};
pub use games::ModelGame;
pub use prompt::{prompts_dir, sha256_hex, Prompt, PromptError};
pub use rules::{read_board, read_move_list, rules_question, rules_schema, Cells, RulesQuestion};
pub use runner::{exchanged, Action, Agent, AgentError, AgentEvent, AgentObserver, MoveContext, Played};
pub use settings::{AgentFile, AgentSettings, SettingsError};
pub use shipped::{shipped, ShippedFile, ShippedKind, SHIPPED};
pub use structured::{parse_structured, AnswerFormat, StructuredAnswer, REASON_MAX_CHARS};
