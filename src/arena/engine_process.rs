//! The client of one external engine process: started with its stdio piped (and
//! killed when dropped), spoken to in GTP or NBoard one command at a time, every answer
//! awaited no longer than the engine's timeout, its stderr copied to a file beside the
//! game's log with the last lines kept for error messages.

use std::collections::VecDeque;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::{Arc, Mutex};

use game::othello::{Board, Color, Move, Square};
use protocol::ggf::GgfGame;
use protocol::{gtp, nboard, parse_move, Protocol};
use record::EngineId;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};
use tokio::sync::OwnedSemaphorePermit;
use tokio::task::JoinHandle;
use tokio::time::{timeout_at, Instant};

use super::external::{ExternalEngine, Strength};

/// Stderr lines kept for error messages.
const STDERR_LINES: usize = 8;
/// How long a process that has failed is given to finish its stderr or exit.
const GRACE: std::time::Duration = std::time::Duration::from_secs(1);

/// Why an external engine gave no move: the game ends as a harness failure, to be
/// played again by a resume. Each message names the engine and what it was asked,
/// and ends with its last stderr lines.
#[derive(Debug, thiserror::Error)]
pub enum ExternalError {
    /// The program could not be started.
    #[error("cannot start engine {engine} ({command}): check command, args and dir in its [[engine]] table")]
    Spawn {
        /// The engine's name.
        engine: String,
        /// The command line.
        command: String,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The process ended (or closed its output) before answering.
    #[error("engine {engine} exited ({status}) while answering `{doing}`{stderr}")]
    Exited {
        /// The engine's name.
        engine: String,
        /// The command it was answering.
        doing: String,
        /// Its exit status, as far as known.
        status: String,
        /// Its last stderr lines.
        stderr: String,
    },
    /// No answer within the timeout.
    #[error("engine {engine} did not answer `{doing}` within {seconds} s (its [[engine]] timeout){stderr}")]
    Timeout {
        /// The engine's name.
        engine: String,
        /// The command.
        doing: String,
        /// The timeout.
        seconds: f64,
        /// Its last stderr lines.
        stderr: String,
    },
    /// A GTP failure answer (`? ...`).
    #[error("engine {engine} refused `{doing}`: {reply:?}{stderr}")]
    Refused {
        /// The engine's name.
        engine: String,
        /// The command.
        doing: String,
        /// Its answer.
        reply: String,
        /// Its last stderr lines.
        stderr: String,
    },
    /// An answer that is no move.
    #[error("engine {engine} answered `{doing}` with {line:?}, which is no move: {reason}{stderr}")]
    Unreadable {
        /// The engine's name.
        engine: String,
        /// The command.
        doing: String,
        /// The answer.
        line: String,
        /// Why it does not read.
        reason: String,
        /// Its last stderr lines.
        stderr: String,
    },
    /// A move the rules refuse.
    #[error("engine {engine} played the illegal move {mv} at ply {ply} (legal: {legal}){stderr}")]
    Illegal {
        /// The engine's name.
        engine: String,
        /// The ply.
        ply: usize,
        /// The move.
        mv: Move,
        /// The legal moves.
        legal: String,
        /// Its last stderr lines.
        stderr: String,
    },
    /// A `hint` answer that leaves legal moves without a value.
    #[error(
        "engine {engine} valued {valued} of the {legal} legal moves after `hint {legal}` (none for {missing}): a reference must value every move (an opening book answers with book lines instead: turn it off){stderr}"
    )]
    Unvalued {
        /// The engine's name.
        engine: String,
        /// Moves it gave a value.
        valued: usize,
        /// Legal moves.
        legal: usize,
        /// The legal moves it left out.
        missing: String,
        /// Its last stderr lines.
        stderr: String,
    },
    /// A game GTP cannot set up.
    #[error("engine {engine}: {reason}")]
    Unplayable {
        /// The engine's name.
        engine: String,
        /// Why.
        reason: String,
    },
    /// A game other than Othello.
    #[error("external engines play Othello, not {game}")]
    NotOthello {
        /// The game.
        game: String,
    },
}

