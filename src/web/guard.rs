//! The server's defences: the token, the Host and Origin checks, the security headers,
//! paths kept under the runs folder, and a bound on open connections.
//!
//! - Bound to a loopback address without a token, the server answers only requests whose
//!   `Host` names the loopback (a page on another site cannot reach it by rebinding a
//!   name of its own to 127.0.0.1).
//! - With a token (required to bind anywhere else), every request carries it: the header
//!   `Authorization: Bearer T`, the query `?token=T` (the printed URL; it then sets a
//!   cookie so the page's own requests carry it), or that cookie.
//! - A request with an `Origin` from another site is refused, and every body that
//!   changes something is JSON (which a form on another site cannot send).
//! - A request's body is read whole within the wait for its headers (`--header-timeout`)
//!   and up to [`MAX_READ`] bytes, before any face sees it: a client that sends headers
//!   and then never finishes its body would otherwise hold its connection, and with
//!   enough of them every connection, for ever.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use rand::RngCore;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// The cookie that carries the token after the first request with `?token=`.
const COOKIE: &str = "othello_arena_token";

/// Scripts, styles, images and connections only from this server; no frames, no
/// plugins, no inline script or style.
pub const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; \
connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/// The request checks.
pub struct Guard {
    token: Option<String>,
    loopback: bool,
    body_wait: Duration,
}

impl Guard {
    /// A guard requiring `token` when set; `loopback` says the server listens on a
    /// loopback address; a request's body must arrive within `body_wait`.
    pub fn new(token: Option<String>, loopback: bool, body_wait: Duration) -> Guard {
        Guard {
            token,
            loopback,
            body_wait,
        }
    }
}

/// The most bytes of a body the guard reads, above every face's own bound (which
/// then answers with its own message).
pub const MAX_READ: usize = 4 << 20;

/// Whether `address` is a loopback address (where no token is needed).
pub fn is_loopback(address: &SocketAddr) -> bool {
    address.ip().is_loopback()
}

/// 32 random bytes from the operating system's generator, as hex.
pub fn generate_token() -> String {
    let mut bytes = [0u8; 32];
    rand::rngs::OsRng.fill_bytes(&mut bytes);
    hex::encode(bytes)
}

/// The middleware: refuses what the guard refuses, sets the security headers on
/// every response.
pub async fn check(State(guard): State<Arc<Guard>>, request: Request, next: Next) -> Response {
    let headers = request.headers();
    let mut set_cookie = false;
    if let Some(token) = &guard.token {
        let from_query = query_token(request.uri().query());
        let given = bearer(headers).or_else(|| cookie(headers)).or(from_query.clone());
        if !given.is_some_and(|given| same(given.as_bytes(), token.as_bytes())) {
            return refuse(
                StatusCode::UNAUTHORIZED,
                "missing or wrong token: send the token the server printed (Authorization: Bearer TOKEN), \
                 or open the address it printed (it ends in ?token=...)",
            );
        }
        set_cookie = from_query.is_some_and(|given| same(given.as_bytes(), token.as_bytes()));
    } else if guard.loopback && !host_is_loopback(headers) {
        return refuse(
            StatusCode::FORBIDDEN,
            "this server answers only requests addressed to localhost or 127.0.0.1",
        );
    }
    if let Some(origin) = headers.get(header::ORIGIN) {
        if !same_origin(origin, headers.get(header::HOST)) {
            return refuse(StatusCode::FORBIDDEN, "requests from other sites are refused");
        }
    }
    let request = match read_whole(request, guard.body_wait).await {
        Ok(request) => request,
        Err((status, message)) => {
            // The body is left unread: the connection cannot carry another request.
            let mut refused = refuse(status, message);
            refused
                .headers_mut()
                .insert(header::CONNECTION, HeaderValue::from_static("close"));
            return refused;
        }
    };
    let mut response = next.run(request).await;
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(CSP));
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    headers.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    headers
        .entry(header::CACHE_CONTROL)
        .or_insert(HeaderValue::from_static("no-store"));
    if let (true, Some(token)) = (set_cookie, &guard.token) {
        let value = format!("{COOKIE}={token}; Path=/; HttpOnly; SameSite=Strict");
        if let Ok(value) = HeaderValue::from_str(&value) {
            headers.insert(header::SET_COOKIE, value);
        }
    }
    response
}

