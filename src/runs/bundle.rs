//! Result bundles: run folders sealed in one file that anyone can check (docs/bundles.md
//! is the format's specification). A bundle is a tar archive compressed with gzip whose
//! first entry is `manifest.json` ([`Manifest`]: the format and its version, the
//! harness's version and commit, and every other entry's path, size and SHA-256); then
//! each run's files under `runs/<name>/`, the prompt texts its LLM players used under
//! `runs/<name>/prompts/<sha256>.txt`, the engine ladder and the intrinsic calibration
//! the runs were rated with.
//!
//! [`write_bundle`] writes one; [`Bundle::open`] reads one back into a folder of its own
//! (removed when the [`Bundle`] is dropped), bounded: an entry whose header claims more
//! than [`MAX_ENTRY_BYTES`], a bundle past [`MAX_BUNDLE_BYTES`], a path with `..` or a
//! root, a link, an entry the manifest does not list or one whose bytes are not the
//! manifest's is refused, naming the entry, before anything of it is written.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, Read, Write};
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use flate2::read::GzDecoder;
use flate2::write::GzEncoder;
use flate2::Compression;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::{utc_now, ReadRunError, RunFile, PUBLISHED_LADDER, SHIPPED_CALIBRATION};

/// The manifest's `format`.
pub const BUNDLE_FORMAT: &str = "othello-arena-bundle";
/// The manifest's `version`: the layout this build writes and reads.
pub const BUNDLE_VERSION: u32 = 1;
/// The first entry of every bundle.
pub(crate) const MANIFEST: &str = "manifest.json";
/// Where a bundle keeps the engine ladder its runs were rated on.
pub const LADDER_ENTRY: &str = "ladder/ladder-ratings.toml";
/// Where a bundle keeps the intrinsic calibration its runs' intrinsic tables use.
pub const CALIBRATION_ENTRY: &str = "calibration/intrinsic-calibration.toml";
/// The largest entry read back: a game log's own cap ([`record::LOG_FILE_CAP`]).
pub(crate) const MAX_ENTRY_BYTES: u64 = record::LOG_FILE_CAP;
/// The most bytes all entries of a bundle may claim together.
pub(crate) const MAX_BUNDLE_BYTES: u64 = 8 << 30;
/// The most entries read from a bundle.
pub(crate) const MAX_ENTRIES: usize = 1_000_000;
/// The largest manifest read.
const MAX_MANIFEST_BYTES: u64 = 64 << 20;
/// The run folder's lock file, never bundled.
const LOCK_FILE: &str = ".lock";

/// A bundle's `manifest.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// [`BUNDLE_FORMAT`].
    pub format: String,
    /// [`BUNDLE_VERSION`] when written.
    pub version: u32,
    /// The program that wrote the bundle.
    pub harness: BundleHarness,
    /// When the bundle was written, UTC.
    pub created_utc: String,
    /// Each run's folder in the bundle (`runs/<name>`), in the order given.
    pub runs: Vec<String>,
    /// Every entry but the manifest, in archive order.
    pub files: Vec<ManifestFile>,
}

/// The program that wrote a bundle.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BundleHarness {
    /// `othello-arena`.
    pub name: String,
    /// Its version.
    pub version: String,
    /// The git commit it was built from, when the build knew it (`OTHELLO_ARENA_COMMIT`
    /// at build time), else `null`.
    pub commit: Option<String>,
}

/// One entry of a bundle as its manifest lists it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ManifestFile {
    /// Its path in the archive (`/`-separated, relative).
    pub path: String,
    /// Its size in bytes.
    pub size: u64,
    /// The SHA-256 of its bytes, lowercase hex.
    pub sha256: String,
}

