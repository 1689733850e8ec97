//! One game between two players, logged move by move.

use agent::ModelGame;
use std::sync::atomic::{AtomicBool, Ordering};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tracing::Instrument;

use super::player::{Action, PlayError, Played, Player};
use super::player_spec::PlayerSpec;
use agent::MoveContext;
use game::othello::{ByColor, Color, Outcome};
use game::{Line, Othello, Rules};
use record::{AgentDecision, GameWriter, LogError, MoveSource, Ply, StopReason};
use runs::{AgentStats, GameSummary};

/// One move of a finished game, with its source.
#[derive(Clone, Debug, PartialEq)]
pub struct PlyRecord<R: ModelGame = Othello> {
    /// The mover.
    pub color: Color,
    /// What was played and how.
    pub played: Played<R>,
}

/// A side that played no move and lost: its agent's fallback is `forfeit`.
#[derive(Clone, Debug, PartialEq)]
pub struct Forfeit {
    /// The forfeiting side (the side to move in the game's last position).
    pub color: Color,
    /// Its player's spec.
    pub player: String,
    /// The agent's failed decision (source `forfeit`).
    pub agent: AgentDecision,
}

/// A finished game.
#[derive(Clone, Debug, PartialEq)]
pub struct GameRecord<R: ModelGame = Othello> {
    /// The position and moves, opening included.
    pub game: Line<R>,
    /// How many of the first moves were the random opening.
    pub opening_plies: usize,
    /// The moves after the opening, passes included.
    pub plies: Vec<PlyRecord<R>>,
    /// The side that forfeited, when the game ended that way (`game` then stops at the
    /// position it forfeited in, with the game not over on the board).
    pub forfeit: Option<Forfeit>,
    /// The result: by the rules, or after a forfeit the opponent's win.
    pub outcome: Outcome,
    /// Black's margin at the end in the game's unit ([`Rules::margin`]: Othello's disc
    /// difference, empty squares not awarded); after a forfeit,
    /// [`Rules::FORFEIT_MARGIN`] for the winner (-64 when black forfeited in Othello).
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
        source: Box<dyn std::error::Error + Send + Sync>,
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
pub(crate) type PlyObserver<'a, R = Othello> = &'a mut (dyn FnMut(&<R as Rules>::Position, <R as Rules>::Move) + Send);

/// What a game needs besides its players.
pub struct GameContext<'a, R: ModelGame = Othello> {
    /// The game's log (its writer knows the game's number in the run).
    pub log: GameWriter<'a>,
    /// Sees every move after the opening.
    pub observer: Option<PlyObserver<'a, R>>,
    /// When set, the game stops before its next move.
    pub stop: Option<&'a AtomicBool>,
    /// Why a stop is logged (`game_stopped`'s reason): `interrupted` for a run's stop
    /// (Ctrl-C), `disconnected` for a client gone; `stop` set, or a player stopped.
    pub stop_reason: StopReason,
}

/// `plies` uniformly random moves from `start` (passes when forced), seeded by `seed`.
/// An opening leaves the players a game: a draw that ends the game is drawn again
/// from the same seeded stream (so openings that never end one are as before), up to
/// `OPENING_DRAWS` times; only a start already near its end can run out of draws,
/// and then the last draw is returned.
pub fn random_opening<R: ModelGame>(start: R::Position, plies: usize, seed: u64) -> Line<R> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut draw = || {
        let mut game = Line::<R>::new(start);
        while game.moves().len() < plies && !game.is_over() {
            let mv = match R::forced_move(game.board()) {
                Some(forced) => forced,
                None => {
                    let moves = R::legal_moves(game.board());
                    moves[rng.gen_range(0..moves.len())]
                }
            };
            game.try_play(mv).expect("moves are drawn from the legal set");
        }
        game
    };
    let mut game = draw();
    for _ in 1..OPENING_DRAWS {
        if !game.is_over() {
            break;
        }
        game = draw();
    }
    game
}

/// The most random openings drawn for one game before giving up on one that leaves a
/// game to play.
pub const OPENING_DRAWS: usize = 1000;

/// Plays `game` (typically a random opening) to the end. Forced moves (Othello's
/// passes) are played without asking anyone. Every move after the opening is logged.
/// A player that forfeits ends the game at once, logged as a `forfeit` record and lost
/// by that side (scored as [`Rules::FORFEIT_MARGIN`], a wipeout in Othello). When `ctx.stop` is set the
/// game ends before its next move with [`GameError::Stopped`], logged as a
/// `game_stopped` record.
pub async fn play_game<R: ModelGame>(
    game: Line<R>,
    players: ByColor<&mut dyn Player<R>>,
    ctx: GameContext<'_, R>,
) -> Result<GameRecord<R>, GameError> {
    let span = tracing::debug_span!("game", id = ctx.log.game());
    play_moves(game, players, ctx).instrument(span).await
}

/// Ends the game at `ply`, logged as stopped, when the run was asked to stop.
fn stop_if_asked<R: ModelGame>(ctx: &GameContext<'_, R>, ply: usize) -> Result<(), GameError> {
    if !ctx.stop.is_some_and(|stop| stop.load(Ordering::Relaxed)) {
        return Ok(());
    }
    ctx.log.stopped(ply, ctx.stop_reason)?;
    Err(GameError::Stopped { ply })
}

