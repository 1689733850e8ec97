//! Engine spec strings: parsing, validation and construction.

use std::fmt;
use std::str::FromStr;

use super::{
    AlphaBeta, Engine, Evaluation, Greedy, Human, Lookahead, Metric, Random, Reference, Search, DEFAULT_DEPTH,
    DEFAULT_EXACT_EMPTIES,
};

/// The spec forms, for error messages and `--help`.
pub const VALID_SPECS: &str =
    "random, n-hand[:N], n-least[:N], n-most[:N] (N >= 1, default 3), greedy, search, alphabeta:D[:weight|count] (D >= 1), reference[:D[:E]] (search depth D 1-12, default 8; exact at E <= 30 empties or fewer, default 20), human";

/// Deepest look-ahead accepted: n-hand averages every line, so cost grows as ~10^N.
const MAX_LOOKAHEAD: u32 = 8;
/// Deepest reference search accepted.
pub const MAX_REFERENCE_DEPTH: u32 = 12;
/// Most empties the reference player solves exactly (a solve at 30 takes hours).
pub const MAX_EXACT_EMPTIES: u32 = 30;
/// Deepest seed 004 search accepted (no move ordering: ~10^(D/2+) nodes).
const MAX_ALPHABETA_DEPTH: u32 = 16;

/// A parsed, validated engine spec.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EngineSpec {
    /// `random`.
    Random,
    /// `n-hand:N`, `n-least:N`, `n-most:N`.
    Lookahead {
        /// What is averaged.
        metric: Metric,
        /// Plies ahead.
        plies: u32,
    },
    /// `greedy`.
    Greedy,
    /// `search`.
    Search,
    /// `alphabeta:D[:weight|count]`.
    AlphaBeta {
        /// Search depth.
        depth: u32,
        /// Evaluation.
        evaluation: Evaluation,
    },
    /// `reference:D:E`: the move-quality evaluator as a player.
    Reference {
        /// Search depth before the exact endgame.
        depth: u32,
        /// Positions with this many empties or fewer are solved exactly (0: never).
        exact_empties: u32,
    },
    /// `human`.
    Human,
}

/// A spec string that names no engine or has bad parameters.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid engine spec {spec:?}: {reason}; valid specs: {VALID_SPECS}")]
pub struct ParseSpecError {
    /// The spec as given.
    pub spec: String,
    /// What is wrong with it.
    pub reason: String,
}

impl EngineSpec {
    /// Builds the engine; `seed` fixes its random choices. `human` built here has no
    /// terminal (its first move fails as closed input): a person's terminal is opened
    /// by the program and handed to [`crate::Engines::person`].
    pub fn build(&self, seed: u64) -> Box<dyn Engine> {
        match *self {
            EngineSpec::Random => Box::new(Random::new(seed)),
            EngineSpec::Lookahead { metric, plies } => Box::new(Lookahead::new(metric, plies, seed)),
            EngineSpec::Greedy => Box::new(Greedy),
            EngineSpec::Search => Box::new(Search::new()),
            EngineSpec::AlphaBeta { depth, evaluation } => Box::new(AlphaBeta::new(depth, evaluation)),
            EngineSpec::Reference { depth, exact_empties } => Box::new(Reference::new(exact_empties, depth)),
            EngineSpec::Human => Box::new(Human::new(std::io::empty(), std::io::sink())),
        }
    }
}

impl fmt::Display for EngineSpec {
    /// The canonical spec string (defaults written out).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EngineSpec::Random => f.write_str("random"),
            EngineSpec::Lookahead { metric, plies } => write!(f, "{}:{plies}", metric.spec_name()),
            EngineSpec::Greedy => f.write_str("greedy"),
            EngineSpec::Search => f.write_str("search"),
            EngineSpec::AlphaBeta { depth, evaluation } => write!(f, "alphabeta:{depth}:{}", evaluation.name()),
            EngineSpec::Reference { depth, exact_empties } => write!(f, "reference:{depth}:{exact_empties}"),
            EngineSpec::Human => f.write_str("human"),
        }
    }
}

fn parse_number(spec: &str, what: &str, text: &str, max: u32) -> Result<u32, ParseSpecError> {
    let err = |reason: String| ParseSpecError {
        spec: spec.to_string(),
        reason,
    };
    let n: u32 = text
        .parse()
        .map_err(|_| err(format!("{what} {text:?} is not a whole number")))?;
    if n == 0 || n > max {
        return Err(err(format!("{what} must be between 1 and {max}, got {n}")));
    }
    Ok(n)
}

impl FromStr for EngineSpec {
    type Err = ParseSpecError;

    fn from_str(spec: &str) -> Result<Self, Self::Err> {
        let err = |reason: &str| ParseSpecError {
            spec: spec.to_string(),
            reason: reason.to_string(),
        };
        let lower = spec.trim().to_ascii_lowercase();
        let parts: Vec<&str> = lower.split(':').collect();
        let no_params = |engine: EngineSpec| {
            if parts.len() == 1 {
                Ok(engine)
            } else {
                Err(err(&format!("{} takes no parameters", parts[0])))
            }
        };
        match parts[0] {
            "random" => no_params(EngineSpec::Random),
            "greedy" => no_params(EngineSpec::Greedy),
            "search" => no_params(EngineSpec::Search),
            "human" => no_params(EngineSpec::Human),
            name @ ("n-hand" | "n-least" | "n-most" | "nhand" | "nleast" | "nmost") => {
                let metric = match name.trim_start_matches("n-").trim_start_matches('n') {
                    "hand" => Metric::DiscDifference,
                    "least" => Metric::OpponentMoves,
                    _ => Metric::OwnMoves,
                };
                let plies = match parts.as_slice() {
                    [_] => 3,
                    [_, n] => parse_number(spec, "the look-ahead N", n, MAX_LOOKAHEAD)?,
                    _ => return Err(err("expected at most one parameter, the look-ahead N")),
                };
                Ok(EngineSpec::Lookahead { metric, plies })
            }
            "alphabeta" => {
                let (depth, evaluation) = match parts.as_slice() {
                    [_] => return Err(err("alphabeta needs a depth, as in alphabeta:4")),
                    [_, d] => (d, Evaluation::Weight),
                    [_, d, "weight"] => (d, Evaluation::Weight),
                    [_, d, "count"] => (d, Evaluation::Count),
                    [_, _, other] => return Err(err(&format!("evaluation {other:?} is neither weight nor count"))),
                    _ => return Err(err("expected alphabeta:D or alphabeta:D:weight|count")),
                };
                let depth = parse_number(spec, "the depth D", depth, MAX_ALPHABETA_DEPTH)?;
                Ok(EngineSpec::AlphaBeta { depth, evaluation })
            }
            "reference" => {
                let depth = match parts.get(1) {
                    None => DEFAULT_DEPTH,
                    Some(d) => parse_number(spec, "the depth D", d, MAX_REFERENCE_DEPTH)?,
                };
                let exact_empties = match parts.get(2) {
                    None => DEFAULT_EXACT_EMPTIES,
                    Some(&"0") => 0,
                    Some(e) => parse_number(spec, "the exact empties E", e, MAX_EXACT_EMPTIES)?,
                };
                if parts.len() > 3 {
                    return Err(err("expected reference, reference:D or reference:D:E"));
                }
                Ok(EngineSpec::Reference { depth, exact_empties })
            }
            "" => Err(err("the spec is empty")),
            _ => Err(err("unknown engine")),
        }
    }
}
