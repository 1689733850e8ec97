//! `mcp`: the flags of the MCP server, checked before the client connects; the server
//! itself is the [`crate::mcp`] face over [`arena::ClientGames`].

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Args;

use super::agent_args::{is_llm_spec, parse_player, prompts_dir, AgentArgs, HostArgs};
use super::args::{GameArg, OpeningsArgs};
use super::external;
use super::limits;
use super::openings;
use crate::mcp::{serve, McpOptions};
use agent::{ModelGame, Prompt};
use arena::ClientSettings;
use game::othello::Labels;
use game::{Marubatsu, Othello};

/// `mcp`.
#[derive(Debug, Args)]
pub struct McpArgs {
    /// The game: othello, or marubatsu.
    #[arg(long, value_enum, default_value_t = GameArg::Othello)]
    pub game: GameArg,
    /// The opponent's spec (an engine, ext:NAME, llm:MODEL). Give it several times to
    /// offer several: new_game's `opponent` chooses among them, the first by default.
    #[arg(long = "opponent", value_name = "SPEC", default_value = "random")]
    pub opponents: Vec<String>,
    /// The runs folder: the client's games go to a new run folder under it.
    #[arg(long, default_value = "logs")]
    pub log_dir: PathBuf,
    #[command(flatten)]
    pub openings: OpeningsArgs,
    /// Seed for openings and engines' random choices (game N derives its own).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// The client's player name in logs and tables, as mcp:NAME (default: the name
    /// and version the client's MCP handshake gives).
    #[arg(long)]
    pub name: Option<String>,
    /// Illegal play_move calls at one ply before --fallback moves for the client
    /// (forfeit: the client loses the game).
    #[arg(long, default_value_t = 3, value_parser = limits::flag::agent_rounds)]
    pub max_invalid: u32,
    /// Games open at once.
    #[arg(long, default_value_t = 16, value_parser = limits::flag::parallel)]
    pub max_games: usize,
    #[command(flatten)]
    pub agent: AgentArgs,
    #[command(flatten)]
    pub hosts: HostArgs,
}

pub(super) async fn run(args: McpArgs, env: &dyn Fn(&str) -> Option<String>) -> Result<()> {
    match args.game {
        GameArg::Othello => serve_game::<Othello>(args, env, "tool-en").await,
        GameArg::Marubatsu => serve_game::<Marubatsu>(args, env, "marubatsu-tool-en").await,
    }
}

/// Serves games of `R`; `system` is the prompt offered when --system names none.
async fn serve_game<R: ModelGame>(args: McpArgs, env: &dyn Fn(&str) -> Option<String>, system: &str) -> Result<()> {
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
    let mut config = args
        .agent
        .config::<R>("", &prompts_dir())
        .context("bad agent settings")?;
    let fallback = config.fallback.spec::<R>().context("bad --fallback")?;
    let system_prompt = match config.system_prompt {
        Some(prompt) => prompt,
        None => {
            // The English prompt reads English boards (unless --labels says otherwise).
            if args.agent.labels.is_none() {
                config.style.labels = Labels::English;
            }
            Prompt::load(system, &prompts_dir()).context("cannot read the system prompt")?
        }
    };
    let options = McpOptions {
        settings: ClientSettings {
            opponents,
            openings,
            seed: args.seed,
            max_invalid: args.max_invalid,
            fallback,
            max_games: args.max_games,
            style: config.style,
        },
        log_dir: args.log_dir,
        name: args.name,
        system_prompt: system_prompt.text,
    };
    // stdout is the protocol's: what this command says goes to stderr.
    if let Some(run) = serve(options).await? {
        eprintln!("games logged in {}", run.display());
    }
    Ok(())
}
