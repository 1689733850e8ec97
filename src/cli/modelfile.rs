//! `modelfile`: render an Ollama Modelfile from a base model, a prompt, a template and
//! parameters (checked by `llm::Modelfile`); `--create` sends the same to
//! `POST /api/create`.

use std::path::Path;
use std::time::Duration;

use anyhow::{Context, Result};

use super::args::ModelfileArgs;
use super::inputs::{read_user_file, SETTINGS_CAP};
use super::outputs::{check_output_flag, write_output};
use super::stdout::{out, outln};
use agent::prompts_dir;
use agent::Prompt;
use llm::{check_model_name, ollama_base_url, Block, Modelfile, OllamaBackend, RetryPolicy, DEFAULT_OLLAMA_HOST};

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
    let template_source = args.template.as_ref().map(|p| p.display().to_string());
    let modelfile = Modelfile::new(
        &args.from,
        system.as_ref().map(|p| Block {
            text: &p.text,
            source: &p.source,
        }),
        template
            .as_deref()
            .zip(template_source.as_deref())
            .map(|(text, source)| Block { text, source }),
        &args.params,
    )?;
    if let Some(name) = &args.create {
        check_model_name(name)?;
    }
    let text = modelfile.render();
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
    backend
        .create_model(name, &modelfile, &mut |status| eprintln!("[create {name}] {status}"))
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
