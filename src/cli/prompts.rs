//! `prompts`: the prompts, user-message templates and agent files built into the
//! binary ([`agent::SHIPPED`]), each with the flag that takes it, the start of its
//! sha256 (as run.json records the prompts' hashes) and a line about it; a file of the
//! same name in ./prompts, which is read instead, is named beside it.

use std::path::Path;

use anyhow::Result;

use super::stdout::outln;
use agent::{prompts_dir, sha256_hex, SHIPPED};

/// How many hex digits of a text's sha256 the listing shows.
const HASH_SHOWN: usize = 12;

pub(super) fn run() -> Result<()> {
    outln!("built in (a file of the same name in ./prompts, or a path, is read instead):")?;
    outln!("{:<28} {:<16} {:<HASH_SHOWN$}  about", "name", "flag", "sha256")?;
    let local = prompts_dir();
    for file in SHIPPED {
        let hash = sha256_hex(file.text);
        let over = overridden(&local.join(file.file));
        outln!(
            "{:<28} {:<16} {}  {}{over}",
            file.name(),
            file.kind.flag(),
            &hash[..HASH_SHOWN],
            file.about
        )?;
    }
    Ok(())
}

/// ` (read from PATH instead)` when a file lies at `path`, else nothing.
fn overridden(path: &Path) -> String {
    if path.is_file() {
        format!(" (read from {} instead)", path.display())
    } else {
        String::new()
    }
}
