//! Engine processes as process groups. Each engine process leads a process group of
//! its own (`setpgid(0, 0)` at spawn), so that whatever it starts (a launch script's
//! engine, an engine's helpers) can be ended with it: [`ProcessGroup::end`] sends SIGTERM to
//! the whole group, gives the leader [`TERM_GRACE`] to exit, sends SIGKILL to every
//! process left and reaps the leader. Dropping a [`ProcessGroup`] that was not ended kills
//! the whole group at once (SIGKILL); the leader is reaped by tokio's orphan reaper.
//! Every group still alive is listed, so that [`end_engine_processes`] can end them
//! all before the harness exits (a second Ctrl-C, SIGTERM), and save their stderr.
//!
//! The leader is never reaped before the group's SIGKILL: a zombie leader keeps its
//! process id reserved, so the signal cannot reach another group that reused it.

use std::process::ExitStatus;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::process::{Child, Command};

use super::engine_streams::{lock, StderrTail};

/// How long a group's leader is given to exit after SIGTERM before SIGKILL.
pub(crate) const TERM_GRACE: Duration = Duration::from_millis(500);
/// How often an ending waits to see whether the leader has exited.
const POLL: Duration = Duration::from_millis(10);

/// A group still alive: its id and its leader's stderr tail.
struct Live {
    pgid: libc::pid_t,
    stderr: Arc<Mutex<StderrTail>>,
}

/// Every engine process group started and not yet ended, in this process.
static LIVE: Mutex<Vec<Live>> = Mutex::new(Vec::new());

fn live() -> std::sync::MutexGuard<'static, Vec<Live>> {
    LIVE.lock().unwrap_or_else(|p| p.into_inner())
}

/// Sends `signal` to every process of group `pgid` (one already gone is no error).
fn signal_group(pgid: libc::pid_t, signal: libc::c_int) {
    // SAFETY: killpg only sends a signal; a group with no process left gives ESRCH.
    unsafe {
        libc::killpg(pgid, signal);
    }
}

/// Whether our child `pid` has exited (or cannot be waited for), without reaping it.
fn has_exited(pid: libc::pid_t) -> bool {
    // SAFETY: an all-zero siginfo_t is a valid value; waitid writes into it and,
    // with WNOWAIT, leaves the child waitable.
    unsafe {
        let mut info: libc::siginfo_t = std::mem::zeroed();
        let options = libc::WEXITED | libc::WNOHANG | libc::WNOWAIT;
        if libc::waitid(libc::P_PID, pid as libc::id_t, &mut info, options) != 0 {
            return true;
        }
        info.si_pid() == pid
    }
}

/// One engine process, leader of its own process group.
pub(crate) struct ProcessGroup {
    child: Child,
    /// The group's id (the leader's process id) until the group is ended.
    pgid: Option<libc::pid_t>,
}

impl ProcessGroup {
    /// Starts `command` (its stdio already set) as the leader of a new process group,
    /// listed with `stderr` (saved if the harness must exit before the group ends).
    pub(crate) fn spawn(command: &mut Command, stderr: &Arc<Mutex<StderrTail>>) -> std::io::Result<ProcessGroup> {
        command.process_group(0).kill_on_drop(true);
        let child = command.spawn()?;
        let pgid = child.id().and_then(|id| libc::pid_t::try_from(id).ok());
        if let Some(pgid) = pgid {
            live().push(Live {
                pgid,
                stderr: stderr.clone(),
            });
        }
        Ok(ProcessGroup { child, pgid })
    }

    /// The leader, for its pipes.
    pub(crate) fn child(&mut self) -> &mut Child {
        &mut self.child
    }

    /// Waits up to `limit` for the leader to exit by itself (it is not reaped);
    /// whether it did.
    pub(crate) async fn exits_within(&self, limit: Duration) -> bool {
        let Some(pid) = self.pgid else { return true };
        let deadline = Instant::now() + limit;
        loop {
            if has_exited(pid) {
                return true;
            }
            if Instant::now() >= deadline {
                return false;
            }
            tokio::time::sleep(POLL).await;
        }
    }

    /// Ends the whole group: SIGTERM to every process in it, up to [`TERM_GRACE`]
    /// for the leader to exit, SIGKILL to every process left; then reaps the leader
    /// and returns its exit status. Ending an ended group only returns the status.
    pub(crate) async fn end(&mut self) -> std::io::Result<ExitStatus> {
        if let Some(pgid) = self.pgid {
            signal_group(pgid, libc::SIGTERM);
            self.exits_within(TERM_GRACE).await;
            signal_group(pgid, libc::SIGKILL);
            self.forget();
        }
        self.child.wait().await
    }

    /// Takes the group off the list of live groups.
    fn forget(&mut self) {
        if let Some(pgid) = self.pgid.take() {
            live().retain(|group| group.pgid != pgid);
        }
    }
}

impl Drop for ProcessGroup {
    /// Kills the whole group at once (the handle is gone: there is no one to wait
    /// out a grace), unless it was ended.
    fn drop(&mut self) {
        if let Some(pgid) = self.pgid {
            signal_group(pgid, libc::SIGKILL);
            self.forget();
        }
    }
}

/// Ends every engine process group of this process still alive: SIGTERM to all,
/// up to `TERM_GRACE` (half a second) for their leaders to exit, SIGKILL to every process left, and
/// each engine's stderr tail saved beside its game's log. For a harness about to exit
/// without unwinding (a second Ctrl-C, SIGTERM); the leaders are left to `init`.
pub fn end_engine_processes() {
    let groups = std::mem::take(&mut *live());
    for group in &groups {
        signal_group(group.pgid, libc::SIGTERM);
    }
    let deadline = Instant::now() + TERM_GRACE;
    while Instant::now() < deadline && !groups.iter().all(|group| has_exited(group.pgid)) {
        std::thread::sleep(POLL);
    }
    for group in &groups {
        signal_group(group.pgid, libc::SIGKILL);
        lock(&group.stderr).save();
    }
}
