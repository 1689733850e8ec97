//! A scripted HTTP server on 127.0.0.1 that speaks Ollama's `/api/chat` wire format.
//!
//! It stands in for a real Ollama server in the cases a real model will not produce on
//! demand (an illegal tool coordinate, prose answers, HTTP failures): each test scripts
//! the replies. Requests are recorded as received.

pub mod browser;
pub mod command;
pub mod golden;
pub mod serve;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Value};

/// A blocking HTTP client for the tests' requests to our own servers, with `timeout`
/// (rustls's crypto provider installed first, as every reqwest client needs here).
pub fn http_client(timeout: Duration) -> reqwest::blocking::Client {
    llm::install_tls_provider();
    reqwest::blocking::Client::builder()
        .timeout(timeout)
        .build()
        .expect("an HTTP client")
}

/// One scripted HTTP reply.
pub struct Reply {
    pub status: u16,
    pub body: String,
    pub retry_after: Option<u32>,
    pub fault: Option<Fault>,
}

/// A way of sending a reply badly, as a failing server or network would.
#[derive(Clone, Copy, Debug)]
pub enum Fault {
    /// Wait this long before answering.
    Delay(Duration),
    /// Read the request, then close the connection without a word.
    Drop,
    /// Announce the whole body, send half of it, close.
    Truncate,
}

impl Reply {
    /// A 200 chat answer with this assistant message.
    pub fn message(message: Value) -> Reply {
        let body = json!({
            "model": "stub",
            "created_at": "2026-11-29T00:00:00Z",
            "message": message,
            "done": true,
            "done_reason": "stop",
            "total_duration": 1_000_000,
            "prompt_eval_count": 100,
            "eval_count": 10,
        });
        Reply {
            status: 200,
            body: body.to_string(),
            retry_after: None,
            fault: None,
        }
    }

    /// This reply as Ollama sends it for `model`: a chat answer's `model` names the
    /// model asked for (the stub's placeholder `stub` becomes it; a reply that names
    /// another model on purpose, standing in for a host serving another, keeps it).
    fn answering_as(self, model: Option<&str>) -> Reply {
        let (Some(model), Ok(mut body)) = (model, serde_json::from_str::<Value>(&self.body)) else {
            return self;
        };
        if body["model"] != "stub" {
            return self;
        }
        body["model"] = json!(model);
        Reply {
            body: body.to_string(),
            ..self
        }
    }

    /// The same status with another JSON body.
    pub fn with_body(self, body: Value) -> Reply {
        Reply {
            body: body.to_string(),
            ..self
        }
    }

    /// This reply, sent with `fault`.
    pub fn with_fault(self, fault: Fault) -> Reply {
        Reply {
            fault: Some(fault),
            ..self
        }
    }

    /// A final answer with `content`.
    pub fn content(content: &str) -> Reply {
        Reply::message(json!({"role": "assistant", "content": content}))
    }

    /// A structured `simulate_move` call.
    pub fn tool_call(name: &str, arguments: Value) -> Reply {
        Reply::message(json!({
            "role": "assistant",
            "content": "",
            "tool_calls": [{"function": {"index": 0, "name": name, "arguments": arguments}}]
        }))
    }

    /// An OpenAI-compatible chat completion with this assistant message.
    pub fn openai(message: Value) -> Reply {
        let body = json!({
            "id": "chatcmpl-stub",
            "object": "chat.completion",
            "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 120, "completion_tokens": 8, "total_tokens": 128},
        });
        Reply {
            status: 200,
            body: body.to_string(),
            retry_after: None,
            fault: None,
        }
    }

    /// An error status with Ollama's `{"error": ...}` body.
    pub fn error(status: u16, message: &str) -> Reply {
        Reply {
            status,
            body: json!({"error": message}).to_string(),
            retry_after: None,
            fault: None,
        }
    }
}

type Handler = dyn Fn(&str, &Value, usize) -> Reply + Send + Sync;

/// The running stub server.
pub struct StubServer {
    pub url: String,
    requests: Arc<Mutex<Vec<Value>>>,
    authorizations: Arc<Mutex<Vec<Option<String>>>>,
    killed: Arc<AtomicBool>,
}

