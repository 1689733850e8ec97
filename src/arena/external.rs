//! External engines as players: an engine process (Edax, Egaroucid, `othello-arena
//! engine`) speaking GTP or NBoard, one process per game in flight and at most the
//! engine's `max_in_flight` at once. Its table (`[[engine]]` in a tournament file or
//! an `--engines` file) is a `runs::EngineTable`; checked, it is an [`ExternalEngine`]
//! (module `external_engine`), a player spec whose name is `ext:NAME` with its
//! strength (`ext:edax@d4`, `ext:edax@t1s`). The process client is in `engine_process`.
//!
//! A game's process is started before its `game_start` (which records the engine's
//! handshake), given the game's moves before each of its turns, and asked to quit when
//! the game ends, its whole process group ended after it (killed if the player is
//! dropped instead). A crash, a hang past the table's `timeout`, an over-long line, or
//! an unreadable or illegal answer ends the game as a harness failure
//! ([`ExternalError`], naming the engine and its last stderr lines, whose tail is kept
//! beside the game's log as `engine-NAME-game-NNNN.stderr`): the game is never scored,
//! and a resume plays it again. In a run, the run's stop abandons the answer awaited
//! (the game stops, to be played again) and a failed game the wait for a process slot.

use std::path::PathBuf;

use agent::{Action, ModelGame, MoveContext, Played};
use engines::MoveScores;
use game::othello::{Board, Color, Move};
use game::{Line, Rules};
use protocol::Protocol;
use record::{EngineId, GameWriter, MoveSource};

use super::engine_process::{Driver, ExternalError, Halt};
use super::external_engine::ExternalEngine;
use super::player::{PlayError, Player};

impl ExternalEngine {
    /// Starts the engine once and checks its handshake, before a run plays (so a bad
    /// command fails at once, and run.json records what the engine said it is).
    pub async fn identify(&self) -> Result<EngineId, ExternalError> {
        if let Some(id) = self.identity() {
            return Ok(id.clone());
        }
        let driver = Driver::start(self, None, Halt::default()).await?;
        let id = driver.id().clone();
        driver.quit().await;
        Ok(self.keep_identity(id))
    }

    /// A player of one game: its process starts when the game is ready.
    pub fn player(&self) -> ExternalPlayer {
        self.player_in_run(Halt::default())
    }

    /// A player of one game of a run, its waits ended early by `halt`.
    pub(crate) fn player_in_run(&self, halt: Halt) -> ExternalPlayer {
        ExternalPlayer {
            engine: self.clone(),
            halt,
            driver: None,
            game: None,
        }
    }
}

/// An external engine as the move-quality reference: every legal move valued by the
/// engine's NBoard `hint`, read in discs for the side to move (Edax's and our
/// engines' scale). Synchronous, for the scorer's worker threads: each clone drives
/// one engine process of its own on a runtime of its own, both started with its
/// first position.
pub struct ExternalScorer {
    engine: ExternalEngine,
    stderr_file: Option<PathBuf>,
    runtime: Option<tokio::runtime::Runtime>,
    driver: Option<Driver>,
}

impl Clone for ExternalScorer {
    /// The same engine and stderr file, with no process yet.
    fn clone(&self) -> ExternalScorer {
        ExternalScorer {
            engine: self.engine.clone(),
            stderr_file: self.stderr_file.clone(),
            runtime: None,
            driver: None,
        }
    }
}

impl ExternalScorer {
    /// A scorer by `engine`, which must speak NBoard (GTP gives no move values), its
    /// processes' stderr appended to `stderr_file`.
    pub fn new(engine: &ExternalEngine, stderr_file: Option<PathBuf>) -> Result<ExternalScorer, ExternalError> {
        if engine.protocol() != Protocol::Nboard {
            return Err(ExternalError::Unplayable {
                engine: engine.table().name.clone(),
                reason: "a move-quality reference must value every move, which only NBoard's hint does: give its [[engine]] protocol = \"nboard\"".to_string(),
            });
        }
        Ok(ExternalScorer {
            engine: engine.clone(),
            stderr_file,
            runtime: None,
            driver: None,
        })
    }

