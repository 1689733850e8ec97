//! Seed 003's rule-based players, `ai1` … `ai11s`.
//!
//! The plain rules (`ai1` … `ai7`) are written as the seed's rule table reads, one
//! test after another. The `s` rules from `ai6s` on go through [`ai_by_score`] as the
//! seed's do: every legal move is scored by [`Rule::evaluate`] on the position it
//! leads to, and the best score wins, ties broken uniformly at random.

use std::fmt;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::MarubatsuEngine;
use game::marubatsu::{Board, MarkPattern, Move, MoveSet};

/// One of seed 003's rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rule {
    /// Rule 1: the first free square from the top-left, row by row (a1, b1, c1, a2, ...).
    Ai1,
    /// Rule 2: a random square (the baseline; `random`).
    Ai2,
    /// Rule 3: the centre, else random.
    Ai3,
    /// Rule 4: the centre, else the first free corner in a1, c1, a3, c3 order, else random.
    Ai4,
    /// Rule 5: win when possible, else random.
    Ai5,
    /// Rule 6: win, else block the opponent's win, else random.
    Ai6,
    /// Rule 6 改: win, else a move that leaves the opponent no immediate win, else random.
    Ai6s,
    /// Rule 7: the centre, else as `ai6`.
    Ai7,
    /// Rule 7 改: the centre, else as `ai6s`.
    Ai7s,
    /// Rule 8: as `ai7s`, then prefer a move that makes a 「自 2 敵 0 空 1」.
    Ai8s,
    /// Rule 9: as `ai8s`, with two or more 「自 2 敵 0 空 1」 (a fork) above one.
    Ai9s,
    /// Rule 10: as `ai9s`, where a single 「自 2 敵 0 空 1」 adds `bonus` (the seed
    /// settles on 1 after trying 1 to 5) and each 「自 1 敵 0 空 2」 adds 1.
    Ai10s {
        /// The value of one 「自 2 敵 0 空 1」 (the seed's A).
        bonus: i32,
    },
    /// Rule 11: as `ai10s` with bonus 1, minus 1 for each 「自 0 敵 1 空 2」.
    Ai11s,
}

impl Rule {
    /// Every rule, in the seed's order (`ai10s` with its adopted bonus 1).
    pub const ALL: [Rule; 13] = [
        Rule::Ai1,
        Rule::Ai2,
        Rule::Ai3,
        Rule::Ai4,
        Rule::Ai5,
        Rule::Ai6,
        Rule::Ai6s,
        Rule::Ai7,
        Rule::Ai7s,
        Rule::Ai8s,
        Rule::Ai9s,
        Rule::Ai10s { bonus: 1 },
        Rule::Ai11s,
    ];

    /// The seed's evaluation of playing `mv` on `board`, from the mover's view, for
    /// the rules that choose through [`ai_by_score`]; `None` for the others. `mv`
    /// must be legal.
    ///
    /// | position after the move | `ai6s` | `ai7s` | `ai8s` | `ai9s` | `ai10s`, `ai11s` |
    /// |---|---|---|---|---|---|
    /// | the move took the centre | | 2 | 3 | 4 | 300 |
    /// | the mover has won | 1 | 1 | 2 | 3 | 200 |
    /// | the opponent can win (「自 0 敵 2 空 1」 ≥ 1) | -1 | -1 | -1 | -1 | -100 |
    /// | 「自 2 敵 0 空 1」 ≥ 2 | | | 1 | 2 | 100 |
    /// | 「自 2 敵 0 空 1」 = 1 | | | 1 | 1 | A + x (- y) |
    /// | otherwise | 0 | 0 | 0 | 0 | x (- y) |
    ///
    /// The first row that holds gives the value. x counts 「自 1 敵 0 空 2」 and y
    /// counts 「自 0 敵 1 空 2」 (subtracted by `ai11s` only); A is `ai10s`'s bonus.
    pub fn evaluate(self, board: &Board, mv: Move) -> Option<i32> {
        // (centre, won, opponent can win, fork) values, or None for a plain rule.
        let (centre, won, losing, fork) = match self {
            Rule::Ai6s => (None, 1, -1, None),
            Rule::Ai7s => (Some(2), 1, -1, None),
            Rule::Ai8s => (Some(3), 2, -1, None),
            Rule::Ai9s => (Some(4), 3, -1, Some(2)),
            Rule::Ai10s { .. } | Rule::Ai11s => (Some(300), 200, -100, Some(100)),
            _ => return None,
        };
        let mover = board.side_to_move();
        let after = board.play(mv);
        if let (Some(value), true) = (centre, mv == Move::CENTER) {
            return Some(value);
        }
        if after.winner() == Some(mover) {
            return Some(won);
        }
        let counts = after.count_patterns(mover);
        if counts.get(MarkPattern::OPP_TWO) > 0 {
            return Some(losing);
        }
        let own_two = counts.get(MarkPattern::OWN_TWO);
        if let (Some(value), true) = (fork, own_two >= 2) {
            return Some(value);
        }
        let own_one = i32::from(counts.get(MarkPattern::OWN_ONE));
        let opp_one = i32::from(counts.get(MarkPattern::OPP_ONE));
        Some(match self {
            Rule::Ai6s | Rule::Ai7s => 0,
            Rule::Ai8s | Rule::Ai9s => i32::from(own_two >= 1),
            Rule::Ai10s { bonus } => bonus * i32::from(own_two == 1) + own_one,
            _ => i32::from(own_two == 1) + own_one - opp_one,
        })
    }

