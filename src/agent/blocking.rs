//! Engines called from async code: their CPU-bound search runs on tokio's blocking
//! threads, never on an async worker.

use std::sync::{Arc, Mutex};

use engines::EngineError;
use engines::{Engines, GameEngine};
use game::Othello;

/// An engine of game `R` whose moves are computed on a blocking thread.
pub struct BlockingEngine<R: Engines = Othello> {
    name: String,
    engine: Arc<Mutex<Box<dyn GameEngine<R>>>>,
}

impl<R: Engines> BlockingEngine<R> {
    /// Wraps `engine`.
    pub fn new(engine: Box<dyn GameEngine<R>>) -> BlockingEngine<R> {
        BlockingEngine {
            name: engine.name(),
            engine: Arc::new(Mutex::new(engine)),
        }
    }

    /// The engine's spec string.
    pub fn name(&self) -> String {
        self.name.clone()
    }

    /// The engine's move in `position`, computed on a blocking thread. A panic in the
    /// engine is a bug and goes on unwinding here.
    pub async fn choose(&self, position: &R::Position) -> Result<R::Decision, EngineError> {
        let (engine, position) = (self.engine.clone(), *position);
        let thinking = tokio::task::spawn_blocking(move || {
            let mut engine = engine.lock().unwrap_or_else(|p| p.into_inner());
            engine.choose(&position)
        });
        match thinking.await {
            Ok(decision) => decision,
            Err(err) => std::panic::resume_unwind(err.into_panic()),
        }
    }
}
