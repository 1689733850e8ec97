//! How colours and outcomes are written in logs and files: as their names (`black`,
//! `white`, `draw`), read back by the same parsers as the command line's.

use std::fmt;
use std::str::FromStr;

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::{Color, Outcome};

impl Serialize for Color {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Color {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Color, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(D::Error::custom)
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Win(color) => color.fmt(f),
            Outcome::Draw => f.write_str("draw"),
        }
    }
}

/// A result that is neither a colour nor `draw`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid winner {text:?}: expected black, white or draw")]
pub struct ParseOutcomeError {
    /// The text that failed to parse.
    pub text: String,
}

impl FromStr for Outcome {
    type Err = ParseOutcomeError;

    fn from_str(text: &str) -> Result<Outcome, ParseOutcomeError> {
        if text.trim().eq_ignore_ascii_case("draw") {
            return Ok(Outcome::Draw);
        }
        text.parse()
            .map(Outcome::Win)
            .map_err(|_| ParseOutcomeError { text: text.to_string() })
    }
}

impl Serialize for Outcome {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Outcome {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Outcome, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(D::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colours_and_outcomes_round_trip_as_their_names() {
        for (outcome, text) in [
            (Outcome::Win(Color::Black), "\"black\""),
            (Outcome::Win(Color::White), "\"white\""),
            (Outcome::Draw, "\"draw\""),
        ] {
            assert_eq!(serde_json::to_string(&outcome).unwrap(), text);
            assert_eq!(serde_json::from_str::<Outcome>(text).unwrap(), outcome);
        }
        assert_eq!(serde_json::to_string(&Color::White).unwrap(), "\"white\"");
        let err = serde_json::from_str::<Color>("\"purple\"").unwrap_err().to_string();
        assert!(err.contains("invalid color \"purple\""), "{err}");
        let err = serde_json::from_str::<Outcome>("\"nobody\"").unwrap_err().to_string();
        assert!(err.contains("expected black, white or draw"), "{err}");
    }
}
