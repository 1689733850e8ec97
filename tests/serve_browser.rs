//! `serve` in headless Chromium (Debian's chromium + chromium-driver, installed by
//! .ci/run), driven over WebDriver like the report test: a person plays a whole game
//! against `greedy` by clicking and the page's final score is the rules' score; a
//! scripted model's thinking, tool calls and tool results appear in order and its
//! hostile markup stays text; a running eval's moves appear on the watch page while it
//! runs. Screenshots of both pages, wide and at phone width, go to target/ (and to
//! docs/ with `UPDATE_SCREENSHOTS=1`).
//!
//! Run: `cargo test --test serve_browser -- --ignored` (needs /usr/bin/chromium and chromedriver).

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::support::browser::Driver;
use crate::support::serve::{simulating_model, Served};
use crate::support::{legal_moves_in, temp_dir, Fault, Reply, StubServer};
use game::othello::{Board, Move};
use serde_json::{json, Value};

/// One browser at a time: the machines that run CI have few cores.
static BROWSER: Mutex<()> = Mutex::new(());

const HOSTILE: &str =
    "</script><script>window.__pwned = 1</script><img src=x onerror=\"window.__pwned = 2\"> <b>bold?</b>";

fn screenshot(driver: &Driver, name: &str) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    driver.screenshot(&root.join("target").join(name));
    if std::env::var("UPDATE_SCREENSHOTS").is_ok_and(|v| v == "1") {
        driver.screenshot(&root.join("docs").join(name));
    }
}

/// `NAME.png` of the window, then `NAME-phone.png` at 390 pixels wide, where nothing
/// may be wider than the screen.
fn screenshots(driver: &Driver, name: &str) {
    screenshot(driver, &format!("{name}.png"));
    driver.resize(390, 1400);
    std::thread::sleep(Duration::from_millis(300));
    let fits = driver.script("return document.documentElement.scrollWidth <= window.innerWidth + 1;");
    assert_eq!(fits, json!(true), "nothing wider than a phone's screen");
    screenshot(driver, &format!("{name}-phone.png"));
    driver.resize(1300, 1500);
}

/// Clicks the first legal square until the game is over; the number of clicks.
fn click_until_the_end(driver: &Driver) -> usize {
    let mut clicks = 0;
    loop {
        let next = driver.wait_for(
            "if (document.getElementById('result').textContent) return 'end';
             const b = document.querySelector('#board button.legal'); return b ? b.dataset.square : false;",
            Duration::from_secs(120),
            "my turn or the game's end",
        );
        if next == json!("end") {
            return clicks;
        }
        let square = next.as_str().unwrap().to_string();
        driver.click(&format!("#board button[data-square='{square}']"));
        clicks += 1;
        driver.wait_for(
            &format!(
                "return !document.querySelector(\"#board button[data-square='{square}']\")
                 || !!document.getElementById('result').textContent;"
            ),
            Duration::from_secs(60),
            "the board after my move",
        );
        assert!(clicks <= 40, "a side places at most 32 discs");
    }
}

/// Hints ticked at the first turn: an estimate says how it leans (the start, a draw
/// with perfect play, reads about +10), then hints are unticked again.
fn check_the_hint_explains_its_estimate(driver: &Driver) {
    driver.wait_for(
        "return !!document.querySelector('#board button.legal');",
        Duration::from_secs(60),
        "my turn",
    );
    driver.click("#hints");
    let note = driver.wait_for(
        "const t = document.getElementById('hint-note').textContent; return t.startsWith('hint by') ? t : false;",
        Duration::from_secs(60),
        "the hint",
    );
    assert!(note.as_str().unwrap().contains("leans to the side to move"), "{note}");
    driver.click("#hints");
}

/// The run folder of the one game under `runs`.
fn only_run(runs: &Path) -> PathBuf {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(runs).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(dirs.len(), 1, "{dirs:?}");
    dirs.pop().unwrap()
}

