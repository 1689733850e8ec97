//! The play page's games: a person against any engine or model, each played by the
//! library's one engine for games whose side moves from outside the process
//! ([`ClientGames`], as an MCP client's are), logged as a run folder like `play`'s (so
//! `replay`, `stats`, `rate` and `report` read it), its events streamed to the page as
//! the game's watch ([`GameWatch`]) is told them.
//!
//! Events are JSON objects with a `kind`: `state` (the position after each move, with
//! the last move, its flips and the legal moves), `pass`, `engine` (the engine's move
//! with its score, nodes and candidates), `llm_reply` (the model's thinking, text and
//! tool calls of one turn), `tool_result`, `decision` (how the model's move was made),
//! `error` (the model server failed: the fallback plays), `end` and `failed`. Every
//! event is kept, so a page that reconnects is sent the whole game again (after a
//! `reset`).
//!
//! Hints: on the person's turn the page may ask the reference engine for the value of
//! each legal move (`POST /api/games/{id}/hint`); every hint shown is logged as a
//! `hint` line before the person's move, so the log tells which moves were played
//! with help.
//!
//! What "as it arrives" means: each reply of the model is sent as soon as its request
//! is answered and each tool result as soon as it is computed, both before the agent's
//! next request. The chat backends ask for whole replies (no token streaming), so a
//! reply appears at once, not token by token.

use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::Json;
use futures_util::stream::{self, Stream, StreamExt};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::sync::broadcast;

use super::play_events::PlayEvent;
use super::{ApiError, AppState};
use agent::{AgentEvent, LegalMoves};
use arena::{
    ClientCall, ClientError, ClientGames, ClientSeat, ClientSettings, ClientState, GameWatch, Openings, PlayerSpec,
};
use engines::{Decision, Engine, EngineSpec, Reference};
use game::othello::{Bitboard, Board, Color, Move, Square, TextStyle};
use game::Othello;
use record::{game_log_path, AgentDecision, HintRecord, HintValue, Notation, StopReason};
use runs::{RunFile, RunFolder, RunFolderError, RunKind, RunPlayer, ServeRun};

/// The number of a page's game in its run (each game has a run of its own).
const GAME: u64 = 1;
/// The hint engine when the page names none.
const HINT_ENGINE: &str = "reference";
/// No new search depth starts after this long on a hint (the exact solve, at most
/// [`MAX_HINT_EXACT`] empties, always finishes).
const HINT_TIME: Duration = Duration::from_secs(2);
/// The deepest reference search a browser game may ask for (a hint or an opponent).
const MAX_BROWSER_DEPTH: u32 = 10;
/// The most empties a browser game's reference may solve exactly.
const MAX_BROWSER_EXACT: u32 = 20;
/// The deepest look-ahead (`n-hand:N`, ...) of a browser opponent (~10^N lines a move).
const MAX_BROWSER_LOOKAHEAD: u32 = 6;
/// The deepest `alphabeta:D` of a browser opponent (no move ordering).
const MAX_BROWSER_ALPHABETA: u32 = 8;

/// Why an engine is too costly to answer a browser game's move within seconds: a
/// page's opponent shares the server with every other page, and a search in progress
/// cannot be stopped when its page leaves (it finishes and is dropped).
fn too_costly_for_a_browser(spec: &EngineSpec) -> Option<String> {
    match *spec {
        EngineSpec::Lookahead { plies, .. } if plies > MAX_BROWSER_LOOKAHEAD => Some(format!(
            "{plies} plies ahead is too deep for a browser game (at most {MAX_BROWSER_LOOKAHEAD})"
        )),
        EngineSpec::AlphaBeta { depth, .. } if depth > MAX_BROWSER_ALPHABETA => Some(format!(
            "depth {depth} is too deep for a browser game (at most {MAX_BROWSER_ALPHABETA})"
        )),
        EngineSpec::Reference { depth, exact_empties } if depth > MAX_BROWSER_DEPTH || exact_empties > MAX_BROWSER_EXACT => {
            Some(format!(
                "too deep for a browser game (reference:DEPTH:EXACT with DEPTH at most {MAX_BROWSER_DEPTH}, EXACT at most {MAX_BROWSER_EXACT})"
            ))
        }
        EngineSpec::Dilute { base, .. } => too_costly_for_a_browser(&base.into()),
        _ => None,
    }
}

