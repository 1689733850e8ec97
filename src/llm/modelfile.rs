//! Ollama Modelfiles: a base model, a system prompt, a template and parameters,
//! checked so that no value can break out of its directive, written as a Modelfile
//! or sent to `POST /api/create` ([`OllamaBackend::create_model`](crate::OllamaBackend::create_model)).
//!
//! Ollama's Modelfile has no escapes: a line break ends a directive (the next line
//! would be read as a directive of its own), other control characters are dropped,
//! and a double quote cannot sit inside a quoted value. Errors name the flag the
//! value came from (`--from`, `--param`, `--system`, `--template`, `--create`).

use std::fmt::Write as _;

use serde::Serialize;
use serde_json::{Map, Value};

/// A value that cannot go into a Modelfile as given: what and why, with the fix.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ModelfileError(String);

/// A text block of the Modelfile (a system prompt, a template) and where it came from.
#[derive(Clone, Copy, Debug)]
pub struct Block<'a> {
    /// The text.
    pub text: &'a str,
    /// Its source, for errors (a file's path).
    pub source: &'a str,
}

/// A checked Modelfile.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Modelfile {
    /// The base model (`FROM`).
    from: String,
    /// The system prompt (`SYSTEM`).
    #[serde(skip_serializing_if = "Option::is_none")]
    system: Option<String>,
    /// The template (`TEMPLATE`).
    #[serde(skip_serializing_if = "Option::is_none")]
    template: Option<String>,
    /// The parameters (`PARAMETER`), a key given twice as a list.
    #[serde(skip_serializing_if = "Map::is_empty")]
    parameters: Map<String, Value>,
}

/// `POST /api/create`'s body: the model's name and its Modelfile's parts.
#[derive(Debug, Serialize)]
pub(crate) struct CreateRequest<'a> {
    model: &'a str,
    stream: bool,
    #[serde(flatten)]
    modelfile: &'a Modelfile,
}

impl Modelfile {
    /// Checks every part: `from` on one line without double quotes, the blocks without
    /// `"""` or control characters, `params` as `KEY=VALUE` (a number or boolean when
    /// the value reads as one, otherwise a string, surrounding quotes removed).
    pub fn new(
        from: &str,
        system: Option<Block<'_>>,
        template: Option<Block<'_>>,
        params: &[String],
    ) -> Result<Modelfile, ModelfileError> {
        if let Some(block) = system {
            check_block(block, "--system")?;
        }
        if let Some(block) = template {
            check_block(block, "--template")?;
        }
        check_from(from)?;
        Ok(Modelfile {
            from: from.to_string(),
            system: system.map(|b| b.text.to_string()),
            template: template.map(|b| b.text.to_string()),
            parameters: parameters(params)?,
        })
    }

    /// The base model.
    pub fn from(&self) -> &str {
        &self.from
    }

    /// The Modelfile's text: every value is checked, and a string value is written
    /// in double quotes as it is.
    pub fn render(&self) -> String {
        let from = if self.from.contains(' ') {
            format!("\"{}\"", self.from)
        } else {
            self.from.clone()
        };
        let mut out = format!("FROM {from}\n");
        for (key, value) in &self.parameters {
            let values = match value {
                Value::Array(list) => list.clone(),
                other => vec![other.clone()],
            };
            for v in values {
                let text = match &v {
                    Value::String(s) => format!("\"{s}\""),
                    other => other.to_string(),
                };
                let _ = writeln!(out, "PARAMETER {key} {text}");
            }
        }
        if let Some(template) = &self.template {
            let _ = writeln!(out, "TEMPLATE \"\"\"{template}\"\"\"");
        }
        if let Some(system) = &self.system {
            let _ = writeln!(out, "SYSTEM \"\"\"{system}\"\"\"");
        }
        out
    }

    /// The `/api/create` request that makes this model as `model`.
    pub(crate) fn create_request<'a>(&'a self, model: &'a str) -> CreateRequest<'a> {
        CreateRequest {
            model,
            stream: true,
            modelfile: self,
        }
    }
}

/// Checks a model name to create: an Ollama name (`[host/][namespace/]model[:tag]`).
pub fn check_model_name(name: &str) -> Result<(), ModelfileError> {
    let allowed = |c: char| c.is_ascii_alphanumeric() || "._-:/".contains(c);
    if name.is_empty() || !name.chars().all(allowed) {
        return Err(ModelfileError(format!(
            "bad --create {name:?}: a model name is letters, digits and . _ - : / only, such as othello-qwen:0.5b"
        )));
    }
    Ok(())
}

