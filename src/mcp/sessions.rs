//! rmcp's in-memory sessions ([`LocalSessionManager`]), at most [`MAX_SESSIONS`] at
//! once: rmcp keeps every session until it is closed or idle for its keep-alive, so a
//! client that sends `initialize` without end (or a client such as the MCP Inspector's
//! CLI, which opens one a call and never closes it) would hold them without bound.
//! Past the cap, `initialize` is refused with an error that says how to free one.

use futures_util::Stream;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_server::session::local::{LocalSessionManager, LocalSessionManagerError};
use rmcp::transport::streamable_http_server::session::{ServerSseMessage, SessionId, SessionManager};

/// The most sessions open at once.
pub const MAX_SESSIONS: usize = 256;

/// rmcp's sessions, capped.
pub(super) struct Capped {
    inner: LocalSessionManager,
    /// Held from the count to the new session, so that two `initialize` at once
    /// cannot both pass the cap.
    creating: tokio::sync::Mutex<()>,
}

impl Capped {
    /// `inner`, capped at [`MAX_SESSIONS`].
    pub(super) fn new(inner: LocalSessionManager) -> Capped {
        Capped {
            inner,
            creating: tokio::sync::Mutex::new(()),
        }
    }
}

/// A session that could not be made or reached.
#[derive(Debug, thiserror::Error)]
pub(super) enum SessionsError {
    /// [`MAX_SESSIONS`] are open.
    #[error(
        "{MAX_SESSIONS} sessions are open, the most this server keeps: end one (DELETE /mcp with its \
         Mcp-Session-Id) or wait for an idle one to end (mcp --move-wait)"
    )]
    Full,
    /// rmcp's own.
    #[error(transparent)]
    Local(#[from] LocalSessionManagerError),
}

type Transport = <LocalSessionManager as SessionManager>::Transport;

impl SessionManager for Capped {
    type Error = SessionsError;
    type Transport = Transport;

    async fn create_session(&self) -> Result<(SessionId, Transport), SessionsError> {
        let _one_at_a_time = self.creating.lock().await;
        if self.inner.sessions.read().await.len() >= MAX_SESSIONS {
            return Err(SessionsError::Full);
        }
        Ok(self.inner.create_session().await?)
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, SessionsError> {
        Ok(self.inner.initialize_session(id, message).await?)
    }

    async fn has_session(&self, id: &SessionId) -> Result<bool, SessionsError> {
        Ok(self.inner.has_session(id).await?)
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), SessionsError> {
        Ok(self.inner.close_session(id).await?)
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, SessionsError> {
        Ok(self.inner.create_stream(id, message).await?)
    }

    async fn accept_message(&self, id: &SessionId, message: ClientJsonRpcMessage) -> Result<(), SessionsError> {
        Ok(self.inner.accept_message(id, message).await?)
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, SessionsError> {
        Ok(self.inner.create_standalone_stream(id).await?)
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, SessionsError> {
        Ok(self.inner.resume(id, last_event_id).await?)
    }
}
