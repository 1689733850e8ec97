//! Games played move by move by a client that calls in from outside the process (an
//! MCP client, `othello-arena mcp`), logged as a run's games are.
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

use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::{json, Value};
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;

use agent::LegalMoves;

use super::client_run::ClientRun;
use super::engine_process::Halt;
use super::openings::Openings;
use super::play::{GameContext, GameError, GameRecord};
use super::player::{Action, PlayError, Played, Player};
use super::player_spec::PlayerSpec;
use super::schedule::{play_logged, Seat};
use super::scheduled::ScheduledGame;
use super::watch::{GameWatch, Unwatched};
use agent::tools::{decode_args, Tool};
use agent::{BlockingEngine, ModelGame, MoveContext};
use engines::EngineError;
use game::othello::{ByColor, Color, Outcome, TextStyle};
use game::{derive_seed, Line};
use record::{
    game_log_path, AgentDecision, GameLog, GameWriter, HintRecord, LogError, MoveSource, Notation, PlayerKind, Ply,
    Squares, StopReason,
};
use runs::{McpClient, McpRun, RunFile, RunFolder, RunFolderError, RunKind, RunPlayer};

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

/// What a client asks of one of its games.
#[derive(Clone, Debug, PartialEq)]
pub enum ClientCall {
    /// The position, the side to move, the legal moves, the result once over.
    State,
    /// What playing this square would do (the agent's `simulate_move` tool).
    Simulate(String),
    /// Plays this square, then lets the opponent answer.
    Play(String),
    /// Plays this square if the game is still at this ply (a person's click on the
    /// position shown: one on an older position is refused, and counts for nothing).
    PlayAt(String, usize),
    /// Logs the hint the client was shown at this ply (before its move there).
    Hint(Box<HintRecord>),
    /// Gives the game up (logged as the client's forfeit).
    Resign,
}

impl ClientCall {
    /// The tool's name, as the client calls it.
    pub fn tool(&self) -> &'static str {
        match self {
            ClientCall::State => "get_state",
            ClientCall::Simulate(_) => "simulate_move",
            ClientCall::Play(_) | ClientCall::PlayAt(..) => "play_move",
            ClientCall::Hint(_) => "hint",
            ClientCall::Resign => "resign",
        }
    }

    /// The ply the call is meant for, when it names one (a person's move, a hint).
    fn ply(&self) -> Option<usize> {
        match self {
            ClientCall::PlayAt(_, ply) => Some(*ply),
            ClientCall::Hint(hint) => Some(hint.ply),
            ClientCall::State | ClientCall::Simulate(_) | ClientCall::Play(_) | ClientCall::Resign => None,
        }
    }

    /// The call's arguments as the log keeps them.
    fn arguments(&self, game_id: u64) -> Value {
        match self {
            ClientCall::Simulate(coord) | ClientCall::Play(coord) => json!({ "game_id": game_id, "coord": coord }),
            ClientCall::PlayAt(coord, ply) => json!({ "game_id": game_id, "coord": coord, "ply": ply }),
            ClientCall::Hint(hint) => json!({ "game_id": game_id, "ply": hint.ply, "engine": hint.engine }),
            ClientCall::State | ClientCall::Resign => json!({ "game_id": game_id }),
        }
    }
}

/// A tool's answer: text for the client's model, the same as structured content, and
/// whether it reports the client's error (an illegal move, a bad square).
#[derive(Clone, Debug, PartialEq)]
pub struct ClientAnswer {
    /// The text (a board as the agent's prompts write it, or a tool's JSON).
    pub text: String,
    /// The structured content.
    pub content: Value,
    /// Whether the call failed by the client's fault (it counts against it).
    pub is_error: bool,
}

/// The most game ids a "no game" error lists (the last ones started).
const NO_GAME_IDS: usize = 20;

/// The most games one session (one client of the server) starts, finished ones
/// included: each keeps its log and its state for `get_state`, so a client that
/// starts and resigns without end would hold them without bound.
pub const MAX_SESSION_GAMES: usize = 1000;

/// The most clients (player names) one server keeps a run for: each run keeps its
/// games, so a server reached by ever new client names would hold them without bound.
pub const MAX_CLIENTS: usize = 64;

