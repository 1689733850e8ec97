//! Othello through [`Rules`]: the rules core in `crate::othello`, the engines in
//! `crate::engine`.

use super::{GameEngine, Rules};
use crate::engine::{Decision, Engine, EngineError, EngineSpec, MoveScores, Reference};
use crate::othello::{Bitboard, Board, ByColor, Color, IllegalMove, Move, Outcome, Square, TextStyle};
use crate::tools::SimulateMove;

/// Othello (the default game).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Othello;

impl Rules for Othello {
    const NAME: &'static str = "othello";
    type Position = Board;
    type Move = Move;
    type Illegal = IllegalMove;
    type Spec = EngineSpec;
    type Decision = Decision;
    /// Fifty of the sixty moves (a draw that ends the game is drawn again).
    const MAX_OPENING_PLIES: usize = 50;
    const DEFAULT_OPPONENTS: &'static str = "n-hand:3,n-least:3,n-most:3,random";
    const MARGIN: &'static str = "disc diff";
    /// A wipeout: a forfeit must never look like a close game.
    const FORFEIT_MARGIN: i32 = 64;

    fn start() -> Board {
        Board::new()
    }

    fn to_move(position: &Board) -> Color {
        position.side_to_move()
    }

    fn legal_moves(position: &Board) -> Vec<Move> {
        position.legal_moves().squares().map(Move::Place).collect()
    }

    fn forced_move(position: &Board) -> Option<Move> {
        position.must_pass().then_some(Move::Pass)
    }

    fn play(position: &Board, mv: Move) -> Result<Board, IllegalMove> {
        position.try_play(mv)
    }

    fn is_over(position: &Board) -> bool {
        position.is_game_over()
    }

    fn outcome(position: &Board) -> Outcome {
        position.leader()
    }

    fn margin(position: &Board) -> i32 {
        position.count(Color::Black) as i32 - position.count(Color::White) as i32
    }

    fn pieces(position: &Board) -> ByColor<u32> {
        ByColor {
            black: position.count(Color::Black),
            white: position.count(Color::White),
        }
    }

    fn to_squares(position: &Board) -> String {
        position.to_squares_string()
    }

    const BLACK_MARK: char = 'X';

    fn parse_squares(text: &str, to_move: Color) -> Result<Board, String> {
        Board::parse_squares(text, to_move).map_err(|e| e.to_string())
    }

    fn engine(spec: &EngineSpec, seed: u64) -> Box<dyn GameEngine<Othello>> {
        Box::new(spec.build(seed))
    }

    fn is_human(spec: &EngineSpec) -> bool {
        *spec == EngineSpec::Human
    }

    fn decision_move(decision: &Decision) -> Move {
        decision.mv
    }

    type Simulate = SimulateMove;

    fn simulate_tool(style: TextStyle) -> SimulateMove {
        SimulateMove { style }
    }

    fn model_text(position: &Board, style: TextStyle) -> String {
        position.to_text(style)
    }

    fn side_name(color: Color) -> &'static str {
        color.name()
    }

    fn coordinate(mv: Move) -> Option<Square> {
        match mv {
            Move::Place(square) => Some(square),
            Move::Pass => None,
        }
    }

    fn at_coordinate(square: Square) -> Option<Move> {
        Some(Move::Place(square))
    }

    fn board_coordinates() -> Bitboard {
        Bitboard(u64::MAX)
    }

    fn empties(position: &Board) -> u32 {
        position.empties()
    }

    type Reference = Reference;

    fn reference(exact_empties: u32, depth: u32) -> Reference {
        Reference::new(exact_empties, depth)
    }

    fn score_moves(reference: &mut Reference, position: &Board) -> MoveScores {
        reference.score_moves(position)
    }

    /// Ten discs: a move that gives away a corner or a whole edge.
    const BLUNDER: f64 = 10.0;

    fn describe_reference(exact_empties: u32, depth: u32) -> String {
        let calibration = if depth == crate::engine::DEFAULT_DEPTH {
            format!(
                "estimated regrets lie {:.1} discs from exact ones on average where both exist",
                crate::engine::ESTIMATED_REGRET_ERROR
            )
        } else {
            format!("calibrated at depth {} only", crate::engine::DEFAULT_DEPTH)
        };
        format!(
            "exact at {exact_empties} or fewer empty squares, else estimated by a {depth}-ply search over the pattern evaluation ({calibration})"
        )
    }

    fn legal_coordinates(position: &Board) -> Bitboard {
        position.legal_moves()
    }
}

impl GameEngine<Othello> for Box<dyn Engine> {
    fn name(&self) -> String {
        Engine::name(self.as_ref())
    }

    fn choose(&mut self, position: &Board) -> Result<Decision, EngineError> {
        Engine::choose(self.as_mut(), position)
    }
}
