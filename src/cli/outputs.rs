//! Where a command writes its output files (`-o`, `--csv`, `--write-ladder`): the
//! library's one rule ([`runs::check_output_file`], [`runs::write_output_file`]), with
//! `--force` read from the flags.

use std::path::{Path, PathBuf};

use anyhow::Result;

use super::args::Overwrite;

/// Checks the output file a flag names before any work ([`runs::check_output_file`]):
/// `inputs` are the files and folders the command reads or writes, `owned` the files
/// it keeps in them itself.
pub(super) fn check_output_flag(
    flag: &str,
    output: &Path,
    overwrite: Overwrite,
    inputs: &[&Path],
    owned: &[PathBuf],
) -> Result<()> {
    Ok(runs::check_output_file(flag, output, overwrite.force, (inputs, owned))?)
}

/// Writes an output file checked by [`check_output_flag`] ([`runs::write_output_file`]).
pub(super) fn write_output(flag: &str, output: &Path, bytes: &[u8]) -> Result<()> {
    Ok(runs::write_output_file(flag, output, bytes)?)
}
