//! The HTML report opened in headless Chromium (Debian's chromium + chromium-driver,
//! installed by .ci/run), driven over WebDriver: hostile model text does not run,
//! stepping through a game shows the right board and text, and a screenshot is written
//! to target/report-screenshot.png for a person to look at.
//!
//! Run: `cargo test --test report_browser -- --ignored` (needs /usr/bin/chromium and chromedriver).

mod support;

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use support::{legal_moves_in, Reply, StubServer};

const PAYLOADS: &str = "</script><script>window.__pwned = 1</script><img src=x onerror=\"window.__pwned = 2\">";

/// A model that answers legally, wrapping its answer in markup meant to run.
fn hostile_model() -> StubServer {
    StubServer::start(|request, _| {
        let legal = legal_moves_in(request);
        Reply::message(json!({
            "role": "assistant",
            "thinking": format!("{PAYLOADS} <b>bold?</b>"),
            "content": format!("{PAYLOADS} I play {}", legal[0]),
        }))
    })
}

struct Driver {
    process: Child,
    url: String,
    session: String,
    http: reqwest::blocking::Client,
}

impl Driver {
    fn start() -> Driver {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let process = Command::new("chromedriver")
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromedriver runs (apt-get install chromium chromium-driver; .ci/run does)");
        let url = format!("http://127.0.0.1:{port}");
        let http = reqwest::blocking::Client::builder()
            .timeout(Duration::from_secs(60))
            .build()
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(20);
        while http.get(format!("{url}/status")).send().is_err() {
            assert!(Instant::now() < deadline, "chromedriver did not start");
            std::thread::sleep(Duration::from_millis(100));
        }
        let profile = std::env::temp_dir().join(format!("othello-chromium-{}", std::process::id()));
        let args = [
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--window-size=1300,1500",
        ]
        .iter()
        .map(|a| a.to_string())
        .chain([format!("--user-data-dir={}", profile.display())])
        .collect::<Vec<_>>();
        let caps = json!({"capabilities": {"alwaysMatch": {"browserName": "chrome",
            "goog:chromeOptions": {"binary": "/usr/bin/chromium", "args": args}}}});
        let created: Value = http
            .post(format!("{url}/session"))
            .json(&caps)
            .send()
            .unwrap()
            .json()
            .unwrap();
        let session = created["value"]["sessionId"]
            .as_str()
            .expect("a WebDriver session")
            .to_string();
        Driver {
            process,
            url,
            session,
            http,
        }
    }

    fn call(&self, method: reqwest::Method, path: &str, body: Option<Value>) -> Value {
        let url = format!("{}/session/{}{path}", self.url, self.session);
        let mut request = self.http.request(method, url);
        if let Some(body) = body {
            request = request.json(&body);
        }
        let value: Value = request.send().unwrap().json().unwrap();
        value["value"].clone()
    }

    fn script(&self, code: &str) -> Value {
        self.call(
            reqwest::Method::POST,
            "/execute/sync",
            Some(json!({"script": code, "args": []})),
        )
    }

    fn click(&self, css: &str) {
        let element = self.call(
            reqwest::Method::POST,
            "/element",
            Some(json!({"using": "css selector", "value": css})),
        );
        let id = element
            .as_object()
            .and_then(|o| o.values().next())
            .and_then(Value::as_str)
            .unwrap()
            .to_string();
        self.call(reqwest::Method::POST, &format!("/element/{id}/click"), Some(json!({})));
    }

    fn key(&self, key: &str) {
        let actions = json!({"actions": [{"type": "key", "id": "kb", "actions": [{"type": "keyDown", "value": key}, {"type": "keyUp", "value": key}]}]});
        self.call(reqwest::Method::POST, "/actions", Some(actions));
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self
            .http
            .delete(format!("{}/session/{}", self.url, self.session))
            .send();
        let _ = self.process.kill();
    }
}