/// The final position of a logged game, replayed by the rules from its moves.
fn replayed_final(log: &Path) -> Board {
    let text = std::fs::read_to_string(log).unwrap();
    let end: Value = text
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|r| r["type"] == "game_end")
        .expect("the game ended");
    let mut board = Board::new();
    for mv in end["moves"].as_array().unwrap() {
        let mv: Move = mv.as_str().unwrap().parse().unwrap();
        board = board.try_play(mv).unwrap();
    }
    assert!(board.is_game_over());
    board
}

#[test]
#[ignore = "needs chromium and chromedriver: see the module docs (CI runs it)"]
fn a_person_plays_a_whole_game_against_greedy_by_clicking() {
    let _one = BROWSER.lock().unwrap_or_else(|p| p.into_inner());
    let base = temp_dir("serve-browser", "greedy");
    let runs = base.join("runs");
    // With a token: the printed address sets the cookie the page's requests carry.
    let token = "a-token-for-the-browser-test";
    let served = Served::start(&runs, "127.0.0.1:0", &["--token", token]);
    let driver = Driver::start();
    driver.goto(&format!("{}/?token={token}", served.url));
    driver.script(
        "document.getElementById('color').value = 'black'; document.getElementById('kind').value = 'greedy';
         document.getElementById('kind').dispatchEvent(new Event('change'));",
    );
    driver.click("#start");
    check_the_hint_explains_its_estimate(&driver);
    let clicks = click_until_the_end(&driver);
    assert!(clicks >= 5, "{clicks} clicks");
    // A game that ends with empty squares says its margin with them too, as exact hints
    // count it.
    let result = driver.script(
        "const r = document.getElementById('result'); return [r.textContent, +r.dataset.black + +r.dataset.white, r.dataset.winner];",
    );
    if result[1].as_u64() < Some(64) && result[2] != "draw" {
        assert!(
            result[0].as_str().unwrap().contains("empty square(s) for the winner"),
            "{result}"
        );
    }
    let board = replayed_final(&only_run(&runs).join("game-0001.jsonl"));
    let (black, white) = (board.count(game::Color::Black), board.count(game::Color::White));
    let shown = driver.script(
        "const r = document.getElementById('result'); return [r.dataset.black, r.dataset.white, r.textContent,
         document.getElementById('score').textContent];",
    );
    assert_eq!(shown[0], json!(black.to_string()));
    assert_eq!(shown[1], json!(white.to_string()));
    let text = shown[2].as_str().unwrap();
    assert!(text.contains(&format!("Black {black} – White {white}")), "{text}");
    let verdict = match black.cmp(&white) {
        std::cmp::Ordering::Greater => "You win",
        std::cmp::Ordering::Less => "You lose",
        std::cmp::Ordering::Equal => "Draw",
    };
    assert!(text.contains(verdict), "{text}");
    assert_eq!(shown[3], json!(format!("Black {black} – White {white}")));
    // The engine's evaluation was shown for its moves.
    let engine_entries = driver.script("return document.querySelectorAll('#log .entry.engine').length;");
    assert!(engine_entries.as_u64().unwrap() >= 5);
    screenshot(&driver, "serve-play-greedy.png");
    // A second game, left at the person's first move: leaving the page ends it, and
    // its log says so.
    let first = only_run(&runs);
    driver.click("#start");
    driver.wait_for(
        "return document.getElementById('status').textContent.startsWith('Your move');",
        Duration::from_secs(10),
        "the second game's first position",
    );
    // The other page too, by its link; a browser without the cookie is refused.
    driver.click("header a[href='/watch']");
    driver.wait_for(
        "return document.querySelectorAll('#runs tr[data-run]').length === 2;",
        Duration::from_secs(10),
        "the runs on the watch page",
    );
    let second = std::fs::read_dir(&runs)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| *p != first)
        .unwrap();
    let stopped = (0..100).find_map(|_| {
        let log = std::fs::read_to_string(second.join("game-0001.jsonl")).unwrap_or_default();
        let last: Option<serde_json::Value> = log.lines().last().and_then(|l| serde_json::from_str(l).ok());
        let ended = last.filter(|l| l["type"] == "game_stopped");
        if ended.is_none() {
            std::thread::sleep(Duration::from_millis(100));
        }
        ended
    });
    let stopped = stopped.expect("the game left by its page is logged as stopped");
    assert_eq!((&stopped["ply"], &stopped["reason"]), (&json!(1), &json!("ended")));
    let fresh = Driver::start();
    fresh.goto(&format!("{}/watch", served.url));
    let refused = fresh.script("return document.body.textContent;");
    assert!(
        refused.as_str().unwrap().contains("missing or wrong token"),
        "{refused}"
    );
}

