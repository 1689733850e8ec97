//! Engine spec strings: parsing, validation and construction.

use std::fmt;
use std::str::FromStr;

use super::{
    AlphaBeta, Dilute, Engine, Evaluation, Greedy, Human, Lookahead, Metric, Random, Reference, Search, DEFAULT_DEPTH,
    DEFAULT_EXACT_EMPTIES,
};

/// The spec forms, for error messages and `--help`.
pub const VALID_SPECS: &str =
    "random, n-hand[:N], n-least[:N], n-most[:N] (N >= 1, default 3), greedy, search, alphabeta:D[:weight|count] (D >= 1), reference[:D[:E]] (search depth D 1-12, default 8; exact at E <= 30 empties or fewer, default 20), dilute:P:ENGINE (ENGINE, one of n-hand, n-least, n-most, greedy, search or alphabeta, playing a random move on P percent of its decisions, P 0-100), human";

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
    /// `dilute:P:ENGINE`: ENGINE playing a random move on P percent of its decisions.
    Dilute {
        /// The share of decisions played at random, in percent (0-100).
        random_percent: u32,
        /// The engine diluted.
        base: Diluted,
    },
    /// `human`.
    Human,
}

/// The engines `dilute:P:ENGINE` dilutes: the automatic players with no dilution of
/// their own (random is the diluent, the reference too slow to be a rung).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Diluted {
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
}

impl From<Diluted> for EngineSpec {
    fn from(base: Diluted) -> EngineSpec {
        match base {
            Diluted::Lookahead { metric, plies } => EngineSpec::Lookahead { metric, plies },
            Diluted::Greedy => EngineSpec::Greedy,
            Diluted::Search => EngineSpec::Search,
            Diluted::AlphaBeta { depth, evaluation } => EngineSpec::AlphaBeta { depth, evaluation },
        }
    }
}

impl Diluted {
    /// The engine of `spec`, when it is one that can be diluted.
    fn from_spec(spec: EngineSpec) -> Option<Diluted> {
        match spec {
            EngineSpec::Lookahead { metric, plies } => Some(Diluted::Lookahead { metric, plies }),
            EngineSpec::Greedy => Some(Diluted::Greedy),
            EngineSpec::Search => Some(Diluted::Search),
            EngineSpec::AlphaBeta { depth, evaluation } => Some(Diluted::AlphaBeta { depth, evaluation }),
            EngineSpec::Random | EngineSpec::Reference { .. } | EngineSpec::Dilute { .. } | EngineSpec::Human => None,
        }
    }
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
            EngineSpec::Dilute { random_percent, base } => Box::new(Dilute::new(
                self.to_string(),
                random_percent,
                EngineSpec::from(base).build(seed),
                seed,
            )),
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
            EngineSpec::Dilute { random_percent, base } => {
                write!(f, "dilute:{random_percent}:{}", EngineSpec::from(*base))
            }
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
            "dilute" => parse_dilute(spec, &lower),
            "" => Err(err("the spec is empty")),
            _ => Err(err("unknown engine")),
        }
    }
}

/// `dilute:P:ENGINE` (`lower`: the spec in lower case; `spec`: as given).
fn parse_dilute(spec: &str, lower: &str) -> Result<EngineSpec, ParseSpecError> {
    let err = |reason: String| ParseSpecError {
        spec: spec.to_string(),
        reason,
    };
    let mut parts = lower.splitn(3, ':').skip(1);
    let (Some(percent), Some(base)) = (parts.next(), parts.next()) else {
        return Err(err(
            "dilute needs a share and an engine, as in dilute:50:alphabeta:2".into()
        ));
    };
    let random_percent: u32 = percent.parse().ok().filter(|p| *p <= 100).ok_or_else(|| {
        err(format!(
            "the random share P {percent:?} is not a whole percent from 0 to 100"
        ))
    })?;
    let base_spec: EngineSpec = base.parse().map_err(|e: ParseSpecError| err(e.reason))?;
    let base = Diluted::from_spec(base_spec).ok_or_else(|| {
        err(format!(
            "{base_spec} cannot be diluted: give n-hand, n-least, n-most, greedy, search or alphabeta"
        ))
    })?;
    Ok(EngineSpec::Dilute { random_percent, base })
}
