//! `othello-arena engine`, the server, as a child process: a command line of many MiB
//! is refused in the protocol's form and the next command answered (the server
//! keeps at most one capped line, so its memory stays small); a refused `set game`
//! leaves no position, so `go` is refused rather than answered for the previous one;
//! GGF records with any player names are written, read back and played by `set game`.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use game::othello::{Board, Move};
use protocol::ggf::GgfGame;

const BIN: &str = env!("CARGO_BIN_EXE_othello-arena");

/// The bytes of the over-long line: 32 MiB, 512 times the server's cap of 64 KiB; a
/// server that kept the line whole would hold at least this much.
const LONG_LINE: usize = 32 << 20;

/// This binary serving greedy over `protocol`.
fn start(protocol: &str) -> (Child, ChildStdin, BufReader<ChildStdout>) {
    let mut child = Command::new(BIN)
        .args(["engine", "--protocol", protocol, "--engine", "greedy"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let stdin = child.stdin.take().unwrap();
    let stdout = BufReader::new(child.stdout.take().unwrap());
    (child, stdin, stdout)
}

/// Writes `LONG_LINE` bytes with no newline, then `then`, from another thread (the
/// server answers before it has read them all); gives the pipe back.
fn send_long_line(mut stdin: ChildStdin, then: &'static str) -> std::thread::JoinHandle<ChildStdin> {
    std::thread::spawn(move || {
        let chunk = vec![b'x'; 1 << 20];
        for _ in 0..LONG_LINE / chunk.len() {
            stdin.write_all(&chunk).unwrap();
        }
        stdin.write_all(then.as_bytes()).unwrap();
        stdin
    })
}

fn read_line(stdout: &mut BufReader<ChildStdout>) -> String {
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    line
}

/// The most memory the process has held, in KiB (Linux's `VmHWM`), where it can be read.
fn peak_kib(child: &Child) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{}/status", child.id())).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Sends `quit`, waits, and gives the server's stderr; the server must exit 0.
fn finish(mut child: Child, mut stdin: ChildStdin) -> String {
    stdin.write_all(b"quit\n").unwrap();
    drop(stdin);
    let mut stderr = String::new();
    child.stderr.take().unwrap().read_to_string(&mut stderr).unwrap();
    assert!(child.wait().unwrap().success(), "{stderr}");
    stderr
}

/// Checks the server never held the long line: its peak grew by far less than the
/// line's length from `before`, its peak once started.
fn check_memory(child: &Child, before: Option<u64>) {
    if let (Some(before), Some(after)) = (before, peak_kib(child)) {
        assert!(
            after - before < (LONG_LINE as u64 / 1024) / 4,
            "the server's peak grew from {before} KiB to {after} KiB over a {LONG_LINE}-byte line"
        );
    }
}

#[test]
fn a_gtp_line_of_many_mib_is_refused_and_the_next_command_answered() {
    let (child, mut stdin, mut stdout) = start("gtp");
    stdin.write_all(b"protocol_version\n").unwrap();
    assert_eq!(read_line(&mut stdout) + &read_line(&mut stdout), "= 2\n\n");
    let before = peak_kib(&child);
    let writer = send_long_line(stdin, "\n7 name\n");
    assert_eq!(
        read_line(&mut stdout),
        "? input line 2 is longer than 65536 bytes, the most a line may hold; it was skipped up to its newline\n"
    );
    assert_eq!(read_line(&mut stdout), "\n");
    assert_eq!(read_line(&mut stdout), "=7 othello-arena greedy\n");
    assert_eq!(read_line(&mut stdout), "\n");
    let stdin = writer.join().unwrap();
    check_memory(&child, before);
    let stderr = finish(child, stdin);
    assert!(stderr.is_empty(), "{stderr}");
}

#[test]
fn an_nboard_line_of_many_mib_is_refused_on_stderr_and_the_next_command_answered() {
    let (child, mut stdin, mut stdout) = start("nboard");
    stdin.write_all(b"ping 2\n").unwrap();
    assert_eq!(read_line(&mut stdout), "pong 2\n");
    let before = peak_kib(&child);
    let writer = send_long_line(stdin, "\nping 3\n");
    assert_eq!(read_line(&mut stdout), "pong 3\n");
    let stdin = writer.join().unwrap();
    check_memory(&child, before);
    let stderr = finish(child, stdin);
    assert_eq!(
        stderr,
        "Error: input line 2 is longer than 65536 bytes, the most a line may hold; it was skipped up to its newline; \
         no position is held now, as the line may have been a set game\n"
    );
}

#[test]
fn go_after_a_refused_set_game_says_there_is_no_position() {
    let (child, mut stdin, mut stdout) = start("nboard");
    // The first game is good (black played f5); the second does not parse.
    let good = "(;GM[Othello]BO[8 ---------------------------O*------*O--------------------------- *]B[f5];)";
    let input = format!("nboard 1\nset game {good}\nset game (;GM[Othello]BO[8 -- *];)\ngo\nhint 3\nping 1\n");
    stdin.write_all(input.as_bytes()).unwrap();
    assert_eq!(
        read_line(&mut stdout),
        "pong 1\n",
        "no move is answered for the previous game"
    );
    let stderr = finish(child, stdin);
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 3, "{stderr}");
    assert!(lines[0].starts_with("Error: set game: bad or missing BO[8"), "{stderr}");
    assert!(lines[0].ends_with("; no position is held now"), "{stderr}");
    let no_position =
        "Error: no position: the last set game was refused; send set game with a GGF record this engine reads";
    assert_eq!(&lines[1..], [no_position, no_position]);
}

#[test]
fn ggf_records_with_any_names_read_back_and_play_through_set_game() {
    let names = [
        "a]B[c4",
        "[x]",
        "semi;)colon",
        "back\\]slash",
        "two\nlines\r\n",
        "tab\tand\u{7}bell",
    ];
    let mut game = GgfGame {
        black: String::new(),
        white: String::new(),
        start: Board::new(),
        moves: ["f5", "d6", "c3"].map(|m| Move::Place(m.parse().unwrap())).to_vec(),
    };
    let (child, mut stdin, mut stdout) = start("nboard");
    for pair in names.chunks(2) {
        (game.black, game.white) = (pair[0].to_string(), pair[1].to_string());
        for record in [game.to_string(), game.record("+2.000", Some("a [comment]; \\ \n"))] {
            assert!(!record.contains(['\n', '\r', '\\']), "one line, no escapes: {record}");
            let read: GgfGame = record.parse().unwrap();
            assert_eq!((read.start, &read.moves), (game.start, &game.moves), "{record}");
            assert!(!read.black.contains([']', '[', ';', '\\']), "{record}");
            writeln!(stdin, "set game {record}\ngo").unwrap();
            assert_eq!(read_line(&mut stdout), "status thinking\n");
            let best = read_line(&mut stdout);
            assert!(best.starts_with("=== "), "a move for white after f5 d6 c3: {best}");
            let mv: Move = best[4..].split_whitespace().next().unwrap().parse().unwrap();
            let after = game.position().unwrap();
            assert!(after.try_play(mv).is_ok(), "{mv} is legal after {record}");
            assert_eq!(read_line(&mut stdout), "status waiting\n");
        }
    }
    let stderr = finish(child, stdin);
    assert!(stderr.is_empty(), "{stderr}");
}
