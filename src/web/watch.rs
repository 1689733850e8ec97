//! The watch page's data: the run folders under the runs folder (newest first, listed
//! by [`runs::list_runs`]), one
//! run's games and tables, a run followed live as its logs grow, a run's report page
//! (the report's own viewer), and `rate`'s leaderboard over chosen runs, its intrinsic
//! table among them.
//!
//! Every name in a URL goes through [`resolve`]: a plain name that, links resolved,
//! stays inside the runs folder, or `FILE:RUN`, a run of a result bundle in it (the
//! shelf's [`RunPlace`]).

use std::convert::Infallible;
use std::path::{Path as FsPath, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use axum::extract::{Path, State};
use axum::http::{header, StatusCode};
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::Json;
use futures_util::stream::{self, Stream};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::assets;
use super::guard::{resolve, PathRefused};
use super::shelf::RunPlace;
use super::{ApiError, AppState};
use game::othello::{Color, Outcome};
use record::{Event, ExchangeRecord, MoveSource, Notation, Squares};
use runs::{
    folder_game_logs, groups_json, intrinsic_table, leaderboard_tables, list_runs, rate_games, read_game_logs,
    report_page, Calibration, GameGlance, GameLogs, Groups, HeldScores, IntrinsicTable, Leaderboard, LogTail, NewLines,
    RateSettings, RunFile, RunGame,
};
use stats::RatingWatch;

/// How often a followed run's folder is looked at.
const FOLLOW_EVERY: Duration = Duration::from_millis(500);
/// How long one follow stream lasts (the page reconnects after).
const FOLLOW_FOR: Duration = Duration::from_secs(3600);
/// Model text shown when following, at most (the log and the report have all of it).
const MAX_TEXT: usize = 4000;
/// The largest run file served whole.
const MAX_FILE: u64 = 64 * 1024 * 1024;
/// At most this many runs are rated at once (as many as are listed).
const MAX_RUNS: usize = runs::MAX_LISTED_RUNS;

/// Where the run `run` names is (a run folder, or `FILE:RUN` of a bundle in the runs
/// folder, opened off the async threads), or the refusal.
async fn run_place(app: &Arc<AppState>, run: &str) -> Result<RunPlace, ApiError> {
    let (app, run) = (app.clone(), run.to_string());
    Ok(tokio::task::spawn_blocking(move || app.bundles.place(&app.runs, &run)).await??)
}

/// A JSON file as it is, for the page to show (`null` when it cannot be read).
fn read_json(path: &FsPath) -> Value {
    runs::read_run_text(path)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or(Value::Null)
}

/// `GET /api/runs`: `[{name, command, created_utc, games, running, has_results}]`,
/// newest first, and `notes` on what it left out (links that lead out of the folder).
pub async fn list(State(app): State<Arc<AppState>>) -> Result<Response, ApiError> {
    let listed = tokio::task::spawn_blocking(move || {
        let root = &app.runs;
        let (bundles, notes) = app.bundles.all(root);
        let bundles: Vec<(&str, &runs::Bundle)> = bundles.iter().map(|(file, b)| (file.as_str(), &**b)).collect();
        let mut list = list_runs(root, &|name| resolve(root, &[name]).ok(), &bundles)?;
        list.notes.extend(notes);
        Ok::<_, std::io::Error>(list)
    })
    .await;
    let list = listed?.map_err(|err| ApiError::internal(format!("cannot read the runs folder: {err}")))?;
    Ok(Json(list).into_response())
}

/// `GET /api/runs/{run}`'s answer.
#[derive(Serialize)]
struct ShownRun {
    name: String,
    run: Option<RunFile>,
    /// results.json as it is, for the page to show.
    results: Value,
    games: Vec<GameGlance>,
    tables: Option<ResultTables>,
    tables_note: Option<String>,
}

/// The result tables of a run: `stats`' groups (`by` `llm`) or its pairings.
#[derive(Serialize)]
struct ResultTables {
    by: &'static str,
    groups: Vec<Value>,
}

/// `GET /api/runs/{run}`: run.json, results.json, the games at a glance and the result
/// tables (`stats`' groups for runs with an LLM player, else every pairing: `by` says
/// which).
pub async fn show(State(app): State<Arc<AppState>>, Path(run): Path<String>) -> Result<Response, ApiError> {
    let place = run_place(&app, &run).await?;
    let shown = tokio::task::spawn_blocking(move || {
        let dir = &place.dir;
        let logs = folder_game_logs(&place.root, dir);
        let games: Vec<GameGlance> = logs.iter().map(|p| GameGlance::read(p)).collect();
        // The LLM players' groups, as `stats` prints them; a run without one (a ladder of
        // engines) by its pairings.
        let tables = Groups::read(&logs).map_err(anyhow::Error::from).and_then(|groups| {
            if !groups.groups.is_empty() {
                Ok(ResultTables {
                    by: "llm",
                    groups: groups_json(&groups.groups),
                })
            } else if !groups.logs.games.is_empty() {
                Ok(ResultTables {
                    by: "pairing",
                    groups: groups_json(&groups.pairings()),
                })
            } else {
                Err(anyhow::anyhow!("no game has started in this run yet"))
            }
        });
        let (tables, tables_note) = match tables {
            Ok(tables) => (Some(tables), None),
            Err(err) => (None, Some(format!("{err:#}"))),
        };
        ShownRun {
            name: run,
            run: RunFile::read(dir).ok(),
            results: read_json(&dir.join("results.json")),
            games,
            tables,
            tables_note,
        }
    })
    .await?;
    Ok(Json(shown).into_response())
}

/// `GET /runs/{run}/report`: the report's page and viewer for this run.
///
/// A run whose logs cannot be read (none yet, say) has none: that 404 is plain text,
/// like the page it stands for.
pub async fn report(State(app): State<Arc<AppState>>, Path(run): Path<String>) -> Result<Response, ApiError> {
    let place = run_place(&app, &run).await?;
    let calibration = app.intrinsic.clone();
    let page = move || -> anyhow::Result<String> {
        let logs = folder_game_logs(&place.root, &place.dir);
        let settings = RateSettings::default();
        let intrinsic = intrinsic(&read_game_logs(&logs)?, calibration.as_ref(), &settings)?;
        Ok(report_page(&logs, &Groups::read(&logs)?, &settings, Some(&intrinsic)).0)
    };
    Ok(match tokio::task::spawn_blocking(page).await? {
        Ok(page) => assets::report_page(&page),
        Err(err) => (StatusCode::NOT_FOUND, format!("no report for this run: {err:#}")).into_response(),
    })
}

/// `GET /runs/{run}/files/{file}`: a file of a run, as plain text.
pub async fn file(
    State(app): State<Arc<AppState>>,
    Path((run, file)): Path<(String, String)>,
) -> Result<Response, ApiError> {
    let place = run_place(&app, &run).await?;
    let path = match place.file(&file)? {
        path if path.is_file() => path,
        _ => return Err(PathRefused::Outside(format!("{run}/{file}")).into()),
    };
    let read = tokio::task::spawn_blocking(move || {
        let _held = &place;
        let size = std::fs::metadata(&path)?.len();
        if size > MAX_FILE {
            return Err(std::io::Error::other(format!("{size} bytes is too large to serve")));
        }
        std::fs::read(&path)
    })
    .await?;
    let bytes = read.map_err(ApiError::internal)?;
    Ok(([(header::CONTENT_TYPE, "text/plain; charset=utf-8")], bytes).into_response())
}

/// `POST /api/rate`.
#[derive(Debug, Deserialize)]
pub struct RateRequest {
    /// Run folder names.
    runs: Vec<String>,
    /// Whether the published ladder's engines are held at its ratings (the default,
    /// as in `rate`); `false` rates every player from these games alone.
    #[serde(default = "held")]
    ladder: bool,
}

/// [`RateRequest::ladder`]'s default: on, as every face's.
fn held() -> bool {
    true
}

/// `rate`'s leaderboard tables over the chosen runs: `{text}`.
pub async fn rate(State(app): State<Arc<AppState>>, Json(request): Json<RateRequest>) -> Result<Response, ApiError> {
    if request.runs.is_empty() || request.runs.len() > MAX_RUNS {
        return Err(ApiError::new(StatusCode::BAD_REQUEST, "choose at least one run"));
    }
    let mut places = Vec::new();
    for run in &request.runs {
        places.push(run_place(&app, run).await?);
    }
    let calibration = app.intrinsic.clone();
    let rate = move || {
        let logs: Vec<PathBuf> = places.iter().flat_map(|p| folder_game_logs(&p.root, &p.dir)).collect();
        leaderboards_json(&logs, &RateSettings::with_ladder(!request.ladder), calibration.as_ref())
    };
    let rated = tokio::task::spawn_blocking(rate).await?;
    let rated = rated.map_err(|err| ApiError::caused(StatusCode::BAD_REQUEST, err))?;
    Ok(Json(rated).into_response())
}

/// `rate`'s leaderboards over `logs` ([`rate_games`], as every face rates):
/// `as_played` and `fallback_as_loss` (`rate --json`'s rows, drawn as tables by the
/// page), `notes` (the scale's first), `intrinsic` (`rate --json`'s intrinsic table,
/// through `calibration`) and `text`, the notes and then `rate`'s tables as the
/// terminal prints them.
fn leaderboards_json(
    logs: &[PathBuf],
    settings: &RateSettings,
    calibration: Result<&Calibration, &String>,
) -> anyhow::Result<RatedRuns> {
    let logs = read_game_logs(logs)?;
    let rated = rate_games(&RunGame::from_logs(&logs), logs.game, settings, &RatingWatch::default())?;
    let mut intrinsic = intrinsic(&logs, calibration, settings)?;
    intrinsic.beside(&rated.as_played);
    let notes: String = rated.notes.iter().map(|note| format!("note: {note}\n")).collect();
    let text = format!(
        "{notes}{}\n{}",
        leaderboard_tables(&rated.as_played, rated.fallback_as_loss.as_ref()),
        intrinsic.text()
    );
    Ok(RatedRuns {
        text,
        as_played: rated.as_played,
        fallback_as_loss: rated.fallback_as_loss,
        notes: rated.notes,
        intrinsic,
    })
}

/// The intrinsic table of `logs` ([`intrinsic_table`], as `rate` makes it) from the
/// values their runs hold: a request never values a run (that takes minutes), so a
/// run without values gets the table's note (`rate` values it).
fn intrinsic(
    logs: &GameLogs,
    calibration: Result<&Calibration, &String>,
    settings: &RateSettings,
) -> anyhow::Result<IntrinsicTable> {
    let calibration = calibration.map_err(Clone::clone);
    Ok(intrinsic_table(
        logs,
        &HeldScores::new(),
        calibration,
        settings.bootstrap,
        settings.seed,
    )?)
}

/// `POST /api/rate`'s answer.
#[derive(Serialize)]
struct RatedRuns {
    text: String,
    as_played: Leaderboard,
    fallback_as_loss: Option<Leaderboard>,
    notes: Vec<String>,
    intrinsic: IntrinsicTable,
}

/// `GET /api/runs/{run}/follow`: the run's log records as they are written, each as a
/// compact event (`game_start`, `move`, `exchange`, `game_end`, `forfeit`, ...) with its
/// `file`. Records already written come first (exchanges among them left out).
pub async fn follow(State(app): State<Arc<AppState>>, Path(run): Path<String>) -> Result<Response, ApiError> {
    let place = run_place(&app, &run).await?;
    Ok(Sse::new(follow_stream(place))
        .keep_alive(KeepAlive::new().interval(Duration::from_secs(15)))
        .into_response())
}

/// A run followed: where its logs have been read to.
struct Tail {
    /// The run followed, held so that a bundle's folder stays while it is.
    _place: RunPlace,
    logs: LogTail,
    first: bool,
    until: tokio::time::Instant,
}

fn follow_stream(place: RunPlace) -> impl Stream<Item = Result<SseEvent, Infallible>> {
    let tail = Tail {
        logs: LogTail::new(&place.root, &place.dir),
        _place: place,
        first: true,
        until: tokio::time::Instant::now() + FOLLOW_FOR,
    };
    stream::unfold(Some(tail), |tail| async move {
        let mut tail = tail?;
        if !tail.first {
            tokio::time::sleep(FOLLOW_EVERY).await;
        }
        if tokio::time::Instant::now() > tail.until {
            return None;
        }
        let first = std::mem::replace(&mut tail.first, false);
        let (events, tail) = match tokio::task::spawn_blocking(move || {
            let events = tail.scan(first);
            (events, tail)
        })
        .await
        {
            Ok(scanned) => scanned,
            Err(_) => return None,
        };
        let batch = Batch::Records { records: events, first };
        let data = serde_json::to_string(&batch).expect("the live view's events are plain JSON");
        Some((Ok(SseEvent::default().data(data)), Some(tail)))
    })
}

impl Tail {
    /// The complete lines written since the last scan, as events.
    fn scan(&mut self, first: bool) -> Vec<Followed> {
        let mut events = Vec::new();
        for NewLines { path, lines } in self.logs.scan() {
            let name = path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let found: Vec<Followed> = lines
                .split(|&b| b == b'\n')
                .filter_map(|line| Followed::read((&path, &name), line, first))
                .collect();
            events.extend(if first { Self::catch_up(found) } else { found });
        }
        events
    }

    /// What a page opening a run needs of a game already in its log: all of a game in
    /// play, but of a finished one only its start, its last move (the final board) and
    /// its end, so a run of thousands of games opens quickly.
    fn catch_up(events: Vec<Followed>) -> Vec<Followed> {
        let is_move = |e: &Followed| matches!(e.event, Shown::Move { .. });
        if !events.iter().any(|e| matches!(e.event, Shown::GameEnd { .. })) {
            return events;
        }
        let last_move = events.iter().rposition(is_move);
        events
            .into_iter()
            .enumerate()
            .filter(|(i, e)| !is_move(e) || Some(*i) == last_move)
            .map(|(_, e)| e)
            .collect()
    }
}

/// What `follow` sends the page each time it looks: the records written since.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Batch {
    /// New records, in file order (`first`: those already written when the page came,
    /// caught up by [`Tail::catch_up`]).
    Records {
        /// The records, each as the page shows it.
        records: Vec<Followed>,
        /// Whether this is the first batch.
        first: bool,
    },
}

