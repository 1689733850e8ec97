//! The API key never reaches a log, a report, an error message or any output, even
//! from a server that echoes the Authorization header back. The scripted
//! OpenAI-compatible server on 127.0.0.1 stands in for such a proxy: it repeats the
//! bearer token in its answers and in its error bodies.

use std::path::Path;
use std::process::{Command, Output};

use crate::support::{legal_moves_in, Reply, StubServer};
use serde_json::json;

const KEY: &str = "sk-live-7c1f9e2d4b8a6035";
const KEY_VAR: &str = "ARENA_TEST_SECRET_KEY";
/// The password in the `--host` URLs of the basic-auth test.
const PASSWORD: &str = "pw-9d41c7e35a";

fn run(args: &[&str], host: &str) -> Output {
    Command::new(env!("CARGO_BIN_EXE_othello-arena"))
        .args(args)
        .env(KEY_VAR, KEY)
        .env("OLLAMA_HOST", host)
        .output()
        .expect("the binary runs")
}

fn assert_no_key(what: &str, text: &str) {
    assert!(!text.contains(KEY), "the API key leaked into {what}");
    assert!(
        !text.contains("7c1f9e2d4b8a6035"),
        "part of the API key leaked into {what}"
    );
}

fn assert_no_key_in_output(what: &str, output: &Output) {
    assert_no_key(&format!("{what} stdout"), &String::from_utf8_lossy(&output.stdout));
    assert_no_key(&format!("{what} stderr"), &String::from_utf8_lossy(&output.stderr));
}

fn assert_no_key_in_files(dir: &Path) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let text = String::from_utf8_lossy(&std::fs::read(&path).unwrap()).into_owned();
        assert_no_key(&path.display().to_string(), &text);
    }
}