    /// Whether the rule chooses through [`ai_by_score`].
    pub fn is_scored(self) -> bool {
        self.evaluate(&Board::new(), Move::CENTER).is_some()
    }
}

impl fmt::Display for Rule {
    /// The seed's function name: `ai1` … `ai11s`; `ai10s:A` when the bonus is not 1.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Rule::Ai1 => f.write_str("ai1"),
            Rule::Ai2 => f.write_str("ai2"),
            Rule::Ai3 => f.write_str("ai3"),
            Rule::Ai4 => f.write_str("ai4"),
            Rule::Ai5 => f.write_str("ai5"),
            Rule::Ai6 => f.write_str("ai6"),
            Rule::Ai6s => f.write_str("ai6s"),
            Rule::Ai7 => f.write_str("ai7"),
            Rule::Ai7s => f.write_str("ai7s"),
            Rule::Ai8s => f.write_str("ai8s"),
            Rule::Ai9s => f.write_str("ai9s"),
            Rule::Ai10s { bonus: 1 } => f.write_str("ai10s"),
            Rule::Ai10s { bonus } => write!(f, "ai10s:{bonus}"),
            Rule::Ai11s => f.write_str("ai11s"),
        }
    }
}

/// The seed's `ai_by_score`: score every legal move with `eval` and pick uniformly
/// at random among those with the highest score. `board` must have a legal move.
pub fn ai_by_score<R: Rng>(board: &Board, mut eval: impl FnMut(Move) -> i32, rng: &mut R) -> Move {
    let mut best = i32::MIN;
    let mut tied = Vec::with_capacity(9);
    for mv in board.legal_moves().iter() {
        let score = eval(mv);
        if score > best {
            best = score;
            tied.clear();
        }
        if score == best {
            tied.push(mv);
        }
    }
    pick(&tied, rng)
}

/// A uniform pick from a non-empty slice.
fn pick<R: Rng>(moves: &[Move], rng: &mut R) -> Move {
    assert!(!moves.is_empty(), "a rule chose among no moves");
    moves[rng.gen_range(0..moves.len())]
}

/// A uniform pick from `preferred` when it has a legal move, else from `fallback`.
fn pick_from<R: Rng>(preferred: MoveSet, fallback: MoveSet, rng: &mut R) -> Move {
    if preferred.is_empty() {
        pick(&fallback.to_vec(), rng)
    } else {
        pick(&preferred.to_vec(), rng)
    }
}

/// A player following one of seed 003's rules, its random choices fixed by a seed.
///
/// ```
/// use engines::marubatsu::{MarubatsuEngine, Rule, RuleEngine};
/// use game::marubatsu::Board;
/// let mut ai = RuleEngine::new(Rule::Ai3, 1);
/// assert_eq!(ai.choose(&Board::new()).to_string(), "b2");
/// ```
pub struct RuleEngine {
    rule: Rule,
    rng: ChaCha8Rng,
}

impl RuleEngine {
    /// A player for `rule` whose random choices are fixed by `seed`.
    pub fn new(rule: Rule, seed: u64) -> RuleEngine {
        RuleEngine {
            rule,
            rng: ChaCha8Rng::seed_from_u64(seed),
        }
    }

    /// The rule it follows.
    pub fn rule(&self) -> Rule {
        self.rule
    }
}

impl MarubatsuEngine for RuleEngine {
    fn name(&self) -> String {
        self.rule.to_string()
    }

    fn choose(&mut self, board: &Board) -> Move {
        let legal = board.legal_moves();
        assert!(
            !legal.is_empty(),
            "{} asked to move in a finished game\n{board}",
            self.rule
        );
        let me = board.side_to_move();
        let centre = if legal.contains(Move::CENTER) {
            MoveSet::from_iter([Move::CENTER])
        } else {
            MoveSet::EMPTY
        };
        let wins = board.winning_squares(me) & legal;
        let blocks = board.winning_squares(!me) & legal;
        let rng = &mut self.rng;
        match self.rule {
            Rule::Ai1 => legal.iter().next().expect("legal is not empty"),
            Rule::Ai2 => pick_from(MoveSet::EMPTY, legal, rng),
            Rule::Ai3 => pick_from(centre, legal, rng),
            Rule::Ai4 => {
                let first = Some(Move::CENTER)
                    .into_iter()
                    .chain(Move::CORNERS)
                    .find(|&mv| legal.contains(mv));
                match first {
                    Some(mv) => mv,
                    None => pick_from(MoveSet::EMPTY, legal, rng),
                }
            }
            Rule::Ai5 => pick_from(wins, legal, rng),
            Rule::Ai6 | Rule::Ai7 => {
                if self.rule == Rule::Ai7 && !centre.is_empty() {
                    Move::CENTER
                } else if !wins.is_empty() {
                    pick_from(wins, legal, rng)
                } else {
                    pick_from(blocks, legal, rng)
                }
            }
            rule => ai_by_score(
                board,
                |mv| rule.evaluate(board, mv).expect("the other rules are scored"),
                rng,
            ),
        }
    }
}
