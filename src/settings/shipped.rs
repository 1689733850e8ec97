//! The prompts, user-message templates and agent files of the workspace's `prompts/`
//! folder, built into the binary so that it runs wherever it is installed. A file of
//! the same name in `./prompts` (or any file given by its path) is read instead; the
//! hash a run records is the text's, so the built-in text and the same text on disk
//! hash alike.

use std::path::{Component, Path};

/// What a shipped file is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShippedKind {
    /// A system prompt (`--system NAME`).
    System,
    /// A user-message template (`--user-template NAME`).
    UserTemplate,
    /// An agent file (`--agent-file prompts/NAME.toml`).
    AgentFile,
}

impl ShippedKind {
    /// The flag that takes it.
    pub fn flag(self) -> &'static str {
        match self {
            ShippedKind::System => "--system",
            ShippedKind::UserTemplate => "--user-template",
            ShippedKind::AgentFile => "--agent-file",
        }
    }
}

/// One file of `prompts/`, built in.
#[derive(Clone, Copy, Debug)]
pub struct ShippedFile {
    /// Its file name in `prompts/` (`tool-ja.md`, `small-model.toml`).
    pub file: &'static str,
    /// What it is for.
    pub kind: ShippedKind,
    /// One line on when to use it.
    pub about: &'static str,
    /// Its text, byte for byte.
    pub text: &'static str,
}

impl ShippedFile {
    /// Its name: the file name without `.md` (agent files keep `.toml`).
    pub fn name(&self) -> &'static str {
        self.file.strip_suffix(".md").unwrap_or(self.file)
    }
}

/// One entry of [`SHIPPED`]: `file`, its kind and a line about it.
macro_rules! shipped {
    ($($file:literal, $kind:ident, $about:literal;)*) => {
        &[$(ShippedFile {
            file: $file,
            kind: ShippedKind::$kind,
            about: $about,
            text: include_str!(concat!("../../prompts/", $file)),
        },)*]
    };
}

/// Every shipped prompt, template and agent file, in the order `othello-arena prompts`
/// lists them.
pub const SHIPPED: &[ShippedFile] = shipped! {
    "tool-ja.md", System, "tool agent, Japanese labels, absolute colours (B black, W white)";
    "tool-ja-relative.md", System, "tool agent, --perspective relative (B is the side to move)";
    "tool-en.md", System, "tool agent, --labels en";
    "tool-ja-blind.md", System, "tool-ja for --legal-moves hidden (names no legal-move list)";
    "tool-en-blind.md", System, "tool-en for --legal-moves hidden";
    "direct-ja.md", System, "--mode direct: models that answer after </think>";
    "small-model.md", System, "small local models (0.5B) in direct mode, --labels en";
    "small-model-tools.md", System, "small local models in tool mode, --labels en";
    "small-model-blind.md", System, "small-model for --legal-moves hidden";
    "marubatsu-tool-ja.md", System, "marubatsu (--game marubatsu), tool agent, --labels ja";
    "marubatsu-tool-en.md", System, "marubatsu, tool agent, --labels en";
    "marubatsu-tool-en-blind.md", System, "marubatsu-tool-en for --legal-moves hidden";
    "user-en.md", UserTemplate, "user message: {board}, {color} and {legal_moves} filled in";
    "small-model.toml", AgentFile, "Qwen2.5-Coder-0.5B on llama-server, direct mode";
    "small-model-tools.toml", AgentFile, "Qwen2.5-Coder-0.5B on llama-server, tool mode";
    "gemma-3-270m.toml", AgentFile, "base gemma-3-270m, direct, held to legal moves by a JSON schema";
    "gemma-3-270m-text.toml", AgentFile, "base gemma-3-270m answering in free text (mostly fallbacks)";
};

/// The shipped file that `name_or_path` names, if any: its name (`tool-ja`), its file
/// name (`tool-ja.md`, `small-model.toml`), or that file under a `prompts/` folder as
/// the docs write it (`prompts/small-model.toml`, `./prompts/tool-ja.md`).
pub fn shipped(name_or_path: &str) -> Option<&'static ShippedFile> {
    let path = Path::new(name_or_path);
    let parts: Vec<Component> = path.components().filter(|c| *c != Component::CurDir).collect();
    let file = match parts.as_slice() {
        [Component::Normal(file)] => file.to_str()?,
        [Component::Normal(dir), Component::Normal(file)] if *dir == "prompts" => file.to_str()?,
        _ => return None,
    };
    SHIPPED
        .iter()
        .find(|shipped| shipped.file == file || shipped.name() == file)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_files_and_prompts_paths_find_the_same_file() {
        for name in ["tool-ja", "tool-ja.md", "prompts/tool-ja.md", "./prompts/tool-ja.md"] {
            assert_eq!(shipped(name).map(|s| s.file), Some("tool-ja.md"), "{name}");
        }
        let agent = shipped("prompts/small-model.toml").unwrap();
        assert_eq!((agent.kind, agent.name()), (ShippedKind::AgentFile, "small-model.toml"));
        for other in [
            "missing",
            "docs/tool-ja.md",
            "/prompts/tool-ja.md",
            "x/prompts/tool-ja.md",
            "",
        ] {
            assert!(shipped(other).is_none(), "{other}");
        }
    }

    /// Every file of the workspace's prompts/ (but its README) is built in, byte for byte.
    #[test]
    fn every_file_of_the_prompts_folder_is_built_in() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../prompts");
        let mut on_disk: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|file| file != "README.md")
            .collect();
        on_disk.sort();
        let mut built_in: Vec<String> = SHIPPED.iter().map(|s| s.file.to_string()).collect();
        built_in.sort();
        assert_eq!(on_disk, built_in);
        for file in SHIPPED {
            assert_eq!(std::fs::read_to_string(dir.join(file.file)).unwrap(), file.text);
        }
    }
}
