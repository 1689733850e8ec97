//! `serve`: the browser face. A person plays any engine or model here, and watches the
//! runs under a folder (live runs followed as their logs grow, games replayed with the
//! report's viewer, the `rate` leaderboard over chosen runs).
//!
//! axum on the process's tokio runtime; the page's HTML, CSS and JavaScript are built
//! into the binary ([`assets`]). Games run as tokio tasks (engines on blocking threads)
//! and their events reach the page over server-sent events.
//!
//! Safety (see [`guard`]): loopback by default, a token on every request otherwise,
//! run files only from under the runs folder, model text inserted as text, a
//! Content-Security-Policy without inline scripts, bounded bodies, connections and games.
//!
//! `web` does not reach into `cli`: it calls the arena directly (run folders, `stats`'
//! tables, the report's page, `rate`'s leaderboard), and takes its opponents from an
//! [`arena::Players`] that `serve` made of its flags. Every handler's error is an
//! [`ApiError`]: a status and the `{"error": message}` body the pages read.

mod assets;
mod error;
mod guard;
mod play;
mod play_events;
mod shelf;
mod watch;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result};
use axum::extract::DefaultBodyLimit;
use axum::routing::{get, post};
use axum::Router;

use arena::Players;

pub(crate) use error::ApiError;
pub use guard::{generate_token, is_loopback};

/// How the server runs.
#[derive(Clone, Debug)]
pub struct ServeOptions {
    /// Where and how it listens.
    pub listen: Listen,
    /// The runs folder: games played here are logged under it, and only files under it
    /// are served.
    pub runs: PathBuf,
    /// Games played in the browser at once.
    pub max_games: usize,
    /// A browser game that waits this long for the person's move is abandoned.
    pub move_wait: Duration,
    /// The intrinsic ratings' calibration of the leaderboard and the report pages (the
    /// shipped one), or why there is none (said on the intrinsic table).
    pub intrinsic: Result<runs::Calibration, String>,
}

/// `text` cut to at most `max` bytes (on a character boundary), saying so.
fn clip(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… ({} bytes more in the log)", &text[..end], text.len() - end)
}

/// What every handler shares.
pub(crate) struct AppState {
    /// The opponents the play page may choose.
    players: Players,
    /// The runs folder, canonical.
    runs: PathBuf,
    games: play::Games,
    /// [`ServeOptions::intrinsic`].
    intrinsic: Result<runs::Calibration, String>,
    /// The result bundles of the runs folder, opened as asked for.
    bundles: shelf::Shelf,
}

/// The largest request body accepted (a move or a list of run names).
const MAX_BODY: usize = 16 * 1024;

/// The application's routes (the guard goes around them where they are served:
/// [`Listen::bind`]), and the state their handlers
/// share (the games in play, which a stopping server ends).
fn router(options: &ServeOptions, players: Players) -> Result<(Router, Arc<AppState>)> {
    std::fs::create_dir_all(&options.runs)
        .with_context(|| format!("cannot create the runs folder {}", options.runs.display()))?;
    let runs = std::fs::canonicalize(&options.runs)
        .with_context(|| format!("cannot resolve the runs folder {}", options.runs.display()))?;
    let state = Arc::new(AppState {
        players,
        runs,
        games: play::Games::new(options.max_games, options.move_wait),
        intrinsic: options.intrinsic.clone(),
        bundles: shelf::Shelf::default(),
    });
    let app = Router::new()
        .route("/", get(assets::play_page))
        .route("/watch", get(assets::watch_page))
        .route("/assets/{name}", get(assets::asset))
        .route("/api/games", post(play::create))
        .route("/api/models", get(play::models))
        .route("/api/games/{id}/events", get(play::events))
        .route("/api/games/{id}/move", post(play::play_move))
        .route("/api/games/{id}/hint", post(play::hint))
        .route("/api/games/{id}/end", post(play::end))
        .route("/api/runs", get(watch::list))
        .route("/api/runs/{run}", get(watch::show))
        .route("/api/runs/{run}/follow", get(watch::follow))
        .route("/api/rate", post(watch::rate))
        .route("/runs/{run}/report", get(watch::report))
        .route("/runs/{run}/files/{file}", get(watch::file))
        .fallback(assets::not_found)
        .with_state(state.clone())
        .layer(DefaultBodyLimit::max(MAX_BODY));
    Ok((app, state))
}

