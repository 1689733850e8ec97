use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::file::load;
use super::*;
use crate::lab::self_play_positions;

/// Weights with a random value in every shared-weight class.
fn random_weights(seed: u64) -> PatternWeights {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let classes: Vec<Vec<i16>> = (0..PHASES)
        .map(|_| (0..layout().classes()).map(|_| rng.gen_range(-500..=500)).collect())
        .collect();
    PatternWeights::from_classes(&classes)
}

#[test]
fn the_shapes_cover_the_board_as_logistello_placed_them() {
    let copies: Vec<usize> = shape_summary().iter().map(|&(_, _, copies)| copies).collect();
    assert_eq!(copies, [4, 4, 8, 4, 4, 4, 2, 4, 4, 4, 4]);
    assert_eq!(features_per_position(), 46 + 3);
    // Shared weights: fewer classes than entries, and every class used.
    assert!(layout().classes() < layout().size());
    let mut used = vec![false; layout().classes()];
    for &class in layout().canonical() {
        used[class as usize] = true;
    }
    assert!(used.iter().all(|&u| u));
}

#[test]
fn every_symmetry_of_a_position_has_the_same_value() {
    let weights = random_weights(7);
    for board in self_play_positions(60, 4..=56, 11) {
        let value = weights.evaluate(board.player(), board.opponent());
        for symmetry in 1..8 {
            let turned = board.transformed(symmetry);
            assert_eq!(
                weights.evaluate(turned.player(), turned.opponent()),
                value,
                "symmetry {symmetry} of {board:?}"
            );
        }
    }
}

#[test]
fn the_features_are_the_entries_the_evaluation_reads() {
    let weights = random_weights(3);
    let mut features = Vec::new();
    for board in self_play_positions(30, 4..=56, 5) {
        layout().features(board.player(), board.opponent(), &mut features);
        let table = &weights.tables[phase(board.empties())];
        let sum: i32 = features.iter().map(|&f| i32::from(table[f as usize])).sum();
        assert_eq!(sum, weights.evaluate(board.player(), board.opponent()));
    }
}

#[test]
fn phases_cover_every_empty_count_once() {
    let mut covered = Vec::new();
    for p in 0..PHASES {
        for empties in phase_empties(p) {
            assert_eq!(phase(empties), p);
            covered.push(empties);
        }
    }
    assert_eq!(covered, (0..=60).collect::<Vec<_>>());
}

#[test]
fn a_weights_file_round_trips_and_is_refused_when_altered() {
    let weights = random_weights(1);
    let bytes = weights.to_bytes();
    assert_eq!(PatternWeights::from_bytes(&bytes).unwrap(), weights);
    let hash = sha256_hex(&bytes);
    assert_eq!(load(&bytes, &hash).unwrap(), weights);
    let mut altered = bytes.clone();
    altered[100] ^= 1;
    let err = load(&altered, &hash).unwrap_err().to_string();
    assert!(err.contains(&hash) && err.contains("train-eval"), "{err}");
    let err = PatternWeights::from_bytes(&bytes[..bytes.len() - 2])
        .unwrap_err()
        .to_string();
    assert!(err.contains("bytes") && err.contains("train-eval"), "{err}");
    let err = PatternWeights::from_bytes(b"not a weights file at all")
        .unwrap_err()
        .to_string();
    assert!(err.contains("OAPW"), "{err}");
}

#[test]
fn the_looked_up_fillings_are_the_square_by_square_ones() {
    let layout = layout();
    for board in self_play_positions(40, 4..=56, 5) {
        for placement in &layout.placements {
            let (player, opponent) = (board.player(), board.opponent());
            assert_eq!(
                layout.filling(placement, player, opponent),
                filling(placement, player, opponent)
            );
        }
    }
}
