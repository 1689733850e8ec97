//! Marubatsu rules tests: lines, turns, illegal moves, text and mark patterns.

use super::*;
use crate::othello::{Color, Labels, Outcome};

fn board(squares: &str) -> Board {
    Board::parse_squares(squares).unwrap_or_else(|e| panic!("{e}"))
}

fn mv(text: &str) -> Move {
    text.parse().unwrap()
}

// ---- rules ----

#[test]
fn every_line_wins_for_either_side() {
    for line in board::LINE_MASKS {
        // 〇 on the line, × on two squares off it: 〇 has won.
        let rest: Vec<u16> = (0..9).map(|i| 1u16 << i).filter(|b| b & line == 0).collect();
        let o_wins = Board::from_marks(line, rest[0] | rest[1]).unwrap();
        assert_eq!(o_wins.outcome(), Some(Outcome::Win(Color::Black)), "{o_wins}");
        assert_eq!(o_wins.winner(), Some(Color::Black));
        assert!(o_wins.legal_moves().is_empty() && o_wins.is_game_over());
        // × on the line, 〇 on three squares off it that are not a line.
        let three = (0u16..512)
            .filter(|&m| m & line == 0 && m.count_ones() == 3)
            .find(|&m| board::LINE_MASKS.iter().all(|&l| m & l != l))
            .unwrap();
        let x_wins = Board::from_marks(three, line).unwrap();
        assert_eq!(x_wins.outcome(), Some(Outcome::Win(Color::White)), "{x_wins}");
    }
}

#[test]
fn a_played_game_ends_at_the_first_line() {
    let mut b = Board::new();
    for m in ["a1", "b2", "b1", "c3", "c1"] {
        assert_eq!(b.outcome(), None);
        b = b.play(mv(m));
    }
    assert_eq!(b.outcome(), Some(Outcome::Win(Color::Black)));
    assert_eq!(b.side_to_move(), Color::White);
    assert_eq!(b.to_squares_string(), "OOO-X---X");
}

#[test]
fn a_full_board_without_a_line_is_a_draw() {
    let full = board("OXO OXX XOO");
    assert_eq!(full.outcome(), Some(Outcome::Draw));
    assert_eq!(full.winner(), None);
    assert!(full.legal_moves().is_empty());
    // A line completed by the ninth mark is a win, not a draw.
    let last = board("OXO XXO XO-").play(mv("c3"));
    assert_eq!(last.outcome(), Some(Outcome::Win(Color::Black)));
}

#[test]
fn side_to_move_alternates_from_o() {
    let mut b = Board::new();
    for (ply, m) in ["b2", "a1", "c3", "c1", "b1"].iter().enumerate() {
        let expected = if ply % 2 == 0 { Color::Black } else { Color::White };
        assert_eq!(b.side_to_move(), expected);
        b = b.play(mv(m));
        assert_eq!(b.mark_at(mv(m)), Some(expected));
    }
    assert_eq!(b.empties(), 4);
}

#[test]
fn illegal_moves_name_the_move_and_the_legal_set() {
    let b = board("O---X----");
    let err = b.try_play(mv("b2")).unwrap_err();
    assert_eq!(err.mv, mv("b2"));
    assert_eq!(err.side, Color::Black);
    assert_eq!(err.legal, b.empty_squares());
    assert_eq!(
        err.to_string(),
        "illegal move b2 for 〇: legal moves are [b1, c1, a2, c2, a3, b3, c3] (the square is taken)"
    );
    let won = board("OOO-X---X");
    let err = won.try_play(mv("a2")).unwrap_err();
    assert!(err.game_over && err.legal.is_empty());
    assert!(
        err.to_string().ends_with("legal moves are [] (the game is over)"),
        "{err}"
    );
}

#[test]
#[should_panic(expected = "illegal move a1 for ×")]
fn play_panics_on_an_illegal_move() {
    let _ = board("O--------").play(mv("a1"));
}

#[test]
fn squares_round_trip_and_reject_bad_text() {
    for m in Move::ALL {
        assert_eq!(m.to_string().parse::<Move>().unwrap(), m);
        assert_eq!(Move::from_row_col(m.row(), m.col()), Some(m));
        assert_eq!(Move::new(m.index() as u8), Some(m));
    }
    assert_eq!(" B2 ".parse::<Move>().unwrap(), Move::CENTER);
    assert_eq!(Move::ALL.map(|m| m.to_string()).join(" "), "a1 b1 c1 a2 b2 c2 a3 b3 c3");
    for bad in ["", "d1", "a4", "a0", "b", "b22", "2b", "center"] {
        let err = bad.parse::<Move>().unwrap_err();
        assert_eq!(err.text, bad);
        assert!(
            err.to_string().contains("such as b2") && err.to_string().contains(&format!("{bad:?}")),
            "{err}"
        );
    }
    assert_eq!(Move::new(9), None);
    assert_eq!(Move::from_row_col(3, 0), None);
}

