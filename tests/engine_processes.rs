//! External engines that misbehave end with their run (issue 45): engines that hang,
//! start a child, are started by a launch script that does not `exec`, write an
//! endless line (or short lines without end) or flood stderr. They are shell scripts written here, standing in for
//! failures a real engine will not produce on demand; each writes its process id (and
//! its child's) to a file, and after the run every one of them must be gone: after a
//! timeout, a failure, one Ctrl-C (SIGINT to our binary), two, and SIGTERM. Ctrl-C ends
//! a run whose engine hangs at once, with 130, and the run resumes. Issue 55: the
//! races between a run's exit and its engines' end, checked the moment the run has
//! exited, round after round.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::support::temp_dir;

const BIN: &str = env!("CARGO_BIN_EXE_othello-arena");

/// A GTP engine in bash: `$1` says how it misbehaves at its first `genmove`, `$2` is
/// the file of process ids, `$3` a marker left at that genmove; once the marker is
/// there it is this binary's greedy engine (so a resume finishes the run). Its
/// handshake is greedy's, so the resumed run meets the engine it recorded.
fn engine_script() -> String {
    format!(
        r#"#!/usr/bin/env bash
how=$1 pids=$2 once=$3
echo $$ >> "$pids"
if [ -e "$once" ]; then exec {BIN:?} engine --protocol gtp --engine greedy; fi
while IFS= read -r line; do
  case $line in
    name) printf '= othello-arena greedy\n\n' ;;
    version) printf '= {version}\n\n' ;;
    quit) printf '=\n\n'; exit 0 ;;
    genmove*)
      touch "$once"
      case $how in
        hang) exec sleep 1000 ;;
        child) sleep 1000 & echo $! >> "$pids"; wait ;;
        stubborn) trap "" TERM; sleep 1000 | {BIN:?} engine --protocol gtp --engine reference > /dev/null & echo $! >> "$pids"; wait ;;
        line) exec tr '\0' x < /dev/zero ;;
        lines) exec yes ;;
        flood) head -c 67108864 /dev/zero | tr '\0' e >&2; printf '= zz\n\n' ;;
      esac ;;
    *) printf '=\n\n' ;;
  esac
done
"#,
        version = env!("CARGO_PKG_VERSION"),
    )
}

/// A test's folder with its engine script, a launch script that starts it without
/// `exec` (as one that sets up Edax's data folder might), and an `[[engine]]` file.
struct Setup {
    dir: PathBuf,
    pids: PathBuf,
    engines: PathBuf,
}

impl Setup {
    /// `how` the engine misbehaves, started `launched` through the launch script,
    /// with `timeout` seconds an answer.
    fn new(name: &str, how: &str, launched: bool, timeout: f64) -> Setup {
        let dir = temp_dir("engine-processes", name);
        let engine = dir.join("engine.sh");
        std::fs::write(&engine, engine_script()).unwrap();
        let launcher = dir.join("launch.sh");
        std::fs::write(
            &launcher,
            "#!/usr/bin/env bash\necho $$ >> \"$2\"\nbash \"$(dirname \"$0\")/engine.sh\" \"$@\"\necho launcher done\n",
        )
        .unwrap();
        let pids = dir.join("pids");
        let script = if launched { &launcher } else { &engine };
        let args = [script.as_path(), Path::new(how), &pids, &dir.join("misbehaved")].map(|p| p.display().to_string());
        let engines = dir.join("engines.toml");
        std::fs::write(
            &engines,
            format!(
                "[[engine]]\nname = \"bad\"\nprotocol = \"gtp\"\ncommand = \"bash\"\nargs = {args:?}\ntimeout = {timeout}\n"
            ),
        )
        .unwrap();
        Setup { dir, pids, engines }
    }

