//! How colours, outcomes and the game's name are written in logs and files: as their
//! names (`black`, `white`, `draw`, `marubatsu`), read back by the same parsers as the
//! command line's.

use std::fmt;
use std::str::FromStr;

use super::{Color, Labels, Outcome, Perspective};

/// Serde for a type written as its `Display` text and read by its `FromStr`, whose
/// error (shown with the line that failed) names the text: the log's typed fields
/// (`record`'s moves and boards too) are written so.
#[macro_export]
macro_rules! serde_as_text {
    ($($ty:ty),*) => {$(
        impl ::serde::Serialize for $ty {
            fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.collect_str(self)
            }
        }

        impl<'de> ::serde::Deserialize<'de> for $ty {
            fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> Result<$ty, D::Error> {
                let text = <String as ::serde::Deserialize>::deserialize(deserializer)?;
                text.parse().map_err(<D::Error as ::serde::de::Error>::custom)
            }
        }
    )*};
}

serde_as_text!(Color, Outcome, Labels, Perspective, crate::Game);

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Win(color) => color.fmt(f),
            Outcome::Draw => f.write_str("draw"),
        }
    }
}

/// A board-text word that names no [`Labels`] or [`Perspective`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid {what} {text:?}: expected {expected}")]
pub struct ParseStyleError {
    /// What was asked for: `labels` or `perspective`.
    pub what: &'static str,
    /// The text given.
    pub text: String,
    /// The words that would do.
    pub expected: &'static str,
}

/// `FromStr` (any case, spaces around ignored) and `Display` for a word-valued enum.
macro_rules! words {
    ($ty:ty, $what:literal, $expected:literal, $($word:literal => $value:path),+) => {
        impl FromStr for $ty {
            type Err = ParseStyleError;

            fn from_str(text: &str) -> Result<$ty, ParseStyleError> {
                match text.trim().to_ascii_lowercase().as_str() {
                    $($word => Ok($value),)+
                    _ => Err(ParseStyleError { what: $what, text: text.to_string(), expected: $expected }),
                }
            }
        }

        impl fmt::Display for $ty {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(match *self {
                    $($value => $word,)+
                })
            }
        }
    };
}

words!(Labels, "labels", "ja or en", "ja" => Labels::Japanese, "en" => Labels::English);
words!(Perspective, "perspective", "absolute or relative", "absolute" => Perspective::Absolute, "relative" => Perspective::Relative);

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
        assert_eq!(serde_json::to_string(&crate::Game::Marubatsu).unwrap(), "\"marubatsu\"");
        assert_eq!(
            serde_json::from_str::<crate::Game>("\"othello\"").unwrap(),
            crate::Game::Othello
        );
        let err = serde_json::from_str::<crate::Game>("\"chess\"")
            .unwrap_err()
            .to_string();
        assert!(err.contains("unknown game \"chess\""), "{err}");
    }

    #[test]
    fn board_styles_round_trip_as_their_words_in_any_case() {
        for (labels, word) in [(Labels::Japanese, "ja"), (Labels::English, "en")] {
            assert_eq!(labels.to_string(), word);
            assert_eq!(word.to_uppercase().parse::<Labels>(), Ok(labels));
            assert_eq!(serde_json::from_str::<Labels>(&format!("\"{word}\"")).unwrap(), labels);
        }
        for (perspective, word) in [(Perspective::Absolute, "absolute"), (Perspective::Relative, "relative")] {
            assert_eq!(serde_json::to_string(&perspective).unwrap(), format!("\"{word}\""));
            assert_eq!(format!(" {word} ").parse::<Perspective>(), Ok(perspective));
        }
        let err = "fr".parse::<Labels>().unwrap_err().to_string();
        assert_eq!(err, "invalid labels \"fr\": expected ja or en");
    }
}
