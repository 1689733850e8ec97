//! A folder of runs listed, as `serve`'s watch page shows it: each run folder with its
//! command, creation time, games, results, and whether it is running (a guess from its
//! files: no results.json, and a game log written lately that has not ended); a run's
//! game logs, and each game at a glance. The page maps these to HTTP and JSON.

use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use record::{is_game_log, Event};
use serde::Serialize;

use crate::{Bundle, RunFile};

/// A run whose files changed this recently is taken as running.
pub const LIVE_WITHIN: Duration = Duration::from_secs(30);

/// At most this many runs are listed.
pub const MAX_LISTED_RUNS: usize = 500;

/// The runs of a folder of runs, newest first, and what the list left out.
#[derive(Debug, Serialize)]
pub struct RunList {
    /// The run folders.
    pub runs: Vec<ListedRun>,
    /// Entries left out of the list, one sentence each (a link out of the folder).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// One run folder as the list shows it.
#[derive(Debug, Serialize)]
pub struct ListedRun {
    /// The folder's name (`FILE:RUN` for a run of a bundle).
    pub name: String,
    /// run.json's `command` (`None` when run.json cannot be read).
    pub command: Option<&'static str>,
    /// run.json's `created_utc`.
    pub created_utc: Option<String>,
    /// Its game logs.
    pub games: usize,
    /// Whether it seems to be running ([`is_running`]).
    pub running: bool,
    /// Whether it has results.json.
    pub has_results: bool,
}

/// A game log at a glance.
#[derive(Debug, Serialize)]
pub struct GameGlance {
    /// The log's file name.
    pub file: Option<String>,
    /// The black player.
    pub black: Option<String>,
    /// The white player.
    pub white: Option<String>,
    /// The ply it reached, opening moves included.
    pub plies: usize,
    /// `[black discs, white discs, winner]`, or `[null, null, what ended it]`.
    pub end: Option<(Option<u32>, Option<u32>, String)>,
}

/// The run folders under `root` and the runs of the `bundles` read from it (at most
/// [`MAX_LISTED_RUNS`], newest first): each entry whose name `resolve` takes (a plain
/// name that, links resolved, stays inside `root`) and that holds a run.json; a link
/// `resolve` refuses is named in a note. A bundle's run is named `FILE:RUN` (the
/// bundle's file name in `root`, then its folder's name) and is never running.
pub fn list_runs(
    root: &Path,
    resolve: &dyn Fn(&str) -> Option<PathBuf>,
    bundles: &[(&str, &Bundle)],
) -> std::io::Result<RunList> {
    let mut runs = Vec::new();
    let mut notes = Vec::new();
    for entry in std::fs::read_dir(root)?.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(dir) = resolve(&name) else {
            if entry.file_type().is_ok_and(|t| t.is_symlink()) {
                notes.push(format!(
                    "{name} is a link out of the runs folder, which serve does not follow: copy the run in, \
                     or start serve with --runs at the folder it lies in"
                ));
            }
            continue;
        };
        if !dir.is_dir() || !dir.join("run.json").is_file() {
            continue;
        }
        let logs = folder_game_logs(root, &dir);
        let running = is_running(&dir, &logs);
        runs.push(ListedRun::of(name, &dir, &logs, running));
    }
    for (file, bundle) in bundles {
        let Ok(unpacked) = std::fs::canonicalize(bundle.root()) else {
            notes.push(format!(
                "{file}: the folder it was read into is gone; it is read again next time"
            ));
            continue;
        };
        for dir in bundle.run_dirs() {
            let name = format!("{file}:{}", dir.file_name().unwrap_or_default().to_string_lossy());
            runs.push(ListedRun::of(name, &dir, &folder_game_logs(&unpacked, &dir), false));
        }
    }
    runs.sort_by(|a, b| (&b.created_utc, &b.name).cmp(&(&a.created_utc, &a.name)));
    runs.truncate(MAX_LISTED_RUNS);
    notes.sort();
    Ok(RunList { runs, notes })
}

