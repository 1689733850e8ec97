//! Reading the model's final answer: which move did it name, and how cleanly?
//!
//! Only the text after the last `</think>` counts (never the separate `thinking`
//! field). A coordinate is a column a-h and a row 1-8 standing alone (not inside a
//! longer word), either case. The answer is *clean* when, once markdown emphasis,
//! quotes and final punctuation are stripped, it is exactly one coordinate;
//! otherwise a move *extracted* from prose.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use game::othello::{Bitboard, Square};

/// Which coordinate of an answer is taken.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AnswerPolicy {
    /// The last legal coordinate (seed 000: the decision usually comes last).
    #[default]
    Last,
    /// The first legal coordinate.
    First,
    /// Only a clean answer: exactly one coordinate and nothing else.
    Strict,
}

impl FromStr for AnswerPolicy {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "last" => Ok(AnswerPolicy::Last),
            "first" => Ok(AnswerPolicy::First),
            "strict" => Ok(AnswerPolicy::Strict),
            other => Err(format!(
                "invalid answer policy {other:?}: expected last, first or strict"
            )),
        }
    }
}

impl fmt::Display for AnswerPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            AnswerPolicy::Last => "last",
            AnswerPolicy::First => "first",
            AnswerPolicy::Strict => "strict",
        })
    }
}

pub use record::AnswerKind;

/// What an answer amounts to.
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
    /// Under the strict policy, an answer that is not exactly one coordinate.
    NotStrict,
    /// No coordinate at all (empty, prose only, or an unfinished `<think>` block).
    NoCoordinate,
    /// A tool call written as text when no tools are offered (the agent's tool budget
    /// is spent): never read as a move.
    ToolCallText,
    /// A structured answer that is not JSON against the schema (`--answer-format`).
    SchemaViolation,
}

impl Answer {
    /// Why an answer that is no move did not count, in a few words for a reader.
    pub fn why_rejected(&self) -> String {
        match self {
            Answer::Move { square, .. } => format!("{square} is a legal move (not rejected)"),
            Answer::Illegal { found } => {
                let named = found.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ");
                format!("no legal move named (named: {named})")
            }
            Answer::NotStrict => "not exactly one coordinate (strict answers)".to_string(),
            Answer::NoCoordinate => "no coordinate read".to_string(),
            Answer::ToolCallText => "a tool call written as text after the tools were withdrawn".to_string(),
            Answer::SchemaViolation => "not JSON of the answer's schema".to_string(),
        }
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
/// With `think_first` (direct mode, where the model's template may open the `<think>`
/// block itself) an answer without `</think>` counts only when it is clean: prose
/// without a closing tag is unfinished thinking, and digging a coordinate out of it
/// would invent a move the model never chose.
pub fn parse_answer(content: &str, legal: Bitboard, policy: AnswerPolicy, think_first: bool) -> Answer {
    let text = answer_text(content);
    let found = coordinates(text);
    if found.is_empty() {
        return Answer::NoCoordinate;
    }
    let clean = is_clean(text);
    if think_first && !clean && !content.contains("</think>") {
        return Answer::NoCoordinate;
    }
    if policy == AnswerPolicy::Strict && !clean {
        return Answer::NotStrict;
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

#[cfg(test)]
mod tests {
    use super::*;
    use game::othello::Bitboard;

    /// Rows of tests/data/answers.txt: `policy | legal moves | expected | content`,
    /// with `\n` for a newline in the content.
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
            let policy: AnswerPolicy = fields[0].parse().unwrap();
            let legal = fields[1]
                .split(',')
                .map(|s| s.trim().parse::<Square>().unwrap().bit())
                .fold(0, |a, b| a | b);
            let content = fields[3].replace("\\n", "\n");
            let got = match parse_answer(&content, Bitboard(legal), policy, false) {
                Answer::Move {
                    square,
                    kind: AnswerKind::Clean,
                } => format!("{square} clean"),
                Answer::Move {
                    square,
                    kind: AnswerKind::Extracted,
                } => format!("{square} extracted"),
                Answer::Illegal { .. } => "illegal".to_string(),
                Answer::NotStrict => "notstrict".to_string(),
                Answer::NoCoordinate | Answer::ToolCallText | Answer::SchemaViolation => "none".to_string(),
            };
            assert_eq!(got, fields[2].trim(), "line {}: {line}", number + 1);
            rows += 1;
        }
        assert!(rows >= 20);
    }

    #[test]
    fn direct_mode_never_reads_a_move_out_of_unfinished_thinking() {
        let legal = Bitboard("d3".parse::<Square>().unwrap().bit());
        assert_eq!(
            parse_answer("d3 looks good", legal, AnswerPolicy::Last, true),
            Answer::NoCoordinate
        );
        let closed = parse_answer("d3 looks good</think>\nd3", legal, AnswerPolicy::Last, true);
        assert!(matches!(
            closed,
            Answer::Move {
                kind: AnswerKind::Clean,
                ..
            }
        ));
        let bare = parse_answer("d3", legal, AnswerPolicy::Last, true);
        assert!(matches!(
            bare,
            Answer::Move {
                kind: AnswerKind::Clean,
                ..
            }
        ));
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
