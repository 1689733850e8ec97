//! An engine process's output, bounded: its stdout read as lines of at most
//! [`LINE_CAP`] bytes ([`LineReader`]; a longer line is an error and its bytes are not
//! kept), its stderr kept as the last [`STDERR_TAIL`] bytes ([`StderrTail`], saved to a
//! file that says how many bytes came before them).

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use protocol::lines::{LineError, LineSplitter};
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncReadExt};
use tokio::task::JoinHandle;

/// The longest stdout line (and GTP answer) read from an engine, in bytes: no GTP or
/// NBoard answer comes near it (a board diagram is about 1 KiB).
pub(crate) const LINE_CAP: usize = 64 * 1024;
/// How much of an engine process's stderr is kept, in bytes: the last ones it wrote.
pub(crate) const STDERR_TAIL: usize = 64 * 1024;
/// Stderr lines quoted in error messages.
const QUOTED_LINES: usize = 8;
/// The most characters of one stderr line quoted in an error message (its end).
const QUOTED_LINE_CHARS: usize = 240;

/// Lines of at most `cap` bytes from an async byte stream (an engine's stdout, the
/// MCP face's stdin), cut by the one bounded line splitter of every outside input
/// ([`protocol::lines::LineSplitter`]). Cancel-safe: the bytes of a line that a
/// cancelled call had read stay for the next call.
pub struct LineReader<R> {
    inner: R,
    splitter: LineSplitter,
}

impl<R: AsyncBufRead + Unpin> LineReader<R> {
    /// Reads an engine's stdout in lines of at most `cap` bytes (the `\n` not counted).
    pub(crate) fn new(inner: R, cap: usize) -> LineReader<R> {
        LineReader::with_splitter(inner, LineSplitter::new("the engine's stdout", cap))
    }

    /// Reads `inner` in the lines `splitter` cuts (its name, its cap).
    pub fn with_splitter(inner: R, splitter: LineSplitter) -> LineReader<R> {
        LineReader { inner, splitter }
    }

    /// The splitter, for what it keeps of a refused line
    /// ([`protocol::lines::LineSplitter::refused_head`]).
    pub fn splitter(&mut self) -> &mut LineSplitter {
        &mut self.splitter
    }

    /// The next line without its `\n` (or `\r\n`); `None` at the end of the stream
    /// (a last line without `\n` is a line). A line over the cap fails at once, before
    /// its end is read.
    pub async fn next_line(&mut self) -> Result<Option<String>, LineError> {
        loop {
            let available = match self.inner.fill_buf().await {
                Ok(available) => available,
                Err(source) => return Err(self.splitter.read_failed(source)),
            };
            if available.is_empty() {
                return self.splitter.finish().transpose().map(|line| line.map(|l| l.text));
            }
            let (taken, line) = self.splitter.feed(available);
            self.inner.consume(taken);
            if let Some(line) = line {
                return line.map(|l| Some(l.text));
            }
        }
    }
}

/// The last bytes one engine process wrote on stderr, how many came before them, and
/// the file they are saved to when the process's stderr ends.
#[derive(Debug)]
pub(crate) struct StderrTail {
    cap: usize,
    /// The last bytes (up to twice `cap` between trims).
    bytes: Vec<u8>,
    /// Bytes written before `bytes`.
    dropped: u64,
    file: Option<PathBuf>,
    /// Whether the file was written (it is written once, when there is anything).
    saved: bool,
}

impl StderrTail {
    /// An empty tail of `cap` bytes, saved to `file` (appended: a game played again,
    /// or another scoring process, adds to what an earlier process wrote).
    pub(crate) fn new(cap: usize, file: Option<PathBuf>) -> StderrTail {
        StderrTail {
            cap,
            bytes: Vec::new(),
            dropped: 0,
            file,
            saved: false,
        }
    }