/// A call that cannot be answered: the message names the problem and the way out.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// No game has this id.
    #[error("no game {id}: start one with new_game (games here: {open})")]
    NoGame {
        /// The id given.
        id: u64,
        /// The ids of the games started (finished ones included).
        open: String,
    },
    /// The game is over: only `get_state` answers.
    #[error("game {id} is over: call get_state for its result, or new_game for another")]
    Over {
        /// The game's id.
        id: u64,
    },
    /// Too many games open.
    #[error("{max} games are open, the most this server allows: finish or resign one first")]
    Full {
        /// The limit.
        max: usize,
    },
    /// The session has started [`MAX_SESSION_GAMES`] games.
    #[error(
        "this session has started {MAX_SESSION_GAMES} games, the most one session keeps: \
         start another session (restart the server) to play more"
    )]
    SessionFull,
    /// An opponent the server does not offer.
    #[error("opponent {given:?} is not offered here; choose one of: {offered}")]
    Opponent {
        /// The spec given.
        given: String,
        /// The specs offered.
        offered: String,
    },
    /// A player that reads its moves from the terminal (`human`) as an opponent: a
    /// client's games have none (an MCP server's stdin is the
    /// protocol's, and a "move" read there would be the client's next request).
    #[error(
        "{role} {spec} reads its moves from the terminal, which a client's games do not have (the server's \
         stdin carries the protocol): choose an engine or llm:MODEL"
    )]
    NeedsTerminal {
        /// The flag (`--opponent`).
        role: &'static str,
        /// The spec given.
        spec: String,
    },
    /// A client past the [`MAX_CLIENTS`] that have runs on this server.
    #[error(
        "{MAX_CLIENTS} clients have runs on this server, the most one server keeps: play as one of them \
         (the same client name, or --name) or start another server"
    )]
    Clients,
    /// A second client of a server whose games go to one run's own folder (`--log-dir`).
    #[error(
        "this server logs one client's games in {dir} (those of {player}): start it with --runs DIR \
         to give each client a run of its own"
    )]
    OneRun {
        /// The run's folder.
        dir: String,
        /// The client whose run it is.
        player: String,
    },
    /// A string argument past [`MAX_ARGUMENT`] bytes.
    #[error("{name} is {len} bytes long, past the limit of {MAX_ARGUMENT}: {}", if *name == "coord" {
        "send a square such as d3"
    } else {
        "send one of the specs the server offers (new_game names them when it refuses one)"
    })]
    TooLong {
        /// The argument's name.
        name: &'static str,
        /// Its length.
        len: usize,
    },
    /// Too many calls at one ply.
    #[error("{MAX_CALLS_PER_PLY} calls at ply {ply} of game {id}, the most one ply takes: play a move")]
    TooManyCalls {
        /// The game's id.
        id: u64,
        /// The ply.
        ply: usize,
    },
    /// A move or hint for a ply the game has left (the position shown was an older one).
    #[error("game {id} is at ply {now}, not {asked}: look at the position now")]
    Moved {
        /// The game's id.
        id: u64,
        /// The ply the call was for.
        asked: usize,
        /// The ply the game is at.
        now: usize,
    },
    /// The game failed (its log, its opponent).
    #[error("game {id} failed: {message}")]
    Failed {
        /// The game's id.
        id: u64,
        /// What went wrong.
        message: String,
    },
    /// The run folder could not be made.
    #[error(transparent)]
    Folder(#[from] RunFolderError),
    /// A log could not be written.
    #[error(transparent)]
    Log(#[from] LogError),
}

/// A position as a client reads it (the structured content of every state).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ClientState {
    /// The game's id (its number in the run).
    pub game_id: u64,
    /// The board, one character a square as logs write it (`X` black, `O` white, `-`).
    pub board: String,
    /// The side to move.
    pub to_move: Color,
    /// The client's side.
    pub your_color: Color,
    /// The client's legal moves (lower case, row-major): empty unless it is to move;
    /// absent when the server hides them (`--legal-moves hidden`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub legal_moves: Option<Vec<String>>,
    /// Whether the game is over.
    pub over: bool,
    /// `win`, `loss` or `draw`, for the client, once over.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result: Option<ClientResult>,
    /// The pieces on the board, once over.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub discs: Option<Discs>,
    /// The side that forfeited (resigned, or ran out of legal tries), if one did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub forfeit: Option<Color>,
    /// Why the game stopped unfinished, if it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failed: Option<String>,
    /// The next ply (from 1, opening included).
    pub ply: usize,
    /// The opponent's spec.
    pub opponent: String,
    /// Every move so far, opening included.
    pub moves: Vec<String>,
}

