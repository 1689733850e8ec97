//! The words of the settings that are one of a few choices: each read by one parser
//! (`FromStr`, any case) and written by one `Display`, so a flag, an agent file and
//! run.json hold the same words (serde goes through them).

use std::fmt;
use std::str::FromStr;

use engines::Engines;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// How the model is asked.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Mode {
    /// With the `simulate_move` tool, over several turns (seed 000's tool agent).
    #[default]
    Tool,
    /// One request per attempt, no tools; the answer follows `</think>` (seed 000's
    /// fine-tuned direct model, whose template opens the `<think>` block). Without
    /// `</think>`, only a bare coordinate counts as an answer.
    Direct,
}

/// What to do when a final answer holds no legal move.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum InvalidPolicy {
    /// Start a new session (seed 000).
    #[default]
    Retry,
    /// Tell the model the move is illegal and continue the conversation.
    Feedback,
}

/// Whether the model is told which moves are legal.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LegalMoves {
    /// The board text, a `{legal_moves}` template field, the feedback after an invalid
    /// answer and the tool's results name them (seed 000).
    #[default]
    Shown,
    /// Blind play: the model is never told them; it must find them from the board.
    Hidden,
}

impl LegalMoves {
    /// Whether the model is told the legal moves.
    pub fn shown(self) -> bool {
        self == LegalMoves::Shown
    }
}

/// `a`, `a or b`, `a, b or c`: the words a setting takes, as its message lists them.
fn choices(words: &[&str]) -> String {
    match words {
        [] => String::new(),
        [one] => one.to_string(),
        [rest @ .., last] => format!("{} or {last}", rest.join(", ")),
    }
}

/// `FromStr` (any case, trimmed) and `Display` for an enum setting from its words; the
/// message names the setting (`$what`) and lists the words.
macro_rules! text_enum {
    ($ty:ty, $what:literal, $($name:literal => $value:expr),+) => {
        impl FromStr for $ty {
            type Err = String;
            fn from_str(s: &str) -> Result<Self, String> {
                match s.trim().to_ascii_lowercase().as_str() {
                    $($name => Ok($value),)+
                    other => Err(format!(concat!("invalid ", $what, " {:?}: expected {}"), other, choices(&[$($name),+]))),
                }
            }
        }
        impl fmt::Display for $ty {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                $(if *self == $value { return f.write_str($name); })+
                Ok(())
            }
        }
    };
}

text_enum!(Mode, "mode", "tool" => Mode::Tool, "direct" => Mode::Direct);
text_enum!(LegalMoves, "--legal-moves", "shown" => LegalMoves::Shown, "hidden" => LegalMoves::Hidden);
text_enum!(InvalidPolicy, "--on-invalid policy", "retry" => InvalidPolicy::Retry, "feedback" => InvalidPolicy::Feedback);

/// Serde for a type written as its `Display` text and read by its `FromStr` (the
/// flag's parser), so a file or run.json holds the words the command line takes.
macro_rules! serde_as_text {
    ($($ty:ty),*) => {$(
        impl Serialize for $ty {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.collect_str(self)
            }
        }

        impl<'de> Deserialize<'de> for $ty {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<$ty, D::Error> {
                let text = String::deserialize(deserializer)?;
                text.parse().map_err(serde::de::Error::custom)
            }
        }
    )*};
}

/// What happens when every session failed to give a legal move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fallback {
    /// An engine of the game plays the move, recorded as `fallback` (seed 000:
    /// `random`): its spec, checked for the game by [`Fallback::check`].
    Engine(String),
    /// No move is played: the agent forfeits and loses the game (Kaggle, LLM Chess).
    Forfeit,
}

/// A `--fallback` that is neither `forfeit` nor an engine of the game.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParseFallbackError {
    /// `human`: nobody is at the terminal to stand in for the model.
    #[error("the fallback must be forfeit or an engine, not human")]
    Human,
    /// Not an engine spec of the game.
    #[error("invalid fallback {text:?}: give forfeit or an engine spec ({reason})")]
    Spec {
        /// The text as given.
        text: String,
        /// Why it is no engine spec of the game.
        reason: String,
    },
}

impl FromStr for Fallback {
    type Err = ParseFallbackError;

    /// `forfeit` (any case) or an engine's text, checked against a game (an engine
    /// spec of it, never `human`) by [`Fallback::check`].
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let text = text.trim();
        if text.eq_ignore_ascii_case("forfeit") {
            return Ok(Fallback::Forfeit);
        }
        if text.is_empty() {
            return Err(ParseFallbackError::Spec {
                text: text.to_string(),
                reason: "it is empty".to_string(),
            });
        }
        Ok(Fallback::Engine(text.to_string()))
    }
}

