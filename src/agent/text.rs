//! What the harness itself says to the model during a move, each sentence written
//! once per language: the nudge once the tool budget is spent, the feedback on an
//! answer that did not count (one sentence for each reason an [`Answer`] gives), and the
//! JSON-answer instruction. English boards get English, Japanese boards (seed 000's
//! labels) Japanese.

use game::othello::{Bitboard, Labels, Square};

use super::answer::Answer;

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
    /// Asks for one legal move, the moves not named (blind play).
    answer_blind: &'static str,
    /// Asks for one legal move now, the moves not named (tools are withdrawn).
    answer_now_blind: &'static str,
    /// Opens the nudge once the tool budget is spent.
    no_more_simulations: &'static str,
    /// Follows the squares an answer named that are not legal.
    not_legal: &'static str,
    /// Before the squares of an answer that named several.
    several: &'static str,
    /// After them.
    several_after: &'static str,
    /// An answer that is one square with other words, where only a bare square counts.
    not_bare: &'static str,
    /// An answer that named no square.
    no_square: &'static str,
    /// An answer whose `<think>` block was never closed.
    unfinished: &'static str,
    /// Asks for the JSON answer.
    json_answer: &'static str,
    /// An answer that is not the JSON asked for.
    not_json: &'static str,
    /// A tool call written as text once tools are withdrawn.
    tool_call_text: &'static str,
    /// An answer the server cut off at the token limit.
    cut_off: &'static str,
    /// A reply the server cut off at the token limit while the model was thinking.
    thinking_cut_off: &'static str,
    /// After a named square that holds a piece.
    taken: &'static str,
    /// After a named empty square where a disc would flip nothing.
    flips_nothing: &'static str,
    /// After a named square the board does not have.
    off_board: &'static str,
}

const ENGLISH: Words = Words {
    gap: " ",
    legal_before: "Legal moves: ",
    legal_after: ".",
    answer: "Answer with exactly one of them.",
    answer_now: "Answer now with exactly one of them.",
    answer_blind: "Answer with exactly one legal move.",
    answer_now_blind: "Answer now with exactly one legal move.",
    no_more_simulations: "No more simulations.",
    not_legal: " is not a legal move.",
    several: "Your answer names several moves: ",
    several_after: ".",
    not_bare: "Your answer is not a square alone.",
    no_square: "Your answer names no square.",
    unfinished: "Your answer opened <think> and never closed it.",
    json_answer: "Answer as JSON: {\"move\": \"<square>\"}.",
    not_json: "Your answer is not the JSON asked for.",
    tool_call_text: "No more simulations: a tool call is no answer.",
    cut_off: "Your answer was cut off at the token limit before it named a move: answer shorter.",
    thinking_cut_off: "Your thinking was cut off at the token limit before it ended: think shorter.",
    taken: " is taken.",
    flips_nothing: " flips no disc.",
    off_board: " is not on the board.",
};

/// The Japanese request for one coordinate (the same with tools withdrawn).
const JAPANESE_ANSWER: &str = "この中から座標を1つだけ答えてください。";

/// The Japanese request for one legal coordinate, the moves not named (blind play).
const JAPANESE_ANSWER_BLIND: &str = "置ける座標を1つだけ答えてください。";

const JAPANESE: Words = Words {
    gap: "",
    legal_before: "置ける位置: ",
    legal_after: "。",
    answer: JAPANESE_ANSWER,
    answer_now: JAPANESE_ANSWER,
    answer_blind: JAPANESE_ANSWER_BLIND,
    answer_now_blind: JAPANESE_ANSWER_BLIND,
    no_more_simulations: "シミュレーションはここまでです。",
    not_legal: " には置けません。",
    several: "回答が複数の座標を挙げています: ",
    several_after: "。",
    not_bare: "回答が座標だけではありません。",
    no_square: "回答に座標がありません。",
    unfinished: "回答の <think> が閉じられていません。",
    json_answer: "JSON {\"move\": \"座標\"} で答えてください。",
    not_json: "回答が指定の JSON ではありません。",
    tool_call_text: "シミュレーションはここまでです。ツール呼び出しは回答になりません。",
    cut_off: "回答がトークン上限で途切れ、座標がありませんでした。短く答えてください。",
    thinking_cut_off: "思考がトークン上限で途切れました。短く考えてください。",
    taken: " は埋まっています。",
    flips_nothing: " では裏返せる石がありません。",
    off_board: " は盤上にありません。",
};

