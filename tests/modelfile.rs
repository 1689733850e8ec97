//! `modelfile` rendering, `--create` against a scripted `/api/create` (streamed
//! status lines) and the model digest and details a run records from `/api/show`
//! and `/api/tags` (the stub stands in for an Ollama server with the model).

use std::process::Command;

use crate::support::{legal_moves_in, Reply, StubServer};
use serde_json::{json, Value};

fn arena(args: &[&str], host: &str) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_othello-arena"))
        .args(args)
        .env("OLLAMA_HOST", host)
        .output()
        .unwrap()
}

fn ollama_with_model() -> StubServer {
    StubServer::start_routed(|path, request, _| {
        match path {
        "/api/create" => Reply {
            status: 200,
            body: "{\"status\":\"using existing layer sha256:abc\"}\n{\"status\":\"writing manifest\"}\n{\"status\":\"success\"}\n".into(),
            retry_after: None,
            fault: None,
        },
        "/api/show" => Reply::message(json!({})).with_body(json!({
            "details": {"family": "qwen2", "parameter_size": "494M", "quantization_level": "Q4_K_M"},
            "capabilities": ["completion", "tools"],
            "parameters": "temperature 0.3",
            "modified_at": "2026-11-29T00:00:00Z",
        })),
        "/api/tags" => Reply::message(json!({})).with_body(json!({"models": [
            {"name": "othello-qwen:latest", "model": "othello-qwen:latest", "digest": "d1g3st"}
        ]})),
        _ => Reply::content(legal_moves_in(request).first().map_or("", String::as_str)),
    }
    })
}

#[test]
fn a_modelfile_is_rendered_and_created_with_progress() {
    let server = ollama_with_model();
    let dir = std::env::temp_dir().join(format!("othello-modelfile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("Modelfile");
    let output = arena(
        &[
            "modelfile",
            "--from",
            "qwen2.5:0.5b",
            "--system",
            "small-model",
            "--param",
            "temperature=0.3",
            "--param",
            "stop=<|im_end|>",
            "--param",
            "stop=<|im_start|>",
            "-o",
            file.to_str().unwrap(),
            "--create",
            "othello-qwen",
        ],
        &server.url,
    );
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.starts_with("FROM qwen2.5:0.5b\nPARAMETER stop \"<|im_end|>\"\nPARAMETER stop \"<|im_start|>\"\nPARAMETER temperature 0.3\nSYSTEM \"\"\"You play Othello."));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("[create othello-qwen] writing manifest") && stderr.contains("success"),
        "{stderr}"
    );
    assert!(String::from_utf8_lossy(&output.stdout).contains("created othello-qwen: digest d1g3st"));
    let create = server.requests().into_iter().find(|r| r["from"].is_string()).unwrap();
    assert_eq!(create["model"], "othello-qwen");
    assert_eq!(
        create["parameters"],
        json!({"temperature": 0.3, "stop": ["<|im_end|>", "<|im_start|>"]})
    );
    assert!(create["system"].as_str().unwrap().starts_with("You play Othello."));
}

#[test]
fn create_errors_name_the_cause() {
    let server = StubServer::start_routed(|_, _, _| Reply {
        status: 200,
        body: "{\"status\":\"pulling manifest\"}\n{\"error\":\"pull model manifest: file does not exist\"}\n".into(),
        retry_after: None,
        fault: None,
    });
    let output = arena(&["modelfile", "--from", "nope:1b", "--create", "x"], &server.url);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("cannot create x from nope:1b") && stderr.contains("file does not exist"),
        "{stderr}"
    );
    let output = arena(&["modelfile", "--from", "m", "--param", "temperature"], &server.url);
    assert!(String::from_utf8_lossy(&output.stderr).contains("write KEY=VALUE"));
}

#[test]
fn a_run_records_the_model_digest_and_details() {
    let server = ollama_with_model();
    let dir = std::env::temp_dir().join(format!("othello-modelinfo-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let output = arena(
        &[
            "eval",
            "--agent",
            "llm:othello-qwen",
            "--vs",
            "random",
            "--mode",
            "direct",
            "--log-dir",
            dir.to_str().unwrap(),
            "--json",
        ],
        &server.url,
    );
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let run: Value = serde_json::from_str(&std::fs::read_to_string(dir.join("run.json")).unwrap()).unwrap();
    assert_eq!(run["model_digest"], "d1g3st");
    assert_eq!(run["model_info"]["details"]["quantization_level"], "Q4_K_M");
    assert_eq!(run["model_info"]["capabilities"], json!(["completion", "tools"]));
}
