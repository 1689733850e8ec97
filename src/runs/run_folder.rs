//! Run folders: one per run (eval, play, probe, tournament, a game in the browser),
//! created atomically under a name no other run has, locked while a process writes
//! it, holding `run.json`, the game logs and the results.
//!
//! A run folder is never shared by accident: a new run gets a fresh folder (two runs
//! started in the same second get `-2`, `-3` ... suffixes, decided by the file system,
//! not by a check-then-create race); a folder given by the user must be new or empty;
//! an existing run is only reopened to resume it; and a second process on a folder
//! that one is writing is refused while the first holds the lock.
//!
//! Its files are written here, each by one method, from their types: run.json from a
//! [`RunFile`], results.json from [`RunResults`], decisions.jsonl from [`PairingStop`]s.

use record::is_game_or_set_aside_log;
use std::fs::{File, OpenOptions, TryLockError};
use std::io::{ErrorKind, Read, Write};
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::Value;

use crate::{PairingStop, ReadRunError, Resume, RunFile, RunResults};

/// The lock file inside a run folder, held by the process writing the run.
pub const LOCK_FILE: &str = ".lock";

/// A run folder held by this process: created or reopened, and locked until dropped.
#[derive(Debug)]
pub struct RunFolder {
    path: PathBuf,
    /// Held for the folder's lifetime; the operating system releases the lock when the
    /// process ends, however it ends.
    _lock: File,
}

