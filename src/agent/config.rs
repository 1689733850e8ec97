//! The agent's settings: one value ([`AgentConfig`]) with its defaults written once
//! ([`AgentConfig::default`]), its words read and written by one parser each
//! (`FromStr`/`Display`, serde through them), and stored in run.json as the
//! [`stored`](crate::stored) module describes.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::answer::AnswerPolicy;
use super::prompt::Prompt;
use super::stored::{Stored, Unrecorded};
use super::structured::AnswerFormat;
use crate::ModelGame;
use game::othello::TextStyle;
use llm::{ChatOptions, Think};

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

macro_rules! text_enum {
    ($ty:ty, $what:literal, $($name:literal => $value:expr),+) => {
        impl FromStr for $ty {
            type Err = String;
            fn from_str(s: &str) -> Result<Self, String> {
                match s.trim().to_ascii_lowercase().as_str() {
                    $($name => Ok($value),)+
                    other => Err(format!(concat!("invalid ", $what, " {:?}: expected {}"), other, [$($name),+].join(" or "))),
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

serde_as_text!(Mode, InvalidPolicy, AnswerFormat, Fallback, LegalMoves);

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
    pub fn check<R: ModelGame>(&self) -> Result<Fallback, ParseFallbackError> {
        match self.spec::<R>()? {
            Some(spec) => Ok(Fallback::Engine(spec.to_string())),
            None => Ok(Fallback::Forfeit),
        }
    }

    /// The engine of game `R` that stands in for the model (`None`: forfeit).
    pub fn spec<R: ModelGame>(&self) -> Result<Option<R::Spec>, ParseFallbackError> {
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

/// The longest player name ([`AgentConfig::check_name`]).
pub const MAX_NAME: usize = 40;

/// The cap on each answer's tokens, thinking included (`num_predict`), that a JSON
/// answer format gets when none is given ([`AgentConfig::cap_json_answers`]): a move
/// and a [`crate::REASON_MAX_CHARS`] reason need about 80; unbounded, a small model
/// held to the schema wrote 8,046 tokens a request.
pub const JSON_ANSWER_TOKENS: i32 = 256;

/// A player name that a table, a CSV file or a file name could not hold as one cell.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "bad player name {name:?}: use 1 to {MAX_NAME} letters, digits, '-', '_', '.' or '+' (the player is \
     llm:MODEL@NAME in tables, CSV files and file names)"
)]
pub struct PlayerNameError {
    /// The name given.
    pub name: String,
}

/// Settings that cannot go together, refused before any game ([`AgentConfig::check`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ConflictError {
    /// `json-legal` holds the answer to the legal moves, which hidden play withholds.
    #[error(
        "--answer-format json-legal and --legal-moves hidden cannot go together: the json-legal schema lists \
         the legal moves the model is not to be told; use --answer-format json or text with hidden moves"
    )]
    JsonLegalHidden,
    /// A user template fills in the legal moves, which hidden play withholds.
    #[error(
        "--user-template {template} fills in {{legal_moves}}, which --legal-moves hidden withholds: use a \
         template without {{legal_moves}}, or --legal-moves shown"
    )]
    TemplateHidden {
        /// The template's name or path.
        template: String,
    },
    /// A system prompt that speaks of the legal-move list, which hidden play withholds.
    #[error(
        "--system {prompt} speaks of {mark}, which --legal-moves hidden never gives: use a blind prompt \
         (tool-en-blind, tool-ja-blind, small-model-blind, marubatsu-tool-en-blind) or one of your own, or \
         --legal-moves shown"
    )]
    SystemHidden {
        /// The prompt's name or path.
        prompt: String,
        /// What of the list it names (`"Legal moves"`, `opponent_valid_moves`, 「置ける位置」).
        mark: &'static str,
    },
}

