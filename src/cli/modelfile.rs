//! `modelfile`: render an Ollama Modelfile from a base model, a prompt, a template and
//! parameters; `--create` sends the same to `POST /api/create`.

use std::fmt::Write as _;
use std::path::Path;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use serde_json::{json, Map, Value};

use super::agent_args::prompts_dir;
use super::args::ModelfileArgs;
use super::inputs::{read_user_file, SETTINGS_CAP};
use super::outputs::{check_output_flag, write_output};
use super::stdout::{out, outln};
use agent::Prompt;
use llm::{ollama_base_url, OllamaBackend, RetryPolicy, DEFAULT_OLLAMA_HOST};

/// Why a text cannot go into a Modelfile directive as written, or `None`. Ollama's
/// Modelfile has no escapes: a line break ends the directive (the next line would be
/// read as a directive of its own), other control characters are dropped, and a
/// double quote cannot sit inside a quoted value.
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

/// Checks `--from`: one line, no double quote.
fn check_from(from: &str) -> Result<()> {
    if from.trim().is_empty() {
        bail!("bad --from {from:?}: name the base model, such as qwen2.5-coder:0.5b or ./model.gguf");
    }
    if let Some(why) = unquotable(from, false) {
        bail!(
            "bad --from {from:?}: {why}; give the base model on one line, such as qwen2.5-coder:0.5b or ./model.gguf"
        );
    }
    Ok(())
}

/// Checks `--create`: an Ollama model name ([host/][namespace/]model[:tag]).
fn check_name(name: &str) -> Result<()> {
    let allowed = |c: char| c.is_ascii_alphanumeric() || "._-:/".contains(c);
    if name.is_empty() || !name.chars().all(allowed) {
        bail!("bad --create {name:?}: a model name is letters, digits and . _ - : / only, such as othello-qwen:0.5b");
    }
    Ok(())
}

/// `key=value` pairs; a value is a number or boolean when it reads as one, otherwise
/// a string (surrounding quotes removed). A key given twice (such as `stop`) becomes a list.
fn parameters(params: &[String]) -> Result<Map<String, Value>> {
    let mut out = Map::new();
    for param in params {
        let Some((key, raw)) = param.split_once('=') else {
            bail!("bad --param {param:?}: write KEY=VALUE, such as temperature=0.3");
        };
        let key = key.trim().to_string();
        if key.is_empty() || !key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            bail!("bad --param {param:?}: the key must be one word of letters, digits and _, such as num_ctx");
        }
        let raw = raw.trim();
        let value = if let Ok(n) = raw.parse::<i64>() {
            json!(n)
        } else if let Ok(x) = raw.parse::<f64>() {
            json!(x)
        } else if let Ok(b) = raw.parse::<bool>() {
            json!(b)
        } else {
            let text = raw.strip_prefix('"').and_then(|r| r.strip_suffix('"')).unwrap_or(raw);
            if let Some(why) = unquotable(text, false) {
                bail!("bad --param {param:?}: {why}; give a value on one line without double quotes");
            }
            json!(text)
        };
        match out.get_mut(&key) {
            Some(Value::Array(list)) => list.push(value),
            Some(existing) => *existing = json!([existing.clone(), value]),
            None => {
                out.insert(key, value);
            }
        }
    }
    Ok(out)
}

/// Checks a text that goes between `\"\"\"` quotes (a system prompt, a template):
/// line breaks are fine there, `\"\"\"` and other control characters are not.
fn check_block(text: &str, flag: &str, source: &str) -> Result<()> {
    if text.contains("\"\"\"") {
        bail!("bad {flag} {source}: it contains \"\"\", which a Modelfile cannot quote: remove it");
    }
    if let Some(c) = text
        .chars()
        .find(|c| c.is_control() && !matches!(c, '\n' | '\r' | '\t'))
    {
        bail!(
            "bad {flag} {source}: it holds a control character ({}), which Ollama drops: remove it",
            c.escape_default()
        );
    }
    Ok(())
}

