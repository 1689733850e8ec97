//! Property tests: parsers never panic, random games keep the invariants.

use othello_arena::engine::EngineSpec;
use othello_arena::othello::{Board, Color, Move, Square};
use proptest::prelude::*;

proptest! {
    #[test]
    fn board_parser_never_panics(text in ".{0,80}") {
        let _ = Board::parse_squares(&text, Color::Black);
    }

    #[test]
    fn board_parser_accepts_every_64_square_board(cells in proptest::collection::vec(prop_oneof![Just('X'), Just('O'), Just('-')], 64)) {
        let text: String = cells.iter().collect();
        let board = Board::parse_squares(&text, Color::White).unwrap();
        prop_assert_eq!(board.to_squares_string(), text);
    }

    #[test]
    fn square_and_spec_parsers_never_panic(text in "\\PC{0,12}") {
        let _ = text.parse::<Square>();
        let _ = text.parse::<Move>();
        let _ = text.parse::<EngineSpec>();
    }

    #[test]
    fn random_games_keep_the_invariants(choices in proptest::collection::vec(0usize..64, 120)) {
        let mut board = Board::new();
        let mut plies = 0;
        for choice in choices {
            if board.is_game_over() {
                break;
            }
            let moves: Vec<Square> = board.legal_moves().squares().collect();
            let before = board.count(Color::Black) + board.count(Color::White);
            let mv = if moves.is_empty() { Move::Pass } else { Move::Place(moves[choice % moves.len()]) };
            board = board.try_play(mv).unwrap();
            let after = board.count(Color::Black) + board.count(Color::White);
            prop_assert_eq!(after, before + u32::from(mv != Move::Pass));
            plies += 1;
        }
        prop_assert!(plies <= 120);
    }
}
