//! Engines called from async code: their CPU-bound search runs on tokio's blocking
//! threads, never on an async worker.

use std::sync::{Arc, Mutex};

use crate::engine::{Decision, Engine, EngineError};
use crate::othello::Board;

/// An engine whose moves are computed on a blocking thread.
pub struct BlockingEngine {
    name: String,
    engine: Arc<Mutex<Box<dyn Engine>>>,
}

impl BlockingEngine {
    /// Wraps `engine`.
    pub fn new(engine: Box<dyn Engine>) -> BlockingEngine {
        BlockingEngine {
            name: engine.name(),
            engine: Arc::new(Mutex::new(engine)),
        }
    }

    /// The engine's spec string.
    pub fn name(&self) -> String {
        self.name.clone()
    }

    /// The engine's move in `board`, computed on a blocking thread. A panic in the
    /// engine is a bug and goes on unwinding here.
    pub async fn choose(&self, board: &Board) -> Result<Decision, EngineError> {
        let (engine, board) = (self.engine.clone(), *board);
        let thinking = tokio::task::spawn_blocking(move || {
            let mut engine = engine.lock().unwrap_or_else(|p| p.into_inner());
            engine.choose(&board)
        });
        match thinking.await {
            Ok(decision) => decision,
            Err(err) => std::panic::resume_unwind(err.into_panic()),
        }
    }
}
