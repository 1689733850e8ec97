//! Every text file a user names (suites, ladders, engine, agent, fleet and tournament
//! files, templates, position files) is read through the library's one bounded reader
//! ([`record::lines::read_user_file`]): whole and exactly as it is, but never more than
//! a cap per line and per file, so `/dev/zero`, a FIFO or a file of one endless line is
//! refused naming the file and the cap instead of filling memory or waiting.

use std::path::PathBuf;

use anyhow::{Context, Result};

pub(super) use protocol::lines::{read_user_file, SETTINGS_FILE_CAP as SETTINGS_CAP};

/// The run folders, logs and result bundles a reader was given, each bundle read back
/// and checked ([`runs::RunInputs`]); keep the value while reading its paths.
pub(super) fn open_runs(paths: &[PathBuf]) -> Result<runs::RunInputs> {
    runs::RunInputs::open(paths).context("cannot read a result bundle: check it with `othello-arena verify FILE`")
}
