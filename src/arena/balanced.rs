//! Balanced opening suites of our own (`openings generate`): distinct seeded random
//! openings (the board's eight symmetries removed) whose value by the reference is
//! close to even, so a pair of games on one measures the players rather than the
//! opening's luck; and the value of each opening of a suite (`openings check`).
//!
//! The reference's pattern evaluation is not calibrated this early: it gives the side
//! to move about 10 discs at the start position (at every depth from 2 to 8), where
//! perfect play is a draw (Takizawa's 2023 weak solution). An opening's value is
//! therefore read against the start's: its *centred* value is its value for black less
//! the start's value for the side to move (from black's side), and the suite keeps
//! openings whose centred value lies within the bound.

use std::collections::HashSet;
use std::fmt::Write as _;
use std::path::Path;

use rayon::prelude::*;
use serde::Serialize;

use super::openings::OpeningSuite;
use super::play::random_opening;
use engines::Reference;
use game::othello::{margin_with_empties, Board, Color};
use game::{derive_seed, Othello};

/// The reference's search depth for valuing openings unless `--depth` says otherwise:
/// shallower than the reference's own default ([`engines::DEFAULT_DEPTH`]), since a
/// suite values thousands of candidates; the shipped suite was made with `--depth 8`
/// (docs/openings.md).
pub const OPENINGS_DEPTH: u32 = 6;

/// An opening with its value.
#[derive(Clone, Debug, PartialEq)]
pub struct RatedOpening {
    /// Its transcript, lower case.
    pub text: String,
    /// The position's value for black in discs (the reference's best move for the
    /// side to move, from black's side).
    pub value: f64,
    /// `value` less the start position's value for the side to move (from black's
    /// side): the reference's opening bias taken out.
    pub centred: f64,
}

/// The start position's value for its side to move by `reference`: the bias that
/// centred values take out.
pub fn start_bias(reference: &mut Reference) -> f64 {
    value_for_black(&Board::new(), reference)
}

fn rated(text: String, board: &Board, reference: &mut Reference, bias: f64) -> RatedOpening {
    let value = value_for_black(board, reference);
    let to_move = if board.must_pass() {
        !board.side_to_move()
    } else {
        board.side_to_move()
    };
    let centred = match to_move {
        Color::Black => value - bias,
        Color::White => value + bias,
    };
    RatedOpening { text, value, centred }
}

/// How to make a balanced suite.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BalancedSettings {
    /// Random plies an opening.
    pub plies: usize,
    /// Openings wanted.
    pub count: usize,
    /// The most an opening's centred value may lie from even, in discs.
    pub max_abs: f64,
    /// The reference's search depth (exact near the end, as the reference is).
    pub depth: u32,
    /// Seed of the random openings: opening candidate `i` is seeded by
    /// `derive_seed(seed, i)`.
    pub seed: u64,
    /// The most candidates drawn before giving up.
    pub max_candidates: usize,
}

impl BalancedSettings {
    /// `count` openings of `plies` random plies within `max_abs` discs of even by the
    /// reference at `depth`, seeded by `seed`; giving up after 1000 candidates an
    /// opening (at least 10,000).
    pub fn new(plies: usize, count: usize, max_abs: f64, depth: u32, seed: u64) -> BalancedSettings {
        BalancedSettings {
            plies,
            count,
            max_abs,
            depth,
            seed,
            max_candidates: count.saturating_mul(1000).max(10_000),
        }
    }
}

/// The value for black of `board` in discs by `reference` (after a forced pass, the
/// opponent's value; at the end, the final margin with empties to the winner).
pub fn value_for_black(board: &Board, reference: &mut Reference) -> f64 {
    let (mover, board) = if board.must_pass() {
        (!board.side_to_move(), board.with_side_to_move(!board.side_to_move()))
    } else {
        (board.side_to_move(), *board)
    };
    let for_mover = reference
        .score_moves(&board)
        .best()
        .unwrap_or_else(|| f64::from(margin_with_empties(board.count(mover), board.count(!mover))));
    match mover {
        Color::Black => for_mover,
        Color::White => -for_mover,
    }
}

