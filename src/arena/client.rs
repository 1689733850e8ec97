//! Games played move by move by a client that calls in from outside the process (an
//! MCP client, `othello-arena mcp`; a person at `serve`'s play page, its seat a
//! [`ClientSeat::person`] and its view a [`GameWatch`]), logged as a run's games are.
//!
//! Each game is a tokio task running the one game loop ([`play_logged`]) between the
//! opponent and a [`Player`] that waits for the client's calls: `get_state`,
//! `simulate_move`, `play_move` and `resign` reach the game through a channel and are
//! answered there, so each is logged (`tool_call`) at the ply the game is at, in order
//! with the moves. A `play_move` is answered once the opponent has replied (or the game
//! is over). An illegal move is an error result that counts as an invalid answer; the
//! [`ClientSettings::max_invalid`]-th of one ply lets the fallback engine move for the
//! client (source `fallback`) or forfeits the game. A client that goes away leaves each
//! open game logged as stopped (`disconnected`); with [`ClientSettings::move_wait`] set
//! (a server whose clients may vanish without a word), a game that waits that long for
//! the client's next call at its turn is logged as stopped (`abandoned`).
//!
//! The play page's calls name the ply they were meant for ([`ClientCall::PlayAt`],
//! [`ClientCall::Hint`]): one for a ply the game has left is refused and counts for
//! nothing. [`ClientGames::stop`] ends a game where it is (`ended`, `interrupted`),
//! even in the opponent's move; a stop that comes once the game's end is logged lets
//! the game finish, and one before the game began logs nothing.

use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::json;
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;

use agent::LegalMoves;

use super::client_calls::{ClientAnswer, ClientCall, ClientError};
use super::client_game::{ClientGame, ClientSeat, Inner, Pending, Reply, Shared};
use super::client_run::ClientRun;
use super::client_seat::ClientPlayer;
use super::openings::Openings;
use super::player_spec::PlayerSpec;
use super::scheduled::ScheduledGame;
use super::watch::{GameWatch, Unwatched};
use agent::{BlockingEngine, ModelGame};
use game::derive_seed;
use game::othello::{Color, TextStyle};
use record::{game_log_path, GameLog, StopReason};
use runs::{McpClient, McpRun, RunFile, RunFolder, RunKind, RunPlayer};

/// The most tool calls one game answers at one ply: with each call's line bounded (its
/// strings are), this bounds the bytes a move logs.
pub const MAX_CALLS_PER_PLY: usize = 200;
/// The longest string argument a client may send (a square, a colour, an opponent's spec).
pub const MAX_ARGUMENT: usize = 200;

/// The client's player name in logs and tables: `mcp:NAME`, NAME given, or else the
/// client's handshake name and version (`mcp:claude-code-1.2.0`), each character that
/// a table cell would not keep whole (`agent::AgentConfig::check_name`'s rule) written
/// as `-`, cut to [`agent::MAX_NAME`] characters.
pub fn player_name(client: &McpClient, given: Option<&str>) -> String {
    let name = match given {
        Some(name) => name.to_string(),
        None if client.version.is_empty() => client.name.clone(),
        None => format!("{}-{}", client.name, client.version),
    };
    let mut name: String = name
        .chars()
        .map(|c| if agent::name_char(c) { c } else { '-' })
        .take(agent::MAX_NAME)
        .collect();
    if name.is_empty() {
        name = "client".to_string();
    }
    format!("mcp:{name}")
}

/// How the server plays its clients' games.
#[derive(Clone)]
pub struct ClientSettings<R: ModelGame> {
    /// The opponents a client may choose, the default first.
    pub opponents: Vec<PlayerSpec<R>>,
    /// Where games start.
    pub openings: Openings<R>,
    /// The seed of the openings and the engines' choices (game `n` derives its own).
    pub seed: u64,
    /// Illegal `play_move` calls at one ply before the fallback plays (at least 1).
    pub max_invalid: u32,
    /// The engine that moves for a client out of legal tries (`None`: it forfeits).
    pub fallback: Option<R::Spec>,
    /// Games open at once.
    pub max_games: usize,
    /// How boards are written for the client (the agent's rendering).
    pub style: TextStyle,
    /// Whether the client is told its legal moves (`Hidden`: blind play, as the
    /// agent's `--legal-moves hidden`: no list in states, tool results or errors).
    pub legal_moves: LegalMoves,
    /// How long a game waits for the client's next call at its turn before it is
    /// logged as stopped (`abandoned`); `None`: until the client goes away.
    pub move_wait: Option<Duration>,
}

