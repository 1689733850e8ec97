//! The integration tests, one test binary (ripgrep's way: `autotests = false`, each file
//! a module), so `cargo test` links one binary rather than thirty. Shared helpers are in
//! [`support`]. Run one file's tests with `cargo test --test integration FILE::`.

mod support;

mod agent_loop;
mod answer_cost;
mod blind;
mod bundle;
mod cli;
mod endgame;
mod engine_processes;
mod engine_server;
mod error_messages;
mod eval_cli;
mod export;
mod external_engines;
mod fleet;
mod forfeit;
mod fuzz;
mod host_load;
mod inputs;
mod intrinsic;
mod intrinsic_mixture;
mod intrinsic_playouts;
mod local_llm;
mod log_bytes;
mod log_reading;
mod long_work;
mod marubatsu;
mod matches;
mod mcp;
mod mcp_hostile;
mod mcp_http;
mod modelfile;
mod move_quality;
// The old-runs test passes unchanged (its fixture builder is one long recipe).
#[allow(clippy::too_many_lines)]
mod old_runs;
mod ollama_wire;
mod openai_wire;
mod openings;
mod outputs;
mod perft;
mod positions;
mod properties;
mod rate_hostile;
mod rate_values;
mod reference;
mod replay;
mod report_browser;
mod resume;
mod rules_probes;
mod run_files;
mod run_folders;
mod score_moves_resume;
mod secrets;
mod serve;
mod serve_browser;
mod serve_hostile;
mod serve_views;
mod shipped_files;
mod soak;
mod structured;
mod tournament;
