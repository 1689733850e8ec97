//! Tool calls written as JSON text in `content` instead of `tool_calls`.
//!
//! Small models (and qwen3 / gemma4 under Ollama) often answer a tool request with
//! the call as text: fenced (```` ```json ... ``` ````), bare, inside
//! `<tool_call>...</tool_call>`, or as a list. Any JSON object in the text with a
//! string `name` and an `arguments` (or `parameters`) member is taken as a call, as
//! is one wrapped in `{"function": {...}}`. These are counted apart from structured
//! calls.

use serde_json::Value;

use crate::{FunctionCall, ToolCall};

/// The tool calls found in `content`, in order (empty when there are none).
pub fn recover_tool_calls(content: &str) -> Vec<ToolCall> {
    let mut calls = Vec::new();
    let mut pos = 0;
    while let Some(offset) = content[pos..].find(['{', '[']) {
        let start = pos + offset;
        let mut values = serde_json::Deserializer::from_str(&content[start..]).into_iter::<Value>();
        match values.next() {
            Some(Ok(value)) => {
                collect(&value, &mut calls);
                pos = start + values.byte_offset().max(1);
            }
            _ => pos = start + 1,
        }
    }
    calls
}

fn collect(value: &Value, calls: &mut Vec<ToolCall>) {
    match value {
        Value::Array(items) => items.iter().for_each(|item| collect(item, calls)),
        Value::Object(object) => {
            if let Some(function) = object.get("function").filter(|f| f.is_object()) {
                collect(function, calls);
                return;
            }
            let name = object.get("name").and_then(Value::as_str);
            let arguments = object.get("arguments").or_else(|| object.get("parameters"));
            if let (Some(name), Some(arguments)) = (name, arguments) {
                calls.push(ToolCall {
                    id: None,
                    function: FunctionCall {
                        name: name.to_string(),
                        arguments: arguments.clone(),
                    },
                });
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn names_and_args(content: &str) -> Vec<(String, Value)> {
        recover_tool_calls(content)
            .into_iter()
            .map(|c| (c.function.name, c.function.arguments))
            .collect()
    }

    #[test]
    fn recovers_the_shapes_models_write() {
        let d3 = || vec![("simulate_move".to_string(), json!({"coord": "d3"}))];
        assert_eq!(
            names_and_args("```json\n{\"name\": \"simulate_move\", \"arguments\": {\"coord\": \"d3\"}}\n```"),
            d3()
        );
        assert_eq!(
            names_and_args("{\"name\":\"simulate_move\",\"arguments\":{\"coord\":\"d3\"}}"),
            d3()
        );
        assert_eq!(
            names_and_args(
                "<tool_call>\n{\"name\": \"simulate_move\", \"arguments\": {\"coord\": \"d3\"}}\n</tool_call>"
            ),
            d3()
        );
        assert_eq!(names_and_args("Let me check. {\"type\": \"function\", \"function\": {\"name\": \"simulate_move\", \"parameters\": {\"coord\": \"d3\"}}}"), d3());
        assert_eq!(
            names_and_args("{\"name\": \"simulate_move\", \"arguments\": \"{\\\"coord\\\": \\\"d3\\\"}\"}")[0].1,
            json!("{\"coord\": \"d3\"}")
        );
        let two = names_and_args("[{\"name\": \"simulate_move\", \"arguments\": {\"coord\": \"d3\"}}, {\"name\": \"simulate_move\", \"arguments\": {\"coord\": \"c4\"}}]");
        assert_eq!(two.len(), 2);
        assert_eq!(two[1].1, json!({"coord": "c4"}));
    }

    #[test]
    fn ignores_answers_and_broken_json() {
        assert!(recover_tool_calls("d3").is_empty());
        assert!(recover_tool_calls("{\"move\": \"d3\"}").is_empty());
        assert!(recover_tool_calls("{\"name\": \"simulate_move\", \"arguments\": {\"coord\": ").is_empty());
        assert!(recover_tool_calls("I think {d3} is good [really]").is_empty());
    }
}
