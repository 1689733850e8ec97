//! `engine --protocol gtp|nboard --engine SPEC`: one of our engines served on stdin
//! and stdout (messages for a person on stderr), by [`protocol::server::serve`].

use anyhow::{Context, Result};
use clap::Args;

use engines::EngineSpec;
use protocol::Protocol;

/// `engine`.
#[derive(Debug, Args)]
pub struct EngineArgs {
    /// The protocol spoken on stdin/stdout: gtp or nboard.
    #[arg(long, value_parser = parse_protocol)]
    pub protocol: Protocol,
    /// The engine served (an engine spec, as reference:4 or alphabeta:3).
    #[arg(long)]
    pub engine: EngineSpec,
    /// Seed of the engine's random choices.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

fn parse_protocol(text: &str) -> Result<Protocol, String> {
    text.parse().map_err(|e: protocol::ParseProtocolError| e.to_string())
}

/// Serves `args.engine` until `quit` or the end of stdin.
pub fn run(args: EngineArgs) -> Result<()> {
    let stdin = std::io::stdin().lock();
    let stdout = std::io::stdout().lock();
    protocol::server::serve(args.protocol, args.engine, args.seed, stdin, stdout, std::io::stderr())
        .with_context(|| format!("engine --protocol {} on stdin and stdout", args.protocol))
}
