//! The play page's games: a person against any engine or model, one tokio task per
//! game, logged as a run folder like `play`'s (so `replay`, `stats`, `rate` and
//! `report` read it), its events streamed to the page.
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
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::Json;
use futures_util::stream::{self, Stream, StreamExt};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::play_events::PlayEvent;
use tokio::sync::{broadcast, mpsc};

use super::{ApiError, AppState};
use agent::{Agent, AgentError, BlockingEngine, MoveContext};
use arena::{by_side, play_logged, Action, GameContext, PlayError, Played, Player, PlayerSpec, Seat};
use engines::{Engine, EngineError, EngineSpec, Reference};
use game::othello::{Bitboard, Board, Color, Move, Square};
use game::{Line, Othello};
use record::{
    game_log_path, AgentDecision, GameLog, GameWriter, HintRecord, HintValue, MoveSource, Notation, PlayerKind,
    StopReason,
};
use runs::{RunFile, RunFolder, RunFolderError, RunKind, RunPlayer, ServeRun};

/// The `game_stopped` reason of a game whose person left (no move within `serve
/// --move-wait`): the game ends as `failed` and its slot is freed.
const ABANDONED: StopReason = StopReason::Abandoned;
/// The `game_stopped` reason of a game its person ended (the end route, sent when the
/// page is left or the game given up).
const ENDED: StopReason = StopReason::Ended;
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
        }
    }

    /// Stops every game in play because the server stops: each is logged as stopped
    /// (`game_stopped`, reason `interrupted`) at the ply it reached, waited for up to
    /// `wait` in all.
    pub async fn stop_all(&self, wait: Duration) {
        let open: Vec<Arc<Session>> = self
            .sessions
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .values()
            .filter(|s| !s.is_finished())
            .cloned()
            .collect();
        for session in &open {
            session.server_stopping.store(true, Ordering::Release);
            session.end.notify_one();
        }
        let deadline = tokio::time::Instant::now() + wait;
        while open.iter().any(|s| !s.is_finished()) && tokio::time::Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
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
            sessions.retain(|_, s| !s.is_finished());
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

/// One game's shared state: its events so far, the live feed, the person's moves.
struct Session {
    /// Events so far (each a JSON text) and whether the game is over.
    history: Mutex<(Vec<Arc<str>>, bool)>,
    feed: broadcast::Sender<Arc<str>>,
    /// The person's moves: (ply, square).
    moves: mpsc::Sender<(usize, Square)>,
    /// The position and the ply the person may move at (`None` when it is not their turn).
    turn: Mutex<Option<(Board, usize)>>,
    /// Hints shown at the person's current turn, logged with their move.
    hints: Mutex<Vec<HintRecord>>,
    /// A hint is being computed (one at a time per game).
    hinting: AtomicBool,
    /// How long the person's move is waited for.
    move_wait: Duration,
    /// Set by the end route: the game stops where it is.
    end: tokio::sync::Notify,
    /// Set with `end` when the server stops (its game is logged as interrupted, not ended).
    server_stopping: AtomicBool,
    /// The ply the game is at (the next to be played).
    next_ply: AtomicUsize,
}

impl Session {
    fn publish(&self, event: PlayEvent<'_>) {
        let text: Arc<str> = Arc::from(event.to_text());
        let mut history = self.history.lock().unwrap_or_else(|p| p.into_inner());
        history.0.push(text.clone());
        // Nobody listening is fine: the history keeps it.
        let _ = self.feed.send(text);
    }

    /// Publishes a position; when the person is to move in it, their clicks are taken
    /// from now on (before the page can see it, so no click comes too early).
    fn show(&self, board: &Board, last: Option<Move>, flips: Bitboard, ply: usize, human: Color) {
        self.next_ply.store(ply, Ordering::Release);
        if board.side_to_move() == human && !board.legal_moves().is_empty() {
            *self.turn.lock().unwrap_or_else(|p| p.into_inner()) = Some((*board, ply));
        }
        self.publish(PlayEvent::state(board, last, flips, ply));
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
        (history.0.clone(), self.feed.subscribe())
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
    let opponent = app
        .players
        .player(&spec)
        .await
        .map_err(|err| ApiError::caused(StatusCode::BAD_REQUEST, err))?;
    let (feed, _) = broadcast::channel(1024);
    let (moves, moves_in) = mpsc::channel(4);
    let Some((id, session)) = app.games.add(Session {
        history: Mutex::new((Vec::new(), false)),
        feed,
        moves,
        turn: Mutex::new(None),
        hints: Mutex::new(Vec::new()),
        hinting: AtomicBool::new(false),
        move_wait: app.games.move_wait,
        end: tokio::sync::Notify::new(),
        server_stopping: AtomicBool::new(false),
        next_ply: AtomicUsize::new(1),
    }) else {
        return Err(ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "too many games in play here: finish one and try again",
        ));
    };
    // Logged as `play` logs its players: each side's spec, and the agent's settings.
    let spec_of = |side: Color| {
        if side == color {
            "human".to_string()
        } else {
            opponent.to_string()
        }
    };
    let agent_of = |side: Color| (side != color).then(|| opponent.agent_config().cloned()).flatten();
    let record = RunFile::new(RunKind::Serve(ServeRun {
        players: Color::BOTH
            .map(|side| RunPlayer::new(spec_of(side), agent_of(side)))
            .into(),
        games: 1,
        human_color: color,
    }));
    let runs = app.runs.clone();
    let label = format!("serve-{}-vs-{}-{id}", spec_of(Color::Black), spec_of(Color::White));
    let created = tokio::task::spawn_blocking(move || {
        let folder = RunFolder::create_in(&runs, &label)?;
        folder.write_run(&record)?;
        Ok::<_, RunFolderError>(folder)
    })
    .await;
    let folder = match created.map_err(anyhow::Error::from).and_then(|made| Ok(made?)) {
        Ok(folder) => folder,
        Err(err) => {
            let message = format!("{err:#}");
            // The game never starts: its slot is free again.
            session.finish(PlayEvent::failed(message.clone()));
            return Err(ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, message));
        }
    };
    let run = folder
        .path()
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let seed = rand::random::<u64>();
    tokio::spawn(run_game(session, color, opponent, moves_in, folder, seed));
    Ok(Json(Created { id, run }).into_response())
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

/// The person's move: refused unless it is their turn at that ply and the square is legal.
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
    let turn = *session.turn.lock().unwrap_or_else(|p| p.into_inner());
    match turn {
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
    match session.moves.try_send((request.ply, square)) {
        Ok(()) => Ok(StatusCode::NO_CONTENT.into_response()),
        Err(_) => Err(ApiError::new(StatusCode::CONFLICT, "a move is already on its way")),
    }
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
/// turn only: the `hint` record logged with their move (`{ply, color, engine, exact,
/// depth, values: [{move, value}], ...}`), values in final discs for the person. The
/// same hint asked again at the same ply is the first one, logged once.
pub async fn hint(
    State(app): State<Arc<AppState>>,
    Path(id): Path<u64>,
    Json(request): Json<HintRequest>,
) -> Result<Response, ApiError> {
    let session = app.games.get(id).ok_or_else(no_such_game)?;
    let engine = hint_engine(request.engine.as_deref().unwrap_or(HINT_ENGINE))?;
    let turn = *session.turn.lock().unwrap_or_else(|p| p.into_inner());
    let Some((board, ply)) = turn.filter(|&(_, ply)| ply == request.ply) else {
        return Err(ApiError::new(
            StatusCode::CONFLICT,
            "hints are for your turn: wait for your move",
        ));
    };
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
    if session.hinting.swap(true, Ordering::AcqRel) {
        return Err(ApiError::new(
            StatusCode::CONFLICT,
            "a hint is being computed: wait for it",
        ));
    }
    let computed = tokio::task::spawn_blocking(move || {
        let mut engine = engine;
        engine.score_moves(&board)
    })
    .await;
    session.hinting.store(false, Ordering::Release);
    let scores = computed.map_err(|err| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, format!("{err}")))?;
    let hint = HintRecord {
        game: 1,
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
    // The page is sent the record the log will hold: one shape for both.
    let answer = Json(&hint).into_response();
    session.hints.lock().unwrap_or_else(|p| p.into_inner()).push(hint);
    Ok(answer)
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
    let (history, feed) = session.subscribe();
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

/// Plays the game to its end, logging it in `folder`.
async fn run_game(
    session: Arc<Session>,
    human_color: Color,
    opponent: PlayerSpec,
    moves: mpsc::Receiver<(usize, Square)>,
    folder: RunFolder,
    seed: u64,
) {
    // The folder stays locked while the game is written.
    let dir = folder.path();
    let log = match GameLog::create(&game_log_path(dir, 1)) {
        Ok(log) => log,
        Err(err) => {
            session.finish(PlayEvent::failed(err.to_string()));
            return;
        }
    };
    let mut human = WebHuman {
        session: session.clone(),
        moves,
    };
    let mut opponent_player = web_player(&session, &opponent, seed);
    let human_seat = Seat {
        name: "human".to_string(),
        kind: PlayerKind::Human,
    };
    let opponent_seat = Seat {
        name: opponent.to_string(),
        kind: opponent.kind(),
    };
    let players = by_side::<&mut dyn Player>(human_color, &mut human, opponent_player.as_mut());
    let seats = by_side(human_color, human_seat, opponent_seat);
    let start = Board::new();
    session.publish(PlayEvent::Start {
        human: human_color.to_string(),
        black: &seats.black.name,
        white: &seats.white.name,
        log: game_log_path(dir, 1)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned()),
    });
    session.show(&start, None, Bitboard(0), 1, human_color);
    let mut observe = observer(session.clone(), start, human_color);
    let ctx = GameContext {
        log: GameWriter::new(Some(&log), 1),
        observer: Some(&mut observe),
        stop: None,
        stop_reason: StopReason::Interrupted,
    };
    let game = play_logged((Line::new(start), None), players, seats, seed, ctx);
    // The end route drops the game where it is: between two log lines, since the log
    // writes each line whole (a search in progress finishes on its thread, unused).
    let played = tokio::select! {
        played = game => Some(played),
        () = session.end.notified() => None,
    };
    *session.turn.lock().unwrap_or_else(|p| p.into_inner()) = None;
    let Some(played) = played else {
        let ply = session.next_ply.load(Ordering::Acquire);
        let (reason, who) = if session.server_stopping.load(Ordering::Acquire) {
            (StopReason::Interrupted, "the server stopped")
        } else {
            (ENDED, "you ended the game")
        };
        let logged = GameWriter::new(Some(&log), 1).stopped(ply, reason);
        let message = match logged {
            Ok(()) => format!("{who} before ply {ply}"),
            Err(err) => format!("{who} before ply {ply}; its log could not say so: {err}"),
        };
        session.finish(PlayEvent::Failed {
            message,
            reason: Some(reason),
        });
        return;
    };
    session.finish(PlayEvent::end(played));
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
    if session.is_finished() {
        return Err(ApiError::new(StatusCode::CONFLICT, "the game is already over"));
    }
    // A permit is kept when nobody waits yet: the game stops at its next await.
    session.end.notify_one();
    Ok(StatusCode::NO_CONTENT.into_response())
}

/// The opponent as the page plays it: its moves (an engine's) or its turns (a
/// model's) published as they come.
fn web_player(session: &Arc<Session>, opponent: &PlayerSpec, seed: u64) -> Box<dyn Player> {
    match opponent {
        PlayerSpec::External(_) => opponent.build(seed),
        PlayerSpec::Engine(spec) => Box::new(WebEngine {
            engine: BlockingEngine::new(Box::new(spec.build(seed))),
            session: session.clone(),
        }),
        PlayerSpec::Llm(llm) => {
            let observed = session.clone();
            let agent = Agent::new(llm.config.clone(), llm.backend.clone(), seed)
                .with_observer(Arc::new(move |event| observed.publish(PlayEvent::from_agent(event))));
            // A forfeiting agent still needs a move when its server dies: random.
            let fallback = match llm.config.fallback.spec::<Othello>() {
                Ok(Some(spec)) => spec,
                Ok(None) | Err(_) => EngineSpec::Random,
            };
            Box::new(WebAgent {
                agent,
                fallback: BlockingEngine::new(Box::new(fallback.build(seed))),
                session: session.clone(),
            })
        }
    }
}

/// Publishes each move from `start` on: a `pass`, then the position with the move's flips.
fn observer(session: Arc<Session>, start: Board, human_color: Color) -> impl FnMut(&Board, Move) {
    let (mut before, mut ply) = (start, 0usize);
    move |board: &Board, mv: Move| {
        ply += 1;
        let mover = before.side_to_move();
        if mv == Move::Pass {
            session.publish(PlayEvent::Pass {
                color: mover.to_string(),
                ply,
            });
        }
        let flips = Bitboard(board.discs(mover).0 & before.discs(!mover).0);
        session.show(board, Some(mv), flips, ply + 1, human_color);
        before = *board;
    }
}

/// The person at the page: waits for their click.
struct WebHuman {
    session: Arc<Session>,
    moves: mpsc::Receiver<(usize, Square)>,
}

#[async_trait::async_trait]
impl Player for WebHuman {
    fn name(&self) -> String {
        "human".to_string()
    }

    async fn act(&mut self, board: &Board, ctx: MoveContext<'_>) -> Result<Action, PlayError> {
        // The turn was opened when the position was shown ([`Session::show`]).
        let chosen = loop {
            match tokio::time::timeout(self.session.move_wait, self.moves.recv()).await {
                Ok(Some((ply, square))) if ply == ctx.ply && board.legal_moves().contains(square) => break square,
                Ok(Some(_)) => continue,
                // Nobody moved within the wait: the log says the game
                // was abandoned (a reader shows it as stopped, never as in play).
                Ok(None) | Err(_) => {
                    ctx.log.stopped(ctx.ply, ABANDONED).map_err(AgentError::from)?;
                    return Err(PlayError::Engine(EngineError::InputClosed));
                }
            }
        };
        *self.session.turn.lock().unwrap_or_else(|p| p.into_inner()) = None;
        let hints = std::mem::take(&mut *self.session.hints.lock().unwrap_or_else(|p| p.into_inner()));
        for hint in hints.iter().filter(|hint| hint.ply == ctx.ply) {
            ctx.log.hint(hint).map_err(AgentError::from)?;
        }
        Ok(Action::Move(Played {
            mv: Move::Place(chosen),
            source: MoveSource::Engine,
            agent: None,
        }))
    }
}

/// An engine whose evaluation is shown on the page.
struct WebEngine {
    engine: BlockingEngine,
    session: Arc<Session>,
}

#[async_trait::async_trait]
impl Player for WebEngine {
    fn name(&self) -> String {
        self.engine.name()
    }

    async fn act(&mut self, board: &Board, _ctx: MoveContext<'_>) -> Result<Action, PlayError> {
        let decision = self.engine.choose(board).await?;
        self.session.publish(PlayEvent::Engine {
            player: self.engine.name(),
            decision: &decision,
        });
        Ok(Action::Move(Played {
            mv: decision.mv,
            source: MoveSource::Engine,
            agent: None,
        }))
    }
}

/// The LLM agent, its replies and tool results shown as they come. When its server
/// fails (down, out of retries) the page is told and the fallback engine moves, so the
/// game goes on; the move is logged with source `fallback` and the reason.
struct WebAgent {
    agent: Agent,
    fallback: BlockingEngine,
    session: Arc<Session>,
}

#[async_trait::async_trait]
impl Player for WebAgent {
    fn name(&self) -> String {
        self.agent.name()
    }

    async fn act(&mut self, board: &Board, ctx: MoveContext<'_>) -> Result<Action, PlayError> {
        match Player::act(&mut self.agent, board, ctx).await {
            Ok(action) => {
                let decision = match &action {
                    Action::Move(played) => played.agent.as_ref(),
                    Action::Forfeit(decision) => Some(decision),
                };
                if let Some(decision) = decision {
                    self.session.publish(PlayEvent::decision(decision));
                }
                Ok(action)
            }
            Err(PlayError::Agent(err @ AgentError::Llm { .. })) => {
                let reason = format!(
                    "the model server failed ({:#}); {} played",
                    anyhow::Error::new(err),
                    self.fallback.name()
                );
                self.session.publish(PlayEvent::Error { message: &reason });
                let fallback = self.fallback.choose(board).await?;
                let decision = AgentDecision {
                    source: Some(MoveSource::Fallback),
                    fallback_reason: Some(reason),
                    ..AgentDecision::default()
                };
                self.session.publish(PlayEvent::decision(&decision));
                Ok(Action::Move(Played {
                    mv: fallback.mv,
                    source: MoveSource::Fallback,
                    agent: Some(decision),
                }))
            }
            Err(err) => Err(err),
        }
    }
}
