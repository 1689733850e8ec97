//! Reading the model's final answer: which move did it name, and how cleanly?
//!
//! Only the text after the last `</think>` counts (never the separate `thinking`
//! field). A coordinate is a column a-h and a row 1-8 standing alone (not inside a
//! longer word), either case. The answer is *clean* when, once markdown emphasis,
//! quotes and final punctuation are stripped, it is exactly one coordinate;
//! otherwise a move *extracted* from prose.

use crate::AnswerPolicy;
use game::othello::{Bitboard, Square};

pub use record::AnswerKind;

/// What an answer amounts to. Every answer that is no move says why, and the model is
/// told exactly that (`text::rejection` builds the reason and the message from it;
/// `Answer::why_rejected` is written beside it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    /// A legal move.
    Move {
        /// The square.
        square: Square,
        /// Clean or extracted.
        kind: AnswerKind,
    },
    /// The answer names coordinates, none of them legal.
    Illegal {
        /// Every coordinate found, in order.
        found: Vec<Square>,
    },
    /// Several legal squares where only a bare square counts (see [`parse_answer`]): a
    /// list such as `b5, g5` is no choice.
    SeveralMoves {
        /// The legal squares named, each once, in order.
        named: Vec<Square>,
    },
    /// One square with other words where only a bare square counts (the strict
    /// policy, or direct mode without `</think>`).
    NotStrict,
    /// No coordinate at all (empty, or prose only).
    NoCoordinate,
    /// A `<think>` block opened and never closed, by a reply that ended by itself.
    UnfinishedThinking,
    /// The server cut the reply off at the token limit before it named a legal move
    /// (its `done_reason` / `finish_reason` is `length`; the text alone cannot tell).
    CutOff {
        /// Cut off while thinking (the agent's `cut_off` reading of the reply).
        thinking: bool,
    },
    /// A tool call written as text when no tools are offered (the agent's tool budget
    /// is spent): never read as a move.
    ToolCallText,
    /// A structured answer that is not JSON against the schema (`--answer-format`).
    SchemaViolation,
}

/// What a reply the server cut off at the token limit amounts to when it named no
/// legal move: cut off while thinking when its `content` opened `<think>` and never
/// closed it, when it is empty after `thinking` (the server's separate field), or, with
/// `think_first` (direct mode, where the model's template may open the block itself),
/// when it holds no `</think>` at all; else cut off in its answer.
pub fn cut_off(content: &str, thinking: Option<&str>, think_first: bool) -> Answer {
    let open = !content.contains("</think>") && (think_first || content.contains("<think>"));
    let only_thought = content.trim().is_empty() && thinking.is_some_and(|t| !t.trim().is_empty());
    Answer::CutOff {
        thinking: open || only_thought,
    }
}

/// The text that counts as the answer: after the last `</think>`; empty when a
/// `<think>` block was opened and never closed.
pub fn answer_text(content: &str) -> &str {
    if let Some(end) = content.rfind("</think>") {
        return &content[end + "</think>".len()..];
    }
    if content.contains("<think>") {
        return "";
    }
    content
}

/// Every standalone coordinate in `text`, in order.
pub fn coordinates(text: &str) -> Vec<Square> {
    let chars: Vec<char> = text.chars().collect();
    let mut found = Vec::new();
    for i in 0..chars.len().saturating_sub(1) {
        let (c, r) = (chars[i], chars[i + 1]);
        let before_ok = i == 0 || !chars[i - 1].is_ascii_alphanumeric();
        let after_ok = chars.get(i + 2).is_none_or(|n| !n.is_ascii_alphanumeric());
        if before_ok && after_ok && c.is_ascii_alphabetic() && r.is_ascii_digit() {
            if let Ok(square) = format!("{c}{r}").parse::<Square>() {
                found.push(square);
            }
        }
    }
    found
}

/// Whether `text` is exactly one coordinate once wrapping marks are stripped.
fn is_clean(text: &str) -> bool {
    let stripped = text.trim().trim_matches(|c: char| "*`\"'「」.。!！ \n\t".contains(c));
    stripped.len() == 2 && coordinates(stripped).len() == 1
}

/// Reads the move from a final answer's `content` under `policy`.
///
/// With `think_first` (direct mode) an answer without `</think>` counts only when it is
/// clean, a bare square, for two kinds of model. One whose template opens the `<think>`
/// block itself writes no `<think>`, so text without `</think>` may be its thinking, cut
/// short: its squares are candidates, not a choice (the runner calls that reply cut off
/// when the server says so). One that never thinks (qwen2.5-coder-0.5b writes no
/// `<think>`) often answers with a list such as `b5, g5`: that names several moves, and
/// reading the last would invent a choice it never made. Either way the answer is
/// refused for what it is: several legal squares ([`Answer::SeveralMoves`]), none legal
/// ([`Answer::Illegal`]), or one legal square with other words ([`Answer::NotStrict`]); never
/// "no coordinate" when a coordinate was read.
pub fn parse_answer(content: &str, legal: Bitboard, policy: AnswerPolicy, think_first: bool) -> Answer {
    let closed = content.contains("</think>");
    if !closed && content.contains("<think>") {
        return Answer::UnfinishedThinking;
    }
    let text = answer_text(content);
    let found = coordinates(text);
    if found.is_empty() {
        return Answer::NoCoordinate;
    }
    let clean = is_clean(text);
    if !clean && (policy == AnswerPolicy::Strict || (think_first && !closed)) {
        return not_bare(found, legal);
    }
    let kind = if clean {
        AnswerKind::Clean
    } else {
        AnswerKind::Extracted
    };
    let pick = match policy {
        AnswerPolicy::First => found.iter().find(|sq| legal.contains(**sq)),
        AnswerPolicy::Last | AnswerPolicy::Strict => found.iter().rev().find(|sq| legal.contains(**sq)),
    };
    match pick {
        Some(&square) => Answer::Move { square, kind },
        None => Answer::Illegal { found },
    }
}

