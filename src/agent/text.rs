//! What the harness itself says to the model during a move, each sentence written
//! once per language: the nudge once the tool budget is spent, the feedback on an
//! answer without a legal move, the note on an answer cut off at the token limit, and
//! the JSON-answer instruction. English boards get
//! English, Japanese boards (seed 000's labels) Japanese.

use std::fmt::Display;

use game::othello::Labels;

/// The sentences of one language.
struct Words {
    /// Joins two sentences.
    gap: &'static str,
    /// Before the legal moves.
    legal_before: &'static str,
    /// After the legal moves.
    legal_after: &'static str,
    /// Asks for one of the legal moves.
    answer: &'static str,
    /// Asks for one of them now (tools are withdrawn).
    answer_now: &'static str,
    /// Opens the nudge once the tool budget is spent.
    no_more_simulations: &'static str,
    /// Follows the squares an answer named that are not legal.
    not_legal: &'static str,
    /// An answer that named no legal square.
    names_no_move: &'static str,
    /// Asks for the JSON answer.
    json_answer: &'static str,
    /// An answer the server cut off at the token limit.
    cut_off: &'static str,
}

const ENGLISH: Words = Words {
    gap: " ",
    legal_before: "Legal moves: ",
    legal_after: ".",
    answer: "Answer with exactly one of them.",
    answer_now: "Answer now with exactly one of them.",
    no_more_simulations: "No more simulations.",
    not_legal: " is not a legal move.",
    names_no_move: "Your answer names no legal move.",
    json_answer: "Answer as JSON: {\"move\": \"<square>\"}.",
    cut_off: "Your answer was cut off at the token limit before it named a move: answer shorter.",
};

/// The Japanese request for one coordinate (the same with tools withdrawn).
const JAPANESE_ANSWER: &str = "この中から座標を1つだけ答えてください。";

const JAPANESE: Words = Words {
    gap: "",
    legal_before: "置ける位置: ",
    legal_after: "。",
    answer: JAPANESE_ANSWER,
    answer_now: JAPANESE_ANSWER,
    no_more_simulations: "シミュレーションはここまでです。",
    not_legal: " には置けません。",
    names_no_move: "回答に置ける座標がありません。",
    json_answer: "JSON {\"move\": \"座標\"} で答えてください。",
    cut_off: "回答がトークン上限で途切れ、座標がありませんでした。短く答えてください。",
};

fn words(labels: Labels) -> &'static Words {
    match labels {
        Labels::English => &ENGLISH,
        Labels::Japanese => &JAPANESE,
    }
}

/// `opening`, the legal moves and `ask`, as sentences of `w`.
fn with_legal(w: &Words, opening: &str, legal: &dyn Display, ask: &str) -> String {
    format!(
        "{opening}{gap}{before}{legal}{after}{gap}{ask}",
        gap = w.gap,
        before = w.legal_before,
        after = w.legal_after
    )
}

/// The message once the tool budget is spent: no more simulations, the legal moves,
/// answer now.
pub(crate) fn answer_now(labels: Labels, legal: &dyn Display) -> String {
    let w = words(labels);
    with_legal(w, w.no_more_simulations, legal, w.answer_now)
}

/// The feedback on an answer without a legal move: the illegal squares it `named`
/// (or that it named none), the legal moves, answer with one.
pub(crate) fn invalid_answer(labels: Labels, named: &str, legal: &dyn Display) -> String {
    let w = words(labels);
    if named.is_empty() {
        with_legal(w, w.names_no_move, legal, w.answer)
    } else {
        with_legal(w, &format!("{named}{}", w.not_legal), legal, w.answer)
    }
}

/// The message after an answer cut off at the token limit: `opening` (the agent
/// file's `cut_off_message`) or the harness's own sentence, the legal moves, answer
/// with one.
pub(crate) fn cut_off(labels: Labels, opening: Option<&str>, legal: &dyn Display) -> String {
    let w = words(labels);
    with_legal(w, opening.unwrap_or(w.cut_off), legal, w.answer)
}

/// The line that asks for the JSON answer.
pub(crate) fn json_answer(labels: Labels) -> &'static str {
    words(labels).json_answer
}

/// `message` followed by the JSON-answer `instruction` (one space between, in both
/// languages).
pub(crate) fn then_instruction(message: &str, instruction: &str) -> String {
    format!("{message} {instruction}")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The messages as they were written inline before this module, byte for byte.
    #[test]
    fn the_messages_keep_their_bytes() {
        let legal = "d3, c4";
        let cases = [
            (
                answer_now(Labels::English, &legal),
                "No more simulations. Legal moves: d3, c4. Answer now with exactly one of them.",
            ),
            (
                answer_now(Labels::Japanese, &legal),
                "シミュレーションはここまでです。置ける位置: d3, c4。この中から座標を1つだけ答えてください。",
            ),
            (
                invalid_answer(Labels::English, "a1, b2", &legal),
                "a1, b2 is not a legal move. Legal moves: d3, c4. Answer with exactly one of them.",
            ),
            (
                invalid_answer(Labels::English, "", &legal),
                "Your answer names no legal move. Legal moves: d3, c4. Answer with exactly one of them.",
            ),
            (
                invalid_answer(Labels::Japanese, "a1", &legal),
                "a1 には置けません。置ける位置: d3, c4。この中から座標を1つだけ答えてください。",
            ),
            (
                invalid_answer(Labels::Japanese, "", &legal),
                "回答に置ける座標がありません。置ける位置: d3, c4。この中から座標を1つだけ答えてください。",
            ),
            (
                then_instruction("x", json_answer(Labels::English)),
                "x Answer as JSON: {\"move\": \"<square>\"}.",
            ),
            (
                then_instruction("x", json_answer(Labels::Japanese)),
                "x JSON {\"move\": \"座標\"} で答えてください。",
            ),
        ];
        for (got, want) in cases {
            assert_eq!(got, want);
        }
    }
}
