//! The client's lines, read before rmcp reads them, so that every request gets an
//! answer. rmcp drops a line over its 16 MiB cap, and a line that is not JSON (a
//! deeply nested one among them: its parser stops at 128 levels), without a word, and
//! the client waits for an answer that never comes. Here stdin is read in lines of at
//! most [`MAX_LINE`] bytes (the one bounded line reader, [`arena::LineReader`]); a line
//! that is JSON and nests at most [`MAX_DEPTH`] levels goes on to rmcp unchanged;
//! another is answered by a JSON-RPC error ([`Answering`]): a line too long or too
//! deep with the id its first bytes give (read lexically, without parsing), "Invalid
//! Request"; a line that is not JSON with a null id, "Parse error", as JSON-RPC 2.0
//! says. A line that reads as a response (no `method`, a `result` or an `error`) is
//! never answered, and the session goes on after every refused line.

use std::future::Future;

use arena::LineReader;
use record::lines::{LineError, LineSplitter};
use rmcp::model::{ErrorData, RequestId};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::RoleServer;
use tokio::io::{AsyncRead, AsyncWriteExt, BufReader, DuplexStream};
use tokio::sync::mpsc;

/// The longest line read, in bytes (its newline not counted): rmcp's own cap, so no
/// line it would read is refused (its transport is told to take every line passed on).
pub(super) const MAX_LINE: usize = rmcp::transport::async_rw::DEFAULT_MAX_LINE_LENGTH;
/// The deepest nesting of arrays and objects in a line passed on (no MCP message
/// comes near it; rmcp's parser stops at 128).
pub(super) const MAX_DEPTH: usize = 64;
/// The first bytes of a refused line searched for its id.
const HEAD: usize = 64 << 10;
/// Refused lines waiting for their answer (the reader waits when that many are).
const WAITING: usize = 64;

/// A refused line's answer: the id it is sent to, and the error.
pub(super) struct Refusal {
    id: Option<RequestId>,
    error: ErrorData,
}

/// Reads `input` on a task of its own: the lines passed on come out of the stream
/// returned (for rmcp's transport to read), the refusals out of the channel (for
/// [`Answering`]). Both end when `input` does.
pub(super) fn read_lines(input: impl AsyncRead + Unpin + Send + 'static) -> (DuplexStream, mpsc::Receiver<Refusal>) {
    let (mut passed, to_rmcp) = tokio::io::duplex(HEAD);
    let (refuse, refusals) = mpsc::channel(WAITING);
    let splitter = LineSplitter::new("the client's stdin", MAX_LINE).with_head(HEAD);
    let mut lines = LineReader::with_splitter(BufReader::new(input), splitter);
    tokio::spawn(async move {
        loop {
            let refusal = match lines.next_line().await {
                Ok(None) | Err(LineError::Read { .. }) => break,
                Ok(Some(line)) => match check(&line) {
                    Ok(()) => {
                        let written = async {
                            passed.write_all(line.as_bytes()).await?;
                            passed.write_all(b"\n").await
                        };
                        if written.await.is_err() {
                            break;
                        }
                        continue;
                    }
                    Err(refusal) => refusal,
                },
                Err(LineError::TooLong { .. }) => too_long(&lines.splitter().refused_head()),
                Err(err) => Some(Refusal {
                    id: None,
                    error: ErrorData::parse_error(format!("{err}: send one JSON-RPC message a line"), None),
                }),
            };
            if let Some(refusal) = refusal {
                if refuse.send(refusal).await.is_err() {
                    break;
                }
            }
        }
    });
    (to_rmcp, refusals)
}

/// Whether `line` goes on to rmcp (`Ok`), or its answer (`None`: it gets none).
fn check(line: &str) -> Result<(), Option<Refusal>> {
    let text = line.strip_prefix('\u{feff}').unwrap_or(line);
    if text.trim().is_empty() {
        return Err(None);
    }
    let scan = Scan::of(text);
    if scan.depth > MAX_DEPTH {
        let why = format!(
            "the message nests arrays and objects {} levels deep, past the {MAX_DEPTH} this server reads: \
             it was not read; send flatter arguments",
            scan.depth
        );
        return Err(scan.answer(why));
    }
    match serde_json::from_str::<serde::de::IgnoredAny>(text) {
        Ok(_) => Ok(()),
        Err(err) => Err(Some(Refusal {
            id: None,
            error: ErrorData::parse_error(
                format!("the line is not JSON ({err}): send one JSON-RPC message a line"),
                None,
            ),
        })),
    }
}

/// The answer to a line over [`MAX_LINE`] bytes whose first bytes are `head`.
fn too_long(head: &[u8]) -> Option<Refusal> {
    let head = String::from_utf8_lossy(head);
    let why = format!(
        "the message is longer than {MAX_LINE} bytes, the most this server reads: it was not read; \
         send smaller arguments"
    );
    Scan::of(&head).answer(why)
}

/// What a lexical pass over a line finds without parsing it (it may be cut short):
/// how deep its arrays and objects nest, and among the keys of its top-level object
/// the id's value as written, whether it has a `method`, and a `result` or an `error`.
#[derive(Debug, Default, PartialEq)]
struct Scan<'a> {
    depth: usize,
    id: Option<&'a str>,
    method: bool,
    response: bool,
}