impl<R: ModelGame> ClientSettings<R> {
    /// Refuses settings a client's games cannot play: a player that needs a terminal
    /// ([`ClientError::NeedsTerminal`]). Every face that serves clients calls it before
    /// it serves.
    pub fn check(&self) -> Result<(), ClientError> {
        // (A human fallback is refused where the fallback is read, for every face.)
        match self.opponents.iter().find(|o| o.is_human()) {
            Some(human) => Err(ClientError::NeedsTerminal {
                role: "--opponent",
                spec: human.to_string(),
            }),
            None => Ok(()),
        }
    }
}

/// The most game ids a "no game" error lists (the last ones started).
pub(crate) const NO_GAME_IDS: usize = 20;

/// The most games one session (one client of the server) starts, finished ones
/// included: each keeps its log and its state for `get_state`, so a client that
/// starts and resigns without end would hold them without bound.
pub const MAX_SESSION_GAMES: usize = 1000;

/// The most clients (player names) one server keeps a run for: each run keeps its
/// games, so a server reached by ever new client names would hold them without bound.
pub const MAX_CLIENTS: usize = 64;

/// A call on its way to its game's task.
pub(crate) struct Command {
    pub(crate) call: ClientCall,
    pub(crate) reply: Reply,
}

/// A game, as the table holds it.
pub(crate) struct Handle<R: ModelGame> {
    /// The way to the game's task; `None` once the game was ended for its client.
    pub(crate) commands: Option<mpsc::Sender<Command>>,
    pub(crate) shared: Arc<Shared<R>>,
    /// Set when the game's client has gone away ([`ClientGames::end`]).
    pub(crate) gone: Arc<AtomicBool>,
    /// Stops the game where it is ([`ClientGames::stop`]).
    pub(crate) stop: Arc<StopNow>,
}

/// A stop that ends a game where it is, even in the middle of the opponent's move
/// (dropped between two log lines: the log writes each line whole), with its reason.
#[derive(Default)]
pub(crate) struct StopNow {
    pub(crate) notify: tokio::sync::Notify,
    pub(crate) reason: Mutex<Option<StopReason>>,
}

impl StopNow {
    fn stop(&self, reason: StopReason) {
        self.reason
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get_or_insert(reason);
        // A permit is kept when nobody waits yet: the game stops at its next await.
        self.notify.notify_one();
    }

    pub(crate) async fn wait(&self) -> StopReason {
        self.notify.notified().await;
        self.reason
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .unwrap_or(StopReason::Interrupted)
    }
}

impl<R: ModelGame> Handle<R> {
    /// Ends the game for a client that went away: an external opponent's move is
    /// abandoned at once, and the game, its client's calls cut off, logs that it
    /// stopped (`disconnected`).
    fn end(&mut self) {
        self.gone.store(true, Ordering::Relaxed);
        self.commands = None;
    }
}

/// The games of one client: a run folder, its games by id.
pub struct ClientGames<R: ModelGame> {
    settings: ClientSettings<R>,
    folder: RunFolder,
    seat: ClientSeat,
    games: Mutex<HashMap<u64, Handle<R>>>,
    tasks: Mutex<Vec<JoinHandle<()>>>,
    count: AtomicUsize,
    /// Set when the server stops (Ctrl-C): games stop at the client's next turn,
    /// logged `interrupted`.
    interrupted: Arc<AtomicBool>,
}

