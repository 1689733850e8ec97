//! The pages' files, built into the binary, and the report's page made fit for the
//! server's Content-Security-Policy: the report (`src/runs/report.html`) carries its
//! script and style inline, so here they are served as files of their own
//! (`/assets/viewer.js`, `/assets/viewer.css`) and the page refers to them. The data
//! block stays (JSON in `<script type="application/json">` is data, never run).

use std::sync::OnceLock;

use axum::extract::Path;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};

const PLAY: &str = include_str!("assets/play.html");
const WATCH: &str = include_str!("assets/watch.html");
const CSS: &str = include_str!("assets/app.css");
const BOARD_JS: &str = include_str!("assets/board.js");
const PLAY_JS: &str = include_str!("assets/play.js");
const WATCH_JS: &str = include_str!("assets/watch.js");
/// The report's page, the one `report` writes.
const REPORT: &str = runs::REPORT_TEMPLATE;

/// The report's inline style and script, taken out of its template.
struct Viewer {
    css: &'static str,
    js: &'static str,
}

fn viewer() -> &'static Viewer {
    static VIEWER: OnceLock<Viewer> = OnceLock::new();
    VIEWER.get_or_init(|| Viewer {
        css: between(REPORT, "<style>", "</style>").unwrap_or(""),
        js: inline_script(REPORT).map_or("", |(_, js, _)| js),
    })
}

fn between<'a>(text: &'a str, open: &str, close: &str) -> Option<&'a str> {
    let start = text.find(open)? + open.len();
    let end = start + text[start..].find(close)?;
    Some(&text[start..end])
}

/// The page's one script element without a type (the viewer), split around its code:
/// (before `<script>`, the code, after `</script>`). The data block before it cannot
/// hold `</script>`: its JSON has `<` escaped.
fn inline_script(page: &str) -> Option<(&str, &str, &str)> {
    const OPEN: &str = "<script>";
    let start = page.find(OPEN)?;
    let code_start = start + OPEN.len();
    let end = code_start + page[code_start..].find("</script>")?;
    Some((&page[..start], &page[code_start..end], &page[end + "</script>".len()..]))
}

fn with_type(content_type: &'static str, body: &'static str) -> Response {
    ([(header::CONTENT_TYPE, content_type)], body).into_response()
}

/// `GET /`.
pub async fn play_page() -> Response {
    with_type("text/html; charset=utf-8", PLAY)
}

/// `GET /watch`.
pub async fn watch_page() -> Response {
    with_type("text/html; charset=utf-8", WATCH)
}

/// `GET /assets/{name}`.
pub async fn asset(Path(name): Path<String>) -> Response {
    let js = "text/javascript; charset=utf-8";
    let css = "text/css; charset=utf-8";
    match name.as_str() {
        "app.css" => with_type(css, CSS),
        "board.js" => with_type(js, BOARD_JS),
        "play.js" => with_type(js, PLAY_JS),
        "watch.js" => with_type(js, WATCH_JS),
        "viewer.js" => with_type(js, viewer().js),
        "viewer.css" => with_type(css, viewer().css),
        _ => not_found().await,
    }
}

/// Anything else.
pub async fn not_found() -> Response {
    (StatusCode::NOT_FOUND, "not found").into_response()
}

/// The report's page for the server: its own meta policy (which allows inline code)
/// removed, its style and script replaced by references to the served files.
pub fn rewrite_report(page: &str) -> Option<String> {
    let mut page = page.to_string();
    if let Some(start) = page.find("<meta http-equiv=\"Content-Security-Policy\"") {
        let end = start + page[start..].find('>')? + 1;
        page.replace_range(start..end, "");
    }
    let style = between(&page, "<style>", "</style>")?;
    page = page.replacen(
        &format!("<style>{style}</style>"),
        "<link rel=\"stylesheet\" href=\"/assets/viewer.css\">",
        1,
    );
    let (before, _, after) = inline_script(&page)?;
    Some(format!(
        "{before}<script src=\"/assets/viewer.js\"></script>\n<p><a href=\"/watch\">back to the runs</a></p>{after}"
    ))
}

/// A report page as served.
pub fn report_page(page: &str) -> Response {
    match rewrite_report(page) {
        Some(page) => ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], page).into_response(),
        None => (
            StatusCode::INTERNAL_SERVER_ERROR,
            "the report page has an unexpected shape",
        )
            .into_response(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_report_loses_its_inline_code_and_keeps_its_data() {
        let page = REPORT.replace("/*DATA*/", r#"{"games":[],"note":"\u003c/script\u003e"}"#);
        let served = rewrite_report(&page).unwrap();
        assert!(!served.contains("Content-Security-Policy"));
        assert!(!served.contains("<style>"));
        assert!(served.contains("<script type=\"application/json\" id=\"data\">{\"games\""));
        assert!(served.contains("<script src=\"/assets/viewer.js\"></script>"));
        // The only script elements left: the data block and the external viewer.
        assert_eq!(served.matches("<script").count(), 2);
        assert!(viewer().js.contains("JSON.parse(document.getElementById(\"data\")"));
        assert!(viewer().css.contains(".board"));
    }
}
