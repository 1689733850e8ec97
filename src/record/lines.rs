//! Lines of bytes from outside (a protocol's input, a file a user names, the output of
//! an engine process), read with a cap on each line's length, so that no input can
//! make its reader hold more than the cap: a line longer than the cap is refused as
//! soon as the cap is passed, its remaining bytes are read and dropped up to the next
//! newline without being kept, and reading goes on with the line after it.
//!
//! A line ends at `\n`; a `\r` before it is dropped (`\r\n` files read as `\n` ones);
//! the last line may end at the end of input instead. The cap counts a line's bytes
//! before its `\n`. A line that is not UTF-8 is refused too, and reading goes on.
//!
//! Files are read whole through [`read_file`] (or [`read_file_bytes`]): a cap per line
//! and per file, named in the error with the file, and only a regular file is opened
//! ([`regular_file`]): a FIFO or a device is refused, never waited on.
//!
//! [`LineSplitter`] is the state machine, fed chunks of bytes by whatever reads them
//! (an async reader drives it from its own buffer); [`BoundedLines`] drives it over
//! any [`std::io::BufRead`] as an iterator.

use std::fs::File;
use std::io::{self, BufRead, Read};
use std::path::Path;

/// A line read whole: its text and its number in the input (from 1).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    /// The line's number in its input, counting refused lines too (from 1).
    pub number: u64,
    /// The text, without its `\n` or `\r\n`.
    pub text: String,
}

/// A line that was refused, or input that could not be read.
#[derive(Debug, thiserror::Error)]
pub enum LineError {
    /// The line passed the cap; its bytes up to the next newline are skipped.
    #[error(
        "{input} line {number} is longer than {cap} bytes, the most a line may hold; it was skipped up to its newline"
    )]
    TooLong {
        /// The input's name (`input`, a file's path).
        input: String,
        /// The line's number (from 1).
        number: u64,
        /// The cap, in bytes.
        cap: usize,
    },
    /// The line is not UTF-8 text.
    #[error("{input} line {number} is not UTF-8 text")]
    NotUtf8 {
        /// The input's name.
        input: String,
        /// The line's number (from 1).
        number: u64,
    },
    /// The input is longer than a whole text of it may be.
    #[error("{input} is longer than {cap} bytes, the most it may hold")]
    TooBig {
        /// The input's name.
        input: String,
        /// The cap, in bytes.
        cap: u64,
    },
    /// The file is not a regular one (a FIFO, a device, a folder): it is not opened.
    #[error(
        "{input} is {kind}, not a regular file: it is not read (a FIFO waits for a writer, a device may never end)"
    )]
    NotAFile {
        /// The file's path.
        input: String,
        /// What it is (`a FIFO`, `a device`, `a folder`, `a socket`).
        kind: &'static str,
    },
    /// The input could not be read; nothing more comes from it.
    #[error("cannot read {input}")]
    Read {
        /// The input's name.
        input: String,
        /// Why.
        #[source]
        source: io::Error,
    },
}

impl LineError {
    /// Whether reading can go on after this error: `true` for a refused line, `false`
    /// when the input itself failed.
    pub fn is_refused_line(&self) -> bool {
        !matches!(
            self,
            LineError::Read { .. } | LineError::TooBig { .. } | LineError::NotAFile { .. }
        )
    }
}

/// Cuts bytes, fed in chunks, into lines of at most `cap` bytes, keeping no more than
/// `cap` bytes of any line.
#[derive(Debug)]
pub struct LineSplitter {
    input: String,
    cap: usize,
    /// Lines read or refused so far.
    number: u64,
    /// The bytes of the current line read so far (never more than `cap`).
    kept: Vec<u8>,
    /// Whether the current line was refused and its bytes are being dropped.
    skipping: bool,
    /// How many first bytes of a line refused for its length are kept
    /// ([`LineSplitter::with_head`]; none by default).
    head_cap: usize,
    /// The first bytes of the last line refused for its length.
    head: Vec<u8>,
}

impl LineSplitter {
    /// A splitter for the input named `input` (for messages), with lines of at most
    /// `cap` bytes.
    pub fn new(input: impl Into<String>, cap: usize) -> LineSplitter {
        LineSplitter {
            input: input.into(),
            cap,
            number: 0,
            kept: Vec::new(),
            skipping: false,
            head_cap: 0,
            head: Vec::new(),
        }
    }

    /// The same splitter, keeping the first `bytes` bytes of each line it refuses for
    /// its length, for [`LineSplitter::refused_head`] (a protocol reads the id of a
    /// request too long to read whole, to answer it).
    #[must_use]
    pub fn with_head(mut self, bytes: usize) -> LineSplitter {
        self.head_cap = bytes.min(self.cap);
        self
    }

