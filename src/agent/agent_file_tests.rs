//! The agent settings as an agent file gives them, resolved.

use super::*;
use crate::{prompts_dir, ShippedFile, ShippedKind, JSON_ANSWER_TOKENS, SHIPPED};
use game::Othello;
use settings::{AgentConfig, AnswerFormat, AnswerPolicy, ConflictError, LegalMoves, Mode, SettingsError};

/// The settings of an agent file holding `text`.
fn read(text: &str) -> Result<AgentFile, toml::de::Error> {
    toml::from_str(text)
}

fn config(settings: &AgentSettings) -> AgentConfig {
    settings.config::<Othello>("m", &prompts_dir()).unwrap()
}

/// Nothing given is the defaults.
#[test]
fn nothing_given_is_the_defaults() {
    assert_eq!(config(&AgentSettings::default()), AgentConfig::new("m"));
}

/// JSON answers with no cap given get the default cap (run.json and the eval table
/// show it); text answers and a cap given are left alone; a resumed run that recorded
/// JSON answers uncapped stays uncapped.
#[test]
fn json_answers_get_a_default_token_cap() {
    let json = config(&AgentSettings {
        answer_format: Some(AnswerFormat::JsonLegal),
        ..AgentSettings::default()
    });
    assert_eq!(json.options.num_predict, Some(JSON_ANSWER_TOKENS));
    assert_eq!(
        json.cap_note(),
        format!("answers capped at {JSON_ANSWER_TOKENS} tokens (num_predict, thinking included)")
    );
    let text = config(&AgentSettings::default());
    assert_eq!(text.options.num_predict, None);
    assert_eq!(text.cap_note(), "answers not capped (no num_predict)");
    let given = config(&AgentSettings {
        answer_format: Some(AnswerFormat::Json),
        num_predict: Some(64),
        ..AgentSettings::default()
    });
    assert_eq!(given.options.num_predict, Some(64));
    let mut recorded = json.clone();
    recorded.options.num_predict = None;
    let mut resumed = json.clone();
    resumed.keep_recorded_cap(&recorded);
    assert_eq!(resumed.options.num_predict, None);
    let mut capped = given.clone();
    capped.keep_recorded_cap(&recorded);
    assert_eq!(capped.options.num_predict, Some(64), "a cap given is kept");
}

/// Given settings override a file's one by one; the file's `[options]`, `api` and
/// `host` are read, and a key that is no setting (or a flag's only) is refused.
#[test]
fn given_settings_override_the_file_and_unknown_keys_are_refused() {
    let text = "mode = \"direct\"\nmax_turns = 4\nhost = \"10.0.0.5:8000\"\napi = \"OpenAI\"\n\
                cut_off_message = \"cut\"\nanswer = \"Strict\"\n[options]\ntemperature = 0.5\nnum_ctx = 4096\n";
    let file = read(text).unwrap();
    assert_eq!(
        (file.api, file.host.as_deref()),
        (Some(Api::Openai), Some("10.0.0.5:8000"))
    );
    let flags = AgentSettings {
        max_turns: Some(7),
        temperature: Some(0.0),
        ..AgentSettings::default()
    };
    let config = config(&flags.over(&file.agent));
    assert_eq!((config.mode, config.max_turns), (Mode::Direct, 7));
    assert_eq!(
        (config.options.temperature, config.options.num_ctx),
        (Some(0.0), Some(4096))
    );
    assert_eq!(config.cut_off_message.as_deref(), Some("cut"));
    assert_eq!(config.answer, AnswerPolicy::Strict);
    for unknown in ["colour = \"red\"\n", "agent_file = \"x.toml\"\n", "temperature = 0.5\n"] {
        let message = read(unknown).unwrap_err().to_string();
        assert!(message.contains("unknown field"), "{unknown}: {message}");
    }
    let message = read("labels = \"fr\"\n").unwrap_err().to_string();
    assert!(
        message.contains("invalid labels \"fr\": expected ja or en"),
        "{message}"
    );
}

/// Settings that cannot be used are refused naming the flag.
#[test]
fn bad_settings_name_their_flag() {
    let refused = |settings: AgentSettings| settings.config::<Othello>("m", &prompts_dir()).unwrap_err();
    let fallback = refused(AgentSettings {
        fallback: Some("human".parse().unwrap()),
        ..AgentSettings::default()
    });
    assert_eq!(fallback.to_string(), "bad --fallback for othello");
    let system = refused(AgentSettings {
        system: Some("no-such-prompt".to_string()),
        ..AgentSettings::default()
    });
    assert_eq!(system.to_string(), "bad --system");
    let hidden = refused(AgentSettings {
        answer_format: Some(AnswerFormat::JsonLegal),
        legal_moves: Some(LegalMoves::Hidden),
        ..AgentSettings::default()
    });
    assert!(matches!(
        hidden,
        SettingsError::Conflict(ConflictError::JsonLegalHidden)
    ));
}

/// Every agent file we ship loads, and each one that asks for a JSON answer leaves the
/// optional reason out (a small model spends its token cap on it).
#[test]
fn every_shipped_agent_file_loads_and_its_json_answers_fit_their_cap() {
    let files: Vec<&ShippedFile> = SHIPPED.iter().filter(|f| f.kind == ShippedKind::AgentFile).collect();
    assert!(files.len() >= 3, "{files:?}");
    for file in files {
        let agent = read(file.text).unwrap().agent;
        let config = config(&agent);
        if config.answer_format != AnswerFormat::Text {
            assert!(!config.answer_reason, "{}", file.file);
            assert!(config.options.num_predict.is_some(), "{} caps its answers", file.file);
        }
    }
}