#[test]
#[ignore = "needs chromium and chromedriver: see the module docs (CI runs it)"]
fn a_scripted_model_shows_its_thinking_and_tools_in_order_and_its_markup_stays_text() {
    let _one = BROWSER.lock().unwrap_or_else(|p| p.into_inner());
    let base = temp_dir("serve-browser", "llm");
    let runs = base.join("runs");
    let model = simulating_model(HOSTILE);
    let served = Served::start(&runs, "127.0.0.1:0", &["--host", &model.url]);
    let driver = Driver::start();
    driver.goto(&format!("{}/", served.url));
    driver.script(
        "document.getElementById('color').value = 'black'; document.getElementById('kind').value = 'llm';
         document.getElementById('model').value = 'hostile';
         document.getElementById('kind').dispatchEvent(new Event('change'));",
    );
    driver.click("#start");
    // A few moves, then a look at the log while the game is on.
    for _ in 0..4 {
        let square = driver.wait_for(
            "const b = document.querySelector('#board button.legal'); return b ? b.dataset.square : false;",
            Duration::from_secs(60),
            "my turn",
        );
        let square = square.as_str().unwrap().to_string();
        driver.click(&format!("#board button[data-square='{square}']"));
        driver.wait_for(
            &format!("return !document.querySelector(\"#board button[data-square='{square}']\");"),
            Duration::from_secs(60),
            "the board after my move",
        );
    }
    driver.wait_for(
        "return document.querySelectorAll('#log .entry.decision').length >= 3;",
        Duration::from_secs(60),
        "three decisions of the model",
    );
    // The model's turns, in order: reply with a tool call, the tool's result, the
    // answer, the decision.
    let order =
        driver.script("return [...document.querySelectorAll('#log .entry')].slice(0, 4).map(e => e.className);");
    assert_eq!(
        order,
        json!(["entry llm", "entry tool", "entry llm", "entry decision"]),
        "{order}"
    );
    let texts = driver.script(
        "const q = s => [...document.querySelectorAll('#log ' + s)].map(e => e.textContent);
         return [q('.llm-thinking'), q('.tool-call'), q('.tool-result'), q('.llm-content')];",
    );
    let first_thought = texts[0][0].as_str().unwrap();
    assert!(
        first_thought.starts_with("SIMULATE-THOUGHT </script><script>window.__pwned = 1"),
        "{first_thought}"
    );
    assert!(texts[0][1].as_str().unwrap().starts_with("ANSWER-THOUGHT"));
    assert!(texts[1][0].as_str().unwrap().starts_with("simulate_move"), "{texts}");
    assert!(texts[2][0].as_str().unwrap().contains("my_stones"), "{texts}");
    assert!(texts[3][0].as_str().unwrap().contains("<img src=x onerror="), "{texts}");
    // Nothing ran, nothing became markup.
    assert_eq!(driver.script("return window.__pwned === undefined;"), json!(true));
    assert_eq!(
        driver.script("return document.querySelectorAll('img, #log b, #log script').length;"),
        json!(0)
    );
    screenshots(&driver, "serve-play");
    click_until_the_end(&driver);
    assert_eq!(driver.script("return window.__pwned === undefined;"), json!(true));
}