/// The games played here, by id.
pub struct Games {
    sessions: Mutex<HashMap<u64, Arc<Session>>>,
    next: AtomicU64,
    max: usize,
    /// How long a game waits for the person's move before it is abandoned.
    move_wait: Duration,
    /// Set when the server stops ([`Games::stop_all`]): no game starts from then on
    /// (held while one starts, so each game is either stopped or never started).
    stopping: Mutex<bool>,
}

impl Games {
    /// Room for `max` games at once, each abandoned after `move_wait` without the
    /// person's move.
    pub fn new(max: usize, move_wait: Duration) -> Games {
        Games {
            sessions: Mutex::new(HashMap::new()),
            next: AtomicU64::new(1),
            max: max.max(1),
            move_wait,
            stopping: Mutex::new(false),
        }
    }

    /// Stops every game in play because the server stops: each is logged as stopped
    /// (`game_stopped`, reason `interrupted`) at the ply it reached, waited for up to
    /// `wait` in all.
    pub async fn stop_all(&self, wait: Duration) {
        *self.stopping.lock().unwrap_or_else(|p| p.into_inner()) = true;
        let open: Vec<Arc<Session>> = self
            .sessions
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .values()
            .filter(|s| !s.feed.is_finished())
            .cloned()
            .collect();
        for session in &open {
            if let Some(games) = session.games.get() {
                games.stop(GAME, StopReason::Interrupted);
            }
        }
        let deadline = tokio::time::Instant::now() + wait;
        while open.iter().any(|s| !s.feed.is_finished()) && tokio::time::Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// The error of a game asked for while the server stops.
    fn refuse_if_stopping(&self) -> Result<(), ApiError> {
        if *self.stopping.lock().unwrap_or_else(|p| p.into_inner()) {
            return Err(ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "the server is stopping: start a game once it is back",
            ));
        }
        Ok(())
    }

    /// Starts the game of `games` (the person as `color`, shown on `feed`), unless the
    /// server is stopping: a game started after [`Games::stop_all`] looked for the
    /// games in play would never be stopped, and its log would end mid-game.
    fn start(&self, games: &ClientGames<Othello>, color: Color, feed: &Arc<Feed>) -> Result<(), ApiError> {
        let stopping = self.stopping.lock().unwrap_or_else(|p| p.into_inner());
        let started = if *stopping {
            let message = "the server stopped before the game began".to_string();
            Err((StatusCode::SERVICE_UNAVAILABLE, message))
        } else {
            let started = games.start_game(Some(color), None, feed.clone());
            started.map(drop).map_err(|err| {
                let message = format!("{:#}", anyhow::Error::from(err));
                (StatusCode::INTERNAL_SERVER_ERROR, message)
            })
        };
        drop(stopping);
        started.map_err(|(status, message)| {
            feed.finish(PlayEvent::failed(message.clone()));
            ApiError::new(status, message)
        })
    }

    fn get(&self, id: u64) -> Option<Arc<Session>> {
        self.sessions
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(&id)
            .cloned()
    }

    /// Adds a session, first dropping finished ones when full; `None` when every slot
    /// holds a game still being played.
    fn add(&self, session: Session) -> Option<(u64, Arc<Session>)> {
        let mut sessions = self.sessions.lock().unwrap_or_else(|p| p.into_inner());
        if sessions.len() >= self.max {
            sessions.retain(|_, s| !s.feed.is_finished());
        }
        if sessions.len() >= self.max {
            return None;
        }
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let session = Arc::new(session);
        sessions.insert(id, session.clone());
        Some((id, session))
    }
}

/// One page's game: its events, the game itself (once its run folder is made), and
/// the hints shown so far.
struct Session {
    feed: Arc<Feed>,
    /// The game, played by the library's client-game engine; set once its run folder
    /// is made.
    games: OnceLock<ClientGames<Othello>>,
    /// Hints shown (each logged at its ply when shown), answered again from here.
    hints: Mutex<Vec<HintRecord>>,
    /// A hint is being computed (one at a time per game).
    hinting: AtomicBool,
}

impl Session {
    /// The game, or the error a route answers while its run folder is being made.
    fn games(&self) -> Result<&ClientGames<Othello>, ApiError> {
        self.games
            .get()
            .ok_or_else(|| ApiError::new(StatusCode::CONFLICT, "the game is starting: try again"))
    }
}

