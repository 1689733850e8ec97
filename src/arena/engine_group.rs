//! Engine processes as process groups: [`ProcessGroup`] is the one guard that owns an
//! engine process and everything it starts. The process leads a process group of its
//! own (`setpgid(0, 0)` at spawn), so that whatever it starts (a launch script's
//! engine, an engine's helpers) ends with it.
//!
//! However a group's life ends, it ends the same way, and only once every process of
//! it is gone: SIGTERM to the whole group, up to [`TERM_GRACE`] for every process of
//! it to exit, SIGKILL to every process left, the leader reaped, and a wait (up to
//! [`KILL_WAIT`]) until no process of the group runs (a process has ended once it is a
//! zombie: only its parent's wait is left, and a launch script's orphans have `init`
//! for a parent). The paths that end a group:
//! - [`ProcessGroup::end`], awaited by the engine's client when its game ends, times
//!   out or fails;
//! - dropping a [`ProcessGroup`] that was not ended (a game's task dropped with its
//!   runtime, a panic unwinding), which blocks its thread for the same sequence;
//! - [`end_engine_processes`], for a harness about to exit without unwinding (a second
//!   Ctrl-C, SIGTERM): every group still alive is listed, and from the moment it is
//!   called no group starts ([`SpawnError::Quitting`]), so none is left out.
//!
//! The leader is never reaped before the group's SIGKILL: a zombie leader keeps its
//! process id reserved, so the signal cannot reach another group that reused it. (The
//! group's id stays reserved after that while any process of the group lives.)

use std::process::ExitStatus;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::process::{Child, Command};

use super::engine_streams::{lock, StderrTail};

/// How long a group is given to exit after SIGTERM before SIGKILL.
pub(crate) const TERM_GRACE: Duration = Duration::from_millis(500);
/// How long the processes of a group are waited for after SIGKILL (a process in an
/// uninterruptible wait of the kernel can outlast it): past it the group is let go.
pub(crate) const KILL_WAIT: Duration = Duration::from_secs(2);
/// How often an ending looks whether the group's processes are gone.
const POLL: Duration = Duration::from_millis(5);

/// Why no engine process was started.
#[derive(Debug)]
pub(crate) enum SpawnError {
    /// The harness is quitting ([`end_engine_processes`] was called): no group starts.
    Quitting,
    /// The program could not be started.
    Io(std::io::Error),
}

/// A group still alive: its id and its leader's stderr tail.
struct Live {
    pgid: libc::pid_t,
    stderr: Arc<Mutex<StderrTail>>,
}

/// Every engine process group started and not yet ended, in this process, and whether
/// the process is quitting.
struct Registry {
    live: Vec<Live>,
    quitting: bool,
}

static REGISTRY: Mutex<Registry> = Mutex::new(Registry {
    live: Vec::new(),
    quitting: false,
});

fn registry() -> std::sync::MutexGuard<'static, Registry> {
    REGISTRY.lock().unwrap_or_else(|p| p.into_inner())
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

/// Reaps our child `pid` if it has exited (for a harness about to exit, whose
/// `Child` handles are never dropped); whether it is reaped (or is no child of ours).
fn reap(pid: libc::pid_t) -> bool {
    // SAFETY: waitpid with WNOHANG never blocks; a null status pointer is allowed.
    let reaped = unsafe { libc::waitpid(pid, std::ptr::null_mut(), libc::WNOHANG) };
    reaped != 0
}

/// Whether any process of group `pgid` still runs: a zombie does not (it has ended;
/// only its parent's wait is left), and a group we may not signal is not waited for.
fn group_running(pgid: libc::pid_t) -> bool {
    // SAFETY: signal 0 only checks whether the group has a process we may signal.
    if unsafe { libc::killpg(pgid, 0) } != 0 {
        return false;
    }
    members_running(pgid)
}

/// Whether a process of group `pgid` other than a zombie is listed in /proc.
#[cfg(target_os = "linux")]
fn members_running(pgid: libc::pid_t) -> bool {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return true;
    };
    entries.flatten().any(|entry| {
        let Some(pid) = entry.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else {
            return false;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            return false;
        };
        // "pid (name) state ppid pgrp ...": the name may hold spaces and parentheses.
        let mut fields = stat.rsplit_once(')').map_or("", |(_, rest)| rest).split_whitespace();
        let (state, _ppid, pgrp) = (fields.next(), fields.next(), fields.next());
        pgrp.and_then(|p| p.parse::<libc::pid_t>().ok()) == Some(pgid) && !matches!(state, Some("Z" | "X"))
    })
}

/// Without /proc, a group with any process (zombies included) still runs.
#[cfg(not(target_os = "linux"))]
fn members_running(_pgid: libc::pid_t) -> bool {
    true
}

/// A wait of at most a given time for a condition, looked at every [`POLL`].
struct Wait {
    deadline: Instant,
}

impl Wait {
    fn new(limit: Duration) -> Wait {
        Wait {
            deadline: Instant::now() + limit,
        }
    }

    /// `Some(true)` once the condition holds (`done`), `Some(false)` once the time is
    /// up, `None` while the wait goes on.
    fn over(&self, done: bool) -> Option<bool> {
        (done || Instant::now() >= self.deadline).then_some(done)
    }
}

