//! Where a command writes its output files, each checked before
//! the first game so that nothing written before is lost and no run ends in an
//! unwritable path.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use runs::check_output;

/// Checks the output file a flag names before any work (see [`check_output`]):
/// `inputs` are the files and folders the command reads or writes, `owned` the files
/// it keeps in them itself.
pub(super) fn check_output_flag(flag: &str, output: &Path, inputs: &[&Path], owned: &[PathBuf]) -> Result<()> {
    check_output(output, inputs, owned).with_context(|| format!("bad {flag} {}", output.display()))
}

/// Checks an output file that holds data made at some cost (generated positions,
/// training examples) as [`check_output_flag`] does, and refuses one that exists
/// already with something in it: such files are never overwritten.
pub(super) fn check_new_output(flag: &str, output: &Path) -> Result<()> {
    check_output_flag(flag, output, &[], &[])?;
    if std::fs::metadata(output).is_ok_and(|m| m.len() > 0) {
        anyhow::bail!(
            "bad {flag} {}: the file exists and is never overwritten; give a new path, or delete it first",
            output.display()
        );
    }
    Ok(())
}

/// Writes an output file through a temporary file beside it and a rename, so a crash
/// or Ctrl-C never leaves half a file (which [`check_new_output`] would then refuse
/// to replace).
pub(super) fn write_output(flag: &str, output: &Path, bytes: &[u8]) -> Result<()> {
    let name = output.file_name().map(|n| n.to_string_lossy()).unwrap_or_default();
    let temporary = output.with_file_name(format!(".{name}.tmp"));
    std::fs::write(&temporary, bytes)
        .and_then(|()| std::fs::rename(&temporary, output))
        .with_context(|| format!("cannot write {flag} {}", output.display()))
}
