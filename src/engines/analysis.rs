//! What `analyze` and `solve` report about one position: an engine's decision with
//! its time ([`Analysis`]), and the exact solution ([`Solved`]), each with its text;
//! and the positions the solver refuses ([`Unsolvable`]).

use std::fmt::Write as _;
use std::time::Instant;

use game::othello::{Board, Color, IllegalMove, Move, Outcome, ParseBoardError, ParseSquareError};
use serde::Serialize;

use crate::solver::{Solution, Solver};
use crate::{Decision, Engine, EngineError, EngineSpec};

/// An engine's decision on a position, as `analyze` reports it.
#[derive(Clone, Debug, Serialize)]
pub struct Analysis {
    /// The decision (its keys are the JSON's).
    #[serde(flatten)]
    pub decision: Decision,
    /// Milliseconds it took.
    pub ms: f64,
}

/// A value with at most three decimals and no trailing zeros.
fn format_value(value: f64) -> String {
    let text = format!("{value:.3}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// A position `--board`, `--side` and `--moves` do not give.
#[derive(Debug, thiserror::Error)]
pub enum PositionFlagsError {
    /// `--board` is not 64 squares.
    #[error("bad --board")]
    Board(#[source] ParseBoardError),
    /// A move of `--moves` is not a square (nor `pass`).
    #[error("bad --moves: move {number} {text:?}")]
    Move {
        /// Its number, from 1.
        number: usize,
        /// The move as given.
        text: String,
        /// Why.
        #[source]
        source: ParseSquareError,
    },
    /// A move of `--moves` is not legal where it is played.
    #[error("bad --moves: move {number} {text:?}")]
    Illegal {
        /// Its number, from 1.
        number: usize,
        /// The move as given.
        text: String,
        /// Why.
        #[source]
        source: IllegalMove,
    },
}

/// The position `analyze`, `solve` and `perft` work on: `board` (64 squares, `side` to
/// move; none: the start with `side` to move), then each move of `moves` (split at
/// whitespace) played in turn.
pub fn position_from_flags(board: Option<&str>, side: Color, moves: Option<&str>) -> Result<Board, PositionFlagsError> {
    let mut position = match board {
        None => Board::new().with_side_to_move(side),
        Some(text) => Board::parse_squares(text, side).map_err(PositionFlagsError::Board)?,
    };
    for (i, text) in moves.unwrap_or_default().split_whitespace().enumerate() {
        let (number, text) = (i + 1, text.to_string());
        let mv: Move = match text.parse() {
            Ok(mv) => mv,
            Err(source) => return Err(PositionFlagsError::Move { number, text, source }),
        };
        position = position
            .try_play(mv)
            .map_err(|source| PositionFlagsError::Illegal { number, text, source })?;
    }
    Ok(position)
}

/// A position or engine `analyze` cannot analyse.
#[derive(Debug, thiserror::Error)]
pub enum AnalyzeError {
    /// A person at the terminal.
    #[error("bad --engine: human cannot be analysed; choose an engine such as n-hand:3 or search")]
    Human,
    /// Neither side can move.
    #[error("the game is over in this position: give a --board where a side can move")]
    GameOver,
    /// The engine failed.
    #[error(transparent)]
    Engine(#[from] EngineError),
}

impl Analysis {
    /// The decision of the engine `spec` builds (seeded by `seed`) on `board`, timed,
    /// with the engine's name: an engine that answers by itself, in a position where a
    /// side can move.
    pub fn of(spec: &EngineSpec, board: &Board, seed: u64) -> Result<(Analysis, String), AnalyzeError> {
        if *spec == EngineSpec::Human {
            return Err(AnalyzeError::Human);
        }
        if board.is_game_over() {
            return Err(AnalyzeError::GameOver);
        }
        let mut engine = spec.build(seed);
        let analysis = Analysis::run(&mut *engine, board)?;
        Ok((analysis, engine.name()))
    }

    /// `engine`'s decision on `board`, timed.
    pub fn run(engine: &mut dyn Engine, board: &Board) -> Result<Analysis, EngineError> {
        let start = Instant::now();
        let decision = engine.choose(board)?;
        Ok(Analysis {
            decision,
            ms: start.elapsed().as_secs_f64() * 1000.0,
        })
    }

    /// `analyze --json`: the decision's keys and `ms`, sorted.
    pub fn to_json(&self) -> String {
        serde_json::to_value(self).map(|v| v.to_string()).unwrap_or_default()
    }

    /// The board, then the engine (`engine`), its move, score, nodes and time, and each
    /// candidate's value.
    pub fn text(&self, board: &Board, engine: &str) -> String {
        let d = &self.decision;
        let mut out = format!("{board}\n\nengine:  {engine}\nmove:    {}\n", d.mv);
        let _ = match d.score {
            Some(score) => writeln!(out, "score:   {score}"),
            None => writeln!(out, "score:   (this engine gives none)"),
        };
        let _ = writeln!(out, "nodes:   {}\nms:      {:.3}", d.nodes, self.ms);
        if !d.candidates.is_empty() {
            out.push_str("candidates:\n");
            for c in &d.candidates {
                let mark = if Move::Place(c.square) == d.mv {
                    "  <- chosen"
                } else {
                    ""
                };
                let _ = writeln!(out, "  {}: {}{mark}", c.square, format_value(c.value));
            }
        }
        out
    }
}

/// A position `solve` refuses.
#[derive(Debug, thiserror::Error)]
pub enum Unsolvable {
    /// Neither side can move.
    #[error(
        "the game is over in this position: black {black}, white {white} ({result}); there is nothing to \
         solve: give a --board or --moves where a side can move"
    )]
    GameOver {
        /// Black's discs.
        black: u32,
        /// White's.
        white: u32,
        /// Who won by how much, or a draw.
        result: String,
    },
    /// Too many empties to solve here.
    #[error("{0} empty squares is too many to solve exactly here: give a position with at most {MAX_SOLVE_EMPTIES}")]
    TooManyEmpties(u32),
}

/// The most empty squares `solve` takes.
pub const MAX_SOLVE_EMPTIES: u32 = 30;

/// Whether `solve` takes `board`: a side can move, and at most [`MAX_SOLVE_EMPTIES`]
/// squares are empty.
pub fn check_solvable(board: &Board) -> Result<(), Unsolvable> {
    if board.is_game_over() {
        let (black, white) = (board.count(Color::Black), board.count(Color::White));
        let result = match board.leader() {
            Outcome::Win(winner) => format!("{winner} wins by {}", black.abs_diff(white)),
            Outcome::Draw => "a draw".to_string(),
        };
        return Err(Unsolvable::GameOver { black, white, result });
    }
    if board.empties() > MAX_SOLVE_EMPTIES {
        return Err(Unsolvable::TooManyEmpties(board.empties()));
    }
    Ok(())
}

/// A position solved exactly, as `solve` reports it.
#[derive(Clone, Debug)]
pub struct Solved {
    /// The solution.
    pub solution: Solution,
    /// Milliseconds it took.
    pub ms: f64,
}

/// `solve --json`'s keys, sorted.
#[derive(Serialize)]
struct SolvedJson {
    best_moves: Vec<String>,
    ms: f64,
    nodes: u64,
    score: i32,
}

impl Solved {
    /// `solver`'s exact solution of `board`, timed.
    pub fn run(solver: &mut Solver, board: &Board) -> Solved {
        let start = Instant::now();
        let solution = solver.solve(board);
        Solved {
            solution,
            ms: start.elapsed().as_secs_f64() * 1000.0,
        }
    }

    fn best(&self) -> Vec<String> {
        self.solution.best_moves.iter().map(ToString::to_string).collect()
    }

    /// `solve --json`: the best moves, the score, nodes and milliseconds.
    pub fn to_json(&self) -> String {
        serde_json::to_string(&SolvedJson {
            best_moves: self.best(),
            ms: self.ms,
            nodes: self.solution.nodes,
            score: self.solution.score,
        })
        .unwrap_or_default()
    }

    /// The board, then the best moves, the score for the side to move, nodes and time.
    pub fn text(&self, board: &Board) -> String {
        let best = self.best();
        let s = &self.solution;
        format!(
            "{board}\n\nbest moves: {}\nscore:      {:+} (final disc difference for {}, empties to the winner)\nnodes:      {}\nms:         {:.1} ({:.2e} nodes/s)\n",
            if best.is_empty() {
                "(none: the side to move must pass)".to_string()
            } else {
                best.join(", ")
            },
            s.score,
            board.side_to_move(),
            s.nodes,
            self.ms,
            s.nodes as f64 / (self.ms / 1000.0).max(1e-9)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::EngineSpec;

    #[test]
    fn analyze_and_solve_print_what_they_always_printed() {
        let board = Board::new();
        let mut engine = EngineSpec::Greedy.build(1);
        let analysis = Analysis::run(&mut *engine, &board).unwrap();
        let json: serde_json::Value = serde_json::from_str(&analysis.to_json()).unwrap();
        let keys: Vec<&String> = json.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["candidates", "move", "ms", "nodes", "score", "unit"]);
        assert!(analysis
            .text(&board, "greedy")
            .contains("\n\nengine:  greedy\nmove:    "));

        let ended = Board::parse_squares(&format!("{}{}", "X".repeat(40), "O".repeat(24)), Color::Black).unwrap();
        assert_eq!(
            check_solvable(&ended).unwrap_err().to_string(),
            "the game is over in this position: black 40, white 24 (black wins by 16); there is nothing to \
             solve: give a --board or --moves where a side can move"
        );
        assert!(matches!(check_solvable(&board), Err(Unsolvable::TooManyEmpties(60))));
        assert_eq!(format_value(2.500), "2.5");
    }

    /// A position is the board given (or the start), then the moves, each refusal
    /// naming the flag and the move.
    #[test]
    fn a_position_is_the_board_then_the_moves() {
        let board = position_from_flags(None, Color::Black, Some("f5 d6  c3")).unwrap();
        assert_eq!(board.empties(), 57);
        let bad = position_from_flags(None, Color::Black, Some("f5 z9")).unwrap_err();
        assert_eq!(bad.to_string(), "bad --moves: move 2 \"z9\"");
        let illegal = position_from_flags(None, Color::Black, Some("a1")).unwrap_err();
        assert!(
            matches!(illegal, PositionFlagsError::Illegal { number: 1, .. }),
            "{illegal}"
        );
        let short = position_from_flags(Some("X"), Color::Black, None).unwrap_err();
        assert_eq!(short.to_string(), "bad --board");
    }

    /// `analyze` asks an engine that answers by itself, in a position where a side can
    /// move.
    #[test]
    fn analyze_refuses_a_person_and_a_finished_game() {
        let board = Board::new();
        let (_, name) = Analysis::of(&EngineSpec::Greedy, &board, 1).unwrap();
        assert_eq!(name, "greedy");
        assert!(matches!(
            Analysis::of(&EngineSpec::Human, &board, 1),
            Err(AnalyzeError::Human)
        ));
        let ended = Board::parse_squares(&format!("{}{}", "X".repeat(40), "O".repeat(24)), Color::Black).unwrap();
        assert!(matches!(
            Analysis::of(&EngineSpec::Greedy, &ended, 1),
            Err(AnalyzeError::GameOver)
        ));
    }
}