impl ListedRun {
    /// The run folder `dir` called `name`, with its game `logs`.
    fn of(name: String, dir: &Path, logs: &[PathBuf], running: bool) -> ListedRun {
        let run = RunFile::read(dir).ok();
        ListedRun {
            command: run.as_ref().map(|run| run.run.command()),
            created_utc: run.map(|run| run.created_utc),
            name,
            games: logs.len(),
            running,
            has_results: dir.join("results.json").is_file(),
        }
    }
}

/// Whether the run folder `dir` (its game `logs`) seems to be running: it has no
/// results.json, and a log written within [`LIVE_WITHIN`] has not ended its play (or,
/// before any game, its run.json was written that lately).
pub fn is_running(dir: &Path, logs: &[PathBuf]) -> bool {
    let recent = |p: &Path| modified(p).is_some_and(|t| t.elapsed().unwrap_or_default() < LIVE_WITHIN);
    !dir.join("results.json").exists()
        && (logs.iter().any(|log| recent(log) && !finished(log)) || (logs.is_empty() && recent(&dir.join("run.json"))))
}

/// The game logs of the run folder `dir`, sorted; a log that is a link out of the
/// folder of runs `root` is left out (its file is never read).
pub fn folder_game_logs(root: &Path, dir: &Path) -> Vec<PathBuf> {
    let mut logs: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| is_game_log(p) && std::fs::canonicalize(p).is_ok_and(|real| real.starts_with(root)))
        .collect();
    logs.sort();
    logs
}

/// Whether a game log's last complete line ends its play (a line of another format
/// version or a torn one does not).
fn finished(log: &Path) -> bool {
    let Ok(mut file) = record::lines::regular_file(log) else {
        return false;
    };
    let size = file.metadata().map_or(0, |m| m.len());
    let mut tail = Vec::new();
    if file.seek(SeekFrom::Start(size.saturating_sub(64 * 1024))).is_err() || file.read_to_end(&mut tail).is_err() {
        return false;
    }
    let text = String::from_utf8_lossy(&tail);
    let last = text.trim_end().rsplit('\n').next().unwrap_or("");
    record::decode_line(log, 0, last.as_bytes()).is_ok_and(|r| r.event.ends_play())
}

/// When the file at `path` was last written.
fn modified(path: &Path) -> Option<SystemTime> {
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}

impl GameGlance {
    /// What the game log at `path` says at a glance: its players, the ply it reached
    /// (opening moves included) and its result: the score, a forfeit or a stop.
    pub fn read(path: &Path) -> GameGlance {
        let text = record::lines::read_file(path, record::LOG_LINE_CAP, record::LOG_FILE_CAP).unwrap_or_default();
        let (mut black, mut white, mut plies, mut end) = (None, None, 0, None);
        // A line that is not a record of this format (torn, another version) is left out.
        let records = text
            .lines()
            .enumerate()
            .filter_map(|(i, line)| record::decode_line(path, i + 1, line.as_bytes()).ok());
        for record in records {
            match record.event {
                Event::GameStart(start) => (black, white) = (Some(start.black), Some(start.white)),
                // The ply number, opening moves included: what the board's "after N plies" says.
                Event::Move(m) => plies = m.ply,
                Event::GameEnd(e) => end = Some((Some(e.black_discs), Some(e.white_discs), e.winner.to_string())),
                Event::Forfeit(f) => end = Some((None, None, format!("{:?} forfeited", f.color))),
                Event::GameStopped(s) => {
                    end = Some((None, None, format!("stopped before ply {} ({})", s.ply, s.reason)))
                }
                _ => {}
            }
        }
        GameGlance {
            file: path.file_name().map(|n| n.to_string_lossy().into_owned()),
            black,
            white,
            plies,
            end,
        }
    }
}