/// Why a bundle cannot be written or read back.
#[derive(Debug, thiserror::Error)]
pub enum BundleError {
    /// A file cannot be read or written.
    #[error("cannot {what} {}", .path.display())]
    Io {
        /// What was being done (`read`, `write`, `create`).
        what: &'static str,
        /// The file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: io::Error,
    },
    /// A folder given to bundle is not a run folder.
    #[error("cannot bundle {}: give run folders (each holds a run.json)", .dir.display())]
    NotARun {
        /// The folder.
        dir: PathBuf,
        /// Why its run.json does not read.
        #[source]
        source: ReadRunError,
    },
    /// A run folder holds something that is not a plain file.
    #[error("cannot bundle {}: {problem}", .path.display())]
    Unbundlable {
        /// The path.
        path: PathBuf,
        /// What it is and what to do.
        problem: String,
    },
    /// A file named as a bundle (`.tar.gz`, `.tgz`) that is not gzip.
    #[error(
        "{} is named as a result bundle but is not one (not gzip): give a file `othello-arena bundle` wrote",
        .path.display()
    )]
    NotABundle {
        /// The file.
        path: PathBuf,
    },
    /// An entry of the archive is refused.
    #[error("bad bundle {}: entry {entry}: {problem}", .bundle.display())]
    Entry {
        /// The bundle.
        bundle: PathBuf,
        /// The entry's path as the archive names it.
        entry: String,
        /// What is wrong.
        problem: String,
    },
    /// The manifest is missing, unreadable or of another format.
    #[error("bad bundle {}: {problem}", .bundle.display())]
    Manifest {
        /// The bundle.
        bundle: PathBuf,
        /// What is wrong.
        problem: String,
    },
}

/// A bundle read back and checked against its manifest, its files in a folder of its
/// own that is removed when this is dropped.
#[derive(Debug)]
pub struct Bundle {
    /// The unpacked folder (the manifest's paths are relative to it).
    root: PathBuf,
    /// Its manifest.
    pub manifest: Manifest,
}

impl Drop for Bundle {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

/// Whether `path` names a bundle rather than a run folder or a game log: a plain file
/// that starts as gzip does (a game log never does).
pub fn is_bundle(path: &Path) -> bool {
    let mut magic = [0u8; 2];
    path.is_file() && File::open(path).and_then(|mut f| f.read_exact(&mut magic)).is_ok() && magic == [0x1f, 0x8b]
}

/// Whether `path`'s name is a bundle's (`.tar.gz` or `.tgz`).
fn named_as_bundle(path: &Path) -> bool {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_lowercase())
        .unwrap_or_default();
    name.ends_with(".tar.gz") || name.ends_with(".tgz")
}

