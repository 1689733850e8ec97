//! The games: their shared vocabulary, the [`Rules`] trait (rules only), Othello on
//! bitboards with its notation and perft, and marubatsu. Pure and synchronous: no I/O,
//! no async runtime.
//!
//! Crate map of the workspace (dependencies point down):
//! - `game` (this crate): colours, by-colour pairs, outcomes, grid squares, the rules;
//! - `engines`: every classical player of both games, the exact solver, the pattern
//!   evaluation and its lab (training, accuracy, wipeouts, self-play labelling);
//! - `llm`: chat backends (Ollama, OpenAI-compatible), retry, the fleet of hosts;
//! - `protocol`: GTP and NBoard lines and GGF games, as values (external engines);
//! - `stats`: pure statistics: the Elo curve, intervals, the W/D/L tally, Bradley-Terry
//!   ratings with bootstrap, sequential stopping (GSPRT, pentanomial), the sign test;
//! - `record`: the JSONL log format (the wire specification) and its one writer; no
//!   HTTP client;
//! - `settings`: the agent's settings (flags, agent files, ranges, defaults, run.json's
//!   form), prompts, the position text the model reads; no HTTP client;
//! - `agent`: the LLM player: tools, model-facing text, the conversation loop, answer
//!   reading;
//! - `runs`: run folders and their typed files, reading logs, replay, export, the
//!   tally of a game, leaderboards and the report;
//! - `arena`: playing: plans, players (engines, LLMs, external engine processes),
//!   openings, the game loop, one run lifecycle, resume, move scoring;
//! - the `othello-arena` binary: the command line and the web face.

#![deny(missing_docs)]

/// The checked steps of a board's three-step ladder, written once for every game's
/// `Board` (its `is_legal`, `legal_moves`, `is_game_over`, `side_to_move()` and
/// `play_unchecked`, and an `IllegalMove` with `mv`, `side`, `legal` and `game_over`).
macro_rules! checked_play {
    () => {
        /// The position after `mv`, or an error naming the move and the legal ones.
        pub fn try_play(&self, mv: Move) -> Result<Board, IllegalMove> {
            if self.is_legal(mv) {
                Ok(self.play_unchecked(mv))
            } else {
                Err(IllegalMove {
                    mv,
                    side: self.side_to_move(),
                    legal: self.legal_moves(),
                    game_over: self.is_game_over(),
                })
            }
        }

        /// The position after `mv`; panics when `mv` is illegal (tests and trusted input).
        #[must_use]
        pub fn play(&self, mv: Move) -> Board {
            match self.try_play(mv) {
                Ok(board) => board,
                Err(err) => panic!("{err}"),
            }
        }
    };
}

pub mod marubatsu;
pub mod othello;
mod rules;
mod seed;

pub use marubatsu::Marubatsu;
pub use othello::{Bitboard, ByColor, Color, Othello, Outcome, Square};
pub use rules::{check_opening, parse_move, BoardView, Game, Line, Rules};
pub use seed::derive_seed;