/// The end of an engine's stderr, and the file that keeps all of it.
#[derive(Debug, Default)]
struct Tail {
    lines: VecDeque<String>,
    file: Option<PathBuf>,
}

impl Tail {
    /// `; its stderr ends: ...` for error messages (or that it wrote none).
    fn describe(&self) -> String {
        let mut text = String::new();
        if self.lines.is_empty() {
            text.push_str("; it wrote nothing on stderr");
        } else {
            let lines: Vec<&str> = self.lines.iter().map(String::as_str).collect();
            let _ = write!(text, "; its stderr ends: {}", lines.join(" | "));
        }
        if let Some(file) = &self.file {
            let _ = write!(text, " (all of it in {})", file.display());
        }
        text
    }
}

/// A running engine process.
struct Process {
    child: Child,
    stdin: ChildStdin,
    stdout: Lines<BufReader<ChildStdout>>,
    tail: Arc<Mutex<Tail>>,
    stderr_task: Option<JoinHandle<()>>,
    _slot: OwnedSemaphorePermit,
}

/// One engine process and the game it was told: the client's state.
pub(crate) struct Driver {
    name: String,
    protocol: Protocol,
    timeout: std::time::Duration,
    process: Process,
    id: EngineId,
    /// GTP: the moves the engine's own board has had.
    known: Vec<Move>,
    /// NBoard: the last ping sent.
    ping: u64,
}

/// Copies the engine's stderr to `file` (when given), keeping its last lines.
fn copy_stderr(stderr: tokio::process::ChildStderr, tail: Arc<Mutex<Tail>>, file: Option<PathBuf>) -> JoinHandle<()> {
    tokio::spawn(async move {
        let mut lines = BufReader::new(stderr).lines();
        let mut out = None;
        while let Ok(Some(line)) = lines.next_line().await {
            if let (None, Some(path)) = (&out, &file) {
                // Appended: a game played again, or a second scoring process, adds to the
                // file and never replaces what an earlier process wrote.
                let opened = tokio::fs::OpenOptions::new().create(true).append(true).open(path).await;
                out = opened.ok();
            }
            if let Some(out) = out.as_mut() {
                let _ = out.write_all(format!("{line}\n").as_bytes()).await;
                let _ = out.flush().await;
            }
            let mut tail = tail.lock().unwrap_or_else(|p| p.into_inner());
            if tail.file.is_none() && out.is_some() {
                tail.file = file.clone();
            }
            tail.lines.push_back(line);
            if tail.lines.len() > STDERR_LINES {
                tail.lines.pop_front();
            }
        }
    })
}

