//! The one writer of a game's log: every line a game's log holds is built here, whoever
//! writes it (the game loop its start, moves, forfeit, stop and end; the agent its
//! exchanges), so the shape of a line is written once.

use game::othello::{ByColor, Color, Outcome};
use game::{Line, Rules};

use super::{
    AgentDecision, EngineId, Event, ExchangeRecord, Exchanged, ForfeitRecord, GameEnd, GameLog, GameStart, GameStopped,
    HintRecord, LogError, MoveRecord, MoveSource, Notation, PlayerKind, PlayerKinds, Squares, StopReason,
    ToolCallRecord,
};

/// A ply and the side deciding it: where an exchange, a move or a forfeit belongs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ply {
    /// The ply's number (from 1, opening moves included).
    pub number: usize,
    /// The side to move.
    pub color: Color,
}

/// Writes the lines of game number `game` to its log, or nowhere when the game is not
/// logged (a probe without a log, a test).
#[derive(Clone, Copy, Debug)]
pub struct GameWriter<'a> {
    log: Option<&'a GameLog>,
    game: usize,
}

impl<'a> GameWriter<'a> {
    /// The writer of game `game` into `log` (nowhere when `None`).
    pub fn new(log: Option<&'a GameLog>, game: usize) -> GameWriter<'a> {
        GameWriter { log, game }
    }

    /// The game's number in its run.
    pub fn game(&self) -> usize {
        self.game
    }

    /// The log file's path, when the game is logged (files that belong to the game,
    /// such as an external engine's stderr, go beside it).
    pub fn log_path(&self) -> Option<&std::path::Path> {
        self.log.map(GameLog::path)
    }

    fn write(&self, event: impl FnOnce(usize) -> Event) -> Result<(), LogError> {
        match self.log {
            Some(log) => log.write(event(self.game)),
            None => Ok(()),
        }
    }

    /// `game_start`: the players (`names`, `kinds`, and `engines` as external engines
    /// named themselves), the start position and the opening's moves of `opening`, and
    /// the game's seed.
    pub fn start<R: Rules>(
        &self,
        opening: &Line<R>,
        suite_opening: Option<&str>,
        names: ByColor<&str>,
        kinds: ByColor<PlayerKind>,
        engines: ByColor<Option<EngineId>>,
        seed: u64,
    ) -> Result<(), LogError> {
        self.write(|game| {
            Event::GameStart(GameStart {
                game,
                black: names.black.to_string(),
                white: names.white.to_string(),
                start_board: Squares::of::<R>(opening.start()),
                start_to_move: Some(R::to_move(opening.start())).filter(|&c| c == Color::White),
                opening: opening.moves().iter().map(|&mv| Notation::of::<R>(mv)).collect(),
                suite_opening: suite_opening.map(str::to_string),
                seed,
                kinds: Some(PlayerKinds {
                    black: kinds.black,
                    white: kinds.white,
                }),
                rules: GameStart::rules_of::<R>(),
                black_engine: engines.black,
                white_engine: engines.white,
            })
        })
    }

    /// `exchange`: one round trip with the model, in session `session`, turn `turn` of
    /// the decision at `at`, with both bodies as sent and received, and the
    /// `feedback_reason` when the request's last message told the model why its previous
    /// answer did not count.
    pub fn exchange(
        &self,
        at: Ply,
        (session, turn): (u32, u32),
        exchange: Exchanged,
        feedback_reason: Option<&str>,
    ) -> Result<(), LogError> {
        let Some(log) = self.log else { return Ok(()) };
        log.write_exchange(ExchangeRecord {
            game: self.game,
            ply: at.number,
            color: at.color,
            session,
            turn,
            latency_ms: exchange.latency_ms,
            retries: exchange.retries,
            host: Some(exchange.host),
            failures: exchange.failures,
            finish_reason: exchange.finish_reason,
            answered_by: exchange.answered_by,
            feedback_reason: feedback_reason.map(str::to_string),
            server: exchange.server,
            omitted_messages: None,
            request: exchange.request,
            response: exchange.response,
        })
    }

    /// `move`: `player` played `mv` at `at` (from `source`, with the agent's account
    /// for an LLM player), leaving `board_after`.
    pub fn ply<R: Rules>(
        &self,
        at: Ply,
        player: &str,
        (mv, source): (R::Move, MoveSource),
        board_after: &R::Position,
        agent: Option<&AgentDecision>,
    ) -> Result<(), LogError> {
        self.write(|game| {
            Event::Move(MoveRecord {
                game,
                ply: at.number,
                color: at.color,
                player: player.to_string(),
                mv: Notation::of::<R>(mv),
                source,
                board_after: Squares::of::<R>(board_after),
                agent: agent.cloned(),
            })
        })
    }

    /// `forfeit`: `player`'s agent gave no move at `at`, and the game ends.
    pub fn forfeit(&self, at: Ply, player: &str, agent: &AgentDecision) -> Result<(), LogError> {
        self.write(|game| {
            Event::Forfeit(ForfeitRecord {
                game,
                ply: at.number,
                color: at.color,
                player: player.to_string(),
                agent: agent.clone(),
            })
        })
    }

    /// `hint`: the values `hint` gives the legal moves at its ply, shown to a person
    /// before they moved.
    pub fn hint(&self, hint: &HintRecord) -> Result<(), LogError> {
        self.write(|game| Event::Hint(HintRecord { game, ..hint.clone() }))
    }

    /// `tool_call`: `player`, at `at`, called `tool` with `arguments` and got `result`
    /// (an error when `is_error`).
    pub fn tool_call(
        &self,
        at: Ply,
        player: &str,
        (tool, arguments): (&str, &serde_json::Value),
        (result, is_error): (&serde_json::Value, bool),
    ) -> Result<(), LogError> {
        self.write(|game| {
            Event::ToolCall(ToolCallRecord {
                game,
                ply: at.number,
                color: at.color,
                player: player.to_string(),
                tool: tool.to_string(),
                arguments: arguments.clone(),
                result: result.clone(),
                is_error,
            })
        })
    }

    /// `game_stopped`: the run stopped before `ply` was played.
    pub fn stopped(&self, ply: usize, reason: StopReason) -> Result<(), LogError> {
        self.write(|game| Event::GameStopped(GameStopped { game, ply, reason }))
    }

    /// `game_end`: the pieces on `line`'s board, the result, every move; black's
    /// `margin` is written only where the record does not imply it (a forfeit by
    /// `forfeited` implies a wipeout, else the disc difference).
    pub fn end<R: Rules>(
        &self,
        line: &Line<R>,
        winner: Outcome,
        margin: i32,
        forfeited: Option<Color>,
    ) -> Result<(), LogError> {
        let pieces = R::pieces(line.board());
        self.write(|game| {
            Event::GameEnd(GameEnd {
                game,
                black_discs: pieces.black,
                white_discs: pieces.white,
                margin: (margin != GameEnd::implied_margin(pieces.black, pieces.white, forfeited)).then_some(margin),
                winner,
                moves: line.moves().iter().map(|&mv| Notation::of::<R>(mv)).collect(),
            })
        })
    }
}
