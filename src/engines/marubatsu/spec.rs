//! Marubatsu engine spec strings: parsing, canonical names, construction.

use std::fmt;
use std::str::FromStr;

use super::ai::{Rule, RuleEngine};
use super::perfect::Perfect;
use super::MarubatsuEngine;

/// The spec forms, for error messages and `--help`.
pub const VALID_SPECS: &str = "ai1, ai2 (or random), ai3, ai4, ai5, ai6, ai6s, ai7, ai7s, ai8s, ai9s, ai10s[:A] (A 1-50, default 1), ai11s, perfect; ai1s-ai5s are ai1-ai5";

/// The largest `ai10s` bonus accepted: with A + 8 below 100, a single
/// 「自 2 敵 0 空 1」 still ranks under a fork, as the seed's value table requires.
pub const MAX_AI10S_BONUS: i32 = 50;

/// A parsed marubatsu engine spec.
///
/// ```
/// use engines::marubatsu::MarubatsuSpec;
/// let spec: MarubatsuSpec = "AI8S".parse().unwrap();
/// assert_eq!(spec.to_string(), "ai8s");
/// assert_eq!("random".parse::<MarubatsuSpec>().unwrap().to_string(), "ai2");
/// assert_eq!(spec.build(7).name(), "ai8s");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MarubatsuSpec {
    /// One of seed 003's rules.
    Rule(Rule),
    /// `perfect`: full minimax.
    Perfect,
}

/// A spec string that names no marubatsu engine.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid marubatsu engine spec {spec:?}: {reason}; valid specs: {VALID_SPECS}")]
pub struct ParseMarubatsuSpecError {
    /// The spec as given.
    pub spec: String,
    /// What is wrong with it.
    pub reason: String,
}

impl MarubatsuSpec {
    /// Builds the engine; `seed` fixes its random choices.
    pub fn build(&self, seed: u64) -> Box<dyn MarubatsuEngine + Send> {
        match *self {
            MarubatsuSpec::Rule(rule) => Box::new(RuleEngine::new(rule, seed)),
            MarubatsuSpec::Perfect => Box::new(Perfect::new(seed)),
        }
    }
}

impl fmt::Display for MarubatsuSpec {
    /// The canonical spec: the seed's function name, or `perfect`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MarubatsuSpec::Rule(rule) => rule.fmt(f),
            MarubatsuSpec::Perfect => f.write_str("perfect"),
        }
    }
}

impl FromStr for MarubatsuSpec {
    type Err = ParseMarubatsuSpecError;

    /// Parses a spec (either case, surrounding whitespace ignored).
    fn from_str(spec: &str) -> Result<Self, Self::Err> {
        let err = |reason: String| ParseMarubatsuSpecError {
            spec: spec.to_string(),
            reason,
        };
        let lower = spec.trim().to_ascii_lowercase();
        let (name, param) = match lower.split_once(':') {
            Some((name, param)) => (name, Some(param)),
            None => (lower.as_str(), None),
        };
        let rule = match name {
            "" => return Err(err("the spec is empty".to_string())),
            "perfect" => None,
            "ai1" | "ai1s" => Some(Rule::Ai1),
            "ai2" | "ai2s" | "random" => Some(Rule::Ai2),
            "ai3" | "ai3s" => Some(Rule::Ai3),
            "ai4" | "ai4s" => Some(Rule::Ai4),
            "ai5" | "ai5s" => Some(Rule::Ai5),
            "ai6" => Some(Rule::Ai6),
            "ai6s" => Some(Rule::Ai6s),
            "ai7" => Some(Rule::Ai7),
            "ai7s" => Some(Rule::Ai7s),
            "ai8s" => Some(Rule::Ai8s),
            "ai9s" => Some(Rule::Ai9s),
            "ai10s" => {
                let bonus = match param {
                    None => 1,
                    Some(text) => match text.parse::<i32>() {
                        Ok(n) if (1..=MAX_AI10S_BONUS).contains(&n) => n,
                        _ => {
                            return Err(err(format!(
                                "the ai10s bonus A must be a whole number from 1 to {MAX_AI10S_BONUS}, got {text:?}"
                            )))
                        }
                    },
                };
                return Ok(MarubatsuSpec::Rule(Rule::Ai10s { bonus }));
            }
            "ai11s" => Some(Rule::Ai11s),
            "ai8" | "ai9" | "ai10" | "ai11" => {
                return Err(err(format!("seed 003 defines only the scored {name}s")));
            }
            _ => return Err(err("unknown engine".to_string())),
        };
        if param.is_some() {
            return Err(err(format!("{name} takes no parameters")));
        }
        Ok(rule.map_or(MarubatsuSpec::Perfect, MarubatsuSpec::Rule))
    }
}