impl Driver {
    /// Starts `engine`'s process once a slot is free (its stderr copied to `stderr_file`)
    /// and checks its handshake.
    pub(crate) async fn start(engine: &ExternalEngine, stderr_file: Option<PathBuf>) -> Result<Driver, ExternalError> {
        let slot = engine
            .slots()
            .clone()
            .acquire_owned()
            .await
            .expect("the slots are never closed");
        let table = engine.table();
        let mut command = Command::new(&table.command);
        command
            .args(&table.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        if let Some(dir) = &table.dir {
            command.current_dir(dir);
        }
        let mut child = command.spawn().map_err(|source| ExternalError::Spawn {
            engine: table.name.clone(),
            command: std::iter::once(&table.command)
                .chain(&table.args)
                .cloned()
                .collect::<Vec<_>>()
                .join(" "),
            source,
        })?;
        let pipes = (child.stdin.take(), child.stdout.take(), child.stderr.take());
        let (Some(stdin), Some(stdout), Some(stderr)) = pipes else {
            unreachable!("all three pipes were asked for");
        };
        let tail = Arc::new(Mutex::new(Tail::default()));
        let stderr_task = Some(copy_stderr(stderr, tail.clone(), stderr_file));
        let mut driver = Driver {
            name: table.name.clone(),
            protocol: engine.protocol(),
            timeout: engine.timeout(),
            process: Process {
                child,
                stdin,
                stdout: BufReader::new(stdout).lines(),
                tail,
                stderr_task,
                _slot: slot,
            },
            id: EngineId {
                name: table.name.clone(),
                version: None,
            },
            known: Vec::new(),
            ping: 0,
        };
        driver.handshake(engine.strength()).await?;
        Ok(driver)
    }

    /// The engine as its handshake named it.
    pub(crate) fn id(&self) -> &EngineId {
        &self.id
    }

    async fn handshake(&mut self, strength: Option<Strength>) -> Result<(), ExternalError> {
        match self.protocol {
            Protocol::Gtp => {
                self.id.name = self.gtp(&gtp::Command::Name).await?;
                self.id.version = match self.gtp(&gtp::Command::Version).await {
                    Ok(version) => Some(version),
                    Err(ExternalError::Refused { .. }) => None,
                    Err(err) => return Err(err),
                };
                if let Some(Strength::Time(seconds)) = strength {
                    let byo_yomi = (seconds.ceil() as u32).max(1);
                    let settings = gtp::Command::TimeSettings {
                        main: 0,
                        byo_yomi,
                        stones: 1,
                    };
                    self.gtp(&settings).await?;
                }
            }
            Protocol::Nboard => {
                self.send(&nboard::Command::Nboard(1).to_string()).await?;
                if let Some(Strength::Depth(depth)) = strength {
                    self.send(&nboard::Command::SetDepth(depth).to_string()).await?;
                }
                if let Some(name) = self.sync("nboard 1").await? {
                    self.id.name = name;
                }
            }
        }
        Ok(())
    }

    /// The engine's move for `color` in the game `moves` from `start` (ply `ply`).
    pub(crate) async fn genmove(
        &mut self,
        start: &Board,
        moves: &[Move],
        color: Color,
        ply: usize,
    ) -> Result<Move, ExternalError> {
        match self.protocol {
            Protocol::Gtp => self.gtp_genmove(start, moves, color, ply).await,
            Protocol::Nboard => self.nboard_go(start, moves).await,
        }
    }

    async fn gtp_genmove(
        &mut self,
        start: &Board,
        moves: &[Move],
        color: Color,
        ply: usize,
    ) -> Result<Move, ExternalError> {
        if *start != Board::new() {
            return Err(ExternalError::Unplayable {
                engine: self.name.clone(),
                reason: format!(
                    "ply {ply}: GTP plays games from the standard start position and this one starts elsewhere; use protocol = \"nboard\""
                ),
            });
        }
        if !moves.starts_with(&self.known) {
            self.gtp(&gtp::Command::ClearBoard).await?;
            self.known.clear();
        }
        // Only placements are sent: the engine passes for a side that must (the next
        // command names the other colour).
        let mut board = *start;
        for (index, &mv) in moves.iter().enumerate() {
            if index >= self.known.len() {
                if let Move::Place(_) = mv {
                    self.gtp(&gtp::Command::Play(board.side_to_move(), mv)).await?;
                }
                self.known.push(mv);
            }
            board = board.play_unchecked(mv);
        }
        let command = gtp::Command::Genmove(color);
        let text = self.gtp(&command).await?;
        let mv = match parse_move(&text) {
            Ok(mv) => mv,
            Err(err) => return Err(self.unreadable(&command.to_string(), &text, err.to_string()).await),
        };
        self.known.push(mv);
        Ok(mv)
    }

    async fn nboard_go(&mut self, start: &Board, moves: &[Move]) -> Result<Move, ExternalError> {
        let game = GgfGame {
            black: String::new(),
            white: String::new(),
            start: *start,
            moves: moves.to_vec(),
        };
        self.send(&nboard::Command::SetGame(game).to_string()).await?;
        self.sync("set game").await?;
        self.send(&nboard::Command::Go.to_string()).await?;
        let deadline = Instant::now() + self.timeout;
        loop {
            let line = self.read_line("go", deadline).await?;
            if !line.trim_start().starts_with("===") {
                continue;
            }
            return match line.parse::<nboard::Reply>() {
                Ok(nboard::Reply::Best { mv, .. }) => Ok(mv),
                Ok(other) => Err(self.unreadable("go", &line, format!("read as {other:?}")).await),
                Err(err) => Err(self.unreadable("go", &line, err.reason).await),
            };
        }
    }

    /// Sends `ping N` and reads up to `pong N`; returns the last `set myname` seen.
    async fn sync(&mut self, doing: &str) -> Result<Option<String>, ExternalError> {
        let deadline = Instant::now() + self.timeout;
        let replies = self.replies_until_pong(doing, deadline).await?;
        Ok(replies.into_iter().rev().find_map(|reply| match reply {
            Ok(nboard::Reply::MyName(name)) => Some(name),
            _ => None,
        }))
    }

    /// Sends `ping N` and returns every line read before `pong N` (the engine answers
    /// commands in order, so the pong follows the answers of those sent before it),
    /// each parsed or with its parse error.
    async fn replies_until_pong(
        &mut self,
        doing: &str,
        deadline: Instant,
    ) -> Result<Vec<Result<nboard::Reply, nboard::ParseReplyError>>, ExternalError> {
        self.ping += 1;
        let ping = self.ping;
        self.send(&nboard::Command::Ping(ping).to_string()).await?;
        let mut replies = Vec::new();
        loop {
            let line = self.read_line(doing, deadline).await?;
            match line.parse::<nboard::Reply>() {
                Ok(nboard::Reply::Pong(n)) if n == ping => return Ok(replies),
                reply => replies.push(reply),
            }
        }
    }

    /// NBoard only: the engine's value of every legal move of `board` (its `hint`
    /// answer's `search` lines, in discs for the side to move), with the depth it
    /// wrote for each, ordered by square; `ply` is the game's, for errors. The answer
    /// is read until every move has a value or the engine says it waits again (a
    /// `status` line saying "waiting", as Edax and ours write), never interrupted by
    /// a `ping` (Edax stops searching at one), and may take the engine's timeout once
    /// a move.
    pub(crate) async fn hint(
        &mut self,
        board: &Board,
        ply: usize,
    ) -> Result<Vec<(Square, f64, String)>, ExternalError> {
        let legal: Vec<Square> = board.legal_moves().squares().collect();
        let game = GgfGame {
            black: String::new(),
            white: String::new(),
            start: *board,
            moves: Vec::new(),
        };
        self.send(&nboard::Command::SetGame(game).to_string()).await?;
        self.sync("set game").await?;
        let doing = nboard::Command::Hint(legal.len() as u32).to_string();
        self.send(&doing).await?;
        let deadline = Instant::now() + self.timeout * (legal.len() as u32).max(1);
        let mut values: Vec<(Square, f64, String)> = Vec::new();
        while values.len() < legal.len() {
            let line = self.read_line(&doing, deadline).await?;
            let (mv, eval, depth) = match line.parse::<nboard::Reply>() {
                Ok(nboard::Reply::Search { mv, eval, depth }) => (mv, eval, depth),
                Ok(nboard::Reply::Status(text)) if !values.is_empty() && text.contains("waiting") => break,
                Ok(_) => continue,
                Err(err) => return Err(self.unreadable(&doing, &err.line, err.reason).await),
            };
            match mv {
                Move::Place(square) if legal.contains(&square) => {
                    if !values.iter().any(|&(s, _, _)| s == square) {
                        values.push((square, eval, depth));
                    }
                }
                _ => return Err(self.illegal(mv, ply, board).await),
            }
        }
        // Whatever the answer still holds (its closing status) is read up to a pong.
        self.replies_until_pong(&doing, deadline).await?;
        if values.len() < legal.len() {
            let missing: Vec<String> = legal
                .iter()
                .filter(|square| !values.iter().any(|(s, _, _)| s == *square))
                .map(ToString::to_string)
                .collect();
            return Err(ExternalError::Unvalued {
                engine: self.name.clone(),
                valued: values.len(),
                legal: legal.len(),
                missing: missing.join(" "),
                stderr: self.stderr(),
            });
        }
        values.sort_by_key(|&(square, _, _)| square);
        Ok(values)
    }

    /// Sends a GTP command and returns its answer's text; a `?` answer is
    /// [`ExternalError::Refused`].
    async fn gtp(&mut self, command: &gtp::Command) -> Result<String, ExternalError> {
        let doing = command.to_string();
        self.send(&doing).await?;
        let deadline = Instant::now() + self.timeout;
        let mut reader = gtp::ReplyReader::default();
        loop {
            let line = self.read_line(&doing, deadline).await?;
            if let Some(reply) = reader.push(&line) {
                if reply.ok {
                    return Ok(reply.text);
                }
                return Err(ExternalError::Refused {
                    engine: self.name.clone(),
                    reply: format!("? {}", reply.text),
                    stderr: self.stderr(),
                    doing,
                });
            }
        }
    }

    async fn send(&mut self, line: &str) -> Result<(), ExternalError> {
        let stdin = &mut self.process.stdin;
        let written = async {
            stdin.write_all(line.as_bytes()).await?;
            stdin.write_all(b"\n").await?;
            stdin.flush().await
        };
        match written.await {
            Ok(()) => Ok(()),
            Err(err) => Err(self.exited(line, Some(err)).await),
        }
    }

    async fn read_line(&mut self, doing: &str, deadline: Instant) -> Result<String, ExternalError> {
        match timeout_at(deadline, self.process.stdout.next_line()).await {
            Ok(Ok(Some(line))) => Ok(line),
            Ok(Ok(None)) => Err(self.exited(doing, None).await),
            Ok(Err(err)) => Err(self.exited(doing, Some(err)).await),
            Err(_) => {
                self.finish().await;
                Err(ExternalError::Timeout {
                    engine: self.name.clone(),
                    doing: doing.to_string(),
                    seconds: self.timeout.as_secs_f64(),
                    stderr: self.stderr(),
                })
            }
        }
    }

    /// Kills the process after an answer that ends its game, and reads its stderr to
    /// the end (for a second at most), so lines written just before the answer are in
    /// the error.
    async fn finish(&mut self) {
        let _ = self.process.child.start_kill();
        if let Some(task) = self.process.stderr_task.take() {
            let _ = tokio::time::timeout(GRACE, task).await;
        }
    }

    /// The error for a process that is gone, once its stderr is read to the end.
    async fn exited(&mut self, doing: &str, io: Option<std::io::Error>) -> ExternalError {
        let status = match tokio::time::timeout(GRACE, self.process.child.wait()).await {
            Ok(Ok(status)) => status.to_string(),
            Ok(Err(err)) => format!("status unknown: {err}"),
            Err(_) => match io {
                Some(err) => format!("still running, but its pipe failed: {err}"),
                None => "still running, but it closed its output".to_string(),
            },
        };
        if let Some(task) = self.process.stderr_task.take() {
            let _ = tokio::time::timeout(GRACE, task).await;
        }
        ExternalError::Exited {
            engine: self.name.clone(),
            doing: doing.to_string(),
            status,
            stderr: self.stderr(),
        }
    }

    fn stderr(&self) -> String {
        self.process.tail.lock().unwrap_or_else(|p| p.into_inner()).describe()
    }

    async fn unreadable(&mut self, doing: &str, line: &str, reason: String) -> ExternalError {
        self.finish().await;
        ExternalError::Unreadable {
            engine: self.name.clone(),
            doing: doing.to_string(),
            line: line.to_string(),
            reason,
            stderr: self.stderr(),
        }
    }

    /// The error for `mv`, which the rules refuse in `board` at `ply`.
    pub(crate) async fn illegal(&mut self, mv: Move, ply: usize, board: &Board) -> ExternalError {
        self.finish().await;
        ExternalError::Illegal {
            engine: self.name.clone(),
            ply,
            mv,
            legal: board.legal_moves().to_string(),
            stderr: self.stderr(),
        }
    }

    /// Asks the engine to quit, waits a moment, and kills it if it has not.
    pub(crate) async fn quit(mut self) {
        let quit = match self.protocol {
            Protocol::Gtp => gtp::Command::Quit.to_string(),
            Protocol::Nboard => nboard::Command::Quit.to_string(),
        };
        if self.send(&quit).await.is_ok() {
            let _ = tokio::time::timeout(GRACE, self.process.child.wait()).await;
        }
    }
}
