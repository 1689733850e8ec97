//! Exact endgame solver: negamax with principal-variation search, a first root window
//! around a midgame estimate, and a two-slot transposition table; moves ordered by a
//! shallow search over the pattern evaluation with the opponent's replies far from
//! the end, by fastest-first (fewest opponent replies) in between and by parity near
//! the end; enhanced transposition cutoffs and a stability cutoff. From 18 empties,
//! selective (ProbCut) passes come before the exact one and leave their best moves in
//! the table to order it; their bounds never settle an exact node. Scores are final disc
//! differences for the side to move with empty squares awarded to the winner (the
//! FFO / tournament convention). docs/engines.md measures each piece.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::Arc;

use super::midgame::{final_score, search_value, search_window, Evaluator, INFINITE};
use super::pattern::{self, SCALE};
use game::othello::bitboard::{adjacent, flips, legal_moves, provably_stable};
use game::othello::{Bitboard, Board, Square};

mod last;
#[cfg(test)]
mod tests;

use last::SHALLOW_MAX_EMPTIES;

/// The result of solving a position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Solution {
    /// Every move that reaches the optimum, row-major (empty when the side must pass
    /// or the game is over).
    pub best_moves: Vec<Square>,
    /// The exact final disc difference for the side to move under perfect play.
    pub score: i32,
    /// Positions visited, those of the ordering searches included.
    pub nodes: u64,
    /// Of those, the positions visited by the midgame searches that order moves.
    pub ordering_nodes: u64,
}

/// What a solve publishes as it runs, for a progress line on another thread.
#[derive(Debug, Default)]
pub struct SolveWatch {
    /// Positions visited so far (brought up to date every [`WATCH_EVERY`] nodes).
    pub nodes: AtomicU64,
    /// Root moves checked for the list of best moves (0 while the score is searched).
    pub moves_checked: AtomicU32,
    /// Root moves to check (0 while the score is searched).
    pub moves: AtomicU32,
}

/// Nodes between two updates of a [`SolveWatch`] (a power of two).
pub const WATCH_EVERY: u64 = 1 << 16;

/// From this many empties on, nodes try the stability cutoff.
const STABILITY_MIN_EMPTIES: u32 = 8;
/// From this many empties on, nodes try enhanced transposition cutoffs.
const ETC_MIN_EMPTIES: u32 = 9;
/// From this many empties on, moves are ordered by a shallow search.
const SHALLOW_ORDER_MIN_EMPTIES: u32 = 17;
/// Depth of that search: 3 plies, 4 from 21 empties up (near the root, where a
/// better order saves the most).
fn shallow_order_depth(empties: u32) -> u32 {
    if empties >= 21 {
        4
    } else {
        3
    }
}
/// How far below the node's alpha, in discs, that search still ranks moves by value
/// (Edax's margin); moves further below are ranked by a lower bound.
const SORT_MARGIN: i32 = 8;
/// Weight of one opponent reply in that ordering, in 1/SCALE discs (four discs).
const REPLY_WEIGHT: i32 = 4 * SCALE;
/// Depth of the midgame search whose value centres the root's first window.
const ROOT_GUESS_DEPTH: u32 = 6;
/// Corner squares.
const CORNERS: u64 = 0x8100_0000_0000_0081;
/// Weight of the opponent's potential mobility in the move order (replies weigh 16).
const POTENTIAL_WEIGHT: i32 = 2;
/// Confidence of each selective pass's cuts, in standard deviations of the shallow
/// search's error: a node is cut when that search clears the window by `t` of them
/// (Edax's first four levels: about 73%, 87%, 95% and 98% sure). The exact pass is
/// level [`EXACT`].
const SELECTIVE_PASSES: [f64; 4] = [1.1, 1.5, 2.0, 2.6];
/// The level of the exact pass: its bounds hold whatever the level of the probe.
const EXACT: u8 = SELECTIVE_PASSES.len() as u8;
/// From this many empties at the root, selective passes come before the exact one:
/// one up to 20 empties, one more every three empties, at most all four.
const SELECTIVE_MIN_EMPTIES: u32 = 18;
/// From this many empties on, nodes of a selective pass try a shallow-search cut.
const PROBCUT_MIN_EMPTIES: u32 = 10;