/// Draws candidates in seed order, drops repeats of a position seen before (under the
/// eight symmetries) and keeps, in that order, the first `count` whose centred value
/// lies within `max_abs`; `progress` hears (candidates valued, kept) after each batch.
/// Returns the kept openings and the candidates drawn; the same settings always give
/// the same suite, whatever the number of threads.
pub fn balanced_openings(
    settings: &BalancedSettings,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> (Vec<RatedOpening>, usize) {
    const BATCH: usize = 64;
    let bias = start_bias(&mut Reference::new(engines::DEFAULT_EXACT_EMPTIES, settings.depth));
    let mut seen = HashSet::new();
    let mut kept = Vec::new();
    let mut drawn = 0;
    while kept.len() < settings.count && drawn < settings.max_candidates {
        let mut batch = Vec::new();
        while batch.len() < BATCH && drawn < settings.max_candidates {
            let line =
                random_opening::<Othello>(Board::new(), settings.plies, derive_seed(settings.seed, drawn as u64));
            drawn += 1;
            if seen.insert(line.board().symmetry_key()) {
                batch.push(line);
            }
        }
        let valued: Vec<RatedOpening> = batch
            .par_iter()
            .map_init(
                || Reference::new(engines::DEFAULT_EXACT_EMPTIES, settings.depth),
                |reference, line| {
                    let text = line
                        .moves()
                        .iter()
                        .map(ToString::to_string)
                        .map(|m| pass_as_pa(&m))
                        .collect();
                    rated(text, line.board(), reference, bias)
                },
            )
            .collect();
        kept.extend(valued.into_iter().filter(|o| o.centred.abs() <= settings.max_abs));
        kept.truncate(settings.count);
        progress(drawn, kept.len());
    }
    (kept, drawn)
}

/// Each opening of `suite` with its value by the reference at `depth`.
pub fn suite_values(suite: &OpeningSuite<Othello>, depth: u32) -> Vec<RatedOpening> {
    let bias = start_bias(&mut Reference::new(engines::DEFAULT_EXACT_EMPTIES, depth));
    suite
        .openings
        .par_iter()
        .map_init(
            || Reference::new(engines::DEFAULT_EXACT_EMPTIES, depth),
            |reference, opening| rated(opening.text.clone(), opening.line.board(), reference, bias),
        )
        .collect()
}

/// The suite file `openings generate` writes: the command that made it, how the values
/// were read (the start's `bias` for the side to move), then each opening with its value
/// and centred value as comments; of `drawn` candidates.
pub fn suite_file_text(settings: &BalancedSettings, openings: &[RatedOpening], drawn: usize, bias: f64) -> String {
    let s = settings;
    let mut text = format!(
        "# othello-arena openings generate --plies {} --count {} --max-abs {} --depth {} --seed {}\n\
         # {} distinct openings of {drawn} seeded candidates (symmetries removed) whose centred value by\n\
         # reference:{} lies within {} discs. The reference gives the side to move {:+.2} at the start;\n\
         # centred = value for black less that bias for the side to move. Comments: value, centred.\n",
        s.plies,
        s.count,
        s.max_abs,
        s.depth,
        s.seed,
        openings.len(),
        s.depth,
        s.max_abs,
        bias,
    );
    for opening in openings {
        let _ = writeln!(
            text,
            "{}  # {:+.2} {:+.2}",
            opening.text, opening.value, opening.centred
        );
    }
    text
}

/// The widest bar of [`histogram`], in `#`s.
const HISTOGRAM_WIDTH: usize = 60;

/// The centred values in one-disc bins, a bar of `#` each, scaled so the fullest bin
/// is `HISTOGRAM_WIDTH` wide (a suite of any size fits a terminal; a bin with any
/// opening shows at least one `#`).
pub fn histogram(openings: &[RatedOpening]) -> String {
    let mut bins = std::collections::BTreeMap::new();
    for opening in openings {
        *bins.entry(opening.centred.floor() as i64).or_insert(0usize) += 1;
    }
    let fullest = bins.values().copied().max().unwrap_or(1);
    let mut out = String::from("centred value (discs)  openings\n");
    for (low, count) in bins {
        let bar = (count * HISTOGRAM_WIDTH).div_ceil(fullest).min(HISTOGRAM_WIDTH);
        let _ = writeln!(out, "[{:+3}, {:+3})  {count:>5}  {}", low, low + 1, "#".repeat(bar));
    }
    out
}

/// The values of a suite's openings as `openings check` prints them: a table and the
/// histogram, or (`json`) the file, the depth and each opening's values.
pub fn suite_values_text(file: &Path, depth: u32, values: &[RatedOpening], json: bool) -> String {
    #[derive(Serialize)]
    struct Row<'a> {
        centred: f64,
        opening: &'a str,
        value: f64,
    }
    #[derive(Serialize)]
    struct Check<'a> {
        depth: u32,
        file: &'a Path,
        openings: Vec<Row<'a>>,
    }
    if json {
        let openings = values
            .iter()
            .map(|o| Row {
                centred: o.centred,
                opening: &o.text,
                value: o.value,
            })
            .collect();
        return serde_json::to_string(&Check { depth, file, openings }).unwrap_or_default() + "\n";
    }
    let mut out = format!("{:<40} {:>7} {:>8}\n", "opening", "value", "centred");
    for o in values {
        let _ = writeln!(out, "{:<40} {:>+7.2} {:>+8.2}", o.text, o.value, o.centred);
    }
    out + &histogram(values)
}

fn pass_as_pa(mv: &str) -> String {
    if mv == "pass" {
        "pa".to_string()
    } else {
        mv.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_balanced_suite_is_distinct_within_its_bound_and_seeded() {
        let settings = BalancedSettings {
            plies: 4,
            count: 5,
            max_abs: 4.0,
            depth: 2,
            seed: 9,
            max_candidates: 2000,
        };
        let (suite, drawn) = balanced_openings(&settings, &|_, _| {});
        assert_eq!(suite.len(), 5);
        assert!(drawn >= 5);
        assert!(suite.iter().all(|o| o.centred.abs() <= 4.0 && o.text.len() == 8));
        let keys: HashSet<_> = suite
            .iter()
            .map(|o| {
                let line = OpeningSuite::<Othello>::parse("t", &o.text).unwrap();
                line.openings[0].line.board().symmetry_key()
            })
            .collect();
        assert_eq!(keys.len(), 5, "no two openings are one position under symmetry");
        assert_eq!(balanced_openings(&settings, &|_, _| {}).0, suite);
    }

    #[test]
    fn the_four_first_moves_are_one_opening_and_the_start_is_even() {
        let mut reference = Reference::new(18, 2);
        let keys: HashSet<_> = ["d3", "c4", "f5", "e6"]
            .iter()
            .map(|m| Board::new().play(m.parse().unwrap()).symmetry_key())
            .collect();
        assert_eq!(keys.len(), 1);
        // After a forced pass the value is the opponent's; at the end, the margin.
        let ended = Board::parse_squares(&"X".repeat(64), Color::White).unwrap();
        assert_eq!(value_for_black(&ended, &mut reference), 64.0);
    }
}