/// Looks at `done` on this thread until it holds or `limit` passes; whether it held.
fn wait_blocking(limit: Duration, mut done: impl FnMut() -> bool) -> bool {
    let wait = Wait::new(limit);
    loop {
        if let Some(held) = wait.over(done()) {
            return held;
        }
        std::thread::sleep(POLL);
    }
}

/// [`wait_blocking`] for async callers: the waits between looks sleep on the runtime.
async fn wait_async(limit: Duration, mut done: impl FnMut() -> bool) -> bool {
    let wait = Wait::new(limit);
    loop {
        if let Some(held) = wait.over(done()) {
            return held;
        }
        tokio::time::sleep(POLL).await;
    }
}

/// One engine process, leader of its own process group, and every process it starts.
pub(crate) struct ProcessGroup {
    child: Child,
    /// The group's id (the leader's process id) until the group is ended.
    pgid: Option<libc::pid_t>,
}

impl ProcessGroup {
    /// Starts `command` (its stdio already set) as the leader of a new process group,
    /// listed with `stderr` (saved if the harness must exit before the group ends).
    /// Refused once the harness is quitting.
    pub(crate) fn spawn(command: &mut Command, stderr: &Arc<Mutex<StderrTail>>) -> Result<ProcessGroup, SpawnError> {
        command.process_group(0).kill_on_drop(true);
        // Started and listed under the lock: a quit either finds the group listed or
        // is seen here first.
        let mut registry = registry();
        if registry.quitting {
            return Err(SpawnError::Quitting);
        }
        let child = command.spawn().map_err(SpawnError::Io)?;
        let pgid = child.id().and_then(|id| libc::pid_t::try_from(id).ok());
        if let Some(pgid) = pgid {
            registry.live.push(Live {
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
        wait_async(limit, || has_exited(pid)).await
    }

    /// Ends the whole group (the module's sequence: SIGTERM, up to [`TERM_GRACE`] for
    /// every process of it to exit, SIGKILL, the leader reaped, its processes waited
    /// for) and returns the leader's exit status (an error when the leader outlasts the
    /// wait). Ending an ended group only returns the status.
    pub(crate) async fn end(&mut self) -> std::io::Result<ExitStatus> {
        if let Some(pgid) = self.pgid {
            signal_group(pgid, libc::SIGTERM);
            wait_async(TERM_GRACE, || has_exited(pgid) && !group_running(pgid)).await;
            signal_group(pgid, libc::SIGKILL);
            // Reaped here; a leader the kernel holds past SIGKILL is let go after the wait.
            let _ = tokio::time::timeout(KILL_WAIT, self.child.wait()).await;
            wait_async(KILL_WAIT, || !group_running(pgid)).await;
            self.forget();
        }
        match self.child.try_wait()? {
            Some(status) => Ok(status),
            None => Err(std::io::Error::other(format!(
                "still running {} s after SIGKILL",
                KILL_WAIT.as_secs()
            ))),
        }
    }

    /// Takes the group off the list of live groups.
    fn forget(&mut self) {
        if let Some(pgid) = self.pgid.take() {
            registry().live.retain(|group| group.pgid != pgid);
        }
    }
}

impl Drop for ProcessGroup {
    /// Ends the group as [`ProcessGroup::end`] does, on this thread (a game's task
    /// dropped, a panic unwinding): the leader reaped and every process of it gone
    /// before the handle is.
    fn drop(&mut self) {
        let Some(pgid) = self.pgid else { return };
        signal_group(pgid, libc::SIGTERM);
        wait_blocking(TERM_GRACE, || has_exited(pgid) && !group_running(pgid));
        signal_group(pgid, libc::SIGKILL);
        let child = &mut self.child;
        wait_blocking(KILL_WAIT, || {
            !matches!(child.try_wait(), Ok(None)) && !group_running(pgid)
        });
        self.forget();
    }
}

/// Ends every engine process group of this process still alive, and keeps any from
/// starting from now on: SIGTERM to all, up to `TERM_GRACE` (half a second) for their
/// processes to exit, SIGKILL to every process left, the leaders reaped and every
/// process of the groups waited for (up to `KILL_WAIT`, two seconds), each engine's
/// stderr tail saved beside its game's log. For a harness about to exit without
/// unwinding (a second Ctrl-C, SIGTERM): once it returns, no engine process of this
/// harness runs.
pub(crate) fn end_engine_processes() {
    let groups = {
        let mut registry = registry();
        registry.quitting = true;
        std::mem::take(&mut registry.live)
    };
    for group in &groups {
        signal_group(group.pgid, libc::SIGTERM);
    }
    wait_blocking(TERM_GRACE, || {
        groups
            .iter()
            .all(|group| has_exited(group.pgid) && !group_running(group.pgid))
    });
    for group in &groups {
        signal_group(group.pgid, libc::SIGKILL);
    }
    let mut reaped = vec![false; groups.len()];
    wait_blocking(KILL_WAIT, || {
        for (group, reaped) in groups.iter().zip(&mut reaped) {
            *reaped = *reaped || reap(group.pgid);
        }
        reaped.iter().all(|&r| r) && !groups.iter().any(|group| group_running(group.pgid))
    });
    for group in &groups {
        lock(&group.stderr).save();
    }
}
