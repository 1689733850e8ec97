//! Rules probes (`probe --ask legal-moves|after-move`): does the model know the rules?
//! Each position of a `positions generate` file is shown without its legal moves and
//! the model is asked either for every legal move (scored by precision, recall and
//! exact set) or for the board after a move (the position's first best move; scored by
//! the share of the 64 squares right and exact board). One request per position, each
//! logged as an exchange; answers are read as the agent reads them (text after
//! `</think>`, or JSON held to a schema: [`agent::rules_question`]).

use std::fmt;
use std::str::FromStr;

use futures_util::StreamExt;
use serde::Serialize;
use serde_json::{json, Value};

use super::lifecycle::Run;
use super::player_spec::LlmPlayer;
use super::probe::{probe_log, ProbeError};
use agent::{exchanged, read_board, read_move_list, rules_question, rules_schema, AnswerFormat, Cells, RulesQuestion};
use engines::lab::LabelledPosition;
use game::othello::{Bitboard, Board, Move, Square};
use game::Othello;
use llm::{error_chain, ChatRequest, Message, Role};
use record::{GameLog, GameWriter, Ply};
use runs::{RulesProbeResults, RunResults, Share};

/// What a probe asks of each position.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Ask {
    /// A move, graded against the labels (the probe of seed 000).
    #[default]
    Move,
    /// Every legal move.
    LegalMoves,
    /// The board after a move.
    AfterMove,
}

impl FromStr for Ask {
    type Err = String;
    fn from_str(text: &str) -> Result<Ask, String> {
        match text.trim().to_ascii_lowercase().as_str() {
            "move" => Ok(Ask::Move),
            "legal-moves" => Ok(Ask::LegalMoves),
            "after-move" => Ok(Ask::AfterMove),
            other => Err(format!(
                "invalid --ask {other:?}: expected move, legal-moves or after-move"
            )),
        }
    }
}

impl fmt::Display for Ask {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Ask::Move => "move",
            Ask::LegalMoves => "legal-moves",
            Ask::AfterMove => "after-move",
        })
    }
}

/// A list of squares against the legal moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct ListScore {
    /// Squares named.
    pub named: u32,
    /// Of those, legal moves.
    pub right: u32,
    /// Legal moves of the position.
    pub legal: u32,
}

impl ListScore {
    /// The `named` squares against the `legal` moves.
    pub fn of(named: Bitboard, legal: Bitboard) -> ListScore {
        ListScore {
            named: named.0.count_ones(),
            right: (named.0 & legal.0).count_ones(),
            legal: legal.0.count_ones(),
        }
    }

    /// Share of the named squares that are legal (`None`: none named).
    pub fn precision(&self) -> Option<f64> {
        (self.named > 0).then(|| f64::from(self.right) / f64::from(self.named))
    }

    /// Share of the legal moves named (`None`: the position has none).
    pub fn recall(&self) -> Option<f64> {
        (self.legal > 0).then(|| f64::from(self.right) / f64::from(self.legal))
    }

    /// Whether the list is exactly the legal moves.
    pub fn exact(&self) -> bool {
        self.named == self.right && self.right == self.legal
    }
}

/// A board answer against the true board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct BoardScore {
    /// Squares of the 64 whose content is right (0 for an unreadable answer).
    pub right: u32,
    /// Whether all 64 are.
    pub exact: bool,
}

impl BoardScore {
    /// The `answer`'s cells (`None`: unreadable) against `truth`.
    pub fn of(answer: Option<&Cells>, truth: &Board) -> BoardScore {
        let right = answer.map_or(0, |cells| {
            Square::ALL
                .iter()
                .filter(|&&square| cells[square.index()] == truth.disc_at(square))
                .count() as u32
        });
        BoardScore {
            right,
            exact: right == 64,
        }
    }
}