/// A finished game's result for the client.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ClientResult {
    /// The client won.
    Win,
    /// The client lost.
    Loss,
    /// A draw.
    Draw,
}

/// The pieces of each side.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Discs {
    /// Black's.
    pub black: u32,
    /// White's.
    pub white: u32,
}

/// How a game ended, as far as its client is told.
#[derive(Clone, Debug, Default)]
struct End {
    outcome: Option<Outcome>,
    forfeit: Option<Color>,
    failed: Option<String>,
    /// Why it stopped unfinished, when it was stopped (not failed).
    stopped: Option<StopReason>,
}

impl End {
    /// A game stopped before `ply` for `reason`, in the words its client is told.
    fn stopped(reason: StopReason, ply: usize) -> End {
        let why = match reason {
            StopReason::Abandoned => "the client made no call for too long at ply",
            StopReason::Interrupted => "the server was stopped before ply",
            StopReason::Ended => "the game was ended before ply",
            StopReason::Disconnected => "the client went away before ply",
        };
        End {
            failed: Some(format!("{why} {ply}")),
            stopped: Some(reason),
            ..End::default()
        }
    }
}

/// A call answered later: a `play_move` (after the opponent's reply), a `new_game`
/// (at the client's first turn), a `resign`.
struct Pending {
    call: (&'static str, Value),
    ply: usize,
    reply: oneshot::Sender<Result<ClientAnswer, ClientError>>,
    /// The call was the last illegal try of its ply: why it was illegal, and what
    /// happened then ([`OutOfTries`]); answered as an error that says so.
    out_of_tries: Option<OutOfTries>,
}

/// The last illegal `play_move` of a ply: why it was illegal, and the move the
/// fallback made for the client (`None`: it forfeits).
struct OutOfTries {
    error: String,
    fallback: Option<String>,
}

impl ClientAnswer {
    /// The state after the client's last illegal try, as an error that names the
    /// illegal move and what happened then: the fallback's move (in the text, and as
    /// `fallback_move` beside `error` in the structured content) or the forfeit.
    fn out_of_tries(mut self, tries: &OutOfTries) -> ClientAnswer {
        let then = match &tries.fallback {
            Some(mv) => format!("the fallback engine played {mv} for you"),
            None => "you forfeit the game".to_string(),
        };
        self.text = format!(
            "{}; that was your last try at this ply: {then}.\n{}",
            tries.error, self.text
        );
        if let Value::Object(content) = &mut self.content {
            content.insert("error".to_string(), json!(tries.error));
            content.insert("fallback_move".to_string(), json!(tries.fallback));
        }
        self.is_error = true;
        self
    }
}

type Reply = oneshot::Sender<Result<ClientAnswer, ClientError>>;

/// Who plays the client's side of its games, as they are logged.
#[derive(Clone, Debug)]
pub struct ClientSeat {
    /// The player's name in logs and tables (`mcp:NAME`, `human`).
    pub name: String,
    /// `Llm` for an MCP client (each move carries the decision record of its calls),
    /// `Human` for a person (their moves carry none, as at the terminal).
    pub kind: PlayerKind,
    /// Whether each call is logged (`tool_call`): an MCP client's calls are its
    /// thinking; a person's clicks are only their moves (and hints, logged as such).
    pub log_calls: bool,
}

impl ClientSeat {
    /// An MCP client's seat, named `player` ([`player_name`]).
    pub fn mcp(player: String) -> ClientSeat {
        ClientSeat {
            name: player,
            kind: PlayerKind::Llm,
            log_calls: true,
        }
    }

