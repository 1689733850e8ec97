//! LoRA training data in seed 000's format: the board text as the user message, and
//! as the assistant message a `<think>` block that lists every candidate with the
//! teacher's value (best first), names the choice and why, then the move:
//!
//! ```text
//! <think>
//! 候補手を評価する:
//!   d7: 3手先で黒の手が平均9.3手 ← 最小
//!   f4: 3手先で黒の手が平均9.7手
//! → d7 を選択（3手先で相手の手を最も制限できる）
//! </think>
//!
//! d7
//! ```
//!
//! Seed 000 writes an n-hand value as "白が平均9.3石"; our n-hand averages the disc
//! difference (own minus opponent's), so its lines say "石差" and carry a sign.

use serde_json::{json, Value};

use crate::{Engine, EngineError, EngineSpec, Metric};
use game::othello::{Board, Labels, Move, Square, TextStyle};

/// The engine that labels the examples: one that values every candidate.
pub struct Teacher {
    spec: EngineSpec,
    engine: Box<dyn Engine>,
}

/// A teacher that cannot label examples.
#[derive(Debug, thiserror::Error)]
pub enum TeacherError {
    /// The engine does not value its candidates.
    #[error(
        "the teacher {0} gives no value per candidate; use n-hand, n-least, n-most, greedy, alphabeta:D or reference"
    )]
    NoValues(String),
    /// The engine failed.
    #[error(transparent)]
    Engine(#[from] EngineError),
}

/// What a value means, for the reasoning text.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Meaning {
    DiscDifference(u32),
    OpponentMoves(u32),
    OwnMoves(u32),
    Score,
}

impl Meaning {
    fn lower_is_better(self) -> bool {
        matches!(self, Meaning::OpponentMoves(_))
    }

    fn line(self, value: f64, mover: &str, opponent: &str, labels: Labels) -> String {
        match (self, labels) {
            (Meaning::DiscDifference(n), Labels::Japanese) => format!("{n}手先で{mover}が平均{value:+.1}石差"),
            (Meaning::OpponentMoves(n), Labels::Japanese) => format!("{n}手先で{opponent}の手が平均{value:.1}手"),
            (Meaning::OwnMoves(n), Labels::Japanese) => format!("{n}手先で{mover}の手が平均{value:.1}手"),
            (Meaning::Score, Labels::Japanese) => format!("評価値 {value:+.1}"),
            (Meaning::DiscDifference(n), Labels::English) => {
                format!("{mover} leads by {value:+.1} discs on average {n} plies ahead")
            }
            (Meaning::OpponentMoves(n), Labels::English) => {
                format!("{opponent} has {value:.1} moves on average {n} plies ahead")
            }
            (Meaning::OwnMoves(n), Labels::English) => {
                format!("{mover} has {value:.1} moves on average {n} plies ahead")
            }
            (Meaning::Score, Labels::English) => format!("score {value:+.1}"),
        }
    }

    fn reason(self, labels: Labels) -> String {
        match (self, labels) {
            (Meaning::DiscDifference(n), Labels::Japanese) => format!("{n}手先で最も石差が大きくなる"),
            (Meaning::OpponentMoves(n), Labels::Japanese) => format!("{n}手先で相手の手を最も制限できる"),
            (Meaning::OwnMoves(n), Labels::Japanese) => format!("{n}手先で自分の手が最も多くなる"),
            (Meaning::Score, Labels::Japanese) => "評価値が最も高い".to_string(),
            (Meaning::DiscDifference(n), Labels::English) => format!("the largest disc lead {n} plies ahead"),
            (Meaning::OpponentMoves(n), Labels::English) => {
                format!("leaves the opponent the fewest moves {n} plies ahead")
            }
            (Meaning::OwnMoves(n), Labels::English) => format!("keeps the most own moves {n} plies ahead"),
            (Meaning::Score, Labels::English) => "the highest score".to_string(),
        }
    }
}

impl Teacher {
    /// The teacher `spec`, seeded by `seed`.
    pub fn new(spec: EngineSpec, seed: u64) -> Teacher {
        Teacher {
            engine: spec.build(seed),
            spec,
        }
    }

    /// Its spec.
    pub fn name(&self) -> String {
        self.spec.to_string()
    }

    fn meaning(&self) -> Option<Meaning> {
        match self.spec {
            EngineSpec::Lookahead { metric, plies } => Some(match metric {
                Metric::DiscDifference => Meaning::DiscDifference(plies),
                Metric::OpponentMoves => Meaning::OpponentMoves(plies),
                Metric::OwnMoves => Meaning::OwnMoves(plies),
            }),
            EngineSpec::Greedy | EngineSpec::AlphaBeta { .. } | EngineSpec::Reference { .. } => Some(Meaning::Score),
            EngineSpec::Random | EngineSpec::Search | EngineSpec::Dilute { .. } | EngineSpec::Human => None,
        }
    }