/// A game's events so far (each a JSON text), whether it is over, and the live feed.
struct Feed {
    history: Mutex<(Vec<Arc<str>>, bool)>,
    live: broadcast::Sender<Arc<str>>,
}

impl Feed {
    fn new() -> Feed {
        Feed {
            history: Mutex::new((Vec::new(), false)),
            live: broadcast::channel(1024).0,
        }
    }

    fn publish(&self, event: PlayEvent<'_>) {
        let text: Arc<str> = Arc::from(event.to_text());
        let mut history = self.history.lock().unwrap_or_else(|p| p.into_inner());
        history.0.push(text.clone());
        // Nobody listening is fine: the history keeps it.
        let _ = self.live.send(text);
    }

    fn finish(&self, event: PlayEvent<'_>) {
        self.publish(event);
        self.history.lock().unwrap_or_else(|p| p.into_inner()).1 = true;
    }

    fn is_finished(&self) -> bool {
        self.history.lock().unwrap_or_else(|p| p.into_inner()).1
    }

    /// The events so far and a receiver for the next ones (taken together: none lost).
    fn subscribe(&self) -> (Vec<Arc<str>>, broadcast::Receiver<Arc<str>>) {
        let history = self.history.lock().unwrap_or_else(|p| p.into_inner());
        (history.0.clone(), self.live.subscribe())
    }
}

/// What the page is shown of its game: each event the game's watch is told.
impl GameWatch<Othello> for Feed {
    fn moved(&self, before: &Board, after: &Board, mv: Move, next_ply: usize) {
        let mover = before.side_to_move();
        if mv == Move::Pass {
            self.publish(PlayEvent::Pass {
                color: mover.to_string(),
                ply: next_ply - 1,
            });
        }
        let flips = Bitboard(after.discs(mover).0 & before.discs(!mover).0);
        self.publish(PlayEvent::state(after, Some(mv), flips, next_ply));
    }

    fn engine_decided(&self, player: &str, decision: &Decision) {
        self.publish(PlayEvent::Engine {
            player: player.to_string(),
            decision,
        });
    }

    fn agent_event(&self, event: AgentEvent<'_>) {
        self.publish(PlayEvent::from_agent(event));
    }

    fn agent_decided(&self, decision: &AgentDecision) {
        self.publish(PlayEvent::decision(decision));
    }

    fn server_failed(&self, reason: &str) {
        self.publish(PlayEvent::Error { message: reason });
    }

    fn ended(&self, state: &ClientState, stopped: Option<StopReason>) {
        self.finish(PlayEvent::ended(state, stopped));
    }
}

/// `POST /api/games`.
#[derive(Debug, Deserialize)]
pub struct NewGame {
    /// The person's colour: `black` or `white`.
    color: String,
    /// The opponent's spec.
    opponent: String,
}

/// Starts a game; answers `{id, run}`.
pub async fn create(State(app): State<Arc<AppState>>, Json(request): Json<NewGame>) -> Result<Response, ApiError> {
    let bad_request = |message: &str| ApiError::new(StatusCode::BAD_REQUEST, message);
    let color: Color = request
        .color
        .parse()
        .map_err(|_| bad_request("color: give black or white"))?;
    let spec = request.opponent.trim().to_string();
    refuse_unplayable(&spec)?;
    app.games.refuse_if_stopping()?;
    let opponent = app
        .players
        .player(&spec)
        .await
        .map_err(|err| ApiError::caused(StatusCode::BAD_REQUEST, err))?;
    let feed = Arc::new(Feed::new());
    let Some((id, session)) = app.games.add(Session {
        feed: feed.clone(),
        games: OnceLock::new(),
        hints: Mutex::new(Vec::new()),
        hinting: AtomicBool::new(false),
    }) else {
        return Err(ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "too many games in play here: finish one and try again",
        ));
    };
    let folder = match create_run(&app, color, &opponent, id).await {
        Ok(folder) => folder,
        Err(message) => {
            // The game never starts: its slot is free again.
            feed.finish(PlayEvent::failed(message.clone()));
            return Err(ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, message));
        }
    };
    let run = folder
        .path()
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let log = game_log_path(folder.path(), GAME as usize)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned());
    let settings = ClientSettings {
        opponents: vec![opponent.clone()],
        openings: Openings::Random { plies: 0 },
        seed: rand::random::<u64>(),
        // The page sends legal moves only (checked before they are sent).
        max_invalid: 1,
        fallback: None,
        max_games: 1,
        style: TextStyle::default(),
        legal_moves: LegalMoves::Shown,
        move_wait: Some(app.games.move_wait),
    };
    let spec_of = |side: Color| side_spec(side, color, &opponent);
    let games = session
        .games
        .get_or_init(|| ClientGames::in_folder(settings, folder, ClientSeat::person()));
    // The start is shown before the game can move (the opponent may hold black).
    feed.publish(PlayEvent::Start {
        human: color.to_string(),
        black: &spec_of(Color::Black),
        white: &spec_of(Color::White),
        log,
    });
    feed.publish(PlayEvent::state(&Board::new(), None, Bitboard(0), 1));
    // The state at the person's first turn comes as events, not as this answer.
    app.games.start(games, color, &feed)?;
    Ok(Json(Created { id, run }).into_response())
}

