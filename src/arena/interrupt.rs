//! Ctrl-C and SIGTERM for a command that plays games, listened for from its start
//! (tokio's signal handling), so that neither ends it by the default action and
//! leaves engine processes behind. Once a run has armed its gentle stop
//! ([`crate::Run::stop_on_ctrl_c`]; a server of clients' games likewise,
//! [`crate::ClientStore::stop_on_ctrl_c`]), the first Ctrl-C sets its stop flag: no
//! new games; games in flight end after their current move (an external engine's move
//! is abandoned at once), logged as unfinished. A server of clients' games takes SIGTERM
//! (a service manager's stop) as it takes the first Ctrl-C: no command resumes its
//! games, so each must be logged as stopped, and the manager's own grace period (then
//! SIGKILL) bounds the wait. A second signal, SIGTERM to a run (which its resume plays
//! again), or either signal before a run is armed (or in a command without one,
//! `play`) quits at once: between two log lines, every engine's process group ended,
//! with 130. What the person is told is the face's: [`watch_signals`] hands it each
//! [`Interrupt`].

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use record::hold_log_writes;

use super::engine_group::end_engine_processes;

/// What a signal did, for the face to tell.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Interrupt {
    /// The first Ctrl-C of an armed run (or SIGTERM to a server): no new games start;
    /// games in flight stop after their current move.
    Stopping,
    /// The process quits now (between two log lines, its engines ended); `resume` is
    /// the command that plays the unfinished games again, when a run was under way.
    Quitting {
        /// The command that continues the run.
        resume: Option<String>,
    },
}

/// A run's gentle stop: its flag and the command line that continues it (none for a
/// server's games, which no command continues).
#[derive(Clone)]
struct Gentle {
    stop: Arc<AtomicBool>,
    resume: Option<String>,
}

/// The run that the first Ctrl-C stops gently, once one is under way.
static GENTLE: Mutex<Option<Gentle>> = Mutex::new(None);

/// From now on the first Ctrl-C sets `stop`; a quit names `resume`, if any.
pub(crate) fn arm(stop: Arc<AtomicBool>, resume: Option<String>) {
    *GENTLE.lock().unwrap_or_else(|p| p.into_inner()) = Some(Gentle { stop, resume });
}

/// A server's gentle stop (`serve`, `mcp --http`): once armed, the first Ctrl-C or
/// SIGTERM asks the server to stop ([`ServerStop::stopped`] resolves, and it logs its
/// open games as stopped) instead of quitting at once; a second signal quits, between
/// two log lines. The command's signals must be watched ([`watch_signals`]).
#[derive(Clone, Debug, Default)]
pub struct ServerStop {
    stop: Arc<AtomicBool>,
}

impl ServerStop {
    /// Arms the gentle stop from now on.
    pub fn arm() -> ServerStop {
        let server = ServerStop::default();
        arm(server.stop.clone(), None);
        server
    }

    /// Resolves once a signal has asked the server to stop.
    pub async fn stopped(&self) {
        while !self.stop.load(Ordering::SeqCst) {
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
    }
}

/// Listens for Ctrl-C and SIGTERM on the runtime for the rest of the command; `tell`
/// hears each [`Interrupt`] before it takes effect.
pub fn watch_signals(tell: fn(&Interrupt)) -> std::io::Result<()> {
    let mut signals = Signals::listen()?;
    tokio::spawn(async move {
        let mut stopping = false;
        while let Some(signal) = signals.next().await {
            let gentle = GENTLE.lock().unwrap_or_else(|p| p.into_inner()).clone();
            match gentle {
                Some(gentle) if !stopping && (signal == Signal::Interrupt || gentle.resume.is_none()) => {
                    stopping = true;
                    gentle.stop.store(true, Ordering::SeqCst);
                    tell(&Interrupt::Stopping);
                }
                gentle => quit_now(tell, gentle.and_then(|g| g.resume)),
            }
        }
    });
    Ok(())
}

/// Ends the process with 130, the shell's code for Ctrl-C: once no log line is being
/// written (none is torn) and every external engine's process group is ended (its
/// stderr's tail saved), `tell` having said so.
fn quit_now(tell: fn(&Interrupt), resume: Option<String>) -> ! {
    let _no_torn_lines = hold_log_writes();
    end_engine_processes();
    tell(&Interrupt::Quitting { resume });
    std::process::exit(130);
}

/// The signals that stop a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Signal {
    /// SIGINT (Ctrl-C).
    Interrupt,
    /// SIGTERM (`kill`, a service manager).
    Terminate,
}

/// Listeners for SIGINT and SIGTERM, registered at once (so neither signal's default
/// action applies from then on).
struct Signals {
    #[cfg(unix)]
    interrupt: tokio::signal::unix::Signal,
    #[cfg(unix)]
    terminate: tokio::signal::unix::Signal,
}

impl Signals {
    fn listen() -> std::io::Result<Signals> {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{signal, SignalKind};
            Ok(Signals {
                interrupt: signal(SignalKind::interrupt())?,
                terminate: signal(SignalKind::terminate())?,
            })
        }
        #[cfg(not(unix))]
        Ok(Signals {})
    }

    /// The next signal (`None` when the runtime shuts down).
    async fn next(&mut self) -> Option<Signal> {
        #[cfg(unix)]
        {
            tokio::select! {
                got = self.interrupt.recv() => got.map(|()| Signal::Interrupt),
                got = self.terminate.recv() => got.map(|()| Signal::Terminate),
            }
        }
        #[cfg(not(unix))]
        tokio::signal::ctrl_c().await.ok().map(|()| Signal::Interrupt)
    }
}
