//! The agent's settings.

use std::fmt;
use std::str::FromStr;

use serde_json::{json, Value};

use super::answer::AnswerPolicy;
use super::prompt::Prompt;
use crate::engine::EngineSpec;
use crate::llm::{ChatOptions, Think};
use crate::othello::{Labels, Perspective, TextStyle};

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
text_enum!(InvalidPolicy, "--on-invalid policy", "retry" => InvalidPolicy::Retry, "feedback" => InvalidPolicy::Feedback);

/// Everything that decides how the agent plays (and goes into the run record).
#[derive(Clone, Debug, PartialEq)]
pub struct AgentConfig {
    /// The model's name on the server.
    pub model: String,
    /// Tool or direct.
    pub mode: Mode,
    /// The system prompt, if any.
    pub system_prompt: Option<Prompt>,
    /// The user-message template, if any: `{board}` (the board text), `{color}` (black
    /// or white) and `{legal_moves}` are filled in. Without one the message is the board.
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
    /// Who plays when the model fails.
    pub fallback: EngineSpec,
    /// Which coordinate of an answer counts.
    pub answer: AnswerPolicy,
    /// Retry with a new session, or give feedback.
    pub on_invalid: InvalidPolicy,
}

impl AgentConfig {
    /// Seed 000's defaults for `model`: tool mode, 10 turns, 3 sessions, random fallback.
    pub fn new(model: &str) -> AgentConfig {
        AgentConfig {
            model: model.to_string(),
            mode: Mode::Tool,
            system_prompt: None,
            user_template: None,
            style: TextStyle::default(),
            think: None,
            options: ChatOptions::default(),
            keep_alive: None,
            max_turns: 10,
            max_sessions: 3,
            max_tool_rounds: u32::MAX,
            fallback: EngineSpec::Random,
            answer: AnswerPolicy::Last,
            on_invalid: InvalidPolicy::Retry,
        }
    }

    /// The settings as JSON for the run record (prompt text and hash included).
    pub fn to_json(&self) -> Value {
        json!({
            "model": self.model,
            "mode": self.mode.to_string(),
            "system_prompt": self.system_prompt,
            "user_template": self.user_template,
            "board_labels": match self.style.labels { Labels::Japanese => "ja", Labels::English => "en" },
            "board_perspective": match self.style.perspective { Perspective::Absolute => "absolute", Perspective::Relative => "relative" },
            "think": self.think,
            "options": self.options,
            "keep_alive": self.keep_alive,
            "max_turns": self.max_turns,
            "max_sessions": self.max_sessions,
            "max_tool_rounds": (self.max_tool_rounds != u32::MAX).then_some(self.max_tool_rounds),
            "fallback": self.fallback.to_string(),
            "answer": self.answer.to_string(),
            "on_invalid": self.on_invalid.to_string(),
        })
    }
}
