//! One game between two engines.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::engine::{Engine, EngineError};
use crate::othello::{Board, ByColor, Color, Game, Move, Outcome};

/// A finished game.
#[derive(Clone, Debug, PartialEq)]
pub struct GameRecord {
    /// The position and moves, opening included.
    pub game: Game,
    /// How many of the first moves were the random opening.
    pub opening_plies: usize,
    /// The result by disc count.
    pub outcome: Outcome,
    /// Black's discs minus White's at the end (empty squares are not awarded).
    pub disc_difference: i32,
}

/// Called after every move with the new position and the move that led to it.
pub type PlyObserver<'a> = &'a mut dyn FnMut(&Board, Move);

/// `plies` uniformly random moves from `start` (passes when forced), seeded by `seed`.
/// Stops early if the game ends.
pub fn random_opening(start: Board, plies: usize, seed: u64) -> Game {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut game = Game::new(start);
    while game.moves().len() < plies && !game.is_over() {
        let moves: Vec<_> = game.board().legal_moves().squares().collect();
        let mv = if moves.is_empty() {
            Move::Pass
        } else {
            Move::Place(moves[rng.gen_range(0..moves.len())])
        };
        game.try_play(mv).expect("moves are drawn from the legal set");
    }
    game
}

/// Plays `opening` to the end with `players`; `observer` sees every move after the opening.
pub fn play_game(
    mut game: Game,
    players: ByColor<&mut dyn Engine>,
    mut observer: Option<PlyObserver<'_>>,
) -> Result<GameRecord, EngineError> {
    let opening_plies = game.moves().len();
    let mut players = players;
    // A game has at most 60 placements and never two passes in a row.
    while !game.is_over() {
        let side = game.board().side_to_move();
        let decision = players[side].choose(game.board())?;
        let mv = decision.mv;
        game.try_play(mv).map_err(|source| EngineError::Illegal {
            engine: players[side].name(),
            source,
        })?;
        if let Some(observe) = observer.as_mut() {
            observe(game.board(), mv);
        }
    }
    let disc_difference = game.disc_difference();
    let outcome = game.board().leader();
    Ok(GameRecord {
        game,
        opening_plies,
        outcome,
        disc_difference,
    })
}

impl GameRecord {
    /// Disc difference from `color`'s view.
    pub fn margin_for(&self, color: Color) -> i32 {
        match color {
            Color::Black => self.disc_difference,
            Color::White => -self.disc_difference,
        }
    }
}