#[test]
fn board_text_for_a_model() {
    let b = board("X-- -O- ---");
    assert_eq!(
        b.to_text(Labels::Japanese),
        "  a b c\n1 X . .\n2 . O .\n3 . . .\nO（〇）の手番\n置ける位置: b1, c1, a2, c2, a3, b3, c3"
    );
    assert_eq!(b.to_string(), b.to_text(Labels::Japanese));
    let x_turn = board("---- O----");
    assert!(x_turn.to_text(Labels::Japanese).contains("\nX（×）の手番\n"));
    assert!(x_turn.to_text(Labels::English).contains("\nX to move\n"));
    let won = board("OOO XX- ---");
    assert_eq!(
        won.to_text(Labels::English),
        "  a b c\n1 O O O\n2 X X .\n3 . . .\nO wins\nLegal moves: none"
    );
    assert!(won
        .to_text(Labels::Japanese)
        .ends_with("O（〇）の勝ち\n置ける位置: なし"));
    let drawn = board("OXOOXXXOO");
    assert!(drawn.to_text(Labels::Japanese).ends_with("引き分け\n置ける位置: なし"));
    assert!(drawn.to_text(Labels::English).ends_with("Draw\nLegal moves: none"));
}

#[test]
fn bad_boards_say_what_is_wrong() {
    for (text, needle) in [
        ("O-X", "has 3 squares, expected 9"),
        ("O-X-?----", "'?' at b2"),
        ("OO-------", "2 〇 and 0 ×"),
        ("X--------", "0 〇 and 1 ×"),
        ("OOOXXX---", "both 〇 and × have three in a row"),
        ("OOOXX-X--", "〇 has three in a row but × moved after it"),
        ("XXXOO-O-O", "× has three in a row but 〇 moved after it"),
    ] {
        let err = Board::parse_squares(text).unwrap_err();
        let full = match &err {
            ParseBoardError::Invalid { source, .. } => format!("{err}: {source}"),
            _ => err.to_string(),
        };
        assert!(full.contains(needle) && full.contains(&format!("{text:?}")), "{full}");
    }
    assert!(matches!(Board::from_marks(1, 1), Err(InvalidBoard::Overlap { .. })));
}

#[test]
fn pattern_counts_match_the_seed_printout() {
    // Seed 003 plays (1, 1), (0, 0), (1, 0) = b2, a1, b1 and prints count_markpats
    // from the side that just moved (its last_turn).
    let p = |own, opp, empty| MarkPattern::new(own, opp, empty);
    let counts = |b: &Board, side| b.count_patterns(side).iter().collect::<Vec<_>>();
    let empty = Board::new();
    assert_eq!(counts(&empty, Color::White), [(p(0, 0, 3), 8)]);
    let b = empty.play(mv("b2"));
    assert_eq!(counts(&b, Color::Black), [(p(0, 0, 3), 4), (p(1, 0, 2), 4)]);
    let b = b.play(mv("a1"));
    assert_eq!(
        counts(&b, Color::White),
        [(p(0, 0, 3), 2), (p(0, 1, 2), 3), (p(1, 0, 2), 2), (p(1, 1, 1), 1)]
    );
    let b = b.play(mv("b1"));
    assert_eq!(
        counts(&b, Color::Black),
        [
            (p(0, 0, 3), 2),
            (p(0, 1, 2), 1),
            (p(1, 0, 2), 2),
            (p(1, 1, 1), 2),
            (p(2, 0, 1), 1)
        ]
    );
    // The same board from the other side swaps own and opponent.
    assert_eq!(b.count_patterns(Color::White).get(MarkPattern::OPP_TWO), 1);
    assert_eq!(b.count_patterns(Color::White).get(MarkPattern::OWN_ONE), 1);
    assert_eq!(b.line_patterns(Color::Black)[4], p(2, 0, 1), "column b holds b1 and b2");
    assert_eq!(MarkPattern::OWN_TWO.to_string(), "自2敵0空1");
    assert_eq!(b.winning_squares(Color::Black), MoveSet::from_iter([mv("b3")]));
    assert!(b.winning_squares(Color::White).is_empty());
}
