//! Property tests: parsers never panic, random games keep the invariants.

use engines::EngineSpec;
use game::othello::{Board, Color, Move, Square};
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
    fn provably_stable_discs_are_never_flipped(choices in proptest::collection::vec(0usize..64, 120)) {
        use game::othello::bitboard::provably_stable;
        let mut board = Board::new();
        // Squares claimed stable so far, per color.
        let (mut black, mut white) = (0u64, 0u64);
        for choice in choices {
            if board.is_game_over() {
                break;
            }
            prop_assert_eq!(board.discs(Color::Black).0 & black, black, "a stable black disc was flipped");
            prop_assert_eq!(board.discs(Color::White).0 & white, white, "a stable white disc was flipped");
            let (b, w) = (board.discs(Color::Black).0, board.discs(Color::White).0);
            black |= provably_stable(b, w);
            white |= provably_stable(w, b);
            let moves: Vec<Square> = board.legal_moves().squares().collect();
            let mv = if moves.is_empty() { Move::Pass } else { Move::Place(moves[choice % moves.len()]) };
            board = board.try_play(mv).unwrap();
        }
        prop_assert_eq!(board.discs(Color::Black).0 & black, black);
        prop_assert_eq!(board.discs(Color::White).0 & white, white);
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

mod llm_inputs {
    use agent::tools::{SimulateMove, ToolRegistry};
    use agent::{parse_answer, AnswerPolicy};
    use game::othello::Board;
    use proptest::prelude::*;
    use record::decode_reply;
    use record::recover_tool_calls;

    proptest! {
        #[test]
        fn the_answer_parser_never_panics_and_only_returns_legal_moves(text in "\\PC{0,200}", first in any::<bool>()) {
            let board = Board::new();
            let policy = if first { AnswerPolicy::First } else { AnswerPolicy::Last };
            if let agent::Answer::Move { square, .. } = parse_answer(&text, board.legal_moves(), policy, false) {
                prop_assert!(board.legal_moves().contains(square));
            }
            let _ = recover_tool_calls(&text);
        }

        #[test]
        fn tool_arguments_never_panic(raw in "\\PC{0,80}") {
            let registry = ToolRegistry::new(SimulateMove::default());
            for args in [serde_json::Value::String(raw.clone()), serde_json::json!({"coord": raw.clone()})] {
                let outcome = registry.call(&Board::new(), "simulate_move", &args);
                prop_assert!(serde_json::from_str::<serde_json::Value>(&outcome.content).is_ok());
            }
        }

        #[test]
        fn response_decoding_never_panics(raw in "\\PC{0,120}") {
            if let Ok(value) = serde_json::from_str::<serde_json::Value>(&raw) {
                let _ = decode_reply(&value);
            }
            let _ = decode_reply(&serde_json::json!({"message": {"content": raw.clone(), "tool_calls": [{"function": {"name": raw.clone()}}]}}));
            let _ = decode_reply(&serde_json::json!({"choices": [{"message": {"content": raw, "tool_calls": "x"}}]}));
        }
    }
}