/// The selective passes a root of `empties` empties searches before the exact one.
fn selective_passes(empties: u32) -> u8 {
    if empties < SELECTIVE_MIN_EMPTIES {
        0
    } else {
        (1 + (empties - SELECTIVE_MIN_EMPTIES) / 3).min(EXACT.into()) as u8
    }
}

/// The shallow search a selective pass cuts by at `empties` empties: its depth, and
/// its error against the exact score in discs (mean, standard deviation), pooled over
/// 10-13 and 14-20 empties of `othello-arena bench probcut --empties 10-20 --positions 60`
/// (self-play positions, none from the FFO suite).
fn probcut_model(empties: u32) -> (u32, f64, f64) {
    if empties < 14 {
        (2, -0.9, 8.6)
    } else {
        (4, -1.5, 7.6)
    }
}

/// The value `search` (a search in a window) finds, first in a narrow window around
/// `guess`, the window widened on the side that fails, twice as far each time: narrow
/// windows cut far more of the tree. An exact search fails on one side only (the value
/// lies beyond the bound it failed on), so it ends once its window holds the value. A
/// `selective` search cuts by bounds that depend on the window, so it may fail low in
/// one window and high in the next, for ever: there the value of the first failure in
/// the other direction is returned, an estimate as good as any for the next pass.
fn aspiration(guess: i32, selective: bool, mut search: impl FnMut(i32, i32) -> i32) -> i32 {
    // An evaluation may stray beyond the score range; the window must stay inside it
    // and never close (a search with alpha = beta would store false bounds).
    let guess = guess.clamp(-63, 63);
    let mut width = 1;
    let (mut alpha, mut beta) = (guess - width, guess + width);
    let mut failed_low = None;
    loop {
        let value = search(alpha, beta);
        let low = if value <= alpha && alpha > -64 {
            true
        } else if value >= beta && beta < 64 {
            false
        } else {
            return value;
        };
        if selective && failed_low == Some(!low) {
            return value;
        }
        failed_low = Some(low);
        width = (width * 2).min(128);
        (alpha, beta) = if low {
            ((value - width).max(-64), value + 1)
        } else {
            (value - 1, (value + width).min(64))
        };
    }
}

/// Transposition table size: 2^TABLE_BITS entries of 24 bytes, two to a bucket of
/// one 64-byte cache line.
const TABLE_BITS: u32 = 21;
const TABLE_SIZE: usize = 1 << TABLE_BITS;

#[derive(Clone, Copy, Default)]
struct Entry {
    player: u64,
    opponent: u64,
    lower: i8,
    upper: i8,
    best: u8,
    /// Empty squares of the position (0: a free slot).
    empties: u8,
    /// The pass that stored it: its bounds hold for searches of that level or lower
    /// (the best move is a hint at any level).
    level: u8,
    /// The solve that stored it: older entries give way first.
    generation: u8,
}

/// The two slots a position may sit in, on one cache line: a probe costs one miss.
#[derive(Clone, Copy, Default)]
#[repr(align(64))]
struct Bucket([Entry; 2]);

/// An endgame solver with its own transposition table.
pub struct Solver {
    table: Vec<Bucket>,
    evaluator: &'static dyn Evaluator,
    nodes: u64,
    /// Nodes of the midgame searches that order moves and centre the first window.
    ordering_nodes: u64,
    /// The node count at which the watch is next brought up to date.
    next_publish: u64,
    generation: u8,
    /// The pass under way: a selective pass (below [`EXACT`]) or the exact one.
    level: u8,
    watch: Option<Arc<SolveWatch>>,
}

impl Default for Solver {
    fn default() -> Self {
        Solver::new()
    }
}

fn slot(player: u64, opponent: u64) -> usize {
    let h = player.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ opponent.wrapping_mul(0xc2b2_ae3d_27d4_eb4f).rotate_left(29);
    (h >> (64 - TABLE_BITS)) as usize
}

