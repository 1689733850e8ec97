use serde_json::{json, Value};

use crate::{AgentConfig, AnswerFormat, AnswerPolicy, Fallback, InvalidPolicy, LegalMoves, Mode, Prompt};
use game::othello::{Labels, Perspective};
use record::Think;

/// Settings that between them hold every value of every enum-valued setting.
fn every_value() -> Vec<AgentConfig> {
    let base = AgentConfig::new("qwen2.5:0.5b");
    let mut all = vec![base.clone()];
    let mut with = |change: &dyn Fn(&mut AgentConfig)| {
        let mut config = base.clone();
        change(&mut config);
        all.push(config);
    };
    with(&|c| c.mode = Mode::Direct);
    with(&|c| c.on_invalid = InvalidPolicy::Feedback);
    with(&|c| c.answer = AnswerPolicy::First);
    with(&|c| c.answer = AnswerPolicy::Strict);
    with(&|c| c.answer_format = AnswerFormat::Json);
    with(&|c| c.answer_format = AnswerFormat::JsonLegal);
    with(&|c| c.style.labels = Labels::English);
    with(&|c| c.style.perspective = Perspective::Relative);
    with(&|c| c.think = Some(Think::Enabled(true)));
    with(&|c| c.think = Some(Think::Enabled(false)));
    with(&|c| c.think = Some(Think::Level("high".into())));
    with(&|c| c.fallback = Fallback::Forfeit);
    with(&|c| c.legal_moves = LegalMoves::Hidden);
    with(&|c| c.fallback = Fallback::Engine("alphabeta:4:weight".into()));
    with(&|c| {
        c.name = Some("direct".into());
        c.system_prompt = Some(Prompt::from_text("tool-ja", "system"));
        c.user_template = Some(Prompt::from_text("t.md", "{board}"));
        c.keep_alive = Some("10m".into());
        c.options.temperature = Some(0.5);
        c.options.num_predict = Some(64);
        c.max_turns = 2;
        c.max_sessions = 1;
        c.max_tool_rounds = 3;
        c.answer_reason = false;
        c.vote = 5;
        c.cut_off_message = Some("too long".into());
    });
    all
}

#[test]
fn settings_round_trip_through_json_and_toml_with_every_value() {
    for config in every_value() {
        let json = serde_json::to_string(&config).unwrap();
        assert_eq!(serde_json::from_str::<AgentConfig>(&json).unwrap(), config, "{json}");
        let toml = toml::to_string(&config).unwrap();
        assert_eq!(toml::from_str::<AgentConfig>(&toml).unwrap(), config, "{toml}");
    }
}

/// The keys and values `AgentConfig::to_json` wrote (before the settings were typed).
#[test]
fn the_defaults_are_written_as_run_json_always_wrote_them() {
    let written = serde_json::to_value(AgentConfig::new("m")).unwrap();
    let expected = json!({
        "model": "m", "name": null, "mode": "tool", "system_prompt": null, "user_template": null,
        "board_labels": "ja", "board_perspective": "absolute", "think": null, "options": {},
        "keep_alive": null, "max_turns": 10, "max_sessions": 3, "max_tool_rounds": null,
        "fallback": "random", "answer": "last", "answer_format": "text", "answer_reason": null,
        "on_invalid": "retry", "vote": null, "cut_off_message": null,
    });
    assert_eq!(written, expected);
    let every = every_value().pop().unwrap();
    let written = serde_json::to_value(every).unwrap();
    for (key, value) in [
        ("max_tool_rounds", json!(3)),
        ("answer_reason", json!(false)),
        ("vote", json!(5)),
        ("think", Value::Null),
        ("options", json!({"temperature": 0.5, "num_predict": 64})),
        (
            "system_prompt",
            json!({"source": "tool-ja", "text": "system", "sha256": crate::sha256_hex("system")}),
        ),
    ] {
        assert_eq!(written[key], value, "{key}");
    }
    let words = |config: &AgentConfig| serde_json::to_value(config).unwrap();
    let legal = every_value()
        .into_iter()
        .find(|c| c.answer_format == AnswerFormat::JsonLegal)
        .unwrap();
    assert_eq!(words(&legal)["answer_format"], "json-legal");
    let on = every_value().into_iter().find(|c| c.think.is_some()).unwrap();
    assert_eq!(words(&on)["think"], true, "Ollama's value");
}

#[test]
fn an_older_record_reads_as_that_version_played_and_keeps_its_keys() {
    // As the binary before `answer_reason`, `vote` and `cut_off_message` wrote it.
    let old = json!({
        "model": "stub", "name": null, "mode": "tool", "system_prompt": null, "user_template": null,
        "board_labels": "en", "board_perspective": "relative", "think": false, "options": {"seed": 7},
        "keep_alive": null, "max_turns": 4, "max_sessions": 2, "max_tool_rounds": null,
        "fallback": "greedy", "answer": "first", "answer_format": "text", "on_invalid": "feedback",
    });
    let config: AgentConfig = serde_json::from_value(old.clone()).unwrap();
    assert!(config.answer_reason && config.vote == 1 && config.cut_off_message.is_none());
    assert_eq!(config.style.labels, Labels::English);
    assert_eq!(config.think, Some(Think::Enabled(false)));
    assert_eq!(serde_json::to_value(&config).unwrap(), old, "written back as it was");
    // Made by hand: every key left out is the default.
    let bare: AgentConfig = serde_json::from_value(json!({"model": "m", "from_the_future": 1})).unwrap();
    assert_eq!(bare, AgentConfig::new("m"));
    let err = serde_json::from_value::<AgentConfig>(json!({"model": "m", "mode": "chat"})).unwrap_err();
    assert!(err.to_string().contains("expected tool or direct"), "{err}");
}

