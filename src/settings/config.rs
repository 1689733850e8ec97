//! The agent's settings resolved: one value ([`AgentConfig`]) with its defaults written
//! once ([`AgentConfig::default`]), its words those of [`crate::words`], and stored in run.json as the
//! [`stored`](crate::stored) module describes.

use serde::{Deserialize, Serialize};

use crate::prompt::Prompt;
use crate::stored::{Stored, Unrecorded};
use crate::words::{AnswerFormat, AnswerPolicy, Fallback, InvalidPolicy, LegalMoves, Mode};
use game::othello::TextStyle;
use record::{ChatOptions, Think};

/// The longest player name ([`AgentConfig::check_name`]).
pub const MAX_NAME: usize = 40;

/// The cap on each answer's tokens, thinking included (`num_predict`), that a JSON
/// answer format gets when none is given ([`AgentConfig::cap_json_answers`]): a move
/// and a reason of at most 200 characters (the agent's `REASON_MAX_CHARS`) need about 80; unbounded, a small model
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