    /// Adds bytes the process wrote; the oldest beyond the cap are dropped (counted).
    pub(crate) fn push(&mut self, chunk: &[u8]) {
        self.bytes.extend_from_slice(chunk);
        if self.bytes.len() > 2 * self.cap {
            let excess = self.bytes.len() - self.cap;
            self.bytes.drain(..excess);
            self.dropped += excess as u64;
        }
    }

    /// The kept bytes, and how many came before them.
    fn kept(&self) -> (&[u8], u64) {
        let excess = self.bytes.len().saturating_sub(self.cap);
        (&self.bytes[excess..], self.dropped + excess as u64)
    }

    /// What the file gets: the kept bytes, after a line that says how many were
    /// dropped before them (when any were).
    pub(crate) fn file_text(&self) -> Vec<u8> {
        let (kept, dropped) = self.kept();
        let mut text = Vec::with_capacity(kept.len() + 160);
        if dropped > 0 {
            let total = dropped + kept.len() as u64;
            let _ = writeln!(
                text,
                "[othello-arena: this engine process wrote {total} bytes on stderr; the first {dropped} were dropped and the last {} follow]",
                kept.len()
            );
        }
        text.extend_from_slice(kept);
        if !kept.is_empty() && !kept.ends_with(b"\n") {
            text.push(b'\n');
        }
        text
    }

    /// Appends [`StderrTail::file_text`] to the file, once, if the process wrote
    /// anything (a file that cannot be written is left out: the error messages still
    /// quote the last lines).
    pub(crate) fn save(&mut self) {
        if self.saved || self.bytes.is_empty() {
            return;
        }
        self.saved = true;
        let Some(path) = &self.file else { return };
        let opened = std::fs::OpenOptions::new().create(true).append(true).open(path);
        if let Ok(mut file) = opened {
            if file.write_all(&self.file_text()).is_err() {
                tracing::warn!(path = %path.display(), "cannot write an engine's stderr");
            }
        }
    }

    /// `; its stderr ends: ...` for error messages: its last lines (the end of each
    /// long one), and the file that keeps the tail.
    pub(crate) fn describe(&self) -> String {
        let (kept, dropped) = self.kept();
        let text = String::from_utf8_lossy(kept);
        let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
        let mut out = String::new();
        if lines.is_empty() {
            out.push_str("; it wrote nothing on stderr");
        } else {
            let quoted: Vec<String> = lines[lines.len().saturating_sub(QUOTED_LINES)..]
                .iter()
                .map(|line| line_end(line))
                .collect();
            let _ = write!(out, "; its stderr ends: {}", quoted.join(" | "));
        }
        if let (Some(file), true) = (&self.file, self.saved) {
            match dropped {
                0 => {
                    let _ = write!(out, " (all of it in {})", file.display());
                }
                _ => {
                    let _ = write!(out, " (its last {} bytes in {})", self.cap, file.display());
                }
            }
        }
        out
    }
}

/// `line`, or `...` and its last [`QUOTED_LINE_CHARS`] characters.
fn line_end(line: &str) -> String {
    let chars = line.chars().count();
    if chars <= QUOTED_LINE_CHARS {
        return line.to_string();
    }
    let end: String = line.chars().skip(chars - QUOTED_LINE_CHARS).collect();
    format!("...{end}")
}

/// Reads `stderr` to its end into `tail`, then saves the tail to its file.
pub(crate) fn keep_stderr<R>(mut stderr: R, tail: Arc<Mutex<StderrTail>>) -> JoinHandle<()>
where
    R: AsyncRead + Unpin + Send + 'static,
{
    tokio::spawn(async move {
        let mut chunk = vec![0u8; 16 * 1024];
        while let Ok(n @ 1..) = stderr.read(&mut chunk).await {
            lock(&tail).push(&chunk[..n]);
        }
        lock(&tail).save();
    })
}

/// The tail, even after a panic elsewhere (its bytes stay consistent).
pub(crate) fn lock(tail: &Mutex<StderrTail>) -> std::sync::MutexGuard<'_, StderrTail> {
    tail.lock().unwrap_or_else(|p| p.into_inner())
}

#[cfg(test)]
mod tests;
