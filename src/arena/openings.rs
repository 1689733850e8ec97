//! Where a run's games start: a few seeded random plies (`--opening-random`), or an
//! opening suite read from a file (`--openings FILE`), pair `p` of every pairing on the
//! suite's `p`-th opening, both colours of a pair on the same one.
//!
//! A suite file holds one opening per line: a move transcript (`f5d6c3`, `F5 D6 C3`,
//! `--` or `pa` for a pass, which may be left out where it is forced) or a board of square characters (`X`/`*` black, `O` white,
//! `-` empty) followed by the side to move (`X`/`B`/`black`, `O`/`W`/`white`), as OBF
//! files write it (a trailing `;` and `%` comment are ignored). `#` starts a comment;
//! blank lines are skipped.

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use agent::ModelGame;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use super::play::random_opening;
use super::scheduled::ScheduledGame;
use game::othello::{Board, Color};
use game::Line;
use runs::{OpeningsOrder, OpeningsRecord};

/// A line of a suite file that is not an opening, with its number (from 1).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {reason}")]
pub struct SuiteLineError {
    /// The line's number, from 1.
    pub line: usize,
    /// What is wrong with it.
    pub reason: String,
}

/// One opening of a suite: the position and moves it starts from, and its text as a
/// record names it (the transcript, or the board and the side to move).
#[derive(Clone, Debug, PartialEq)]
pub struct SuiteOpening<R: ModelGame> {
    /// The opening as a game line (a board opening is a line with no moves).
    pub line: Line<R>,
    /// The transcript in lower case (`f5d6c3`, passes `pa`), or `BOARD SIDE`.
    pub text: String,
}

/// The openings of a suite file, checked against the rules, in the file's order.
#[derive(Clone, Debug, PartialEq)]
pub struct OpeningSuite<R: ModelGame> {
    /// The openings.
    pub openings: Vec<SuiteOpening<R>>,
    /// The file as given on the command line or in the tournament file.
    pub file: String,
    /// sha256 of the file's text, hex.
    pub sha256: String,
}

impl<R: ModelGame> OpeningSuite<R> {
    /// Reads a suite file's text: every line checked against the rules (a transcript
    /// of legal moves, or a board the side to move can play from), the first bad one
    /// refused with its number. An opening that leaves no game to play, and a file with
    /// no opening, are refused too.
    pub fn parse(file: &str, text: &str) -> Result<OpeningSuite<R>, SuiteLineError> {
        let mut openings = Vec::new();
        // A byte-order mark (as some editors save UTF-8) is not part of the first line.
        let body = text.strip_prefix('\u{feff}').unwrap_or(text);
        for (index, raw) in body.lines().enumerate() {
            let line = index + 1;
            let content = raw.split('#').next().unwrap_or_default().trim();
            if content.is_empty() {
                continue;
            }
            let opening = parse_opening::<R>(content).map_err(|reason| SuiteLineError { line, reason })?;
            if opening.line.is_over() {
                return Err(SuiteLineError {
                    line,
                    reason: format!("{} ends the game: an opening must leave a game to play", opening.text),
                });
            }
            openings.push(opening);
        }
        if openings.is_empty() {
            return Err(SuiteLineError {
                line: text.lines().count(),
                reason: "no opening in the file (one transcript or board a line)".to_string(),
            });
        }
        Ok(OpeningSuite {
            openings,
            file: file.to_string(),
            sha256: agent::sha256_hex(text),
        })
    }

    /// A note for each opening that reaches the position of an earlier one (for
    /// Othello also under one of the board's eight symmetries, with the same side to
    /// move): such a suite plays one position more than once, which a reader should
    /// know. The openings are numbered from 1 in the file's order.
    pub fn repeats(&self) -> Vec<String> {
        let mut first: HashMap<String, usize> = HashMap::new();
        let mut notes = Vec::new();
        for (i, opening) in self.openings.iter().enumerate() {
            let position = opening.line.board();
            let key = match Board::parse_squares(&R::to_squares(position), R::to_move(position)) {
                Ok(board) => format!("{:?}", board.symmetry_key()),
                Err(_) => format!("{} {}", R::to_squares(position), R::to_move(position)),
            };
            match first.get(&key) {
                Some(&earlier) => notes.push(format!(
                    "opening {} ({}) reaches the position of opening {earlier} ({}){}",
                    i + 1,
                    opening.text,
                    self.openings[earlier - 1].text,
                    if self.openings[earlier - 1].line.board() == position {
                        ""
                    } else {
                        ", mirrored or rotated"
                    }
                )),
                None => {
                    first.insert(key, i + 1);
                }
            }
        }
        notes
    }
}