/// One position's answer, scored.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RulesAnswer {
    /// Position number in the file (from 1).
    pub index: usize,
    /// The move whose result was asked for (after-move).
    #[serde(rename = "move", skip_serializing_if = "Option::is_none")]
    pub mv: Option<String>,
    /// Whether the answer could be read.
    pub readable: bool,
    /// The server cut the answer off at the token limit (`done_reason` `length`): the
    /// budget's fault, not the model's list or board, so nothing is scored (as eval
    /// keeps such answers apart).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub cut_off: bool,
    /// A legal-move list's score.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub list: Option<ListScore>,
    /// A board's score.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub board: Option<BoardScore>,
    /// The failure of the request (nothing scored).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// [`run_rules_probe`] in the run folder of `run`: logged to probe.jsonl, its
/// [`rules_summary`] written to results.json and returned.
pub async fn rules_probe_run(
    run: &Run,
    llm: &LlmPlayer,
    ask: Ask,
    positions: &[LabelledPosition],
    parallel: usize,
    report: &(dyn Fn(&RulesAnswer) + Sync),
) -> Result<RulesProbeResults, ProbeError> {
    let log = probe_log(run)?;
    let answers = run_rules_probe(llm, ask, positions, parallel, Some(&log), report).await;
    if let Some(errors) = answers.iter().map(|a| a.error.as_deref()).collect::<Option<Vec<_>>>() {
        let first = errors.first().unwrap_or(&"no position");
        return Err(ProbeError::AllFailed(first.to_string()));
    }
    let summary = rules_summary(ask, &answers, run.path());
    run.finish(&RunResults::RulesProbe(&summary))?;
    Ok(summary)
}

/// Asks `llm` the `ask` question about every position, `parallel` at a time, logging
/// each exchange to `log`; the answers come in file order.
pub async fn run_rules_probe(
    llm: &LlmPlayer,
    ask: Ask,
    positions: &[LabelledPosition],
    parallel: usize,
    log: Option<&GameLog>,
    report: &(dyn Fn(&RulesAnswer) + Sync),
) -> Vec<RulesAnswer> {
    futures_util::stream::iter(positions.iter().enumerate())
        .map(|(index, position)| async move {
            let answer = ask_one(llm, ask, index + 1, position, log).await;
            report(&answer);
            answer
        })
        .buffered(parallel.max(1))
        .collect()
        .await
}

async fn ask_one(
    llm: &LlmPlayer,
    ask: Ask,
    index: usize,
    position: &LabelledPosition,
    log: Option<&GameLog>,
) -> RulesAnswer {
    let failed = |error: String| RulesAnswer {
        index,
        mv: None,
        readable: false,
        cut_off: false,
        list: None,
        board: None,
        error: Some(error),
    };
    let board = match position.position::<Othello>() {
        Ok(board) => board,
        Err(e) => return failed(e.to_string()),
    };
    let legal = board.legal_moves();
    let question = match ask {
        Ask::AfterMove => {
            let labelled = position.best.first().and_then(|s| s.parse::<Square>().ok());
            match labelled
                .filter(|&s| legal.contains(s))
                .or_else(|| legal.squares().next())
            {
                Some(square) => RulesQuestion::AfterMove(square),
                None => return failed("the position has no legal move to ask about".to_string()),
            }
        }
        _ => RulesQuestion::LegalMoves,
    };
    let (config, format) = (&llm.config, llm.config.answer_format);
    let request = request(llm, question, &board);
    let exchange = match llm.backend.chat(&request).await {
        Ok(exchange) => exchange,
        Err(e) => return failed(error_chain(&e)),
    };
    let at = Ply {
        number: (61 - position.empties) as usize,
        color: board.side_to_move(),
    };
    if let Err(e) = GameWriter::new(log, index).exchange(at, (1, 1), exchanged(&exchange), None) {
        return failed(error_chain(&e));
    }
    if exchange.reply.cut_off() {
        return RulesAnswer {
            cut_off: true,
            ..failed(String::new())
        }
        .without_error();
    }
    let content = exchange.reply.message.content.as_str();
    match question {
        RulesQuestion::LegalMoves => {
            let named = read_move_list(content, format);
            RulesAnswer {
                readable: named.is_some(),
                list: Some(ListScore::of(named.unwrap_or(Bitboard(0)), legal)),
                ..failed(String::new())
            }
            .without_error()
        }
        RulesQuestion::AfterMove(square) => {
            let cells = read_board(content, format, config.style.perspective, board.side_to_move());
            let truth = board.play(Move::Place(square));
            RulesAnswer {
                mv: Some(square.to_string()),
                readable: cells.is_some(),
                board: Some(BoardScore::of(cells.as_ref(), &truth)),
                ..failed(String::new())
            }
            .without_error()
        }
    }
}

