use super::*;
use clap::{CommandFactory, Parser};
use serde_json::Value;

use agent::Mode;
use game::othello::Labels;

use crate::cli::args::{Cli, Command};

/// The flags' help names the agent's defaults, which `AgentConfig::new` holds: the two
/// must not drift.
#[test]
fn the_help_states_the_agents_own_defaults() {
    let defaults = AgentConfig::new("m");
    let help = Cli::command()
        .find_subcommand_mut("eval")
        .expect("eval is a subcommand")
        .render_long_help()
        .to_string();
    for said in [
        format!("Requests per session, T (default {})", defaults.max_turns),
        format!("Sessions per move, A (default {})", defaults.max_sessions),
        format!("an engine spec (default {})", defaults.fallback),
        format!("{} (default), first or strict", defaults.answer),
    ] {
        assert!(help.contains(&said), "{said}");
    }
    assert_eq!(
        defaults.max_tool_rounds,
        u32::MAX,
        "the help says: no limit but --max-turns"
    );
    assert_eq!(defaults.style.labels, Labels::Japanese);
}

/// The agent and host flags of `eval` as parsed from `flags`.
fn eval_flags(flags: &[&str]) -> (AgentArgs, HostArgs) {
    let args = ["othello-arena", "eval", "--agent", "llm:m"].iter().chain(flags);
    let Command::Eval(eval) = Cli::try_parse_from(args).unwrap().command else {
        panic!("eval parses as eval")
    };
    (eval.agent, eval.hosts)
}

/// A temporary folder for agent files, removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!("othello-arena-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    /// An `AgentArgs` with only `--agent-file` set, to a file holding `text`.
    fn agent_file(&self, name: &str, text: &str) -> AgentArgs {
        let file = self.0.join(format!("{name}.toml"));
        std::fs::write(&file, text).unwrap();
        AgentArgs {
            agent_file: Some(file),
            ..AgentArgs::default()
        }
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn config(agent: &AgentArgs) -> Result<AgentConfig> {
    agent.config::<game::Othello>("m", &prompts_dir())
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
            let from_flag = config(&eval_flags(&[&flag, word]).0).unwrap();
            let from_file = config(&dir.agent_file(key, &format!("{key} = \"{word}\"\n"))).unwrap();
            assert_eq!(from_flag, from_file, "{key} = {word}");
            let stored = match *key {
                "labels" | "perspective" => format!("board_{key}"),
                _ => key.to_string(),
            };
            let written = serde_json::to_value(&from_file).unwrap();
            assert_ne!(written[&stored], Value::Null, "{key} = {word} is recorded");
        }
    }
    // A switch as TOML writes it, and as the flag takes it.
    for (text, flags) in [
        ("think = true", ["--think", "on"]),
        ("answer_reason = false", ["--answer-reason", "false"]),
    ] {
        let from_file = config(&dir.agent_file("switch", text)).unwrap();
        assert_eq!(from_file, config(&eval_flags(&flags).0).unwrap(), "{text}");
    }
    assert_eq!(config(&eval_flags(&[]).0).unwrap(), AgentConfig::new("m"));
}

/// Flags override the agent file one by one; its `api` and `host` name the server
/// when no host flag does; a value out of a flag's range is refused as the flag is.
#[test]
fn flags_override_the_agent_file_and_its_host_is_used() {
    let dir = TempDir::new("over");
    let text = "mode = \"direct\"\nmax_turns = 4\nhost = \"10.0.0.5:8000\"\napi = \"openai\"\n\
                [options]\ntemperature = 0.5\n";
    let mut args = dir.agent_file("file", text);
    args.settings.max_turns = Some(7);
    let resolved = config(&args).unwrap();
    assert_eq!((resolved.mode, resolved.max_turns), (Mode::Direct, 7));
    assert_eq!(resolved.options.temperature, Some(0.5));
    let hosts = HostArgs::default().settings(&args, &|_| None).unwrap();
    assert_eq!(
        (hosts.hosts[0].url.as_str(), hosts.hosts[0].api),
        ("http://10.0.0.5:8000", Api::Openai)
    );
    let bad = dir.agent_file("bad", "vote = 17\n");
    let message = format!("{:#}", config(&bad).unwrap_err());
    assert!(
        message.contains("bad vote in --agent-file: 17 is out of range"),
        "{message}"
    );
}

/// The host flags' defaults, a tournament's `[[llm]]` keys' and the library's are one.
#[test]
fn the_host_flags_defaults_are_the_librarys() {
    let (_, flags) = eval_flags(&[]);
    assert_eq!(flags.options(), HostOptions::default());
    assert_eq!(HostArgs::default().options(), HostOptions::default());
    let none: HostArgs = toml::from_str("").unwrap();
    assert_eq!(none.options(), HostOptions::default());
    let given: HostArgs = toml::from_str("api = \"OpenAI\"\nmax_in_flight = 2\n").unwrap();
    assert_eq!((given.api, given.max_in_flight), (Some(Api::Openai), 2));
}

/// A resume plays with the settings its run.json records: every agent flag, the agent
/// file's too, is refused beside `--resume` (the settings are a group of their own).
#[test]
fn agent_flags_are_refused_beside_a_resume() {
    for (command, flag, value) in [
        ("eval", "--max-turns", "3"),
        ("eval", "--agent-file", "a.toml"),
        ("eval", "--engines", "e.toml"),
        ("place", "--legal-moves", "hidden"),
        ("place", "--agent-file", "a.toml"),
    ] {
        let args = ["othello-arena", command, "--resume", "run", flag, value];
        let refused = Cli::try_parse_from(args)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(refused.contains("cannot be used with"), "{command} {flag}: {refused}");
    }
}