    /// The teacher's values and choice in `board` (which has a legal move).
    fn decide(&mut self, board: &Board) -> Result<(Vec<(Square, f64)>, Square), TeacherError> {
        let decision = self.engine.choose(board)?;
        let values: Vec<(Square, f64)> = decision.candidates.iter().map(|c| (c.square, c.value)).collect();
        match decision.mv {
            Move::Place(square) if !values.is_empty() => Ok((values, square)),
            _ => Err(TeacherError::NoValues(self.name())),
        }
    }

    /// One example line for each of `boards` (each with a legal move), rendered with
    /// `labels`; `done` is called after each.
    pub fn examples(&mut self, boards: &[Board], labels: Labels, done: &dyn Fn()) -> Result<Vec<String>, TeacherError> {
        boards
            .iter()
            .map(|board| {
                let example = self.example(board, labels)?;
                done();
                Ok(example.to_string())
            })
            .collect()
    }

    /// One training example for `board` (which must have a legal move), rendered with `labels`.
    pub fn example(&mut self, board: &Board, labels: Labels) -> Result<Value, TeacherError> {
        let meaning = self.meaning().ok_or_else(|| TeacherError::NoValues(self.name()))?;
        let (mut values, chosen) = self.decide(board)?;
        let better = |a: f64, b: f64| {
            if meaning.lower_is_better() {
                a.total_cmp(&b)
            } else {
                b.total_cmp(&a)
            }
        };
        // Best first; equal values in row-major order.
        values.sort_by(|a, b| better(a.1, b.1).then(a.0.index().cmp(&b.0.index())));
        let best = values[0].1;
        let tied: Vec<String> = values
            .iter()
            .filter(|(_, v)| (v - best).abs() < 1e-9)
            .map(|(sq, _)| sq.to_string())
            .collect();
        let mover = board.side_to_move();
        let names = |c: game::othello::Color| match (labels, c) {
            (Labels::Japanese, game::othello::Color::Black) => "黒",
            (Labels::Japanese, game::othello::Color::White) => "白",
            (Labels::English, game::othello::Color::Black) => "black",
            (Labels::English, game::othello::Color::White) => "white",
        };
        let Wording {
            heading,
            mark,
            tie_line,
            pick,
        } = Wording::new(meaning, labels, &tied, chosen);
        let mut think = format!("<think>\n{heading}\n");
        for (square, value) in &values {
            let line = meaning.line(*value, names(mover), names(!mover), labels);
            let marker = if (value - best).abs() < 1e-9 {
                format!(" {mark}")
            } else {
                String::new()
            };
            think.push_str(&format!("  {square}: {line}{marker}\n"));
        }
        if tied.len() > 1 {
            think.push_str(&tie_line);
            think.push('\n');
        }
        think.push_str(&format!("{pick}\n</think>\n\n{chosen}"));
        let style = TextStyle {
            labels,
            ..TextStyle::default()
        };
        Ok(json!({
            "conversations": [
                { "role": "user", "content": board.to_text(style) },
                { "role": "assistant", "content": think },
            ]
        }))
    }
}

/// The sentences of a think block around the candidates' lines, in `labels`' language.
struct Wording {
    /// The first line.
    heading: &'static str,
    /// After the best candidates' lines.
    mark: &'static str,
    /// The line naming equally scored candidates.
    tie_line: String,
    /// The last line: the move chosen, and why.
    pick: String,
}

impl Wording {
    fn new(meaning: Meaning, labels: Labels, tied: &[String], chosen: Square) -> Wording {
        let lowest = meaning.lower_is_better();
        match labels {
            Labels::Japanese => Wording {
                heading: "候補手を評価する:",
                mark: if lowest { "← 最小" } else { "← 最大" },
                tie_line: format!("同スコアの手: {}", tied.join(", ")),
                pick: if tied.len() > 1 {
                    format!("→ {chosen} をランダムに選択")
                } else {
                    format!("→ {chosen} を選択（{}）", meaning.reason(labels))
                },
            },
            Labels::English => Wording {
                heading: "Evaluating the candidates:",
                mark: if lowest { "<- fewest" } else { "<- best" },
                tie_line: format!("Equal scores: {}", tied.join(", ")),
                pick: if tied.len() > 1 {
                    format!("-> {chosen}, chosen at random among them")
                } else {
                    format!("-> {chosen} ({})", meaning.reason(labels))
                },
            },
        }
    }
}
