//! What a client asks of its games and what it is answered: the calls, the answers, the
//! errors and the state it reads.

use serde::Serialize;
use serde_json::{json, Value};

use game::othello::Color;
use record::{HintRecord, LogError};
use runs::RunFolderError;

use super::client::{MAX_ARGUMENT, MAX_CALLS_PER_PLY, MAX_CLIENTS, MAX_SESSION_GAMES};

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
    pub(crate) fn ply(&self) -> Option<usize> {
        match self {
            ClientCall::PlayAt(_, ply) => Some(*ply),
            ClientCall::Hint(hint) => Some(hint.ply),
            ClientCall::State | ClientCall::Simulate(_) | ClientCall::Play(_) | ClientCall::Resign => None,
        }
    }

    /// The call's arguments as the log keeps them.
    pub(crate) fn arguments(&self, game_id: u64) -> Value {
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
