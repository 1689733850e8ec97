//! `serve`: the flags, the safety checks on them, and the command line's helpers lent to
//! the web app ([`crate::web::Services`]): players from spec strings (`llm:MODEL`
//! through the host or fleet flags, connected on first use), run folders, `stats`'
//! tables, the report's page and `rate`'s leaderboard.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{bail, Result};
use clap::Args;
use serde_json::{json, Value};

use super::agent_args::{is_llm_spec, parse_player, AgentArgs, Connection, HostArgs};
use super::rate::{read_games, tables, Anchor};
use super::report_html::render;
use super::stats::{collect_groups, groups_json};
use crate::web::{generate_token, is_loopback, ServeOptions, Services};
use arena::Groups;
use arena::{read_game_logs, PlayerSpec};

/// `serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Address to listen on. Anything but a loopback address needs a token (--token,
    /// or one generated and printed at start).
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub bind: SocketAddr,
    /// The runs folder: games played in the browser are logged here, and the watch
    /// page shows (only) the run folders under it.
    #[arg(long, default_value = "logs")]
    pub runs: PathBuf,
    /// Require this token on every request (the printed address carries it).
    #[arg(long)]
    pub token: Option<String>,
    /// Connections open at once.
    #[arg(long, default_value_t = 64)]
    pub max_connections: usize,
    /// Games played in the browser at once.
    #[arg(long, default_value_t = 16)]
    pub max_games: usize,
    #[command(flatten)]
    pub agent: AgentArgs,
    #[command(flatten)]
    pub hosts: HostArgs,
}

pub(super) async fn run(args: ServeArgs) -> Result<()> {
    if args.max_connections == 0 || args.max_games == 0 {
        bail!("bad --max-connections or --max-games: give 1 or more");
    }
    let token = match (&args.token, is_loopback(&args.bind)) {
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
    let options = ServeOptions {
        bind: args.bind,
        runs: args.runs.clone(),
        token: token.clone(),
        max_connections: args.max_connections,
        max_games: args.max_games,
    };
    let services = Arc::new(CliServices {
        agent: args.agent,
        hosts: args.hosts,
        connection: tokio::sync::Mutex::new(None),
    });
    let runs = args.runs.display().to_string();
    crate::web::serve(options, services, |address| {
        let query = token.as_deref().map_or(String::new(), |t| format!("?token={t}"));
        println!("serving http://{address}/{query}  (runs: {runs}; Ctrl-C stops)");
        if let Some(t) = &token {
            println!("token: {t}");
        }
    })
    .await
}

/// The command line's helpers, for the web app.
struct CliServices {
    agent: AgentArgs,
    hosts: HostArgs,
    connection: tokio::sync::Mutex<Option<Connection>>,
}

fn read_env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

#[async_trait::async_trait]
impl Services for CliServices {
    async fn player(&self, spec: &str) -> Result<PlayerSpec> {
        if !is_llm_spec(spec) {
            return parse_player(spec, "opponent", &self.agent, None);
        }
        let mut connection = self.connection.lock().await;
        if connection.is_none() {
            // `connect` borrows a plain `Fn` for the environment, which cannot cross
            // threads: it runs to its end on this one.
            let connect = self.hosts.connect(&self.agent, &read_env);
            let handle = tokio::runtime::Handle::current();
            *connection = Some(tokio::task::block_in_place(|| handle.block_on(connect))?);
        }
        parse_player(spec, "opponent", &self.agent, connection.as_ref())
    }

    fn tables(&self, logs: &[PathBuf]) -> Result<Value> {
        Ok(json!({ "groups": groups_json(&collect_groups(logs)?.groups) }))
    }

    fn report(&self, logs: &[PathBuf]) -> Result<String> {
        // Runs without an LLM player have no groups, only games.
        let groups = match collect_groups(logs) {
            Ok(groups) => groups,
            Err(_) => Groups {
                groups: Default::default(),
                logs: read_game_logs(logs)?,
            },
        };
        Ok(render(logs, &groups, true)?.0)
    }

    fn leaderboard(&self, logs: &[PathBuf]) -> Result<String> {
        let games = read_games(logs)?;
        // Anchored to random when it played, else to the first player by name.
        let mut names: Vec<&str> = games
            .iter()
            .flat_map(|g| [g.game.players.black.as_str(), g.game.players.white.as_str()])
            .collect();
        names.sort_unstable();
        let Some(anchor) = Anchor::among(names) else {
            bail!("no games in these runs");
        };
        let (as_played, as_loss) = arena::leaderboards(&games, (&anchor.spec, anchor.elo), 1000, 1)?;
        Ok(format!(
            "anchor: {} = {}\n{}",
            anchor.spec,
            anchor.elo,
            tables(&as_played, as_loss.as_ref())
        ))
    }
}