impl StubServer {
    /// Starts a server answering request number `n` (from 0) with `handler(request, n)`.
    pub fn start(handler: impl Fn(&Value, usize) -> Reply + Send + Sync + 'static) -> StubServer {
        StubServer::start_routed(move |_, request, n| handler(request, n))
    }

    /// Like `start`, with the request path (such as `/api/show`) passed to the handler.
    pub fn start_routed(handler: impl Fn(&str, &Value, usize) -> Reply + Send + Sync + 'static) -> StubServer {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
        let url = format!("http://{}", listener.local_addr().unwrap());
        let requests = Arc::new(Mutex::new(Vec::new()));
        let authorizations = Arc::new(Mutex::new(Vec::new()));
        let (seen, auth) = (requests.clone(), authorizations.clone());
        let handler: Arc<Handler> = Arc::new(handler);
        let killed = Arc::new(AtomicBool::new(false));
        let dead = killed.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                if dead.load(Ordering::SeqCst) {
                    continue; // a dead server: the connection is closed unanswered
                }
                let (seen, auth, handler, dead) = (seen.clone(), auth.clone(), handler.clone(), dead.clone());
                std::thread::spawn(move || serve(stream, &seen, &auth, handler.as_ref(), &dead));
            }
        });
        StubServer {
            url,
            requests,
            authorizations,
            killed,
        }
    }

    /// Kills the server as a crashed host would: from now on every connection, and
    /// every request in flight, is closed without an answer.
    pub fn kill(&self) {
        self.killed.store(true, Ordering::SeqCst);
    }

    /// Brings a killed server back, as a restarted host.
    pub fn revive(&self) {
        self.killed.store(false, Ordering::SeqCst);
    }

    /// Chat requests received so far (those with `messages`; not /api/show, /api/tags).
    pub fn chat_requests(&self) -> Vec<Value> {
        self.requests()
            .into_iter()
            .filter(|r| r.get("messages").is_some())
            .collect()
    }

    /// The Authorization header of each request, in order.
    pub fn authorizations(&self) -> Vec<Option<String>> {
        self.authorizations.lock().unwrap().clone()
    }

    /// Requests received so far (their JSON bodies).
    pub fn requests(&self) -> Vec<Value> {
        self.requests.lock().unwrap().clone()
    }
}

fn serve(
    stream: TcpStream,
    seen: &Mutex<Vec<Value>>,
    auth: &Mutex<Vec<Option<String>>>,
    handler: &Handler,
    killed: &AtomicBool,
) {
    stream.set_read_timeout(Some(Duration::from_secs(10))).ok();
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut length = 0;
    let mut authorization = None;
    let mut request_line = String::new();
    if reader.read_line(&mut request_line).unwrap_or(0) == 0 {
        return;
    }
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
            break;
        }
        if let Some((name, value)) = line.split_once(':') {
            if name.eq_ignore_ascii_case("content-length") {
                length = value.trim().parse().unwrap_or(0);
            }
            if name.eq_ignore_ascii_case("authorization") {
                authorization = Some(value.trim().to_string());
            }
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok();
    let request: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    auth.lock().unwrap().push(authorization);
    let index = {
        let mut seen = seen.lock().unwrap();
        seen.push(request.clone());
        seen.len() - 1
    };
    let path = request_line.split_whitespace().nth(1).unwrap_or("/").to_string();
    let reply = handler(&path, &request, index).answering_as(request["model"].as_str());
    if killed.load(Ordering::SeqCst) {
        return;
    }
    let mut out = stream;
    let mut body = reply.body.as_bytes();
    match reply.fault {
        Some(Fault::Delay(pause)) => std::thread::sleep(pause),
        Some(Fault::Drop) => return,
        Some(Fault::Truncate) => body = &body[..body.len() / 2],
        None => {}
    }
    let retry = reply
        .retry_after
        .map(|s| format!("Retry-After: {s}\r\n"))
        .unwrap_or_default();
    let head = format!(
        "HTTP/1.1 {} Stub\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n{retry}\r\n",
        reply.status,
        reply.body.len()
    );
    out.write_all(head.as_bytes()).ok();
    out.write_all(body).ok();
    out.flush().ok();
}

