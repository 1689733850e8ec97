//! Where a command writes its output files (`-o`, `--csv`, `--write-ladder`): one
//! rule for all of them.
//!
//! - Checked before the first game or search ([`check_output_file`]): never onto an
//!   input or a run's files ([`check_output`]), and never over a regular file that
//!   holds something unless `--force` says so, so nothing written before is lost and
//!   no run ends in an unwritable path.
//! - A regular file (or a new path) is written through a temporary file beside it and
//!   a rename, so a crash never leaves half a file; a failed write leaves no temporary
//!   file and the old file as it was ([`write_output_file`]).
//! - Anything else (a FIFO, a character device such as /dev/null or /dev/stdout) is
//!   written in place, as shell redirections do: it is never replaced by a file. A
//!   FIFO waits three seconds for a reader, then is refused, instead of hanging.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::os::fd::AsRawFd;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::run_folder::{check_output, OutputError};

/// How long writing to a FIFO waits for a process that reads it.
const READER_WAIT: Duration = Duration::from_secs(3);

/// How often a FIFO is tried while it has no reader.
const READER_POLL: Duration = Duration::from_millis(50);

/// An output file a flag names that cannot be written.
#[derive(Debug, thiserror::Error)]
pub enum OutputFileError {
    /// The path is refused ([`check_output`]).
    #[error("bad {flag} {}", .path.display())]
    Refused {
        /// The flag.
        flag: String,
        /// The path.
        path: PathBuf,
        /// Why.
        #[source]
        source: OutputError,
    },
    /// A file that holds something, without `--force`.
    #[error(
        "bad {flag} {}: the file exists and holds {bytes} bytes; give a new path, or --force to replace it",
        .path.display()
    )]
    Exists {
        /// The flag.
        flag: String,
        /// The path.
        path: PathBuf,
        /// Its size.
        bytes: u64,
    },
    /// Writing failed.
    #[error("cannot write {flag} {}", .path.display())]
    Write {
        /// The flag.
        flag: String,
        /// The path.
        path: PathBuf,
        /// Why.
        #[source]
        source: WriteError,
    },
}

/// Why an output file was not written.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    /// The system refused.
    #[error(transparent)]
    Io(#[from] io::Error),
    /// A FIFO that no process read.
    #[error("it is a FIFO that no process read within {seconds} s: start its reader first")]
    NoReader {
        /// How long it waited.
        seconds: u64,
    },
}

/// Checks the output file `flag` names before any work (see [`check_output`]):
/// `inputs` are the files and folders the command reads or writes, `owned` the files
/// it keeps in them itself. A regular file that holds something is refused unless
/// `force` (`--force`).
pub fn check_output_file(
    flag: &str,
    output: &Path,
    force: bool,
    (inputs, owned): (&[&Path], &[PathBuf]),
) -> Result<(), OutputFileError> {
    check_output(output, inputs, owned).map_err(|source| OutputFileError::Refused {
        flag: flag.to_string(),
        path: output.to_path_buf(),
        source,
    })?;
    match std::fs::metadata(output) {
        Ok(meta) if meta.is_file() && meta.len() > 0 && !force => Err(OutputFileError::Exists {
            flag: flag.to_string(),
            path: output.to_path_buf(),
            bytes: meta.len(),
        }),
        _ => Ok(()),
    }
}

/// Writes an output file checked by [`check_output_file`]: a regular file (or a new
/// path) through a temporary file and a rename, anything else in place (see the
/// module's rule).
pub fn write_output_file(flag: &str, output: &Path, bytes: &[u8]) -> Result<(), OutputFileError> {
    let written = match std::fs::metadata(output) {
        Ok(meta) if !meta.is_file() => write_in_place(output, meta.file_type().is_fifo(), bytes),
        _ => write_replacing(output, bytes).map_err(WriteError::from),
    };
    written.map_err(|source| OutputFileError::Write {
        flag: flag.to_string(),
        path: output.to_path_buf(),
        source,
    })
}

/// Writes `bytes` to a FIFO or a device as it is: opened for writing, neither
/// created, truncated nor replaced.
fn write_in_place(output: &Path, fifo: bool, bytes: &[u8]) -> Result<(), WriteError> {
    let mut file = if fifo {
        open_fifo(output)?
    } else {
        OpenOptions::new().write(true).open(output)?
    };
    file.write_all(bytes)?;
    file.flush()?;
    Ok(())
}

/// Opens a FIFO to write once a process reads it, trying without blocking for
/// [`READER_WAIT`] (a blocking open would wait for ever).
fn open_fifo(path: &Path) -> Result<File, WriteError> {
    let start = Instant::now();
    loop {
        match OpenOptions::new().write(true).custom_flags(libc::O_NONBLOCK).open(path) {
            Ok(file) => {
                set_blocking(&file)?;
                return Ok(file);
            }
            // ENXIO: no process has the FIFO open for reading.
            Err(err) if err.raw_os_error() == Some(libc::ENXIO) => {
                if start.elapsed() >= READER_WAIT {
                    return Err(WriteError::NoReader {
                        seconds: READER_WAIT.as_secs(),
                    });
                }
                std::thread::sleep(READER_POLL);
            }
            Err(err) => return Err(err.into()),
        }
    }
}

/// Makes writes to `file` wait when its pipe is full, as ordinary writes do.
fn set_blocking(file: &File) -> io::Result<()> {
    let fd = file.as_raw_fd();
    // SAFETY: `fd` is open (owned by `file`, borrowed for the call); F_GETFL and
    // F_SETFL only read and set its status flags.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    // SAFETY: as above.
    if flags < 0 || unsafe { libc::fcntl(fd, libc::F_SETFL, flags & !libc::O_NONBLOCK) } < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Writes `bytes` to a regular file through a temporary file beside it and a rename:
/// a link is followed (its target is replaced, the link stays), a replaced file's
/// permissions are kept, and on any failure the temporary file is removed.
fn write_replacing(output: &Path, bytes: &[u8]) -> io::Result<()> {
    let target = std::fs::canonicalize(output).unwrap_or_else(|_| output.to_path_buf());
    let name = target.file_name().map(|n| n.to_string_lossy()).unwrap_or_default();
    let temporary = target.with_file_name(format!(".{name}.{}.tmp", std::process::id()));
    let kept = std::fs::metadata(&target).ok().map(|meta| meta.permissions());
    let written = write_new(&temporary, bytes, kept).and_then(|()| std::fs::rename(&temporary, &target));
    if written.is_err() {
        let _ = std::fs::remove_file(&temporary);
    }
    written
}

/// Creates `path` (which must not exist), writes `bytes` to it with `permissions` if
/// given, and syncs it to disk.
fn write_new(path: &Path, bytes: &[u8], permissions: Option<std::fs::Permissions>) -> io::Result<()> {
    let mut file = OpenOptions::new().write(true).create_new(true).open(path)?;
    file.write_all(bytes)?;
    if let Some(permissions) = permissions {
        file.set_permissions(permissions)?;
    }
    file.sync_all()
}