/// Why a run folder could not be created, reopened or written.
#[derive(Debug, thiserror::Error)]
pub enum RunFolderError {
    /// The folder holds files already.
    #[error(
        "the folder {path} is not empty (a run's logs are never overwritten): give a new folder, \
         or resume the run in it"
    )]
    NotEmpty {
        /// The folder.
        path: PathBuf,
    },
    /// The path exists and is not a folder.
    #[error("{path} exists and is not a folder: give a new folder")]
    NotAFolder {
        /// The path.
        path: PathBuf,
    },
    /// Another process holds the folder's lock.
    #[error(
        "{path} is being written by another othello-arena process ({holder}): wait for it to \
         finish or stop it first"
    )]
    Locked {
        /// The folder.
        path: PathBuf,
        /// What the lock file says about its holder.
        holder: String,
    },
    /// The folder to resume has no run.json.
    #[error("{path} is not a run folder (it has no run.json): give a folder a run made")]
    NotARun {
        /// The folder.
        path: PathBuf,
    },
    /// The folder's run.json cannot be read back.
    #[error(transparent)]
    Run(#[from] ReadRunError),
    /// A file system call failed.
    #[error("cannot {action} {path}")]
    Io {
        /// What was being done.
        action: &'static str,
        /// The file or folder.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
}

fn io_error(action: &'static str, path: &Path) -> impl FnOnce(std::io::Error) -> RunFolderError {
    let path = path.to_path_buf();
    move |source| RunFolderError::Io { action, path, source }
}

impl RunFolder {
    /// A new run folder at `dir`, which must not exist yet or be empty. A refused
    /// folder is left as it was (no lock file is left in it).
    pub fn create_at(dir: &Path) -> Result<RunFolder, RunFolderError> {
        if let Some(parent) = dir.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent).map_err(io_error("create the folder", parent))?;
        }
        match std::fs::create_dir(dir) {
            Ok(()) => {}
            Err(e) if e.kind() == ErrorKind::AlreadyExists => {
                if !dir.is_dir() {
                    return Err(RunFolderError::NotAFolder {
                        path: dir.to_path_buf(),
                    });
                }
            }
            Err(e) => return Err(io_error("create the run folder", dir)(e)),
        }
        let holds_files = || -> Result<bool, RunFolderError> {
            let mut entries = std::fs::read_dir(dir).map_err(io_error("read the folder", dir))?;
            Ok(entries.any(|e| e.map_or(true, |e| e.file_name() != LOCK_FILE)))
        };
        if holds_files()? {
            return Err(RunFolderError::NotEmpty {
                path: dir.to_path_buf(),
            });
        }
        // Lock, then look again: of two processes given the same empty folder, one wins
        // the lock and the other is refused, never both writing.
        let had_lock = dir.join(LOCK_FILE).exists();
        let folder = RunFolder::lock(dir)?;
        if holds_files()? {
            drop(folder);
            if !had_lock {
                let _ = std::fs::remove_file(dir.join(LOCK_FILE));
            }
            return Err(RunFolderError::NotEmpty {
                path: dir.to_path_buf(),
            });
        }
        Ok(folder)
    }

    /// A new run folder `<parent>/<stamp>-<label>`, or with `-2`, `-3` ... when another
    /// run took that name; the file system's create decides who gets a name.
    pub fn create_in(parent: &Path, label: &str) -> Result<RunFolder, RunFolderError> {
        std::fs::create_dir_all(parent).map_err(io_error("create the folder", parent))?;
        let stem = format!("{}-{}", utc_now().1, file_name_safe(label));
        for n in 1u32.. {
            let name = if n == 1 { stem.clone() } else { format!("{stem}-{n}") };
            let path = parent.join(name);
            match std::fs::create_dir(&path) {
                Ok(()) => return RunFolder::lock(&path),
                Err(e) if e.kind() == ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(io_error("create the run folder", &path)(e)),
            }
        }
        unreachable!("some suffix is free")
    }

    /// An existing run reopened to resume it: it must hold a run.json, and no other
    /// process may be writing it.
    pub fn resume(dir: &Path) -> Result<RunFolder, RunFolderError> {
        if !dir.join("run.json").is_file() {
            return Err(RunFolderError::NotARun {
                path: dir.to_path_buf(),
            });
        }
        RunFolder::lock(dir)
    }

    /// An existing folder held while this process writes a file into it from outside
    /// its run (`rate`'s values): refused ([`RunFolderError::Locked`]) while a run in
    /// progress holds it.
    pub fn hold(dir: &Path) -> Result<RunFolder, RunFolderError> {
        RunFolder::lock(dir)
    }

    fn lock(dir: &Path) -> Result<RunFolder, RunFolderError> {
        let path = dir.join(LOCK_FILE);
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(io_error("open the lock file", &path))?;
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                let mut holder = String::new();
                let _ = file.read_to_string(&mut holder);
                let holder = match holder.trim() {
                    "" => "pid unknown".to_string(),
                    text => text.to_string(),
                };
                return Err(RunFolderError::Locked {
                    path: dir.to_path_buf(),
                    holder,
                });
            }
            Err(TryLockError::Error(e)) => return Err(io_error("lock", &path)(e)),
        }
        file.set_len(0).map_err(io_error("write the lock file", &path))?;
        writeln!(file, "pid {}", std::process::id()).map_err(io_error("write the lock file", &path))?;
        Ok(RunFolder {
            path: dir.to_path_buf(),
            _lock: file,
        })
    }

    /// The folder.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Writes `text` to `name` in the folder through a temporary file and a rename, so
    /// a reader (or a crash) never sees half of it.
    pub fn write_text(&self, name: &str, text: &str) -> Result<(), RunFolderError> {
        let path = self.path.join(name);
        let temporary = self.path.join(format!(".{name}.tmp"));
        std::fs::write(&temporary, text).map_err(io_error("write", &temporary))?;
        std::fs::rename(&temporary, &path).map_err(io_error("write", &path))
    }

    /// Writes `value` as pretty JSON to `name` in the folder (see [`Self::write_text`]).
    fn write_json(&self, name: &str, value: &Value) -> Result<(), RunFolderError> {
        let text = serde_json::to_string_pretty(value).expect("a JSON value always serializes");
        self.write_text(name, &(text + "\n"))
    }

    /// Writes `run` to the folder's run.json (created, or replaced as a whole).
    pub fn write_run(&self, run: &RunFile) -> Result<(), RunFolderError> {
        self.write_json("run.json", &run.to_json())
    }

    /// Adds `resume` to the `resumes` of the folder's run.json: every resume of a run
    /// is recorded, in order.
    pub fn add_resume(&self, resume: Resume) -> Result<(), RunFolderError> {
        let mut run = RunFile::read(&self.path)?;
        run.resumes.push(resume);
        self.write_run(&run)
    }

    /// Writes `results` to the folder's results.json (replacing an earlier session's).
    pub fn write_results(&self, results: &RunResults) -> Result<(), RunFolderError> {
        self.write_json("results.json", &results.to_json())
    }

    /// Writes a stop rule's answer at every pair boundary to the folder's
    /// decisions.jsonl, one line each.
    pub fn write_decisions(&self, decisions: &[PairingStop]) -> Result<(), RunFolderError> {
        let mut text = String::new();
        for step in decisions {
            text.push_str(&serde_json::to_string(step).expect("a decision has string keys only"));
            text.push('\n');
        }
        self.write_text("decisions.jsonl", &text)
    }
}

