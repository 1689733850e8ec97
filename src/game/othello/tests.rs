//! Rules tests against a naive 8-direction reference on seeded random positions.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::*;

const RAYS: [(i8, i8); 8] = [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)];

/// The naive reference: walk each of the 8 rays square by square.
fn naive_flips(player: u64, opponent: u64, sq: Square) -> u64 {
    if (player | opponent) & sq.bit() != 0 {
        return 0;
    }
    let mut flipped = 0;
    for (dr, dc) in RAYS {
        let (mut r, mut c) = (sq.row() as i8 + dr, sq.col() as i8 + dc);
        let mut line = 0u64;
        while (0..8).contains(&r) && (0..8).contains(&c) {
            let bit = 1u64 << (r * 8 + c);
            if opponent & bit != 0 {
                line |= bit;
            } else {
                if player & bit != 0 {
                    flipped |= line;
                }
                break;
            }
            r += dr;
            c += dc;
        }
    }
    flipped
}

fn naive_moves(player: u64, opponent: u64) -> u64 {
    Square::ALL
        .iter()
        .filter(|&&sq| naive_flips(player, opponent, sq) != 0)
        .fold(0, |acc, sq| acc | sq.bit())
}

/// Seed 000's `countStableStones`, transcribed square by square.
fn naive_stable(player: u64, opponent: u64) -> u64 {
    let occupied = player | opponent;
    let inside = |r: i8, c: i8| (0..8).contains(&r) && (0..8).contains(&c);
    let bit = |r: i8, c: i8| 1u64 << (r * 8 + c);
    let mut stable = 0;
    for sq in Bitboard(player) {
        let (r, c) = (sq.row() as i8, sq.col() as i8);
        let all_axes = [(0, 1), (1, 0), (1, 1), (1, -1)].iter().all(|&(dr, dc)| {
            let own_to_edge = |sign: i8| {
                let (mut tr, mut tc) = (r + sign * dr, c + sign * dc);
                while inside(tr, tc) && player & bit(tr, tc) != 0 {
                    tr += sign * dr;
                    tc += sign * dc;
                }
                !inside(tr, tc)
            };
            if own_to_edge(-1) || own_to_edge(1) {
                return true;
            }
            let (mut tr, mut tc) = (r, c);
            while inside(tr - dr, tc - dc) {
                tr -= dr;
                tc -= dc;
            }
            while inside(tr, tc) {
                if occupied & bit(tr, tc) == 0 {
                    return false;
                }
                tr += dr;
                tc += dc;
            }
            true
        });
        if all_axes {
            stable |= sq.bit();
        }
    }
    stable
}

/// Positions from seeded random games (every ply of 300 games) plus random disc soups.
fn sample_positions() -> Vec<Board> {
    let mut rng = ChaCha8Rng::seed_from_u64(20261129);
    let mut boards = Vec::new();
    for _ in 0..300 {
        let mut board = Board::new();
        while !board.is_game_over() {
            boards.push(board);
            let moves: Vec<Square> = board.legal_moves().squares().collect();
            let mv = if moves.is_empty() {
                Move::Pass
            } else {
                Move::Place(moves[rng.gen_range(0..moves.len())])
            };
            board = board.play(mv);
        }
        boards.push(board);
    }
    for _ in 0..2000 {
        let (mut black, mut white) = (0u64, 0u64);
        for sq in Square::ALL {
            match rng.gen_range(0..3) {
                0 => black |= sq.bit(),
                1 => white |= sq.bit(),
                _ => {}
            }
        }
        let side = if rng.gen() { Color::Black } else { Color::White };
        boards.push(Board::from_bitboards(black, white, side).unwrap());
    }
    boards
}

#[test]
fn move_generation_matches_the_naive_reference() {
    for board in sample_positions() {
        let (p, o) = (board.player(), board.opponent());
        assert_eq!(
            bitboard::legal_moves(p, o),
            naive_moves(p, o),
            "moves differ in\n{board}"
        );
        for sq in Square::ALL {
            assert_eq!(
                board.flips(sq).0,
                naive_flips(p, o, sq),
                "flips at {sq} differ in\n{board}"
            );
            if (p | o) & sq.bit() == 0 {
                // The ray-by-ray flips too, even where this build computes them with AVX2.
                let by_ray = bitboard::flips_by_ray(p, o, sq);
                assert_eq!(by_ray, naive_flips(p, o, sq), "flips by ray at {sq} in\n{board}");
            }
        }
    }
}

#[test]
fn placing_flips_exactly_the_bracketed_discs() {
    for board in sample_positions() {
        let side = board.side_to_move();
        for sq in board.legal_moves() {
            let flipped = board.flips(sq);
            assert!(!flipped.is_empty());
            let next = board.play(Move::Place(sq));
            assert_eq!(next.count(side), board.count(side) + 1 + flipped.count());
            assert_eq!(next.count(!side), board.count(!side) - flipped.count());
            assert_eq!(next.discs(side).0, board.discs(side).0 | flipped.0 | sq.bit());
            assert_eq!(next.side_to_move(), !side);
        }
    }
}

#[test]
fn passes_and_game_end_follow_the_rules() {
    for board in sample_positions() {
        let has_moves = !board.legal_moves().is_empty();
        let opponent_moves = !board.legal_moves_for(!board.side_to_move()).is_empty();
        assert_eq!(board.is_legal(Move::Pass), !has_moves && opponent_moves);
        assert_eq!(board.is_game_over(), !has_moves && !opponent_moves);
        assert_eq!(board.outcome().is_some(), board.is_game_over());
        if board.is_game_over() {
            let err = board.try_play(Move::Pass).unwrap_err();
            assert!(err.to_string().contains("the game is over"), "{err}");
        }
    }
}

