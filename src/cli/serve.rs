//! `serve`: the flags and the safety checks on them. The agent and host flags become
//! the page's opponents ([`arena::Players`]: checked here, once, and connected to the
//! model servers when the first `llm:` opponent is chosen); the web app calls the arena
//! for everything else.

use std::net::SocketAddr;

use anyhow::{bail, Context, Result};

use super::agent_args::{AgentArgs, HostArgs};
use super::args::{ListenArgs, ServeArgs};
use super::external;
use super::stdout::outln;
use crate::web::{generate_token, is_loopback, Listen, ServeOptions};
use agent::prompts_dir;
use arena::Players;
use game::Othello;

pub(super) async fn run(args: ServeArgs, env: &dyn Fn(&str) -> Option<String>) -> Result<()> {
    let listen = listen(args.bind, "--bind", &args.listen)?;
    let token = listen.token.clone();
    let options = ServeOptions {
        listen,
        runs: args.runs.clone(),
        max_games: args.max_games,
        move_wait: std::time::Duration::from_secs_f64(args.move_wait),
        intrinsic: runs::Calibration::shipped(),
    };
    let players = players(&args.agent, &args.hosts, env)?;
    let runs = args.runs.display().to_string();
    crate::web::serve(options, players, |address| {
        let query = token.as_deref().map_or(String::new(), |t| format!("?token={t}"));
        outln!("serving http://{address}/{query}  (runs: {runs}; Ctrl-C stops)")?;
        if let Some(t) = &token {
            outln!("token: {t}")?;
        }
        Ok(())
    })
    .await
}

/// How a face listens on `bind` (given by `flag`): the token checked, or one
/// generated where the address is not a loopback one (which needs one).
pub(super) fn listen(bind: SocketAddr, flag: &'static str, args: &ListenArgs) -> Result<Listen> {
    let token = match (&args.token, is_loopback(&bind)) {
        (Some(token), _) if token.trim().len() < 16 => {
            bail!("bad --token: give at least 16 characters (or leave it out to have one generated)")
        }
        (Some(token), _) => Some(token.trim().to_string()),
        (None, true) => None,
        (None, false) => Some(generate_token()),
    };
    if token
        .as_deref()
        .is_some_and(|t| !t.chars().all(|c| c.is_ascii_graphic() && c != '&' && c != ';'))
    {
        bail!("bad --token: use letters, digits and punctuation other than & and ;");
    }
    Ok(Listen {
        bind,
        flag,
        token,
        max_connections: args.max_connections,
        header_timeout: std::time::Duration::from_secs_f64(args.header_timeout),
    })
}

/// The opponents the page offers: engines, and `llm:` players with the agent flags'
/// settings (each with its own model) on the host flags' servers; `env` looks up
/// `OLLAMA_HOST` and API key variables.
fn players(agent: &AgentArgs, hosts: &HostArgs, env: &dyn Fn(&str) -> Option<String>) -> Result<Players> {
    let settings = agent
        .config::<Othello>("", &prompts_dir())
        .context("bad settings for llm: opponents")?;
    let engines = external::all(agent.engines.as_deref())?;
    Ok(Players::new(settings, hosts.settings(agent, env)?).with_engines(engines))
}
