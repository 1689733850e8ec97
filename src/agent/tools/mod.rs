//! Tools the model may call, with argument schemas derived by schemars.
//!
//! A tool's failure (unknown name, bad arguments, an illegal square) is data for the
//! model: it comes back as `{"error": "..."}` and the conversation goes on.

mod simulate_mark;
mod simulate_move;

pub use simulate_mark::{SimulateMark, SimulateMarkArgs, SimulateMarkResult};
pub use simulate_move::{SimulateMove, SimulateMoveArgs, SimulateResult};

use schemars::generate::SchemaSettings;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::{json, Value};

use llm::{FunctionSpec, ToolSpec};

/// A tool the model can call while deciding a move in `board`.
pub trait Tool: Send + Sync {
    /// The name the model calls it by.
    const NAME: &'static str;
    /// What it does, for the model.
    const DESCRIPTION: &'static str;
    /// Its arguments; the JSON schema sent to the model is derived from this type.
    type Args: DeserializeOwned + JsonSchema;
    /// The position the tool looks at.
    type Position;

    /// Runs the tool; `Err` is a message for the model.
    fn call(&self, position: &Self::Position, args: Self::Args) -> Result<Value, String>;

    /// What this tool, as set up, does, for the model: [`Tool::DESCRIPTION`] unless its
    /// settings change what a result holds (blind play). Every face that offers the
    /// tool (the agent's requests, the MCP server) sends this one text.
    fn description(&self) -> &'static str {
        Self::DESCRIPTION
    }
}

/// The JSON schema of `T` as sent to models: subschemas inlined, no `$schema`, and no
/// top-level `title` or `description` (those are Rust doc text; the tool has its own).
pub fn parameters_schema<T: JsonSchema>() -> Value {
    let settings = SchemaSettings::draft07().with(|s| {
        s.inline_subschemas = true;
        s.meta_schema = None;
    });
    let mut value = settings.into_generator().into_root_schema_for::<T>().to_value();
    if let Some(object) = value.as_object_mut() {
        object.remove("title");
        object.remove("description");
    }
    value
}

/// The tool spec sent to the model for `tool`.
pub fn tool_spec<T: Tool>(tool: &T) -> ToolSpec {
    ToolSpec {
        kind: "function",
        function: FunctionSpec {
            name: T::NAME.to_string(),
            description: tool.description().to_string(),
            parameters: parameters_schema::<T::Args>(),
        },
    }
}

/// Arguments as the server sent them: an object (Ollama) or a JSON string (OpenAI).
pub fn decode_args<A: DeserializeOwned>(raw: &Value) -> Result<A, String> {
    let object = match raw {
        Value::String(text) => serde_json::from_str(text).map_err(|e| format!("arguments are not JSON ({e})"))?,
        other => other.clone(),
    };
    serde_json::from_value(object).map_err(|e| e.to_string())
}

/// What a tool call returned to the model.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolOutcome {
    /// The content of the tool message (JSON text).
    pub content: String,
    /// Whether it was an error.
    pub is_error: bool,
}

/// The tools offered to the agent. Today: `simulate_move`.
pub struct ToolRegistry<T: Tool = SimulateMove> {
    simulate_move: T,
}

impl<T: Tool> ToolRegistry<T> {
    /// The registry with `simulate_move` rendering boards as `simulate_move` says.
    pub fn new(simulate_move: T) -> ToolRegistry<T> {
        ToolRegistry { simulate_move }
    }

    /// Specs of every tool, for the request.
    pub fn specs(&self) -> Vec<ToolSpec> {
        vec![tool_spec(&self.simulate_move)]
    }

    /// Names of every tool.
    pub fn names(&self) -> Vec<&'static str> {
        vec![T::NAME]
    }

    /// Runs the tool `name` with the raw `arguments` in `board`.
    pub fn call(&self, position: &T::Position, name: &str, arguments: &Value) -> ToolOutcome {
        let result = match name {
            name if name == T::NAME => run(&self.simulate_move, position, arguments),
            _ => Err(format!(
                "unknown tool {name:?}; the available tools are: {}",
                self.names().join(", ")
            )),
        };
        match result {
            Ok(value) => ToolOutcome {
                content: value.to_string(),
                is_error: false,
            },
            Err(message) => ToolOutcome {
                content: json!({ "error": message }).to_string(),
                is_error: true,
            },
        }
    }
}

fn run<T: Tool>(tool: &T, position: &T::Position, arguments: &Value) -> Result<Value, String> {
    let args = decode_args::<T::Args>(arguments).map_err(|e| {
        format!(
            "invalid arguments for {}: {e}; expected {}",
            T::NAME,
            parameters_schema::<T::Args>()["properties"]
        )
    })?;
    tool.call(position, args)
}

#[cfg(test)]
mod tests;
