use super::*;

use std::time::Duration;
use tokio::io::{AsyncWriteExt, BufReader};

/// Every line `reader` gives, errors as `Err(text)`, to the end of its stream.
async fn all_lines<R: AsyncBufRead + Unpin>(reader: &mut LineReader<R>) -> Vec<Result<String, String>> {
    let mut lines = Vec::new();
    loop {
        match reader.next_line().await {
            Ok(Some(line)) => lines.push(Ok(line)),
            Ok(None) => return lines,
            Err(err) => lines.push(Err(err.to_string())),
        }
    }
}

#[tokio::test]
async fn lines_read_across_buffer_edges_as_tokio_lines_reads_them() {
    let text = b"= c4\r\n\nsearch d3 1.5 0 2\nlast line without newline";
    for capacity in [1, 2, 3, 7, 64] {
        let mut reader = LineReader::new(BufReader::with_capacity(capacity, &text[..]), 32);
        let lines = all_lines(&mut reader).await;
        let expected = ["= c4", "", "search d3 1.5 0 2", "last line without newline"];
        let expected: Vec<Result<String, String>> = expected.iter().map(|l| Ok(l.to_string())).collect();
        assert_eq!(lines, expected, "buffer of {capacity}");
    }
}

#[tokio::test]
async fn a_line_over_the_cap_fails_and_the_next_line_reads_after_it() {
    let cap = 10;
    let text = b"0123456789\n0123456789A and more\n= d3\n";
    for capacity in [1, 4, 64] {
        let mut reader = LineReader::new(BufReader::with_capacity(capacity, &text[..]), cap);
        let lines = all_lines(&mut reader).await;
        assert_eq!(
            lines,
            vec![
                Ok("0123456789".to_string()),
                Err("the engine's stdout line 2 is longer than 10 bytes, the most a line may hold; it was skipped up to its newline".to_string()),
                Ok("= d3".to_string()),
            ],
            "buffer of {capacity}"
        );
    }
}

#[tokio::test]
async fn an_endless_line_fails_at_the_cap_and_keeps_none_of_its_bytes() {
    // An engine that writes one line forever: the read fails once the cap is passed,
    // not when memory runs out, and what it read is dropped.
    let endless = tokio::io::repeat(b'x');
    let mut reader = LineReader::new(BufReader::with_capacity(4096, endless), LINE_CAP);
    let err = reader.next_line().await.unwrap_err();
    // (What the splitter keeps of such a line is protocol::lines' to test.)
    assert!(matches!(err, LineError::TooLong { cap: LINE_CAP, .. }), "{err}");
}

#[tokio::test]
async fn bytes_that_are_not_utf8_fail_the_line() {
    let mut reader = LineReader::new(&b"\xff\xfe\n= c4\n"[..], 64);
    let lines = all_lines(&mut reader).await;
    assert!(matches!(&lines[0], Err(text) if text.contains("UTF-8")), "{lines:?}");
    assert_eq!(lines[1], Ok("= c4".to_string()));
}

#[tokio::test]
async fn a_read_cancelled_mid_line_loses_no_byte() {
    let (mut engine, client) = tokio::io::duplex(64);
    let mut reader = LineReader::new(BufReader::new(client), 64);
    engine.write_all(b"= c").await.unwrap();
    let cut = tokio::time::timeout(Duration::from_millis(50), reader.next_line()).await;
    assert!(cut.is_err(), "no line yet");
    engine.write_all(b"4\n").await.unwrap();
    assert_eq!(reader.next_line().await.unwrap(), Some("= c4".to_string()));
    drop(engine);
    assert_eq!(reader.next_line().await.unwrap(), None);
}

#[test]
fn a_stderr_tail_keeps_the_last_bytes_and_says_how_many_were_dropped() {
    let mut tail = StderrTail::new(8, None);
    tail.push(b"one\n");
    assert_eq!(tail.file_text(), b"one\n");
    for _ in 0..10 {
        tail.push(b"abcdef\n");
    }
    tail.push(b"last");
    let text = String::from_utf8(tail.file_text()).unwrap();
    assert_eq!(
        text,
        "[othello-arena: this engine process wrote 78 bytes on stderr; the first 70 were dropped and the last 8 follow]\n\
         def\nlast\n"
    );
    assert!(tail.bytes.len() <= 16, "memory stays within twice the cap");
    assert_eq!(tail.describe(), "; its stderr ends: def | last");
}

#[test]
fn a_stderr_tail_is_saved_once_beside_what_earlier_processes_wrote() {
    let dir = std::env::temp_dir().join(format!("othello-arena-tail-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("engine-x-game-0001.stderr");
    let _ = std::fs::remove_file(&file);
    std::fs::write(&file, "an earlier process\n").unwrap();
    let mut quiet = StderrTail::new(STDERR_TAIL, Some(file.clone()));
    quiet.save();
    let mut tail = StderrTail::new(STDERR_TAIL, Some(file.clone()));
    tail.push(b"loading data/eval.dat\nready");
    tail.save();
    tail.push(b"\nafter the save");
    tail.save();
    let kept = std::fs::read_to_string(&file).unwrap();
    assert_eq!(kept, "an earlier process\nloading data/eval.dat\nready\n");
    let said = tail.describe();
    assert!(
        said.starts_with("; its stderr ends: loading data/eval.dat | ready | after the save (all of it in "),
        "{said}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_long_stderr_line_is_quoted_by_its_end() {
    let mut tail = StderrTail::new(STDERR_TAIL, None);
    tail.push(&[b'y'; 1000]);
    tail.push(b"the end");
    let said = tail.describe();
    assert!(
        said.starts_with("; its stderr ends: ...yyy") && said.ends_with("yyythe end"),
        "{said}"
    );
    assert!(said.len() < 300, "{}", said.len());
}

#[tokio::test]
async fn a_flood_on_stderr_is_read_to_its_end_into_a_bounded_tail() {
    let flood = tokio::io::repeat(b'z').take(8 * 1024 * 1024);
    let tail = Arc::new(Mutex::new(StderrTail::new(STDERR_TAIL, None)));
    keep_stderr(flood, tail.clone()).await.unwrap();
    let tail = lock(&tail);
    let (kept, dropped) = tail.kept();
    assert_eq!(
        (kept.len(), dropped),
        (STDERR_TAIL, 8 * 1024 * 1024 - STDERR_TAIL as u64)
    );
    assert!(tail.bytes.len() <= 2 * STDERR_TAIL);
}