#[test]
fn an_echoed_api_key_is_kept_out_of_logs_reports_and_errors() {
    let server = echoing_server();
    let dir = std::env::temp_dir().join(format!("othello-secrets-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let dir_arg = dir.to_str().unwrap();
    let host = format!("{}/v1", server.url);
    let eval = run(
        &[
            "eval",
            "--agent",
            "llm:stub",
            "--vs",
            "random",
            "--games",
            "1",
            "--api",
            "openai",
            "--host",
            &host,
            "--api-key-env",
            KEY_VAR,
            "--log-dir",
            dir_arg,
        ],
        &server.url,
    );
    assert!(eval.status.success(), "{}", String::from_utf8_lossy(&eval.stderr));
    assert!(
        server
            .authorizations()
            .iter()
            .all(|a| a.as_deref() == Some(format!("Bearer {KEY}").as_str())),
        "the key was sent with every request"
    );
    let logs = std::fs::read_to_string(dir.join("game-0001.jsonl")).unwrap();
    assert!(logs.contains("[api key redacted]"), "the echo was logged, redacted");
    assert_no_key_in_output("eval", &eval);
    assert_no_key_in_files(&dir);
    check_readers_keep_the_key_out(&dir, &server.url);
    check_a_bundle_keeps_the_key_out(&dir, &server.url);
    check_a_refusal_quoting_the_key(&dir.with_extension("refused"));
}

/// An OpenAI-compatible server that echoes the bearer token: in every answer (the
/// last legal move after it), and in a 503 body on every fourth request from the second.
fn echoing_server() -> StubServer {
    let echo = format!("Bearer {KEY}");
    StubServer::start(move |request, n| {
        let legal = legal_moves_in(request);
        let mv = legal.last().cloned().unwrap_or_default();
        if n % 4 == 1 {
            Reply {
                retry_after: Some(0),
                ..Reply::error(503, &format!("upstream busy for {echo}"))
            }
        } else {
            Reply::openai(json!({"role": "assistant", "content": format!("(auth: {echo}) {mv}")}))
        }
    })
}

/// A result bundle of the run holds no trace of the key: every entry, decompressed,
/// is free of it (the bundle holds the run's files and run.json's prompts, and no file
/// of the run records the key).
fn check_a_bundle_keeps_the_key_out(dir: &Path, host: &str) {
    use std::io::Read;
    let sealed = dir.with_extension("tar.gz");
    let _ = std::fs::remove_file(&sealed);
    let made = run(&["bundle", dir.to_str().unwrap(), "-o", sealed.to_str().unwrap()], host);
    assert!(made.status.success(), "{}", String::from_utf8_lossy(&made.stderr));
    assert_no_key_in_output("bundle", &made);
    let mut bytes = Vec::new();
    flate2::read::GzDecoder::new(std::fs::File::open(&sealed).unwrap())
        .read_to_end(&mut bytes)
        .unwrap();
    assert_no_key("the bundle", &String::from_utf8_lossy(&bytes));
    let verified = run(&["verify", sealed.to_str().unwrap()], host);
    assert!(
        verified.status.success(),
        "{}",
        String::from_utf8_lossy(&verified.stdout)
    );
    assert_no_key_in_output("verify", &verified);
}

/// `report`, `replay` and `stats` read the run in `dir` and print no key; the HTML
/// report holds none.
fn check_readers_keep_the_key_out(dir: &Path, host: &str) {
    let dir_arg = dir.to_str().unwrap();
    let report_path = dir.with_extension("html");
    let report = run(&["report", dir_arg, "-o", report_path.to_str().unwrap()], host);
    assert!(report.status.success(), "{}", String::from_utf8_lossy(&report.stderr));
    assert_no_key_in_output("report", &report);
    assert_no_key("the HTML report", &std::fs::read_to_string(&report_path).unwrap());
    for args in [
        vec![
            "replay".into(),
            dir.join("game-0001.jsonl").to_str().unwrap().to_string(),
        ],
        vec!["stats".into(), dir_arg.into(), "--json".into()],
    ] {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let output = run(&args, host);
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        assert_no_key_in_output(args[0], &output);
    }
}

/// A server that refuses the key and quotes it: the error names the status, not the
/// key, and nothing written to `refused_dir` holds it.
fn check_a_refusal_quoting_the_key(refused_dir: &Path) {
    let refusing = StubServer::start(|_, _| Reply::error(401, &format!("invalid key Bearer {KEY}")));
    let host = format!("{}/v1", refusing.url);
    let _ = std::fs::remove_dir_all(refused_dir);
    let failed = run(
        &[
            "eval",
            "--agent",
            "llm:stub",
            "--vs",
            "random",
            "--api",
            "openai",
            "--host",
            &host,
            "--api-key-env",
            KEY_VAR,
            "--log-dir",
            refused_dir.to_str().unwrap(),
        ],
        &refusing.url,
    );
    assert_eq!(failed.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&failed.stderr);
    assert!(stderr.contains("401"), "{stderr}");
    assert_no_key_in_output("a refused eval", &failed);
    assert_no_key_in_files(refused_dir);
}

/// A password in an Ollama `--host` URL is sent as HTTP basic auth and named nowhere:
/// not in run.json's argv, the logs, the tables or an error.
#[test]
fn a_password_in_a_host_url_is_sent_and_kept_out_of_every_file() {
    let server = crate::support::playing_model();
    let dir = std::env::temp_dir().join(format!("othello-host-password-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let host = server.url.replace("http://", &format!("http://player:{PASSWORD}@"));
    let eval = run(
        &[
            "eval",
            "--agent",
            "llm:stub",
            "--vs",
            "random",
            "--games",
            "1",
            "--host",
            &host,
            "--log-dir",
            dir.to_str().unwrap(),
        ],
        "127.0.0.1:9",
    );
    assert!(eval.status.success(), "{}", String::from_utf8_lossy(&eval.stderr));
    let basic = format!("Basic {}", base64_of(&format!("player:{PASSWORD}")));
    assert!(
        server
            .authorizations()
            .iter()
            .all(|a| a.as_deref() == Some(basic.as_str())),
        "the credentials went with every request: {:?}",
        server.authorizations()
    );
    let outputs = format!(
        "{}{}",
        String::from_utf8_lossy(&eval.stdout),
        String::from_utf8_lossy(&eval.stderr)
    );
    assert!(!outputs.contains(PASSWORD), "{outputs}");
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let text = String::from_utf8_lossy(&std::fs::read(&path).unwrap()).into_owned();
        assert!(!text.contains(PASSWORD), "the password is in {}", path.display());
    }
    check_a_bare_host_keeps_no_password(&server, &dir.with_extension("bare"));
    let refused = run(
        &[
            "eval",
            "--agent",
            "llm:stub",
            "--host",
            &format!("http://player:{PASSWORD}@host:port"),
        ],
        "127.0.0.1:9",
    );
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(
        refused.status.code() == Some(2) && !stderr.contains(PASSWORD),
        "{stderr}"
    );
}

/// Without a scheme (`--host player:pw@127.0.0.1:PORT`, as Ollama's OLLAMA_HOST reads
/// it), the --host value is still a host: run.json's argv (in `bare_dir`) keeps no
/// password, and keeps the host.
fn check_a_bare_host_keeps_no_password(server: &StubServer, bare_dir: &Path) {
    let _ = std::fs::remove_dir_all(bare_dir);
    let bare = server.url.replace("http://", &format!("player:{PASSWORD}@"));
    let args = [
        "eval",
        "--agent",
        "llm:stub",
        "--vs",
        "random",
        "--games",
        "1",
        "--log-dir",
    ];
    let eval = run(
        &[&args[..], &[bare_dir.to_str().unwrap(), "--host", &bare]].concat(),
        "127.0.0.1:9",
    );
    assert!(eval.status.success(), "{}", String::from_utf8_lossy(&eval.stderr));
    let run_json = std::fs::read_to_string(bare_dir.join("run.json")).unwrap();
    assert!(!run_json.contains(PASSWORD), "{run_json}");
    assert!(
        run_json.contains(&server.url.replace("http://", "")),
        "the host itself is kept: {run_json}"
    );
}

/// Standard base64 (for the expected basic-auth header).
fn base64_of(text: &str) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in text.as_bytes().chunks(3) {
        let n = chunk.iter().fold(0u32, |n, &b| n << 8 | u32::from(b)) << (8 * (3 - chunk.len()));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}
