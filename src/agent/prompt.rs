//! System prompts and user-message templates, loaded at run time by name or path.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// Where prompt names resolve: `./prompts` when it exists, else the source tree's
/// (the workspace's `prompts/`, two folders above this crate's).
pub fn prompts_dir() -> PathBuf {
    let local = PathBuf::from("prompts");
    if local.is_dir() {
        return local;
    }
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let root = crate_dir.ancestors().nth(2).unwrap_or(crate_dir);
    root.join("prompts")
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
#[error("cannot read prompt {name:?} (tried {tried}): give a file path or a name from prompts/ ({available})")]
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

    /// Loads `name_or_path`: an existing file, or `<dir>/<name>.md`, or `<dir>/<name>`.
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
        let mut available: Vec<String> = std::fs::read_dir(dir)
            .map(|entries| {
                entries
                    .filter_map(|e| e.ok())
                    .filter_map(|e| e.path().file_stem().map(|s| s.to_string_lossy().into_owned()))
                    .collect()
            })
            .unwrap_or_default();
        available.sort();
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
                available.join(", ")
            },
        })
    }
}

/// sha256 of `text` as lowercase hex.
pub fn sha256_hex(text: &str) -> String {
    hex::encode(Sha256::digest(text.as_bytes()))
}
