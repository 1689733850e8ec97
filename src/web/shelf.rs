//! Result bundles in the runs folder, read back for the watch and ratings pages: each
//! file of the folder that is a bundle ([`runs::is_bundle`]) is opened once (every
//! entry checked against its manifest, unpacked into a temporary folder of its own) and
//! kept while its size and modification time stay the same. Its runs are listed and
//! served as `FILE:RUN` (the bundle's file name, a colon, the run's folder name), and
//! never as running: a bundle is sealed.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::SystemTime;

use runs::{is_bundle, Bundle};

use super::guard::{resolve, PathRefused};

/// The bundles of one runs folder, opened as they are asked for.
#[derive(Default)]
pub(crate) struct Shelf {
    open: Mutex<BTreeMap<String, Shelved>>,
}

/// A bundle opened (or why it could not be), with the stamp of the file it was opened
/// from: a file that fails to open is not read again until it changes.
struct Shelved {
    stamp: (u64, Option<SystemTime>),
    bundle: Result<Arc<Bundle>, String>,
}

/// Where a run's files are: its folder, and the folder its game logs must stay inside
/// (the runs folder, or the folder a bundle was unpacked into).
pub(crate) struct RunPlace {
    /// The run's folder.
    pub dir: PathBuf,
    /// The folder its files must resolve inside.
    pub root: PathBuf,
    /// The bundle it was read from, held so that its folder stays while in use.
    _bundle: Option<Arc<Bundle>>,
}

/// The size and modification time of the file at `path`.
fn stamp(path: &Path) -> (u64, Option<SystemTime>) {
    std::fs::metadata(path).map_or((0, None), |m| (m.len(), m.modified().ok()))
}

impl RunPlace {
    /// The file `name` of the run, resolved as the runs folder's names are: a plain
    /// name that, links resolved, stays inside [`RunPlace::root`].
    pub(crate) fn file(&self, name: &str) -> Result<PathBuf, PathRefused> {
        let within = self.dir.strip_prefix(&self.root).unwrap_or(&self.dir);
        let mut names: Vec<String> = within.iter().map(|part| part.to_string_lossy().into_owned()).collect();
        names.push(name.to_string());
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        resolve(&self.root, &names)
    }
}

impl Shelf {
    /// The bundle called `file` in the runs folder `root`, opened now or as opened
    /// before; why not, as a sentence.
    fn bundle(&self, root: &Path, file: &str) -> Result<Arc<Bundle>, String> {
        let path = resolve(root, &[file]).map_err(|e| e.to_string())?;
        if !is_bundle(&path) {
            return Err(format!("{file} is not a result bundle"));
        }
        let now = stamp(&path);
        let mut open = self.open.lock().unwrap_or_else(PoisonError::into_inner);
        // Kept while the file is unchanged and its folder is still there (a cleaner of
        // the temporary folder may remove it under a long-running server).
        let kept = |s: &&Shelved| s.stamp == now && s.bundle.as_ref().map_or(true, |b| b.root().is_dir());
        if let Some(shelved) = open.get(file).filter(kept) {
            return shelved.bundle.clone();
        }
        let bundle = Bundle::open(&path).map(Arc::new).map_err(|e| format!("{file}: {e}"));
        open.insert(
            file.to_string(),
            Shelved {
                stamp: now,
                bundle: bundle.clone(),
            },
        );
        bundle
    }

    /// Every bundle in the runs folder `root`, by file name, and a note for each file
    /// that starts as a bundle but does not read as one.
    pub(crate) fn all(&self, root: &Path) -> (Vec<(String, Arc<Bundle>)>, Vec<String>) {
        let mut bundles = Vec::new();
        let mut notes = Vec::new();
        let files = std::fs::read_dir(root).into_iter().flatten().flatten();
        for path in files.map(|entry| entry.path()).filter(|path| is_bundle(path)) {
            let file = path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            match self.bundle(root, &file) {
                Ok(bundle) => bundles.push((file, bundle)),
                Err(why) => notes.push(format!(
                    "{why}: its runs are not listed (check it with `othello-arena verify {file}`)"
                )),
            }
        }
        // A bundle no longer in the folder is let go (its unpacked folder removed once no
        // request holds it).
        let mut open = self.open.lock().unwrap_or_else(PoisonError::into_inner);
        open.retain(|file, _| bundles.iter().any(|(listed, _)| listed == file));
        bundles.sort_by(|a, b| a.0.cmp(&b.0));
        (bundles, notes)
    }

    /// The run `name` names in the runs folder `root`: a run folder under it, or
    /// `FILE:RUN`, a run of a bundle in it.
    pub(crate) fn place(&self, root: &Path, name: &str) -> Result<RunPlace, PathRefused> {
        let folder = resolve(root, &[name]);
        let (Some((file, run)), false) = (name.split_once(':'), folder.as_ref().is_ok_and(|dir| dir.is_dir())) else {
            return match folder? {
                dir if dir.is_dir() => Ok(RunPlace {
                    dir,
                    root: root.to_path_buf(),
                    _bundle: None,
                }),
                _ => Err(PathRefused::Outside(name.to_string())),
            };
        };
        let outside = || PathRefused::Outside(name.to_string());
        let bundle = self.bundle(root, file).map_err(|_| outside())?;
        let unpacked = std::fs::canonicalize(bundle.root()).map_err(|_| outside())?;
        let dir = bundle
            .run_dirs()
            .into_iter()
            .find(|dir| dir.file_name().is_some_and(|name| name == run))
            .and_then(|dir| std::fs::canonicalize(dir).ok())
            .filter(|dir| dir.starts_with(&unpacked) && dir.is_dir())
            .ok_or_else(outside)?;
        Ok(RunPlace {
            dir,
            root: unpacked,
            _bundle: Some(bundle),
        })
    }
}
