//! Every text file a user names (suites, ladders, engine, agent, fleet and tournament
//! files, templates, position files) is read through [`read_user_file`]: whole and
//! exactly as it is, but never more than a cap per line and per file
//! ([`protocol::lines::read_file`]), so `/dev/zero`, a FIFO or a file of one endless
//! line is refused naming the file and the cap instead of filling memory or waiting.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

pub(super) use protocol::lines::SETTINGS_FILE_CAP as SETTINGS_CAP;
use protocol::lines::USER_LINE_CAP;

/// The text of the file `path` that `what` names (a flag, a key), at most `file_cap`
/// bytes in lines of at most 64 KiB.
pub(super) fn read_user_file(what: &str, path: &Path, file_cap: u64) -> Result<String> {
    let name = path.display().to_string();
    protocol::lines::read_file(path, USER_LINE_CAP, file_cap).with_context(|| format!("cannot read {what} {name}"))
}

/// [`read_user_file`], or, when no file is at `path` and `built_in` is the binary's
/// own copy of the file it names (a shipped prompt, agent file, ladder or calibration),
/// that copy: a file in the working directory overrides what is built in.
pub(super) fn read_or_built_in(what: &str, path: &Path, built_in: Option<&str>, file_cap: u64) -> Result<String> {
    match built_in {
        Some(text) if !path.exists() => Ok(text.to_string()),
        _ => read_user_file(what, path, file_cap),
    }
}

/// The run folders, logs and result bundles a reader was given, each bundle read back
/// and checked ([`runs::RunInputs`]); keep the value while reading its paths.
pub(super) fn open_runs(paths: &[PathBuf]) -> Result<runs::RunInputs> {
    runs::RunInputs::open(paths).context("cannot read a result bundle: check it with `othello-arena verify FILE`")
}
