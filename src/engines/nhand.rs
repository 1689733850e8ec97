//! Seed 000's look-ahead players: `n-hand`, `n-least`, `n-most`.
//!
//! For each legal move, every continuation is played out to N plies (the candidate
//! is ply 1) with both sides' moves weighted uniformly (an average, not minimax),
//! and the metric is averaged over the positions reached:
//! - `n-hand`: own discs minus opponent discs (maximised),
//! - `n-least`: the opponent's number of legal moves (minimised),
//! - `n-most`: the player's own number of legal moves (maximised).
//!
//! Passes and game ends inside the horizon: a forced pass is not a ply (as in seed
//! 000's `exploreNHand`), so each line reaches N placements unless the game ends
//! first; a finished game is scored where it ended (its final disc difference, and
//! zero moves for either side). Ties between candidates are broken by a seeded
//! random choice. Unlike the author's Java, partial sums are not truncated and
//! `n-least`/`n-most` play every ply below the root.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use super::{pick_tied, Candidate, Decision, Engine, EngineError, ScoreUnit};
use game::othello::{Board, Color, Move, Square};

/// What a look-ahead player averages at the horizon.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Metric {
    /// Own discs minus opponent discs; higher is better (`n-hand`).
    DiscDifference,
    /// The opponent's legal moves; lower is better (`n-least`).
    OpponentMoves,
    /// The player's own legal moves; higher is better (`n-most`).
    OwnMoves,
}

impl Metric {
    /// The spec name of the player using this metric.
    pub fn spec_name(self) -> &'static str {
        match self {
            Metric::DiscDifference => "n-hand",
            Metric::OpponentMoves => "n-least",
            Metric::OwnMoves => "n-most",
        }
    }

    fn measure(self, board: &Board, me: Color) -> f64 {
        match self {
            Metric::DiscDifference => f64::from(board.count(me)) - f64::from(board.count(!me)),
            Metric::OpponentMoves => f64::from(board.mobility(!me)),
            Metric::OwnMoves => f64::from(board.mobility(me)),
        }
    }

    /// What the metric's averages count.
    fn unit(self) -> ScoreUnit {
        match self {
            Metric::DiscDifference => ScoreUnit::higher("discs (mean margin at the horizon)"),
            Metric::OpponentMoves => ScoreUnit {
                name: "opponent moves (mean at the horizon)",
                lower_is_better: true,
            },
            Metric::OwnMoves => ScoreUnit::higher("own moves (mean at the horizon)"),
        }
    }

    /// Whether `a` is strictly better than `b` for this metric.
    fn better(self, a: f64, b: f64) -> bool {
        match self {
            Metric::OpponentMoves => a < b - TIE_EPSILON,
            Metric::DiscDifference | Metric::OwnMoves => a > b + TIE_EPSILON,
        }
    }
}

/// Values closer than this are ties (averages of the same leaves summed in another order).
const TIE_EPSILON: f64 = 1e-9;

/// A seed 000 look-ahead player.
pub struct Lookahead {
    metric: Metric,
    plies: u32,
    rng: ChaCha8Rng,
}

impl Lookahead {
    /// A player averaging `metric` over `plies` plies (at least 1), ties broken by `seed`.
    pub fn new(metric: Metric, plies: u32, seed: u64) -> Lookahead {
        Lookahead {
            metric,
            plies: plies.max(1),
            rng: ChaCha8Rng::seed_from_u64(seed),
        }
    }

    /// The value of every legal move, in row-major order, and the positions visited.
    pub fn evaluate(&self, board: &Board) -> (Vec<Candidate>, u64) {
        let me = board.side_to_move();
        let mut nodes = 0;
        let candidates = board
            .legal_moves()
            .squares()
            .map(|square| {
                let after = board.play_unchecked(Move::Place(square));
                let value = self.average(&after, me, self.plies - 1, &mut nodes);
                Candidate { square, value }
            })
            .collect();
        (candidates, nodes)
    }

    /// The metric averaged over all lines of `plies_left` more placements from `board`.
    fn average(&self, board: &Board, me: Color, plies_left: u32, nodes: &mut u64) -> f64 {
        *nodes += 1;
        if plies_left == 0 {
            return self.metric.measure(board, me);
        }
        let moves = board.legal_moves();
        if moves.is_empty() {
            if board.is_game_over() {
                return self.metric.measure(board, me);
            }
            return self.average(&board.play_unchecked(Move::Pass), me, plies_left, nodes);
        }
        let total: f64 = moves
            .squares()
            .map(|sq| self.average(&board.play_unchecked(Move::Place(sq)), me, plies_left - 1, nodes))
            .sum();
        total / f64::from(moves.count())
    }
}

impl Engine for Lookahead {
    fn name(&self) -> String {
        format!("{}:{}", self.metric.spec_name(), self.plies)
    }

    fn decide(&mut self, board: &Board) -> Result<Decision, EngineError> {
        let (candidates, nodes) = self.evaluate(board);
        let Some(first) = candidates.first() else {
            return Ok(Decision::bare(Move::Pass));
        };
        let mut best = first.value;
        for c in &candidates {
            if self.metric.better(c.value, best) {
                best = c.value;
            }
        }
        let tied: Vec<Square> = candidates
            .iter()
            .filter(|c| !self.metric.better(best, c.value))
            .map(|c| c.square)
            .collect();
        let square = pick_tied(&tied, &mut self.rng);
        Ok(Decision {
            mv: Move::Place(square),
            score: Some(best),
            nodes,
            candidates,
            unit: Some(self.metric.unit()),
        })
    }
}