/// The request that asks `question` about `board`: the agent's system prompt, the
/// question, the agent's model options; held to the answer's schema unless the agent
/// answers in text. No tools are offered.
fn request(llm: &LlmPlayer, question: RulesQuestion, board: &Board) -> ChatRequest {
    let config = &llm.config;
    let format = config.answer_format;
    let mut messages = Vec::new();
    if let Some(prompt) = &config.system_prompt {
        messages.push(Message::new(Role::System, prompt.text.clone()));
    }
    messages.push(Message::new(
        Role::User,
        rules_question(question, board, config.style, format),
    ));
    ChatRequest {
        format: (format != AnswerFormat::Text).then(|| rules_schema(question)),
        model: config.model.clone(),
        messages,
        tools: Vec::new(),
        options: config.options.clone(),
        think: config.think.clone(),
        keep_alive: config.keep_alive.clone(),
        affinity: None,
    }
}

impl RulesAnswer {
    fn without_error(self) -> RulesAnswer {
        RulesAnswer { error: None, ..self }
    }
}

/// The probe's results: for `legal-moves`, the exact-set rate over positions and the
/// precision and recall over all squares named and all legal moves; for `after-move`,
/// the exact-board rate and the share of squares right; each with its Wilson interval
/// (squares pooled over positions, so their intervals are narrower than independent
/// positions would give). Failed requests and answers cut off at the token limit are not
/// scored.
pub fn rules_summary(ask: Ask, answers: &[RulesAnswer], log_dir: &std::path::Path) -> RulesProbeResults {
    let scored: Vec<&RulesAnswer> = answers.iter().filter(|a| a.error.is_none() && !a.cut_off).collect();
    let n = scored.len() as u32;
    let count = |f: &dyn Fn(&RulesAnswer) -> u32| scored.iter().map(|a| f(a)).sum::<u32>();
    let shares = match ask {
        Ask::AfterMove => {
            let board = |a: &RulesAnswer| a.board.unwrap_or(BoardScore { right: 0, exact: false });
            vec![
                Share::new("exact_board", count(&|a| u32::from(board(a).exact)), n),
                Share::new("squares_right", count(&|a| board(a).right), 64 * n),
            ]
        }
        _ => {
            let list = |a: &RulesAnswer| {
                a.list.unwrap_or(ListScore {
                    named: 0,
                    right: 0,
                    legal: 0,
                })
            };
            vec![
                Share::new("exact_set", count(&|a| u32::from(list(a).exact())), n),
                Share::new("precision", count(&|a| list(a).right), count(&|a| list(a).named)),
                Share::new("recall", count(&|a| list(a).right), count(&|a| list(a).legal)),
            ]
        }
    };
    RulesProbeResults {
        ask: ask.to_string(),
        positions: answers.len() as u32,
        unreadable: count(&|a| u32::from(!a.readable)),
        cut_off: answers.iter().filter(|a| a.cut_off).count() as u32,
        errors: answers.iter().filter(|a| a.error.is_some()).count() as u32,
        shares,
        per_position: answers.iter().map(per_position).collect(),
        log_dir: log_dir.display().to_string(),
    }
}