/// The agent settings as flags alone (the agent flags are these, beside the files').
#[derive(clap::Parser)]
#[command(no_binary_name = true)]
struct Flags {
    #[command(flatten)]
    settings: AgentSettings,
}

/// The settings `flags` give, with no file.
fn flags(flags: &[&str]) -> AgentSource {
    use clap::Parser;
    AgentSource {
        settings: Flags::try_parse_from(flags).unwrap().settings,
        ..AgentSource::default()
    }
}

/// A temporary folder for agent files, removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!("othello-arena-agent-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    /// A source with only its agent file, a file holding `text`.
    fn agent_file(&self, name: &str, text: &str) -> AgentSource {
        let file = self.0.join(format!("{name}.toml"));
        std::fs::write(&file, text).unwrap();
        AgentSource {
            file: Some(file),
            ..AgentSource::default()
        }
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn source_config(source: &AgentSource) -> Result<AgentConfig, AgentSourceError> {
    source.config::<Othello>("m", &prompts_dir())
}

/// Every word of every enum-valued setting (any case) gives the same settings as a
/// flag and as an agent file's key.
#[test]
fn every_word_reads_alike_from_the_flag_and_the_agent_file() {
    let dir = TempDir::new("words");
    let words: &[(&str, &[&str])] = &[
        ("mode", &["tool", "direct", "DIRECT"]),
        ("labels", &["ja", "EN", "en"]),
        ("perspective", &["absolute", "Relative"]),
        ("think", &["on", "off", "low", "medium", "high", "max", "true", "False"]),
        ("fallback", &["forfeit", "random", "nhand", "alphabeta:4:weight"]),
        ("answer", &["last", "first", "Strict"]),
        ("on_invalid", &["retry", "feedback"]),
        ("answer_format", &["text", "json", "json-legal"]),
        ("legal_moves", &["hidden", "Hidden"]),
    ];
    for (key, values) in words {
        let flag = format!("--{}", key.replace('_', "-"));
        for word in *values {
            let from_flag = source_config(&flags(&[&flag, word])).unwrap();
            let from_file = source_config(&dir.agent_file(key, &format!("{key} = \"{word}\"\n"))).unwrap();
            assert_eq!(from_flag, from_file, "{key} = {word}");
            let stored = match *key {
                "labels" | "perspective" => format!("board_{key}"),
                _ => key.to_string(),
            };
            let written = serde_json::to_value(&from_file).unwrap();
            assert_ne!(written[&stored], serde_json::Value::Null, "{key} = {word} is recorded");
        }
    }
    // A switch as TOML writes it, and as the flag takes it.
    for (text, given) in [
        ("think = true", ["--think", "on"]),
        ("answer_reason = false", ["--answer-reason", "false"]),
    ] {
        let from_file = source_config(&dir.agent_file("switch", text)).unwrap();
        assert_eq!(from_file, source_config(&flags(&given)).unwrap(), "{text}");
    }
    assert_eq!(source_config(&flags(&[])).unwrap(), AgentConfig::new("m"));
}

/// Given settings override the agent file one by one; its `api` and `host` are read;
/// a value out of a flag's range is refused as the flag is, naming the file; a file
/// that is not there, or not the settings' TOML, is refused naming `--agent-file`.
#[test]
fn given_settings_override_the_agent_file_and_its_faults_name_it() {
    let dir = TempDir::new("over");
    let text = "mode = \"direct\"\nmax_turns = 4\nhost = \"10.0.0.5:8000\"\napi = \"openai\"\n\
                [options]\ntemperature = 0.5\n";
    let mut source = dir.agent_file("file", text);
    source.settings.max_turns = Some(7);
    let resolved = source_config(&source).unwrap();
    assert_eq!((resolved.mode, resolved.max_turns), (Mode::Direct, 7));
    assert_eq!(resolved.options.temperature, Some(0.5));
    let file = source.file().unwrap();
    assert_eq!(
        (file.api, file.host.as_deref()),
        (Some(Api::Openai), Some("10.0.0.5:8000"))
    );
    let refused = |source: &AgentSource| source_config(source).unwrap_err().to_string();
    let range = refused(&dir.agent_file("bad", "vote = 17\n"));
    assert!(
        range.starts_with("bad vote in --agent-file: 17 is out of range"),
        "{range}"
    );
    let option = refused(&dir.agent_file("option", "[options]\nnum_ctx = 0\n"));
    assert!(
        option.starts_with("bad [options] in --agent-file: num_ctx: 0"),
        "{option}"
    );
    let toml = refused(&dir.agent_file("toml", "mode = \n"));
    assert!(
        toml.ends_with("fix the TOML (keys are the flag names, options under [options])"),
        "{toml}"
    );
    let missing = AgentSource {
        file: Some(dir.0.join("missing.toml")),
        ..AgentSource::default()
    };
    assert!(
        refused(&missing).starts_with("cannot read --agent-file "),
        "{}",
        refused(&missing)
    );
    let shipped = AgentSource {
        file: Some(PathBuf::from("prompts/small-model.toml")),
        ..AgentSource::default()
    };
    assert_eq!(
        source_config(&shipped).unwrap().mode,
        Mode::Direct,
        "a shipped file, built in"
    );
}
