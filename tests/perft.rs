//! Perft against the published counts (tests/data/perft.txt), all three conventions.
//! `cargo test` checks depths 1-11; `othello-arena bench perft` and the ignored test
//! below go deeper.

use game::othello::{perft, Board, Convention};

fn published() -> Vec<(u32, [u64; 3])> {
    let text = include_str!("data/perft.txt");
    text.lines()
        .filter(|line| !line.starts_with('#') && !line.trim().is_empty())
        .map(|line| {
            let fields: Vec<u64> = line
                .split_whitespace()
                .map(|f| f.parse().expect("numeric field"))
                .collect();
            (fields[0] as u32, [fields[1], fields[2], fields[3]])
        })
        .collect()
}

fn check(max_depth: u32) {
    let conventions = [Convention::A, Convention::B, Convention::C];
    let rows: Vec<_> = published().into_iter().filter(|(d, _)| *d <= max_depth).collect();
    assert_eq!(
        rows.len(),
        max_depth as usize,
        "the data file covers depths 1..={max_depth}"
    );
    for (depth, expected) in rows {
        for (convention, want) in conventions.iter().zip(expected) {
            assert_eq!(
                perft(&Board::new(), depth, *convention),
                want,
                "depth {depth} convention {convention}"
            );
        }
    }
}

#[test]
fn perft_matches_published_counts_to_depth_11() {
    check(11);
}

#[test]
#[ignore = "about 2 minutes; run with --ignored"]
fn perft_matches_published_counts_to_depth_13() {
    check(13);
}
