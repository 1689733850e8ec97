//! System prompts and user-message templates, loaded at run time by name or path.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::shipped::{shipped, ShippedKind, SHIPPED};

/// Where prompt names resolve first: `./prompts`, the working directory's (a name it
/// does not hold is the built-in file of that name, [`crate::SHIPPED`]).
pub fn prompts_dir() -> PathBuf {
    PathBuf::from("prompts")
}

/// A prompt's text with where it came from and its hash.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Prompt {
    /// The name or path it was loaded by.
    pub source: String,
    /// The text.
    pub text: String,
    /// sha256 of the text, hex.
    pub sha256: String,
}

/// A prompt that cannot be found or read.
#[derive(Debug, thiserror::Error)]
#[error(
    "cannot read prompt {name:?} (tried {tried}): give a file path or a name from prompts/ or built in ({available})"
)]
pub struct PromptError {
    /// The name or path asked for.
    pub name: String,
    /// The paths tried.
    pub tried: String,
    /// Prompt names found in the prompts folder.
    pub available: String,
}

impl Prompt {
    /// A prompt from text in memory.
    pub fn from_text(source: &str, text: &str) -> Prompt {
        Prompt {
            source: source.to_string(),
            text: text.to_string(),
            sha256: sha256_hex(text),
        }
    }

    /// Loads `name_or_path`: an existing file, or `<dir>/<name>.md`, or `<dir>/<name>`,
    /// else the built-in prompt or template it names ([`shipped`]).
    pub fn load(name_or_path: &str, dir: &Path) -> Result<Prompt, PromptError> {
        let candidates: Vec<PathBuf> = vec![
            PathBuf::from(name_or_path),
            dir.join(format!("{name_or_path}.md")),
            dir.join(name_or_path),
        ];
        for path in &candidates {
            if path.is_file() {
                if let Ok(text) = std::fs::read_to_string(path) {
                    return Ok(Prompt::from_text(name_or_path, &text));
                }
            }
        }
        if let Some(built_in) = shipped(name_or_path).filter(|file| file.kind != ShippedKind::AgentFile) {
            return Ok(Prompt::from_text(name_or_path, built_in.text));
        }
        let mut available: BTreeSet<String> = std::fs::read_dir(dir)
            .map(|entries| {
                entries
                    .filter_map(|e| e.ok())
                    .filter_map(|e| e.path().file_stem().map(|s| s.to_string_lossy().into_owned()))
                    .collect()
            })
            .unwrap_or_default();
        let built_in = SHIPPED.iter().filter(|file| file.kind != ShippedKind::AgentFile);
        available.extend(built_in.map(|file| file.name().to_string()));
        Err(PromptError {
            name: name_or_path.to_string(),
            tried: candidates
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", "),
            available: if available.is_empty() {
                "none found".to_string()
            } else {
                available.into_iter().collect::<Vec<_>>().join(", ")
            },
        })
    }
}

/// sha256 of `text` as lowercase hex.
pub fn sha256_hex(text: &str) -> String {
    hex::encode(Sha256::digest(text.as_bytes()))
}