/// The Modelfile text; every value has been checked (see [`unquotable`]). A string
/// value is written in double quotes as is (a Modelfile has no escapes).
fn render(from: &str, system: Option<&Prompt>, template: Option<&str>, params: &Map<String, Value>) -> String {
    let from = if from.contains(' ') {
        format!("\"{from}\"")
    } else {
        from.to_string()
    };
    let mut out = format!("FROM {from}\n");
    for (key, value) in params {
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
    if let Some(template) = template {
        let _ = writeln!(out, "TEMPLATE \"\"\"{template}\"\"\"");
    }
    if let Some(prompt) = system {
        let _ = writeln!(out, "SYSTEM \"\"\"{}\"\"\"", prompt.text);
    }
    out
}

/// `POST /api/create`'s body.
#[derive(Debug, serde::Serialize)]
struct CreateRequest<'a> {
    model: &'a str,
    from: &'a str,
    stream: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    system: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    template: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    parameters: Option<&'a serde_json::Map<String, Value>>,
}

pub(super) async fn run(args: ModelfileArgs, env: &dyn Fn(&str) -> Option<String>) -> Result<()> {
    if let Some(output) = &args.output {
        // The prompt and template files are inputs; run folders are refused by the check.
        let system = args.system.as_deref().map(Path::new);
        let inputs: Vec<&Path> = system.into_iter().chain(args.template.as_deref()).collect();
        check_output_flag("-o", output, args.overwrite, &inputs, &[])?;
    }
    let system = args
        .system
        .as_deref()
        .map(|s| Prompt::load(s, &prompts_dir()))
        .transpose()
        .context("bad --system")?;
    let template = args
        .template
        .as_ref()
        .map(|p| read_user_file("--template", p, SETTINGS_CAP))
        .transpose()?;
    if let Some(prompt) = &system {
        check_block(&prompt.text, "--system", &prompt.source)?;
    }
    if let (Some(text), Some(path)) = (&template, &args.template) {
        check_block(text, "--template", &path.display().to_string())?;
    }
    check_from(&args.from)?;
    if let Some(name) = &args.create {
        check_name(name)?;
    }
    let params = parameters(&args.params)?;
    let text = render(&args.from, system.as_ref(), template.as_deref(), &params);
    match &args.output {
        Some(path) => write_output("-o", path, text.as_bytes())?,
        None if args.create.is_none() => out!("{text}")?,
        None => {}
    }
    let Some(name) = &args.create else { return Ok(()) };
    let raw = args
        .host
        .clone()
        .or_else(|| env("OLLAMA_HOST"))
        .unwrap_or_else(|| DEFAULT_OLLAMA_HOST.to_string());
    let url = ollama_base_url(&raw).context("bad --host (or OLLAMA_HOST)")?;
    let backend = OllamaBackend::new(&url, Duration::from_secs(3600), RetryPolicy::default())?;
    let body = CreateRequest {
        model: name,
        from: &args.from,
        stream: true,
        system: system.as_ref().map(|p| p.text.as_str()),
        template: template.as_deref(),
        parameters: (!params.is_empty()).then_some(&params),
    };
    backend
        .create_model(name, &body, &mut |status| eprintln!("[create {name}] {status}"))
        .await
        .with_context(|| format!("cannot create {name} from {} on {url}", args.from))?;
    match llm::ChatBackend::model_info(&backend, name).await {
        Some(info) => outln!(
            "created {name}: digest {}",
            info["digest"].as_str().unwrap_or("(not listed)")
        )?,
        None => outln!("created {name}")?,
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
        assert!(check_name("othello-qwen:0.5b").is_ok());
        assert!(check_name("two words").is_err() && check_name("a\nb").is_err());
        let params = parameters(&["stop=\"<|im_end|>\"".into(), "stop=a\\b".into()]).unwrap();
        let text = render("./my model.gguf", None, None, &params);
        assert_eq!(
            text,
            "FROM \"./my model.gguf\"\nPARAMETER stop \"<|im_end|>\"\nPARAMETER stop \"a\\b\"\n"
        );
    }
}
