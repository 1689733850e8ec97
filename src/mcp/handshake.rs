//! The stdio transport, lenient before the handshake: rmcp ends the session when the
//! first message that is not a request (a notification such as
//! `notifications/initialized` sent too early, a stray response) comes before
//! `initialize`, and the server would then exit without a word, its client left
//! waiting. Such messages carry no id, so there is nothing to answer: they are dropped
//! (said on the tracing log) until the server has answered its first real request, and
//! the client's `initialize` that follows is served.

use std::future::Future;

use rmcp::model::{JsonRpcMessage, ServerResult};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::RoleServer;

/// A server transport that drops the messages before the handshake that are not
/// requests.
pub(super) struct Lenient<T> {
    inner: T,
    /// Whether the server has answered a request other than a `ping` (or a `discover`
    /// probe) with a result: the session is under way.
    started: bool,
}

impl<T> Lenient<T> {
    /// `inner`, lenient until the session is under way.
    pub(super) fn new(inner: T) -> Lenient<T> {
        Lenient { inner, started: false }
    }
}

impl<T: Transport<RoleServer>> Transport<RoleServer> for Lenient<T> {
    type Error = T::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        if let JsonRpcMessage::Response(response) = &item {
            self.started |= !matches!(
                response.result,
                ServerResult::EmptyResult(_) | ServerResult::DiscoverResult(_)
            );
        }
        self.inner.send(item)
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            let message = self.inner.receive().await?;
            if self.started || matches!(message, JsonRpcMessage::Request(_)) {
                return Some(message);
            }
            tracing::warn!("dropped a message that is not a request before the client's initialize: {message:?}");
        }
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}