/// `request` with its body read whole, within `wait` and [`MAX_READ`] bytes; else why
/// not.
async fn read_whole(request: Request, wait: Duration) -> Result<Request, (StatusCode, &'static str)> {
    let (parts, body) = request.into_parts();
    match tokio::time::timeout(wait, axum::body::to_bytes(body, MAX_READ)).await {
        Ok(Ok(bytes)) => Ok(Request::from_parts(parts, axum::body::Body::from(bytes))),
        Ok(Err(_)) => Err((
            StatusCode::PAYLOAD_TOO_LARGE,
            "the request's body is larger than this server reads, or was cut off: send a smaller one",
        )),
        Err(_) => Err((
            StatusCode::REQUEST_TIMEOUT,
            "the request's body did not arrive within the server's --header-timeout of its headers: send it whole",
        )),
    }
}

fn refuse(status: StatusCode, message: &'static str) -> Response {
    let mut response = (status, message).into_response();
    response
        .headers_mut()
        .insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(CSP));
    response
}

/// Compares in time independent of where the two differ.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// The token of an `Authorization: Bearer T` header; the scheme's name is
/// case-insensitive (RFC 9110), so `bearer T` counts too.
fn bearer(headers: &HeaderMap) -> Option<String> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?.trim_start();
    let (scheme, token) = value.split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then(|| token.trim().to_string())
}

fn cookie(headers: &HeaderMap) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .find_map(|pair| pair.trim().strip_prefix(COOKIE)?.strip_prefix('=').map(str::to_string))
}

fn query_token(query: Option<&str>) -> Option<String> {
    query?
        .split('&')
        .find_map(|pair| pair.strip_prefix("token=").map(str::to_string))
}

/// The host name of a `Host` header or an origin's authority, without the port.
fn host_name(authority: &str) -> &str {
    if let Some(rest) = authority.strip_prefix('[') {
        return rest.split(']').next().unwrap_or("");
    }
    authority.rsplit_once(':').map_or(authority, |(host, _)| host)
}

fn host_is_loopback(headers: &HeaderMap) -> bool {
    let Some(host) = headers.get(header::HOST).and_then(|h| h.to_str().ok()) else {
        return false;
    };
    let name = host_name(host);
    name.eq_ignore_ascii_case("localhost") || name.parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

fn same_origin(origin: &HeaderValue, host: Option<&HeaderValue>) -> bool {
    let (Ok(origin), Some(Ok(host))) = (origin.to_str(), host.map(|h| h.to_str())) else {
        return false;
    };
    let authority = origin
        .strip_prefix("http://")
        .or_else(|| origin.strip_prefix("https://"))
        .unwrap_or("");
    authority.eq_ignore_ascii_case(host)
}

/// Why a path was refused (the page shows it; the status is 404 or 400).
#[derive(Debug, thiserror::Error)]
pub enum PathRefused {
    /// A name that is not a plain file name.
    #[error("{0:?} is not a plain name (no slashes, dots first, or control characters)")]
    BadName(String),
    /// Nothing there, or it resolves to a place outside the runs folder.
    #[error("{0:?} is not under the runs folder")]
    Outside(String),
}

/// A plain name: what a run folder or a log file under it may be called.
fn plain_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 255
        && !name.starts_with('.')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | ':' | '+' | '@' | '='))
}