impl Fallback {
    /// The fallback as a player of game `R`: its engine spec parsed and written in its
    /// canonical form, or `forfeit`.
    pub fn check<R: Engines>(&self) -> Result<Fallback, ParseFallbackError> {
        match self.spec::<R>()? {
            Some(spec) => Ok(Fallback::Engine(spec.to_string())),
            None => Ok(Fallback::Forfeit),
        }
    }

    /// The engine of game `R` that stands in for the model (`None`: forfeit).
    pub fn spec<R: Engines>(&self) -> Result<Option<R::Spec>, ParseFallbackError> {
        let Fallback::Engine(text) = self else {
            return Ok(None);
        };
        if text.eq_ignore_ascii_case("human") {
            return Err(ParseFallbackError::Human);
        }
        match text.parse::<R::Spec>() {
            Ok(spec) if R::is_human(&spec) => Err(ParseFallbackError::Human),
            Ok(spec) => Ok(Some(spec)),
            Err(e) => Err(ParseFallbackError::Spec {
                text: text.clone(),
                reason: e.to_string(),
            }),
        }
    }
}

impl fmt::Display for Fallback {
    /// `forfeit`, or the engine's spec.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Fallback::Engine(spec) => f.write_str(spec),
            Fallback::Forfeit => f.write_str("forfeit"),
        }
    }
}

/// Which coordinate of an answer is taken.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum AnswerPolicy {
    /// The last legal coordinate (seed 000: the decision usually comes last).
    #[default]
    Last,
    /// The first legal coordinate.
    First,
    /// Only a clean answer: exactly one coordinate and nothing else.
    Strict,
}

text_enum!(AnswerPolicy, "answer policy", "last" => AnswerPolicy::Last, "first" => AnswerPolicy::First, "strict" => AnswerPolicy::Strict);

/// How the final answer is asked for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum AnswerFormat {
    /// Free text; the move is read from it (seed 000).
    #[default]
    Text,
    /// JSON `{"move": "<square>"}`, the square one of the 64.
    Json,
    /// JSON `{"move": "<square>"}`, the square one of the legal moves.
    JsonLegal,
}

text_enum!(AnswerFormat, "answer format", "text" => AnswerFormat::Text, "json" => AnswerFormat::Json, "json-legal" => AnswerFormat::JsonLegal);

serde_as_text!(Mode, InvalidPolicy, AnswerPolicy, AnswerFormat, Fallback, LegalMoves);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::AgentConfig;
    use game::{Marubatsu, Othello};

    #[test]
    fn fallbacks_read_back_as_written() {
        for text in [
            "forfeit",
            "random",
            "greedy",
            "n-hand:3",
            "alphabeta:4:weight",
            "reference:8:18",
        ] {
            let fallback: Fallback = text.parse().unwrap();
            assert_eq!(fallback.check::<Othello>().unwrap().to_string(), text);
            assert_eq!(fallback.to_string().parse::<Fallback>().unwrap(), fallback);
        }
        assert_eq!(" Forfeit ".parse::<Fallback>(), Ok(Fallback::Forfeit));
        assert_eq!(
            "nhand"
                .parse::<Fallback>()
                .unwrap()
                .check::<Othello>()
                .unwrap()
                .to_string(),
            "n-hand:3",
            "engines are written in their canonical form, as before"
        );
        assert_eq!(
            "ai8s"
                .parse::<Fallback>()
                .unwrap()
                .check::<Marubatsu>()
                .unwrap()
                .to_string(),
            "ai8s",
            "each game checks its own engines"
        );
    }

    #[test]
    fn a_person_or_nonsense_is_no_fallback() {
        for human in ["human", " Human "] {
            let fallback = human.parse::<Fallback>().unwrap();
            assert_eq!(fallback.check::<Othello>(), Err(ParseFallbackError::Human));
            assert_eq!(fallback.check::<Marubatsu>(), Err(ParseFallbackError::Human));
        }
        let err = "nonsense".parse::<Fallback>().unwrap().check::<Othello>().unwrap_err();
        assert!(matches!(&err, ParseFallbackError::Spec { text, .. } if text == "nonsense"));
        assert!(err.to_string().contains("forfeit"));
        assert!(err.to_string().contains("valid specs"), "the engine spec error is kept");
    }

    #[test]
    fn the_run_record_keeps_the_fallback_string() {
        let mut config = AgentConfig::new("m");
        assert_eq!(serde_json::to_value(&config).unwrap()["fallback"], "random");
        config.fallback = Fallback::Forfeit;
        assert_eq!(serde_json::to_value(&config).unwrap()["fallback"], "forfeit");
    }
}
