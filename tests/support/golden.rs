//! Golden files: a text compared with a committed file, or written to it when
//! `PIN_UPDATE` is set (a deliberate change, committed with its reason).

use std::path::Path;

/// Compares `got` with the committed file `dir/name`; a difference fails the test with
/// the first differing line and `regenerate`, the command that rewrites the file on
/// purpose. With `PIN_UPDATE` set it writes the file instead.
pub fn check(dir: &str, name: &str, got: &str, regenerate: &str) {
    let path = Path::new(dir).join(name);
    if std::env::var_os("PIN_UPDATE").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, got).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}; write it with {regenerate}", path.display()));
    if let Some(difference) = first_difference(&want, got) {
        panic!(
            "{name} is no longer byte-identical to {}\n{difference}\n\
             If the change is deliberate, regenerate with {regenerate} and commit the files with the reason.",
            path.display()
        );
    }
}

/// The first line where `want` and `got` differ, both versions shown around the
/// first differing character; `None` if they are equal.
pub fn first_difference(want: &str, got: &str) -> Option<String> {
    if want == got {
        return None;
    }
    let (mut want_lines, mut got_lines) = (want.split_inclusive('\n'), got.split_inclusive('\n'));
    for number in 1.. {
        let (w, g) = (want_lines.next(), got_lines.next());
        if w == g {
            continue;
        }
        let (w, g) = (w.unwrap_or("<end of file>"), g.unwrap_or("<end of file>"));
        let column = w.bytes().zip(g.bytes()).take_while(|(a, b)| a == b).count();
        return Some(format!(
            "first difference at line {number}, byte {}:\n  committed: {}\n  now:       {}",
            column + 1,
            excerpt(w, column),
            excerpt(g, column)
        ));
    }
    unreachable!("two different texts differ in some line")
}

/// A line, or for a long one 200 bytes either side of `column`.
fn excerpt(line: &str, column: usize) -> String {
    let line = line.trim_end_matches('\n');
    if line.len() <= 400 {
        return line.to_string();
    }
    let mut start = column.saturating_sub(200).min(line.len());
    let mut end = (column + 200).min(line.len());
    while !line.is_char_boundary(start) {
        start -= 1;
    }
    while !line.is_char_boundary(end) {
        end += 1;
    }
    let before = if start > 0 { "..." } else { "" };
    let after = if end < line.len() { "..." } else { "" };
    format!("{before}{}{after} ({} bytes)", &line[start..end], line.len())
}