/// One position's line of results.json: its scores, with a list's precision and recall.
fn per_position(answer: &RulesAnswer) -> Value {
    let mut value = serde_json::to_value(answer).expect("a struct of numbers and strings serialises");
    if let Some(list) = &answer.list {
        value["precision"] = json!(list.precision());
        value["recall"] = json!(list.recall());
        value["exact_set"] = json!(list.exact());
    }
    value
}

#[cfg(test)]
mod tests {
    use super::*;

    fn squares(list: &str) -> Bitboard {
        Bitboard(
            list.split_whitespace()
                .map(|s| 1u64 << s.parse::<Square>().unwrap().index())
                .fold(0, |a, b| a | b),
        )
    }

    #[test]
    fn lists_score_exactly_on_known_answers() {
        let legal = Board::new().legal_moves();
        let perfect = ListScore::of(legal, legal);
        assert_eq!(
            (perfect.precision(), perfect.recall(), perfect.exact()),
            (Some(1.0), Some(1.0), true)
        );
        let empty = ListScore::of(Bitboard(0), legal);
        assert_eq!(
            (empty.precision(), empty.recall(), empty.exact()),
            (None, Some(0.0), false)
        );
        let extra = ListScore::of(squares("d3 c4 f5 e6 a1 d4"), legal);
        assert_eq!(
            (extra.precision(), extra.recall(), extra.exact()),
            (Some(4.0 / 6.0), Some(1.0), false)
        );
        let half = ListScore::of(squares("d3 c4"), legal);
        assert_eq!(
            (half.precision(), half.recall(), half.exact()),
            (Some(1.0), Some(0.5), false)
        );
    }

    #[test]
    fn boards_score_by_square() {
        let after = Board::new().play(Move::Place("d3".parse().unwrap()));
        let mut cells: Cells = [None; 64];
        for square in Square::ALL {
            cells[square.index()] = after.disc_at(square);
        }
        assert_eq!(
            BoardScore::of(Some(&cells), &after),
            BoardScore { right: 64, exact: true }
        );
        // The board before the move: d3 and d4 wrong.
        for square in Square::ALL {
            cells[square.index()] = Board::new().disc_at(square);
        }
        assert_eq!(
            BoardScore::of(Some(&cells), &after),
            BoardScore {
                right: 62,
                exact: false
            }
        );
        assert_eq!(BoardScore::of(None, &after), BoardScore { right: 0, exact: false });
    }

    #[test]
    fn the_summary_pools_squares_and_counts_positions() {
        let legal = Board::new().legal_moves();
        let answer = |list: ListScore| RulesAnswer {
            index: 1,
            mv: None,
            readable: true,
            cut_off: false,
            list: Some(list),
            board: None,
            error: None,
        };
        let answers = [
            answer(ListScore::of(legal, legal)),
            answer(ListScore::of(squares("d3 a1"), legal)),
            RulesAnswer {
                error: Some("down".into()),
                ..answer(ListScore::of(legal, legal))
            },
            RulesAnswer {
                readable: false,
                cut_off: true,
                list: None,
                ..answer(ListScore::of(legal, legal))
            },
        ];
        let summary = rules_summary(Ask::LegalMoves, &answers, std::path::Path::new("x"));
        let got: Vec<(String, u32, u32)> = summary.shares.iter().map(|s| (s.name.clone(), s.hits, s.of)).collect();
        assert_eq!(
            got,
            [
                ("exact_set".into(), 1, 2),
                ("precision".into(), 5, 6),
                ("recall".into(), 5, 8)
            ]
        );
        let counts = (summary.positions, summary.errors, summary.cut_off, summary.unreadable);
        assert_eq!(counts, (4, 1, 1, 0), "a cut-off answer counted apart, not scored");
        assert_eq!(summary.per_position[1]["precision"], json!(0.5));
    }
}
