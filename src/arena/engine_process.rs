//! The client of one external engine process: started in a process group of its own
//! with its stdio piped (the group ended and its processes gone however the client
//! ends, dropped included: `engine_group`), spoken to in
//! GTP or NBoard one command at a time, every answer awaited no longer than the
//! engine's timeout, read as lines of bounded length, its stderr kept as a bounded
//! tail (`engine_streams`) saved beside the game's log with its last lines quoted in
//! error messages. In a run, the run's stop abandons the answer awaited, and a failed
//! game (or the stop) the wait for a process slot ([`Halt`]).

use std::path::PathBuf;
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use game::othello::{Board, Color, Move, Square};
use protocol::ggf::GgfGame;
use protocol::lines::LineError;
use protocol::{gtp, nboard, parse_move, Protocol};
use record::EngineId;
use tokio::io::{AsyncWriteExt, BufReader};
use tokio::process::{ChildStdin, ChildStdout, Command};
use tokio::sync::OwnedSemaphorePermit;
use tokio::task::JoinHandle;
use tokio::time::{timeout_at, Instant};

use super::engine_group::{ProcessGroup, SpawnError};
use super::engine_streams::{keep_stderr, lock, LineReader, StderrTail, LINE_CAP, STDERR_TAIL};
use super::external_engine::{ExternalEngine, Strength};

