//! Errors that name the real cause and its fix (issue 15, item 5): each test runs the
//! real binary, against a scripted server on 127.0.0.1 where a server is involved.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::process::{Command, Output};
use std::time::Duration;

use crate::support::{temp_dir, Reply, StubServer};
use serde_json::json;

/// Runs the binary with `args` and `env` set (`None`: removed from its environment).
fn arena(args: &[&str], env: &[(&str, Option<&str>)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_othello-arena"));
    command.args(args).env_remove("OPENAI_API_KEY");
    for (name, value) in env {
        match value {
            Some(value) => command.env(name, value),
            None => command.env_remove(name),
        };
    }
    command.output().expect("the binary runs")
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// `eval` of `llm:MODEL` against random, one game, on `--api openai --host HOST`,
/// plus `extra` flags.
fn openai_eval(name: &str, model: &str, host: &str, extra: &[&str], env: &[(&str, Option<&str>)]) -> Output {
    let dir = temp_dir("errors", name).join("run");
    let agent = format!("llm:{model}");
    let mut args = vec![
        "eval",
        "--agent",
        &agent,
        "--vs",
        "random",
        "--games",
        "1",
        "--api",
        "openai",
        "--host",
        host,
        "--max-retries",
        "0",
        "--log-dir",
        dir.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    arena(&args, env)
}

/// An OpenAI-compatible server serving `qwen` that answers every chat with 404.
fn openai_404(lists_models: bool) -> StubServer {
    StubServer::start_routed(move |path, _, _| match path {
        "/v1/models" if lists_models => Reply::error(200, "").with_body(json!({"data": [{"id": "qwen"}]})),
        _ => Reply::error(404, "File Not Found"),
    })
}

#[test]
fn an_openai_404_names_the_route_and_model_not_ollama_pull() {
    // The model is not on the server: the server's list is named.
    let server = openai_404(true);
    let output = openai_eval("openai-404-model", "gemma", &server.url, &[], &[]);
    assert_eq!(output.status.code(), Some(2));
    let text = stderr(&output);
    assert!(!text.contains("ollama pull"), "{text}");
    assert!(
        text.contains(&format!(
            "model \"gemma\" is not on {0}: {0}/v1/models lists qwen; use one of those as llm:MODEL",
            server.url
        )),
        "{text}"
    );

    // The model is there: the route is wrong.
    let output = openai_eval("openai-404-route", "qwen", &server.url, &[], &[]);
    let text = stderr(&output);
    assert!(!text.contains("ollama pull"), "{text}");
    assert!(
        text.contains(&format!("{}/v1/chat/completions answered 404", server.url))
            && text.contains("the route is wrong")
            && text.contains("base URL"),
        "{text}"
    );

    // Neither the chat nor the model list is there: the base URL is wrong.
    let nothing = openai_404(false);
    let output = openai_eval("openai-404-base", "qwen", &format!("{}/api", nothing.url), &[], &[]);
    let text = stderr(&output);
    assert!(!text.contains("ollama pull"), "{text}");
    assert!(
        text.contains("/api/v1/models does not answer either") && text.contains("--host is the server's base URL"),
        "{text}"
    );
}

#[test]
fn an_unset_api_key_variable_is_refused_before_any_request() {
    let server = StubServer::start(|_, _| Reply::error(500, "must not be asked"));
    let var = "OTHELLO_TEST_MISSING_KEY";
    for value in [None, Some(""), Some("  ")] {
        let output = openai_eval(
            "unset-key",
            "qwen",
            &server.url,
            &["--api-key-env", var],
            &[(var, value)],
        );
        assert_eq!(output.status.code(), Some(2));
        let text = stderr(&output);
        assert!(
            text.contains(&format!(
                "no API key for {}: the variable {var} is unset or empty",
                server.url
            )) && text.contains(&format!("export {var}=<key>")),
            "{text}"
        );
    }
    // A fleet file's api_key_env alike.
    let dir = temp_dir("errors", "unset-key-fleet");
    let fleet = dir.join("fleet.toml");
    std::fs::write(
        &fleet,
        format!(
            "[[hosts]]\nurl = \"{}\"\napi = \"openai\"\napi_key_env = \"{var}\"\nmodels = [\"qwen\"]\n",
            server.url
        ),
    )
    .unwrap();
    let run = dir.join("run");
    let output = arena(
        &[
            "eval",
            "--agent",
            "llm:qwen",
            "--vs",
            "random",
            "--games",
            "1",
            "--fleet",
            fleet.to_str().unwrap(),
            "--log-dir",
            run.to_str().unwrap(),
        ],
        &[(var, None)],
    );
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains(&format!("the variable {var} is unset or empty")),
        "{}",
        stderr(&output)
    );
    assert!(server.requests().is_empty(), "no request was sent");
}

#[test]
fn a_refused_key_says_whether_one_was_sent_and_which_variable_sets_it() {
    let server = StubServer::start(|_, _| Reply::error(401, "invalid api key"));
    // The default variable unset: nothing was sent.
    let output = openai_eval("no-key", "qwen", &server.url, &[], &[]);
    assert_eq!(output.status.code(), Some(2));
    let text = stderr(&output);
    assert!(
        text.contains("refused the request with HTTP 401")
            && text.contains("no API key was sent (OPENAI_API_KEY is unset or empty)")
            && text.contains("--api-key-env"),
        "{text}"
    );
    // A key was sent, and refused.
    let var = "OTHELLO_TEST_WRONG_KEY";
    let output = openai_eval(
        "wrong-key",
        "qwen",
        &server.url,
        &["--api-key-env", var],
        &[(var, Some("sk-wrong"))],
    );
    let text = stderr(&output);
    assert!(text.contains(&format!("the API key in {var} was refused")), "{text}");
    assert!(!text.contains("sk-wrong"), "the key is never printed: {text}");
}

/// A server that reads what comes and answers every connection with `answer`.
fn raw_server(answer: &'static [u8]) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for mut stream in listener.incoming().flatten() {
            std::thread::spawn(move || {
                stream.set_read_timeout(Some(Duration::from_millis(300))).ok();
                let mut buffer = [0u8; 4096];
                let _ = stream.read(&mut buffer);
                let _ = stream.write_all(answer);
            });
        }
    });
    port
}

