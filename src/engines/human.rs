//! `human`: a person typing moves such as `d3`.

use std::io::{BufRead, Write};

use super::{Decision, Engine, EngineError};
use game::othello::{Board, Move, Square};

/// Reads moves from `input`, prompting on `output`, until a legal one arrives.
pub struct Human<R, W> {
    input: R,
    output: W,
}

impl<R: BufRead + Send, W: Write + Send> Human<R, W> {
    /// A player reading from `input` and prompting on `output`.
    pub fn new(input: R, output: W) -> Self {
        Human { input, output }
    }
}

impl<R: BufRead + Send, W: Write + Send> Engine for Human<R, W> {
    fn name(&self) -> String {
        "human".to_string()
    }

    fn decide(&mut self, board: &Board) -> Result<Decision, EngineError> {
        let legal = board.legal_moves();
        loop {
            write!(
                self.output,
                "{} to move, legal moves [{legal}]; your move (e.g. d3): ",
                board.side_to_move()
            )?;
            self.output.flush()?;
            let mut line = String::new();
            if self.input.read_line(&mut line)? == 0 {
                return Err(EngineError::InputClosed);
            }
            match line.trim().parse::<Square>() {
                Ok(sq) if legal.contains(sq) => return Ok(Decision::bare(Move::Place(sq))),
                Ok(sq) => writeln!(self.output, "{sq} is not legal here; choose one of [{legal}]")?,
                Err(err) => writeln!(self.output, "{err}")?,
            }
        }
    }
}