/// The spec of `side` in a game whose person holds `human`.
fn side_spec(side: Color, human: Color, opponent: &PlayerSpec) -> String {
    if side == human {
        "human".to_string()
    } else {
        opponent.to_string()
    }
}

/// Makes page game `id`'s run folder and writes its run.json, logged as `play` logs its
/// players (each side's spec, and the agent's settings); why not, in words.
async fn create_run(app: &AppState, human: Color, opponent: &PlayerSpec, id: u64) -> Result<RunFolder, String> {
    let spec_of = |side: Color| side_spec(side, human, opponent);
    let agent_of = |side: Color| (side != human).then(|| opponent.agent_config().cloned()).flatten();
    let record = RunFile::new(RunKind::Serve(ServeRun {
        players: Color::BOTH
            .map(|side| RunPlayer::new(spec_of(side), agent_of(side)))
            .into(),
        games: 1,
        human_color: human,
    }));
    let runs = app.runs.clone();
    let label = format!("serve-{}-vs-{}-{id}", spec_of(Color::Black), spec_of(Color::White));
    let created = tokio::task::spawn_blocking(move || {
        let folder = RunFolder::create_in(&runs, &label)?;
        folder.write_run(&record)?;
        Ok::<_, RunFolderError>(folder)
    })
    .await;
    created
        .map_err(anyhow::Error::from)
        .and_then(|made| Ok(made?))
        .map_err(|err| format!("{err:#}"))
}

/// Refuses an opponent spec a browser game cannot play: empty or over-long, `human`
/// (it reads the terminal), or an engine too slow for a person waiting on it.
fn refuse_unplayable(spec: &str) -> Result<(), ApiError> {
    let bad_request = |message: &str| ApiError::new(StatusCode::BAD_REQUEST, message);
    if spec.is_empty() || spec.len() > 200 {
        return Err(bad_request("opponent: give an engine spec or llm:MODEL"));
    }
    match spec.parse::<EngineSpec>() {
        Ok(EngineSpec::Human) => {
            return Err(bad_request(
                "opponent: human reads the terminal; choose an engine or llm:MODEL",
            ))
        }
        Ok(engine) => {
            if let Some(why) = too_costly_for_a_browser(&engine) {
                return Err(bad_request(&format!("opponent {spec:?}: {why}")));
            }
        }
        Err(_) => {}
    }
    Ok(())
}

/// `POST /api/games/{id}/move`.
#[derive(Debug, Deserialize)]
pub struct MoveRequest {
    /// The square, such as `d3`.
    square: String,
    /// The ply it is meant for (a click on an old position is refused).
    ply: usize,
}

/// The person's move: refused unless it is their turn at that ply and the square is
/// legal. The move is played on its way; the page sees it, and the reply, as events.
pub async fn play_move(
    State(app): State<Arc<AppState>>,
    Path(id): Path<u64>,
    Json(request): Json<MoveRequest>,
) -> Result<Response, ApiError> {
    let session = app.games.get(id).ok_or_else(no_such_game)?;
    let square: Square = request
        .square
        .parse::<Square>()
        .map_err(|err| ApiError::new(StatusCode::BAD_REQUEST, format!("{err}")))?;
    match session.games()?.turn(GAME) {
        Some((board, ply)) if ply == request.ply => {
            if !board.legal_moves().contains(square) {
                return Err(ApiError::new(
                    StatusCode::CONFLICT,
                    format!("{square} is not a legal move; legal: {}", board.legal_moves()),
                ));
            }
        }
        _ => return Err(ApiError::new(StatusCode::CONFLICT, "it is not your turn")),
    }
    // Answered once the opponent has replied; a second click at the same ply is
    // refused by the game (its ply is gone) and counts for nothing.
    let call = ClientCall::PlayAt(square.to_string(), request.ply);
    tokio::spawn(async move {
        if let Some(games) = session.games.get() {
            let _ = games.call(GAME, call).await;
        }
    });
    Ok(StatusCode::NO_CONTENT.into_response())
}