/// What the side to move does at `ply`: a forced pass is played without asking anyone;
/// else the player acts.
async fn next_action<R: ModelGame>(
    board: &R::Position,
    player: &mut dyn Player<R>,
    move_ctx: MoveContext<'_>,
    stop_reason: StopReason,
) -> Result<Action<R>, GameError> {
    if let Some(forced) = R::forced_move(board) {
        return Ok(Action::Move(Played {
            mv: forced,
            source: MoveSource::ForcedPass,
            agent: None,
        }));
    }
    let (ply, log) = (move_ctx.ply, move_ctx.log);
    match player.act(board, move_ctx).await {
        Ok(action) => Ok(action),
        Err(PlayError::Stopped) => {
            log.stopped(ply, stop_reason)?;
            Err(GameError::Stopped { ply })
        }
        Err(source) => Err(GameError::Player {
            player: player.name(),
            ply,
            source,
        }),
    }
}

async fn play_moves<R: ModelGame>(
    mut game: Line<R>,
    mut players: ByColor<&mut dyn Player<R>>,
    mut ctx: GameContext<'_, R>,
) -> Result<GameRecord<R>, GameError> {
    let opening_plies = game.moves().len();
    let mut plies = Vec::new();
    // Every game's rules end it (Othello: at most 60 placements and never two passes
    // in a row).
    while !game.is_over() {
        let board = *game.board();
        let color = R::to_move(&board);
        let ply = game.moves().len() + 1;
        stop_if_asked(&ctx, ply)?;
        let player = &mut *players[color];
        player.follow(&game);
        let move_ctx = MoveContext { ply, log: ctx.log };
        let at = Ply { number: ply, color };
        let played = match next_action(&board, player, move_ctx, ctx.stop_reason).await? {
            Action::Move(played) => played,
            Action::Forfeit(agent) => {
                let forfeit = Forfeit {
                    color,
                    player: player.name(),
                    agent,
                };
                ctx.log.forfeit(at, &forfeit.player, &forfeit.agent)?;
                return Ok(GameRecord::forfeited(game, opening_plies, plies, forfeit));
            }
        };
        game.try_play(played.mv).map_err(|source| GameError::Illegal {
            player: player.name(),
            ply,
            source: Box::new(source),
        })?;
        ctx.log.ply::<R>(
            at,
            &player.name(),
            (played.mv, played.source),
            game.board(),
            played.agent.as_ref(),
        )?;
        if let Some(observe) = ctx.observer.as_mut() {
            observe(game.board(), played.mv);
        }
        plies.push(PlyRecord { color, played });
    }
    let disc_difference = R::margin(game.board());
    let outcome = R::outcome(game.board());
    Ok(GameRecord {
        game,
        opening_plies,
        plies,
        forfeit: None,
        outcome,
        disc_difference,
    })
}

impl<R: ModelGame> GameRecord<R> {
    /// The game as the reports see it, numbered `number`, between `players` (the same
    /// summary its log gives: [`GameSummary::from_log`]).
    pub fn summary(&self, number: usize, players: ByColor<&PlayerSpec<R>>) -> GameSummary {
        let mut agents: ByColor<AgentStats> = ByColor::default();
        for (color, decision) in self.agent_decisions() {
            agents[color].add(decision);
        }
        GameSummary {
            number,
            players: ByColor {
                black: players.black.to_string(),
                white: players.white.to_string(),
            },
            kinds: ByColor {
                black: players.black.kind(),
                white: players.white.kind(),
            },
            opening: self.game.moves()[..self.opening_plies]
                .iter()
                .map(ToString::to_string)
                .collect(),
            black_margin: Some(self.disc_difference),
            forfeit: self.forfeit.as_ref().map(|f| f.color),
            agents,
        }
    }

    /// A game that ended when `forfeit.color` forfeited in `game`'s last position: the
    /// opponent wins by [`Rules::FORFEIT_MARGIN`].
    pub fn forfeited(game: Line<R>, opening_plies: usize, plies: Vec<PlyRecord<R>>, forfeit: Forfeit) -> GameRecord<R> {
        GameRecord {
            game,
            opening_plies,
            plies,
            outcome: Outcome::Win(!forfeit.color),
            disc_difference: R::forfeit_margin(forfeit.color),
            forfeit: Some(forfeit),
        }
    }

    /// Every decision of an LLM player in the game, with its side: the moves', then the
    /// forfeiting one, if any (what the agent statistics count).
    pub fn agent_decisions(&self) -> impl Iterator<Item = (Color, &AgentDecision)> {
        let moves = self
            .plies
            .iter()
            .filter_map(|ply| ply.played.agent.as_ref().map(|agent| (ply.color, agent)));
        moves.chain(self.forfeit.iter().map(|f| (f.color, &f.agent)))
    }

    /// Disc difference from `color`'s view.
    pub fn margin_for(&self, color: Color) -> i32 {
        match color {
            Color::Black => self.disc_difference,
            Color::White => -self.disc_difference,
        }
    }
}
