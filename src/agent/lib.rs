//! The LLM player: prompts, the harness's own words to the model (`text`), the
//! conversation loop, its retry/fallback policy (an engine's move, or a forfeit), and
//! reading answers; the agent file. Its settings (as given, resolved, recorded) are the
//! `settings` crate's, re-exported here.
//!
//! The workspace's crate map is in the `game` crate's documentation.

#![deny(missing_docs)]

mod agent_file;
mod answer;
mod blocking;
mod games;
mod rules;
mod runner;
mod structured;
mod text;
pub mod tools;

pub use agent_file::{AgentFile, AgentFileError, AgentSource, AgentSourceError};
pub use answer::{answer_text, coordinates, parse_answer, Answer, AnswerKind};
pub use blocking::BlockingEngine;
pub use games::ModelGame;
pub use rules::{read_board, read_move_list, rules_question, rules_schema, Cells, RulesQuestion};
pub use runner::{exchanged, Action, Agent, AgentError, AgentEvent, MoveContext, Played};
pub use structured::{parse_structured, StructuredAnswer, REASON_MAX_CHARS};
// The settings the agent plays by, declared in `settings` (no HTTP), named here too.
pub use settings::{
    name_char, prompts_dir, sha256_hex, shipped, AgentConfig, AgentSettings, AnswerFormat, AnswerPolicy, ConflictError,
    Fallback, InvalidPolicy, LegalMoves, Mode, ModelText, ParseFallbackError, PlayerNameError, Prompt, PromptError,
    SettingsError, ShippedFile, ShippedKind, JSON_ANSWER_TOKENS, MAX_NAME, SHIPPED,
};