/// Serves until Ctrl-C or SIGTERM (a service manager's stop), which logs every game in
/// play as stopped (a second signal quits at once, between two log lines); `ready` is
/// told the address once the socket listens (its error, such as a closed stdout, ends
/// the serve before any connection).
pub async fn serve(
    options: ServeOptions,
    players: Players,
    ready: impl FnOnce(SocketAddr) -> Result<()>,
) -> Result<()> {
    let (app, state) = router(&options, players)?;
    let listening = options.listen.bind(app, ready).await?;
    let stop = arena::ServerStop::arm();
    tokio::select! {
        () = listening => Ok(()),
        () = stop.stopped() => {
            // A game left open in a browser is logged as stopped, not cut off mid-log.
            state.games.stop_all(STOP_WAIT).await;
            Ok(())
        }
    }
}

/// How an HTTP face listens (`serve`, `mcp --http`): the address, the token, the
/// bounds on connections. Every request passes the [`guard`]: loopback only unless a
/// token is set, then the token on every request.
#[derive(Clone, Debug)]
pub struct Listen {
    /// Address to listen on.
    pub bind: SocketAddr,
    /// The flag that gave it (named when the port is taken).
    pub flag: &'static str,
    /// Required on every request when set.
    pub token: Option<String>,
    /// Connections open at once (more wait to be accepted).
    pub max_connections: usize,
    /// A connection that has not sent a request's headers within this long is closed;
    /// a request whose body has not arrived within this long after them is refused.
    pub header_timeout: Duration,
}

impl Listen {
    /// Listens, tells `ready` the address (its error ends this before any
    /// connection), and answers the future that serves `app` behind the guard until
    /// it is dropped.
    pub async fn bind(
        &self,
        app: Router,
        ready: impl FnOnce(SocketAddr) -> Result<()>,
    ) -> Result<impl std::future::Future<Output = ()>> {
        let listener = tokio::net::TcpListener::bind(self.bind).await.with_context(|| {
            format!(
                "cannot listen on {}: another process may hold the port; choose another {}",
                self.bind, self.flag
            )
        })?;
        ready(listener.local_addr()?)?;
        let guard = Arc::new(guard::Guard::new(
            self.token.clone(),
            is_loopback(&self.bind),
            self.header_timeout,
        ));
        let app = app.layer(axum::middleware::from_fn_with_state(guard, guard::check));
        let listener = guard::BoundedListener::new(listener, self.max_connections);
        Ok(serve_connections(listener, app, self.header_timeout))
    }
}

/// How long a stopping server waits for its games in play to log that they stopped.
const STOP_WAIT: Duration = Duration::from_secs(3);

/// Serves each accepted connection on its own task with HTTP/1, closing one that has
/// not sent a request's headers within `header_timeout` (a client that never finishes
/// them would otherwise hold one of the listener's slots for ever).
async fn serve_connections(mut listener: guard::BoundedListener, app: Router, header_timeout: Duration) {
    use axum::serve::Listener as _;
    loop {
        let (connection, _) = listener.accept().await;
        let service = hyper_util::service::TowerToHyperService::new(app.clone());
        tokio::spawn(async move {
            let served = hyper::server::conn::http1::Builder::new()
                .timer(hyper_util::rt::TokioTimer::new())
                .header_read_timeout(header_timeout)
                .serve_connection(hyper_util::rt::TokioIo::new(connection), service)
                .await;
            if let Err(err) = served {
                tracing::debug!("connection closed: {err}");
            }
        });
    }
}
