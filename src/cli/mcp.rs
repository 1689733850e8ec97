//! `mcp`: the flags of the MCP server, checked before the client connects; the server
//! itself is the [`crate::mcp`] face over [`arena::ClientGames`].

use std::time::Duration;

use anyhow::{Context, Result};

use super::agent_args::parse_player;
use super::args::{GameArg, McpArgs};
use super::external;
use super::openings;
use super::serve::listen;
use super::stdout::outln;
use crate::mcp::{serve, serve_http, HttpOptions, McpOptions, PATH};
use agent::{prompts_dir, ModelGame};
use arena::{is_llm_spec, ClientFlags, ClientPlan, ClientRun};
use game::{Marubatsu, Othello};

pub(super) async fn run(args: McpArgs, env: &dyn Fn(&str) -> Option<String>) -> Result<()> {
    match args.game {
        GameArg::Othello => serve_game::<Othello>(args, env).await,
        GameArg::Marubatsu => serve_game::<Marubatsu>(args, env).await,
    }
}

/// Serves games of `R` as the plan the flags give ([`ClientPlan`]).
async fn serve_game<R: ModelGame>(args: McpArgs, env: &dyn Fn(&str) -> Option<String>) -> Result<()> {
    if args.http.is_none() && args.listen.token.is_some() {
        anyhow::bail!("--token is for --http ADDR: over stdio the client that starts the server is its only client");
    }
    if let Some(name) = &args.name {
        agent::AgentConfig::check_name(name).context("bad --name")?;
    }
    let openings = openings::from_args::<R>(&args.openings, args.seed)?;
    let connection = if args.opponents.iter().any(|spec| is_llm_spec(spec)) {
        Some(args.hosts.connect(&args.agent, env).await?)
    } else {
        None
    };
    let opponents = args
        .opponents
        .iter()
        .map(|spec| parse_player::<R>(spec, "--opponent", &args.agent, connection.as_ref()))
        .collect::<Result<Vec<_>>>()?;
    external::identify(&opponents).await?;
    let config = args
        .agent
        .config::<R>("", &prompts_dir())
        .context("bad agent settings")?;
    let flags = ClientFlags {
        opponents,
        openings,
        seed: args.seed,
        max_invalid: args.max_invalid,
        max_games: args.max_games,
        agent: config,
        labels_chosen: args.agent.settings.labels.is_some(),
    };
    let plan = ClientPlan::resolve(flags, &prompts_dir())?;
    let options = McpOptions {
        settings: plan.settings,
        log_dir: client_run(&args)?,
        name: args.name,
        system_prompt: plan.system_prompt.text,
    };
    let Some(bind) = args.http else {
        // stdout is the protocol's: what this command says goes to stderr.
        if let Some(run) = serve(options).await? {
            eprintln!("games logged in {}", run.display());
        }
        return Ok(());
    };
    let http = HttpOptions {
        listen: listen(bind, "--http", &args.listen)?,
        move_wait: Duration::from_secs_f64(args.move_wait),
    };
    let token = http.listen.token.clone();
    let runs = serve_http(options, http, |address| {
        outln!("serving MCP (Streamable HTTP) at http://{address}{PATH}  (Ctrl-C stops)")?;
        if let Some(token) = &token {
            outln!("token: {token}  (send Authorization: Bearer {token})")?;
        }
        Ok(())
    })
    .await?;
    for run in runs {
        outln!("games logged in {}", run.display())?;
    }
    Ok(())
}

/// Where the games go (`--log-dir`, else `--runs`), checked before serving; a note
/// when `--log-dir` is read as a folder of runs.
fn client_run(args: &McpArgs) -> Result<ClientRun> {
    let (run, note) = ClientRun::from_flags(args.log_dir.as_deref(), &args.runs);
    if let Some(note) = note {
        eprintln!("note: {note}");
    }
    run.check().with_context(|| match &run {
        ClientRun::At(dir) => format!(
            "bad --log-dir {}: give a new or empty folder you can write (mcp starts a new run each time), \
             or --runs DIR for a new run folder under DIR",
            dir.display()
        ),
        ClientRun::Under(dir) => format!(
            "bad --runs {}: give a folder you can write, where each client's run gets a folder of its own",
            dir.display()
        ),
    })?;
    Ok(run)
}