    /// Every legal move of `position` (at ply `ply` of its game, for errors) with the
    /// engine's value; exact when the engine wrote a depth of at least the empties.
    /// After a failure the process is gone; the next position starts another.
    pub fn score<R: Rules>(&mut self, position: &R::Position, ply: usize) -> Result<MoveScores, ExternalError> {
        let board = othello_board::<R>(position)?;
        if self.runtime.is_none() {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .map_err(|source| ExternalError::Spawn {
                    engine: self.engine.table().name.clone(),
                    command: "(the scorer's own runtime)".to_string(),
                    source,
                })?;
            self.runtime = Some(runtime);
        }
        let runtime = self.runtime.as_ref().expect("the runtime was just built");
        let (engine, file, driver) = (&self.engine, &self.stderr_file, &mut self.driver);
        let values = runtime.block_on(async {
            if driver.is_none() {
                *driver = Some(Driver::start(engine, file.clone(), Halt::default()).await?);
            }
            let running = driver.as_mut().expect("the driver was just started");
            let values = running.hint(&board, ply).await;
            if values.is_err() {
                *driver = None;
            }
            values
        })?;
        let depth = values
            .iter()
            .map(|(_, _, depth)| depth.parse::<u32>().unwrap_or(0))
            .min()
            .unwrap_or(0);
        Ok(MoveScores {
            scores: values.into_iter().map(|(square, value, _)| (square, value)).collect(),
            exact: depth >= board.empties(),
            depth,
        })
    }
}

impl Drop for ExternalScorer {
    /// Asks the engine process to quit (it is killed if it does not).
    fn drop(&mut self) {
        if let (Some(runtime), Some(driver)) = (&self.runtime, self.driver.take()) {
            runtime.block_on(driver.quit());
        }
    }
}

/// An external engine in one game.
pub struct ExternalPlayer {
    engine: ExternalEngine,
    halt: Halt,
    driver: Option<Driver>,
    /// The game so far (start and moves), as the last [`Player::follow`] gave it.
    game: Option<(Board, Vec<Move>)>,
}

/// Game `R`'s position as an Othello board, or why external engines cannot play it.
fn othello_board<R: Rules>(position: &R::Position) -> Result<Board, ExternalError> {
    Board::parse_squares(&R::to_squares(position), R::to_move(position)).map_err(|_| ExternalError::NotOthello {
        game: R::NAME.to_string(),
    })
}

fn othello_move<R: Rules>(mv: R::Move) -> Move {
    R::coordinate(mv).map_or(Move::Pass, Move::Place)
}

impl ExternalPlayer {
    async fn driver(&mut self, log: GameWriter<'_>) -> Result<&mut Driver, ExternalError> {
        if self.driver.is_none() {
            let stderr = log.log_path().map(|path| {
                let file = format!("engine-{}-game-{:04}.stderr", self.engine.table().name, log.game());
                path.with_file_name(file)
            });
            self.driver = Some(Driver::start(&self.engine, stderr, self.halt.clone()).await?);
        }
        Ok(self.driver.as_mut().expect("the driver was just started"))
    }
}

#[async_trait::async_trait]
impl<R: ModelGame> Player<R> for ExternalPlayer {
    fn name(&self) -> String {
        self.engine.name()
    }

    async fn ready(&mut self, log: GameWriter<'_>) -> Result<Option<EngineId>, PlayError> {
        Ok(Some(self.driver(log).await?.id().clone()))
    }

    async fn done(&mut self) {
        if let Some(driver) = self.driver.take() {
            driver.quit().await;
        }
    }

    fn follow(&mut self, game: &Line<R>) {
        self.game = othello_board::<R>(game.start())
            .ok()
            .map(|start| (start, game.moves().iter().copied().map(othello_move::<R>).collect()));
    }

    async fn act(&mut self, position: &R::Position, ctx: MoveContext<'_>) -> Result<Action<R>, PlayError> {
        let board = othello_board::<R>(position)?;
        // A position given without its game (a probe's) is a game of no moves.
        let (start, moves) = match self.game.take() {
            Some((start, moves)) if moves.iter().try_fold(start, |b, &m| b.try_play(m)).ok() == Some(board) => {
                (start, moves)
            }
            _ => (board, Vec::new()),
        };
        let color: Color = board.side_to_move();
        let driver = self.driver(ctx.log).await?;
        let mv = driver.genmove(&start, &moves, color, ctx.ply).await?;
        let square = match mv {
            Move::Place(square) if board.is_legal(mv) => square,
            _ => return Err(driver.illegal(mv, ctx.ply, &board).await.into()),
        };
        let mv = R::at_coordinate(square).ok_or_else(|| ExternalError::NotOthello {
            game: R::NAME.to_string(),
        })?;
        Ok(Action::Move(Played {
            mv,
            source: MoveSource::Engine,
            agent: None,
        }))
    }
}
