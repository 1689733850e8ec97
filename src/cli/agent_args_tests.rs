use super::*;
use clap::{CommandFactory, Parser};

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

/// The host flags' defaults, a tournament's `[[llm]]` keys' and the library's are one.
#[test]
fn the_host_flags_defaults_are_the_librarys() {
    let (_, flags) = eval_flags(&[]);
    assert_eq!(flags.options(), HostOptions::default());
    assert_eq!(HostArgs::default().options(), HostOptions::default());
    let (_, given) = eval_flags(&["--api", "openai", "--max-in-flight", "2"]);
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