    /// A person's seat (the play page's).
    pub fn person() -> ClientSeat {
        ClientSeat {
            name: "human".to_string(),
            kind: PlayerKind::Human,
            log_calls: false,
        }
    }
}

/// One game's state as its handle and its task share it.
struct Shared<R: ModelGame> {
    id: u64,
    you: Color,
    opponent: String,
    seat: ClientSeat,
    style: TextStyle,
    legal: LegalMoves,
    watch: Arc<dyn GameWatch<R>>,
    inner: Mutex<Inner<R>>,
}

struct Inner<R: ModelGame> {
    line: Line<R>,
    end: Option<End>,
    pending: Option<Pending>,
}

impl<R: ModelGame> Shared<R> {
    fn lock(&self) -> std::sync::MutexGuard<'_, Inner<R>> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The state now, as the client reads it.
    fn state(&self) -> ClientState {
        let inner = self.lock();
        let position = inner.line.board();
        let to_move = R::to_move(position);
        let over = inner.end.is_some();
        let legal_moves = self.legal.shown().then(|| {
            if over || to_move != self.you {
                Vec::new()
            } else {
                R::legal_moves(position)
                    .into_iter()
                    .map(|mv| Notation::of::<R>(mv).to_string())
                    .filter(|mv| mv != "pass")
                    .collect()
            }
        });
        let end = inner.end.clone().unwrap_or_default();
        let pieces = R::pieces(position);
        ClientState {
            game_id: self.id,
            board: Squares::of::<R>(position).to_string(),
            to_move,
            your_color: self.you,
            legal_moves,
            over,
            result: end.outcome.map(|outcome| match outcome {
                Outcome::Draw => ClientResult::Draw,
                Outcome::Win(color) if color == self.you => ClientResult::Win,
                Outcome::Win(_) => ClientResult::Loss,
            }),
            discs: over.then_some(Discs {
                black: pieces.black,
                white: pieces.white,
            }),
            forfeit: end.forfeit,
            failed: end.failed,
            ply: inner.line.moves().len() + 1,
            opponent: self.opponent.clone(),
            moves: inner
                .line
                .moves()
                .iter()
                .map(|&mv| Notation::of::<R>(mv).to_string())
                .collect(),
        }
    }

    /// The state as a tool's answer: the board as the agent's prompts write it, then a
    /// line on whose turn it is or how the game ended.
    fn answer(&self) -> ClientAnswer {
        let state = self.state();
        let position = *self.lock().line.board();
        let status = match (&state.result, &state.failed) {
            (Some(result), _) => format!(
                "Game {} is over: {result:?} for you ({}).",
                state.game_id,
                state
                    .discs
                    .map_or(String::new(), |d| format!("black {}, white {}", d.black, d.white))
            ),
            (None, Some(failed)) => format!("Game {} stopped: {failed}.", state.game_id),
            (None, None) if state.to_move == self.you => {
                format!(
                    "You play {}; your move (play_move with game_id {}).",
                    self.you, state.game_id
                )
            }
            (None, None) => format!("You play {}; the opponent is to move.", self.you),
        };
        ClientAnswer {
            text: format!("{}\n{status}", R::model_text(&position, self.style, self.legal)),
            content: serde_json::to_value(&state).unwrap_or(Value::Null),
            is_error: false,
        }
    }

    /// Answers the pending call, if any, with the state now, logging it first.
    fn settle(&self, log: GameWriter<'_>) {
        let Some(pending) = self.lock().pending.take() else {
            return;
        };
        let answer = match &pending.out_of_tries {
            Some(tries) => self.answer().out_of_tries(tries),
            None => self.answer(),
        };
        let logged = self.log_call(log, pending.ply, (pending.call.0, &pending.call.1), &answer);
        let reply = logged.map(|()| answer).map_err(|source| ClientError::Failed {
            id: self.id,
            message: format!("{source}"),
        });
        // A client that has gone away is told nothing.
        let _ = pending.reply.send(reply);
    }

    /// Logs a call at `ply` with its answer (`tool_call`), for a seat whose calls are
    /// logged.
    fn log_call(
        &self,
        log: GameWriter<'_>,
        ply: usize,
        (tool, arguments): (&str, &Value),
        answer: &ClientAnswer,
    ) -> Result<(), LogError> {
        if !self.seat.log_calls {
            return Ok(());
        }
        let at = Ply {
            number: ply,
            color: self.you,
        };
        log.tool_call(
            at,
            &self.seat.name,
            (tool, arguments),
            (&answer.content, answer.is_error),
        )
    }

