//! othello-arena: measure how well LLM agents play Othello. The binary is the two
//! faces of the workspace: [`cli`] (each command: its flags, the arena call, the
//! printing), [`web`] (`serve`, the browser face on the same runtime) and [`mcp`]
//! (`mcp`, the Model Context Protocol face on stdio). They are the
//! only code that reads flags or the environment; the work is in the library crates
//! (crate map: the `game` crate's documentation, and the README).

mod cli;
mod mcp;
mod web;

use std::process::ExitCode;

use clap::Parser;
use cli::Cli;

fn main() -> ExitCode {
    let args = Cli::parse();
    match cli::run(args) {
        Ok(()) => ExitCode::SUCCESS,
        // A reader that stopped reading (`| head`) got what it wanted.
        Err(err) if cli::closed_stdout(&err) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err}");
            for cause in err.chain().skip(1) {
                eprintln!("  caused by: {cause}");
            }
            if err.downcast_ref::<cli::Interrupted>().is_some() {
                ExitCode::from(130) // the shell's code for a run stopped by Ctrl-C
            } else {
                ExitCode::from(2)
            }
        }
    }
}