/// One log record as the live view shows it, with its log's file name.
#[derive(Clone, Debug, PartialEq, Serialize)]
struct Followed {
    /// The log's file name (`game-0001.jsonl`).
    file: String,
    /// What the record says, compactly.
    #[serde(flatten)]
    event: Shown,
}

/// What the page (`watch.js`) reads of each kind of record, under the record's `type`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Shown {
    /// The players, the start position and the opening.
    GameStart {
        /// Black's spec.
        black: String,
        /// White's spec.
        white: String,
        /// The start position.
        start_board: Squares,
        /// The opening's moves.
        opening: Vec<Notation>,
    },
    /// One round trip with the model.
    Exchange(ShownExchange),
    /// A move and the board after it.
    Move {
        /// The ply.
        ply: usize,
        /// The mover.
        color: Color,
        /// The mover's spec.
        player: String,
        /// The move.
        #[serde(rename = "move")]
        mv: Notation,
        /// Where it came from.
        source: MoveSource,
        /// The position after it.
        board_after: Squares,
    },
    /// The result.
    GameEnd {
        /// Black's discs.
        black_discs: u32,
        /// White's discs.
        white_discs: u32,
        /// The winner or a draw.
        winner: Outcome,
    },
    /// The agent forfeited.
    Forfeit(At),
    /// The game stopped unfinished (no side: `color` is null).
    GameStopped(At),
    /// A person was shown their moves' values.
    Hint(At),
}

