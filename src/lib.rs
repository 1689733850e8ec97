//! othello-arena: measure how well LLM agents play Othello.
//!
//! Dependencies point downward only:
//! - [`othello`]: the rules on bitboards (pure, no I/O).
//! - [`engine`]: classical players built from spec strings, the exact endgame solver, and
//!   the pattern evaluation the reference and the solver read (weights built in).
//! - [`marubatsu`]: seed 003's tic-tac-toe: rules, text, rule-based players and a perfect one (pure, no I/O).
//! - [`tools`]: the `simulate_move` tool of each game.
//! - [`rules`]: the game trait the shared parts see a game through (Othello, marubatsu).
//! - [`llm`]: async chat backends (Ollama, OpenAI-compatible), retry policy, the fleet of hosts.
//! - [`record`]: the JSONL log format (the wire specification), writer and reader.
//! - [`agent`]: the LLM player (conversation loop, policy, answer parsing, prompts).
//! - [`arena`]: games (tokio tasks), matches, evaluations, tournaments, ratings and
//!   sequential stopping, statistics, replay, resume, move quality, wipeout search, and
//!   the training and measurement of the pattern evaluation.
//! - [`cli`]: the command line; [`web`]: `serve`, the browser face (axum on the same
//!   runtime, page files built in). The only modules that read flags or the environment.

pub mod agent;
pub mod arena;
pub mod cli;
pub mod engine;
pub mod llm;
pub mod marubatsu;
pub mod othello;
pub mod record;
pub mod rules;
pub mod tools;
pub mod web;

pub use othello::{Board, Color, Move, Square};
