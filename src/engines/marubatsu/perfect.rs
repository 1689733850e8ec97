//! `perfect`: full minimax over the whole game tree, which never loses.
//!
//! Every position is scored once, from the side to move's view, and kept in a table
//! shared by all players (the game has 5,478 legal positions; the table is indexed
//! by the two 9-bit masks). A score is positive for a win, negative for a loss and 0 for a draw; its
//! size is one more than the free squares left when the game ends, so a quicker win
//! scores higher and a slower loss less badly.

use std::sync::OnceLock;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::MarubatsuEngine;
use game::marubatsu::{Board, Move};
use game::othello::Color;

/// Marks a table slot not yet scored.
const UNSCORED: i8 = i8::MIN;

/// The score of every position reachable from the empty board, by `index`.
fn table() -> &'static [i8] {
    static TABLE: OnceLock<Vec<i8>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut table = vec![UNSCORED; 1 << 18];
        solve(&Board::new(), &mut table);
        table
    })
}

fn index(board: &Board) -> usize {
    usize::from(board.marks(Color::Black).bits()) | usize::from(board.marks(Color::White).bits()) << 9
}

/// The score of a finished game for the side to move, or `None` while it goes on.
fn terminal_score(board: &Board) -> Option<i8> {
    match board.winner() {
        // The side that just moved has won.
        Some(_) => Some(-(board.empties() as i8 + 1)),
        None if board.empties() == 0 => Some(0),
        None => None,
    }
}

fn solve(board: &Board, table: &mut [i8]) -> i8 {
    if let Some(score) = terminal_score(board) {
        return score;
    }
    let slot = index(board);
    if table[slot] != UNSCORED {
        return table[slot];
    }
    let best = board
        .legal_moves()
        .iter()
        .map(|mv| -solve(&board.play_unchecked(mv), table))
        .max()
        .expect("a game that goes on has a free square");
    table[slot] = best;
    best
}

/// The exact score for the side to move (see the module docs).
fn score(board: &Board) -> i8 {
    if let Some(score) = terminal_score(board) {
        return score;
    }
    match table()[index(board)] {
        // Every position that goes on is reachable from the empty board, so the table
        // has it; this branch only guards boards built around the checks.
        UNSCORED => board
            .legal_moves()
            .iter()
            .map(|mv| -score(&board.play_unchecked(mv)))
            .max()
            .expect("a game that goes on has a free square"),
        score => score,
    }
}

/// The perfect player: it picks a move of the best game value, the quickest win or
/// the slowest loss among those, and a seeded random one among exact ties (every
/// drawing move ties with every other).
///
/// ```
/// use engines::marubatsu::{MarubatsuEngine, Perfect};
/// use game::marubatsu::{Board, Move};
/// assert_eq!(Perfect::value(&Board::new()), 0);
/// // 〇 on a1 and b1, × on a2 and b2, 〇 to move: it wins on c1 rather than block c2.
/// let board = Board::parse_squares("OO-XX----").unwrap();
/// assert_eq!(Perfect::new(1).choose(&board), "c1".parse::<Move>().unwrap());
/// ```
pub struct Perfect {
    rng: ChaCha8Rng,
}

impl Perfect {
    /// A perfect player whose choices among exact ties are fixed by `seed`.
    pub fn new(seed: u64) -> Perfect {
        Perfect {
            rng: ChaCha8Rng::seed_from_u64(seed),
        }
    }

    /// The game value for the side to move under perfect play by both sides: +1 a
    /// win, 0 a draw, -1 a loss. A finished board is valued for the side that would
    /// move next (so -1 after a win, 0 after a draw).
    pub fn value(board: &Board) -> i32 {
        i32::from(score(board).signum())
    }

    /// The exact game value of each legal move from the mover's view (+1 win, 0
    /// draw, -1 loss), in index order; empty when the game is over.
    ///
    /// ```
    /// use engines::marubatsu::Perfect;
    /// use game::marubatsu::Board;
    /// let after_corner = Board::parse_squares("O--------").unwrap();
    /// let scores = Perfect::score_moves(&after_corner);
    /// // Only the centre holds the draw against a corner opening.
    /// let holding: Vec<String> = scores.iter().filter(|(_, v)| *v == 0).map(|(m, _)| m.to_string()).collect();
    /// assert_eq!(holding, ["b2"]);
    /// ```
    pub fn score_moves(board: &Board) -> Vec<(Move, i32)> {
        board
            .legal_moves()
            .iter()
            .map(|mv| (mv, -Perfect::value(&board.play_unchecked(mv))))
            .collect()
    }
}

impl MarubatsuEngine for Perfect {
    fn name(&self) -> String {
        "perfect".to_string()
    }

    fn choose(&mut self, board: &Board) -> Move {
        let scored: Vec<(Move, i8)> = board
            .legal_moves()
            .iter()
            .map(|mv| (mv, -score(&board.play_unchecked(mv))))
            .collect();
        let best = scored
            .iter()
            .map(|&(_, s)| s)
            .max()
            .expect("perfect asked to move in a finished game");
        let tied: Vec<Move> = scored.iter().filter(|&&(_, s)| s == best).map(|&(mv, _)| mv).collect();
        tied[self.rng.gen_range(0..tied.len())]
    }
}