/// What a system prompt names of the legal-move list that blind play withholds: the
/// board text's list (English and Japanese labels), `simulate_move`'s replies, and the
/// shipped small-model prompts' mentions of the list.
const LIST_MARKS: [(&str, &str); 5] = [
    ("Legal moves", "the \"Legal moves\" list"),
    ("置ける位置", "the 「置ける位置」 list"),
    ("opponent_valid_moves", "opponent_valid_moves"),
    // The shipped small-model prompts' words for the list.
    (
        "lists your legal moves",
        "a list of the legal moves (\"lists your legal moves\")",
    ),
    (
        "from the legal moves",
        "a list of the legal moves (\"from the legal moves\")",
    ),
];

/// Everything that decides how the agent plays, as run.json records it (serde writes
/// and reads exactly its keys: see the `stored` module).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(into = "Stored", from = "Stored")]
pub struct AgentConfig {
    /// The model's name on the server.
    pub model: String,
    /// Tells apart two players of one model in a tournament: the player is then
    /// `llm:MODEL@NAME` in logs and tables.
    pub name: Option<String>,
    /// Tool or direct.
    pub mode: Mode,
    /// The system prompt, if any.
    pub system_prompt: Option<Prompt>,
    /// The user-message template, if any: `{board}` (the board text), `{color}` (black
    /// or white) and `{legal_moves}` (shown legal moves only) are filled in. Without one
    /// the message is the board.
    pub user_template: Option<Prompt>,
    /// How boards are written (user message and tool results).
    pub style: TextStyle,
    /// Ollama's `think`, when set.
    pub think: Option<Think>,
    /// Sampling options.
    pub options: ChatOptions,
    /// Ollama's `keep_alive`, when set.
    pub keep_alive: Option<String>,
    /// Requests per session (T; tool rounds and feedback turns count).
    pub max_turns: u32,
    /// Sessions (tool mode) or attempts (direct mode) per move (A).
    pub max_sessions: u32,
    /// Rounds of tool calls per session; once spent, tools are withheld and the model
    /// is asked for its answer (`u32::MAX`: bounded only by `max_turns`, seed 000).
    pub max_tool_rounds: u32,
    /// Who plays when the model fails: an engine, or nobody (the game is forfeited).
    pub fallback: Fallback,
    /// Which coordinate of an answer counts.
    pub answer: AnswerPolicy,
    /// Free text, or JSON held to a schema by the server.
    pub answer_format: AnswerFormat,
    /// Whether a JSON answer's schema offers the optional `reason` beside the move.
    pub answer_reason: bool,
    /// Retry with a new session, or give feedback.
    pub on_invalid: InvalidPolicy,
    /// Whether the model is told the legal moves (hidden: blind play).
    pub legal_moves: LegalMoves,
    /// Samples per decision (K): above 1, the most frequent legal move of K samples
    /// is played, ties to the earliest.
    pub vote: u32,
    /// What the model is told after an answer cut off at the token limit (before the
    /// legal moves), when not the harness's own sentence.
    pub cut_off_message: Option<String>,
    /// The run.json keys that the record these settings were read from lacked (an
    /// older version wrote it), left out again when it is written back.
    pub(crate) unrecorded: Unrecorded,
}

impl Default for AgentConfig {
    /// Seed 000's defaults, the flags' and an agent file's: tool mode, 10 turns, 3
    /// sessions, a random fallback; no model yet.
    fn default() -> AgentConfig {
        AgentConfig {
            model: String::new(),
            name: None,
            mode: Mode::default(),
            system_prompt: None,
            user_template: None,
            style: TextStyle::default(),
            think: None,
            options: ChatOptions::default(),
            keep_alive: None,
            max_turns: 10,
            max_sessions: 3,
            max_tool_rounds: u32::MAX,
            fallback: Fallback::Engine("random".to_string()),
            answer: AnswerPolicy::default(),
            answer_format: AnswerFormat::default(),
            answer_reason: true,
            on_invalid: InvalidPolicy::default(),
            legal_moves: LegalMoves::default(),
            vote: 1,
            cut_off_message: None,
            unrecorded: Unrecorded::default(),
        }
    }
}