/// The answer to `POST /api/games`: the game's id and its run folder's name.
#[derive(Serialize)]
struct Created {
    id: u64,
    run: String,
}

/// The answer to `GET /api/models`.
#[derive(Serialize)]
struct Models {
    models: Vec<String>,
}

/// `POST /api/games/{id}/hint`.
#[derive(Debug, Deserialize)]
pub struct HintRequest {
    /// The engine: `reference` (the default) or `reference:DEPTH:EXACT`.
    #[serde(default)]
    engine: Option<String>,
    /// The ply the hint is for (a request for an old position is refused).
    ply: usize,
}

/// `GET /api/models`: `{models: [name, ...]}`, the models the `llm:` opponents' server
/// serves (Ollama's `/api/tags`, an OpenAI-compatible `/v1/models`); 502 with the
/// reason when the server cannot say.
pub async fn models(State(app): State<Arc<AppState>>) -> Result<Response, ApiError> {
    let models = app
        .players
        .models()
        .await
        .map_err(|err| ApiError::caused(StatusCode::BAD_GATEWAY, err))?;
    Ok(Json(Models { models }).into_response())
}

/// The value of each of the person's legal moves by the reference engine, on their
/// turn only: the `hint` record logged at that ply, before their move (`{ply, color,
/// engine, exact, depth, values: [{move, value}], ...}`), values in final discs for the
/// person. The same hint asked again at the same ply is the first one, logged once.
pub async fn hint(
    State(app): State<Arc<AppState>>,
    Path(id): Path<u64>,
    Json(request): Json<HintRequest>,
) -> Result<Response, ApiError> {
    let session = app.games.get(id).ok_or_else(no_such_game)?;
    let engine = hint_engine(request.engine.as_deref().unwrap_or(HINT_ENGINE))?;
    let games = session.games()?;
    let not_your_turn = || ApiError::new(StatusCode::CONFLICT, "hints are for your turn: wait for your move");
    let (board, ply) = games
        .turn(GAME)
        .filter(|&(_, ply)| ply == request.ply)
        .ok_or_else(not_your_turn)?;
    // A hint asked again (same ply, same engine) is answered from the first and
    // logged once: a page that repeats its request cannot grow the log.
    let name = engine.name();
    let asked_before = session
        .hints
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .iter()
        .find(|hint| hint.ply == ply && hint.engine == name)
        .cloned();
    if let Some(hint) = asked_before {
        return Ok(Json(&hint).into_response());
    }
    let Some(_hinting) = Hinting::start(&session.hinting) else {
        return Err(ApiError::new(
            StatusCode::CONFLICT,
            "a hint is being computed: wait for it",
        ));
    };
    let computed = tokio::task::spawn_blocking(move || {
        let mut engine = engine;
        engine.score_moves(&board)
    })
    .await;
    let scores = computed.map_err(|err| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, format!("{err}")))?;
    let hint = HintRecord {
        game: GAME as usize,
        ply,
        color: board.side_to_move(),
        player: "human".to_string(),
        engine: name,
        exact: scores.exact,
        depth: scores.depth,
        values: scores
            .scores
            .iter()
            .map(|&(square, value)| HintValue {
                mv: Notation::Square(square),
                value,
            })
            .collect(),
    };
    // Logged by the game at the person's turn; a hint the game has moved past is not
    // shown (every hint shown is in the log).
    match games.call(GAME, ClientCall::Hint(Box::new(hint.clone()))).await {
        Ok(_) => {}
        Err(ClientError::Moved { .. } | ClientError::Over { .. }) => return Err(not_your_turn()),
        Err(err) => return Err(ApiError::caused(StatusCode::INTERNAL_SERVER_ERROR, err)),
    }
    // The page is sent the record the log holds: one shape for both.
    let answer = Json(&hint).into_response();
    session.hints.lock().unwrap_or_else(|p| p.into_inner()).push(hint);
    Ok(answer)
}