    /// The first bytes of the last line refused for its length (as many as
    /// [`LineSplitter::with_head`] asked), taken: empty when there is none.
    pub fn refused_head(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.head)
    }

    /// Takes bytes from the front of `chunk`: how many it took, and the line or
    /// refusal they complete, if any. It takes no bytes past the line it completes,
    /// so the caller feeds the rest of the chunk again; it takes every byte of a
    /// chunk that completes nothing.
    pub fn feed(&mut self, chunk: &[u8]) -> (usize, Option<Result<Line, LineError>>) {
        let end = chunk.iter().position(|&b| b == b'\n');
        let body = &chunk[..end.unwrap_or(chunk.len())];
        let taken = end.map_or(chunk.len(), |i| i + 1);
        if self.skipping {
            self.skipping = end.is_none();
            return (taken, None);
        }
        if self.kept.len() + body.len() > self.cap {
            let from_kept = self.kept.len().min(self.head_cap);
            let from_body = body.len().min(self.head_cap - from_kept);
            self.head = [&self.kept[..from_kept], &body[..from_body]].concat();
            self.kept.clear();
            self.skipping = end.is_none();
            self.number += 1;
            let refused = LineError::TooLong {
                input: self.input.clone(),
                number: self.number,
                cap: self.cap,
            };
            return (taken, Some(Err(refused)));
        }
        self.kept.extend_from_slice(body);
        if end.is_none() {
            return (taken, None);
        }
        self.number += 1;
        (taken, Some(self.take()))
    }

    /// The end of the input: the last line when it has no newline.
    pub fn finish(&mut self) -> Option<Result<Line, LineError>> {
        if self.skipping || self.kept.is_empty() {
            self.skipping = false;
            return None;
        }
        self.number += 1;
        Some(self.take())
    }

    /// The error of an input whose read failed with `source` (nothing more comes from it).
    pub fn read_failed(&self, source: io::Error) -> LineError {
        LineError::Read {
            input: self.input.clone(),
            source,
        }
    }

    /// The kept bytes as a line (a `\r` before the newline dropped).
    fn take(&mut self) -> Result<Line, LineError> {
        let mut bytes = std::mem::take(&mut self.kept);
        if bytes.last() == Some(&b'\r') {
            bytes.pop();
        }
        let number = self.number;
        String::from_utf8(bytes)
            .map(|text| Line { number, text })
            .map_err(|_| LineError::NotUtf8 {
                input: self.input.clone(),
                number,
            })
    }
}

/// The lines of a [`BufRead`], each at most `cap` bytes (see the module's doc): an
/// iterator of lines and refusals, which ends after the last line or after the first
/// [`LineError::Read`].
#[derive(Debug)]
pub struct BoundedLines<R> {
    reader: R,
    splitter: LineSplitter,
    done: bool,
}

impl<R: BufRead> BoundedLines<R> {
    /// The lines of `reader`, named `input` in messages, of at most `cap` bytes each.
    pub fn new(reader: R, input: impl Into<String>, cap: usize) -> BoundedLines<R> {
        BoundedLines {
            reader,
            splitter: LineSplitter::new(input, cap),
            done: false,
        }
    }
}

impl<R: BufRead> Iterator for BoundedLines<R> {
    type Item = Result<Line, LineError>;

    fn next(&mut self) -> Option<Result<Line, LineError>> {
        while !self.done {
            let chunk = match self.reader.fill_buf() {
                Ok(chunk) => chunk,
                Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
                Err(source) => {
                    self.done = true;
                    return Some(Err(self.splitter.read_failed(source)));
                }
            };
            if chunk.is_empty() {
                self.done = true;
                return self.splitter.finish();
            }
            let (taken, line) = self.splitter.feed(chunk);
            self.reader.consume(taken);
            if line.is_some() {
                return line;
            }
        }
        None
    }
}

/// The whole text of `reader` (named `input` in errors), exactly as it is, when it
/// holds at most `file_cap` bytes in lines of at most `line_cap` bytes each, all UTF-8:
/// a file a user names is read this way, so that `/dev/zero` or one endless line is
/// refused at a cap instead of filling memory. Reading stops at the first line past
/// `line_cap`, and never more than `file_cap + 1` bytes are read.
pub fn read_text(reader: impl Read, input: &str, line_cap: usize, file_cap: u64) -> Result<String, LineError> {
    let bytes = read_capped(reader, input, line_cap, file_cap, true)?;
    String::from_utf8(bytes).map_err(|_| LineError::NotUtf8 {
        input: input.to_string(),
        number: 0,
    })
}

