//! othello-arena: measure how well LLM agents play Othello.
//!
//! - [`othello`]: the rules on bitboards (pure, no I/O).
//! - [`engine`]: classical players built from spec strings.
//! - [`arena`]: games, matches, statistics, wipeout search.
//! - [`cli`]: the command line (the only module that reads the environment).

pub mod agent;
pub mod arena;
pub mod cli;
pub mod engine;
pub mod llm;
pub mod othello;
pub mod record;
pub mod tools;

pub use othello::{Board, Color, Move, Square};