/// Where a record without more for the page happened.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
struct At {
    /// The ply.
    ply: usize,
    /// The side, where the record names one.
    color: Option<Color>,
}

/// An exchange as the live view shows it: the reply decoded as the replay decodes it
/// ([`record::decode_reply`], either API), its texts clipped to [`MAX_TEXT`].
#[derive(Clone, Debug, PartialEq, Serialize)]
struct ShownExchange {
    /// The ply decided.
    ply: usize,
    /// The agent's side.
    color: Color,
    /// The session of the decision (each a fresh conversation; direct mode's attempts).
    session: u32,
    /// The turn within its session.
    turn: u32,
    /// The request's latency.
    latency_ms: f64,
    /// After the first turn, what the harness said back in the request's last (user)
    /// message: why the last answer did not count, or "answer now" once the tools are
    /// spent.
    sent_back: Option<String>,
    /// The reply's text.
    content: String,
    /// The reply's separate reasoning.
    thinking: Option<String>,
    /// The reply's structured tool calls; null when it made none.
    tool_calls: Option<Vec<ShownCall>>,
}

/// A tool call as the live view shows it.
#[derive(Clone, Debug, PartialEq, Serialize)]
struct ShownCall {
    /// The tool's name.
    name: String,
    /// Its arguments, as JSON text.
    arguments: String,
}