/// The text of the file at `path`, read as [`read_text`] reads, once [`regular_file`]
/// has found it a regular file: every file a run folder holds and every file a user
/// names is read through here.
pub fn read_file(path: &Path, line_cap: usize, file_cap: u64) -> Result<String, LineError> {
    read_text(regular_file(path)?, &path.display().to_string(), line_cap, file_cap)
}

/// The longest line of a file a user names (settings and data files), in bytes.
pub const USER_LINE_CAP: usize = 64 * 1024;

/// The largest settings file a user names (TOML: agent, fleet, engines, tournament,
/// ladder and calibration files; templates), in bytes.
pub const SETTINGS_FILE_CAP: u64 = 1 << 20;

/// The largest data file a user names (opening suites, position files), in bytes:
/// XOT's 10,784 openings take 200 KB.
pub const DATA_FILE_CAP: u64 = 64 << 20;

/// The settings file at `path` (read within [`USER_LINE_CAP`] and
/// [`SETTINGS_FILE_CAP`]), or, when `path` is `shipped.0` (where the file ships in the
/// sources) and no file is there, `shipped.1` (the binary's own copy of it): a file in
/// the working directory overrides what is built in.
pub fn read_settings_or_built_in(path: &Path, shipped: (&str, &str)) -> Result<String, LineError> {
    if path == Path::new(shipped.0) && !path.exists() {
        return Ok(shipped.1.to_string());
    }
    read_file(path, USER_LINE_CAP, SETTINGS_FILE_CAP)
}

/// A file a user names that cannot be read: the flag or key that named it, the file,
/// and why.
#[derive(Debug, thiserror::Error)]
#[error("cannot read {what} {path}")]
pub struct UserFileError {
    /// The flag or key that named the file (`--agent-file`, `the tournament file`).
    pub what: String,
    /// The file, as given.
    pub path: String,
    /// Why.
    #[source]
    pub source: LineError,
}

/// The text of the file `path` that `what` names (a flag, a key): every text file a
/// user names (suites, ladders, engine, agent, fleet and tournament files, templates)
/// is read whole and exactly as it is, but never more than `file_cap` bytes in lines
/// of at most [`USER_LINE_CAP`], so `/dev/zero`, a FIFO or one endless line is refused
/// naming the file and the cap instead of filling memory or waiting.
pub fn read_user_file(what: &str, path: &Path, file_cap: u64) -> Result<String, UserFileError> {
    read_file(path, USER_LINE_CAP, file_cap).map_err(|source| UserFileError {
        what: what.to_string(),
        path: path.display().to_string(),
        source,
    })
}

/// [`read_user_file`], or, when no file is at `path` and `built_in` is the binary's
/// own copy of the file it names (a shipped prompt, agent file, ladder or calibration),
/// that copy: a file in the working directory overrides what is built in.
pub fn read_user_file_or_built_in(
    what: &str,
    path: &Path,
    built_in: Option<&str>,
    file_cap: u64,
) -> Result<String, UserFileError> {
    match built_in {
        Some(text) if !path.exists() => Ok(text.to_string()),
        _ => read_user_file(what, path, file_cap),
    }
}

/// The bytes of the file at `path`, within the same caps as [`read_file`] but not
/// checked as UTF-8 (a game log a crash cut off may end inside a character).
pub fn read_file_bytes(path: &Path, line_cap: usize, file_cap: u64) -> Result<Vec<u8>, LineError> {
    read_capped(
        regular_file(path)?,
        &path.display().to_string(),
        line_cap,
        file_cap,
        false,
    )
}

/// The file at `path` opened for reading when it is a regular file (links followed);
/// a FIFO, a device, a socket or a folder is refused before it is opened, since
/// opening a FIFO waits for a writer and a device such as `/dev/zero` never ends.
pub fn regular_file(path: &Path) -> Result<File, LineError> {
    let input = || path.display().to_string();
    let read_failed = |source| LineError::Read { input: input(), source };
    let kind = std::fs::metadata(path).map_err(read_failed)?.file_type();
    if !kind.is_file() {
        return Err(LineError::NotAFile {
            input: input(),
            kind: file_kind(kind),
        });
    }
    File::open(path).map_err(read_failed)
}