/// `root/names...` if every name is plain and the path, links resolved, lies inside
/// `root` (canonical); else refused. A link pointing out of the runs folder is refused
/// like `..`.
pub fn resolve(root: &Path, names: &[&str]) -> Result<PathBuf, PathRefused> {
    let mut path = root.to_path_buf();
    for name in names {
        if !plain_name(name) {
            return Err(PathRefused::BadName((*name).to_string()));
        }
        path.push(name);
    }
    let joined = names.join("/");
    match std::fs::canonicalize(&path) {
        Ok(real) if real.starts_with(root) && real != root => Ok(real),
        _ => Err(PathRefused::Outside(joined)),
    }
}

/// A listener that holds at most `max` connections open: the next is accepted when one
/// closes (meanwhile it waits in the kernel's queue).
pub struct BoundedListener {
    inner: TcpListener,
    slots: Arc<Semaphore>,
}

impl BoundedListener {
    /// Wraps `inner`.
    pub fn new(inner: TcpListener, max: usize) -> BoundedListener {
        BoundedListener {
            inner,
            slots: Arc::new(Semaphore::new(max.max(1))),
        }
    }
}

impl axum::serve::Listener for BoundedListener {
    type Io = Counted;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Counted, SocketAddr) {
        let permit = self
            .slots
            .clone()
            .acquire_owned()
            .await
            .expect("the semaphore is never closed");
        loop {
            match self.inner.accept().await {
                Ok((stream, address)) => {
                    let _ = stream.set_nodelay(true);
                    return (
                        Counted {
                            stream,
                            _permit: permit,
                        },
                        address,
                    );
                }
                Err(err) => {
                    // Out of file descriptors and the like: wait rather than spin.
                    tracing::warn!("accept failed: {err}");
                    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
                }
            }
        }
    }

    fn local_addr(&self) -> std::io::Result<SocketAddr> {
        self.inner.local_addr()
    }
}

/// A connection holding one of the listener's slots until it is dropped.
pub struct Counted {
    stream: TcpStream,
    _permit: OwnedSemaphorePermit,
}

impl AsyncRead for Counted {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.stream).poll_read(cx, buf)
    }
}

impl AsyncWrite for Counted {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_with_separators_or_leading_dots_are_not_plain() {
        for bad in ["", "..", ".", "../x", "a/b", "a\\b", ".hidden", "a\0b", "%2e%2e", "a b"] {
            assert!(!plain_name(bad), "{bad:?}");
        }
        for good in [
            "20260101-120000-eval-llm_x",
            "game-0001.jsonl",
            "run.json",
            "llm:qwen@a",
        ] {
            assert!(plain_name(good), "{good:?}");
        }
    }

    #[test]
    fn hosts_are_read_with_and_without_ports() {
        assert_eq!(host_name("localhost:8080"), "localhost");
        assert_eq!(host_name("[::1]:8080"), "::1");
        assert_eq!(host_name("127.0.0.1"), "127.0.0.1");
        assert!(same(b"abc", b"abc") && !same(b"abc", b"abd") && !same(b"abc", b"ab"));
    }

    #[test]
    fn tokens_come_from_the_query_or_the_cookie() {
        assert_eq!(query_token(Some("a=1&token=xyz")).as_deref(), Some("xyz"));
        let mut headers = HeaderMap::new();
        headers.insert(header::COOKIE, HeaderValue::from_static("x=1; othello_arena_token=t0k"));
        assert_eq!(cookie(&headers).as_deref(), Some("t0k"));
    }

    #[test]
    fn the_bearer_scheme_is_read_in_any_case() {
        for (value, token) in [
            ("Bearer t0k", Some("t0k")),
            ("bearer t0k", Some("t0k")),
            ("BEARER  t0k ", Some("t0k")),
            ("Basic dTpw", None),
            ("Bearert0k", None),
        ] {
            let mut headers = HeaderMap::new();
            headers.insert(header::AUTHORIZATION, HeaderValue::from_str(value).unwrap());
            assert_eq!(bearer(&headers).as_deref(), token, "{value:?}");
        }
    }
}