/// No retries and no waits: a scripted reply is final.
pub fn no_retry() -> llm::RetryPolicy {
    llm::RetryPolicy {
        max_retries: 0,
        initial_backoff: Duration::ZERO,
        max_backoff: Duration::ZERO,
    }
}

/// A server that answers each request with the next of `replies` (then with "no
/// more script").
pub fn scripted(replies: Vec<Reply>) -> StubServer {
    let replies = Mutex::new(replies.into_iter());
    StubServer::start(move |_, _| {
        replies
            .lock()
            .unwrap()
            .next()
            .unwrap_or_else(|| Reply::content("no more script"))
    })
}

/// The move an agent of `config` on `backend` decides at the start position, with its
/// decision (the log written nowhere).
pub async fn first_decision(
    backend: Arc<dyn llm::ChatBackend>,
    config: agent::AgentConfig,
) -> (game::othello::Move, record::AgentDecision) {
    let mut agent = agent::Agent::<game::Othello>::new(Arc::new(config), backend, 7);
    let ctx = agent::MoveContext {
        ply: 1,
        log: record::GameWriter::new(None, 1),
    };
    let choice = agent
        .decide(&game::othello::Board::new(), ctx)
        .await
        .expect("the harness does not fail")
        .into_move()
        .expect("the agent moves");
    (choice.mv, choice.agent.expect("an agent's move carries its decision"))
}

/// Runs the othello-arena binary with `args`, its `OLLAMA_HOST` set to `host`.
pub fn run_arena(args: &[&str], host: &str) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_othello-arena"))
        .args(args)
        .env("OLLAMA_HOST", host)
        .output()
        .expect("the binary runs")
}

/// `othello-arena mcp` with `args`, logging into the run folder `dir` (`--log-dir`), as a child whose stdin and
/// stdout are piped (the JSON-RPC lines) and whose stderr goes to `stderr`: the child,
/// its input and its output, read line by line.
pub fn mcp_server(
    dir: &std::path::Path,
    args: &[&str],
    stderr: std::process::Stdio,
) -> (
    std::process::Child,
    Option<std::process::ChildStdin>,
    BufReader<std::process::ChildStdout>,
) {
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_othello-arena"))
        .arg("mcp")
        .arg("--log-dir")
        .arg(dir)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(stderr)
        .spawn()
        .expect("the binary starts");
    let input = child.stdin.take();
    let output = BufReader::new(child.stdout.take().expect("stdout is piped"));
    (child, input, output)
}

/// Runs `othello-arena tournament` on a file of `text` written in `dir`, logged in
/// `dir/run`, with `--json` and `extra` flags.
pub fn run_tournament(dir: &std::path::Path, text: &str, extra: &[&str]) -> std::process::Output {
    let file = dir.join("tournament.toml");
    std::fs::write(&file, text).unwrap();
    let run = dir.join("run");
    let mut args = vec![
        "tournament",
        file.to_str().unwrap(),
        "--log-dir",
        run.to_str().unwrap(),
        "--json",
    ];
    args.extend_from_slice(extra);
    run_arena(&args, "127.0.0.1:9")
}

/// A model that calls simulate_move on the first legal move, then, given the tool's
/// result, answers the last legal move (any game whose board text lists its moves).
pub fn playing_model() -> StubServer {
    StubServer::start(|request, _| {
        let legal = legal_moves_in(request);
        let last_role = request["messages"]
            .as_array()
            .and_then(|m| m.last())
            .map(|m| m["role"].clone());
        if last_role == Some(json!("tool")) {
            Reply::content(legal.last().map_or("pass", String::as_str))
        } else {
            Reply::tool_call(
                "simulate_move",
                json!({"coord": legal.first().cloned().unwrap_or_default()}),
            )
        }
    })
}

/// The legal moves listed in the last user message of a request (seed 000's board text).
pub fn legal_moves_in(request: &Value) -> Vec<String> {
    let messages = request["messages"].as_array().cloned().unwrap_or_default();
    let board = messages
        .iter()
        .find(|m| m["role"] == "user")
        .and_then(|m| m["content"].as_str())
        .unwrap_or("");
    let line = board.lines().last().unwrap_or("");
    let list = line.split_once(": ").map(|(_, l)| l).unwrap_or("");
    list.split(", ").filter(|s| s.len() == 2).map(str::to_string).collect()
}