/// The SHA-256 of `bytes`, lowercase hex.
pub fn sha256_bytes(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// The harness this build is, as a manifest records it.
pub(crate) fn this_harness() -> BundleHarness {
    BundleHarness {
        name: "othello-arena".to_string(),
        version: env!("CARGO_PKG_VERSION").to_string(),
        commit: option_env!("OTHELLO_ARENA_COMMIT").map(str::to_string),
    }
}

/// The prompt texts the LLM players of `run` used, each with its bundle name
/// (`prompts/<sha256>.txt`, the hash run.json records), once each.
pub fn prompt_files(run: &RunFile) -> BTreeMap<String, String> {
    run.agents()
        .into_iter()
        .flat_map(|(_, agent)| [&agent.system_prompt, &agent.user_template])
        .flatten()
        .map(|prompt| (format!("prompts/{}.txt", prompt.sha256), prompt.text.clone()))
        .collect()
}

/// Where an entry's bytes come from when the bundle is written.
enum Source {
    File(PathBuf),
    Text(String),
}

/// Writes the runs in `dirs` (run folders) as one bundle at `out` (a new file); returns
/// its manifest.
pub fn write_bundle(dirs: &[PathBuf], out: &Path) -> Result<Manifest, BundleError> {
    let mut entries: Vec<(String, Source)> = Vec::new();
    let mut runs = Vec::new();
    for dir in dirs {
        let run = RunFile::read(dir).map_err(|source| BundleError::NotARun {
            dir: dir.clone(),
            source,
        })?;
        let base = dir
            .canonicalize()
            .ok()
            .and_then(|d| d.file_name().map(|n| n.to_string_lossy().into_owned()))
            .unwrap_or_else(|| "run".to_string());
        let mut name = format!("runs/{base}");
        let mut k = 2;
        while runs.contains(&name) {
            name = format!("runs/{base}-{k}");
            k += 1;
        }
        for file in run_files(dir)? {
            let file_name = file
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            entries.push((format!("{name}/{file_name}"), Source::File(file)));
        }
        for (path, text) in prompt_files(&run) {
            entries.push((format!("{name}/{path}"), Source::Text(text)));
        }
        runs.push(name);
    }
    entries.push((LADDER_ENTRY.to_string(), Source::Text(PUBLISHED_LADDER.to_string())));
    entries.push((
        CALIBRATION_ENTRY.to_string(),
        Source::Text(SHIPPED_CALIBRATION.to_string()),
    ));
    let mut files = Vec::new();
    for (path, source) in &entries {
        let (size, sha256) = match source {
            Source::File(file) => hash_file(file)?,
            Source::Text(text) => (text.len() as u64, sha256_bytes(text.as_bytes())),
        };
        files.push(ManifestFile {
            path: path.clone(),
            size,
            sha256,
        });
    }
    let manifest = Manifest {
        format: BUNDLE_FORMAT.to_string(),
        version: BUNDLE_VERSION,
        harness: this_harness(),
        created_utc: utc_now().0,
        runs,
        files,
    };
    write_archive(out, &manifest, &entries)?;
    Ok(manifest)
}

/// The files of the run folder `dir` that a bundle holds: every plain file but the
/// lock, sorted by name; a link or a special file is refused (folders, such as the
/// `prompts/` of a bundle read back, are left out: the prompts come from run.json).
fn run_files(dir: &Path) -> Result<Vec<PathBuf>, BundleError> {
    let io = |source| BundleError::Io {
        what: "read",
        path: dir.to_path_buf(),
        source,
    };
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(io)? {
        let entry = entry.map_err(io)?;
        let kind = entry.file_type().map_err(io)?;
        let path = entry.path();
        if kind.is_dir() || entry.file_name() == LOCK_FILE {
            continue;
        }
        if !kind.is_file() {
            return Err(BundleError::Unbundlable {
                path,
                problem: "not a plain file (a link or a special file): a bundle holds plain files only; \
                          copy the file in, or move it out of the run folder"
                    .to_string(),
            });
        }
        files.push(path);
    }
    files.sort();
    Ok(files)
}

/// The size and SHA-256 of the file at `path`, read once.
fn hash_file(path: &Path) -> Result<(u64, String), BundleError> {
    let io = |source| BundleError::Io {
        what: "read",
        path: path.to_path_buf(),
        source,
    };
    let mut file = File::open(path).map_err(io)?;
    let mut hasher = Sha256::new();
    let size = io::copy(&mut file, &mut HashWriter(&mut hasher)).map_err(io)?;
    Ok((size, hex::encode(hasher.finalize())))
}

/// A writer that only hashes.
struct HashWriter<'a>(&'a mut Sha256);