impl<'a> Scan<'a> {
    fn of(text: &'a str) -> Scan<'a> {
        let bytes = text.as_bytes();
        let mut scan = Scan::default();
        let (mut depth, mut at) = (0usize, 0usize);
        // At depth 1: whether a key comes next, and the key whose value comes next.
        let (mut key_next, mut key): (bool, Option<&str>) = (false, None);
        while at < bytes.len() {
            let byte = bytes[at];
            let start = at;
            if byte == b'"' {
                at += 1;
                while at < bytes.len() && bytes[at] != b'"' {
                    at += if bytes[at] == b'\\' { 2 } else { 1 };
                }
                at = at.min(bytes.len());
                // Quotes are ASCII: both ends lie on character boundaries.
                let inside = &text[start + 1..at];
                let whole = &text[start..(at + 1).min(bytes.len())];
                if depth == 1 && key_next {
                    key_next = false;
                    key = Some(inside);
                    scan.method |= inside == "method";
                    scan.response |= inside == "result" || inside == "error";
                } else if depth == 1 && key == Some("id") {
                    scan.id = Some(whole);
                    key = None;
                }
            } else if depth == 1 && key == Some("id") && !b" \t\r\n:{[".contains(&byte) {
                let end = bytes[at..]
                    .iter()
                    .position(|b| b",}] \t\r\n".contains(b))
                    .map_or(bytes.len(), |n| at + n);
                scan.id = Some(&text[at..end]);
                key = None;
                at = end;
                continue;
            } else if byte == b'{' || byte == b'[' {
                depth += 1;
                scan.depth = scan.depth.max(depth);
                key_next = depth == 1 && byte == b'{';
            } else if byte == b'}' || byte == b']' {
                depth = depth.saturating_sub(1);
            } else if byte == b',' && depth == 1 {
                key_next = true;
                key = None;
            }
            at += 1;
        }
        scan
    }

    /// The refusal of this line, "Invalid Request" (`why`) to the id it names, or none
    /// when it reads as a response (a response is never answered).
    fn answer(&self, why: String) -> Option<Refusal> {
        if self.response && !self.method {
            return None;
        }
        let id = self.id.and_then(|id| serde_json::from_str::<RequestId>(id).ok());
        Some(Refusal {
            id,
            error: ErrorData::invalid_request(why, None),
        })
    }
}

/// A server transport that answers the lines [`read_lines`] refused, through the
/// transport's own writer (so that no answer is torn by another).
pub(super) struct Answering<T> {
    inner: T,
    refusals: mpsc::Receiver<Refusal>,
}

impl<T> Answering<T> {
    /// `inner`, reading what [`read_lines`] passed on, answering what it refused.
    pub(super) fn new(inner: T, refusals: mpsc::Receiver<Refusal>) -> Answering<T> {
        Answering { inner, refusals }
    }
}

impl<T: Transport<RoleServer>> Transport<RoleServer> for Answering<T> {
    type Error = T::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.inner.send(item)
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            tokio::select! {
                biased;
                Some(refusal) = self.refusals.recv() => {
                    let answer = TxJsonRpcMessage::<RoleServer>::error(refusal.error, refusal.id);
                    if self.inner.send(answer).await.is_err() {
                        return None;
                    }
                }
                message = self.inner.receive() => return message,
            }
        }
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scan_finds_the_id_the_depth_and_the_kind_of_message() {
        let request = Scan::of(r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"a":[[1]]}}"#);
        assert_eq!((request.id, request.depth, request.method), (Some("7"), 4, true));
        let spaced = Scan::of(r#"{ "method" : "x", "id" : "a\"b" , "p": {"id": 9}}"#);
        assert_eq!(spaced.id, Some(r#""a\"b""#));
        let response = Scan::of(r#"{"jsonrpc":"2.0","id":3,"result":{}}"#);
        assert!(response.response && !response.method);
        // A nested "id" is not the message's; a cut-off line still gives its id.
        assert_eq!(Scan::of(r#"{"params":{"id":1},"id":2,"method":"x"#).id, Some("2"));
        assert_eq!(Scan::of(r#"{"id":12,"params":{"x":"aaaa"#).id, Some("12"));
        let deep = format!("{}{}", "[".repeat(500), "]".repeat(500));
        assert_eq!(Scan::of(&deep).depth, 500);
        assert_eq!(Scan::of("not json").id, None);
    }

    #[test]
    fn lines_that_are_not_json_or_too_deep_are_refused_and_responses_never_answered() {
        assert!(check(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#).is_ok());
        assert!(check("\u{feff}{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}").is_ok());
        assert!(matches!(check("   "), Err(None)));
        let Err(Some(parse)) = check("{\"id\":4,") else {
            panic!("refused")
        };
        assert_eq!((parse.id, parse.error.code.0), (None, -32700));
        let deep = format!(
            r#"{{"jsonrpc":"2.0","id":"d","method":"ping","params":{}1{}}}"#,
            "[".repeat(200),
            "]".repeat(200)
        );
        let Err(Some(deep)) = check(&deep) else {
            panic!("refused")
        };
        assert_eq!(deep.id, Some(RequestId::String("d".into())));
        assert_eq!(deep.error.code.0, -32600);
        assert!(deep.error.message.contains("201 levels deep"), "{}", deep.error.message);
        let response = format!(
            r#"{{"jsonrpc":"2.0","id":5,"result":{}{}}}"#,
            "[".repeat(200),
            "]".repeat(200)
        );
        assert!(matches!(check(&response), Err(None)));
        let long = too_long(br#"{"jsonrpc":"2.0","id":99,"method":"tools/call","params":{"x":"aaa"#).unwrap();
        assert_eq!(long.id, Some(RequestId::Number(99)));
        assert!(
            long.error.message.contains("longer than 16777216 bytes"),
            "{}",
            long.error.message
        );
    }
}
