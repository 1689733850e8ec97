//! Engine tests: spec parsing, seed-published facts, known positions, symmetries.

use super::*;
use game::othello::{transform_square, Board, Color, Move, Square};

fn after(moves: &str) -> Board {
    moves
        .split_whitespace()
        .fold(Board::new(), |b, m| b.play(m.parse().unwrap()))
}

fn values(decision: &Decision) -> Vec<(String, f64)> {
    decision
        .candidates
        .iter()
        .map(|c| (c.square.to_string(), c.value))
        .collect()
}

#[test]
fn specs_parse_to_canonical_names() {
    for (text, canonical) in [
        ("random", "random"),
        ("n-hand", "n-hand:3"),
        ("N-HAND:5", "n-hand:5"),
        ("nleast:2", "n-least:2"),
        ("n-most:1", "n-most:1"),
        ("greedy", "greedy"),
        ("search", "search"),
        ("alphabeta:4", "alphabeta:4:weight"),
        ("alphabeta:3:count", "alphabeta:3:count"),
        ("reference", "reference:8:20"),
        ("reference:4", "reference:4:20"),
        ("reference:4:0", "reference:4:0"),
        ("human", "human"),
        ("dilute:50:alphabeta:2", "dilute:50:alphabeta:2:weight"),
        ("Dilute:0:n-hand", "dilute:0:n-hand:3"),
        ("dilute:100:greedy", "dilute:100:greedy"),
    ] {
        let spec: EngineSpec = text.parse().unwrap();
        assert_eq!(spec.to_string(), canonical);
        if spec != EngineSpec::Human {
            assert_eq!(spec.build(1).name(), canonical);
        }
    }
}

#[test]
fn the_spec_help_states_the_reference_defaults() {
    let stated = format!(
        "default {DEFAULT_DEPTH}; exact at E <= {MAX_EXACT_EMPTIES} empties or fewer, default {DEFAULT_EXACT_EMPTIES}"
    );
    assert!(VALID_SPECS.contains(&stated), "{VALID_SPECS}");
}

#[test]
fn bad_specs_name_the_problem_and_the_valid_specs() {
    for (text, reason) in [
        ("minimax", "unknown engine"),
        ("", "empty"),
        ("alphabeta", "needs a depth"),
        ("alphabeta:0", "between 1 and 16"),
        ("alphabeta:x", "not a whole number"),
        ("alphabeta:3:corners", "neither weight nor count"),
        ("n-hand:0", "between 1 and 8"),
        ("n-most:3:4", "at most one parameter"),
        ("random:3", "takes no parameters"),
        ("reference:13", "between 1 and 12"),
        ("reference:4:31", "between 1 and 30"),
        ("reference:4:2:1", "expected reference"),
        ("dilute", "needs a share and an engine"),
        ("dilute:50", "needs a share and an engine"),
        ("dilute:101:greedy", "whole percent from 0 to 100"),
        ("dilute:50:random", "cannot be diluted"),
        ("dilute:50:dilute:5:greedy", "cannot be diluted"),
        ("dilute:50:alphabeta:0", "between 1 and 16"),
    ] {
        let err = text.parse::<EngineSpec>().unwrap_err().to_string();
        assert!(err.contains(reason), "{text}: {err}");
        assert!(err.contains(VALID_SPECS), "{text}: {err}");
    }
}

#[test]
fn seed_004_node_count_from_the_start_position() {
    // Seed 004: "最初の局面は…深さ6でも2,685局面".
    let decision = AlphaBeta::new(6, Evaluation::Weight).choose(&Board::new()).unwrap();
    assert_eq!(decision.nodes, 2685);
    // Seed 004's other check: black's legal moves at the start are squares 19, 26, 37, 44.
    let indices: Vec<usize> = Board::new().legal_moves().squares().map(Square::index).collect();
    assert_eq!(indices, [19, 26, 37, 44]);
}