/// How long a process that has failed is given to finish its stderr or exit.
const GRACE: Duration = Duration::from_secs(1);
/// The most a move can be worth, in final discs: a scoring reference's values are
/// held to it.
const MAX_DISC_MARGIN: f64 = 64.0;
/// How often a wait looks at the run's stop and failure flags.
const HALT_POLL: Duration = Duration::from_millis(50);

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
    /// A line (or GTP answer) longer than any protocol answer: its bytes are dropped.
    #[error(
        "engine {engine} wrote a line or answer of more than {cap} bytes while answering `{doing}` (dropped, unread): no GTP or NBoard answer is that long, so check that its [[engine]] command and args start it in GTP or NBoard mode{stderr}"
    )]
    TooLong {
        /// The engine's name.
        engine: String,
        /// The command.
        doing: String,
        /// The cap, in bytes.
        cap: usize,
        /// Its last stderr lines.
        stderr: String,
    },
    /// The run was stopped (Ctrl-C), or a game of it failed, while the engine was
    /// awaited: its process group is ended and the game is played again by a resume.
    #[error("engine {engine}: `{doing}` abandoned, the run was stopped")]
    Abandoned {
        /// The engine's name.
        engine: String,
        /// What was awaited.
        doing: String,
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

/// What ends an engine's waits early in a run: the run's stop (Ctrl-C) abandons the
/// answer awaited; a failed game, or the stop, abandons the wait for a process slot,
/// so that no game starts its engine once the run stops.
#[derive(Clone, Debug, Default)]
pub(crate) struct Halt {
    /// The run's stop.
    pub(crate) stop: Option<Arc<AtomicBool>>,
    /// Set by the run's first failed game.
    pub(crate) failed: Option<Arc<AtomicBool>>,
}

impl Halt {
    /// Returns once one of `flags` is set (never, when none is given).
    async fn any_set(flags: [Option<&AtomicBool>; 2]) {
        if flags.iter().all(Option::is_none) {
            return std::future::pending().await;
        }
        while !Halt::is_set(flags) {
            tokio::time::sleep(HALT_POLL).await;
        }
    }

    fn is_set(flags: [Option<&AtomicBool>; 2]) -> bool {
        flags.iter().flatten().any(|flag| flag.load(Ordering::Relaxed))
    }

    /// Returns once the run is stopped.
    async fn stopped(&self) {
        Halt::any_set([self.stop.as_deref(), None]).await;
    }

    /// The flags that keep a new game from starting: the stop and the failure.
    fn for_new_games(&self) -> [Option<&AtomicBool>; 2] {
        [self.stop.as_deref(), self.failed.as_deref()]
    }
}

/// A running engine process.
struct Process {
    group: ProcessGroup,
    stdin: ChildStdin,
    stdout: LineReader<BufReader<ChildStdout>>,
    tail: Arc<Mutex<StderrTail>>,
    stderr_task: Option<JoinHandle<()>>,
    _slot: OwnedSemaphorePermit,
}

/// One engine process and the game it was told: the client's state.
pub(crate) struct Driver {
    name: String,
    protocol: Protocol,
    timeout: Duration,
    halt: Halt,
    process: Process,
    id: EngineId,
    /// GTP: the moves the engine's own board has had.
    known: Vec<Move>,
    /// NBoard: the last ping sent.
    ping: u64,
}

/// Starts the process of `table` in a group of its own, its stdio piped.
fn spawn(
    table: &runs::EngineTable,
    tail: &Arc<Mutex<StderrTail>>,
) -> Result<(ProcessGroup, ChildStdin, ChildStdout, tokio::process::ChildStderr), ExternalError> {
    let mut command = Command::new(&table.command);
    command
        .args(&table.args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(dir) = &table.dir {
        command.current_dir(dir);
    }
    let mut group = ProcessGroup::spawn(&mut command, tail).map_err(|err| match err {
        SpawnError::Quitting => ExternalError::Abandoned {
            engine: table.name.clone(),
            doing: "its start (the harness is quitting)".to_string(),
        },
        SpawnError::Io(source) => ExternalError::Spawn {
            engine: table.name.clone(),
            command: std::iter::once(&table.command)
                .chain(&table.args)
                .cloned()
                .collect::<Vec<_>>()
                .join(" "),
            source,
        },
    })?;
    let child = group.child();
    let pipes = (child.stdin.take(), child.stdout.take(), child.stderr.take());
    let (Some(stdin), Some(stdout), Some(stderr)) = pipes else {
        unreachable!("all three pipes were asked for");
    };
    Ok((group, stdin, stdout, stderr))
}

impl Driver {
    /// Starts `engine`'s process once a slot is free (its stderr's tail saved to
    /// `stderr_file`) and checks its handshake; `halt` abandons the wait for the slot
    /// and the handshake's answers.
    pub(crate) async fn start(
        engine: &ExternalEngine,
        stderr_file: Option<PathBuf>,
        halt: Halt,
    ) -> Result<Driver, ExternalError> {
        let table = engine.table();
        let slot = tokio::select! {
            biased;
            () = Halt::any_set(halt.for_new_games()) => None,
            slot = engine.slots().clone().acquire_owned() => Some(slot.expect("the slots are never closed")),
        };
        // Looked at again once the slot is taken: the game that freed it may have just
        // failed.
        let Some(slot) = slot.filter(|_| !Halt::is_set(halt.for_new_games())) else {
            return Err(ExternalError::Abandoned {
                engine: table.name.clone(),
                doing: "a free process slot (max_in_flight)".to_string(),
            });
        };
        let tail = Arc::new(Mutex::new(StderrTail::new(STDERR_TAIL, stderr_file)));
        let (group, stdin, stdout, stderr) = spawn(table, &tail)?;
        let mut driver = Driver {
            name: table.name.clone(),
            protocol: engine.protocol(),
            timeout: engine.timeout(),
            halt,
            process: Process {
                group,
                stdin,
                stdout: LineReader::new(BufReader::new(stdout), LINE_CAP),
                stderr_task: Some(keep_stderr(stderr, tail.clone())),
                tail,
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
        self.until_pong(doing, deadline).await
    }

    /// Sends `ping N` and reads every line up to `pong N` (the engine answers commands
    /// in order, so the pong follows the answers of those sent before it); returns the
    /// last `set myname` among them, and keeps no other line.
    async fn until_pong(&mut self, doing: &str, deadline: Instant) -> Result<Option<String>, ExternalError> {
        self.ping += 1;
        let ping = self.ping;
        self.send(&nboard::Command::Ping(ping).to_string()).await?;
        let mut name = None;
        loop {
            let line = self.read_line(doing, deadline).await?;
            match line.parse::<nboard::Reply>() {
                Ok(nboard::Reply::Pong(n)) if n == ping => return Ok(name),
                Ok(nboard::Reply::MyName(named)) => name = Some(named),
                _ => {}
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
            if eval.abs() > MAX_DISC_MARGIN {
                let reason =
                    format!("{eval} is not a disc margin (-64 to 64): a reference values moves in final discs");
                return Err(self.unreadable(&doing, &line, reason).await);
            }
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
        self.until_pong(&doing, deadline).await?;
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
        // The bytes of the answer kept so far (from its `=` or `?` line on), within
        // the same cap as a line.
        let mut kept: Option<usize> = None;
        loop {
            let line = self.read_line(&doing, deadline).await?;
            if kept.is_some() || line.starts_with(['=', '?']) {
                let total = kept.unwrap_or(0) + line.len() + 1;
                if total > LINE_CAP {
                    return Err(self.too_long(&doing, LINE_CAP).await);
                }
                kept = Some(total);
            }
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

    /// The engine's next line, awaited until `deadline` and abandoned when the run
    /// stops; any failure ends the process group first.
    async fn read_line(&mut self, doing: &str, deadline: Instant) -> Result<String, ExternalError> {
        /// How the wait for a line ended.
        enum Read {
            Line(Result<Option<String>, LineError>),
            Late,
            Stopped,
        }
        let halt = self.halt.clone();
        // An engine that writes lines without end (none the answer) is late too: the
        // deadline is looked at before each line, not only while waiting for one.
        let read = if Instant::now() >= deadline {
            Read::Late
        } else {
            tokio::select! {
                biased;
                () = halt.stopped() => Read::Stopped,
                read = timeout_at(deadline, self.process.stdout.next_line()) => read.map_or(Read::Late, Read::Line),
            }
        };
        match read {
            Read::Line(Ok(Some(line))) => Ok(line),
            Read::Line(Ok(None)) => Err(self.exited(doing, None).await),
            Read::Line(Err(LineError::TooLong { cap, .. })) => Err(self.too_long(doing, cap).await),
            Read::Line(Err(LineError::Read { source, .. })) => Err(self.exited(doing, Some(source)).await),
            Read::Line(Err(err)) => {
                let unreadable = std::io::Error::new(std::io::ErrorKind::InvalidData, err.to_string());
                Err(self.exited(doing, Some(unreadable)).await)
            }
            Read::Late => {
                self.finish().await;
                Err(ExternalError::Timeout {
                    engine: self.name.clone(),
                    doing: doing.to_string(),
                    seconds: self.timeout.as_secs_f64(),
                    stderr: self.stderr(),
                })
            }
            Read::Stopped => {
                self.finish().await;
                Err(ExternalError::Abandoned {
                    engine: self.name.clone(),
                    doing: doing.to_string(),
                })
            }
        }
    }

    /// Ends the process group after an answer that ends its game, and reads its
    /// stderr to the end (for a second at most), so lines written just before the
    /// answer are in the error and its tail is saved.
    async fn finish(&mut self) {
        let _ = self.process.group.end().await;
        self.stderr_read().await;
    }

    /// Waits (a second at most) for the stderr task, which ends (saving the tail)
    /// when every process of the group has closed its stderr.
    async fn stderr_read(&mut self) {
        if let Some(task) = self.process.stderr_task.take() {
            let _ = tokio::time::timeout(GRACE, task).await;
        }
    }

    /// The error for a process that is gone (or closed its output), once its group is
    /// ended and its stderr read to the end.
    async fn exited(&mut self, doing: &str, io: Option<std::io::Error>) -> ExternalError {
        let by_itself = self.process.group.exits_within(GRACE).await;
        let ended = self.process.group.end().await;
        let status = match (by_itself, ended, io) {
            (true, Ok(status), _) => status.to_string(),
            (true, Err(err), _) => format!("status unknown: {err}"),
            (false, _, Some(err)) => format!("still running, but its pipe failed: {err}"),
            (false, _, None) => "still running, but it closed its output".to_string(),
        };
        self.stderr_read().await;
        ExternalError::Exited {
            engine: self.name.clone(),
            doing: doing.to_string(),
            status,
            stderr: self.stderr(),
        }
    }

    /// The error for a line or answer over `cap` bytes, once the group is ended.
    async fn too_long(&mut self, doing: &str, cap: usize) -> ExternalError {
        self.finish().await;
        ExternalError::TooLong {
            engine: self.name.clone(),
            doing: doing.to_string(),
            cap,
            stderr: self.stderr(),
        }
    }

    fn stderr(&self) -> String {
        lock(&self.process.tail).describe()
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

    /// Asks the engine to quit, waits a moment for it to exit, then ends its process
    /// group (whatever it left running) and reads its stderr to the end.
    pub(crate) async fn quit(mut self) {
        let quit = match self.protocol {
            Protocol::Gtp => gtp::Command::Quit.to_string(),
            Protocol::Nboard => nboard::Command::Quit.to_string(),
        };
        if self.send(&quit).await.is_ok() {
            self.process.group.exits_within(GRACE).await;
        }
        self.finish().await;
    }
}