/// Reads one opening: a board and its side to move, or a move transcript.
fn parse_opening<R: ModelGame>(content: &str) -> Result<SuiteOpening<R>, String> {
    // OBF lines end with `;` and may carry a `%` comment.
    let content = content
        .split('%')
        .next()
        .unwrap_or_default()
        .trim()
        .trim_end_matches(';')
        .trim();
    let words: Vec<&str> = content.split_whitespace().collect();
    if let [board, side] = words[..] {
        if let Ok(to_move) = parse_side(side) {
            let position = R::parse_squares(board, to_move).map_err(|e| format!("bad board {board:?}: {e}"))?;
            if R::legal_moves(&position).is_empty() && !R::is_over(&position) {
                return Err(format!(
                    "{to_move} is to move on the board {board:?} with no legal move: give the other side"
                ));
            }
            return Ok(SuiteOpening {
                line: Line::new(position),
                text: format!("{} {}", R::to_squares(&position), side_mark::<R>(to_move)),
            });
        }
    }
    let compact: String = content.chars().filter(|c| !c.is_whitespace()).collect();
    if compact.len() % 2 == 1 || !compact.is_ascii() {
        return Err(format!(
            "{content:?} is neither a move transcript (two characters a move, as in f5d6c3; \
             -- or pa for a pass) nor a board with the side to move"
        ));
    }
    let mut line = Line::<R>::new(R::start());
    let mut text = String::new();
    for (i, chunk) in compact.as_bytes().chunks(2).enumerate() {
        let word = std::str::from_utf8(chunk).expect("the transcript is ASCII");
        let is_pass = word == "--" || word.eq_ignore_ascii_case("pa");
        let mv = if is_pass {
            R::forced_move(line.board()).ok_or_else(|| {
                format!(
                    "move {} ({word}) passes, but {} has a legal move",
                    i + 1,
                    R::to_move(line.board())
                )
            })?
        } else {
            // A transcript may leave a forced pass out, as most do.
            if let Some(pass) = R::forced_move(line.board()) {
                line.try_play(pass).expect("a forced move is legal");
                text.push_str("pa");
            }
            game::parse_move::<R>(word).map_err(|e| format!("move {}: {e}", i + 1))?
        };
        line.try_play(mv).map_err(|e| format!("move {} ({word}): {e}", i + 1))?;
        text.push_str(&if is_pass {
            "pa".to_string()
        } else {
            word.to_ascii_lowercase()
        });
    }
    Ok(SuiteOpening { line, text })
}

fn parse_side(word: &str) -> Result<Color, ()> {
    match word.to_ascii_lowercase().as_str() {
        "x" | "b" | "*" | "black" => Ok(Color::Black),
        "o" | "w" | "white" => Ok(Color::White),
        _ => Err(()),
    }
}

fn side_mark<R: ModelGame>(color: Color) -> char {
    match (color, R::BLACK_MARK) {
        (Color::Black, mark) => mark,
        (Color::White, 'X') => 'O',
        (Color::White, _) => 'X',
    }
}

/// Where every game of a run starts.
#[derive(Clone, Debug)]
pub enum Openings<R: ModelGame> {
    /// `plies` uniformly random moves, seeded by each game's opening seed.
    Random {
        /// Random plies.
        plies: usize,
    },
    /// A suite: pair `p` plays `order[p]` (modulo the suite's size when it cycles).
    Suite(Arc<DealtSuite<R>>),
}

/// A suite in the order a run deals it.
#[derive(Clone, Debug)]
pub struct DealtSuite<R: ModelGame> {
    /// The suite.
    pub suite: OpeningSuite<R>,
    /// How it is dealt.
    pub order: OpeningsOrder,
    /// Whether pairs beyond the suite's size start over from its first dealt opening.
    pub cycle: bool,
    /// Index into the suite of the opening each pair plays, in dealing order.
    dealt: Vec<usize>,
}