/// Asks the kernel to back the table with 2 MiB pages where it can (Linux, with
/// transparent huge pages on `madvise` or `always`). The table is 64 MiB probed at
/// random: with 4 KiB pages almost every probe also misses the address cache (TLB).
/// Saved 4-7% of the time on FFO #40-#44; without it the solver is as exact.
fn huge_pages(table: &[std::mem::MaybeUninit<Bucket>]) {
    #[cfg(target_os = "linux")]
    {
        let start = table.as_ptr() as usize;
        let end = start + std::mem::size_of_val(table);
        const HUGE: usize = 1 << 21;
        let (from, to) = (start.next_multiple_of(HUGE), end / HUGE * HUGE);
        if to > from {
            // SAFETY: the range lies inside the table's own allocation; MADV_HUGEPAGE
            // only changes how the kernel backs it, never its contents.
            unsafe { libc::madvise(from as *mut libc::c_void, to - from, libc::MADV_HUGEPAGE) };
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = table;
}

/// An ordering penalty from the square weights: corners low, X-squares high.
fn weight_penalty(square: Square) -> i32 {
    -crate::WEIGHTS[square.index()] / 10
}

impl Solver {
    /// A solver with an empty table.
    pub fn new() -> Solver {
        Solver::with_evaluator(pattern::shipped_weights())
    }

    /// A solver that orders moves far from the end by searches over `evaluator`
    /// (scores stay exact; only the speed depends on it).
    pub fn with_evaluator(evaluator: &'static dyn Evaluator) -> Solver {
        // The pages are asked for before they are first touched.
        let mut table = Vec::with_capacity(TABLE_SIZE / 2);
        huge_pages(table.spare_capacity_mut());
        table.resize(TABLE_SIZE / 2, Bucket::default());
        Solver {
            table,
            evaluator,
            nodes: 0,
            ordering_nodes: 0,
            next_publish: WATCH_EVERY,
            generation: 0,
            level: EXACT,
            watch: None,
        }
    }

    /// Publishes the progress of every later solve to `watch`.
    pub fn watch(&mut self, watch: Arc<SolveWatch>) {
        self.watch = Some(watch);
    }

    /// Brings the watch (if any) up to date.
    #[cold]
    fn publish(&self, checked: Option<(u32, u32)>) {
        if let Some(watch) = &self.watch {
            watch.nodes.store(self.nodes, Ordering::Relaxed);
            if let Some((checked, moves)) = checked {
                watch.moves.store(moves, Ordering::Relaxed);
                watch.moves_checked.store(checked, Ordering::Relaxed);
            }
        }
    }

    /// Solves `board` exactly: its score and every move that reaches it.
    pub fn solve(&mut self, board: &Board) -> Solution {
        let score = self.exact_score(board);
        let (player, opponent) = (board.player(), board.opponent());
        let moves = legal_moves(player, opponent);
        // Every move that reaches the optimum: a null-window test each.
        let mut best_moves = Vec::new();
        let count = moves.count_ones();
        for (i, square) in Bitboard(moves).into_iter().enumerate() {
            self.publish(Some((i as u32, count)));
            let f = flips(player, opponent, square);
            let value = -self.search(opponent & !f, player | f | square.bit(), -score, -score + 1, false);
            if value >= score {
                best_moves.push(square);
            }
        }
        self.publish(Some((count, count)));
        self.solution(best_moves, score)
    }

    /// The exact score of `board` and the nodes visited (those of the ordering
    /// searches included), without the best moves and the null-window test of each
    /// root move they cost: all that scoring a position's moves needs.
    pub fn score(&mut self, board: &Board) -> (i32, u64) {
        let score = self.exact_score(board);
        let solution = self.solution(Vec::new(), score);
        (solution.score, solution.nodes)
    }

    /// Starts a new solve (counters reset, the table's entries one generation older)
    /// and searches the exact score.
    fn exact_score(&mut self, board: &Board) -> i32 {
        (self.nodes, self.ordering_nodes, self.next_publish) = (0, 0, WATCH_EVERY);
        self.publish(Some((0, 0)));
        self.generation = self.generation.wrapping_add(1);
        let (player, opponent) = (board.player(), board.opponent());
        if legal_moves(player, opponent) != 0 {
            self.passes(player, opponent)
        } else if legal_moves(opponent, player) != 0 {
            -self.search(opponent, player, -64, 64, false)
        } else {
            final_score(player, opponent)
        }
    }

    /// The solution found, with the nodes of the ordering searches counted in.
    fn solution(&mut self, best_moves: Vec<Square>, score: i32) -> Solution {
        self.nodes += self.ordering_nodes;
        self.publish(None);
        Solution {
            best_moves,
            score,
            nodes: self.nodes,
            ordering_nodes: self.ordering_nodes,
        }
    }

    /// The exact score of a position with a legal move. A midgame search's estimate
    /// ([`ROOT_GUESS_DEPTH`] plies) centres the first window; far from the end,
    /// selective passes come first, each centring the next and filling the table with
    /// best moves that order the exact pass.
    fn passes(&mut self, player: u64, opponent: u64) -> i32 {
        let guess = search_value(
            self.evaluator,
            player,
            opponent,
            ROOT_GUESS_DEPTH,
            &mut self.ordering_nodes,
        );
        let mut score = (f64::from(guess) / f64::from(SCALE)).round() as i32;
        let empties = (!(player | opponent)).count_ones();
        for level in (0..selective_passes(empties)).chain([EXACT]) {
            self.level = level;
            score = aspiration(score, level < EXACT, |alpha, beta| {
                self.search(player, opponent, alpha, beta, false)
            });
        }
        score
    }

    /// The table's entry for a position: each position may sit in two slots, the
    /// first its hash's (see [`slot`]). Its bounds hold at the current level only if
    /// [`Solver::holds`] says so.
    fn probe(&self, player: u64, opponent: u64) -> Option<Entry> {
        let index = slot(player, opponent);
        let bucket = &self.table[index >> 1].0;
        [bucket[index & 1], bucket[(index & 1) ^ 1]]
            .into_iter()
            .find(|e| e.empties != 0 && e.player == player && e.opponent == opponent)
    }

    /// Whether an entry's bounds hold in the pass under way.
    #[inline]
    fn holds(&self, entry: &Entry) -> bool {
        entry.level >= self.level
    }

    /// A selective pass's cut: the bound a shallow search over the evaluation
    /// predicts (`beta` or `alpha`) when it clears the window by the pass's margin,
    /// tried on the side the static evaluation points to.
    fn probcut(&mut self, player: u64, opponent: u64, alpha: i32, beta: i32, empties: u32) -> Option<i32> {
        let (depth, mean, sd) = probcut_model(empties);
        let margin = SELECTIVE_PASSES[usize::from(self.level)] * sd;
        // In 1/SCALE discs, the shallow value that predicts an exact score of `bound`.
        let threshold = |bound: f64| ((bound - mean) * f64::from(SCALE)).round() as i32;
        let estimate = f64::from(self.evaluator.evaluate(player, opponent)) / f64::from(SCALE) + mean;
        if estimate >= f64::from(beta) && f64::from(beta) + margin < 64.0 {
            let high = threshold(f64::from(beta) + margin);
            let value = search_window(
                self.evaluator,
                player,
                opponent,
                depth,
                (high - 1, high),
                &mut self.ordering_nodes,
            );
            if value >= high {
                return Some(beta);
            }
        } else if estimate <= f64::from(alpha) && f64::from(alpha) - margin > -64.0 {
            let low = threshold(f64::from(alpha) - margin);
            let value = search_window(
                self.evaluator,
                player,
                opponent,
                depth,
                (low, low + 1),
                &mut self.ordering_nodes,
            );
            if value <= low {
                return Some(alpha);
            }
        }
        None
    }

    /// Asks the processor to bring a position's bucket into the cache, for a probe
    /// soon after.
    #[inline]
    fn prefetch(&self, player: u64, opponent: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            let bucket: *const Bucket = &self.table[slot(player, opponent) >> 1];
            // SAFETY: a prefetch only hints the cache; it reads nothing the program
            // sees and never faults (the address is a bucket of the table anyway).
            unsafe { std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(bucket.cast()) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = (player, opponent);
    }

    /// Stores `entry` over the same position, else over the less valuable of its two
    /// slots: one left by an earlier solve, or the one with fewer empties (the
    /// cheaper position to search again); the hash's own slot among equals. An entry
    /// of a surer pass for the same position stays: its bounds are worth more than a
    /// selective pass's (scoring every move solves sibling positions one after the
    /// other, and their exact entries must outlive the next solve's selective passes).
    fn store(&mut self, entry: Entry) {
        let index = slot(entry.player, entry.opponent);
        let generation = self.generation;
        let bucket = &mut self.table[index >> 1].0;
        let same = |e: &Entry| e.player == entry.player && e.opponent == entry.opponent;
        let (own, other) = (index & 1, (index & 1) ^ 1);
        let target = if let Some(at) = bucket.iter().position(same) {
            if bucket[at].level > entry.level {
                return;
            }
            at
        } else {
            let value = |e: &Entry| {
                if e.generation != generation {
                    0
                } else {
                    i32::from(e.empties) + 1
                }
            };
            if value(&bucket[own]) <= value(&bucket[other]) {
                own
            } else {
                other
            }
        };
        bucket[target] = Entry { generation, ..entry };
    }

    /// Sets each child's ordering key, lowest first: the fewest opponent replies
    /// (corners counted twice), then the fewest empty squares next to our discs (their
    /// later moves), among equals corners before X-squares; far from the end, a
    /// shallow search with the pattern evaluation and the replies instead. That search
    /// tells apart only moves worth no less than `alpha` - [`SORT_MARGIN`]: those
    /// below cannot lift the node to its window, and a bound ranks them as well.
    fn order_keys(&mut self, children: &mut [(i32, u8, u64, u64)], empty: u64, empties: u32, alpha: i32) {
        // The child's value (for the opponent) at or above which the move is below
        // the margin.
        let ceiling = (SORT_MARGIN - alpha) * SCALE + 1;
        for (key, index, theirs, mine) in children {
            let (theirs, mine) = (*theirs, *mine);
            let square = Square::new(*index).expect("a square index is below 64");
            let replies = legal_moves(theirs, mine);
            let weighted = (replies.count_ones() + (replies & CORNERS).count_ones()) as i32;
            *key = if empties >= SHALLOW_ORDER_MIN_EMPTIES {
                search_window(
                    self.evaluator,
                    theirs,
                    mine,
                    shallow_order_depth(empties),
                    (-INFINITE, ceiling),
                    &mut self.ordering_nodes,
                ) + REPLY_WEIGHT * weighted
            } else {
                let potential = (adjacent(mine) & empty & !square.bit()).count_ones() as i32;
                16 * weighted + POTENTIAL_WEIGHT * potential + 2 * weight_penalty(square)
            };
        }
    }

    /// Enhanced transposition cutoff: the value and square of a child whose entry
    /// already holds it at or above `beta` for the mover, if any.
    fn transposition_cutoff(&self, children: &[(i32, u8, u64, u64)], beta: i32) -> Option<(i32, u8)> {
        children.iter().find_map(|&(_, square, theirs, mine)| {
            let entry = self.probe(theirs, mine).filter(|e| self.holds(e))?;
            let value = -i32::from(entry.upper);
            (value >= beta).then_some((value, square))
        })
    }

    /// A child's value for the mover: a full window for the first child, else a
    /// null-window test, searched again with the full window when it fails high.
    fn pvs_child(&mut self, first: bool, player: u64, opponent: u64, alpha: i32, beta: i32) -> i32 {
        if first {
            return -self.search(player, opponent, -beta, -alpha, false);
        }
        let value = -self.search(player, opponent, -alpha - 1, -alpha, false);
        if value > alpha && value < beta {
            -self.search(player, opponent, -beta, -value, false)
        } else {
            value
        }
    }

    // The solver's hot path: one move loop, its table, ordering and cutoffs kept inline.
    #[allow(clippy::too_many_lines)]
    fn search(&mut self, player: u64, opponent: u64, mut alpha: i32, mut beta: i32, passed: bool) -> i32 {
        debug_assert!(alpha < beta, "an empty window ({alpha}, {beta}) stores false bounds");
        let empty = !(player | opponent);
        let empties = empty.count_ones();
        if empties <= SHALLOW_MAX_EMPTIES {
            return last::solve_small(player, opponent, alpha, beta, &mut self.nodes);
        }
        self.nodes += 1;
        if self.nodes >= self.next_publish {
            self.next_publish = self.nodes + WATCH_EVERY;
            self.publish(None);
        }
        let moves = legal_moves(player, opponent);
        if moves == 0 {
            if passed {
                return final_score(player, opponent);
            }
            return -self.search(opponent, player, -beta, -alpha, true);
        }
        // Stability cutoff: the opponent keeps its stable discs to the end, so the
        // score is at most 64 - 2 * stable; worth computing only when that can fail low.
        if empties >= STABILITY_MIN_EMPTIES && alpha >= 64 - 2 * opponent.count_ones() as i32 {
            let upper = 64 - 2 * provably_stable(opponent, player).count_ones() as i32;
            if upper <= alpha {
                return upper;
            }
        }
        let mut hint = 64u8;
        if let Some(e) = self.probe(player, opponent) {
            // The best move orders this node at any level; the bounds hold only if
            // the entry's pass was at least as sure as this one.
            hint = e.best;
            if self.holds(&e) {
                let (lower, upper) = (i32::from(e.lower), i32::from(e.upper));
                if lower >= beta {
                    return lower;
                }
                if upper <= alpha {
                    return upper;
                }
                if lower == upper {
                    return lower;
                }
                alpha = alpha.max(lower);
                beta = beta.min(upper);
            }
        }
        if self.level < EXACT && empties >= PROBCUT_MIN_EMPTIES {
            if let Some(bound) = self.probcut(player, opponent, alpha, beta, empties) {
                return bound;
            }
        }
        let original_alpha = alpha;
        let mut best = -65;
        let mut best_square = 64u8;
        // (ordering key, square, child's player, child's opponent), on the stack:
        // no position has more than 33 legal moves.
        let mut ordered = [(0i32, 0u8, 0u64, 0u64); 36];
        let mut count = 0;
        for square in Bitboard(moves) {
            let f = flips(player, opponent, square);
            let (mine, theirs) = (player | f | square.bit(), opponent & !f);
            if empties > SHALLOW_MAX_EMPTIES + 1 {
                // The child's entry is read soon (first thing in its own search, or
                // by the transposition cutoff after the ordering): the work before
                // then hides the wait for memory.
                self.prefetch(theirs, mine);
            }
            ordered[count] = (0, square.index() as u8, theirs, mine);
            count += 1;
        }
        // The table's move first, before any ordering work: it often cuts off alone.
        let hinted = match ordered[..count].iter().position(|child| child.1 == hint) {
            Some(at) => {
                ordered.swap(0, at);
                1
            }
            None => 0,
        };
        for i in 0..count {
            if i == hinted {
                self.order_keys(&mut ordered[i..count], empty, empties, alpha);
                if empties >= ETC_MIN_EMPTIES {
                    // Enhanced transposition cutoff: a child already known to be bad
                    // enough for the opponent settles this node without a search. Its
                    // entry was fetched when the moves were made; the table's move and
                    // the ordering searches have hidden the wait since.
                    if let Some((value, square)) = self.transposition_cutoff(&ordered[i..count], beta) {
                        // The table's move, if searched, stayed below beta.
                        (best, best_square) = (value, square);
                        break;
                    }
                }
            }
            if i >= hinted {
                // The next move in order, picked when it is needed: most nodes cut off
                // after a move or two, so sorting the whole list would be wasted.
                let next = (i..count)
                    .min_by_key(|&j| (ordered[j].0, ordered[j].1))
                    .expect("a move is left");
                ordered.swap(i, next);
            }
            let (_, square, child_player, child_opponent) = ordered[i];
            let value = self.pvs_child(i == 0, child_player, child_opponent, alpha, beta);
            if value > best {
                best = value;
                best_square = square;
            }
            alpha = alpha.max(value);
            if alpha >= beta {
                break;
            }
        }
        let (lower, upper) = if best <= original_alpha {
            (-64, best)
        } else if best >= beta {
            (best, 64)
        } else {
            (best, best)
        };
        self.store(Entry {
            player,
            opponent,
            lower: lower as i8,
            upper: upper as i8,
            best: best_square,
            empties: empties as u8,
            generation: 0,
            level: self.level,
        });
        best
    }
}