#[test]
fn stable_discs_match_seed_000_definition() {
    for board in sample_positions() {
        for color in Color::BOTH {
            let (p, o) = (board.discs(color).0, board.discs(!color).0);
            assert_eq!(
                board.stable_discs(color).0,
                naive_stable(p, o),
                "{color} stable differs in\n{board}"
            );
        }
    }
}

#[test]
fn symmetries_keep_move_counts_and_stability() {
    for board in sample_positions().into_iter().step_by(7) {
        for symmetry in 0..8 {
            let image = board.transformed(symmetry);
            assert_eq!(image.legal_moves().count(), board.legal_moves().count());
            assert_eq!(
                image.stable_discs(Color::Black).count(),
                board.stable_discs(Color::Black).count()
            );
            for sq in board.legal_moves() {
                let mapped = transform_square(sq, symmetry);
                assert_eq!(image.flips(mapped).count(), board.flips(sq).count());
            }
        }
    }
}

#[test]
fn illegal_moves_name_the_legal_ones() {
    let board = Board::new();
    let err = board.try_play("a1".parse().unwrap()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "illegal move a1 for black: legal moves are [d3, c4, f5, e6]"
    );
    let err = board.try_play(Move::Pass).unwrap_err();
    assert!(err.to_string().starts_with("illegal move pass"));
}

#[test]
fn seed_000_board_text() {
    let expected = "  a b c d e f g h
1 . . . . . . . . 
2 . . . . . . . . 
3 . . . . . . . . 
4 . . . W B . . . 
5 . . . B W . . . 
6 . . . . . . . . 
7 . . . . . . . . 
8 . . . . . . . . 
黒の手番
置ける位置: d3, c4, f5, e6";
    assert_eq!(Board::new().to_string(), expected);
}

#[test]
fn relative_and_english_renderings() {
    let white_to_move = Board::new().play("d3".parse().unwrap());
    let relative = white_to_move.to_text(TextStyle {
        labels: Labels::English,
        perspective: Perspective::Relative,
    });
    // White to move: white discs are drawn as B, black ones as W.
    assert!(relative.contains("4 . . . W W . . . \n5 . . . W B"), "{relative}");
    assert!(relative.contains("White to move (B = discs of the side to move"));
    assert!(relative.ends_with("Legal moves: c3, e3, c5"));
    let absolute = white_to_move.to_string();
    assert!(absolute.contains("4 . . . B B . . . \n") && absolute.contains("5 . . . B W"));
    assert!(absolute.contains("白の手番\n置ける位置: c3, e3, c5"));
}

#[test]
fn squares_string_round_trips_and_errors_name_the_fix() {
    for board in sample_positions().into_iter().step_by(13) {
        let text = board.to_squares_string();
        assert_eq!(Board::parse_squares(&text, board.side_to_move()).unwrap(), board);
    }
    let err = Board::parse_squares("XO-", Color::Black).unwrap_err();
    assert_eq!(err, ParseBoardError::Length { found: 3 });
    let mut bad = "-".repeat(64);
    bad.replace_range(10..11, "?");
    let err = Board::parse_squares(&bad, Color::Black).unwrap_err();
    assert!(err.to_string().contains("'?' at c2"), "{err}");
}

#[test]
fn a_full_game_fills_the_board() {
    // Seed 004's check: from the start, 60 placements fill all 64 squares.
    let mut game = crate::Line::<crate::Othello>::default();
    let mut rng = ChaCha8Rng::seed_from_u64(4);
    while !game.is_over() {
        let moves: Vec<Square> = game.board().legal_moves().squares().collect();
        let mv = if moves.is_empty() {
            Move::Pass
        } else {
            Move::Place(moves[rng.gen_range(0..moves.len())])
        };
        game.try_play(mv).unwrap();
    }
    let placements = game.moves().iter().filter(|m| matches!(m, Move::Place(_))).count();
    assert_eq!(placements as u32, 60 - game.board().empties());
}

#[test]
fn board_text_parses_back_in_every_style() {
    for board in sample_positions().into_iter().step_by(17) {
        for labels in [Labels::Japanese, Labels::English] {
            for perspective in [Perspective::Absolute, Perspective::Relative] {
                let text = board.to_text(TextStyle { labels, perspective });
                assert_eq!(Board::parse_text(&text).unwrap(), board, "{text}");
            }
        }
    }
    assert!(Board::parse_text("hello").is_err());
}

#[test]
fn provably_stable_discs_grow_from_corners_and_full_lines() {
    use super::bitboard::provably_stable;
    let parse = |text: &str| Board::parse_squares(text, Color::Black).unwrap();
    // Black a1-c1 along an otherwise empty row: anchored by the corner.
    let row = parse(&format!("XXXO----{}", "-".repeat(56)));
    assert_eq!(provably_stable(row.player(), row.opponent()), 0b111);
    // The white disc at d1 is not anchored (e1 is empty): not stable.
    assert_eq!(provably_stable(row.opponent(), row.player()), 0);
    // A lone disc in the middle of an empty board is never stable.
    let lone = parse(&format!("{}X{}", "-".repeat(27), "-".repeat(36)));
    assert_eq!(provably_stable(lone.player(), lone.opponent()), 0);
    // On a full board every disc is stable.
    let full = parse(&"XO".repeat(32));
    assert_eq!(provably_stable(full.player(), full.opponent()), full.player());
    // b2 backed by a2 on its row only (a1 empty): flippable along the column.
    let b2 = parse(&format!("--------XX{}", "-".repeat(54)));
    assert_eq!(provably_stable(b2.player(), b2.opponent()) & (1 << 9), 0);
}