impl Write for HashWriter<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.update(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Writes the archive: the manifest, then each entry (a file is read again, and
/// refused when it changed since it was hashed).
fn write_archive(out: &Path, manifest: &Manifest, entries: &[(String, Source)]) -> Result<(), BundleError> {
    let io = |source| BundleError::Io {
        what: "write",
        path: out.to_path_buf(),
        source,
    };
    let file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(out)
        .map_err(|source| BundleError::Io {
            what: "create (it must not exist yet)",
            path: out.to_path_buf(),
            source,
        })?;
    let mut tar = tar::Builder::new(GzEncoder::new(io::BufWriter::new(file), Compression::default()));
    let text = serde_json::to_vec_pretty(manifest).expect("a manifest serialises");
    append(&mut tar, MANIFEST, text.len() as u64, &text[..]).map_err(io)?;
    for ((path, source), listed) in entries.iter().zip(&manifest.files) {
        match source {
            Source::Text(text) => append(&mut tar, path, listed.size, text.as_bytes()).map_err(io)?,
            Source::File(file) => {
                let read = |source| BundleError::Io {
                    what: "read",
                    path: file.clone(),
                    source,
                };
                let bytes = std::fs::read(file).map_err(read)?;
                if sha256_bytes(&bytes) != listed.sha256 {
                    return Err(BundleError::Unbundlable {
                        path: file.clone(),
                        problem: "it changed while being bundled: wait for the run to finish, then bundle again"
                            .to_string(),
                    });
                }
                append(&mut tar, path, listed.size, &bytes[..]).map_err(io)?;
            }
        }
    }
    let gz = tar.into_inner().map_err(io)?;
    let mut buffered = gz.finish().map_err(io)?;
    buffered.flush().map_err(io)
}

/// Appends one plain file entry (mode 0644, time 0, so the same runs make the same
/// entries).
fn append<W: Write>(tar: &mut tar::Builder<W>, path: &str, size: u64, data: impl Read) -> io::Result<()> {
    let mut header = tar::Header::new_gnu();
    header.set_size(size);
    header.set_mode(0o644);
    header.set_mtime(0);
    header.set_entry_type(tar::EntryType::Regular);
    tar.append_data(&mut header, path, data)
}

/// Names the unpacked folders of this process apart.
static UNPACKED: AtomicUsize = AtomicUsize::new(0);

impl Bundle {
    /// Reads the bundle at `path` into a new folder under the system's temporary folder,
    /// checking every entry against the manifest as it comes (see the module's doc).
    pub fn open(path: &Path) -> Result<Bundle, BundleError> {
        let root = std::env::temp_dir().join(format!(
            "othello-arena-bundle-{}-{}",
            std::process::id(),
            UNPACKED.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir(&root).map_err(|source| BundleError::Io {
            what: "create",
            path: root.clone(),
            source,
        })?;
        // Removed on every way out, the refusals included.
        let mut bundle = Bundle {
            root,
            manifest: Manifest {
                format: String::new(),
                version: 0,
                harness: this_harness(),
                created_utc: String::new(),
                runs: Vec::new(),
                files: Vec::new(),
            },
        };
        bundle.manifest = Unpacker::new(path, &bundle.root).unpack()?;
        Ok(bundle)
    }

    /// The folder the bundle was read into.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Its run folders, in the manifest's order.
    pub fn run_dirs(&self) -> Vec<PathBuf> {
        self.manifest.runs.iter().map(|run| self.root.join(run)).collect()
    }

    /// The bytes of the entry `path` (a manifest path), when the bundle holds it.
    pub fn entry_text(&self, path: &str) -> Option<String> {
        self.manifest
            .files
            .iter()
            .any(|f| f.path == path)
            .then(|| std::fs::read_to_string(self.root.join(path)).ok())
            .flatten()
    }
}

/// The paths a reader was given (run folders, game logs, bundles) with each bundle
/// read back ([`Bundle::open`], every entry checked against its manifest) and replaced
/// by its run folders, which live as long as this: how `rate` and the other readers take
/// a bundle as they take a run folder.
#[derive(Debug, Default)]
pub struct RunInputs {
    /// The run folders and logs to read, in the order given.
    pub paths: Vec<PathBuf>,
    /// The bundles read back, held so that their folders stay.
    bundles: Vec<Bundle>,
}

impl RunInputs {
    /// `paths`, each file that is a bundle (a gzip file) opened in place.
    pub fn open(paths: &[PathBuf]) -> Result<RunInputs, BundleError> {
        let mut inputs = RunInputs::default();
        for path in paths {
            if named_as_bundle(path) && path.is_file() && !is_bundle(path) {
                return Err(BundleError::NotABundle { path: path.clone() });
            }
            if is_bundle(path) {
                let bundle = Bundle::open(path)?;
                inputs.paths.extend(bundle.run_dirs());
                inputs.bundles.push(bundle);
            } else {
                inputs.paths.push(path.clone());
            }
        }
        Ok(inputs)
    }

    /// How many bundles were read back.
    pub fn bundles(&self) -> usize {
        self.bundles.len()
    }
}

/// Reading one archive into `root`.
struct Unpacker<'a> {
    bundle: &'a Path,
    root: &'a Path,
    claimed: u64,
}

impl<'a> Unpacker<'a> {
    fn new(bundle: &'a Path, root: &'a Path) -> Unpacker<'a> {
        Unpacker {
            bundle,
            root,
            claimed: 0,
        }
    }

    fn refuse(&self, entry: &str, problem: String) -> BundleError {
        BundleError::Entry {
            bundle: self.bundle.to_path_buf(),
            entry: entry.to_string(),
            problem,
        }
    }

    fn bad_manifest(&self, problem: String) -> BundleError {
        BundleError::Manifest {
            bundle: self.bundle.to_path_buf(),
            problem,
        }
    }

    fn unpack(mut self) -> Result<Manifest, BundleError> {
        let file = record::lines::regular_file(self.bundle).map_err(|e| BundleError::Io {
            what: "read",
            path: self.bundle.to_path_buf(),
            source: io::Error::other(e.to_string()),
        })?;
        let mut archive = tar::Archive::new(GzDecoder::new(io::BufReader::new(file)));
        let read_failed = |source| BundleError::Io {
            what: "read",
            path: self.bundle.to_path_buf(),
            source,
        };
        let mut manifest: Option<Manifest> = None;
        let mut expected: BTreeMap<String, ManifestFile> = BTreeMap::new();
        for (index, entry) in archive.entries().map_err(read_failed)?.enumerate() {
            let mut entry = entry.map_err(|source| self.refuse(&format!("#{}", index + 1), source.to_string()))?;
            let name = String::from_utf8_lossy(&entry.path_bytes()).into_owned();
            let size = self.check_header(&name, &entry, index)?;
            if index == 0 {
                if name != MANIFEST {
                    return Err(self.bad_manifest(format!("its first entry is {name}, not {MANIFEST}")));
                }
                let found = self.read_manifest(&mut entry, size)?;
                expected = found.files.iter().map(|f| (f.path.clone(), f.clone())).collect();
                manifest = Some(found);
                continue;
            }
            let Some(listed) = expected.remove(&name) else {
                let problem = if manifest
                    .as_ref()
                    .is_some_and(|m| m.files.iter().any(|f| f.path == name))
                {
                    "it appears twice".to_string()
                } else {
                    "the manifest does not list it: a file was added after the bundle was sealed".to_string()
                };
                return Err(self.refuse(&name, problem));
            };
            self.write_entry(&name, &mut entry, &listed)?;
        }
        let manifest = manifest.ok_or_else(|| self.bad_manifest(format!("it holds no entry (no {MANIFEST})")))?;
        if let Some(missing) = expected.keys().next() {
            return Err(self.refuse(
                missing,
                "the manifest lists it but the archive does not hold it".to_string(),
            ));
        }
        Ok(manifest)
    }

    /// Checks an entry's header before any of its bytes are read: a plain file, a
    /// relative path without `..`, a size within the caps; returns the size.
    fn check_header<R: Read>(
        &mut self,
        name: &str,
        entry: &tar::Entry<'_, R>,
        index: usize,
    ) -> Result<u64, BundleError> {
        if index >= MAX_ENTRIES {
            return Err(self.refuse(name, format!("a bundle holds at most {MAX_ENTRIES} entries")));
        }
        let kind = entry.header().entry_type();
        if !kind.is_file() {
            return Err(self.refuse(
                name,
                format!("it is a {kind:?} entry, and a bundle holds plain files only (no links, folders or devices)"),
            ));
        }
        safe_path(name).map_err(|problem| self.refuse(name, problem))?;
        let size = entry.header().size().map_err(|e| self.refuse(name, e.to_string()))?;
        let size = size.max(entry.size());
        if size > MAX_ENTRY_BYTES {
            return Err(self.refuse(
                name,
                format!(
                    "its header claims {size} bytes, past the cap of {} MiB an entry",
                    MAX_ENTRY_BYTES >> 20
                ),
            ));
        }
        self.claimed = self.claimed.saturating_add(size);
        if self.claimed > MAX_BUNDLE_BYTES {
            return Err(self.refuse(
                name,
                format!(
                    "the entries up to it claim {} bytes, past the cap of {} GiB a bundle",
                    self.claimed,
                    MAX_BUNDLE_BYTES >> 30
                ),
            ));
        }
        Ok(size)
    }

    fn read_manifest(&self, entry: &mut impl Read, size: u64) -> Result<Manifest, BundleError> {
        if size > MAX_MANIFEST_BYTES {
            return Err(self.bad_manifest(format!(
                "{MANIFEST} claims {size} bytes, past the cap of {} MiB",
                MAX_MANIFEST_BYTES >> 20
            )));
        }
        let mut bytes = Vec::new();
        entry
            .take(MAX_MANIFEST_BYTES)
            .read_to_end(&mut bytes)
            .map_err(|e| self.bad_manifest(format!("{MANIFEST} cannot be read: {e}")))?;
        let manifest: Manifest = serde_json::from_slice(&bytes)
            .map_err(|e| self.bad_manifest(format!("{MANIFEST} is not a manifest: {e}")))?;
        if manifest.format != BUNDLE_FORMAT {
            return Err(self.bad_manifest(format!(
                "{MANIFEST}: format is {:?}, not {BUNDLE_FORMAT:?}",
                manifest.format
            )));
        }
        if manifest.version != BUNDLE_VERSION {
            return Err(self.bad_manifest(format!(
                "{MANIFEST}: version {} is not {BUNDLE_VERSION}, the one this build reads: check it with a build \
                 of that version",
                manifest.version
            )));
        }
        for file in &manifest.files {
            safe_path(&file.path).map_err(|problem| self.refuse(&file.path, format!("in {MANIFEST}: {problem}")))?;
        }
        for run in &manifest.runs {
            safe_path(run).map_err(|problem| self.bad_manifest(format!("{MANIFEST}: the run {run:?}: {problem}")))?;
            if !manifest.files.iter().any(|f| f.path == format!("{run}/run.json")) {
                return Err(self.bad_manifest(format!("{MANIFEST}: the run {run} has no run.json listed")));
            }
        }
        Ok(manifest)
    }

    /// Writes one entry under the root, hashing it, and holds it to the manifest's
    /// size and SHA-256.
    fn write_entry(&self, name: &str, entry: &mut impl Read, listed: &ManifestFile) -> Result<(), BundleError> {
        let target = self.root.join(name);
        let io = |source| BundleError::Io {
            what: "write",
            path: target.clone(),
            source,
        };
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent).map_err(io)?;
        }
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&target)
            .map_err(io)?;
        let mut hasher = Sha256::new();
        let mut buf = vec![0u8; 64 << 10];
        let mut written: u64 = 0;
        let mut limited = entry.take(MAX_ENTRY_BYTES + 1);
        loop {
            let n = limited
                .read(&mut buf)
                .map_err(|e| self.refuse(name, format!("cannot be read: {e}")))?;
            if n == 0 {
                break;
            }
            written += n as u64;
            if written > MAX_ENTRY_BYTES {
                return Err(self.refuse(name, format!("past the cap of {} MiB an entry", MAX_ENTRY_BYTES >> 20)));
            }
            hasher.update(&buf[..n]);
            file.write_all(&buf[..n]).map_err(io)?;
        }
        if written != listed.size {
            return Err(self.refuse(
                name,
                format!("size is {written} bytes, but {MANIFEST} says {}", listed.size),
            ));
        }
        let sha256 = hex::encode(hasher.finalize());
        if sha256 != listed.sha256 {
            return Err(self.refuse(
                name,
                format!("sha256 is {sha256}, but {MANIFEST} says {}", listed.sha256),
            ));
        }
        Ok(())
    }
}

