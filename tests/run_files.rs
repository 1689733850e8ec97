//! Every file a run folder holds is read through the one bounded reader
//! (`record::lines`): a FIFO or a link to `/dev/zero` in the place of a game log,
//! `run.json` or `move-scores.jsonl` is refused at once, naming the file, never waited
//! on (a FIFO used to block `stats` and `rate` forever); a line past its cap is refused
//! naming the file and the cap instead of filling memory.

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::rate_values::play;
use crate::support::temp_dir;

/// How long a command on a small run may take before it counts as blocked.
const LIMIT: Duration = Duration::from_secs(60);

/// `othello-arena args`, killed and failed when it runs past [`LIMIT`].
fn arena_within(args: &[&str]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_othello-arena"))
        .args(args)
        .env("OLLAMA_HOST", "127.0.0.1:9")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let start = Instant::now();
    while child.try_wait().expect("the child can be waited on").is_none() {
        if start.elapsed() > LIMIT {
            child.kill().expect("the blocked child can be killed");
            let _ = child.wait();
            panic!(
                "`othello-arena {}` was still running after {LIMIT:?}: it waited on a file",
                args.join(" ")
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    child.wait_with_output().expect("the child's output")
}

fn mkfifo(path: &Path) {
    let made = Command::new("mkfifo").arg(path).status().expect("mkfifo runs");
    assert!(made.success(), "mkfifo {}", path.display());
}

/// `stats` and `rate` of `run`: each ends within [`LIMIT`]; whether each succeeded, and
/// what it wrote (stdout, then stderr).
fn stats_and_rate(run: &Path) -> [(bool, String); 2] {
    let run = run.to_str().unwrap();
    let rate = ["rate", run, "--anchor", "greedy=300", "--bootstrap", "100", "--json"];
    let rate: Vec<&str> = rate.into_iter().chain(crate::rate_values::SMALL).collect();
    [arena_within(&["stats", run, "--json"]), arena_within(&rate)].map(|out| {
        let said = [&out.stdout, &out.stderr].map(|b| String::from_utf8_lossy(b).into_owned());
        (out.status.success(), said.concat())
    })
}

/// A game log that is a FIFO, or a link to `/dev/zero`: `stats` and `rate` refuse it at
/// once, naming the file and what it is.
#[test]
fn a_game_log_that_is_a_fifo_or_a_device_is_refused_never_waited_on() {
    let run = temp_dir("run-files", "log-fifo").join("run");
    play(&run);
    let odd = run.join("game-0003.jsonl");
    for (kind, make) in [
        ("a FIFO", Box::new(|p: &Path| mkfifo(p)) as Box<dyn Fn(&Path)>),
        (
            "a device",
            Box::new(|p: &Path| std::os::unix::fs::symlink("/dev/zero", p).unwrap()),
        ),
    ] {
        let _ = std::fs::remove_file(&odd);
        make(&odd);
        for (ok, stderr) in stats_and_rate(&run) {
            assert!(!ok, "{kind}: {stderr}");
            assert!(
                stderr.contains(&format!("{} is {kind}, not a regular file", odd.display())),
                "{kind}: {stderr}"
            );
        }
    }
    let _ = std::fs::remove_dir_all(run.parent().unwrap());
}

/// A run.json or a move-scores.jsonl that is a FIFO: `stats` and `rate` end without
/// waiting, the games are rated, and `rate` says why it could not use the values file.
#[test]
fn a_run_json_or_values_file_that_is_a_fifo_is_not_waited_on() {
    let run = temp_dir("run-files", "json-fifo").join("run");
    play(&run);
    for name in ["run.json", "move-scores.jsonl"] {
        let file = run.join(name);
        let kept = run.parent().unwrap().join(name);
        if file.exists() {
            std::fs::rename(&file, &kept).unwrap();
        }
        mkfifo(&file);
        // `stats` only ended (these games have no LLM player to count); `rate` rates them.
        let [_, (rate_ok, rate)] = stats_and_rate(&run);
        assert!(rate_ok, "{name}: {rate}");
        if name == "move-scores.jsonl" {
            assert!(
                rate.contains(&format!("{} is a FIFO", file.display())),
                "{name}: {rate}"
            );
        }
        std::fs::remove_file(&file).unwrap();
        if kept.exists() {
            std::fs::rename(&kept, &file).unwrap();
        }
    }
    let _ = std::fs::remove_dir_all(run.parent().unwrap());
}

/// A game log whose last line runs past the cap (a file of one endless line): refused
/// naming the file, the line and the cap, having read no more than the cap of it.
#[test]
fn a_log_line_past_the_cap_is_refused_naming_the_file_and_the_cap() {
    let run = temp_dir("run-files", "long-line").join("run");
    play(&run);
    let log = run.join("game-0001.jsonl");
    let mut bytes = std::fs::read(&log).unwrap();
    let endless = bytes.iter().filter(|&&b| b == b'\n').count() + 1;
    bytes.resize(bytes.len() + record::LOG_LINE_CAP + 10, b' ');
    std::fs::write(&log, bytes).unwrap();
    let want = format!(
        "{} line {endless} is longer than {} bytes",
        log.display(),
        record::LOG_LINE_CAP
    );
    for args in [
        vec!["stats", run.to_str().unwrap()],
        vec!["replay", log.to_str().unwrap()],
    ] {
        let out = arena_within(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?}: {stderr}");
        assert!(stderr.contains(&want), "{args:?}: {stderr}");
    }
    let _ = std::fs::remove_dir_all(run.parent().unwrap());
}