impl<R: ModelGame> Openings<R> {
    /// `plies` random plies a game.
    pub fn random(plies: usize) -> Openings<R> {
        Openings::Random { plies }
    }

    /// `suite` dealt in `order` (shuffled by `seed`), cycling only when `cycle`.
    pub fn suite(suite: OpeningSuite<R>, order: OpeningsOrder, cycle: bool, seed: u64) -> Openings<R> {
        let mut dealt: Vec<usize> = (0..suite.openings.len()).collect();
        if order == OpeningsOrder::Shuffle {
            dealt.shuffle(&mut ChaCha8Rng::seed_from_u64(seed));
        }
        Openings::Suite(Arc::new(DealtSuite {
            suite,
            order,
            cycle,
            dealt,
        }))
    }

    /// Checks that every pair of `schedule` has an opening: a suite smaller than its
    /// pairs is refused unless it cycles.
    pub fn check(&self, schedule: &[ScheduledGame]) -> Result<(), String> {
        let pairs = pairs_of(schedule);
        match self {
            Openings::Suite(dealt) if !dealt.cycle && pairs > dealt.dealt.len() => Err(format!(
                "{} pairs of games ask for {pairs} openings, but {} holds {}: play fewer games, or let the \
                 suite start over (--openings-cycle, or openings_cycle = true)",
                pairs,
                dealt.suite.file,
                dealt.dealt.len()
            )),
            _ => Ok(()),
        }
    }

    /// The opening of `game`: its random plies, or its pair's opening of the suite.
    pub fn line(&self, game: &ScheduledGame) -> Line<R> {
        match self {
            Openings::Random { plies } => random_opening::<R>(R::start(), *plies, game.opening_seed),
            Openings::Suite(dealt) => dealt.suite.openings[dealt.index(game.pair)].line.clone(),
        }
    }

    /// The suite line `game` starts from, as its log names it (`None` for a random
    /// opening).
    pub fn name(&self, game: &ScheduledGame) -> Option<String> {
        match self {
            Openings::Random { .. } => None,
            Openings::Suite(dealt) => Some(dealt.suite.openings[dealt.index(game.pair)].text.clone()),
        }
    }

    /// The openings the pairs of `schedule` play, in pair order, as run.json records
    /// them (`None` for random openings).
    pub fn record(&self, schedule: &[ScheduledGame]) -> Option<OpeningsRecord> {
        let Openings::Suite(dealt) = self else {
            return None;
        };
        let pairs = pairs_of(schedule);
        let dealt_pairs = if dealt.cycle {
            pairs
        } else {
            pairs.min(dealt.dealt.len())
        };
        let used = (0..dealt_pairs)
            .map(|pair| dealt.suite.openings[dealt.index(pair)].text.clone())
            .collect();
        Some(OpeningsRecord {
            file: dealt.suite.file.clone(),
            sha256: dealt.suite.sha256.clone(),
            openings_in_file: dealt.suite.openings.len(),
            order: dealt.order,
            cycle: dealt.cycle,
            used,
        })
    }
}

/// How many pairs `schedule`'s pairings play (the most of any pairing).
fn pairs_of(schedule: &[ScheduledGame]) -> usize {
    schedule.iter().map(|game| game.pair + 1).max().unwrap_or(0)
}

impl<R: ModelGame> fmt::Display for Openings<R> {
    /// `4 random opening plies`, or `openings from FILE (N, shuffle)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Openings::Random { plies } => write!(f, "{plies} random opening plies"),
            Openings::Suite(dealt) => write!(
                f,
                "openings from {} ({}, {}{})",
                dealt.suite.file,
                dealt.suite.openings.len(),
                dealt.order,
                if dealt.cycle { ", cycling" } else { "" }
            ),
        }
    }
}

