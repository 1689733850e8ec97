//! The NBoard side of the server: `set game`, `move`, `go`, `hint`, answered as Edax
//! answers them, refusals as `Error: ...` lines.
//!
//! The session starts at the standard position. A `set game` that is refused (a record
//! that does not parse, or whose moves are illegal), or a line refused unread (which
//! may have been one), leaves it with no position, so a later `go` or `hint` is
//! refused rather than answered for an older game.

use engines::EngineSpec;
use game::othello::{Board, Move};

use super::{Answer, ServeError, Served, Session};
use crate::lines::LineError;
use crate::nboard::{self, Command as C, ParseCommandError, Reply as R};

/// Why `go`, `hint` and `move` are refused after a refused `set game`.
const NO_POSITION: &str =
    "no position: the last set game was refused; send set game with a GGF record this engine reads";

/// An NBoard session: the engine and the game's position, if any.
pub(super) struct NboardSession {
    served: Served,
    board: Option<Board>,
}

impl NboardSession {
    pub(super) fn new(served: Served) -> NboardSession {
        NboardSession {
            served,
            board: Some(Board::new()),
        }
    }

    /// The depth a `hint` line names: the reference's (the empties where it solves
    /// exactly, so a client reads its values as exact there), 0 for other engines.
    fn hint_depth(&self, board: &Board) -> u32 {
        match self.served.spec {
            EngineSpec::Reference { exact_empties, .. } if board.empties() <= exact_empties => board.empties(),
            EngineSpec::Reference { depth, .. } => depth,
            _ => 0,
        }
    }

    fn command(&mut self, command: C) -> Result<Answer, ServeError> {
        let answer = match command {
            C::Nboard(1) | C::Other(_) => Answer::default(),
            C::Nboard(version) => Answer::error(format!("expected \"nboard 1\" protocol, got nboard {version}")),
            C::SetDepth(depth) => self.set_depth(depth),
            C::SetGame(game) => match game.position() {
                Ok(board) => {
                    self.board = Some(board);
                    Answer::default()
                }
                Err(err) => {
                    self.board = None;
                    Answer::error(format!("cannot play game {game}: {err}; no position is held now"))
                }
            },
            C::Move(mv) => match self.board.map(|board| board.try_play(mv)) {
                None => Answer::error(format!("cannot play move {mv}: {NO_POSITION}")),
                Some(Ok(board)) => {
                    self.board = Some(board);
                    Answer::default()
                }
                Some(Err(err)) => Answer::error(format!("cannot play move {mv}: {err}")),
            },
            C::Go => match self.board {
                None => Answer::error(NO_POSITION.to_string()),
                Some(board) => self.go(&board)?,
            },
            C::Hint(n) => match self.board {
                None => Answer::error(NO_POSITION.to_string()),
                Some(board) => self.hint(&board, n)?,
            },
            C::Ping(n) => say(&[R::Pong(n)]),
            C::Quit => Answer {
                quit: true,
                ..Answer::default()
            },
        };
        Ok(answer)
    }

    /// `set depth`: the engine's name when `depth` is one NBoard names (the search
    /// stays as the spec sets it), a refusal otherwise.
    fn set_depth(&self, depth: u32) -> Answer {
        if (1..=nboard::MAX_DEPTH).contains(&depth) {
            return say(&[R::MyName(self.served.name.clone())]);
        }
        Answer::error(format!(
            "set depth {depth} refused: give a depth from 1 to {}; this engine plays {} at the depth its spec sets, whatever set depth says",
            nboard::MAX_DEPTH,
            self.served.spec
        ))
    }

    fn go(&mut self, board: &Board) -> Result<Answer, ServeError> {
        let started = std::time::Instant::now();
        let decision = self.served.think(board)?;
        let time = Some(started.elapsed().as_secs_f64());
        let eval = decision.score;
        let best = R::Best {
            mv: decision.mv,
            eval,
            time: eval.and(time),
        };
        Ok(say(&[thinking(), best, waiting()]))
    }

    fn hint(&mut self, board: &Board, n: u32) -> Result<Answer, ServeError> {
        let decision = self.served.think(board)?;
        let mut values: Vec<(Move, f64)> = if decision.candidates.is_empty() {
            vec![(decision.mv, decision.score.unwrap_or(0.0))]
        } else {
            decision
                .candidates
                .iter()
                .map(|c| (Move::Place(c.square), c.value))
                .collect()
        };
        values.sort_by(|a, b| b.1.total_cmp(&a.1));
        let depth = self.hint_depth(board).to_string();
        let mut replies = vec![thinking()];
        replies.extend(values.into_iter().take(n as usize).map(|(mv, eval)| R::Search {
            mv,
            eval,
            depth: depth.clone(),
        }));
        replies.push(waiting());
        Ok(say(&replies))
    }
}

fn thinking() -> R {
    R::Status("thinking".to_string())
}

fn waiting() -> R {
    R::Status("waiting".to_string())
}

/// Replies, one a line.
fn say(replies: &[R]) -> Answer {
    Answer::reply(replies.iter().map(|r| format!("{r}\n")).collect())
}

impl Session for NboardSession {
    fn answer(&mut self, line: &str) -> Result<Answer, ServeError> {
        match line.parse::<C>() {
            Ok(command) => self.command(command),
            Err(err @ ParseCommandError::Game(_)) => {
                self.board = None;
                Ok(Answer::error(format!("{err}; no position is held now")))
            }
            Err(err) => Ok(Answer::error(err.to_string())),
        }
    }

    /// A refused line may have been a `set game`, so no position is held after it.
    fn refuse(&mut self, err: &LineError) -> Answer {
        self.board = None;
        Answer::error(format!(
            "{err}; no position is held now, as the line may have been a set game"
        ))
    }
}