    /// `play` of `games` games, the engine black against greedy, `parallel` at once.
    fn play(&self, games: u32, parallel: u32) -> Command {
        let mut command = Command::new(BIN);
        command.args(["play", "--engines", &self.engines.display().to_string()]);
        command.args(["--black", "ext:bad", "--white", "greedy", "--games", &games.to_string()]);
        command.args([
            "--parallel",
            &parallel.to_string(),
            "--log-dir",
            &self.run().display().to_string(),
        ]);
        command
    }

    /// A tournament of the engine and greedy, two games.
    fn tournament(&self) -> Command {
        let file = self.dir.join("tournament.toml");
        let text = format!(
            "format = \"round-robin\"\nengines = [\"greedy\"]\ngames = 2\nseed = 4\n{}",
            std::fs::read_to_string(&self.engines).unwrap()
        );
        std::fs::write(&file, text).unwrap();
        let mut command = Command::new(BIN);
        command.args([
            "tournament",
            &file.display().to_string(),
            "--log-dir",
            &self.run().display().to_string(),
        ]);
        command
    }

    fn run(&self) -> PathBuf {
        self.dir.join("run")
    }

    /// Whether the engine has reached its misbehaviour.
    fn misbehaving(&self) -> bool {
        self.dir.join("misbehaved").exists()
    }

    /// Every process id the scripts wrote.
    fn pids(&self) -> Vec<u32> {
        let text = std::fs::read_to_string(&self.pids).unwrap_or_default();
        text.lines().map(|l| l.trim().parse().unwrap()).collect()
    }

    /// Fails naming every recorded process still running the moment our binary has
    /// exited (issue 55: no grace for `init`): each must be gone, or a zombie.
    fn assert_none_left(&self, what: &str) {
        let pids = self.pids();
        assert!(!pids.is_empty(), "{what}: the engine never started");
        let ours = |line: &String| {
            line.contains("sleep 1000")
                || line.contains(&*self.dir.to_string_lossy())
                || line.contains("engine --protocol gtp")
        };
        let left: Vec<(u32, String)> = pids
            .iter()
            .filter(|&&pid| alive(pid))
            .map(|&pid| (pid, command_line(pid)))
            .filter(|(_, line)| ours(line))
            .collect();
        for (pid, _) in &left {
            let _ = Command::new("kill").args(["-KILL", &pid.to_string()]).status();
        }
        assert!(
            left.is_empty(),
            "{what}: engine processes still running when the run had exited: {left:?} (of {pids:?})"
        );
    }
}

/// Whether process `pid` runs (a zombie has ended: only its parent's wait is left).
fn alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => {
            let state = stat.rsplit(')').next().and_then(|rest| rest.split_whitespace().next());
            !matches!(state, Some("Z" | "X"))
        }
        Err(_) => false,
    }
}

fn spawn(mut command: Command) -> Child {
    command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs")
}

