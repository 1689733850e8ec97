//! Where a client's games are logged (`mcp --log-dir`, `mcp --runs`): the run's own
//! folder, as `eval --log-dir` means it, or a new run folder under a folder of runs, as
//! `serve --runs` means it. Both are checked before the server serves, so a bad path
//! is refused at startup rather than at the client's first call.

use std::path::{Path, PathBuf};

use runs::{RunFolder, RunFolderError, LOCK_FILE};

/// Where a client's run goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ClientRun {
    /// The run's own folder: new, or empty.
    At(PathBuf),
    /// A folder of runs: the run goes to a new folder under it, named after the
    /// client's player.
    Under(PathBuf),
}

impl ClientRun {
    /// The place `--log-dir` (the run's own folder) or else `--runs` (a folder of runs)
    /// names, and a note when it reads `--log-dir` as a folder of runs: a folder that
    /// already holds files but no run.json is one (the meaning `mcp --log-dir` had
    /// before), so a setup written for that keeps working.
    pub fn from_flags(log_dir: Option<&Path>, runs: &Path) -> (ClientRun, Option<String>) {
        let Some(dir) = log_dir else {
            return (ClientRun::Under(runs.to_path_buf()), None);
        };
        if holds_files(dir) && !dir.join("run.json").exists() {
            let note = format!(
                "--log-dir {0} holds files already, so it is read as a folder of runs: the games go to a new \
                 run folder under it (say --runs {0} for that, or give --log-dir a new folder for the run itself)",
                dir.display()
            );
            return (ClientRun::Under(dir.to_path_buf()), Some(note));
        }
        (ClientRun::At(dir.to_path_buf()), None)
    }

    /// The folder this names is usable: the run's own folder is created (empty, or
    /// holding only a lock file) and released; a folder of runs is created and written
    /// in once. What it refuses names the path.
    pub fn check(&self) -> Result<(), RunFolderError> {
        match self {
            ClientRun::At(dir) => RunFolder::create_at(dir).map(drop),
            ClientRun::Under(dir) => {
                let io = |action| {
                    let path = dir.clone();
                    move |source| RunFolderError::Io { action, path, source }
                };
                std::fs::create_dir_all(dir).map_err(io("create the folder"))?;
                let probe = dir.join(format!(".write-check-{}", std::process::id()));
                std::fs::write(&probe, b"").map_err(io("write in the folder"))?;
                std::fs::remove_file(&probe).map_err(io("write in the folder"))
            }
        }
    }

    /// The run folder for `label`'s games, created.
    pub fn open(&self, label: &str) -> Result<RunFolder, RunFolderError> {
        match self {
            ClientRun::At(dir) => RunFolder::create_at(dir),
            ClientRun::Under(dir) => RunFolder::create_in(dir, label),
        }
    }
}

/// Whether `dir` is a folder that holds a file other than a run folder's lock.
fn holds_files(dir: &Path) -> bool {
    std::fs::read_dir(dir).is_ok_and(|mut entries| entries.any(|e| e.map_or(true, |e| e.file_name() != LOCK_FILE)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_dir_is_the_run_unless_it_already_holds_other_files() {
        let root = std::env::temp_dir().join(format!("othello-client-run-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let runs = root.join("runs");
        assert_eq!(
            ClientRun::from_flags(None, &runs),
            (ClientRun::Under(runs.clone()), None)
        );
        let new = root.join("new");
        assert_eq!(
            ClientRun::from_flags(Some(&new), &runs),
            (ClientRun::At(new.clone()), None)
        );
        ClientRun::At(new.clone()).check().unwrap();
        assert_eq!(ClientRun::from_flags(Some(&new), &runs).0, ClientRun::At(new.clone()));
        std::fs::create_dir_all(runs.join("an-old-run")).unwrap();
        let (place, note) = ClientRun::from_flags(Some(&runs), &root);
        assert_eq!(place, ClientRun::Under(runs.clone()));
        assert!(note.unwrap().contains("--runs"));
        std::fs::write(new.join("run.json"), "{}").unwrap();
        assert_eq!(ClientRun::from_flags(Some(&new), &runs).0, ClientRun::At(new.clone()));
        assert!(ClientRun::At(new).check().is_err());
        let file = root.join("file");
        std::fs::write(&file, "").unwrap();
        assert!(ClientRun::At(file.clone()).check().is_err());
        assert!(ClientRun::Under(file).check().is_err());
        let _ = std::fs::remove_dir_all(&root);
    }
}
