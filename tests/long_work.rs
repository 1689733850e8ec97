//! Long CPU work says so and stops on Ctrl-C (issue 15, item 6): a progress line on
//! a terminal (`script` gives the command one), and Ctrl-C ends `perft`, `solve` and
//! `wipeouts` at once, as it always did. The line's arithmetic (the time left, the
//! wording) is unit-tested in `cli::progress`.

use std::io::{Read, Write};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_othello-arena");

/// FFO #49: 26 empties, far more than a second to solve.
const FFO_49: &str = "--OX-O----XXOO--OOOOOXX-OOOOOX--OOOXOXX-OOOOXX-----OOX----X-O---";

/// Fails with the fix when this process ignores SIGINT: its children inherit that,
/// and a command that keeps the default action (as `perft` does) then never stops.
/// A shell without job control ignores SIGINT in the jobs it starts with `&`.
fn assert_ctrl_c_reaches_children() {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let ignored = status
        .lines()
        .find_map(|line| line.strip_prefix("SigIgn:"))
        .and_then(|mask| u64::from_str_radix(mask.trim(), 16).ok())
        .unwrap_or(0);
    assert!(
        ignored & (1 << (2 - 1)) == 0,
        "these tests run with SIGINT ignored (started with `&` from a shell without job control?), \
         so Ctrl-C cannot reach the commands they start: run them in the foreground"
    );
}

/// Waits up to `limit` for `child` to end; whether it did.
fn ends_within(child: &mut Child, limit: Duration) -> Option<std::process::ExitStatus> {
    let start = Instant::now();
    while start.elapsed() < limit {
        if let Some(status) = child.try_wait().expect("the child can be waited for") {
            return Some(status);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    let _ = child.wait();
    None
}

#[test]
fn ctrl_c_stops_perft_solve_and_wipeouts_at_once() {
    use std::os::unix::process::ExitStatusExt;
    assert_ctrl_c_reaches_children();
    for args in [
        vec!["perft", "16"],
        vec!["solve", "--board", FFO_49],
        vec!["wipeouts", "--vs", "greedy", "--max-plies", "20"],
    ] {
        let mut child = Command::new(BIN)
            .args(&args)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("the binary runs");
        std::thread::sleep(Duration::from_millis(1500));
        assert!(child.try_wait().unwrap().is_none(), "{args:?} is still at work");
        let kill = Command::new("kill")
            .args(["-INT", &child.id().to_string()])
            .status()
            .expect("kill runs");
        assert!(kill.success());
        let status = ends_within(&mut child, Duration::from_secs(3));
        let status = status.unwrap_or_else(|| panic!("{args:?} ignored Ctrl-C for 3 s"));
        assert_eq!(status.signal(), Some(2), "{args:?} ended by the signal: {status:?}");
    }
}

#[test]
fn perft_on_a_terminal_shows_its_progress_and_stops_on_ctrl_c() {
    assert_ctrl_c_reaches_children();
    assert!(
        Command::new("script").arg("--version").output().is_ok(),
        "`script` (util-linux, in every Debian base system) gives the command a terminal: install util-linux"
    );
    let command = format!("{BIN} perft 16");
    let mut child = Command::new("script")
        .args(["-q", "-e", "-c", &command, "/dev/null"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("script runs");
    let seen = Arc::new(Mutex::new(Vec::new()));
    let mut stdout = child.stdout.take().unwrap();
    let reader = seen.clone();
    std::thread::spawn(move || {
        let mut buffer = [0u8; 4096];
        while let Ok(n) = stdout.read(&mut buffer) {
            if n == 0 {
                break;
            }
            reader.lock().unwrap().extend_from_slice(&buffer[..n]);
        }
    });
    let text = || String::from_utf8_lossy(&seen.lock().unwrap()).into_owned();
    let start = Instant::now();
    while !text().contains("left (Ctrl-C stops)") && start.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(50));
    }
    let shown = text();
    assert!(
        shown.contains("perft depth 16: ") && shown.contains("subtrees") && shown.contains("elapsed"),
        "a progress line on the terminal: {shown:?}"
    );
    // ^C typed on the terminal.
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(b"\x03").unwrap();
    stdin.flush().unwrap();
    let status = ends_within(&mut child, Duration::from_secs(3));
    assert!(status.is_some(), "Ctrl-C stopped it at once");
    drop(stdin);
}

/// Off a terminal (stderr a pipe, as in CI or `2> log`), a tournament's progress is
/// written as plain lines: the first at once, then at most one every 10 seconds.
#[test]
fn a_run_off_a_terminal_writes_its_progress_as_lines() {
    let dir = std::env::temp_dir().join(format!("othello-progress-lines-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("t.toml");
    std::fs::write(
        &file,
        "format = \"round-robin\"\nengines = [\"random\", \"greedy\"]\ngames = 4\n",
    )
    .unwrap();
    let output = Command::new(BIN)
        .args([
            "tournament",
            file.to_str().unwrap(),
            "--log-dir",
            dir.join("run").to_str().unwrap(),
        ])
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    assert!(output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    let first = stderr
        .lines()
        .find(|l| l.starts_with("progress: "))
        .unwrap_or_else(|| panic!("{stderr}"));
    assert_eq!(
        first,
        "progress: 0/4 games (at most), 0s elapsed, estimating the time left"
    );
    assert!(!stderr.contains('\u{1b}'), "no terminal escapes in a log: {stderr:?}");
}