fn words(labels: Labels) -> &'static Words {
    match labels {
        Labels::English => &ENGLISH,
        Labels::Japanese => &JAPANESE,
    }
}

/// `opening`, the `legal` moves and the request for one of them (`now`: tools are
/// withdrawn), as sentences of `w`; without `legal` (blind play) the request asks for
/// a legal move and names none.
fn with_legal(w: &Words, opening: &str, legal: Option<&str>, now: bool) -> String {
    let gap = w.gap;
    match legal {
        Some(legal) => {
            let ask = if now { w.answer_now } else { w.answer };
            format!(
                "{opening}{gap}{before}{legal}{after}{gap}{ask}",
                before = w.legal_before,
                after = w.legal_after
            )
        }
        None => {
            let ask = if now { w.answer_now_blind } else { w.answer_blind };
            format!("{opening}{gap}{ask}")
        }
    }
}

/// The message once the tool budget is spent: no more simulations, the `legal` moves
/// (`None`: blind play), answer now.
pub(crate) fn answer_now(labels: Labels, legal: Option<&str>) -> String {
    let w = words(labels);
    with_legal(w, w.no_more_simulations, legal, true)
}

/// A rejected answer as it is told: the same fact twice, from one match.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Rejection {
    /// Why it did not count, in a few English words: for the log and the pages.
    pub(crate) reason: String,
    /// What the model is told first, in the board's language (the legal moves follow).
    opening: String,
    /// Whether the request that ends the message asks for an answer now (tools withdrawn).
    now: bool,
    /// The language.
    labels: Labels,
}

impl Rejection {
    /// The rejection of `answer`, each square of an illegal one told why it is no
    /// move: taken (in `occupied`), not on the `board`, or an empty square where a
    /// disc flips nothing. Other answers are left as they are.
    pub(crate) fn explained(mut self, answer: &Answer, occupied: Bitboard, board: Bitboard) -> Rejection {
        let Answer::Illegal { found } = answer else {
            return self;
        };
        let w = words(self.labels);
        let mut told: Vec<Square> = Vec::new();
        for &square in found {
            if told.contains(&square) {
                continue;
            }
            told.push(square);
            let why = if occupied.contains(square) {
                w.taken
            } else if !board.contains(square) {
                w.off_board
            } else {
                w.flips_nothing
            };
            self.opening.push_str(w.gap);
            self.opening.push_str(&format!("{square}{why}"));
        }
        self
    }

    /// The message for the model: the opening, the `legal` moves (`None`: blind play,
    /// the moves not named), the request.
    pub(crate) fn message(&self, legal: Option<&str>) -> String {
        let w = words(self.labels);
        with_legal(w, &self.opening, legal, self.now)
    }
}

/// The squares, comma-separated.
fn joined(squares: &[Square]) -> String {
    squares.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ")
}

impl Answer {
    /// Why an answer that is no move did not count, in a few words for a reader (the
    /// reason the log and the pages show; the model is told the same).
    pub fn why_rejected(&self) -> String {
        super::text::rejection(game::othello::Labels::English, self, None).reason
    }
}

