//! Output files and standard output: one rule for every `-o`/`--csv` (a regular file
//! is replaced atomically and only with `--force`; a FIFO or a device is written in
//! place and never replaced; a failed write leaves no temporary file), and a stdout
//! that closes or fills ends the command without a panic. Every case runs the binary.

use std::io::Read;
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::support::{run_arena, temp_dir};

/// A finished run the binary only reads.
const RUN: &str = "tests/data/runs/eval";

fn arena() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_othello-arena"));
    command.env("OLLAMA_HOST", "127.0.0.1:9");
    command
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// What `export RUN` prints to stdout.
fn exported() -> Vec<u8> {
    let output = run_arena(&["export", RUN], "127.0.0.1:9");
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(output.stdout.len() > 1024, "more than the file size limit below");
    output.stdout
}

fn mkfifo(dir: &Path) -> PathBuf {
    let fifo = dir.join("fifo");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    fifo
}

fn is_fifo(path: &Path) -> bool {
    std::fs::metadata(path).unwrap().file_type().is_fifo()
}

fn is_char_device(path: &Path) -> bool {
    std::fs::metadata(path).unwrap().file_type().is_char_device()
}

/// The names in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Waits for `child` at most `limit`; kills it and fails the test past that.
fn finish_within(mut child: Child, limit: Duration) -> Output {
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > limit {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("still running after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    child.wait_with_output().unwrap()
}

#[test]
fn a_fifo_with_a_reader_gets_the_bytes_and_stays_a_fifo() {
    let dir = temp_dir("outputs", "fifo-read");
    let fifo = mkfifo(&dir);
    let reading = fifo.clone();
    // The reader opens first (its open waits for a writer), as `cat FIFO &` does.
    let reader = std::thread::spawn(move || {
        let mut bytes = Vec::new();
        std::fs::File::open(reading).unwrap().read_to_end(&mut bytes).unwrap();
        bytes
    });
    std::thread::sleep(Duration::from_millis(200));
    let output = run_arena(&["export", RUN, "-o", fifo.to_str().unwrap()], "127.0.0.1:9");
    assert!(output.status.success(), "{}", stderr(&output));
    let read = String::from_utf8(reader.join().unwrap()).unwrap();
    assert_eq!(
        read,
        String::from_utf8(exported()).unwrap(),
        "the reader got every byte"
    );
    assert!(is_fifo(&fifo), "the FIFO is still a FIFO");
    assert_eq!(names(&dir), ["fifo"], "no file beside it");
}

#[test]
fn a_fifo_nobody_reads_is_refused_within_seconds() {
    let dir = temp_dir("outputs", "fifo-alone");
    let fifo = mkfifo(&dir);
    let child = arena()
        .args(["export", RUN, "-o", fifo.to_str().unwrap()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let output = finish_within(child, Duration::from_secs(20));
    let text = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{text}");
    assert!(
        text.contains("no process read") && text.contains("start its reader first"),
        "{text}"
    );
    assert!(is_fifo(&fifo), "the FIFO is still a FIFO");
    assert_eq!(names(&dir), ["fifo"]);
}

#[test]
fn character_devices_are_written_in_place() {
    let null = Path::new("/dev/null");
    let output = run_arena(&["export", RUN, "-o", "/dev/null"], "127.0.0.1:9");
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(is_char_device(null), "/dev/null is still a character device");
    let full = run_arena(&["export", RUN, "-o", "/dev/full"], "127.0.0.1:9");
    let text = stderr(&full);
    assert_eq!(full.status.code(), Some(2), "{text}");
    assert!(
        text.contains("cannot write -o /dev/full") && text.contains("No space left"),
        "{text}"
    );
    assert!(is_char_device(Path::new("/dev/full")));
    // /dev/stdout is whatever stdout is: here the pipe this test reads.
    let piped = run_arena(&["export", RUN, "-o", "/dev/stdout"], "127.0.0.1:9");
    assert!(piped.status.success(), "{}", stderr(&piped));
    assert_eq!(piped.stdout, exported());
    assert!(Path::new("/dev/stdout").is_symlink(), "/dev/stdout is still a link");
}

#[test]
fn an_existing_file_is_replaced_only_with_force() {
    let dir = temp_dir("outputs", "force");
    let target = dir.join("games.ggf");
    for command in ["export", "report"] {
        std::fs::write(&target, "mine\n").unwrap();
        let refused = run_arena(&[command, RUN, "-o", target.to_str().unwrap()], "127.0.0.1:9");
        let text = stderr(&refused);
        assert_eq!(refused.status.code(), Some(2), "{command}: {text}");
        assert!(
            text.contains("the file exists and holds 5 bytes; give a new path, or --force to replace it"),
            "{command}: {text}"
        );
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "mine\n", "{command}");
        let forced = run_arena(
            &[command, RUN, "-o", target.to_str().unwrap(), "--force"],
            "127.0.0.1:9",
        );
        assert!(forced.status.success(), "{command}: {}", stderr(&forced));
        assert_ne!(std::fs::read_to_string(&target).unwrap(), "mine\n", "{command}");
        assert_eq!(names(&dir), ["games.ggf"], "{command}: no temporary file left");
    }
    assert!(std::fs::read(&target).unwrap().len() > 1000, "the report");
    let empty = dir.join("empty.ggf");
    std::fs::write(&empty, "").unwrap();
    let output = run_arena(&["export", RUN, "-o", empty.to_str().unwrap()], "127.0.0.1:9");
    assert!(
        output.status.success(),
        "an empty file holds nothing to lose: {}",
        stderr(&output)
    );
    assert_eq!(std::fs::read(&empty).unwrap(), exported());
}

#[test]
fn a_failed_write_leaves_no_temporary_file_and_the_old_file_whole() {
    let dir = temp_dir("outputs", "too-large");
    let target = dir.join("games.ggf");
    // A file size limit below the export's size: the write fails half way (EFBIG, with
    // the signal that would kill the process ignored).
    let limited = |extra: &str| {
        let script = format!(
            "trap '' XFSZ; ulimit -f 1; exec \"$0\" export {RUN} -o {} {extra}",
            target.display()
        );
        Command::new("sh")
            .args(["-c", &script, env!("CARGO_BIN_EXE_othello-arena")])
            .output()
            .unwrap()
    };
    let output = limited("");
    let text = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{text}");
    assert!(
        text.contains("cannot write -o") && text.contains("File too large"),
        "{text}"
    );
    assert!(names(&dir).is_empty(), "nothing left: {:?}", names(&dir));
    std::fs::write(&target, "mine\n").unwrap();
    let output = limited("--force");
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert_eq!(
        std::fs::read_to_string(&target).unwrap(),
        "mine\n",
        "the old file is whole"
    );
    assert_eq!(names(&dir), ["games.ggf"]);
}

#[test]
fn a_closed_stdout_ends_the_command_quietly() {
    for args in [
        &["export", RUN][..],
        &["rate", RUN, "--anchor", "greedy=0", "--no-value"],
    ] {
        let mut child = arena()
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // The reader goes away before the first line, as `| head -c 10` does after its bytes.
        drop(child.stdout.take());
        let output = finish_within(child, Duration::from_secs(60));
        let text = stderr(&output);
        assert_eq!(output.status.code(), Some(0), "{args:?}: {text}");
        assert!(
            !text.contains("panicked") && !text.contains("error:"),
            "{args:?}: {text}"
        );
    }
}

#[test]
fn a_full_stdout_is_an_error_naming_stdout() {
    for args in [
        &["export", RUN][..],
        &["rate", RUN, "--anchor", "greedy=0", "--no-value"],
    ] {
        let full = std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
        let output = arena().args(args).stdout(full).output().unwrap();
        let text = stderr(&output);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {text}");
        assert!(
            text.contains("error: cannot write to stdout") && text.contains("No space left on device"),
            "{args:?}: {text}"
        );
        assert!(!text.contains("panicked"), "{args:?}: {text}");
    }
}
