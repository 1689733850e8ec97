//! Files a user names are read with a cap per line and per file (issue 45, class 1):
//! `/dev/zero` or one endless line is refused at once, naming the file and the cap,
//! instead of filling memory; a UTF-8 byte-order mark starts a suite harmlessly.

use std::time::{Duration, Instant};

use crate::support::{run_arena, temp_dir};

/// Runs the binary without a model server; its stderr, and whether it succeeded.
fn arena(args: &[&str]) -> (bool, String) {
    let output = run_arena(args, "127.0.0.1:9");
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn dev_zero_as_a_suite_or_a_ladder_is_refused_as_a_device_unread() {
    let started = Instant::now();
    let (ok, said) = arena(&[
        "play",
        "--black",
        "random",
        "--white",
        "random",
        "--openings",
        "/dev/zero",
    ]);
    assert!(
        !ok && said.contains("/dev/zero is a device, not a regular file"),
        "{said}"
    );
    let dir = temp_dir("inputs", "ladder");
    let (ok, said) = arena(&["rate", dir.to_str().unwrap(), "--ladder", "/dev/zero"]);
    assert!(!ok && said.contains("cannot read --ladder /dev/zero"), "{said}");
    assert!(said.contains("/dev/zero is a device, not a regular file"), "{said}");
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "refused before reading, not after filling memory"
    );
}

#[test]
fn one_endless_line_is_refused_naming_its_number() {
    let dir = temp_dir("inputs", "long-line");
    let suite = dir.join("suite.txt");
    std::fs::write(&suite, format!("f5d6\n{}\n", "f5".repeat(40_000))).unwrap();
    let (ok, said) = arena(&["openings", "check", suite.to_str().unwrap(), "--depth", "1"]);
    assert!(!ok && said.contains("line 2 is longer than 65536 bytes"), "{said}");
}

#[test]
fn a_suite_may_start_with_a_byte_order_mark_and_repeats_are_noted() {
    let dir = temp_dir("inputs", "bom");
    let suite = dir.join("suite.txt");
    std::fs::write(&suite, "\u{feff}f5d6\nd3c5\n").unwrap();
    let (ok, said) = arena(&["openings", "check", suite.to_str().unwrap(), "--depth", "1"]);
    assert!(ok, "{said}");
    assert!(
        said.contains("note: opening 2 (d3c5) reaches the position of opening 1 (f5d6), mirrored or rotated"),
        "{said}"
    );
}
