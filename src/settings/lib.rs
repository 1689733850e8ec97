//! The LLM agent's settings, apart from the agent that plays with them: as a user gives
//! them (flags and agent files, [`AgentSettings`]), resolved ([`AgentConfig`], with its
//! defaults) and as run.json records them (the `stored` module); the words of the
//! settings that are one of a few choices; the prompts (loaded by name or path, the
//! shipped ones built in); and the text of a position the model reads
//! ([`ModelText`]). It links no HTTP client and no async runtime, so that what reads a
//! run (`runs`) needs neither.
//!
//! The workspace's crate map is in the `game` crate's documentation.

#![deny(missing_docs)]

mod config;
pub mod limits;
mod model_text;
mod prompt;
mod settings;
mod shipped;
mod stored;
mod words;

pub use config::{name_char, AgentConfig, ConflictError, PlayerNameError, JSON_ANSWER_TOKENS, MAX_NAME};
pub use model_text::ModelText;
pub use prompt::{prompts_dir, sha256_hex, Prompt, PromptError};
pub use settings::{AgentSettings, LabelsArg, RangeError, SettingsError};
pub use shipped::{shipped, ShippedFile, ShippedKind, SHIPPED};
pub use words::{AnswerFormat, AnswerPolicy, Fallback, InvalidPolicy, LegalMoves, Mode, ParseFallbackError};
