//! Wipeout search: every line of the attacker that leaves the engine with no discs.
//!
//! Seed 001 counted the black sequences that wipe out white within 11 plies against
//! each AI, to show why its public (one-ply) AI was weak. The attacker tries every
//! legal move; the engine answers as it would in a game. Seeded engines are rebuilt
//! with the same seed at every position, so their reply is a function of the position.

use std::collections::HashMap;
use std::sync::Mutex;

use crate::{EngineError, EngineSpec};
use game::derive_seed;
use game::othello::{Board, Color, Move};

/// The engine failed while answering.
#[derive(Debug, thiserror::Error)]
#[error("engine {spec} failed during the wipeout search")]
pub struct WipeoutError {
    /// The engine's spec.
    pub spec: String,
    /// Its error.
    #[source]
    pub source: EngineError,
}

/// The lines a wipeout search found, as `wipeouts` reports them.
#[derive(Clone, Debug)]
pub struct Wipeouts {
    /// Each line's moves, from the start position.
    pub lines: Vec<Vec<Move>>,
    /// Seconds the search took.
    pub secs: f64,
}

impl Wipeouts {
    /// [`find_wipeouts_with_progress`], timed.
    pub fn find(
        spec: &EngineSpec,
        attacker: Color,
        max_plies: usize,
        seed: u64,
        threads: usize,
        on_subtree: &(dyn Fn(usize, usize) + Sync),
    ) -> Result<Wipeouts, WipeoutError> {
        let start = std::time::Instant::now();
        let lines = find_wipeouts_with_progress(spec, attacker, max_plies, seed, threads, on_subtree)?;
        Ok(Wipeouts {
            lines,
            secs: start.elapsed().as_secs_f64(),
        })
    }

    /// Each line as text, its moves separated by spaces.
    fn texts(&self) -> Vec<String> {
        self.lines
            .iter()
            .map(|line| line.iter().map(ToString::to_string).collect::<Vec<_>>().join(" "))
            .collect()
    }

    /// `wipeouts --json`: `count` and `sequences`.
    pub fn to_json(&self) -> String {
        #[derive(serde::Serialize)]
        struct Json {
            count: usize,
            sequences: Vec<String>,
        }
        serde_json::to_string(&Json {
            count: self.lines.len(),
            sequences: self.texts(),
        })
        .unwrap_or_default()
    }

    /// One line per sequence, then how many `attacker` found against `spec` within
    /// `max_plies`.
    pub fn text(&self, spec: &EngineSpec, attacker: Color, max_plies: usize) -> String {
        let mut out: String = self.texts().into_iter().map(|line| line + "\n").collect();
        out.push_str(&format!(
            "{} line(s) in which {attacker} wipes out {spec} within {max_plies} plies ({:.1} s)\n",
            self.lines.len(),
            self.secs
        ));
        out
    }
}

/// The search is split into at least this many subtrees (when the tree has them).
const SPLIT_SUBTREES: usize = 64;

/// Move lines, each from the start position.
type Lines = Vec<Vec<Move>>;

struct Searcher<'a> {
    spec: &'a EngineSpec,
    seed: u64,
    attacker: Color,
    max_plies: usize,
    replies: Mutex<HashMap<Board, Move>>,
}