/// Blind play is recorded as `legal_moves = "hidden"`; shown moves (every older run)
/// write no key, so no run.json of shown play changes.
#[test]
fn hidden_legal_moves_are_recorded_and_shown_ones_add_no_key() {
    let mut config = AgentConfig::new("m");
    assert_eq!(serde_json::to_value(&config).unwrap().get("legal_moves"), None);
    config.legal_moves = LegalMoves::Hidden;
    let written = serde_json::to_value(&config).unwrap();
    assert_eq!(written["legal_moves"], "hidden");
    assert_eq!(serde_json::from_value::<AgentConfig>(written).unwrap(), config);
}

/// Hidden moves refuse json-legal and a template that fills in `{legal_moves}`,
/// naming both settings; shown moves take either.
#[test]
fn hidden_moves_refuse_what_would_tell_them() {
    let mut config = AgentConfig::new("m");
    config.answer_format = AnswerFormat::JsonLegal;
    assert_eq!(config.check(), Ok(()));
    config.legal_moves = LegalMoves::Hidden;
    let message = config.check().unwrap_err().to_string();
    assert!(
        message.contains("--answer-format json-legal") && message.contains("--legal-moves hidden"),
        "{message}"
    );
    config.answer_format = AnswerFormat::Json;
    assert_eq!(config.check(), Ok(()));
    config.user_template = Some(Prompt::from_text("user-en", "{board} Legal: {legal_moves}"));
    let message = config.check().unwrap_err().to_string();
    assert!(
        message.contains("user-en") && message.contains("--legal-moves hidden"),
        "{message}"
    );
}

/// A system prompt that speaks of the legal-move list (the board's "Legal moves",
/// 「置ける位置」, `opponent_valid_moves`) promises what blind play never gives: refused
/// under hidden moves, naming the prompt and the blind ones; the shipped blind prompts
/// pass, and every shipped prompt that names the list has a blind one.
#[test]
fn hidden_moves_refuse_a_system_prompt_that_speaks_of_the_list() {
    let shipped = |name: &str| {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../../prompts/{name}.md"));
        Prompt::from_text(name, &std::fs::read_to_string(path).unwrap())
    };
    let mut config = AgentConfig::new("m");
    config.legal_moves = LegalMoves::Hidden;
    for (name, mark) in [
        ("tool-en", "the \"Legal moves\" list"),
        ("tool-ja", "the 「置ける位置」 list"),
        ("marubatsu-tool-en", "the \"Legal moves\" list"),
        ("small-model", "a list of the legal moves (\"lists your legal moves\")"),
    ] {
        config.system_prompt = Some(shipped(name));
        let message = config.check().unwrap_err().to_string();
        assert!(
            message.starts_with(&format!("--system {name} speaks of {mark}")),
            "{message}"
        );
        assert!(message.contains("tool-en-blind"), "{message}");
        config.system_prompt = Some(shipped(&format!("{name}-blind")));
        assert_eq!(config.check(), Ok(()), "{name}-blind");
        config.legal_moves = LegalMoves::Shown;
        config.system_prompt = Some(shipped(name));
        assert_eq!(config.check(), Ok(()), "{name} with the moves shown");
        config.legal_moves = LegalMoves::Hidden;
    }
    config.system_prompt = Some(Prompt::from_text("mine", "Weigh opponent_valid_moves."));
    assert!(config
        .check()
        .unwrap_err()
        .to_string()
        .contains("speaks of opponent_valid_moves"));
}

/// Two settings differ on a key when run.json writes it differently, a key an older
/// record leaves out read as what its absence meant; every key written is compared.
#[test]
fn settings_differ_by_their_written_keys_an_absent_key_read_as_its_meaning() {
    let now = AgentConfig::new("m");
    let old: AgentConfig = serde_json::from_value(json!({"model": "m"})).unwrap();
    assert!(old.differing(&now).is_empty(), "{:?}", old.differing(&now));
    let mut every = now.clone();
    every.legal_moves = LegalMoves::Hidden;
    every.vote = 3;
    every.answer_reason = false;
    every.max_turns = 4;
    every.cut_off_message = Some("cut".into());
    let written = serde_json::to_value(&every).unwrap();
    let changed: Vec<&String> = written.as_object().unwrap().keys().collect();
    assert!(changed.len() >= 20);
    let differing = old.differing(&every);
    assert_eq!(
        differing,
        ["answer_reason", "cut_off_message", "legal_moves", "max_turns", "vote"],
        "in the file's order"
    );
}
