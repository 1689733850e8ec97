//! Progress on stderr: lines for long CPU work (perft, solve, wipeouts, move scoring),
//! and the bars of runs of many items (eval, tournament, positions, datagen, openings).
//!
//! A CPU-work line shows only when stderr is a terminal and the work has run for
//! [`SHOW_AFTER`]: quick runs and redirected output look as they did. A run's bar is
//! redrawn in place on a terminal, and written as plain lines (at most one every
//! [`LINE_EVERY`]) when stderr is not one, so a long run in CI or into a log file says
//! how far it is. The work
//! publishes how far it is through a callback or atomic counters (the rules and the
//! engines do no I/O); a ticker thread here reads them and redraws the line, with an
//! estimate of the time left where the work has a known number of steps.
//!
//! Ctrl-C: `perft`, `solve` and `wipeouts` install no handler, so Ctrl-C ends them at
//! once as it always did (the ticker thread does not hold the process). Move scoring
//! under `eval` stops at once when eval's Ctrl-C flag is passed to [`arena::Scoring::value`].

use agent::ModelGame;
use std::io::IsTerminal;
use std::sync::atomic::Ordering;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use arena::ScoringWatch;

/// Work shorter than this shows no progress line.
pub(super) const SHOW_AFTER: Duration = Duration::from_secs(1);

/// How often the line is redrawn.
const TICK: Duration = Duration::from_millis(250);

/// A progress line on stderr, drawn by a ticker thread from what `poll` says (given
/// the time elapsed); cleared when dropped.
pub(super) struct Progress {
    bar: ProgressBar,
    /// Dropping it ends the ticker.
    stop_ticker: Option<mpsc::Sender<()>>,
    ticker: Option<JoinHandle<()>>,
}

impl Progress {
    /// A line drawn when stderr is a terminal, from [`SHOW_AFTER`] on.
    pub(super) fn start(poll: impl Fn(Duration) -> String + Send + 'static) -> Progress {
        Progress::start_on(std::io::stderr().is_terminal(), poll)
    }

    /// A line drawn only when `visible`.
    fn start_on(visible: bool, poll: impl Fn(Duration) -> String + Send + 'static) -> Progress {
        let bar = ProgressBar::hidden();
        if !visible {
            return Progress {
                bar,
                stop_ticker: None,
                ticker: None,
            };
        }
        bar.set_style(
            ProgressStyle::with_template("{spinner} {msg}").unwrap_or_else(|_| ProgressStyle::default_spinner()),
        );
        let (stop_ticker, stopped) = mpsc::channel::<()>();
        let drawn = bar.clone();
        let start = Instant::now();
        let ticker = std::thread::spawn(move || {
            let mut shown = false;
            while let Err(RecvTimeoutError::Timeout) = stopped.recv_timeout(TICK) {
                let elapsed = start.elapsed();
                if elapsed < SHOW_AFTER {
                    continue;
                }
                if !shown {
                    drawn.set_draw_target(ProgressDrawTarget::stderr());
                    shown = true;
                }
                drawn.set_message(poll(elapsed));
                drawn.tick();
            }
        });
        Progress {
            bar,
            stop_ticker: Some(stop_ticker),
            ticker: Some(ticker),
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        drop(self.stop_ticker.take());
        if let Some(ticker) = self.ticker.take() {
            let _ = ticker.join();
        }
        self.bar.finish_and_clear();
    }
}

/// The time left when `done` of `total` steps took `elapsed`, at the same pace;
/// `None` before the first step is done.
pub(super) fn remaining(done: u64, total: u64, elapsed: Duration) -> Option<Duration> {
    if done == 0 || total < done {
        return None;
    }
    Some(elapsed.mul_f64((total - done) as f64 / done as f64))
}

/// A duration for people: `45s`, `3m 05s`, `2h 10m`.
pub(super) fn duration_text(d: Duration) -> String {
    let secs = d.as_secs();
    match secs {
        0..60 => format!("{secs}s"),
        60..3600 => format!("{}m {:02}s", secs / 60, secs % 60),
        _ => format!("{}h {:02}m", secs / 3600, secs % 3600 / 60),
    }
}

/// How far work split into steps is (`done` of `total`), published by its workers.
#[derive(Debug, Default)]
pub(super) struct Steps {
    done: std::sync::atomic::AtomicU64,
    total: std::sync::atomic::AtomicU64,
}

impl Steps {
    /// `done` of `total` steps are done (from any worker; `done` never goes back).
    pub(super) fn set(&self, done: usize, total: usize) {
        self.total.store(total as u64, Ordering::Relaxed);
        self.done.fetch_max(done as u64, Ordering::Relaxed);
    }

