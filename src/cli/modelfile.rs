//! `modelfile`: render an Ollama Modelfile from a base model, a prompt, a template and
//! parameters; `--create` sends the same to `POST /api/create`.

use std::fmt::Write as _;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use serde_json::{json, Map, Value};

use super::agent_args::prompts_dir;
use super::args::ModelfileArgs;
use crate::agent::Prompt;
use crate::llm::{ollama_base_url, OllamaBackend, RetryPolicy, DEFAULT_OLLAMA_HOST};

/// `key=value` pairs; a value is a number or boolean when it reads as one, otherwise
/// a string (surrounding quotes removed). A key given twice (such as `stop`) becomes a list.
fn parameters(params: &[String]) -> Result<Map<String, Value>> {
    let mut out = Map::new();
    for param in params {
        let Some((key, raw)) = param.split_once('=') else {
            bail!("bad --param {param:?}: write KEY=VALUE, such as temperature=0.3");
        };
        let key = key.trim().to_string();
        if key.is_empty() || key.contains(char::is_whitespace) {
            bail!("bad --param {param:?}: the key must be one word, such as num_ctx");
        }
        let raw = raw.trim();
        let value = if let Ok(n) = raw.parse::<i64>() {
            json!(n)
        } else if let Ok(x) = raw.parse::<f64>() {
            json!(x)
        } else if let Ok(b) = raw.parse::<bool>() {
            json!(b)
        } else {
            json!(raw.trim_matches('"'))
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

/// The Modelfile text.
fn render(from: &str, system: Option<&Prompt>, template: Option<&str>, params: &Map<String, Value>) -> String {
    let mut out = format!("FROM {from}\n");
    for (key, value) in params {
        let values = match value {
            Value::Array(list) => list.clone(),
            other => vec![other.clone()],
        };
        for v in values {
            let text = match &v {
                Value::String(s) => format!("{s:?}"),
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
    let system = args
        .system
        .as_deref()
        .map(|s| Prompt::load(s, &prompts_dir()))
        .transpose()
        .context("bad --system")?;
    let template = args
        .template
        .as_ref()
        .map(|p| std::fs::read_to_string(p).with_context(|| format!("cannot read --template {}", p.display())))
        .transpose()?;
    for text in system.iter().map(|p| p.text.as_str()).chain(template.as_deref()) {
        if text.contains("\"\"\"") {
            bail!("a system prompt or template contains \"\"\", which a Modelfile cannot quote: remove it");
        }
    }
    let params = parameters(&args.params)?;
    let text = render(&args.from, system.as_ref(), template.as_deref(), &params);
    match &args.output {
        Some(path) => std::fs::write(path, &text).with_context(|| format!("cannot write {}", path.display()))?,
        None if args.create.is_none() => print!("{text}"),
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
    match backend.model_info(name).await {
        Some(info) => println!(
            "created {name}: digest {}",
            info["digest"].as_str().unwrap_or("(not listed)")
        ),
        None => println!("created {name}"),
    }
    Ok(())
}