/// What a file that is not a regular one is, in words.
fn file_kind(kind: std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if kind.is_dir() {
        "a folder"
    } else if kind.is_fifo() {
        "a FIFO"
    } else if kind.is_char_device() || kind.is_block_device() {
        "a device"
    } else if kind.is_socket() {
        "a socket"
    } else {
        "not a regular file"
    }
}

/// The bytes of `reader` fed through a [`LineSplitter`] as they are read: at most
/// `file_cap` bytes, and none past the first line over `line_cap` (or, when `utf8`,
/// the first line that is not UTF-8).
fn read_capped(
    reader: impl Read,
    input: &str,
    line_cap: usize,
    file_cap: u64,
    utf8: bool,
) -> Result<Vec<u8>, LineError> {
    let mut reader = reader.take(file_cap.saturating_add(1));
    let mut splitter = LineSplitter::new(input, line_cap);
    let refused = |line: Option<Result<Line, LineError>>| match line {
        Some(Err(LineError::NotUtf8 { .. })) if !utf8 => None,
        Some(Err(err)) => Some(err),
        _ => None,
    };
    let mut bytes = Vec::new();
    let mut chunk = vec![0; 64 * 1024];
    loop {
        let read = match reader.read(&mut chunk) {
            Ok(0) => break,
            Ok(read) => read,
            Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
            Err(source) => return Err(splitter.read_failed(source)),
        };
        if (bytes.len() + read) as u64 > file_cap {
            return Err(LineError::TooBig {
                input: input.to_string(),
                cap: file_cap,
            });
        }
        let mut rest = &chunk[..read];
        while !rest.is_empty() {
            let (taken, line) = splitter.feed(rest);
            rest = &rest[taken..];
            if let Some(err) = refused(line) {
                return Err(err);
            }
        }
        bytes.extend_from_slice(&chunk[..read]);
    }
    match refused(splitter.finish()) {
        Some(err) => Err(err),
        None => Ok(bytes),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each item as text: the line, or its error's message.
    fn read(bytes: &[u8], cap: usize, chunk: usize) -> Vec<String> {
        let reader = io::BufReader::with_capacity(chunk, bytes);
        BoundedLines::new(reader, "test", cap)
            .map(|item| match item {
                Ok(line) => format!("{}:{}", line.number, line.text),
                Err(err) => err.to_string(),
            })
            .collect()
    }

    #[test]
    fn a_text_is_read_exactly_within_its_caps_and_refused_past_them() {
        let text = "f5d6\r\n# note\nc4c3";
        assert_eq!(read_text(text.as_bytes(), "suite", 16, 64).unwrap(), text);
        let long = read_text("f5d6\n0123456789abcdefg\n".as_bytes(), "suite", 16, 64).unwrap_err();
        assert_eq!(
            long.to_string(),
            "suite line 2 is longer than 16 bytes, the most a line may hold; it was skipped up to its newline"
        );
        let big = read_text(io::repeat(b'\n'), "/dev/zero", 16, 1000).unwrap_err();
        assert_eq!(
            big.to_string(),
            "/dev/zero is longer than 1000 bytes, the most it may hold"
        );
        assert!(read_text(&b"\xff\n"[..], "suite", 16, 64).is_err());
    }

    #[test]
    fn only_a_regular_file_is_opened_and_its_caps_are_named() {
        let dir = std::env::temp_dir().join(format!("othello-lines-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let fifo = dir.join("fifo");
        assert!(std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success());
        let zero = dir.join("zero");
        std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
        for (path, kind) in [(&fifo, "a FIFO"), (&zero, "a device"), (&dir, "a folder")] {
            let refused = read_file(path, 16, 64).unwrap_err();
            assert!(!refused.is_refused_line());
            let want = format!("{} is {kind}, not a regular file", path.display());
            assert!(refused.to_string().starts_with(&want), "{refused}");
            assert!(read_file_bytes(path, 16, 64).is_err());
        }
        let file = dir.join("file");
        std::fs::write(&file, b"ok\n\xff torn").unwrap();
        assert!(read_file(&file, 16, 64).is_err(), "text is UTF-8");
        assert_eq!(read_file_bytes(&file, 16, 64).unwrap(), b"ok\n\xff torn");
        std::fs::write(&file, [b"ok\n".as_slice(), &[b'x'; 100]].concat()).unwrap();
        let long = read_file_bytes(&file, 16, 1 << 20).unwrap_err();
        let want = format!("{} line 2 is longer than 16 bytes", file.display());
        assert!(long.to_string().starts_with(&want), "{long}");
        let big = read_file_bytes(&file, 1 << 10, 50).unwrap_err();
        assert_eq!(
            big.to_string(),
            format!("{} is longer than 50 bytes, the most it may hold", file.display())
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn lines_end_at_newlines_with_or_without_cr_and_at_the_end() {
        for chunk in [1, 2, 3, 64] {
            assert_eq!(
                read(b"go\r\nping 1\n\nlast", 16, chunk),
                ["1:go", "2:ping 1", "3:", "4:last"],
                "chunks of {chunk}"
            );
            assert_eq!(read(b"one\n", 16, chunk), ["1:one"]);
            assert!(read(b"", 16, chunk).is_empty());
        }
    }

    #[test]
    fn a_line_over_the_cap_is_refused_skipped_and_reading_goes_on() {
        let mut bytes = vec![b'x'; 100];
        bytes.extend_from_slice(b"\nok\n12345678\n123456789\nend");
        for chunk in [1, 7, 8, 9, 256] {
            assert_eq!(
                read(&bytes, 8, chunk),
                [
                    "test line 1 is longer than 8 bytes, the most a line may hold; it was skipped up to its newline",
                    "2:ok",
                    "3:12345678",
                    "test line 4 is longer than 8 bytes, the most a line may hold; it was skipped up to its newline",
                    "5:end",
                ],
                "chunks of {chunk}"
            );
        }
        // A refused last line with no newline ends the input with its refusal alone.
        let endless = read(&[b'y'; 50], 8, 16);
        assert_eq!(endless.len(), 1, "{endless:?}");
        assert!(endless[0].starts_with("test line 1 is longer"));
    }

    #[test]
    fn a_refused_line_leaves_its_head_when_asked_and_only_then() {
        for chunk in [1usize, 3, 5, 64] {
            let mut splitter = LineSplitter::new("test", 8).with_head(5);
            let bytes = b"{\"id\":7,\"x\":1}\nok\n";
            let mut refused = Vec::new();
            let mut at = 0;
            while at < bytes.len() {
                let end = (at + chunk).min(bytes.len());
                let (taken, line) = splitter.feed(&bytes[at..end]);
                at += taken;
                if let Some(Err(LineError::TooLong { .. })) = line {
                    refused.push(splitter.refused_head());
                }
            }
            assert_eq!(refused, [b"{\"id\"".to_vec()], "chunks of {chunk}");
            assert!(splitter.refused_head().is_empty(), "taken once");
        }
        let mut plain = LineSplitter::new("test", 2);
        assert!(matches!(plain.feed(b"abc\n").1, Some(Err(_))));
        assert!(plain.refused_head().is_empty());
    }

    #[test]
    fn the_splitter_never_keeps_more_than_the_cap() {
        let mut splitter = LineSplitter::new("test", 4);
        let (taken, line) = splitter.feed(b"abc");
        assert_eq!((taken, line.is_none()), (3, true));
        let (taken, line) = splitter.feed(b"defgh");
        assert_eq!(taken, 5);
        assert!(matches!(line, Some(Err(LineError::TooLong { number: 1, cap: 4, .. }))));
        assert!(splitter.kept.is_empty(), "a refused line's bytes are dropped");
        for _ in 0..1000 {
            assert_eq!(splitter.feed(&[b'z'; 4096]).0, 4096);
            assert!(splitter.kept.is_empty());
        }
        let (taken, line) = splitter.feed(b"zz\nnext\n");
        assert_eq!((taken, line.is_none()), (3, true), "the newline ends the skipped line");
        let (taken, line) = splitter.feed(b"next\n");
        assert_eq!(taken, 5);
        assert_eq!(
            line.unwrap().unwrap(),
            Line {
                number: 2,
                text: "next".to_string()
            }
        );
        assert!(splitter.finish().is_none());
    }

    #[test]
    fn bytes_that_are_not_utf8_refuse_their_line_only() {
        assert_eq!(
            read(b"a\n\xff\xfe\nb\n", 16, 4),
            ["1:a", "test line 2 is not UTF-8 text", "3:b"]
        );
    }

    #[test]
    fn a_failing_reader_ends_the_lines_with_its_error() {
        struct Broken;
        impl io::Read for Broken {
            fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
                Err(io::Error::other("disk on fire"))
            }
        }
        let mut lines = BoundedLines::new(io::BufReader::new(Broken), "broken", 8);
        let err = lines.next().unwrap().unwrap_err();
        assert!(!err.is_refused_line());
        assert_eq!(err.to_string(), "cannot read broken");
        assert!(lines.next().is_none());
    }

    #[test]
    fn errors_are_send_and_sync() {
        fn check<T: Send + Sync>() {}
        check::<LineError>();
    }
}