impl Searcher<'_> {
    fn reply(&self, board: &Board) -> Result<Move, WipeoutError> {
        if let Some(mv) = self.lock().get(board) {
            return Ok(*mv);
        }
        let mut engine = self.spec.build(self.seed);
        let mv = engine
            .choose(board)
            .map_err(|source| WipeoutError {
                spec: self.spec.to_string(),
                source,
            })?
            .mv;
        self.lock().insert(*board, mv);
        Ok(mv)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<Board, Move>> {
        self.replies.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The moves to follow from `board`: all of the attacker's, or the engine's reply.
    fn next_moves(&self, board: &Board) -> Result<Vec<Move>, WipeoutError> {
        if board.side_to_move() != self.attacker {
            return Ok(vec![self.reply(board)?]);
        }
        let legal = board.legal_moves();
        Ok(if legal.is_empty() {
            vec![Move::Pass]
        } else {
            legal.squares().map(Move::Place).collect()
        })
    }

    fn explore(&self, board: Board, line: &mut Vec<Move>, found: &mut Vec<Vec<Move>>) -> Result<(), WipeoutError> {
        if board.count(!self.attacker) == 0 {
            found.push(line.clone());
            return Ok(());
        }
        if line.len() >= self.max_plies || board.is_game_over() {
            return Ok(());
        }
        for mv in self.next_moves(&board)? {
            line.push(mv);
            self.explore(board.play_unchecked(mv), line, found)?;
            line.pop();
        }
        Ok(())
    }
}

/// All lines of at most `max_plies` plies from the start position in which `attacker`
/// wipes out the engine built from `spec` (seeded by `seed`). Lines end at the wipeout
/// and come in row-major order of the attacker's choices. The first plies are split
/// across `threads` worker threads.
pub fn find_wipeouts(
    spec: &EngineSpec,
    attacker: Color,
    max_plies: usize,
    seed: u64,
    threads: usize,
) -> Result<Vec<Vec<Move>>, WipeoutError> {
    find_wipeouts_with_progress(spec, attacker, max_plies, seed, threads, &|_, _| {})
}

/// [`find_wipeouts`] that says how far it is: `on_subtree(done, total)` is called
/// (from the worker threads) after each of the subtrees the search is split into.
pub fn find_wipeouts_with_progress(
    spec: &EngineSpec,
    attacker: Color,
    max_plies: usize,
    seed: u64,
    threads: usize,
    on_subtree: &(dyn Fn(usize, usize) + Sync),
) -> Result<Vec<Vec<Move>>, WipeoutError> {
    let searcher = Searcher {
        spec,
        seed: derive_seed(seed, 0),
        attacker,
        max_plies,
        replies: Mutex::new(HashMap::new()),
    };
    // Expand the first plies so the work splits into independent subtrees, enough of
    // them to share among the threads and to report progress by.
    let mut roots: Vec<Vec<Move>> = vec![Vec::new()];
    for _ in 0..max_plies {
        if roots.len() >= SPLIT_SUBTREES {
            break;
        }
        let mut next = Vec::new();
        let mut grew = false;
        for line in roots {
            let board = replay(&line);
            if board.is_game_over() || board.count(!attacker) == 0 {
                next.push(line);
                continue;
            }
            for mv in searcher.next_moves(&board)? {
                let mut longer = line.clone();
                longer.push(mv);
                next.push(longer);
                grew = true;
            }
        }
        roots = next;
        if !grew {
            break;
        }
    }
    let results: Vec<Mutex<Option<Result<Lines, WipeoutError>>>> = roots.iter().map(|_| Mutex::new(None)).collect();
    let next_root = std::sync::atomic::AtomicUsize::new(0);
    let done = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..threads.clamp(1, roots.len().max(1)) {
            scope.spawn(|| loop {
                let i = next_root.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(root) = roots.get(i) else { break };
                let mut line = root.clone();
                let mut found = Vec::new();
                let outcome = searcher.explore(replay(root), &mut line, &mut found).map(|()| found);
                *results[i].lock().unwrap_or_else(|p| p.into_inner()) = Some(outcome);
                on_subtree(done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1, roots.len());
            });
        }
    });
    let mut all = Vec::new();
    for slot in results {
        if let Some(outcome) = slot.into_inner().unwrap_or_else(|p| p.into_inner()) {
            all.extend(outcome?);
        }
    }
    Ok(all)
}

fn replay(line: &[Move]) -> Board {
    line.iter().fold(Board::new(), |board, &mv| board.play_unchecked(mv))
}