#[test]
#[ignore = "needs chromium and chromedriver: see the module docs (CI runs it)"]
fn a_running_eval_is_followed_live_on_the_watch_page() {
    let _one = BROWSER.lock().unwrap_or_else(|p| p.into_inner());
    let base = temp_dir("serve-browser", "watch");
    let runs = base.join("runs");
    std::fs::create_dir_all(&runs).unwrap();
    let model = slow_model();
    let served = Served::start(&runs, "127.0.0.1:0", &[]);
    let driver = Driver::start();
    let name = "20991231-000000-eval-live";
    let mut eval = start_eval_of_the_slow_model(&runs.join(name), &model);
    driver.goto(&format!("{}/watch?run={name}", served.url));
    // Moves appear while the eval is still running.
    wait_for_live_moves(&driver, 6);
    assert!(eval.try_wait().unwrap().is_none(), "the eval is still running");
    let board_discs = driver.script("return document.querySelectorAll('.live-game .disc').length;");
    assert!(board_discs.as_u64().unwrap() >= 4 + 6);
    driver.wait_for(
        "return document.getElementById('feed').textContent.includes('llm:slow played');",
        Duration::from_secs(30),
        "a move of the model in the live feed",
    );
    assert!(eval.try_wait().unwrap().is_none(), "the eval is still running");
    assert!(driver.script("return document.querySelector('#runs .live-badge') !== null;") == json!(true));
    assert_eq!(
        driver.script("return document.getElementById('live-title').textContent;"),
        json!("Live")
    );
    screenshots(&driver, "serve-watch");
    assert!(eval.wait().unwrap().success());
    // Both games end on the page; then the run's leaderboard and its replay.
    driver.wait_for(
        "return document.querySelectorAll('.live-game.done').length === 2;",
        Duration::from_secs(30),
        "both games finished on the page",
    );
    // Once the listing no longer finds it running, the run is not called live.
    driver.wait_for(
        "return !document.getElementById('live-title').textContent.startsWith('Live');",
        Duration::from_secs(60),
        "the finished run no longer titled Live",
    );
    check_the_runs_leaderboard(&driver, name);
    screenshots(&driver, "serve-leaderboard");
    check_the_game_links_and_the_feed(&driver, &served.url, name);
    driver.goto(&format!("{}/runs/{name}/report", served.url));
    check_the_runs_report(&driver, name);
    screenshots(&driver, "serve-report");
}

/// A slow model: each answer (the first legal move) takes 300 ms, so an eval runs for
/// several seconds.
fn slow_model() -> StubServer {
    StubServer::start(|request, _| {
        let legal = legal_moves_in(request);
        let answer = legal.first().map_or(String::new(), |m| format!("I play {m}"));
        Reply::content(&answer).with_fault(Fault::Delay(Duration::from_millis(300)))
    })
}