#[test]
fn seed_001_greedy_scores_at_ply_8_of_the_13_0_game() {
    // Seed 001: at ply 8 white has 6 moves; the one-ply AI rates f4 highest at -12,
    // while 4 of the 6 let black wipe white out on the next move.
    let board = after("c4 c3 c2 c5 c6 d6 e6");
    let decision = Greedy.choose(&board).unwrap();
    assert_eq!(
        values(&decision),
        [
            ("b2", -214.0),
            ("b4", -26.0),
            ("f4", -12.0),
            ("b6", -22.0),
            ("f6", -14.0),
            ("d7", -18.0)
        ]
        .map(|(s, v)| (s.to_string(), v))
    );
    assert_eq!(decision.mv.to_string(), "f4");
    let losing = board
        .legal_moves()
        .squares()
        .filter(|&sq| {
            let next = board.play(Move::Place(sq));
            next.legal_moves()
                .squares()
                .any(|reply| next.play(Move::Place(reply)).count(Color::White) == 0)
        })
        .count();
    assert_eq!(losing, 4);
    // The search AI sees it and plays b6; at ply 6 it plays b5 where the record has d6.
    assert_eq!(Search::new().choose(&board).unwrap().mv.to_string(), "b6");
    let ply6 = after("c4 c3 c2 c5 c6");
    assert_eq!(Search::new().choose(&ply6).unwrap().mv.to_string(), "b5");
    assert_eq!(Greedy.choose(&ply6).unwrap().mv.to_string(), "d6");
}

#[test]
fn lookahead_values_at_the_start() {
    let start = Board::new();
    let value_set = |metric, plies| {
        let (candidates, _) = Lookahead::new(metric, plies, 1).evaluate(&start);
        candidates.iter().map(|c| c.value).collect::<Vec<_>>()
    };
    // After any first move black has 4 discs, white 1: difference 3.
    assert_eq!(value_set(Metric::DiscDifference, 1), [3.0; 4]);
    // Every white reply then flips one disc back: 3 - 3.
    assert_eq!(value_set(Metric::DiscDifference, 2), [0.0; 4]);
    // After d3 white can answer c3, e3 or c5 (and symmetrically for the others).
    assert_eq!(value_set(Metric::OpponentMoves, 1), [3.0; 4]);
    // After d3 black itself could play ... (mobility of black if it were to move).
    let own: Vec<f64> = value_set(Metric::OwnMoves, 1);
    assert!(own.iter().all(|&v| v == own[0]));
}

#[test]
fn lookahead_handles_passes_and_game_end_inside_the_horizon() {
    // FFO #20 has 6 empties: every line ends within 8 plies, with passes on the way.
    let board = Board::parse_squares(
        "XXXOXXXXOXXXXXXXOOXXXXXXOOOXXXXXOOOXXOO-OOOOO---OOOOOOO-OOOOOOO-",
        Color::Black,
    )
    .unwrap();
    let (candidates, _) = Lookahead::new(Metric::DiscDifference, 8, 1).evaluate(&board);
    // With a horizon past the end, n-hand averages final disc differences.
    assert!(candidates.iter().all(|c| c.value.abs() <= 64.0));
    let (at_end, _) = Lookahead::new(Metric::OwnMoves, 8, 1).evaluate(&board);
    assert!(
        at_end.iter().all(|c| c.value == 0.0),
        "nobody can move once the game is over"
    );
}

#[test]
fn lookahead_ties_are_seeded() {
    let choose = |seed| {
        Lookahead::new(Metric::DiscDifference, 3, seed)
            .choose(&Board::new())
            .unwrap()
            .mv
    };
    assert_eq!(choose(7), choose(7));
    let picked: std::collections::HashSet<Move> = (0..64).map(choose).collect();
    assert_eq!(picked.len(), 4, "all four symmetric first moves are tied");
}

#[test]
fn search_reads_to_the_end_with_few_empties() {
    // FFO #20: 6 empties, black to move, H5 wins by 6 under perfect play when the
    // empty squares left at the end go to the winner (the FFO scoring). The seeds'
    // engines count discs only, and the same line ends one disc ahead with squares empty.
    let board = Board::parse_squares(
        "XXXOXXXXOXXXXXXXOOXXXXXXOOOXXXXXOOOXXOO-OOOOO---OOOOOOO-OOOOOOO-",
        Color::Black,
    )
    .unwrap();
    let decision = Search::new().choose(&board).unwrap();
    assert_eq!(decision.mv.to_string(), "h5");
    assert_eq!(decision.score, Some(100_000.0));
    // Seed 004's alpha-beta, deep enough to reach every end, agrees: +1 disc, times 100.
    let ab = AlphaBeta::new(12, Evaluation::Count).choose(&board).unwrap();
    assert_eq!(ab.mv.to_string(), "h5");
    assert_eq!(
        values(&ab),
        [("h5", 100.0), ("f6", -400.0), ("g6", -200.0), ("h6", -1000.0)].map(|(s, v)| (s.to_string(), v))
    );
}