/// The first figure where `found` (what a file says) differs from `derived` (what was
/// worked out again from the games), named by its JSON path from `at`
/// (`pairings[2].wins: the file says 3, the games give 2`); every number, string and
/// flag compared is counted in `figures`. Numbers agree within a relative 1e-9 (the
/// same computation, printed and read back); keys are compared both ways.
pub fn first_difference(at: &str, found: &Value, derived: &Value, figures: &mut usize) -> Option<String> {
    let differs = || Some(format!("{at}: the file says {found}, the games give {derived}"));
    match (found, derived) {
        (Value::Object(f), Value::Object(d)) => {
            for key in f.keys().chain(d.keys().filter(|k| !f.contains_key(*k))) {
                let (fv, dv) = (f.get(key).unwrap_or(&Value::Null), d.get(key).unwrap_or(&Value::Null));
                let path = if at.is_empty() {
                    key.clone()
                } else {
                    format!("{at}.{key}")
                };
                if let Some(diff) = first_difference(&path, fv, dv, figures) {
                    return Some(diff);
                }
            }
            None
        }
        (Value::Array(f), Value::Array(d)) => {
            if f.len() != d.len() {
                return Some(format!(
                    "{at}: the file holds {} entries, the games give {}",
                    f.len(),
                    d.len()
                ));
            }
            f.iter()
                .zip(d)
                .enumerate()
                .find_map(|(i, (fv, dv))| first_difference(&format!("{at}[{i}]"), fv, dv, figures))
        }
        (Value::Number(f), Value::Number(d)) => {
            *figures += 1;
            let (f, d) = (f.as_f64().unwrap_or(f64::NAN), d.as_f64().unwrap_or(f64::NAN));
            let scale = f.abs().max(d.abs()).max(1.0);
            if (f - d).abs() <= 1e-9 * scale {
                None
            } else {
                differs()
            }
        }
        _ => {
            *figures += 1;
            if found == derived {
                None
            } else {
                differs()
            }
        }
    }
}

/// Refuses a path that could leave the folder it is read into: empty, absolute, with a
/// `..`, a `.` or an empty part, or a backslash.
fn safe_path(path: &str) -> Result<(), String> {
    if path.is_empty() || path.contains('\\') || path.contains('\0') {
        return Err("its path is empty or holds a backslash or NUL: give relative /-separated paths".to_string());
    }
    if path.starts_with('/') {
        return Err("its path is absolute: a bundle holds relative paths only".to_string());
    }
    for part in path.split('/') {
        if part.is_empty() || part == "." || part == ".." {
            return Err(format!(
                "its path has a {:?} part: a bundle's paths never leave the folder it is read into",
                part
            ));
        }
    }
    if Path::new(path).components().any(|c| !matches!(c, Component::Normal(_))) {
        return Err("its path is not a plain relative path".to_string());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_that_could_leave_the_folder_is_refused() {
        for bad in ["../x", "a/../b", "/etc/passwd", "a//b", "./a", "", "a\\b", "a/."] {
            assert!(safe_path(bad).is_err(), "{bad}");
        }
        assert!(safe_path("runs/r/game-0001.jsonl").is_ok());
    }
}