    /// The client's move `mv`, made by it (`Llm` for an MCP client, with the record
    /// of its calls at this ply; a person's without one) or by its fallback.
    fn played(&self, mv: R::Move, source: MoveSource, decision: &AgentDecision) -> Action<R> {
        let (source, agent) = match (self.seat.kind, source) {
            // A person's own move, logged as a terminal's person's is.
            (PlayerKind::Human, MoveSource::Llm) => (MoveSource::Engine, None),
            _ => (source, Some(decision.clone())),
        };
        Action::Move(Played { mv, source, agent })
    }
}

/// A call on its way to its game's task.
struct Command {
    call: ClientCall,
    reply: Reply,
}

/// A game, as the table holds it.
struct Handle<R: ModelGame> {
    /// The way to the game's task; `None` once the game was ended for its client.
    commands: Option<mpsc::Sender<Command>>,
    shared: Arc<Shared<R>>,
    /// Set when the game's client has gone away ([`ClientGames::end`]).
    gone: Arc<AtomicBool>,
    /// Stops the game where it is ([`ClientGames::stop`]).
    stop: Arc<StopNow>,
}

/// A stop that ends a game where it is, even in the middle of the opponent's move
/// (dropped between two log lines: the log writes each line whole), with its reason.
#[derive(Default)]
struct StopNow {
    notify: tokio::sync::Notify,
    reason: Mutex<Option<StopReason>>,
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