#[test]
fn https_against_a_plain_http_server_says_use_http() {
    // A plain-HTTP server answers a TLS handshake as bad HTTP, as llama-server does.
    let port = raw_server(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 11\r\nConnection: close\r\n\r\nBad Request");
    let output = openai_eval("https-to-http", "qwen", &format!("https://127.0.0.1:{port}"), &[], &[]);
    assert_eq!(output.status.code(), Some(2));
    let text = stderr(&output);
    assert!(
        text.contains(&format!(
            "the server at https://127.0.0.1:{port} speaks plain HTTP: use http://127.0.0.1:{port}"
        )),
        "{text}"
    );

    // The reverse: plain HTTP to a TLS port gets a TLS alert back.
    let port = raw_server(&[21, 3, 3, 0, 2, 2, 50]);
    let output = openai_eval("http-to-https", "qwen", &format!("http://127.0.0.1:{port}"), &[], &[]);
    let text = stderr(&output);
    assert!(
        text.contains(&format!(
            "the server at http://127.0.0.1:{port} speaks TLS (https): use https://127.0.0.1:{port}"
        )),
        "{text}"
    );
}

#[test]
fn a_newline_in_modelfile_from_is_refused() {
    let output = arena(&["modelfile", "--from", "qwen2.5:0.5b\nSYSTEM injected"], &[]);
    assert_eq!(output.status.code(), Some(2));
    assert!(output.stdout.is_empty(), "no Modelfile was written");
    let text = stderr(&output);
    assert!(
        text.contains("bad --from \"qwen2.5:0.5b\\nSYSTEM injected\"")
            && text.contains("a line break, which would end the directive and start another")
            && text.contains("give the base model on one line"),
        "{text}"
    );
    for (flag, value, says) in [
        ("--param", "stop=a\nPARAMETER temperature 9", "line break"),
        ("--param", "stop=say \"hi\"", "double quote"),
        ("--param", "num ctx=8", "the key must be one word"),
        ("--create", "my model", "a model name is letters, digits"),
    ] {
        let output = arena(&["modelfile", "--from", "qwen2.5:0.5b", flag, value], &[]);
        assert_eq!(output.status.code(), Some(2), "{flag} {value:?}");
        let text = stderr(&output);
        assert!(text.contains(&format!("bad {flag}")) && text.contains(says), "{text}");
    }
}

#[test]
fn solve_on_a_finished_game_says_it_is_over() {
    let board = format!("{}{}", "X".repeat(40), "O".repeat(24));
    let output = arena(&["solve", "--board", &board], &[]);
    assert_eq!(output.status.code(), Some(2));
    let text = stderr(&output);
    assert!(
        text.contains("the game is over in this position: black 40, white 24 (black wins by 16)"),
        "{text}"
    );
}

#[test]
fn bench_solve_with_an_empty_range_is_an_error() {
    for (range, says) in [
        ("45-40", "the range is empty (45 is above 40)"),
        ("60-70", "the suite has no problem in it"),
    ] {
        let output = arena(&["bench", "solve", "--ffo", range], &[]);
        assert_eq!(output.status.code(), Some(2), "{range}");
        let text = stderr(&output);
        assert!(
            text.contains(&format!("bad --ffo \"{range}\": {says}")) && text.contains("from 1 to 59"),
            "{text}"
        );
        assert!(output.stdout.is_empty(), "nothing was solved");
    }
}
