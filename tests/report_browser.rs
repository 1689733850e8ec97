//! The HTML report opened in headless Chromium (Debian's chromium + chromium-driver,
//! installed by .ci/run), driven over WebDriver: hostile model text does not run,
//! stepping through a game shows the right board and text, and a screenshot is written
//! to target/report-screenshot.png for a person to look at.
//!
//! Run: `cargo test --test report_browser -- --ignored` (needs /usr/bin/chromium and chromedriver).

use std::path::PathBuf;
use std::process::{Command, Stdio};

use crate::support::browser::Driver;
use crate::support::{legal_moves_in, Reply, StubServer};
use serde_json::{json, Value};

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

#[test]
#[ignore = "needs chromium and chromedriver: see the module docs (CI runs it)"]
fn the_report_escapes_model_text_and_steps_through_games() {
    let server = hostile_model();
    let html = report_of_one_game(&server);
    let page = std::fs::read_to_string(&html).unwrap();
    // No external assets, and a content security policy that forbids fetching any.
    assert!(
        !page.contains("src=\"http") && !page.contains("href="),
        "no external assets"
    );
    assert!(page.contains("default-src 'none'"));

    let driver = Driver::start();
    driver.goto(&format!("file://{}", html.display()));
    check_model_text_did_not_run(&driver);
    check_summary_and_labels(&driver);
    check_stepping_follows_the_data(&driver);
    check_cost_chart(&driver);
    let target = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target");
    driver.screenshot(&target.join("report-screenshot.png"));
    driver.click("#last");
    assert!(driver
        .script("return document.getElementById('score').textContent;")
        .as_str()
        .unwrap()
        .contains("black"));
}

/// One game of `llm:hostile` (on `server`) against greedy, and the report of its run
/// written to a fresh folder: the report's path.
fn report_of_one_game(server: &StubServer) -> PathBuf {
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
    html
}

/// The title of the ply shown.
fn ply_title(driver: &Driver) -> Value {
    driver.script("return document.getElementById('ply-title').textContent;")
}

/// Nothing from the model ran, and its markup shows as text in ply 1's detail.
fn check_model_text_did_not_run(driver: &Driver) {
    assert_eq!(driver.script("return window.__pwned === undefined;"), json!(true));
    assert_eq!(
        driver.script("return document.querySelectorAll('img').length;"),
        json!(0)
    );
    assert_eq!(
        driver.script("return document.querySelectorAll('#ply-detail b').length;"),
        json!(0)
    );
    assert_eq!(ply_title(driver).as_str().unwrap().split(':').next(), Some("ply 1"));
    let detail = driver.script("return document.getElementById('ply-detail').textContent;");
    assert!(
        detail.as_str().unwrap().contains("</script><script>window.__pwned = 1"),
        "{detail}"
    );
    assert!(
        detail.as_str().unwrap().contains("agent's reading: accepted: "),
        "{detail}"
    );
    assert!(detail.as_str().unwrap().contains("sent (user)"), "{detail}");
}

/// The summary counts games and run folders; the bars name player and opponent; no
/// chart's text runs outside its chart.
fn check_summary_and_labels(driver: &Driver) {
    let summary = driver.script("return document.getElementById('sources-summary').textContent;");
    assert!(
        summary
            .as_str()
            .unwrap()
            .starts_with("2 game(s) from 1 run folder(s): run"),
        "{summary}"
    );
    let label = driver.script("return document.querySelector('#chart-winrate text[transform] title').textContent;");
    assert_eq!(label, json!("hostile vs greedy"));
    let outside = driver.script(
        "const out = []; for (const s of document.querySelectorAll('.chart svg')) { const r = s.getBoundingClientRect(); \
         for (const t of s.querySelectorAll('text')) { const b = t.getBoundingClientRect(); \
         if (b.width && (b.left < r.left - 1 || b.right > r.right + 1 || b.top < r.top - 1 || b.bottom > r.bottom + 1)) \
         out.push(s.id + ': ' + t.textContent); } } return out;",
    );
    assert_eq!(outside, json!([]), "chart text cut at the chart's edge");
}

/// Step with the buttons and the arrow keys to ply 3; the board follows the data.
fn check_stepping_follows_the_data(driver: &Driver) {
    driver.click("#next");
    driver.click("#next");
    assert!(ply_title(driver).as_str().unwrap().starts_with("ply 3:"));
    driver.key("\u{E014}"); // ArrowRight
    assert!(ply_title(driver).as_str().unwrap().starts_with("ply 4:"));
    driver.key("\u{E012}"); // ArrowLeft
    assert!(ply_title(driver).as_str().unwrap().starts_with("ply 3:"));
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
}

/// The strength-against-cost chart: one point for the model, a dashed line for the
/// engine it played.
fn check_cost_chart(driver: &Driver) {
    let cost = driver.script(
        "const c = document.getElementById('chart-cost'); \
         return [c.querySelectorAll('circle').length, c.querySelectorAll('line[stroke-dasharray]').length, \
         c.querySelector('circle title').textContent];",
    );
    assert_eq!((&cost[0], &cost[1]), (&json!(1), &json!(1)), "{cost}");
    assert!(cost[2].as_str().unwrap().starts_with("llm:hostile: "), "{cost}");
    // The results ratings as a table, one row a player, not only as the chart's dots.
    let rows = driver.script(
        "return [...document.querySelectorAll('#ratings-table tr')].slice(1).map(r => r.cells[0].textContent + ' ' + r.cells[2].textContent);",
    );
    let rows: Vec<&str> = rows.as_array().unwrap().iter().filter_map(Value::as_str).collect();
    assert_eq!(rows.len(), 2, "{rows:?}");
    assert!(rows.iter().any(|r| r.starts_with("llm:hostile ")), "{rows:?}");
    assert!(
        rows.iter().any(|r| r.starts_with("greedy ") && r.ends_with("(held)")),
        "{rows:?}"
    );
}
