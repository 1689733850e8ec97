//! `search`: seed 001's `othello-web/lib/ai.ts`, a negamax alpha-beta.
//!
//! As in the seed: depth by empties (<= 8: to the end, <= 12: 6, <= 20: 5, else 4);
//! a lone legal move is played without search; a finished game scores
//! (mine - theirs) * 100000; a pass consumes one ply and is searched before the
//! depth check; the first strictly better move is kept (fail-soft).
//!
//! The seed does not show `evaluate` or `orderMoves`; ours (documented in
//! docs/engines.md) scores from the side to move's view, each term own minus
//! opponent's:
//! ```text
//! weights + 8 * mobility + 30 * corners - 25 * (X-squares next to an empty corner) + d * discs
//! ```
//! where `d` is 0 while more than 20 squares are empty, 4 from 20 to 13 empties and
//! 12 from 12 empties on (position and mobility early, discs late). Moves are
//! ordered by square weight, highest first, ties in row-major order.

use super::weights::{weight, weighted_sum};
use super::{Decision, Engine, EngineError, ScoreUnit};
use game::othello::bitboard::{flips, legal_moves};
use game::othello::{Bitboard, Board, Move, Square};

/// The four corners.
const CORNERS: u64 = 1 | 1 << 7 | 1 << 56 | 1 << 63;
/// X-squares (b2, g2, b7, g7) with their corners (a1, h1, a8, h8).
const X_SQUARES: [(u64, u64); 4] = [(1 << 9, 1), (1 << 14, 1 << 7), (1 << 49, 1 << 56), (1 << 54, 1 << 63)];
/// Score of one disc of final margin.
const WIN_UNIT: i64 = 100_000;
/// Below any reachable score.
const NEG_INFINITY: i64 = -(1 << 40);

/// Seed 001's search AI. Deterministic.
#[derive(Clone, Debug, Default)]
pub struct Search {
    nodes: u64,
}

/// Plies searched with `empties` empty squares (seed 001's `searchDepth`).
pub fn search_depth(empties: u32) -> u32 {
    match empties {
        0..=8 => empties,
        9..=12 => 6,
        13..=20 => 5,
        _ => 4,
    }
}

/// Our evaluation for the seed's unseen `evaluate` (see the module docs).
fn evaluate(player: u64, opponent: u64) -> i64 {
    let empties = 64 - (player | opponent).count_ones();
    let empty = !(player | opponent);
    let position = i64::from(weighted_sum(player) - weighted_sum(opponent));
    let mobility =
        i64::from(legal_moves(player, opponent).count_ones()) - i64::from(legal_moves(opponent, player).count_ones());
    let corners = i64::from((player & CORNERS).count_ones()) - i64::from((opponent & CORNERS).count_ones());
    let x_squares: i64 = X_SQUARES
        .iter()
        .filter(|(_, corner)| empty & corner != 0)
        .map(|(x, _)| i64::from(player & x != 0) - i64::from(opponent & x != 0))
        .sum();
    let discs = i64::from(player.count_ones()) - i64::from(opponent.count_ones());
    let disc_weight = match empties {
        21.. => 0,
        13..=20 => 4,
        _ => 12,
    };
    position + 8 * mobility + 30 * corners - 25 * x_squares + disc_weight * discs
}

/// Legal moves, highest square weight first, ties in row-major order.
fn ordered(moves: u64) -> Vec<Square> {
    let mut squares: Vec<Square> = Bitboard(moves).squares().collect();
    squares.sort_by_key(|&sq| -weight(sq));
    squares
}

impl Search {
    /// A fresh search player.
    pub fn new() -> Search {
        Search::default()
    }

    /// Negamax with alpha-beta; returns the score and the best move (if any was searched).
    fn negamax(&mut self, player: u64, opponent: u64, depth: i32, mut alpha: i64, beta: i64) -> (i64, Option<Square>) {
        self.nodes += 1;
        let moves = legal_moves(player, opponent);
        if moves == 0 {
            if legal_moves(opponent, player) == 0 {
                let margin = i64::from(player.count_ones()) - i64::from(opponent.count_ones());
                return (margin * WIN_UNIT, None);
            }
            let (child, _) = self.negamax(opponent, player, depth - 1, -beta, -alpha);
            return (-child, None);
        }
        if depth <= 0 {
            return (evaluate(player, opponent), None);
        }
        let mut best_score = NEG_INFINITY;
        let mut best_move = None;
        for square in ordered(moves) {
            let flipped = flips(player, opponent, square);
            let (child, _) = self.negamax(
                opponent & !flipped,
                player | flipped | square.bit(),
                depth - 1,
                -beta,
                -alpha,
            );
            let score = -child;
            if score > best_score {
                best_score = score;
                best_move = Some(square);
            }
            alpha = alpha.max(score);
            if alpha >= beta {
                break;
            }
        }
        (best_score, best_move)
    }
}

impl Engine for Search {
    fn name(&self) -> String {
        "search".to_string()
    }

    fn decide(&mut self, board: &Board) -> Result<Decision, EngineError> {
        self.nodes = 0;
        let moves = board.legal_moves();
        let Some(first) = moves.squares().next() else {
            return Ok(Decision::bare(Move::Pass));
        };
        if moves.count() == 1 {
            return Ok(Decision::bare(Move::Place(first)));
        }
        let depth = search_depth(board.empties()) as i32;
        let (score, best) = self.negamax(board.player(), board.opponent(), depth, NEG_INFINITY, -NEG_INFINITY);
        Ok(Decision {
            mv: Move::Place(best.unwrap_or(first)),
            score: Some(score as f64),
            nodes: self.nodes,
            candidates: Vec::new(),
            unit: Some(ScoreUnit::higher("search points (a disc of final margin is 100,000)")),
        })
    }
}