/// Why an output path was refused.
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    /// The output is one of the command's inputs.
    #[error("it is the input {input}: write the output elsewhere")]
    IsAnInput {
        /// The input, as resolved.
        input: PathBuf,
    },
    /// The output lies in a folder the command reads.
    #[error("it lies inside the input folder {input}: write the output outside the runs")]
    InsideAnInput {
        /// The folder, as resolved.
        input: PathBuf,
    },
    /// The output lies in a run folder.
    #[error("it lies inside the run folder {run}, whose files are never overwritten: write the output elsewhere")]
    InsideARun {
        /// The run folder, as resolved.
        run: PathBuf,
    },
    /// The output is a folder.
    #[error("it is a folder: give a file name")]
    IsAFolder,
    /// The output is a block device or a socket, which no output is written to.
    #[error("it is a {kind}: give a file name (or a FIFO or a character device such as /dev/stdout)")]
    Unsupported {
        /// What it is: "block device" or "socket".
        kind: &'static str,
    },
    /// The output is a link to nothing: writing would create its target somewhere else.
    #[error("it is a link whose target does not exist: give the target's path, or a plain file name")]
    DanglingLink,
    /// The output cannot be written.
    #[error("it cannot be written: give a path in a folder you can write")]
    NotWritable {
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
}

/// Checks, before any work, that an output file may be written at `output`: it is
/// not one of `inputs` (files or folders the command reads or writes), does not lie
/// inside one of those folders or inside any run folder, through links too, unless it
/// is one of `owned` (files the command itself keeps there); it is not a block device
/// or a socket; and it can be written. A file that did not exist is not left behind by
/// the check, and a FIFO is not opened (its reader would see the end of the data
/// before any was written): its writer waits for the reader.
pub fn check_output(output: &Path, inputs: &[&Path], owned: &[PathBuf]) -> Result<(), OutputError> {
    if output.is_symlink() && !output.exists() {
        return Err(OutputError::DanglingLink);
    }
    let resolved = resolve(output);
    if resolved.is_dir() {
        return Err(OutputError::IsAFolder);
    }
    if !owned.iter().any(|o| resolve(o) == resolved) {
        for input in inputs {
            let Ok(input) = std::fs::canonicalize(input) else {
                continue;
            };
            if resolved == input {
                return Err(OutputError::IsAnInput { input });
            }
            if input.is_dir() && resolved.starts_with(&input) {
                return Err(OutputError::InsideAnInput { input });
            }
        }
        if let Some(run) = resolved.ancestors().skip(1).find(|dir| is_run_folder(dir)) {
            return Err(OutputError::InsideARun { run: run.to_path_buf() });
        }
    }
    let kind = std::fs::metadata(&resolved).map(|meta| meta.file_type()).ok();
    match kind {
        Some(kind) if kind.is_block_device() => return Err(OutputError::Unsupported { kind: "block device" }),
        Some(kind) if kind.is_socket() => return Err(OutputError::Unsupported { kind: "socket" }),
        Some(kind) if kind.is_fifo() => return Ok(()),
        _ => {}
    }
    OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(false)
        .open(&resolved)
        .map_err(|source| OutputError::NotWritable { source })?;
    if kind.is_none() {
        let _ = std::fs::remove_file(&resolved);
    }
    Ok(())
}

/// Whether `dir` holds a run: a run.json, a lock file or a game log.
fn is_run_folder(dir: &Path) -> bool {
    dir.join("run.json").is_file()
        || dir.join(LOCK_FILE).is_file()
        || std::fs::read_dir(dir).is_ok_and(|entries| {
            entries
                .filter_map(Result::ok)
                .any(|e| is_game_or_set_aside_log(&e.path()))
        })
}

/// `path` with its links and `..` resolved as far as it exists: the folder it would be
/// written in, canonical, joined with its name (a link at the path itself followed).
fn resolve(path: &Path) -> PathBuf {
    if let Ok(full) = std::fs::canonicalize(path) {
        return full;
    }
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    match (absolute.parent(), absolute.file_name()) {
        (Some(parent), Some(name)) => std::fs::canonicalize(parent).map_or(absolute.clone(), |p| p.join(name)),
        _ => absolute,
    }
}