impl<R: ModelGame> ClientGames<R> {
    /// The run folder `run` names for `client`'s games, played as `player` (its
    /// run.json records the settings and the client).
    pub fn open(
        settings: ClientSettings<R>,
        run: &ClientRun,
        client: McpClient,
        player: String,
    ) -> Result<ClientGames<R>, ClientError> {
        let folder = run.open(&player.replace(':', "-"))?;
        let players = std::iter::once(RunPlayer::new(player.clone(), None))
            .chain(settings.opponents.iter().map(PlayerSpec::run_player))
            .collect();
        folder.write_run(&RunFile::new(RunKind::Mcp(McpRun {
            players,
            client,
            openings: settings.openings.to_string(),
            seed: settings.seed,
            max_invalid: settings.max_invalid,
            fallback: settings
                .fallback
                .as_ref()
                .map_or_else(|| "forfeit".to_string(), ToString::to_string),
            max_games: settings.max_games,
            legal_moves: settings.legal_moves,
            board_labels: settings.style.labels,
            board_perspective: settings.style.perspective,
        })))?;
        Ok(ClientGames::in_folder(settings, folder, ClientSeat::mcp(player)))
    }

    /// The games `seat` plays in `folder`, whose run.json its face has written (the
    /// play page's `serve` runs).
    pub fn in_folder(settings: ClientSettings<R>, folder: RunFolder, seat: ClientSeat) -> ClientGames<R> {
        ClientGames {
            settings,
            folder,
            seat,
            games: Mutex::new(HashMap::new()),
            tasks: Mutex::new(Vec::new()),
            count: AtomicUsize::new(0),
            interrupted: Arc::new(AtomicBool::new(false)),
        }
    }

    /// The run folder.
    pub fn path(&self) -> &Path {
        self.folder.path()
    }

    /// The client's player name in the logs.
    pub fn player(&self) -> &str {
        &self.seat.name
    }