/// Starts `eval` of `llm:slow` on `model` against greedy, one game per colour, logged
/// in `dir`; returns once its run.json is written.
fn start_eval_of_the_slow_model(dir: &Path, model: &StubServer) -> Child {
    let eval = Command::new(env!("CARGO_BIN_EXE_othello-arena"))
        .args([
            "eval",
            "--agent",
            "llm:slow",
            "--vs",
            "greedy",
            "--games",
            "1",
            "--log-dir",
        ])
        .arg(dir)
        .args(["--host", &model.url, "--json"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    while !dir.join("run.json").is_file() {
        assert!(Instant::now() < deadline, "the eval wrote no run.json");
        std::thread::sleep(Duration::from_millis(50));
    }
    eval
}

/// Waits (60 s at most) until a live game on the watch page shows `moves` moves.
fn wait_for_live_moves(driver: &Driver, moves: u64) {
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut seen = 0;
    while seen < moves {
        assert!(Instant::now() < deadline, "the watch page showed {seen} moves");
        seen = driver
            .script("return Math.max(0, ...[...document.querySelectorAll('.live-game')].map(g => +(g.dataset.moves || 0)));")
            .as_u64()
            .unwrap_or(0);
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Run `name` chosen and rated on the watch page: the leaderboard names llm:slow, drawn
/// as a table (the model's row with its rating, and an interval bar or the reason it
/// has none).
fn check_the_runs_leaderboard(driver: &Driver, name: &str) {
    driver.script(&format!(
        "document.querySelector('#runs tr[data-run=\"{name}\"] input').click();"
    ));
    driver.click("#rate");
    let board = driver.wait_for(
        "const t = document.getElementById('leaderboard').textContent; return t.includes('Ratings') ? t : false;",
        Duration::from_secs(30),
        "the leaderboard",
    );
    assert!(board.as_str().unwrap().contains("llm:slow"), "{board}");
    let row = driver.script(
        "const r = [...document.querySelectorAll('#leaderboard table.leaders tr')].find(tr => tr.textContent.includes('llm:slow')); \
         return r ? [r.children.length, r.querySelector('.interval').textContent] : null;",
    );
    assert_eq!(row[0], json!(7), "{row}");
    let fits = driver.script(
        "const t = document.querySelector('#leaderboard table.leaders'); return [t.scrollWidth, t.parentElement.clientWidth];",
    );
    assert!(
        fits[0].as_u64() <= fits[1].as_u64(),
        "the leaderboard is wider than its pane: {fits}"
    );
}

/// The watch page's games open in the report's replay viewer at that game (the raw log
/// one link beside), and its live feed names each exchange's session and turn.
fn check_the_game_links_and_the_feed(driver: &Driver, url: &str, name: &str) {
    let feed = driver.script("return document.getElementById('feed').textContent;");
    assert!(feed.as_str().unwrap().contains(" session 1 turn 1:"), "{feed}");
    // The run opened again, now that both games are listed.
    driver.goto(&format!("{url}/watch?run={name}"));
    driver.wait_for(
        "return document.querySelectorAll('#games a').length === 4;",
        Duration::from_secs(30),
        "both games listed",
    );
    let links = driver.script("return [...document.querySelectorAll('#games a')].map(a => a.getAttribute('href'));");
    let second = format!("/runs/{name}/report#file=game-0002.jsonl");
    assert!(links.as_array().unwrap().contains(&json!(second)), "{links}");
    assert!(
        links
            .as_array()
            .unwrap()
            .contains(&json!(format!("/runs/{name}/files/game-0002.jsonl"))),
        "{links}"
    );
    driver.click("#games a[href$='report#file=game-0002.jsonl']");
    let chosen = driver.wait_for(
        "const s = document.getElementById('game'); return s && s.options.length ? s.options[s.selectedIndex].textContent : false;",
        Duration::from_secs(10),
        "the report's viewer at the game linked",
    );
    assert!(chosen.as_str().unwrap().starts_with("game-0002.jsonl: "), "{chosen}");
}

/// The report of run `name`, open in `driver`: its viewer steps, the logs read fold
/// under a one-line summary, and every chart has its axes' labels and the disc chart
/// its legend.
fn check_the_runs_report(driver: &Driver, name: &str) {
    let title = driver.wait_for(
        "return document.getElementById('ply-title').textContent;",
        Duration::from_secs(10),
        "the report's viewer",
    );
    assert!(title.as_str().unwrap().starts_with("ply "), "{title}");
    driver.click("#next");
    assert_eq!(
        driver.script("return document.querySelectorAll('#board .disc').length > 4;"),
        json!(true)
    );
    let report = driver.script(
        "const d = document.getElementById('sources'); \
         const labels = id => [...document.querySelectorAll('#' + id + ' text')].map(t => t.textContent); \
         return [d.open, document.getElementById('sources-summary').textContent, labels('chart-discs'), labels('chart-share')];",
    );
    assert_eq!(report[0], json!(false));
    assert_eq!(report[1], json!(format!("2 game(s) from 1 run folder(s): {name}")));
    for label in ["ply", "disc difference", "agent as black", "agent as white"] {
        assert!(
            report[2].as_array().unwrap().contains(&json!(label)),
            "{label}: {report}"
        );
    }
    for label in ["player vs opponent", "moves", "by the model", "by the fallback", "100%"] {
        assert!(
            report[3].as_array().unwrap().contains(&json!(label)),
            "{label}: {report}"
        );
    }
}