/// `label` with every character but ASCII letters, digits, `.` and `-` turned into `_`.
fn file_name_safe(label: &str) -> String {
    label
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// `YYYY-MM-DDTHH:MM:SSZ` and `YYYYMMDD-HHMMSS` for the current UTC time.
pub fn utc_now() -> (String, String) {
    let secs = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs()) as i64;
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let (h, m, s) = (rem / 3600, rem % 3600 / 60, rem % 60);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (
        format!("{year:04}-{month:02}-{day:02}T{h:02}:{m:02}:{s:02}Z"),
        format!("{year:04}{month:02}{day:02}-{h:02}{m:02}{s:02}"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("othello-run-folder-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    #[test]
    fn utc_stamp_has_the_expected_shape() {
        let (iso, compact) = utc_now();
        assert_eq!(iso.len(), 20);
        assert!(iso.ends_with('Z') && iso.as_bytes()[10] == b'T');
        assert_eq!(compact.len(), 15);
        assert!(iso.starts_with("20"));
    }

    #[test]
    fn runs_started_in_the_same_second_get_folders_of_their_own() {
        let parent = scratch("same-second");
        let folders: Vec<RunFolder> = (0..5)
            .map(|_| RunFolder::create_in(&parent, "m:1/x").unwrap())
            .collect();
        let mut paths: Vec<&Path> = folders.iter().map(RunFolder::path).collect();
        paths.sort();
        paths.dedup();
        assert_eq!(paths.len(), 5, "five runs, five folders");
        assert!(paths
            .iter()
            .all(|p| p.file_name().unwrap().to_str().unwrap().contains("-m_1_x")));
        let _ = std::fs::remove_dir_all(parent);
    }

    #[test]
    fn a_given_folder_must_be_new_or_empty() {
        let dir = scratch("given");
        drop(RunFolder::create_at(&dir).expect("a new folder"));
        drop(RunFolder::create_at(&dir).expect("an empty folder (its old lock file aside)"));
        std::fs::write(dir.join("game-0001.jsonl"), "{}\n").unwrap();
        let error = RunFolder::create_at(&dir).unwrap_err();
        assert!(matches!(error, RunFolderError::NotEmpty { .. }), "{error}");
        let notes = scratch("notes");
        std::fs::create_dir_all(&notes).unwrap();
        std::fs::write(notes.join("todo.txt"), "mine\n").unwrap();
        assert!(RunFolder::create_at(&notes).is_err());
        assert!(!notes.join(LOCK_FILE).exists(), "a refused folder is left as it was");
        check_output(&notes.join("table.csv"), &[], &[]).expect("a folder that holds no run is no run");
        let _ = std::fs::remove_dir_all(notes);
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn a_folder_being_written_is_refused_to_a_second_writer() {
        let dir = scratch("locked");
        let first = RunFolder::create_at(&dir).unwrap();
        first.write_text("run.json", "{}\n").unwrap();
        let error = RunFolder::resume(&dir).unwrap_err();
        assert!(
            matches!(&error, RunFolderError::Locked { holder, .. } if holder.contains(&std::process::id().to_string())),
            "{error}"
        );
        drop(first);
        RunFolder::resume(&dir).expect("free once the first writer is done");
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn an_output_is_refused_on_an_input_inside_a_run_or_through_a_link() {
        let root = scratch("outputs");
        let run = RunFolder::create_at(&root.join("run")).unwrap();
        run.write_text("run.json", "{}\n").unwrap();
        let positions = root.join("positions.jsonl");
        std::fs::write(&positions, "{}\n").unwrap();
        let refused = |output: &Path, inputs: &[&Path]| check_output(output, inputs, &[]).unwrap_err().to_string();
        assert!(refused(&positions, &[&positions]).contains("is the input"));
        assert!(refused(&run.path().join("game-0001.jsonl"), &[run.path()]).contains("inside the input folder"));
        assert!(refused(&run.path().join("table.csv"), &[]).contains("inside the run folder"));
        std::os::unix::fs::symlink(run.path(), root.join("link")).unwrap();
        assert!(refused(&root.join("link/run.json"), &[]).contains("inside the run folder"));
        assert!(refused(&root.join("link/../positions.jsonl"), &[&positions]).contains("is the input"));
        assert!(refused(&root, &[]).contains("is a folder"));
        std::os::unix::fs::symlink(run.path().join("new.csv"), root.join("dangling")).unwrap();
        assert!(refused(&root.join("dangling"), &[]).contains("target does not exist"));
        assert!(
            !run.path().join("new.csv").exists(),
            "the check creates nothing through the link"
        );
        assert!(refused(&root.join("missing/x.csv"), &[]).contains("cannot be written"));
        let owned = run.path().join("results.csv");
        check_output(&owned, &[run.path()], std::slice::from_ref(&owned)).expect("a file the command keeps");
        check_output(&root.join("table.csv"), &[run.path()], &[]).expect("beside the run");
        assert!(!root.join("table.csv").exists(), "the check leaves no file behind");
        let _ = std::fs::remove_dir_all(root);
    }

    #[test]
    fn an_output_may_be_a_fifo_or_a_device_but_not_a_socket() {
        let root = scratch("streams");
        std::fs::create_dir_all(&root).unwrap();
        let fifo = root.join("fifo");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status().unwrap();
        assert!(made.success());
        // No reader: opening it to write would wait for ever.
        check_output(&fifo, &[], &[]).expect("a FIFO is checked without opening it");
        check_output(Path::new("/dev/null"), &[], &[]).expect("a character device");
        let socket = root.join("socket");
        let _listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
        let refused = check_output(&socket, &[], &[]).unwrap_err().to_string();
        assert!(refused.contains("it is a socket"), "{refused}");
        let _ = std::fs::remove_dir_all(root);
    }
}
