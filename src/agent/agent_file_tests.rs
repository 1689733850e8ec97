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
