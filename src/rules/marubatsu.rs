//! Marubatsu (seed 003's tic-tac-toe) through [`Rules`]: its rules and engines live in
//! `crate::marubatsu`.

use super::{GameEngine, Rules};
use crate::engine::{EngineError, MoveScores};
use crate::marubatsu::{Board, IllegalMove, MarubatsuEngine, MarubatsuSpec, Move, Perfect};
use crate::othello::{Bitboard, ByColor, Color, Outcome, Square, TextStyle};
use crate::tools::SimulateMark;

/// Marubatsu: 〇 (black, first) and × (white).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Marubatsu;

impl Rules for Marubatsu {
    const NAME: &'static str = "marubatsu";
    type Position = Board;
    type Move = Move;
    type Illegal = IllegalMove;
    type Spec = MarubatsuSpec;
    type Decision = Move;
    /// The earliest win is on the fifth move.
    const MAX_OPENING_PLIES: usize = 4;
    const DEFAULT_OPPONENTS: &'static str = "ai2,ai8s,perfect";
    const MARGIN: &'static str = "margin (win 1, loss -1)";
    /// A forfeit is a lost game, as any other.
    const FORFEIT_MARGIN: i32 = 1;

    fn start() -> Board {
        Board::new()
    }

    fn to_move(position: &Board) -> Color {
        position.side_to_move()
    }

    fn legal_moves(position: &Board) -> Vec<Move> {
        position.legal_moves().to_vec()
    }

    fn forced_move(_position: &Board) -> Option<Move> {
        None
    }

    fn play(position: &Board, mv: Move) -> Result<Board, IllegalMove> {
        position.try_play(mv)
    }

    fn is_over(position: &Board) -> bool {
        position.is_game_over()
    }

    fn outcome(position: &Board) -> Outcome {
        position.outcome().unwrap_or(Outcome::Draw)
    }

    fn margin(position: &Board) -> i32 {
        match position.winner() {
            Some(Color::Black) => 1,
            Some(Color::White) => -1,
            None => 0,
        }
    }

    fn pieces(position: &Board) -> ByColor<u32> {
        ByColor {
            black: position.marks(Color::Black).len() as u32,
            white: position.marks(Color::White).len() as u32,
        }
    }

    fn to_squares(position: &Board) -> String {
        position.to_squares_string()
    }

    const BLACK_MARK: char = 'O';

    fn parse_squares(text: &str, to_move: Color) -> Result<Board, String> {
        let board = Board::parse_squares(text).map_err(|e| e.to_string())?;
        if board.side_to_move() != to_move {
            return Err(format!(
                "the marks say {} is to move, not {to_move}",
                board.side_to_move()
            ));
        }
        Ok(board)
    }

    fn engine(spec: &MarubatsuSpec, seed: u64) -> Box<dyn GameEngine<Marubatsu>> {
        Box::new(Engine(spec.build(seed)))
    }

    fn is_human(_spec: &MarubatsuSpec) -> bool {
        false
    }

    fn decision_move(decision: &Move) -> Move {
        *decision
    }

    type Simulate = SimulateMark;

    fn simulate_tool(style: TextStyle) -> SimulateMark {
        SimulateMark { labels: style.labels }
    }

    /// The board with its marks (the side to move is named, so there is no relative
    /// rendering).
    fn model_text(position: &Board, style: TextStyle) -> String {
        position.to_text(style.labels)
    }

    fn side_name(color: Color) -> &'static str {
        match color {
            Color::Black => "O",
            Color::White => "X",
        }
    }

    /// a1..c3 are the top-left corner of the 8x8 grid.
    fn coordinate(mv: Move) -> Option<Square> {
        Square::from_row_col(mv.row(), mv.col())
    }

    fn at_coordinate(square: Square) -> Option<Move> {
        Move::from_row_col(square.row(), square.col())
    }

    fn empties(position: &Board) -> u32 {
        position.empties()
    }

    /// The perfect player needs no state: every score is exact.
    type Reference = ();

    fn reference(_exact_empties: u32, _depth: u32) {}

    /// The game value of each move (1 a win, 0 a draw, -1 a loss), solved exactly.
    fn score_moves(_reference: &mut (), position: &Board) -> MoveScores {
        MoveScores {
            scores: Perfect::score_moves(position)
                .into_iter()
                .filter_map(|(mv, value)| Some((Marubatsu::coordinate(mv)?, f64::from(value))))
                .collect(),
            exact: true,
            depth: position.empties(),
        }
    }

    /// Any lost value: a drawn game thrown away, or a won one drawn.
    const BLUNDER: f64 = 1.0;

    fn describe_reference(_exact_empties: u32, _depth: u32) -> String {
        "the perfect player, every score exact: 1 a win, 0 a draw, -1 a loss".to_string()
    }

    fn board_coordinates() -> Bitboard {
        Move::ALL
            .iter()
            .filter_map(|&mv| Marubatsu::coordinate(mv))
            .fold(Bitboard::EMPTY, |set, square| Bitboard(set.0 | square.bit()))
    }
}

/// A marubatsu engine as the arena calls it.
struct Engine(Box<dyn MarubatsuEngine + Send>);

impl GameEngine<Marubatsu> for Engine {
    fn name(&self) -> String {
        self.0.name()
    }

    fn choose(&mut self, position: &Board) -> Result<Move, EngineError> {
        Ok(self.0.choose(position))
    }
}