    /// A [`steps_line`] of `what` in `unit`s, read from these counters.
    pub(super) fn progress(self: &Arc<Steps>, what: String, unit: &'static str) -> Progress {
        let steps = self.clone();
        Progress::start(move |elapsed| {
            let (done, total) = (steps.done.load(Ordering::Relaxed), steps.total.load(Ordering::Relaxed));
            steps_line(&what, done, total, unit, elapsed)
        })
    }
}

/// The line of work with a known number of steps: `what: 5/56 unit, 1m 20s elapsed,
/// about 2m 10s left (Ctrl-C stops)`.
pub(super) fn steps_line(what: &str, done: u64, total: u64, unit: &str, elapsed: Duration) -> String {
    let left = match remaining(done, total, elapsed) {
        Some(left) => format!("about {} left", duration_text(left)),
        None => "estimating the time left".to_string(),
    };
    format!(
        "{what}: {done}/{total} {unit}, {} elapsed, {left} (Ctrl-C stops)",
        duration_text(elapsed)
    )
}

/// The [`solve_line`] of a solve of `empties` empties that publishes on `watch`.
pub(super) fn solve_progress(watch: Arc<engines::SolveWatch>, empties: u32) -> Progress {
    Progress::start(move |elapsed| {
        let load = |counter: &std::sync::atomic::AtomicU32| counter.load(Ordering::Relaxed);
        let nodes = watch.nodes.load(Ordering::Relaxed);
        solve_line(empties, nodes, load(&watch.moves_checked), load(&watch.moves), elapsed)
    })
}

/// The [`steps_line`] of `what`, a rating fit of `resamples` resamples counted on `watch`.
pub(super) fn resamples_progress(what: &'static str, watch: Arc<stats::RatingWatch>, resamples: usize) -> Progress {
    Progress::start(move |elapsed| {
        let done = watch.resamples_done.load(Ordering::Relaxed) as u64;
        steps_line(what, done, resamples as u64, "resamples", elapsed)
    })
}

/// The line of an exact solve: nodes so far and their rate, then which root move the
/// list of best moves has reached (`checked` of `moves`; 0 of 0 while the score is
/// searched).
pub(super) fn solve_line(empties: u32, nodes: u64, checked: u32, moves: u32, elapsed: Duration) -> String {
    let rate = nodes as f64 / elapsed.as_secs_f64().max(1e-9);
    let stage = if moves == 0 {
        "searching the score".to_string()
    } else {
        format!("score found; checking the moves for the best: {checked}/{moves}")
    };
    format!(
        "solving {empties} empties: {nodes:.3e} nodes at {rate:.2e}/s, {} elapsed; {stage} (Ctrl-C stops)",
        duration_text(elapsed)
    )
}

/// The [`steps_line`] of `what` ("scoring moves"), games scored on `watch` of `total`
/// with the moves so far; drawn on a terminal only when `shown`.
pub(super) fn scoring_progress(what: &'static str, watch: Arc<ScoringWatch>, total: usize, shown: bool) -> Progress {
    let poll = move |elapsed| {
        let done = watch.games_done.load(Ordering::Relaxed) as u64;
        let moves = watch.moves_done.load(Ordering::Relaxed);
        steps_line(
            &format!("{what} ({moves} so far)"),
            done,
            total as u64,
            "games",
            elapsed,
        )
    };
    Progress::start_on(shown && std::io::stderr().is_terminal(), poll)
}

/// The progress bar of a run of `total` items (`what`: "games", "positions"), with
/// elapsed time, ETA and a message; hidden when `hidden`. On a terminal it is redrawn in
/// place; when stderr is not one (a log file, CI), it is written as plain lines, at most
/// one every [`LINE_EVERY`], so long runs are never silent.
pub(super) fn progress_bar(total: usize, hidden: bool, what: &str) -> ProgressBar {
    if hidden {
        return ProgressBar::hidden();
    }
    let terminal = std::io::stderr().is_terminal();
    let (bar, template) = if terminal {
        let template =
            format!("{{bar:30}} {{pos}}/{{len}} {what}  elapsed {{elapsed_precise}}  ETA {{eta_precise}}  {{msg}}");
        (ProgressBar::new(total as u64), template)
    } else {
        let lines = ProgressDrawTarget::term_like(Box::new(LineWriter::default()));
        let template = format!("progress: {{pos}}/{{len}} {what}, {{elapsed}} elapsed, {{left}} {{msg}}");
        (ProgressBar::with_draw_target(Some(total as u64), lines), template)
    };
    let style = ProgressStyle::with_template(&template).unwrap_or_else(|_| ProgressStyle::default_bar());
    // The time left, once there is a pace to go by (as the other progress lines say it).
    let left = |state: &indicatif::ProgressState, out: &mut dyn std::fmt::Write| {
        let text = match state.len() {
            Some(len) if state.pos() > 0 => remaining(state.pos(), len, state.elapsed())
                .map_or_else(String::new, |left| format!("about {} left", duration_text(left))),
            _ => "estimating the time left".to_string(),
        };
        let _ = out.write_str(&text);
    };
    bar.set_style(style.with_key("left", left));
    // Drawn at once, so the first line says that nothing is done yet. Before the steady
    // tick: once its thread is installed, `tick` draws nothing, and the thread's first
    // draw can come after the first game is done.
    bar.tick();
    if !terminal {
        // Redrawn every second whatever the work reports, so a line is due on time.
        bar.enable_steady_tick(Duration::from_secs(1));
    }
    bar
}

/// How often a progress bar writes a line when stderr is not a terminal.
pub(super) const LINE_EVERY: Duration = Duration::from_secs(10);

/// A progress bar's target off a terminal: each redraw is a candidate line, written to
/// stderr when it says something new and [`LINE_EVERY`] has passed since the last one
/// (the first is written at once); cursor moves and clears do nothing.
#[derive(Debug, Default)]
struct LineWriter {
    last: std::sync::Mutex<Option<(Instant, String)>>,
}

impl LineWriter {
    fn offer(&self, line: &str) {
        let line = line.trim();
        if line.is_empty() {
            return;
        }
        let mut last = self.last.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let due = match &*last {
            None => true,
            Some((at, text)) => text != line && at.elapsed() >= LINE_EVERY,
        };
        if due {
            eprintln!("{line}");
            *last = Some((Instant::now(), line.to_string()));
        }
    }
}

impl indicatif::TermLike for LineWriter {
    fn width(&self) -> u16 {
        200
    }
    fn move_cursor_up(&self, _: usize) -> std::io::Result<()> {
        Ok(())
    }
    fn move_cursor_down(&self, _: usize) -> std::io::Result<()> {
        Ok(())
    }
    fn move_cursor_right(&self, _: usize) -> std::io::Result<()> {
        Ok(())
    }
    fn move_cursor_left(&self, _: usize) -> std::io::Result<()> {
        Ok(())
    }
    fn write_line(&self, line: &str) -> std::io::Result<()> {
        self.offer(line);
        Ok(())
    }
    fn write_str(&self, text: &str) -> std::io::Result<()> {
        self.offer(text);
        Ok(())
    }
    fn clear_line(&self) -> std::io::Result<()> {
        Ok(())
    }
    fn flush(&self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The bar of a run's games ([`progress_bar`]), moved on by each finished game.
pub(super) struct GameBar(ProgressBar);

impl GameBar {
    /// The bar of `total` games (`what`: "games", "games (at most)"); hidden when
    /// `hidden`.
    pub(super) fn new(total: usize, hidden: bool, what: &str) -> GameBar {
        GameBar(progress_bar(total, hidden, what))
    }

    /// Counts a finished game.
    pub(super) fn count<R: ModelGame>(&self, event: &arena::MatchEvent<'_, R>) {
        if let arena::MatchEvent::GameDone { .. } = event {
            self.0.inc(1);
        }
    }

    /// Clears the bar once the games are played.
    pub(super) fn finish(self) {
        self.0.finish_and_clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicBool;

    #[test]
    fn the_time_left_follows_the_pace_so_far() {
        let minute = Duration::from_secs(60);
        assert_eq!(remaining(0, 10, minute), None);
        assert_eq!(remaining(5, 10, minute), Some(minute));
        assert_eq!(remaining(1, 4, minute), Some(3 * minute));
        assert_eq!(remaining(4, 4, minute), Some(Duration::ZERO));
        assert_eq!(remaining(5, 4, minute), None);
    }

    #[test]
    fn lines_say_what_is_done_and_what_is_left() {
        assert_eq!(duration_text(Duration::from_secs(45)), "45s");
        assert_eq!(duration_text(Duration::from_secs(185)), "3m 05s");
        assert_eq!(duration_text(Duration::from_secs(7800)), "2h 10m");
        assert_eq!(
            steps_line("perft depth 14", 14, 56, "subtrees", Duration::from_secs(20)),
            "perft depth 14: 14/56 subtrees, 20s elapsed, about 1m 00s left (Ctrl-C stops)"
        );
        assert!(steps_line("x", 0, 3, "games", Duration::from_secs(2)).contains("estimating the time left"));
        let solving = solve_line(24, 2_000_000_000, 0, 0, Duration::from_secs(100));
        assert!(solving.starts_with("solving 24 empties: 2.000e9 nodes at 2.00e7/s, 1m 40s elapsed; searching"));
        assert!(solve_line(24, 1, 2, 9, Duration::from_secs(1)).contains("2/9"));
    }

    #[test]
    fn a_hidden_line_draws_nothing_and_ends_at_once() {
        let polled = Arc::new(AtomicBool::new(false));
        let seen = polled.clone();
        let progress = Progress::start_on(false, move |_| {
            seen.store(true, Ordering::Relaxed);
            String::new()
        });
        assert!(progress.ticker.is_none());
        drop(progress);
        assert!(!polled.load(Ordering::Relaxed));
    }

    #[test]
    fn a_shown_line_polls_the_work_after_the_delay_and_stops_when_dropped() {
        let polled = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let seen = polled.clone();
        let progress = Progress::start_on(true, move |_| {
            seen.fetch_add(1, Ordering::Relaxed);
            String::new()
        });
        std::thread::sleep(SHOW_AFTER + 3 * TICK);
        let start = Instant::now();
        drop(progress);
        assert!(start.elapsed() < 2 * TICK, "the ticker ends when the work does");
        let calls = polled.load(Ordering::Relaxed);
        assert!(calls >= 1, "polled once shown");
        std::thread::sleep(2 * TICK);
        assert_eq!(polled.load(Ordering::Relaxed), calls, "no poll after the end");
    }
}
