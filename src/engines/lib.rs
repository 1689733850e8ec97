//! Classical players behind one trait, built from spec strings.
//!
//! | spec | engine |
//! |---|---|
//! | `random` | uniform over legal moves (seeded) |
//! | `n-hand[:N]` | seed 000: best average disc difference N plies ahead |
//! | `n-least[:N]` | seed 000: fewest opponent moves on average N plies ahead |
//! | `n-most[:N]` | seed 000: most own moves on average N plies ahead |
//! | `greedy` | seed 001's one-ply AI from the public build |
//! | `search` | seed 001's `ai.ts` negamax alpha-beta |
//! | `alphabeta:D[:weight\|count]` | seed 004's fail-hard alpha-beta, node counting included |
//! | `reference[:D[:E]]` | the move-quality evaluator: exact at E (20) empties or fewer, else a D-ply (8) search over the pattern evaluation |
//! | `dilute:P:ENGINE` | ENGINE playing a uniformly random move on P percent of its decisions ("Elo World"'s dilution) |
//! | `human` | a person typing moves at the terminal the program hands it ([`Engines::person`]) |
//!
//! The reference and the solver read the pattern evaluation ([`pattern`], trained by
//! `othello-arena train-eval`) through [`midgame`]'s search; the seven-feature linear
//! evaluation it replaced stays as the baseline it is measured against.
//!
//! Engines see only the rules (the `game` crate). Each game's engines are reached through
//! [`Engines`]; marubatsu's players are in [`marubatsu`]; the pattern evaluation's
//! training and measurement tools are in [`lab`]; what `analyze` and `solve` report of a
//! position is an [`Analysis`] or a [`Solved`]. Synchronous and free of async I/O.
//!
//! The workspace's crate map is in the `game` crate's documentation.

#![deny(missing_docs)]

mod alphabeta;
mod analysis;
mod bits;
mod dilute;
mod games;
mod greedy;
mod human;
pub mod lab;
mod linear;
pub mod marubatsu;
mod marubatsu_games;
pub mod midgame;
mod nhand;
mod othello_games;
pub mod pattern;
mod playout;
mod random;
mod reference;
mod search;
mod solver;
mod spec;
mod weights;

pub use alphabeta::{AlphaBeta, Evaluation};
pub use analysis::{
    check_solvable, position_from_flags, Analysis, AnalyzeError, PositionFlagsError, Solved, Unsolvable,
    MAX_SOLVE_EMPTIES,
};
pub use dilute::Dilute;
pub use games::{canonical_spec, Engines, GameEngine};
pub use greedy::Greedy;
pub use human::Human;
pub use linear::{evaluate as linear_evaluate, features as linear_features, LinearEval, EVAL_WEIGHTS, FEATURES};
pub use midgame::Evaluator;
pub use nhand::{Lookahead, Metric};
pub use pattern::PatternWeights;
pub use playout::{playout_values, Continuation, PlayoutValue};
pub use random::Random;
pub use reference::{MoveScores, Reference, DEFAULT_DEPTH, DEFAULT_EXACT_EMPTIES, ESTIMATED_REGRET_ERROR};
pub use search::Search;
pub use solver::{Solution, SolveWatch, Solver, WATCH_EVERY};
pub use spec::{Diluted, EngineSpec, ParseSpecError, MAX_EXACT_EMPTIES, MAX_REFERENCE_DEPTH, VALID_SPECS};
pub(crate) use weights::WEIGHTS;

use game::othello::{Board, Move, Square};
use serde::Serialize;

/// One candidate move and the value an engine gave it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Candidate {
    /// The square.
    #[serde(rename = "move", serialize_with = "serialize_display")]
    pub square: Square,
    /// The engine's value for it (its meaning depends on the engine).
    pub value: f64,
}

/// What an engine decided and how it got there.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Decision {
    /// The move chosen.
    #[serde(rename = "move", serialize_with = "serialize_display")]
    pub mv: Move,
    /// The engine's score for the chosen move, when it computes one.
    pub score: Option<f64>,
    /// Positions the engine visited (its own counting convention).
    pub nodes: u64,
    /// Every candidate with its value, for engines that score each root move.
    pub candidates: Vec<Candidate>,
    /// What the score and the candidates' values count (`None` without a score).
    pub unit: Option<ScoreUnit>,
}

/// What an engine's scores count, for a reader.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct ScoreUnit {
    /// The unit ("discs", "square-weight points").
    pub name: &'static str,
    /// Whether a lower score is the better move (`n-least`).
    pub lower_is_better: bool,
}

impl ScoreUnit {
    /// A unit whose higher scores are better.
    pub const fn higher(name: &'static str) -> ScoreUnit {
        ScoreUnit {
            name,
            lower_is_better: false,
        }
    }
}

impl Decision {
    /// A decision with only a move.
    pub fn bare(mv: Move) -> Decision {
        Decision {
            mv,
            score: None,
            nodes: 0,
            candidates: Vec::new(),
            unit: None,
        }
    }
}

fn serialize_display<T: std::fmt::Display, S: serde::Serializer>(value: &T, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(value)
}

/// Why an engine could not give a move.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// The person's input stream ended.
    #[error("input ended before a move was entered: type a move such as d3")]
    InputClosed,
    /// The engine broke the rules (a bug in the engine, never silently replaced).
    #[error("engine {engine} chose an illegal move")]
    Illegal {
        /// The engine's spec.
        engine: String,
        /// The refused move.
        #[source]
        source: game::othello::IllegalMove,
    },
    /// Reading or writing the person's terminal failed.
    #[error("terminal I/O failed")]
    Io(#[from] std::io::Error),
}

/// A player that picks moves.
pub trait Engine: Send {
    /// The spec string this engine was built from.
    fn name(&self) -> String;

    /// Picks a move in a position where the side to move has at least one placement.
    fn decide(&mut self, board: &Board) -> Result<Decision, EngineError>;

    /// Picks a move in any position that is not over: passes when no placement exists.
    fn choose(&mut self, board: &Board) -> Result<Decision, EngineError> {
        if board.legal_moves().is_empty() {
            Ok(Decision::bare(Move::Pass))
        } else {
            self.decide(board)
        }
    }
}

/// Picks among `tied` with `rng`: the rule for engines whose ties are random.
fn pick_tied<R: rand::Rng>(tied: &[Square], rng: &mut R) -> Square {
    tied[rng.gen_range(0..tied.len())]
}

#[cfg(test)]
mod tests;
