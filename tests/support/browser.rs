//! A headless Chromium driven over WebDriver (Debian's chromium and chromium-driver,
//! installed by .ci/run): the browser tests' one driver.

use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

/// A headless Chromium session over WebDriver (chromedriver on a free port).
pub struct Driver {
    process: Child,
    url: String,
    session: String,
    http: reqwest::blocking::Client,
}

impl Driver {
    /// Starts chromedriver and a browser window of 1300 x 1500 pixels.
    pub fn start() -> Driver {
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
        let http = super::http_client(Duration::from_secs(60));
        let deadline = Instant::now() + Duration::from_secs(20);
        while http.get(format!("{url}/status")).send().is_err() {
            assert!(Instant::now() < deadline, "chromedriver did not start");
            std::thread::sleep(Duration::from_millis(100));
        }
        static PROFILES: AtomicUsize = AtomicUsize::new(0);
        let profile = std::env::temp_dir().join(format!(
            "othello-chromium-{}-{}",
            std::process::id(),
            PROFILES.fetch_add(1, Ordering::SeqCst)
        ));
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

    /// A WebDriver command of this session; its `value`.
    pub fn call(&self, method: reqwest::Method, path: &str, body: Option<Value>) -> Value {
        let url = format!("{}/session/{}{path}", self.url, self.session);
        let mut request = self.http.request(method, url);
        if let Some(body) = body {
            request = request.json(&body);
        }
        let value: Value = request.send().unwrap().json().unwrap();
        value["value"].clone()
    }

    /// Runs `code` in the page; its return value.
    pub fn script(&self, code: &str) -> Value {
        self.call(
            reqwest::Method::POST,
            "/execute/sync",
            Some(json!({"script": code, "args": []})),
        )
    }

    /// Clicks the first element matching `css`.
    pub fn click(&self, css: &str) {
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

    /// Presses and releases `key`.
    pub fn key(&self, key: &str) {
        let actions = json!({"actions": [{"type": "key", "id": "kb", "actions": [{"type": "keyDown", "value": key}, {"type": "keyUp", "value": key}]}]});
        self.call(reqwest::Method::POST, "/actions", Some(actions));
    }

    /// Opens `url`.
    pub fn goto(&self, url: &str) {
        self.call(reqwest::Method::POST, "/url", Some(json!({ "url": url })));
    }

    /// Sets the window's size in CSS pixels.
    pub fn resize(&self, width: u32, height: u32) {
        self.call(
            reqwest::Method::POST,
            "/window/rect",
            Some(json!({ "width": width, "height": height })),
        );
    }

    /// Polls `code` (a script returning a value) until it returns something truthy
    /// other than `false`; panics with `what` after `timeout`.
    pub fn wait_for(&self, code: &str, timeout: Duration, what: &str) -> Value {
        let deadline = Instant::now() + timeout;
        loop {
            let value = self.script(code);
            if !(value.is_null() || value == json!(false) || value == json!("") || value == json!(0)) {
                return value;
            }
            assert!(Instant::now() < deadline, "timed out waiting for {what}");
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// A PNG of the window, written to `path`.
    pub fn screenshot(&self, path: &std::path::Path) {
        let png = self.call(reqwest::Method::GET, "/screenshot", None);
        let bytes = base64_decode(png.as_str().expect("a screenshot"));
        assert_eq!(&bytes[1..4], b"PNG");
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).unwrap();
        }
        std::fs::write(path, bytes).unwrap();
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

/// Standard base64 (the screenshot's encoding), without a crate for one call.
pub fn base64_decode(text: &str) -> Vec<u8> {
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