/// Why an answer that is not a bare square fails where only a bare square counts: the
/// squares `found` are none of them legal, several legal ones, or one legal square among
/// other words.
fn not_bare(found: Vec<Square>, legal: Bitboard) -> Answer {
    let mut named: Vec<Square> = Vec::new();
    for &square in &found {
        if legal.contains(square) && !named.contains(&square) {
            named.push(square);
        }
    }
    match named.len() {
        0 => Answer::Illegal { found },
        1 => Answer::NotStrict,
        _ => Answer::SeveralMoves { named },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use game::othello::Bitboard;

    /// Rows of tests/data/answers.txt: `policy | legal moves | expected | content`,
    /// with `\n` for a newline in the content; a policy written `direct last` reads the
    /// answer as direct mode does (`think_first`).
    #[test]
    fn answers_table() {
        let table = include_str!("../../tests/data/answers.txt");
        let mut rows = 0;
        for (number, line) in table.lines().enumerate() {
            if line.starts_with('#') || line.trim().is_empty() {
                continue;
            }
            let fields: Vec<&str> = line.splitn(4, " | ").collect();
            assert_eq!(fields.len(), 4, "line {}: {line}", number + 1);
            let (think_first, policy) = match fields[0].strip_prefix("direct ") {
                Some(policy) => (true, policy),
                None => (false, fields[0]),
            };
            let policy: AnswerPolicy = policy.parse().unwrap();
            let legal = fields[1]
                .split(',')
                .map(|s| s.trim().parse::<Square>().unwrap().bit())
                .fold(0, |a, b| a | b);
            let content = fields[3].replace("\\n", "\n");
            let answer = parse_answer(&content, Bitboard(legal), policy, think_first);
            let got = match &answer {
                Answer::Move {
                    square,
                    kind: AnswerKind::Clean,
                } => format!("{square} clean"),
                Answer::Move {
                    square,
                    kind: AnswerKind::Extracted,
                } => format!("{square} extracted"),
                Answer::Illegal { .. } => "illegal".to_string(),
                Answer::SeveralMoves { named } => {
                    let named: Vec<String> = named.iter().map(ToString::to_string).collect();
                    format!("several {}", named.join(","))
                }
                Answer::NotStrict => "notstrict".to_string(),
                Answer::NoCoordinate => "none".to_string(),
                Answer::UnfinishedThinking => "unfinished".to_string(),
                // Never read from text alone.
                Answer::CutOff { .. } | Answer::ToolCallText | Answer::SchemaViolation => format!("{:?}", answer),
            };
            assert_eq!(got, fields[2].trim(), "line {}: {line}", number + 1);
            rows += 1;
        }
        assert!(rows >= 20);
    }

    #[test]
    fn direct_mode_reads_only_a_bare_square_without_think_and_says_why_not() {
        let legal = Bitboard(["d3", "c4"].iter().map(|s| s.parse::<Square>().unwrap().bit()).sum());
        let read = |content| parse_answer(content, legal, AnswerPolicy::Last, true);
        let square = |s: &str| s.parse::<Square>().unwrap();
        // A square was read: never "no coordinate".
        assert_eq!(read("d3 looks good"), Answer::NotStrict);
        assert_eq!(
            read("d3, c4, d3"),
            Answer::SeveralMoves {
                named: vec![square("d3"), square("c4")]
            }
        );
        assert_eq!(
            read("a1, h8"),
            Answer::Illegal {
                found: vec![square("a1"), square("h8")]
            }
        );
        assert_eq!(read("<think>d3 or c4"), Answer::UnfinishedThinking);
        assert_eq!(read("I cannot decide."), Answer::NoCoordinate);
        for (content, kind) in [
            ("d3 looks good</think>\nd3", AnswerKind::Clean),
            ("d3", AnswerKind::Clean),
            ("c4 or d3?</think>\nI play d3.", AnswerKind::Extracted),
        ] {
            assert_eq!(
                read(content),
                Answer::Move {
                    square: square("d3"),
                    kind
                },
                "{content}"
            );
        }
    }

    #[test]
    fn a_reply_cut_off_says_whether_it_was_still_thinking() {
        let thinking =
            |content, field, think_first| cut_off(content, field, think_first) == Answer::CutOff { thinking: true };
        assert!(thinking("<think>the corners", None, false));
        assert!(thinking("The corners matter, so d3 or", None, true));
        assert!(thinking("", Some("the corners"), false));
        assert!(!thinking("The corners matter, so d3 or", None, false));
        assert!(!thinking("<think>d3?</think>{\"move\": ", None, true));
        assert!(!thinking("", None, false));
    }

    #[test]
    fn coordinates_stand_alone() {
        // Japanese text may touch a coordinate ("c4は"); ASCII letters and digits may not.
        let found: Vec<String> = coordinates("D3, e6; a1b2 x9 h8. c4は")
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(found, ["d3", "e6", "h8", "c4"]);
    }
}