#[test]
fn engines_take_a_free_corner() {
    // Black can take a1; greedy and the searches should.
    let board = after("f5 d6 c3 d3 c4 f4 c5 b3 c2 e6 c6 b4 b5 d2 e3 a6 c1 b1");
    assert!(board.legal_moves().contains("a1".parse().unwrap()));
    for spec in ["greedy", "search", "alphabeta:3"] {
        let mv = spec.parse::<EngineSpec>().unwrap().build(1).choose(&board).unwrap().mv;
        assert_eq!(mv.to_string(), "a1", "{spec}");
    }
}

#[test]
fn symmetric_positions_get_symmetric_scores() {
    let board = after("f5 f6 e6 f4 e3 c5 c4 e7");
    for symmetry in 0..8 {
        let image = board.transformed(symmetry);
        for spec in [
            "alphabeta:4",
            "alphabeta:3:count",
            "greedy",
            "n-hand:3",
            "n-least:2",
            "n-most:2",
        ] {
            let spec: EngineSpec = spec.parse().unwrap();
            let original = spec.build(1).choose(&board).unwrap();
            let mapped = spec.build(1).choose(&image).unwrap();
            for c in &original.candidates {
                let twin = mapped
                    .candidates
                    .iter()
                    .find(|m| m.square == transform_square(c.square, symmetry))
                    .unwrap();
                assert!(
                    (twin.value - c.value).abs() < 1e-9,
                    "{spec} {} under symmetry {symmetry}",
                    c.square
                );
            }
        }
        let search = Search::new().choose(&board).unwrap().score;
        assert_eq!(Search::new().choose(&image).unwrap().score, search);
    }
}

#[test]
fn random_is_seeded_and_legal() {
    let board = after("f5 f6 e6");
    let moves: Vec<Move> = (0..20).map(|s| Random::new(s).choose(&board).unwrap().mv).collect();
    assert!(moves.iter().all(|&m| board.is_legal(m)));
    assert_eq!(
        Random::new(3).choose(&board).unwrap().mv,
        Random::new(3).choose(&board).unwrap().mv
    );
    assert!(moves.iter().collect::<std::collections::HashSet<_>>().len() > 1);
}

#[test]
fn engines_pass_when_they_must() {
    // White has no move here but black does.
    let board = Board::parse_squares(&format!("XO{}", "-".repeat(62)), Color::White).unwrap();
    assert!(board.must_pass());
    for spec in ["random", "n-hand", "greedy", "search", "alphabeta:2"] {
        let mv = spec.parse::<EngineSpec>().unwrap().build(1).choose(&board).unwrap().mv;
        assert_eq!(mv, Move::Pass, "{spec}");
    }
}

#[test]
fn human_reprompts_until_a_legal_move() {
    let input = b"zz\na1\n d3 \n".as_slice();
    let mut output = Vec::new();
    let decision = Human::new(input, &mut output).choose(&Board::new()).unwrap();
    assert_eq!(decision.mv.to_string(), "d3");
    let shown = String::from_utf8(output).unwrap();
    assert!(shown.contains("invalid square \"zz\""), "{shown}");
    assert!(
        shown.contains("a1 is not legal here; choose one of [d3, c4, f5, e6]"),
        "{shown}"
    );
    let err = Human::new(b"".as_slice(), Vec::new())
        .choose(&Board::new())
        .unwrap_err();
    assert!(matches!(err, EngineError::InputClosed));
}

#[test]
fn dilution_moves_from_the_engine_to_random_with_its_share() {
    // P = 0 plays the engine's move, P = 100 a seeded random one; a share in between
    // plays some of each, the same ones for the same seed.
    let board = after("f5 d6 c3 d3 c4");
    let greedy = Greedy.choose(&board).unwrap().mv;
    let moves = |spec: &str, seeds: std::ops::Range<u64>| -> Vec<Move> {
        let spec: EngineSpec = spec.parse().unwrap();
        seeds.map(|seed| spec.build(seed).choose(&board).unwrap().mv).collect()
    };
    assert!(moves("dilute:0:greedy", 0..20).iter().all(|&mv| mv == greedy));
    let random = moves("dilute:100:greedy", 0..40);
    assert!(random.iter().any(|&mv| mv != greedy));
    let half = moves("dilute:50:greedy", 0..40);
    let engine_moves = half.iter().filter(|&&mv| mv == greedy).count();
    assert!((10..40).contains(&engine_moves), "{engine_moves} of 40");
    assert_eq!(half, moves("dilute:50:greedy", 0..40));
}
