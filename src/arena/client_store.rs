//! Every client's games in one server process ([`ClientStore`]): a server that outlives
//! its clients' connections (MCP over HTTP, where each request may come on a new
//! connection, or carry no session at all) keeps them here, so that a game outlives
//! the request that started it. Each client (by its player name) has a run of its
//! own, opened at its first game, as a client over stdio has.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use agent::ModelGame;
use runs::McpClient;

use super::client::{ClientGames, ClientSettings, MAX_CLIENTS};
use super::client_calls::ClientError;
use super::client_run::ClientRun;

/// The runs of a server's clients, by player name.
pub struct ClientStore<R: ModelGame> {
    settings: ClientSettings<R>,
    run: ClientRun,
    runs: Mutex<HashMap<String, Arc<ClientGames<R>>>>,
    /// Held while a run is opened, so that two first calls of one client open one.
    opening: tokio::sync::Mutex<()>,
}

impl<R: ModelGame> ClientStore<R> {
    /// An empty store whose clients' games play with `settings`, logged where `run`
    /// says (checked beforehand: [`ClientRun::check`]).
    pub fn new(settings: ClientSettings<R>, run: ClientRun) -> ClientStore<R> {
        ClientStore {
            settings,
            run,
            runs: Mutex::new(HashMap::new()),
            opening: tokio::sync::Mutex::new(()),
        }
    }

    fn runs(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<ClientGames<R>>>> {
        self.runs.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The games of `player`, if it has started one.
    pub fn find(&self, player: &str) -> Option<Arc<ClientGames<R>>> {
        self.runs().get(player).cloned()
    }

    /// The games of `player` (`client` as its handshake named it), its run opened
    /// at its first call.
    pub async fn open(&self, client: McpClient, player: String) -> Result<Arc<ClientGames<R>>, ClientError> {
        let _opening = self.opening.lock().await;
        if let Some(games) = self.find(&player) {
            return Ok(games);
        }
        let first = {
            let runs = self.runs();
            if runs.len() >= MAX_CLIENTS {
                return Err(ClientError::Clients);
            }
            runs.values().next().map(|games| games.player().to_string())
        };
        if let (ClientRun::At(dir), Some(first)) = (&self.run, first) {
            return Err(ClientError::OneRun {
                dir: dir.display().to_string(),
                player: first,
            });
        }
        let (settings, run, name) = (self.settings.clone(), self.run.clone(), player.clone());
        let games = tokio::task::spawn_blocking(move || ClientGames::open(settings, &run, client, name))
            .await
            .map_err(|err| ClientError::Failed {
                id: 0,
                message: format!("opening the run failed: {err}"),
            })??;
        let games = Arc::new(games);
        self.runs().insert(player, games.clone());
        Ok(games)
    }

    /// Stops every client's open games as the server stops: each plays the move under
    /// way and is logged as stopped (`interrupted`) at its client's turn; answers the
    /// run folders, sorted.
    pub async fn interrupt(&self) -> Vec<PathBuf> {
        self.finish(true).await
    }

    /// Ends every client's open games (each logged as stopped: the client went away)
    /// and waits until their logs are whole; answers the run folders, sorted.
    pub async fn close(&self) -> Vec<PathBuf> {
        self.finish(false).await
    }

    async fn finish(&self, interrupted: bool) -> Vec<PathBuf> {
        let runs: Vec<Arc<ClientGames<R>>> = self.runs().values().cloned().collect();
        let mut paths = Vec::new();
        for games in runs {
            if interrupted {
                games.interrupt().await;
            } else {
                games.close().await;
            }
            paths.push(games.path().to_path_buf());
        }
        paths.sort();
        paths
    }
}