#[test]
#[ignore = "needs chromium and chromedriver: see the module docs (CI runs it)"]
fn the_report_escapes_model_text_and_steps_through_games() {
    let server = hostile_model();
    let dir = std::env::temp_dir().join(format!("othello-report-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let arena = env!("CARGO_BIN_EXE_othello-arena");
    let run = dir.join("run");
    let status = Command::new(arena)
        .args([
            "eval",
            "--agent",
            "llm:hostile",
            "--vs",
            "greedy",
            "--games",
            "1",
            "--log-dir",
        ])
        .arg(&run)
        .args(["--host", &server.url, "--json"])
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    let html = dir.join("report.html");
    let status = Command::new(arena)
        .arg("report")
        .arg(&run)
        .arg("-o")
        .arg(&html)
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    let page = std::fs::read_to_string(&html).unwrap();
    // No external assets, and a content security policy that forbids fetching any.
    assert!(
        !page.contains("src=\"http") && !page.contains("href="),
        "no external assets"
    );
    assert!(page.contains("default-src 'none'"));

    let driver = Driver::start();
    driver.call(
        reqwest::Method::POST,
        "/url",
        Some(json!({"url": format!("file://{}", html.display())})),
    );
    // Nothing from the model ran, and its markup shows as text.
    assert_eq!(driver.script("return window.__pwned === undefined;"), json!(true));
    assert_eq!(
        driver.script("return document.querySelectorAll('img').length;"),
        json!(0)
    );
    assert_eq!(
        driver.script("return document.querySelectorAll('#ply-detail b').length;"),
        json!(0)
    );
    let title = |d: &Driver| d.script("return document.getElementById('ply-title').textContent;");
    assert_eq!(title(&driver).as_str().unwrap().split(':').next(), Some("ply 1"));
    let detail = driver.script("return document.getElementById('ply-detail').textContent;");
    assert!(
        detail.as_str().unwrap().contains("</script><script>window.__pwned = 1"),
        "{detail}"
    );
    assert!(detail.as_str().unwrap().contains("answer read as:"), "{detail}");
    // Step with the buttons and the arrow keys; the board follows the data.
    driver.click("#next");
    driver.click("#next");
    assert!(title(&driver).as_str().unwrap().starts_with("ply 3:"));
    driver.key("\u{E014}"); // ArrowRight
    assert!(title(&driver).as_str().unwrap().starts_with("ply 4:"));
    driver.key("\u{E012}"); // ArrowLeft
    assert!(title(&driver).as_str().unwrap().starts_with("ply 3:"));
    let discs = driver
        .script("return document.querySelectorAll('#board .disc').length;")
        .as_u64()
        .unwrap();
    let expected = driver
        .script("const p = data.games[0].plies[2]; return p.discs_after[0] + p.discs_after[1];")
        .as_u64()
        .unwrap();
    assert_eq!(discs, expected);
    assert_eq!(discs, 7, "three plies from the start position: 4 + 3 discs");
    let score = driver.script("return document.getElementById('score').textContent;");
    assert!(score.as_str().unwrap().starts_with("after ply 3: black"), "{score}");
    let png = driver.call(reqwest::Method::GET, "/screenshot", None);
    let bytes = base64_decode(png.as_str().unwrap());
    assert_eq!(&bytes[1..4], b"PNG");
    let target = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target");
    std::fs::create_dir_all(&target).unwrap();
    std::fs::write(target.join("report-screenshot.png"), bytes).unwrap();
    driver.click("#last");
    assert!(driver
        .script("return document.getElementById('score').textContent;")
        .as_str()
        .unwrap()
        .contains("black"));
}

/// Standard base64 (the screenshot's encoding), without a crate for one call.
fn base64_decode(text: &str) -> Vec<u8> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        _ => 63,
    };
    let clean: Vec<u8> = text
        .bytes()
        .filter(|c| *c != b'=' && !c.is_ascii_whitespace())
        .collect();
    let mut out = Vec::with_capacity(clean.len() * 3 / 4);
    for chunk in clean.chunks(4) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |acc, (i, &c)| acc | u32::from(value(c)) << (18 - 6 * i));
        let bytes = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
        out.extend_from_slice(&bytes[..chunk.len().saturating_sub(1)]);
    }
    out
}