/// Why a text cannot go into a Modelfile directive as written, or `None`.
fn unquotable(text: &str, quotes_allowed: bool) -> Option<String> {
    if let Some(c) = text.chars().find(|c| c.is_control()) {
        let what = match c {
            '\n' | '\r' => "a line break, which would end the directive and start another",
            '\t' => "a tab, which a Modelfile value cannot hold",
            _ => "a control character, which Ollama drops",
        };
        return Some(format!("it holds {what} ({})", c.escape_default()));
    }
    if !quotes_allowed && text.contains('"') {
        return Some("it holds a double quote (\"), which a Modelfile value cannot quote".to_string());
    }
    None
}

/// Checks the base model: one line, no double quote.
fn check_from(from: &str) -> Result<(), ModelfileError> {
    if from.trim().is_empty() {
        return Err(ModelfileError(format!(
            "bad --from {from:?}: name the base model, such as qwen2.5-coder:0.5b or ./model.gguf"
        )));
    }
    if let Some(why) = unquotable(from, false) {
        return Err(ModelfileError(format!(
            "bad --from {from:?}: {why}; give the base model on one line, such as qwen2.5-coder:0.5b or ./model.gguf"
        )));
    }
    Ok(())
}

/// `key=value` pairs as the request's parameters; a key given twice (such as `stop`)
/// becomes a list.
fn parameters(params: &[String]) -> Result<Map<String, Value>, ModelfileError> {
    let mut out = Map::new();
    for param in params {
        let bad = |why: &str| ModelfileError(format!("bad --param {param:?}: {why}"));
        let Some((key, raw)) = param.split_once('=') else {
            return Err(bad("write KEY=VALUE, such as temperature=0.3"));
        };
        let key = key.trim().to_string();
        if key.is_empty() || !key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err(bad(
                "the key must be one word of letters, digits and _, such as num_ctx",
            ));
        }
        let raw = raw.trim();
        let value = if let Ok(n) = raw.parse::<i64>() {
            Value::from(n)
        } else if let Ok(x) = raw.parse::<f64>() {
            Value::from(x)
        } else if let Ok(b) = raw.parse::<bool>() {
            Value::from(b)
        } else {
            let text = raw.strip_prefix('"').and_then(|r| r.strip_suffix('"')).unwrap_or(raw);
            if let Some(why) = unquotable(text, false) {
                return Err(bad(&format!("{why}; give a value on one line without double quotes")));
            }
            Value::from(text)
        };
        match out.get_mut(&key) {
            Some(Value::Array(list)) => list.push(value),
            Some(existing) => *existing = Value::Array(vec![existing.clone(), value]),
            None => {
                out.insert(key, value);
            }
        }
    }
    Ok(out)
}

/// Checks a text that goes between `"""` quotes: line breaks are fine there, `"""`
/// and other control characters are not.
fn check_block(block: Block<'_>, flag: &str) -> Result<(), ModelfileError> {
    let source = block.source;
    if block.text.contains("\"\"\"") {
        return Err(ModelfileError(format!(
            "bad {flag} {source}: it contains \"\"\", which a Modelfile cannot quote: remove it"
        )));
    }
    if let Some(c) = block
        .text
        .chars()
        .find(|c| c.is_control() && !matches!(c, '\n' | '\r' | '\t'))
    {
        return Err(ModelfileError(format!(
            "bad {flag} {source}: it holds a control character ({}), which Ollama drops: remove it",
            c.escape_default()
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directive_breaking_text_is_refused_and_plain_text_is_quoted() {
        assert!(check_from("qwen2.5:0.5b").is_ok());
        for bad in ["qwen\nSYSTEM evil", "a\rb", "q\"x", " "] {
            assert!(check_from(bad).is_err(), "{bad:?}");
        }
        assert!(parameters(&["stop=a\nb".into()]).is_err());
        assert!(parameters(&["stop=say \"hi\"".into()]).is_err());
        assert!(parameters(&["num ctx=1".into()]).is_err());
        assert!(parameters(&["num-ctx=1".into()]).is_err());
        assert!(check_model_name("othello-qwen:0.5b").is_ok());
        assert!(check_model_name("two words").is_err() && check_model_name("a\nb").is_err());
        let params = ["stop=\"<|im_end|>\"".to_string(), "stop=a\\b".to_string()];
        let modelfile = Modelfile::new("./my model.gguf", None, None, &params).unwrap();
        assert_eq!(
            modelfile.render(),
            "FROM \"./my model.gguf\"\nPARAMETER stop \"<|im_end|>\"\nPARAMETER stop \"a\\b\"\n"
        );
    }

    #[test]
    fn the_create_request_carries_the_checked_parts_only() {
        let system = Block {
            text: "Play well.",
            source: "p.txt",
        };
        let modelfile = Modelfile::new("qwen2.5:0.5b", Some(system), None, &[]).unwrap();
        let body = serde_json::to_value(modelfile.create_request("mine")).unwrap();
        assert_eq!(
            body,
            serde_json::json!({ "model": "mine", "stream": true, "from": "qwen2.5:0.5b", "system": "Play well." })
        );
    }
}
