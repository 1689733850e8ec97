//! Following a run's game logs as they grow (the watch page's live view): each scan
//! gives the complete lines written since the last, log by log. A line longer than one
//! scan reads is skipped, not waited for (the log keeps it); a log replaced by a link
//! out of the folder of runs since it was listed is not read.

use std::collections::BTreeMap;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use crate::listing::folder_game_logs;

/// Where each game log of one run folder has been read to.
#[derive(Debug)]
pub struct LogTail {
    root: PathBuf,
    dir: PathBuf,
    offsets: BTreeMap<PathBuf, Offset>,
}

/// The complete lines one scan found in one game log.
#[derive(Debug)]
pub struct NewLines {
    /// The log.
    pub path: PathBuf,
    /// Its new complete lines, separated by `\n` (the last one's break left off).
    pub lines: Vec<u8>,
}

impl LogTail {
    /// The game logs of the run folder `dir` under the folder of runs `root`, none read
    /// yet.
    pub fn new(root: &Path, dir: &Path) -> LogTail {
        LogTail {
            root: root.to_path_buf(),
            dir: dir.to_path_buf(),
            offsets: BTreeMap::new(),
        }
    }

    /// The complete lines written since the last scan, log by log in name order (at
    /// most 8 MiB of each log a scan: the rest comes next time).
    pub fn scan(&mut self) -> Vec<NewLines> {
        let mut found = Vec::new();
        for path in folder_game_logs(&self.root, &self.dir) {
            let offset = self.offsets.get(&path).copied().unwrap_or_default();
            let Some(chunk) = self.read_from(&path, offset) else {
                continue;
            };
            let (lines, next) = complete_lines(&chunk, offset);
            let lines = lines.to_vec();
            self.offsets.insert(path.clone(), next);
            if !lines.is_empty() {
                found.push(NewLines { path, lines });
            }
        }
        found
    }

    /// At most [`SCAN_BYTES`] of `path` from `offset`, when it has grown; opened by its
    /// real path, checked again to be under the root.
    fn read_from(&self, path: &Path, offset: Offset) -> Option<Vec<u8>> {
        let real = std::fs::canonicalize(path).ok()?;
        if !real.starts_with(&self.root) {
            return None;
        }
        if std::fs::metadata(&real).map_or(true, |m| m.len() <= offset.at) {
            return None;
        }
        let mut file = record::lines::regular_file(&real).ok()?;
        file.seek(SeekFrom::Start(offset.at)).ok()?;
        let mut chunk = Vec::new();
        file.take(SCAN_BYTES).read_to_end(&mut chunk).ok()?;
        Some(chunk)
    }
}

/// How far a followed file has been read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Offset {
    /// Bytes read.
    at: u64,
    /// Inside a line longer than [`SCAN_BYTES`], skipped to its end.
    skipping: bool,
}

/// The most bytes a scan reads of one file; a longer line is skipped, not waited for.
pub const SCAN_BYTES: u64 = 8 << 20;

/// The complete lines in `chunk`, read at `offset` of a file (at most [`SCAN_BYTES`]),
/// and where the next scan starts. Each scan moves on: the end of a line skipped as too
/// long is looked for in the next bytes, and a full chunk with no line break starts
/// such a skip (the live view leaves that line out; the log keeps it).
fn complete_lines(chunk: &[u8], offset: Offset) -> (&[u8], Offset) {
    let mut start = 0;
    if offset.skipping {
        match chunk.iter().position(|&b| b == b'\n') {
            Some(end) => start = end + 1,
            None => {
                return (
                    &[],
                    Offset {
                        at: offset.at + chunk.len() as u64,
                        skipping: true,
                    },
                )
            }
        }
    }
    let rest = &chunk[start..];
    match rest.iter().rposition(|&b| b == b'\n') {
        Some(end) => (
            &rest[..end],
            Offset {
                at: offset.at + (start + end + 1) as u64,
                skipping: false,
            },
        ),
        None if chunk.len() as u64 >= SCAN_BYTES => (
            &[],
            Offset {
                at: offset.at + chunk.len() as u64,
                skipping: true,
            },
        ),
        None => (
            &[],
            Offset {
                at: offset.at + start as u64,
                skipping: false,
            },
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_follower_moves_on_past_a_line_too_long_to_scan() {
        let start = Offset::default();
        // Whole lines are taken, a torn last one waits for its end.
        let (lines, next) = complete_lines(b"{\"a\":1}\n{\"b\"", start);
        assert_eq!((lines, next), (&b"{\"a\":1}"[..], Offset { at: 8, skipping: false }));
        let (lines, again) = complete_lines(b"{\"b\"", next);
        assert_eq!((lines.len(), again), (0, next), "a short torn line is read again");
        // A full scan with no line break is skipped, and the line after it is read.
        let long = vec![b'x'; SCAN_BYTES as usize];
        let (lines, skipping) = complete_lines(&long, start);
        assert_eq!(
            (lines.len(), skipping),
            (
                0,
                Offset {
                    at: SCAN_BYTES,
                    skipping: true
                }
            )
        );
        let (lines, after) = complete_lines(b"xx\n{\"c\":3}\n", skipping);
        assert_eq!(lines, &b"{\"c\":3}"[..]);
        assert_eq!(
            after,
            Offset {
                at: SCAN_BYTES + 11,
                skipping: false
            }
        );
    }
}