impl<R: ModelGame> DealtSuite<R> {
    fn index(&self, pair: usize) -> usize {
        self.dealt[pair % self.dealt.len()]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use game::{Othello, Rules};

    fn suite(text: &str) -> Result<OpeningSuite<Othello>, SuiteLineError> {
        OpeningSuite::parse("suite.txt", text)
    }

    #[test]
    fn a_suite_reads_transcripts_in_either_case_and_boards_with_their_side() {
        let after_f5 = game::othello::Board::new().play("f5".parse().unwrap());
        let text = format!(
            "# XOT-like\n\nf5d6c3\nF5 D6 C4   # spaced, upper case\n{} O;\n",
            after_f5.to_squares_string()
        );
        let suite = suite(&text).unwrap();
        let texts: Vec<&str> = suite.openings.iter().map(|o| o.text.as_str()).collect();
        assert_eq!(texts[..2], ["f5d6c3", "f5d6c4"]);
        assert_eq!(suite.openings[0].line.moves().len(), 3);
        let board = &suite.openings[2].line;
        assert!(board.moves().is_empty());
        assert_eq!(Othello::to_move(board.board()), Color::White);
        assert_eq!(*board.board(), after_f5);
        assert_eq!(suite.sha256, agent::sha256_hex(&text));
        let err = suite_err("XX-- O\n");
        assert!(err.reason.starts_with("bad board"), "{err}");
    }

    fn suite_err(text: &str) -> SuiteLineError {
        suite(text).unwrap_err()
    }

    #[test]
    fn a_bad_line_is_refused_with_its_number() {
        let err = suite("f5d6\n\nf5d6c9\n").unwrap_err();
        assert_eq!(err.line, 3);
        assert!(err.reason.contains("move 3"), "{err}");
        let err = suite("f5f5\n").unwrap_err();
        assert!(err.reason.contains("move 2 (f5)"), "{err}");
        assert_eq!(suite("f5d\n").unwrap_err().line, 1);
        assert_eq!(suite("f5--\n").unwrap_err().line, 1);
        assert!(suite("# nothing\n").unwrap_err().reason.contains("no opening"));
    }

    #[test]
    fn shuffled_suites_are_seeded_and_small_ones_refuse_more_pairs() {
        let text: String = ["f5d6", "f5f6", "f5f4", "f5d6c3", "f5d6c4"]
            .map(|t| format!("{t}\n"))
            .concat();
        let pairs = |n: usize| -> Vec<ScheduledGame> {
            let names = ["a".to_string(), "b".to_string()];
            crate::Plan::new(&names, &[(0, 1)], n, true, 1, 1).schedule
        };
        let deal = |seed| {
            let openings = Openings::suite(suite(&text).unwrap(), OpeningsOrder::Shuffle, false, seed);
            openings.record(&pairs(5)).unwrap().used
        };
        assert_eq!(deal(1), deal(1));
        assert_ne!(deal(1), deal(2));
        let openings = Openings::suite(suite(&text).unwrap(), OpeningsOrder::Sequential, false, 1);
        assert!(openings.check(&pairs(5)).is_ok());
        assert!(openings.check(&pairs(6)).unwrap_err().contains("--openings-cycle"));
        let cycling = Openings::suite(suite(&text).unwrap(), OpeningsOrder::Sequential, true, 1);
        assert!(cycling.check(&pairs(6)).is_ok());
        let six = pairs(6);
        assert_eq!(cycling.record(&six).unwrap().used[5], "f5d6");
        // Both games of a pair start from the pair's opening.
        assert_eq!(cycling.line(&six[2]), cycling.line(&six[3]));
        assert_eq!(cycling.line(&six[2]).moves().len(), 2);
    }

    #[test]
    fn a_byte_order_mark_is_skipped_and_repeats_are_noted() {
        let suite = OpeningSuite::<Othello>::parse("t", "\u{feff}f5d6\nc4c3\nf5d6\nd3c5\n").unwrap();
        assert_eq!(suite.openings[0].text, "f5d6");
        let notes = suite.repeats();
        // The third line is f5d6 again; d3c5 is f5d6 mirrored; c4c3 is another opening.
        assert_eq!(notes.len(), 2, "{notes:?}");
        assert!(notes[0].starts_with("opening 3 (f5d6) reaches the position of opening 1 (f5d6)"));
        assert!(!notes[0].contains("mirrored"), "{notes:?}");
        assert!(notes[1].starts_with("opening 4 (d3c5) reaches the position of opening 1 (f5d6), mirrored"));
        let distinct = OpeningSuite::<Othello>::parse("t", "f5d6\nf5f6\n").unwrap();
        assert!(distinct.repeats().is_empty());
    }
}
