//! The one way the commands print to standard output: [`out!`] and [`outln!`] are
//! `print!` and `println!` that return a [`StdoutError`] instead of panicking, so a
//! command `?`s each line it prints. `main` ends a command whose reader went away (a
//! closed pipe, as `| head` does) quietly with exit code 0, as ripgrep does; any other
//! failure (a full disk) is an error naming standard output.

use std::fmt;
use std::io::{self, Write};

/// Standard output could not be written.
#[derive(Debug, thiserror::Error)]
#[error("cannot write to stdout")]
pub struct StdoutError {
    /// The I/O error.
    #[source]
    source: io::Error,
}

impl StdoutError {
    /// Whether the reader closed its end (a broken pipe): the command ends quietly.
    pub fn is_closed(&self) -> bool {
        self.source.kind() == io::ErrorKind::BrokenPipe
    }
}

/// Whether `err` comes from a standard output that its reader closed.
pub fn closed_stdout(err: &anyhow::Error) -> bool {
    err.chain()
        .any(|cause| cause.downcast_ref::<StdoutError>().is_some_and(StdoutError::is_closed))
}

/// Writes `text` to standard output and flushes it, so that a failure is reported by
/// the line that meets it (not lost when the process exits), followed by a line
/// break with `line`.
pub fn write(text: fmt::Arguments, line: bool) -> Result<(), StdoutError> {
    let mut out = io::stdout().lock();
    out.write_fmt(text)
        .and_then(|()| if line { out.write_all(b"\n") } else { Ok(()) })
        .and_then(|()| out.flush())
        .map_err(|source| StdoutError { source })
}

/// `print!` that returns `Result<(), StdoutError>`.
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::cli::stdout::write(format_args!($($arg)*), false)
    };
}

/// `println!` that returns `Result<(), StdoutError>`.
macro_rules! outln {
    () => {
        $crate::cli::stdout::write(format_args!(""), true)
    };
    ($($arg:tt)*) => {
        $crate::cli::stdout::write(format_args!($($arg)*), true)
    };
}

pub(crate) use {out, outln};
