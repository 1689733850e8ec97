//! One game between two players, logged move by move.

use std::sync::atomic::{AtomicBool, Ordering};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tracing::Instrument;

use super::player::{PlayError, Played, Player};
use crate::agent::MoveContext;
use crate::othello::{Board, ByColor, Color, Game, Move, Outcome};
use crate::record::{Event, GameLog, GameStopped, LogError, MoveRecord, MoveSource};

/// One move of a finished game, with its source.
#[derive(Clone, Debug, PartialEq)]
pub struct PlyRecord {
    /// The mover.
    pub color: Color,
    /// What was played and how.
    pub played: Played,
}

/// A finished game.
#[derive(Clone, Debug, PartialEq)]
pub struct GameRecord {
    /// The position and moves, opening included.
    pub game: Game,
    /// How many of the first moves were the random opening.
    pub opening_plies: usize,
    /// The moves after the opening, passes included.
    pub plies: Vec<PlyRecord>,
    /// The result by disc count.
    pub outcome: Outcome,
    /// Black's discs minus White's at the end (empty squares are not awarded).
    pub disc_difference: i32,
}

/// A game that could not be finished.
#[derive(Debug, thiserror::Error)]
pub enum GameError {
    /// A player failed.
    #[error("{player} could not move at ply {ply}")]
    Player {
        /// The player's spec.
        player: String,
        /// The ply.
        ply: usize,
        /// The failure.
        #[source]
        source: PlayError,
    },
    /// A player broke the rules (a bug, never silently replaced).
    #[error("{player} chose an illegal move at ply {ply}")]
    Illegal {
        /// The player's spec.
        player: String,
        /// The ply.
        ply: usize,
        /// The refused move.
        #[source]
        source: crate::othello::IllegalMove,
    },
    /// The run was stopped before this ply (the game is logged as unfinished).
    #[error("stopped before ply {ply}")]
    Stopped {
        /// The ply that was not played.
        ply: usize,
    },
    /// The log could not be written.
    #[error(transparent)]
    Log(#[from] LogError),
}

/// Called after every move with the new position and the move that led to it.
pub type PlyObserver<'a> = &'a mut (dyn FnMut(&Board, Move) + Send);

/// What a game needs besides its players.
pub struct GameContext<'a> {
    /// Game number in the run (from 1).
    pub number: usize,
    /// The game's log, if any.
    pub log: Option<&'a GameLog>,
    /// Sees every move after the opening.
    pub observer: Option<PlyObserver<'a>>,
    /// When set, the game stops before its next move.
    pub stop: Option<&'a AtomicBool>,
}

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

/// Plays `game` (typically a random opening) to the end. Forced passes are played
/// without asking anyone. Every move after the opening is logged. When `ctx.stop` is
/// set the game ends before its next move with [`GameError::Stopped`], logged as a
/// `game_stopped` record.
pub async fn play_game(
    game: Game,
    players: ByColor<&mut dyn Player>,
    ctx: GameContext<'_>,
) -> Result<GameRecord, GameError> {
    let span = tracing::debug_span!("game", id = ctx.number);
    play_moves(game, players, ctx).instrument(span).await
}

async fn play_moves(
    mut game: Game,
    mut players: ByColor<&mut dyn Player>,
    mut ctx: GameContext<'_>,
) -> Result<GameRecord, GameError> {
    let opening_plies = game.moves().len();
    let mut plies = Vec::new();
    // At most 60 placements and never two passes in a row: the loop ends.
    while !game.is_over() {
        let board = *game.board();
        let color = board.side_to_move();
        let ply = game.moves().len() + 1;
        if ctx.stop.is_some_and(|stop| stop.load(Ordering::Relaxed)) {
            if let Some(log) = ctx.log {
                log.write(Event::GameStopped(GameStopped {
                    game: ctx.number,
                    ply,
                    reason: "interrupted".to_string(),
                }))?;
            }
            return Err(GameError::Stopped { ply });
        }
        let player = &mut players[color];
        let played = if board.must_pass() {
            Played {
                mv: Move::Pass,
                source: MoveSource::ForcedPass,
                agent: None,
            }
        } else {
            let move_ctx = MoveContext {
                game: ctx.number,
                ply,
                log: ctx.log,
            };
            player
                .play(&board, move_ctx)
                .await
                .map_err(|source| GameError::Player {
                    player: player.name(),
                    ply,
                    source,
                })?
        };
        game.try_play(played.mv).map_err(|source| GameError::Illegal {
            player: player.name(),
            ply,
            source,
        })?;
        if let Some(log) = ctx.log {
            log.write(Event::Move(MoveRecord {
                game: ctx.number,
                ply,
                color: color.to_string(),
                player: player.name(),
                mv: played.mv.to_string(),
                source: played.source,
                board_after: game.board().to_squares_string(),
                agent: played.agent.clone(),
            }))?;
        }
        if let Some(observe) = ctx.observer.as_mut() {
            observe(game.board(), played.mv);
        }
        plies.push(PlyRecord { color, played });
    }
    let disc_difference = game.disc_difference();
    let outcome = game.board().leader();
    Ok(GameRecord {
        game,
        opening_plies,
        plies,
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