impl Followed {
    /// Line `line` of the log at `path` (named `file`) as the page shows it; `None` for
    /// a line that is not a record of this format (torn, another version) and, in the
    /// first batch, for an exchange.
    fn read((path, file): (&FsPath, &str), line: &[u8], first: bool) -> Option<Followed> {
        let event = match record::decode_line(path, 0, line).ok()?.event {
            Event::Exchange(_) if first => return None,
            // An MCP client's tool calls are in the log, not on the page.
            Event::ToolCall(_) => return None,
            Event::Exchange(exchange) => Shown::Exchange(ShownExchange::of(&exchange)),
            Event::Move(m) => Shown::Move {
                ply: m.ply,
                color: m.color,
                player: m.player,
                mv: m.mv,
                source: m.source,
                board_after: m.board_after,
            },
            Event::GameStart(start) => Shown::GameStart {
                black: start.black,
                white: start.white,
                start_board: start.start_board,
                opening: start.opening,
            },
            Event::GameEnd(end) => Shown::GameEnd {
                black_discs: end.black_discs,
                white_discs: end.white_discs,
                winner: end.winner,
            },
            Event::Forfeit(f) => Shown::Forfeit(At {
                ply: f.ply,
                color: Some(f.color),
            }),
            Event::GameStopped(stop) => Shown::GameStopped(At {
                ply: stop.ply,
                color: None,
            }),
            Event::Hint(hint) => Shown::Hint(At {
                ply: hint.ply,
                color: Some(hint.color),
            }),
        };
        Some(Followed {
            file: file.to_string(),
            event,
        })
    }
}