/// Waits (up to 20 s) for the engine to reach its misbehaviour.
fn until_misbehaving(setup: &Setup, child: &mut Child) {
    let start = Instant::now();
    while !setup.misbehaving() {
        assert!(
            child.try_wait().unwrap().is_none(),
            "the run ended before its engine misbehaved"
        );
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "the engine was never asked a move"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    // The engine is hanging (or writing) now.
    std::thread::sleep(Duration::from_millis(300));
}

fn signal(child: &Child, name: &str) {
    let status = Command::new("kill")
        .args([name, &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
}

/// Waits for `child`, which must end within `limit`; its output and how long it took.
fn ended_within(child: Child, limit: Duration) -> (Output, Duration) {
    let start = Instant::now();
    let id = child.id();
    let waiter = std::thread::spawn(move || child.wait_with_output().unwrap());
    while !waiter.is_finished() {
        if start.elapsed() > limit {
            let _ = Command::new("kill").args(["-KILL", &id.to_string()]).status();
            panic!("the run did not end within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    (waiter.join().unwrap(), start.elapsed())
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn an_engine_that_hangs_its_child_and_its_launcher_end_with_its_timeout() {
    // `lines`: an engine that writes short lines without end, none an answer.
    let cases = [
        ("hang", "hang", false),
        ("child", "child", false),
        ("launched", "child", true),
        ("lines", "lines", false),
    ];
    for (name, how, launched) in cases {
        let setup = Setup::new(name, how, launched, 1.0);
        let (output, took) = ended_within(spawn(setup.play(1, 1)), Duration::from_secs(20));
        let said = stderr(&output);
        assert_eq!(output.status.code(), Some(2), "{name}: {said}");
        assert!(
            said.contains("engine bad did not answer `genmove black` within 1 s"),
            "{name}: {said}"
        );
        assert!(took < Duration::from_secs(5), "{name}: {took:?}");
        setup.assert_none_left(name);
    }
}

#[test]
fn one_ctrl_c_while_an_engine_hangs_stops_the_run_at_once_and_it_resumes() {
    for (name, launched) in [("ctrl-c", false), ("ctrl-c-launched", true)] {
        let setup = Setup::new(name, "child", launched, 60.0);
        let mut child = spawn(setup.tournament());
        until_misbehaving(&setup, &mut child);
        signal(&child, "-INT");
        let (output, took) = ended_within(child, Duration::from_secs(10));
        let said = stderr(&output);
        assert_eq!(output.status.code(), Some(130), "{name}: {said}");
        assert!(took < Duration::from_secs(5), "{name}: Ctrl-C took {took:?}");
        assert!(
            said.contains("continue with: othello-arena tournament --resume"),
            "{name}: {said}"
        );
        setup.assert_none_left(name);
        let log = std::fs::read_to_string(setup.run().join("game-0001.jsonl")).unwrap();
        assert!(
            log.contains("\"game_stopped\""),
            "{name}: the game is logged as stopped: {log}"
        );

        // The engine behaves from now on: the resume plays the game again.
        let run = setup.run().display().to_string();
        let resumed = Command::new(BIN)
            .args(["tournament", "--resume", &run])
            .output()
            .unwrap();
        assert!(resumed.status.success(), "{name}: {}", stderr(&resumed));
        assert!(setup.run().join("game-0001.jsonl.unfinished-1").exists());
        setup.assert_none_left(name);
    }
}

#[test]
fn sigterm_or_ctrl_c_twice_quits_at_once_and_ends_the_engines() {
    for (name, signals) in [("sigterm", &["-TERM"][..]), ("twice", &["-INT", "-INT"][..])] {
        let setup = Setup::new(name, "child", true, 60.0);
        let mut child = spawn(setup.tournament());
        until_misbehaving(&setup, &mut child);
        for sig in signals {
            signal(&child, sig);
        }
        let (output, took) = ended_within(child, Duration::from_secs(10));
        let said = stderr(&output);
        assert_eq!(output.status.code(), Some(130), "{name}: {said}");
        assert!(took < Duration::from_secs(5), "{name}: {took:?}");
        setup.assert_none_left(name);
    }
}

#[test]
fn one_ctrl_c_quits_play_and_ends_its_engine() {
    let setup = Setup::new("play-ctrl-c", "child", true, 60.0);
    let mut child = spawn(setup.play(1, 1));
    until_misbehaving(&setup, &mut child);
    signal(&child, "-INT");
    let (output, took) = ended_within(child, Duration::from_secs(10));
    assert_eq!(output.status.code(), Some(130), "{}", stderr(&output));
    assert!(took < Duration::from_secs(5), "{took:?}");
    setup.assert_none_left("play");
}

/// The most memory our binary held while `child` ran, in KiB (VmHWM).
fn peak_kib(child: &mut Child) -> u64 {
    let mut peak = 0;
    while child.try_wait().unwrap().is_none() {
        let status = std::fs::read_to_string(format!("/proc/{}/status", child.id())).unwrap_or_default();
        let hwm = status.lines().find_map(|l| l.strip_prefix("VmHWM:"));
        if let Some(kib) = hwm.and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok()) {
            peak = peak.max(kib);
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    peak
}

#[test]
fn an_endless_line_fails_its_engine_at_the_cap_and_keeps_no_memory() {
    let setup = Setup::new("endless-line", "line", false, 60.0);
    let start = Instant::now();
    let mut child = spawn(setup.play(1, 1));
    let peak = peak_kib(&mut child);
    let output = child.wait_with_output().unwrap();
    let said = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{said}");
    assert!(
        said.contains("engine bad wrote a line or answer of more than 65536 bytes while answering `genmove black`"),
        "{said}"
    );
    assert!(
        said.contains("check that its [[engine]] command and args start it in GTP or NBoard mode"),
        "{said}"
    );
    assert!(start.elapsed() < Duration::from_secs(10), "{:?}", start.elapsed());
    assert!(
        peak < 100 * 1024,
        "our binary grew to {peak} KiB (about 25 MiB without an engine)"
    );
    setup.assert_none_left("endless line");
}

#[test]
fn a_stderr_flood_keeps_its_last_64_kib_and_says_how_much_was_dropped() {
    let setup = Setup::new("flood", "flood", false, 60.0);
    let mut child = spawn(setup.play(1, 1));
    let peak = peak_kib(&mut child);
    let output = child.wait_with_output().unwrap();
    let said = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{said}");
    assert!(said.contains("with \"zz\", which is no move"), "{said}");
    assert!(said.contains("(its last 65536 bytes in "), "{said}");
    let kept = std::fs::read(setup.run().join("engine-bad-game-0001.stderr")).unwrap();
    let header = "[othello-arena: this engine process wrote 67108864 bytes on stderr; the first 67043328 were dropped and the last 65536 follow]\n";
    assert!(
        kept.starts_with(header.as_bytes()),
        "{}",
        String::from_utf8_lossy(&kept[..200])
    );
    assert_eq!(
        kept.len(),
        header.len() + 65536 + 1,
        "the tail, and the newline that ends it"
    );
    assert!(
        peak < 100 * 1024,
        "our binary grew to {peak} KiB (about 25 MiB without an engine)"
    );
    setup.assert_none_left("flood");
}

#[test]
fn no_game_starts_after_an_engine_failed_at_any_parallel() {
    for parallel in [1, 4] {
        let setup = Setup::new(&format!("parallel-{parallel}"), "hang", false, 1.0);
        let (output, took) = ended_within(spawn(setup.play(5, parallel)), Duration::from_secs(30));
        assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
        let started: Vec<String> = std::fs::read_dir(setup.run())
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
            .filter(|p| std::fs::read_to_string(p).unwrap().contains("\"game_start\""))
            .map(|p| p.display().to_string())
            .collect();
        assert_eq!(started.len(), 1, "--parallel {parallel}: games begun: {started:?}");
        assert!(took < Duration::from_secs(6), "--parallel {parallel}: {took:?}");
        setup.assert_none_left(&format!("--parallel {parallel}"));
    }
}

/// An MCP server whose external engine opponent (black) hangs at its first genmove,
/// the client's `new_game` as white under way: the server and the client's stdin.
fn mcp_with_a_hanging_engine(setup: &Setup) -> (Child, std::process::ChildStdin) {
    use std::io::{BufRead, Write};
    let mut child = Command::new(BIN)
        .args(["mcp", "--engines", &setup.engines.display().to_string()])
        .args(["--opponent", "ext:bad", "--runs", &setup.run().display().to_string()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    let mut input = child.stdin.take().unwrap();
    let mut output = std::io::BufReader::new(child.stdout.take().unwrap());
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"gone","version":"1"}}}"#;
    writeln!(input, "{init}").unwrap();
    let mut line = String::new();
    output.read_line(&mut line).expect("initialize answered");
    writeln!(input, r#"{{"jsonrpc":"2.0","method":"notifications/initialized"}}"#).unwrap();
    // As white: the engine (black) moves first, and hangs at its genmove.
    let new_game =
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"new_game","arguments":{"color":"white"}}}"#;
    writeln!(input, "{new_game}").unwrap();
    input.flush().unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    while !setup.misbehaving() {
        assert!(Instant::now() < deadline, "the engine never reached its genmove");
        std::thread::sleep(Duration::from_millis(20));
    }
    (child, input)
}

/// An MCP client that goes away (its stdin closed) while an external engine opponent
/// thinks: the server used to stay up until the engine's timeout (60 s here) with no
/// `game_stopped` in the log. The engine's move is abandoned at once, its process
/// group ended, and the game logged as stopped, `disconnected`.
#[test]
fn an_mcp_client_gone_while_the_engine_thinks_stops_the_game_at_once() {
    let setup = Setup::new("mcp-disconnect", "hang", true, 60.0);
    let (child, input) = mcp_with_a_hanging_engine(&setup);
    drop(input);
    let (_, took) = ended_within(child, Duration::from_secs(30));
    assert!(
        took < Duration::from_secs(10),
        "the server stayed up {took:?} after the client left"
    );
    setup.assert_none_left("mcp disconnect");
    let run = std::fs::read_dir(setup.run()).unwrap().next().unwrap().unwrap().path();
    let log = std::fs::read_to_string(run.join("game-0001.jsonl")).unwrap();
    let last = log.lines().last().unwrap_or_default();
    assert!(
        last.contains("\"game_stopped\"") && last.contains("\"disconnected\""),
        "the log ends: {last}"
    );
}

/// SIGTERM to an MCP server while its external engine opponent thinks (a client, or a
/// service manager, ending it): the server quits at once and leaves no engine process,
/// as every command that plays games does (it used to die by the signal's default
/// action, its engine left running under init).
#[test]
fn sigterm_to_an_mcp_server_ends_its_engines() {
    let setup = Setup::new("mcp-sigterm", "hang", true, 60.0);
    let (child, _input) = mcp_with_a_hanging_engine(&setup);
    signal(&child, "-TERM");
    let (output, took) = ended_within(child, Duration::from_secs(30));
    assert!(took < Duration::from_secs(10), "the server took {took:?} to quit");
    assert_eq!(output.status.code(), Some(130), "{}", stderr(&output));
    setup.assert_none_left("mcp SIGTERM");
}

/// Process `pid`'s command line, its arguments joined by spaces.
fn command_line(pid: u32) -> String {
    let bytes = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
    String::from_utf8_lossy(&bytes).replace('\0', " ").trim().to_string()
}

/// A real engine (this binary's greedy) behind a launch script that does not `exec`
/// and ignores SIGTERM (as do the processes it starts): the script leaves a helper in
/// the engine's group (an idle `engine --engine reference`, about 100 MB) and starts
/// the engine in the background (its stdin kept), recording the three process ids; it
/// waits for the engine only. A tournament of many short games against greedy, two at
/// a time, so a signal finds engines starting, playing, quitting and being ended.
fn busy_tournament(name: &str, games: u32) -> (Setup, Command) {
    let dir = temp_dir("engine-processes", name);
    let launcher = dir.join("busy.sh");
    std::fs::write(
        &launcher,
        format!(
            "#!/usr/bin/env bash\ntrap '' TERM\npids=$1\necho $$ >> \"$pids\"\nsleep 1000 | {BIN:?} engine --protocol gtp --engine reference > /dev/null &\necho $! >> \"$pids\"\n{BIN:?} engine --protocol gtp --engine greedy <&0 &\necho $! >> \"$pids\"\nwait $!\n"
        ),
    )
    .unwrap();
    let pids = dir.join("pids");
    let args = [launcher.display().to_string(), pids.display().to_string()];
    let table =
        format!("[[engine]]\nname = \"busy\"\nprotocol = \"gtp\"\ncommand = \"bash\"\nargs = {args:?}\ntimeout = 60\n");
    let engines = dir.join("engines.toml");
    std::fs::write(&engines, &table).unwrap();
    let file = dir.join("tournament.toml");
    std::fs::write(
        &file,
        format!("format = \"round-robin\"\nengines = [\"greedy\"]\ngames = {games}\nseed = 4\n{table}"),
    )
    .unwrap();
    let setup = Setup { dir, pids, engines };
    let mut command = Command::new(BIN);
    command.args(["tournament", &file.display().to_string(), "--parallel", "2"]);
    command.args(["--log-dir", &setup.run().display().to_string()]);
    (setup, command)
}

/// SIGTERM (or one Ctrl-C) at any moment of a tournament whose engines come and go:
/// our binary ends (130) and, by the time it has exited, every engine process (the
/// launch script, the engine, the helper it left in the group, which ignores SIGTERM
/// and holds about 100 MB, so that it takes a few milliseconds to die) has ended.
/// SIGTERM used to leave such processes running under `init` in 2 runs of 3: a group
/// was let go once its leader had exited, its SIGKILLed processes still alive when the
/// harness exited.
#[test]
fn sigterm_at_any_moment_leaves_no_engine_process_once_the_run_has_exited() {
    for round in 0..16u64 {
        let how = if round % 4 == 3 { "-INT" } else { "-TERM" };
        let name = format!("signal-race-{round}");
        let (setup, command) = busy_tournament(&name, 400);
        let mut child = spawn(command);
        let start = Instant::now();
        while setup.pids().is_empty() {
            assert!(
                child.try_wait().unwrap().is_none(),
                "{name}: the run ended before its engine started"
            );
            assert!(start.elapsed() < Duration::from_secs(20), "{name}: no engine started");
            std::thread::sleep(Duration::from_millis(5));
        }
        // A different moment each round: while engines start, play, quit or end.
        std::thread::sleep(Duration::from_millis(40 + round * 53 % 400));
        signal(&child, how);
        let (output, _) = ended_within(child, Duration::from_secs(15));
        assert_eq!(output.status.code(), Some(130), "{name} {how}: {}", stderr(&output));
        setup.assert_none_left(&format!("{name} {how}"));
        let _ = std::fs::remove_dir_all(&setup.dir);
    }
}

/// A tournament that plays to its end: every engine process of every game (the last
/// game's too, ended as the run exits) is gone by the time the run has exited.
#[test]
fn a_tournament_played_to_its_end_leaves_no_engine_process() {
    let (setup, mut command) = busy_tournament("normal-end", 4);
    let output = command.output().unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(setup.pids().len(), 3 * 5, "the handshake's process and four games'");
    setup.assert_none_left("normal end");
    let _ = std::fs::remove_dir_all(&setup.dir);
}

/// An engine behind a launch script that does not `exec`, timed out: its whole group
/// (the script, the engine, the engine's helper, which ignores SIGTERM and holds about
/// 100 MB) is gone by the time the run has exited, every time (it kept searching in 1
/// run of 3 of the issue's tries).
#[test]
fn a_timed_out_engine_behind_a_launch_script_is_gone_when_the_run_exits() {
    for round in 0..10 {
        let name = format!("timeout-race-{round}");
        let setup = Setup::new(&name, "stubborn", true, 0.2);
        let (output, _) = ended_within(spawn(setup.play(1, 1)), Duration::from_secs(20));
        let said = stderr(&output);
        assert_eq!(output.status.code(), Some(2), "{name}: {said}");
        assert!(
            said.contains("did not answer `genmove black` within 0.2 s"),
            "{name}: {said}"
        );
        setup.assert_none_left(&name);
        let _ = std::fs::remove_dir_all(&setup.dir);
    }
}