    fn games(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Handle<R>>> {
        self.games.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The opponent `given` names among those offered (the first when `None`).
    fn opponent(&self, given: Option<&str>) -> Result<PlayerSpec<R>, ClientError> {
        let offered = &self.settings.opponents;
        let found = match given.map(str::trim) {
            None | Some("") => offered.first(),
            Some(spec) => offered.iter().find(|o| o.to_string() == spec),
        };
        found.cloned().ok_or_else(|| ClientError::Opponent {
            given: given.unwrap_or_default().to_string(),
            offered: offered.iter().map(ToString::to_string).collect::<Vec<_>>().join(", "),
        })
    }

    /// Starts a game with the client as `color` (by default black in odd games, white
    /// in even ones) against `opponent` (one of those offered); answers the state at
    /// the client's first turn (the opponent moves first when it holds black), with the
    /// game's id.
    pub async fn new_game(
        &self,
        color: Option<Color>,
        opponent: Option<&str>,
    ) -> Result<(u64, ClientAnswer), ClientError> {
        let (id, first_turn) = self.start_game(color, opponent, Arc::new(Unwatched))?;
        let answer = first_turn.await.unwrap_or_else(|_| Err(self.lost(id)))?;
        Ok((id, answer))
    }

    /// Starts a game as [`ClientGames::new_game`] does, its moves, its opponent's
    /// thinking and its end shown to `watch`, without waiting for the client's first
    /// turn: answers the game's id, and the state at that turn to come.
    pub fn start_game(
        &self,
        color: Option<Color>,
        opponent: Option<&str>,
        watch: Arc<dyn GameWatch<R>>,
    ) -> Result<(u64, oneshot::Receiver<Result<ClientAnswer, ClientError>>), ClientError> {
        if let Some(spec) = opponent.filter(|s| s.len() > MAX_ARGUMENT) {
            return Err(ClientError::TooLong {
                name: "opponent",
                len: spec.len(),
            });
        }
        let opponent = self.opponent(opponent)?;
        let (reply, answer) = oneshot::channel();
        let id = {
            let mut games = self.games();
            // Finished games stay answerable (get_state); only open ones count.
            let open = games.values().filter(|game| game.shared.lock().end.is_none()).count();
            if open >= self.settings.max_games {
                return Err(ClientError::Full {
                    max: self.settings.max_games,
                });
            }
            if games.len() >= MAX_SESSION_GAMES {
                return Err(ClientError::SessionFull);
            }
            let number = self.count.fetch_add(1, Ordering::Relaxed) + 1;
            let you = color.unwrap_or(if number % 2 == 1 { Color::Black } else { Color::White });
            let (handle, task) = self.start(number, (you, watch), opponent, reply)?;
            games.insert(number as u64, handle);
            self.tasks.lock().unwrap_or_else(|p| p.into_inner()).push(task);
            number as u64
        };
        Ok((id, answer))
    }

    /// Spawns game `number`'s task; `reply` is answered at the client's first turn.
    fn start(
        &self,
        number: usize,
        (you, watch): (Color, Arc<dyn GameWatch<R>>),
        opponent: PlayerSpec<R>,
        reply: Reply,
    ) -> Result<(Handle<R>, JoinHandle<()>), ClientError> {
        let log = GameLog::create(&game_log_path(self.folder.path(), number))?;
        let seed = derive_seed(self.settings.seed, number as u64);
        let scheduled = ScheduledGame {
            black: 0,
            white: 1,
            opening_seed: seed,
            pair: number - 1,
            seed,
        };
        let line = self.settings.openings.line(&scheduled);
        let suite_line = self.settings.openings.name(&scheduled);
        let id = number as u64;
        let shared = Arc::new(Shared {
            id,
            you,
            opponent: opponent.to_string(),
            seat: self.seat.clone(),
            style: self.settings.style,
            legal: self.settings.legal_moves,
            watch,
            inner: Mutex::new(Inner {
                line: line.clone(),
                end: None,
                pending: Some(Pending {
                    call: ("new_game", json!({ "color": you, "opponent": opponent.to_string() })),
                    ply: line.moves().len() + 1,
                    reply,
                    out_of_tries: None,
                }),
            }),
        });
        let (commands, inbox) = mpsc::channel(8);
        let gone = Arc::new(AtomicBool::new(false));
        let stop = Arc::new(StopNow::default());
        let client = ClientPlayer {
            shared: shared.clone(),
            inbox,
            fallback: self
                .settings
                .fallback
                .as_ref()
                .map(|spec| BlockingEngine::new(R::engine(spec, seed))),
            max_invalid: self.settings.max_invalid.max(1),
            move_wait: self.settings.move_wait,
            interrupted: self.interrupted.clone(),
        };
        let game = ClientGame {
            shared: shared.clone(),
            client,
            opponent,
            line: (line, suite_line),
            seed,
            number,
            gone: gone.clone(),
            stop: stop.clone(),
        };
        let task = tokio::spawn(game.play(log));
        let handle = Handle {
            commands: Some(commands),
            shared,
            gone,
            stop,
        };
        Ok((handle, task))
    }

    /// Answers `call` on game `id`.
    pub async fn call(&self, id: u64, call: ClientCall) -> Result<ClientAnswer, ClientError> {
        if let ClientCall::Simulate(coord) | ClientCall::Play(coord) | ClientCall::PlayAt(coord, _) = &call {
            if coord.len() > MAX_ARGUMENT {
                return Err(ClientError::TooLong {
                    name: "coord",
                    len: coord.len(),
                });
            }
        }
        let (commands, shared) = {
            let games = self.games();
            let Some(game) = games.get(&id) else {
                let mut open: Vec<u64> = games.keys().copied().collect();
                open.sort_unstable();
                // The last ids only: a client that opened thousands gets a short message.
                let shown = open.len().saturating_sub(NO_GAME_IDS);
                let mut open: Vec<String> = open[shown..].iter().map(u64::to_string).collect();
                if shown > 0 {
                    open.insert(0, format!("{shown} more before"));
                }
                let open = open.join(", ");
                return Err(ClientError::NoGame { id, open });
            };
            (game.commands.clone(), game.shared.clone())
        };
        // A call on a game that is over, or that ends while the call waits for the
        // client's next turn: the state is still answered, anything else is refused.
        let is_state = matches!(call, ClientCall::State);
        let after_the_end = || {
            // The lock is let go at the end of this statement, before the state is
            // read (which locks again).
            shared.lock().end.as_ref()?;
            Some(if is_state {
                Ok(shared.answer())
            } else {
                Err(ClientError::Over { id })
            })
        };
        if let Some(answer) = after_the_end() {
            return answer;
        }
        // A call for a ply the game has left is refused at once (a hint the person's
        // move overtook is not kept waiting for the opponent's turn); one for the ply
        // now that the game leaves before it is read is refused there.
        if let Some(asked) = call.ply() {
            let now = shared.lock().line.moves().len() + 1;
            if asked != now {
                return Err(ClientError::Moved { id, asked, now });
            }
        }
        let Some(commands) = commands else {
            return Err(ClientError::Over { id });
        };
        let (reply, answer) = oneshot::channel();
        if commands.send(Command { call, reply }).await.is_err() {
            return after_the_end().unwrap_or(Err(ClientError::Over { id }));
        }
        match answer.await {
            Ok(answer) => answer,
            Err(_) => after_the_end().unwrap_or_else(|| Err(self.lost(id))),
        }
    }

    /// The error of a call whose game ended without answering it.
    fn lost(&self, id: u64) -> ClientError {
        ClientError::Failed {
            id,
            message: "the game ended before answering (see the server's log)".to_string(),
        }
    }

    /// Whether game `id` was started here.
    pub fn has(&self, id: u64) -> bool {
        self.games().contains_key(&id)
    }

    /// The position of game `id` and its next ply, when the client is to move there
    /// (the game open, a legal move to make); `None` otherwise.
    pub fn turn(&self, id: u64) -> Option<(R::Position, usize)> {
        let shared = self.games().get(&id)?.shared.clone();
        let inner = shared.lock();
        let position = *inner.line.board();
        let to_move =
            inner.end.is_none() && R::to_move(&position) == shared.you && !R::legal_moves(&position).is_empty();
        to_move.then(|| (position, inner.line.moves().len() + 1))
    }

    /// Stops game `id` where it is, for `reason` (a person who ended it, a server that
    /// stops): the log says so (`game_stopped` at the ply it reached) and the watch is
    /// told. A game over already is left as it is; [`ClientGames::close`] waits for
    /// the log.
    pub fn stop(&self, id: u64, reason: StopReason) {
        if let Some(game) = self.games().get(&id) {
            game.stop.stop(reason);
        }
    }

    /// Ends game `id` if it is still open, its client gone: it is logged as stopped
    /// (`disconnected`), and answers `get_state` still. Its log is whole once
    /// [`ClientGames::close`] returns.
    pub fn end(&self, id: u64) {
        if let Some(game) = self.games().get_mut(&id) {
            game.end();
        }
    }

    /// Ends every game still open (each logged as stopped: the client went away) and
    /// waits until their logs are whole.
    pub async fn close(&self) {
        self.games().values_mut().for_each(Handle::end);
        self.wait().await;
    }

    /// Stops every game still open as the server stops (Ctrl-C): the move under way
    /// is played, then the game is logged as stopped (`interrupted`) where the client
    /// would move; waits until the logs are whole.
    pub async fn interrupt(&self) {
        self.interrupted.store(true, Ordering::SeqCst);
        for game in self.games().values_mut() {
            game.commands = None;
        }
        self.wait().await;
    }

    /// Waits until every game's task has ended.
    async fn wait(&self) {
        let tasks = std::mem::take(&mut *self.tasks.lock().unwrap_or_else(|p| p.into_inner()));
        for task in tasks {
            let _ = task.await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn client(name: &str, version: &str) -> McpClient {
        McpClient {
            name: name.to_string(),
            version: version.to_string(),
        }
    }

    #[test]
    fn a_player_is_named_by_the_handshake_in_one_table_cell() {
        assert_eq!(
            player_name(&client("claude-code", "1.0.3"), None),
            "mcp:claude-code-1.0.3"
        );
        assert_eq!(player_name(&client("My Client, v2", ""), None), "mcp:My-Client--v2");
        assert_eq!(player_name(&client("x", "1"), Some("tester")), "mcp:tester");
        assert_eq!(player_name(&client("", ""), None), "mcp:client");
        let long = player_name(&client(&"n".repeat(500), "1"), None);
        assert_eq!(long.len(), "mcp:".len() + agent::MAX_NAME);
    }
}