/// Why `answer` did not count, for a reader and for the model: every reason stated once
/// here, so the log and the message cannot disagree. `cut_off_opening` (the agent file's
/// `cut_off_message`) replaces the harness's sentence for answers cut off at the token
/// limit.
pub(crate) fn rejection(labels: Labels, answer: &Answer, cut_off_opening: Option<&str>) -> Rejection {
    let w = words(labels);
    let cut = |own: &str| cut_off_opening.unwrap_or(own).to_string();
    let (reason, opening) = match answer {
        Answer::Move { square, .. } => (format!("{square} is a legal move (not rejected)"), String::new()),
        Answer::Illegal { found } => {
            let named = joined(found);
            (format!("not a legal move: {named}"), format!("{named}{}", w.not_legal))
        }
        Answer::SeveralMoves { named } => {
            let named = joined(named);
            (
                format!("several moves named: {named}"),
                format!("{}{named}{}", w.several, w.several_after),
            )
        }
        Answer::NotStrict => ("not a square alone".to_string(), w.not_bare.to_string()),
        Answer::NoCoordinate => ("no coordinate read".to_string(), w.no_square.to_string()),
        Answer::UnfinishedThinking => (
            "unfinished thinking: <think> never closed".to_string(),
            w.unfinished.to_string(),
        ),
        Answer::CutOff { thinking: true } => (
            "thinking cut off at the token limit".to_string(),
            cut(w.thinking_cut_off),
        ),
        Answer::CutOff { thinking: false } => ("cut off at the token limit".to_string(), cut(w.cut_off)),
        Answer::ToolCallText => (
            "a tool call written as text after the tools were withdrawn".to_string(),
            w.tool_call_text.to_string(),
        ),
        Answer::SchemaViolation => ("not JSON of the answer's schema".to_string(), w.not_json.to_string()),
    };
    Rejection {
        reason,
        opening,
        now: *answer == Answer::ToolCallText,
        labels,
    }
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

    #[test]
    fn an_illegal_square_is_told_why_it_is_no_move() {
        let answer = Answer::Illegal {
            found: ["d4", "a1", "d4"].iter().map(|s| s.parse().unwrap()).collect(),
        };
        let occupied = Bitboard("d4".parse::<Square>().unwrap().bit());
        let everywhere = Bitboard(u64::MAX);
        let english = rejection(Labels::English, &answer, None).explained(&answer, occupied, everywhere);
        assert_eq!(
            english.message(None),
            "d4, a1, d4 is not a legal move. d4 is taken. a1 flips no disc. Answer with exactly one legal move."
        );
        let japanese = rejection(Labels::Japanese, &answer, None).explained(&answer, occupied, Bitboard(occupied.0));
        assert_eq!(
            japanese.message(None),
            "d4, a1, d4 には置けません。d4 は埋まっています。a1 は盤上にありません。置ける座標を1つだけ答えてください。"
        );
        let other = Answer::NoCoordinate;
        assert_eq!(
            rejection(Labels::English, &other, None).explained(&other, occupied, everywhere),
            rejection(Labels::English, &other, None),
            "other answers are left as they are"
        );
    }

    /// The messages as they were written inline before this module, byte for byte
    /// (an answer that named no square was told "names no legal move" then).
    #[test]
    fn the_messages_keep_their_bytes() {
        let legal = "d3, c4";
        let illegal = |labels, found: &str| rejection(labels, &Answer::Illegal { found: squares(found) }, None);
        let cases = [
            (
                answer_now(Labels::English, Some(legal)),
                "No more simulations. Legal moves: d3, c4. Answer now with exactly one of them.",
            ),
            (
                answer_now(Labels::Japanese, Some(legal)),
                "シミュレーションはここまでです。置ける位置: d3, c4。この中から座標を1つだけ答えてください。",
            ),
            (
                illegal(Labels::English, "a1, b2").message(Some(legal)),
                "a1, b2 is not a legal move. Legal moves: d3, c4. Answer with exactly one of them.",
            ),
            (
                illegal(Labels::Japanese, "a1").message(Some(legal)),
                "a1 には置けません。置ける位置: d3, c4。この中から座標を1つだけ答えてください。",
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

    fn squares(list: &str) -> Vec<Square> {
        list.split(", ").map(|s| s.parse().unwrap()).collect()
    }

    /// Each reason an answer fails for: the reason recorded, and what the model is told
    /// in English and in Japanese, from the one value.
    #[test]
    fn each_rejection_is_told_as_it_is_recorded() {
        let legal = "b5, c1, g5";
        let cases = [
            (
                Answer::SeveralMoves { named: squares("b5, g5") },
                "several moves named: b5, g5",
                "Your answer names several moves: b5, g5. Legal moves: b5, c1, g5. Answer with exactly one of them.",
                "回答が複数の座標を挙げています: b5, g5。置ける位置: b5, c1, g5。この中から座標を1つだけ答えてください。",
            ),
            (
                Answer::Illegal { found: squares("a1") },
                "not a legal move: a1",
                "a1 is not a legal move. Legal moves: b5, c1, g5. Answer with exactly one of them.",
                "a1 には置けません。置ける位置: b5, c1, g5。この中から座標を1つだけ答えてください。",
            ),
            (
                Answer::NotStrict,
                "not a square alone",
                "Your answer is not a square alone. Legal moves: b5, c1, g5. Answer with exactly one of them.",
                "回答が座標だけではありません。置ける位置: b5, c1, g5。この中から座標を1つだけ答えてください。",
            ),
            (
                Answer::NoCoordinate,
                "no coordinate read",
                "Your answer names no square. Legal moves: b5, c1, g5. Answer with exactly one of them.",
                "回答に座標がありません。置ける位置: b5, c1, g5。この中から座標を1つだけ答えてください。",
            ),
            (
                Answer::UnfinishedThinking,
                "unfinished thinking: <think> never closed",
                "Your answer opened <think> and never closed it. Legal moves: b5, c1, g5. Answer with exactly one of them.",
                "回答の <think> が閉じられていません。置ける位置: b5, c1, g5。この中から座標を1つだけ答えてください。",
            ),
            (
                Answer::CutOff { thinking: true },
                "thinking cut off at the token limit",
                "Your thinking was cut off at the token limit before it ended: think shorter. Legal moves: b5, c1, g5. \
                 Answer with exactly one of them.",
                "思考がトークン上限で途切れました。短く考えてください。置ける位置: b5, c1, g5。この中から座標を1つだけ答えてください。",
            ),
            (
                Answer::CutOff { thinking: false },
                "cut off at the token limit",
                "Your answer was cut off at the token limit before it named a move: answer shorter. \
                 Legal moves: b5, c1, g5. Answer with exactly one of them.",
                "回答がトークン上限で途切れ、座標がありませんでした。短く答えてください。置ける位置: b5, c1, g5。\
                 この中から座標を1つだけ答えてください。",
            ),
            (
                Answer::SchemaViolation,
                "not JSON of the answer's schema",
                "Your answer is not the JSON asked for. Legal moves: b5, c1, g5. Answer with exactly one of them.",
                "回答が指定の JSON ではありません。置ける位置: b5, c1, g5。この中から座標を1つだけ答えてください。",
            ),
            (
                Answer::ToolCallText,
                "a tool call written as text after the tools were withdrawn",
                "No more simulations: a tool call is no answer. Legal moves: b5, c1, g5. \
                 Answer now with exactly one of them.",
                "シミュレーションはここまでです。ツール呼び出しは回答になりません。置ける位置: b5, c1, g5。\
                 この中から座標を1つだけ答えてください。",
            ),
        ];
        for (answer, reason, english, japanese) in cases {
            let (en, ja) = (
                rejection(Labels::English, &answer, None),
                rejection(Labels::Japanese, &answer, None),
            );
            assert_eq!((en.reason.as_str(), ja.reason.as_str()), (reason, reason));
            assert_eq!(answer.why_rejected(), reason);
            assert_eq!(en.message(Some(legal)), english);
            assert_eq!(ja.message(Some(legal)), japanese);
        }
    }

    /// Blind play: the same openings, no list, a request for a legal move.
    #[test]
    fn blind_messages_name_no_move() {
        let illegal = rejection(Labels::English, &Answer::Illegal { found: squares("d3") }, None);
        assert_eq!(
            illegal.message(None),
            "d3 is not a legal move. Answer with exactly one legal move."
        );
        let japanese = rejection(Labels::Japanese, &Answer::Illegal { found: squares("d3") }, None);
        assert_eq!(
            japanese.message(None),
            "d3 には置けません。置ける座標を1つだけ答えてください。"
        );
        assert_eq!(
            answer_now(Labels::English, None),
            "No more simulations. Answer now with exactly one legal move."
        );
        let text = rejection(Labels::English, &Answer::ToolCallText, None);
        assert_eq!(
            text.message(None),
            "No more simulations: a tool call is no answer. Answer now with exactly one legal move."
        );
    }

    #[test]
    fn the_agent_files_sentence_replaces_only_the_cut_off_ones() {
        let own = Some("Too long.");
        for thinking in [true, false] {
            let told = rejection(Labels::English, &Answer::CutOff { thinking }, own);
            assert!(told.message(Some("d3")).starts_with("Too long. Legal moves: d3."));
        }
        let told = rejection(Labels::English, &Answer::NoCoordinate, own);
        assert!(told.message(Some("d3")).starts_with("Your answer names no square."));
    }
}
