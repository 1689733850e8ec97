use std::process::ExitCode;

use clap::Parser;
use othello_arena::cli::{self, Cli};

fn main() -> ExitCode {
    let args = Cli::parse();
    match cli::run(args) {
        Ok(()) => ExitCode::SUCCESS,
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
