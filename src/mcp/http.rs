//! MCP over Streamable HTTP (`othello-arena mcp --http ADDR`), at `/mcp`, for clients
//! that are not one long-lived process: web agents, hosted agent platforms, the MCP
//! Inspector's CLI (a new process each call), the protocol's conformance suite.
//!
//! rmcp serves the protocol: revisions before 2026-07-28 in sessions (`Mcp-Session-Id`,
//! one handler a session, its `initialize` naming the client), the 2026-07-28 revision
//! statelessly (SEP-2567: one handler a request, the client named in each request's
//! `_meta`). So a game outlives the request that started it: every handler shares one
//! [`arena::ClientStore`], a run per client player, logged exactly as over stdio.
//!
//! A game ends without its client as follows: a session that closes (the client's
//! `DELETE`, or a session idle for `--move-wait`: rmcp's keep-alive) ends the games it
//! was the last to call, logged as stopped `disconnected`, as over stdio when the client
//! goes away;
//! a game that waits `--move-wait` for its client's next call at its turn (the only
//! way to see a stateless client gone) is logged as stopped `abandoned`; Ctrl-C or
//! SIGTERM (a service manager's stop) stops the server, each open game logged as
//! stopped `interrupted` where its client would move.
//!
//! The listening is the web face's ([`crate::web::Listen`]): loopback only (the `Host`
//! checked) unless a token is given, then `Authorization: Bearer TOKEN` on every
//! request; a request from another site's page (`Origin`) refused; connections
//! bounded, their headers timed. Bodies are bounded by rmcp ([`MAX_BODY`]), sessions
//! by [`super::sessions::MAX_SESSIONS`].

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};

use super::sessions::Capped;
use super::{McpOptions, McpServer, Served};
use crate::web::Listen;
use agent::ModelGame;

/// The path the transport answers at.
pub const PATH: &str = "/mcp";

/// The largest request body read (no message of this server's tools comes near it).
pub const MAX_BODY: usize = 1 << 20;

/// How the HTTP server runs.
pub struct HttpOptions {
    /// Where and how it listens.
    pub listen: Listen,
    /// How long a game waits for its client's call at its turn, and a session for its
    /// next request, before it is ended.
    pub move_wait: Duration,
}

/// Serves `options`' games over HTTP until Ctrl-C or SIGTERM: then each open game plays
/// the move under way and is logged as stopped (`interrupted`) at its client's turn,
/// and the run folders are answered. A second signal quits at once, between two log
/// lines (the command's signal handling). `ready` is told the address once the
/// socket listens.
pub async fn serve_http<R: ModelGame>(
    mut options: McpOptions<R>,
    http: HttpOptions,
    ready: impl FnOnce(SocketAddr) -> anyhow::Result<()>,
) -> anyhow::Result<Vec<PathBuf>> {
    options.settings.move_wait = Some(http.move_wait);
    let served = Served::new(options);
    let mut sessions = LocalSessionManager::default();
    sessions.session_config.keep_alive = Some(http.move_wait);
    // The guard checks the Host (and the Origin) for every face that listens: rmcp's
    // own check of the Host is left off, so that a token opens other addresses.
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(true)
        .disable_allowed_hosts()
        .with_max_request_body_bytes(MAX_BODY);
    let handlers = served.clone();
    let service = StreamableHttpService::new(
        move || Ok(McpServer::new(handlers.clone())),
        Arc::new(Capped::new(sessions)),
        config,
    );
    let app = axum::Router::new().route_service(PATH, service);
    let listening = http.listen.bind(app, ready).await?;
    let stop = arena::ServerStop::arm();
    tokio::select! {
        () = listening => {}
        () = stop.stopped() => {}
    }
    Ok(served.store.interrupt().await)
}