/// A game's one hint in the works, from its search until it is logged and kept (a
/// request for it again is answered from there): let go when dropped, also when its
/// request is (a page that left while it was worked out).
struct Hinting<'a>(&'a AtomicBool);

impl<'a> Hinting<'a> {
    fn start(hinting: &'a AtomicBool) -> Option<Hinting<'a>> {
        (!hinting.swap(true, Ordering::AcqRel)).then_some(Hinting(hinting))
    }
}

impl Drop for Hinting<'_> {
    fn drop(&mut self) {
        self.0.store(false, Ordering::Release);
    }
}

/// The reference engine a hint asks for, within the bounds a hint may take.
fn hint_engine(spec: &str) -> Result<Reference, ApiError> {
    let refuse = |why: String| {
        ApiError::new(
            StatusCode::BAD_REQUEST,
            format!("engine {spec:?}: {why}; hints take reference or reference:DEPTH:EXACT (DEPTH at most {MAX_BROWSER_DEPTH}, EXACT at most {MAX_BROWSER_EXACT})"),
        )
    };
    match spec.trim().parse::<EngineSpec>() {
        Ok(EngineSpec::Reference { depth, exact_empties }) => {
            if let Some(why) = too_costly_for_a_browser(&EngineSpec::Reference { depth, exact_empties }) {
                return Err(refuse(why));
            }
            let mut engine = Reference::new(exact_empties, depth);
            engine.time_limit = Some(HINT_TIME);
            Ok(engine)
        }
        Ok(other) => Err(refuse(format!("{other} gives no value per move"))),
        Err(err) => Err(refuse(format!("{err}"))),
    }
}

/// A game id that names no game (404).
fn no_such_game() -> ApiError {
    ApiError::new(StatusCode::NOT_FOUND, "no such game: start a new one")
}

/// `GET /api/games/{id}/events`: the game so far, then each event as it happens.
pub async fn events(State(app): State<Arc<AppState>>, Path(id): Path<u64>) -> Result<Response, ApiError> {
    let session = app.games.get(id).ok_or_else(no_such_game)?;
    let (history, feed) = session.feed.subscribe();
    Ok(Sse::new(event_stream(history, feed))
        .keep_alive(KeepAlive::new().interval(Duration::from_secs(15)))
        .into_response())
}

/// The events of `history`, then those of `feed`. A reader too slow for the feed is told
/// to reconnect (and then gets the whole history again). A client that goes away just
/// drops the stream; the game goes on.
fn event_stream(
    history: Vec<Arc<str>>,
    feed: broadcast::Receiver<Arc<str>>,
) -> impl Stream<Item = Result<SseEvent, Infallible>> {
    let first = stream::iter(
        std::iter::once(Arc::from(PlayEvent::Reset.to_text()))
            .chain(history)
            .map(|text: Arc<str>| Ok(SseEvent::default().data(&*text))),
    );
    let rest = stream::unfold(Some(feed), |feed| async move {
        let mut feed = feed?;
        match feed.recv().await {
            Ok(text) => Some((Ok(SseEvent::default().data(&*text)), Some(feed))),
            Err(broadcast::error::RecvError::Lagged(_)) => {
                let text = PlayEvent::Lagged.to_text();
                Some((Ok(SseEvent::default().data(text)), None))
            }
            Err(broadcast::error::RecvError::Closed) => None,
        }
    });
    first.chain(rest)
}

/// `POST /api/games/{id}/end` (body `{}`): ends a game in play (the page sends it when
/// it is left); the log says it stopped (`game_stopped`, reason `ended`) and its slot
/// is free. A finished game is left as it is.
pub async fn end(
    State(app): State<Arc<AppState>>,
    Path(id): Path<u64>,
    Json(_): Json<Value>,
) -> Result<Response, ApiError> {
    let session = app.games.get(id).ok_or_else(no_such_game)?;
    if session.feed.is_finished() {
        return Err(ApiError::new(StatusCode::CONFLICT, "the game is already over"));
    }
    session.games()?.stop(GAME, StopReason::Ended);
    Ok(StatusCode::NO_CONTENT.into_response())
}