impl ShownExchange {
    fn of(exchange: &ExchangeRecord) -> ShownExchange {
        let message = record::decode_reply(&exchange.response).unwrap_or_default().message;
        let last = exchange.request["messages"].as_array().and_then(|m| m.last());
        let sent_back = last
            .filter(|m| exchange.turn > 1 && m["role"] == "user")
            .and_then(|m| m["content"].as_str())
            .map(clip_text);
        let tool_calls: Vec<ShownCall> = message
            .tool_calls
            .iter()
            .map(|call| ShownCall {
                name: clip_text(&call.function.name),
                arguments: clip_text(&call.function.arguments.to_string()),
            })
            .collect();
        ShownExchange {
            ply: exchange.ply,
            color: exchange.color,
            session: exchange.session,
            turn: exchange.turn,
            latency_ms: exchange.latency_ms,
            sent_back,
            content: clip_text(&message.content),
            thinking: message.thinking.as_deref().map(clip_text),
            tool_calls: (!tool_calls.is_empty()).then_some(tool_calls),
        }
    }
}

fn clip_text(text: &str) -> String {
    super::clip(text, MAX_TEXT)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn followed(event: Shown) -> Followed {
        Followed {
            file: "game-0001.jsonl".into(),
            event,
        }
    }

    #[test]
    fn a_finished_game_is_caught_up_by_its_start_last_move_and_end() {
        use game::{Othello, Rules};
        let board = Squares::of::<Othello>(&Othello::start());
        let start = followed(Shown::GameStart {
            black: "greedy".into(),
            white: "random".into(),
            start_board: board.clone(),
            opening: Vec::new(),
        });
        let played = |ply: usize| {
            followed(Shown::Move {
                ply,
                color: Color::Black,
                player: "greedy".into(),
                mv: Notation::Pass,
                source: MoveSource::ForcedPass,
                board_after: board.clone(),
            })
        };
        let game = vec![start.clone(), played(1), played(2), played(3)];
        assert_eq!(Tail::catch_up(game.clone()), game, "a game in play is sent whole");
        let end = followed(Shown::GameEnd {
            black_discs: 40,
            white_discs: 24,
            winner: Outcome::Win(Color::Black),
        });
        let mut finished = game;
        finished.push(end.clone());
        assert_eq!(Tail::catch_up(finished), [start, played(3), end]);
    }

    /// The page's events from log lines, as JSON.
    fn shown(lines: &[Value], first: bool) -> Vec<Value> {
        lines
            .iter()
            .filter_map(|line| {
                let line = line.to_string();
                Followed::read(
                    (FsPath::new("game-0001.jsonl"), "game-0001.jsonl"),
                    line.as_bytes(),
                    first,
                )
            })
            .map(|followed| serde_json::to_value(followed).unwrap())
            .collect()
    }

    #[test]
    fn each_record_reaches_the_page_with_the_keys_it_reads() {
        let board = "---------------------------OX------XO---------------------------";
        let after = "-------------------X-------XX------XO---------------------------";
        let head = json!({"schema_version": 1, "time_ms": 5, "game": 1});
        let line = |fields: Value| {
            let mut line = head.clone();
            line.as_object_mut()
                .unwrap()
                .extend(fields.as_object().unwrap().clone());
            line
        };
        let lines = [
            line(
                json!({"type": "game_start", "black": "llm:m", "white": "greedy", "start_board": board,
                "opening": ["f5", "pass"], "seed": 7, "rules": null}),
            ),
            line(
                json!({"type": "move", "ply": 1, "color": "black", "player": "llm:m", "move": "d3",
                "source": "llm", "board_after": after, "agent": {"source": "llm", "sessions": 1, "turns": 1,
                "tool_calls": 0, "recovered_tool_calls": 0, "tool_errors": 0, "invalid_answers": 0,
                "answer_kind": "clean", "prompt_tokens": 1, "completion_tokens": 1, "latency_ms": 1.0}}),
            ),
            line(json!({"type": "forfeit", "ply": 2, "color": "white", "player": "llm:m",
                "agent": {"source": "forfeit", "sessions": 1, "turns": 1, "tool_calls": 0, "recovered_tool_calls": 0,
                "tool_errors": 0, "invalid_answers": 1, "answer_kind": null, "prompt_tokens": 1,
                "completion_tokens": 1, "latency_ms": 1.0}})),
            line(json!({"type": "game_end", "black_discs": 4, "white_discs": 1, "winner": "black", "moves": ["d3"]})),
            line(json!({"type": "game_stopped", "ply": 3, "reason": "ended"})),
            line(
                json!({"type": "hint", "ply": 3, "color": "white", "player": "human", "engine": "reference",
                "exact": false, "depth": 4, "values": [{"move": "c4", "value": 2.0}]}),
            ),
        ];
        let file = "game-0001.jsonl";
        assert_eq!(
            shown(&lines, false),
            [
                json!({"type": "game_start", "file": file, "black": "llm:m", "white": "greedy",
                    "start_board": board, "opening": ["f5", "pass"]}),
                json!({"type": "move", "file": file, "ply": 1, "color": "black", "player": "llm:m", "move": "d3",
                    "source": "llm", "board_after": after}),
                json!({"type": "forfeit", "file": file, "ply": 2, "color": "white"}),
                json!({"type": "game_end", "file": file, "black_discs": 4, "white_discs": 1, "winner": "black"}),
                json!({"type": "game_stopped", "file": file, "ply": 3, "color": null}),
                json!({"type": "hint", "file": file, "ply": 3, "color": "white"}),
            ]
        );
        // A torn line, a line of another version and a bad move are left out.
        let mut other_version = lines[1].clone();
        other_version["schema_version"] = json!(2);
        let mut bad_move = lines[1].clone();
        bad_move["move"] = json!("z9");
        assert!(shown(&[other_version, bad_move], false).is_empty());
        let torn = lines[1].to_string();
        let torn = &torn.as_bytes()[..torn.len() / 2];
        assert_eq!(Followed::read((FsPath::new(file), file), torn, false), None);
    }

    #[test]
    fn an_exchange_is_shown_as_the_replay_decodes_either_api() {
        let exchange = |turn: u32, request: Value, response: Value| {
            json!({"schema_version": 1, "time_ms": 5, "type": "exchange", "game": 1, "ply": 5, "color": "white",
                "session": 1, "turn": turn, "latency_ms": 12.5, "retries": 0, "request": request, "response": response})
        };
        let messages = json!([{"role": "system", "content": "rules"}, {"role": "user", "content": "board"},
            {"role": "assistant", "content": "z9"}, {"role": "user", "content": "z9 is not a legal move"}]);
        let ollama = exchange(
            2,
            json!({"model": "m", "messages": messages}),
            json!({"model": "m", "done": true, "message": {"role": "assistant", "content": "I play d3",
                "thinking": "d3 flips two", "tool_calls": [{"function": {"name": "simulate_move",
                "arguments": {"coord": "d3"}}}]}}),
        );
        let openai = exchange(
            1,
            json!({"model": "m", "messages": messages}),
            json!({"choices": [{"finish_reason": "tool_calls", "message": {"role": "assistant", "content": null,
                "reasoning_content": "try c4", "tool_calls": [{"id": "c1", "type": "function",
                "function": {"name": "simulate_move", "arguments": "{\"coord\":\"c4\"}"}}]}}]}),
        );
        let plain = exchange(
            3,
            json!({"model": "m", "messages": []}),
            json!({"message": {"content": "c4"}}),
        );
        let not_a_reply = exchange(1, json!({}), json!("502 Bad Gateway"));
        let file = "game-0001.jsonl";
        let common = |turn: u32| {
            json!({"type": "exchange", "file": file, "ply": 5, "color": "white", "session": 1, "turn": turn,
            "latency_ms": 12.5})
        };
        let with = |turn: u32, fields: Value| {
            let mut event = common(turn);
            event
                .as_object_mut()
                .unwrap()
                .extend(fields.as_object().unwrap().clone());
            event
        };
        assert_eq!(
            shown(&[ollama.clone(), openai, plain, not_a_reply], false),
            [
                with(
                    2,
                    json!({"sent_back": "z9 is not a legal move", "content": "I play d3",
                    "thinking": "d3 flips two", "tool_calls": [{"name": "simulate_move", "arguments": "{\"coord\":\"d3\"}"}]})
                ),
                // OpenAI sends the arguments as a JSON string: shown as sent.
                with(
                    1,
                    json!({"sent_back": null, "content": "", "thinking": "try c4",
                    "tool_calls": [{"name": "simulate_move", "arguments": "\"{\\\"coord\\\":\\\"c4\\\"}\""}]})
                ),
                with(
                    3,
                    json!({"sent_back": null, "content": "c4", "thinking": null, "tool_calls": null})
                ),
                with(
                    1,
                    json!({"sent_back": null, "content": "", "thinking": null, "tool_calls": null})
                ),
            ]
        );
        // The first batch leaves exchanges out; a long text is clipped.
        assert!(shown(std::slice::from_ref(&ollama), true).is_empty());
        let mut long = ollama;
        long["response"]["message"]["content"] = json!("x".repeat(MAX_TEXT + 10));
        let content = shown(&[long], false)[0]["content"].as_str().unwrap().to_string();
        assert!(content.ends_with("… (10 bytes more in the log)"), "{content}");
    }
}