    async fn wait(&self) -> StopReason {
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

/// A game's task: the client against its opponent.
struct ClientGame<R: ModelGame> {
    shared: Arc<Shared<R>>,
    client: ClientPlayer<R>,
    opponent: PlayerSpec<R>,
    line: (Line<R>, Option<String>),
    seed: u64,
    number: usize,
    /// Set when the client has gone away ([`ClientGames::close`]).
    gone: Arc<AtomicBool>,
    /// Stops the game where it is ([`ClientGames::stop`]).
    stop: Arc<StopNow>,
}

impl<R: ModelGame> ClientGame<R> {
    /// Plays the game to its end (or until the client goes away, or it is stopped)
    /// into `log`.
    async fn play(mut self, log: GameLog) {
        let shared = self.shared.clone();
        let writer = GameWriter::new(Some(&log), self.number);
        // The client's going away ends an external opponent's wait at once.
        let halt = Halt {
            stop: Some(self.gone.clone()),
            failed: None,
        };
        let mut opponent = self
            .opponent
            .build_watched(derive_seed(self.seed, 1), &halt, &shared.watch);
        let you = shared.you;
        let seats = by_side(
            you,
            Seat {
                name: shared.seat.name.clone(),
                kind: shared.seat.kind,
            },
            Seat {
                name: self.opponent.to_string(),
                kind: self.opponent.kind(),
            },
        );
        let watched = shared.clone();
        let mut observe = move |position: &R::Position, mv: R::Move| {
            let mut inner = watched.lock();
            let before = *inner.line.board();
            // The loop checked the move; a failure here is not possible.
            let _ = inner.line.try_play(mv);
            debug_assert_eq!(inner.line.board(), position);
            let next_ply = inner.line.moves().len() + 1;
            let over = inner.line.is_over();
            if over {
                inner.end = Some(End {
                    outcome: Some(R::outcome(position)),
                    ..End::default()
                });
            }
            drop(inner);
            watched.watch.moved(&before, position, mv, next_ply);
            if over {
                watched.settle(writer);
            }
        };
        let ctx = GameContext {
            log: writer,
            observer: Some(&mut observe),
            stop: Some(&self.gone),
            stop_reason: StopReason::Disconnected,
        };
        let (line, suite_line) = self.line;
        let players = by_side::<&mut dyn Player<R>>(you, &mut self.client, opponent.as_mut());
        let game = play_logged((line, suite_line.as_deref()), players, seats, self.seed, ctx);
        let end = tokio::select! {
            played = game => Ok(played),
            reason = self.stop.wait() => Err(reason),
        };
        let end = match end {
            Ok(played) => {
                // Stopped as the client went away (the opponent's move abandoned, logged
                // as `disconnected`): no one is left to answer, and the log ends at the stop.
                if matches!(played, Err(GameError::Stopped { .. })) && self.gone.load(Ordering::Relaxed) {
                    drop(shared.lock().pending.take());
                }
                End::of(&shared, played)
            }
            Err(reason) => {
                // Dropped between two log lines; the players are let go as the loop would.
                opponent.done().await;
                let ply = shared.lock().line.moves().len() + 1;
                match writer.stopped(ply, reason) {
                    Ok(()) => End::stopped(reason, ply),
                    Err(err) => End {
                        failed: Some(format!("stopped before ply {ply}; its log could not say so: {err}")),
                        stopped: Some(reason),
                        ..End::default()
                    },
                }
            }
        };
        finish(&shared, end, writer);
    }
}

impl End {
    /// How a played game ended, as its client is told.
    fn of<R: ModelGame>(shared: &Shared<R>, played: Result<GameRecord<R>, GameError>) -> End {
        match played {
            Ok(record) => End {
                outcome: Some(record.outcome),
                forfeit: record.forfeit.as_ref().map(|f| f.color),
                ..End::default()
            },
            Err(err) => {
                let message = llm::error_chain(&err);
                tracing::warn!("client game {} ended unfinished: {message}", shared.id);
                End {
                    failed: Some(message),
                    ..End::default()
                }
            }
        }
    }
}

/// Records how the game ended (unless the game said so first: a stop, or a forfeit
/// that says more), answers a call still waiting, and tells the watch.
fn finish<R: ModelGame>(shared: &Shared<R>, end: End, log: GameWriter<'_>) {
    let mut inner = shared.lock();
    if inner.end.is_none() || end.forfeit.is_some() || end.stopped.is_some() {
        inner.end = Some(end);
    }
    let stopped = inner.end.as_ref().and_then(|end| end.stopped);
    drop(inner);
    shared.settle(log);
    shared.watch.ended(&shared.state(), stopped);
}

/// `own` for the side `color` and `other` for its opponent, by colour (a client's or a
/// person's seat and the engine's).
pub fn by_side<T>(color: Color, own: T, other: T) -> ByColor<T> {
    match color {
        Color::Black => ByColor {
            black: own,
            white: other,
        },
        Color::White => ByColor {
            black: other,
            white: own,
        },
    }
}

/// The client's side of the game loop: waits for its calls.
struct ClientPlayer<R: ModelGame> {
    shared: Arc<Shared<R>>,
    inbox: mpsc::Receiver<Command>,
    fallback: Option<BlockingEngine<R>>,
    max_invalid: u32,
    move_wait: Option<Duration>,
    interrupted: Arc<AtomicBool>,
}

/// The client's account of one ply so far.
#[derive(Default)]
struct Turn {
    calls: usize,
    decision: AgentDecision,
}

#[async_trait::async_trait]
impl<R: ModelGame> Player<R> for ClientPlayer<R> {
    fn name(&self) -> String {
        self.shared.seat.name.clone()
    }

    async fn act(&mut self, position: &R::Position, ctx: MoveContext<'_>) -> Result<Action<R>, PlayError> {
        let started = Instant::now();
        self.shared.settle(ctx.log);
        let mut turn = Turn::default();
        loop {
            let received = match self.move_wait {
                Some(wait) => tokio::time::timeout(wait, self.inbox.recv()).await.ok(),
                None => Some(self.inbox.recv().await),
            };
            let Some(Some(Command { call, reply })) = received else {
                let reason = match received {
                    None => StopReason::Abandoned,
                    Some(_) if self.interrupted.load(Ordering::SeqCst) => StopReason::Interrupted,
                    Some(_) => StopReason::Disconnected,
                };
                ctx.log.stopped(ctx.ply, reason).map_err(agent::AgentError::from)?;
                self.shared.lock().end = Some(End::stopped(reason, ctx.ply));
                return Err(PlayError::Engine(EngineError::InputClosed));
            };
            turn.calls += 1;
            if turn.calls > MAX_CALLS_PER_PLY {
                let _ = reply.send(Err(ClientError::TooManyCalls {
                    id: self.shared.id,
                    ply: ctx.ply,
                }));
                continue;
            }
            turn.decision.latency_ms = started.elapsed().as_secs_f64() * 1000.0;
            if let Some(action) = self.answer(position, &ctx, (call, reply), &mut turn).await? {
                return Ok(action);
            }
        }
    }
}

impl<R: ModelGame> ClientPlayer<R> {
    /// Answers one call at the client's turn; a move or a forfeit ends the turn.
    async fn answer(
        &mut self,
        position: &R::Position,
        ctx: &MoveContext<'_>,
        (call, reply): (ClientCall, Reply),
        turn: &mut Turn,
    ) -> Result<Option<Action<R>>, PlayError> {
        let shared = &self.shared;
        let arguments = call.arguments(shared.id);
        let logged = |answer: ClientAnswer| -> Result<ClientAnswer, ClientError> {
            shared.log_call(ctx.log, ctx.ply, (call.tool(), &arguments), &answer)?;
            Ok(answer)
        };
        if let Some(asked) = call.ply().filter(|&ply| ply != ctx.ply) {
            let _ = reply.send(Err(ClientError::Moved {
                id: shared.id,
                asked,
                now: ctx.ply,
            }));
            return Ok(None);
        }
        match &call {
            ClientCall::Hint(hint) => {
                let logged = ctx.log.hint(hint).map_err(ClientError::from);
                let _ = reply.send(logged.map(|()| shared.answer()));
                Ok(None)
            }
            ClientCall::State => {
                let _ = reply.send(logged(shared.answer()));
                Ok(None)
            }
            ClientCall::Simulate(coord) => {
                turn.decision.tool_calls += 1;
                let tool = R::simulate_tool(shared.style, shared.legal);
                let result = decode_args(&json!({ "coord": coord })).and_then(|args| tool.call(position, args));
                turn.decision.tool_errors += u32::from(result.is_err());
                let result = result.map(|value| one_board_shape::<R>(position, coord, value));
                let _ = reply.send(logged(tool_answer(result)));
                Ok(None)
            }
            ClientCall::Play(coord) | ClientCall::PlayAt(coord, _) => {
                match legal_move::<R>(position, coord, shared.legal) {
                    Ok(mv) => {
                        self.wait_with(call.tool(), arguments, ctx.ply, reply);
                        turn.decision.source = Some(MoveSource::Llm);
                        Ok(Some(shared.played(mv, MoveSource::Llm, &turn.decision)))
                    }
                    Err(message) => {
                        turn.decision.invalid_answers += 1;
                        let answer = tool_answer(Err(message.clone()));
                        if turn.decision.invalid_answers < self.max_invalid {
                            let _ = reply.send(logged(answer));
                            return Ok(None);
                        }
                        // Answered once, when the fallback has moved (or the client forfeits).
                        self.wait_with(call.tool(), arguments, ctx.ply, reply);
                        self.out_of_tries(position, ctx.log, message, turn).await.map(Some)
                    }
                }
            }
            ClientCall::Resign => {
                self.wait_with(call.tool(), arguments, ctx.ply, reply);
                turn.decision.source = Some(MoveSource::Forfeit);
                turn.decision.fallback_reason = Some("the client resigned".to_string());
                Ok(Some(self.forfeit(ctx.log, turn)))
            }
        }
    }

    /// The client's forfeit: the game is over, lost by the client, and the pending call
    /// is answered (and logged) before the loop logs the forfeit and the end.
    fn forfeit(&self, log: GameWriter<'_>, turn: &Turn) -> Action<R> {
        self.shared.lock().end = Some(End {
            outcome: Some(Outcome::Win(!self.shared.you)),
            forfeit: Some(self.shared.you),
            ..End::default()
        });
        self.shared.settle(log);
        Action::Forfeit(turn.decision.clone())
    }

    /// Answers `reply` with the state at the client's next turn (or the game's end).
    fn wait_with(&self, tool: &'static str, arguments: Value, ply: usize, reply: Reply) {
        self.shared.lock().pending = Some(Pending {
            call: (tool, arguments),
            ply,
            reply,
            out_of_tries: None,
        });
    }

    /// Marks the pending call as the ply's last illegal try (see [`OutOfTries`]).
    fn mark_out_of_tries(&self, error: String, fallback: Option<String>) {
        if let Some(pending) = self.shared.lock().pending.as_mut() {
            pending.out_of_tries = Some(OutOfTries { error, fallback });
        }
    }

    /// The client's last legal try failed: the fallback moves for it, or it forfeits.
    async fn out_of_tries(
        &self,
        position: &R::Position,
        log: GameWriter<'_>,
        why: String,
        turn: &mut Turn,
    ) -> Result<Action<R>, PlayError> {
        let reason = format!(
            "{} illegal moves at this ply; the last: {why}",
            turn.decision.invalid_answers
        );
        turn.decision.fallback_reason = Some(reason);
        let Some(fallback) = &self.fallback else {
            turn.decision.source = Some(MoveSource::Forfeit);
            self.mark_out_of_tries(why, None);
            return Ok(self.forfeit(log, turn));
        };
        let decision = fallback.choose(position).await?;
        let mv = R::decision_move(&decision);
        self.mark_out_of_tries(why, Some(Notation::of::<R>(mv).to_string()));
        turn.decision.source = Some(MoveSource::Fallback);
        Ok(self.shared.played(mv, MoveSource::Fallback, &turn.decision))
    }
}

/// The agent's `simulate_move` result in the shapes every tool answers a client in:
/// `board` is the position (after the move) as every state writes it, 64 characters
/// (`X`, `O`, `-`); the drawn board the agent's tool gives its models is `board_text`.
/// (Logs before this wrote the drawing as `board`.)
fn one_board_shape<R: ModelGame>(position: &R::Position, coord: &str, mut value: Value) -> Value {
    let after = coord
        .trim()
        .to_ascii_lowercase()
        .parse::<R::Move>()
        .ok()
        .and_then(|mv| R::play(position, mv).ok());
    if let (Value::Object(fields), Some(after)) = (&mut value, after) {
        if let Some(text) = fields.remove("board") {
            fields.insert("board_text".to_string(), text);
        }
        fields.insert("board".to_string(), json!(Squares::of::<R>(&after).to_string()));
    }
    value
}

/// A tool's result as the agent's tool gives it: its JSON, or `{"error": ...}`.
fn tool_answer(result: Result<Value, String>) -> ClientAnswer {
    let (content, is_error) = match result {
        Ok(value) => (value, false),
        Err(message) => (json!({ "error": message }), true),
    };
    ClientAnswer {
        text: content.to_string(),
        content,
        is_error,
    }
}

/// `coord` as a legal move of `position`, or why not (naming the legal moves unless
/// they are hidden).
fn legal_move<R: ModelGame>(position: &R::Position, coord: &str, shown: LegalMoves) -> Result<R::Move, String> {
    let legal = R::legal_moves(position);
    let named = || {
        if !shown.shown() {
            return String::new();
        }
        let moves: Vec<String> = legal.iter().map(|&mv| Notation::of::<R>(mv).to_string()).collect();
        format!("; legal moves: {}", moves.join(", "))
    };
    let mv: R::Move = coord.trim().to_ascii_lowercase().parse().map_err(|_| {
        format!(
            "{coord:?} is not a square (write a column then a row, such as d3){}",
            named()
        )
    })?;
    if !legal.contains(&mv) {
        return Err(format!("{coord} is not a legal move here{}", named()));
    }
    Ok(mv)
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

    #[test]
    fn a_move_is_read_in_either_case_and_refused_with_the_legal_moves() {
        let start = <game::Othello as game::Rules>::start();
        assert_eq!(
            legal_move::<game::Othello>(&start, " D3 ", LegalMoves::Shown).map(|m| m.to_string()),
            Ok("d3".to_string())
        );
        let refused = legal_move::<game::Othello>(&start, "a1", LegalMoves::Shown).unwrap_err();
        assert!(refused.contains("legal moves: d3, c4, f5, e6"), "{refused}");
        assert!(legal_move::<game::Othello>(&start, "z9", LegalMoves::Shown)
            .unwrap_err()
            .contains("not a square"));
        let hidden = legal_move::<game::Othello>(&start, "a1", LegalMoves::Hidden).unwrap_err();
        assert_eq!(hidden, "a1 is not a legal move here");
    }
}