/// Whether a player name may hold `c` (ASCII letters, digits, `-`, `_`, `.`, `+`): the
/// characters a table cell keeps whole. The one place this rule is written.
pub fn name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '+')
}

impl AgentConfig {
    /// The defaults ([`AgentConfig::default`]) for `model`.
    pub fn new(model: &str) -> AgentConfig {
        AgentConfig {
            model: model.to_string(),
            ..AgentConfig::default()
        }
    }

    /// Gives a JSON answer format's answers the cap [`JSON_ANSWER_TOKENS`] when no cap
    /// is set (`options.num_predict`): the default of the settings' resolution, so
    /// run.json and the tables show the cap the requests carry. Text answers, and a cap
    /// already given, are left as they are.
    pub fn cap_json_answers(&mut self) {
        if self.json_uncapped() {
            self.options.num_predict = Some(JSON_ANSWER_TOKENS);
        }
    }

    /// How the tables name the answers' token cap: `answers capped at 256 tokens
    /// (num_predict, thinking included)`, or that there is none.
    pub fn cap_note(&self) -> String {
        match self.options.num_predict {
            Some(n) if n >= 0 => format!("answers capped at {n} tokens (num_predict, thinking included)"),
            _ => "answers not capped (no num_predict)".to_string(),
        }
    }

    /// Whether the answers are JSON with no cap: what [`AgentConfig::cap_json_answers`]
    /// caps, and what a run recorded before that default played.
    fn json_uncapped(&self) -> bool {
        self.answer_format != AnswerFormat::Text && self.options.num_predict.is_none()
    }

    /// Takes the default cap off again when the run being resumed was `recorded`
    /// uncapped (JSON answers before they had a default cap): a resume plays on with
    /// the settings the run began with.
    pub fn keep_recorded_cap(&mut self, recorded: &AgentConfig) {
        if recorded.json_uncapped() && self.options.num_predict == Some(JSON_ANSWER_TOKENS) {
            self.options.num_predict = None;
        }
    }

    /// Checks a player name (the `name` field): 1 to [`MAX_NAME`] ASCII letters, digits,
    /// `-`, `_`, `.` or `+`, so `llm:MODEL@NAME` stays one cell of every table.
    pub fn check_name(name: &str) -> Result<(), PlayerNameError> {
        if name.is_empty() || name.len() > MAX_NAME || !name.chars().all(name_char) {
            return Err(PlayerNameError { name: name.to_string() });
        }
        Ok(())
    }

    /// Refuses settings that cannot go together: hidden legal moves with the
    /// `json-legal` answer format, with a user template that fills in `{legal_moves}`
    /// (both would tell the model what hidden play withholds), or with a system prompt
    /// that speaks of the list (it would promise what hidden play never gives).
    pub fn check(&self) -> Result<(), ConflictError> {
        if self.legal_moves.shown() {
            return Ok(());
        }
        if self.answer_format == AnswerFormat::JsonLegal {
            return Err(ConflictError::JsonLegalHidden);
        }
        if let Some(template) = self.user_template.as_ref().filter(|t| t.text.contains("{legal_moves}")) {
            return Err(ConflictError::TemplateHidden {
                template: template.source.clone(),
            });
        }
        let system = self.system_prompt.as_ref();
        match system.and_then(|p| LIST_MARKS.iter().find(|(mark, _)| p.text.contains(mark))) {
            Some(&(_, mark)) => Err(ConflictError::SystemHidden {
                prompt: system.map(|p| p.source.clone()).unwrap_or_default(),
                mark,
            }),
            None => Ok(()),
        }
    }

    /// The player's spec: `llm:MODEL`, or `llm:MODEL@NAME` for a named player.
    pub fn spec(&self) -> String {
        match &self.name {
            Some(name) => format!("llm:{}@{name}", self.model),
            None => format!("llm:{}", self.model),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
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