/// Requests a scripted host holds at once: now, at most, and in all; and how long it
/// held at least one (its busy time).
#[derive(Debug, Default)]
pub struct InFlight {
    now: AtomicUsize,
    max: AtomicUsize,
    total: AtomicUsize,
    busy: Mutex<Duration>,
}

impl InFlight {
    /// The most requests held at once.
    pub fn max(&self) -> usize {
        self.max.load(Ordering::SeqCst)
    }

    /// Chat requests answered or held, in all.
    pub fn total(&self) -> usize {
        self.total.load(Ordering::SeqCst)
    }

    /// How long the host spent answering, in all (a single-slot host's busy time).
    pub fn busy(&self) -> Duration {
        *self.busy.lock().unwrap()
    }

    fn enter(&self) {
        let now = self.now.fetch_add(1, Ordering::SeqCst) + 1;
        self.max.fetch_max(now, Ordering::SeqCst);
        self.total.fetch_add(1, Ordering::SeqCst);
    }

    /// Answers for `delay` (one slot's work), counted as busy time.
    fn work(&self, delay: Duration) {
        std::thread::sleep(delay);
        *self.busy.lock().unwrap() += delay;
    }

    fn leave(&self) {
        self.now.fetch_sub(1, Ordering::SeqCst);
    }
}

/// A scripted Ollama host of a fleet, standing in for a GPU box serving `model`: it
/// lists the model at /api/tags and answers each chat request after `delay` with the
/// first legal move, recording how many requests it holds at once.
pub fn model_host(model: &str, delay: Duration) -> (StubServer, Arc<InFlight>) {
    host_of(model, delay, None)
}

/// A scripted host with one slot, as a llama-server started with one: as
/// [`model_host`], but it works on one request at a time, the others waiting their
/// turn (held, so counted at once, but not worked on).
pub fn single_slot_host(model: &str, delay: Duration) -> (StubServer, Arc<InFlight>) {
    host_of(model, delay, Some(Arc::new(Mutex::new(()))))
}

/// Scripted hosts of `models` (one each, as [`model_host`]) counted together: the
/// requests they hold at once between them, as CPU servers sharing one machine's cores.
pub fn hosts_counted_together(models: &[&str], delay: Duration) -> (Vec<StubServer>, Arc<InFlight>) {
    let together = Arc::new(InFlight::default());
    let hosts = models
        .iter()
        .map(|model| host_counted(model, delay, None, together.clone()))
        .collect();
    (hosts, together)
}

fn host_of(model: &str, delay: Duration, slot: Option<Arc<Mutex<()>>>) -> (StubServer, Arc<InFlight>) {
    let in_flight = Arc::new(InFlight::default());
    (host_counted(model, delay, slot, in_flight.clone()), in_flight)
}

fn host_counted(model: &str, delay: Duration, slot: Option<Arc<Mutex<()>>>, counter: Arc<InFlight>) -> StubServer {
    let tags = json!({ "models": [{ "name": model, "model": model }] });
    StubServer::start_routed(move |path, request, _| {
        match path {
            "/api/tags" => return Reply::message(Value::Null).with_body(tags.clone()),
            "/api/chat" => {}
            _ => return Reply::message(Value::Null).with_body(json!({})),
        }
        counter.enter();
        {
            let _turn = slot.as_ref().map(|slot| slot.lock().unwrap());
            counter.work(delay);
        }
        counter.leave();
        Reply::content(legal_moves_in(request).first().map_or("", String::as_str))
    })
}

/// A fresh, empty folder for one test: `othello-<suite>-<name>-<pid>` under the
/// system's temporary folder.
pub fn temp_dir(suite: &str, name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("othello-{suite}-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("the temporary folder is writable");
    dir
}

/// The game logs of a run folder (`game-NNNN.jsonl`, not the set-aside ones), by name.
pub fn game_log_names(dir: &std::path::Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| record::is_game_log(p))
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}
