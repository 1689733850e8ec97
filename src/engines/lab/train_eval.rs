//! Training the pattern evaluation ([`crate::pattern`]) the way Logistello
//! was trained: positions from seeded self-play, labelled by the program itself, the
//! phases fitted from the end of the game backwards.
//!
//! 1. `games` self-play games (greedy with a quarter of random moves, as for
//!    [`super::self_play_positions`]) give every position on the way where the side
//!    to move has a move; each distinct position is kept once.
//! 2. Phase by phase from the last (fewest empties): a position with at most
//!    `exact_empties` empties is labelled with its exact score by the solver; an
//!    earlier one by a `search_depth`-ply search whose leaves, at least four empties
//!    later, are scored by the phases already fitted.
//! 3. Each phase starts from the weights of the phase after it and is fitted to its
//!    labels by least squares (a damped Jacobi iteration, one step per epoch), with
//!    one position in ten held apart; the weights with the lowest held-apart error
//!    are kept.
//!
//! Everything is seeded and order-preserving, so the same settings give the same file.

use std::collections::HashSet;
use std::ops::RangeInclusive;
use std::time::Instant;

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

use super::positions::self_play;
use crate::midgame::search_value;
use crate::pattern::{self, layout, phase, phase_empties, PatternWeights, PHASES, SCALE};
use crate::{LinearEval, Solver};
use game::derive_seed;
use game::othello::Board;

/// How to train.
#[derive(Clone, Debug, PartialEq)]
pub struct TrainSettings {
    /// Self-play games to draw positions from.
    pub games: usize,
    /// Seed of the self-play games.
    pub seed: u64,
    /// Positions with at most this many empties get exact labels.
    pub exact_empties: u32,
    /// Depth of the labelling search before that (at least 4: a phase's width).
    pub search_depth: u32,
    /// Fitting steps per phase.
    pub epochs: u32,
}

/// The settings the shipped weights were trained with.
impl Default for TrainSettings {
    fn default() -> Self {
        TrainSettings {
            games: 20_000,
            seed: 2026,
            exact_empties: 16,
            search_depth: 6,
            epochs: 300,
        }
    }
}

/// The smallest labelling depth: a phase is four empties wide, so a search that deep
/// reaches only positions of phases already fitted (passes aside).
pub const MIN_SEARCH_DEPTH: u32 = 4;

/// How one phase was labelled and how well it fits.
#[derive(Clone, Debug, PartialEq)]
pub struct PhaseFit {
    /// The phase.
    pub phase: usize,
    /// Its empty-square counts.
    pub empties: RangeInclusive<u32>,
    /// Positions labelled exactly.
    pub exact: usize,
    /// Positions labelled by search.
    pub searched: usize,
    /// How well the fitted weights match the labels.
    pub errors: FitErrors,
    /// Seconds spent labelling.
    pub label_seconds: f64,
}

/// How well one phase's weights match its labels.
#[derive(Clone, Debug, PartialEq)]
pub struct FitErrors {
    /// Positions fitted.
    pub train: usize,
    /// Positions held apart.
    pub held: usize,
    /// Mean absolute error on the fitted positions, in discs.
    pub train_error: f64,
    /// Mean absolute error on the held-apart positions, in discs.
    pub held_error: f64,
    /// The same for the seven-feature linear evaluation on the held-apart positions.
    pub held_error_linear: f64,
    /// Epochs run until the held-apart error was lowest.
    pub best_epoch: u32,
}

/// What the trainer reports as it goes.
pub enum TrainProgress<'a> {
    /// Self-play finished with this many distinct positions.
    Positions(usize),
    /// A phase is labelled and fitted.
    Phase(&'a PhaseFit),
}

/// A position and its label, in discs.
struct Sample {
    player: u64,
    opponent: u64,
    label: f32,
}

/// Trains weights with `settings`, reporting each step to `progress`.
pub fn train_pattern_eval(
    settings: &TrainSettings,
    progress: &mut dyn FnMut(TrainProgress),
) -> (PatternWeights, Vec<PhaseFit>) {
    let positions = self_play_positions_by_phase(settings.games, settings.seed);
    progress(TrainProgress::Positions(positions.iter().map(Vec::len).sum()));
    let mut weights = PatternWeights::zero();
    let mut classes: Vec<Vec<i16>> = vec![vec![0; layout().classes()]; PHASES];
    let mut fits = Vec::new();
    for (phase, boards) in positions.iter().enumerate() {
        if phase > 0 {
            classes[phase] = classes[phase - 1].clone();
            weights = PatternWeights::from_classes(&classes);
        }
        let start = Instant::now();
        let samples = label(boards, &weights, settings);
        let label_seconds = start.elapsed().as_secs_f64();
        let (values, errors) = fit_phase(&samples, &classes[phase], settings.epochs);
        classes[phase] = values;
        weights = PatternWeights::from_classes(&classes);
        let exact = boards.iter().filter(|b| b.empties() <= settings.exact_empties).count();
        let fit = PhaseFit {
            phase,
            empties: phase_empties(phase),
            exact,
            searched: boards.len() - exact,
            errors,
            label_seconds,
        };
        progress(TrainProgress::Phase(&fit));
        fits.push(fit);
    }
    (weights, fits)
}

/// The distinct positions of `games` self-play games (a move to play), by phase.
fn self_play_positions_by_phase(games: usize, seed: u64) -> Vec<Vec<Board>> {
    let mut seen = HashSet::new();
    let mut by_phase = vec![Vec::new(); PHASES];
    for game in 0..games as u64 {
        let mut rng = ChaCha8Rng::seed_from_u64(derive_seed(seed, game));
        self_play(&mut rng, |board| {
            if !board.legal_moves().is_empty() && seen.insert(*board) {
                by_phase[phase(board.empties())].push(*board);
            }
            true
        });
    }
    by_phase
}

/// Labels `boards` (all of one phase): exactly where cheap, else by search over `weights`.
fn label(boards: &[Board], weights: &PatternWeights, settings: &TrainSettings) -> Vec<Sample> {
    let depth = settings.search_depth.max(MIN_SEARCH_DEPTH);
    boards
        .par_iter()
        .map_init(
            // Exact scores do not depend on the move order: the solver orders by the
            // fixed linear evaluation, so training never reads the shipped weights.
            || None::<Solver>,
            |solver, board| {
                let (player, opponent) = (board.player(), board.opponent());
                let label = if board.empties() <= settings.exact_empties {
                    let solver = solver.get_or_insert_with(|| Solver::with_evaluator(&LinearEval));
                    solver.score(board).0 as f32
                } else {
                    search_value(weights, player, opponent, depth, &mut 0) as f32 / SCALE as f32
                };
                Sample {
                    player,
                    opponent,
                    label,
                }
            },
        )
        .collect()
}

/// Whether a position is held apart from fitting (one in ten, by a hash of the position).
fn held_apart(sample: &Sample) -> bool {
    let h = sample.player.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ sample.opponent.wrapping_mul(0xc2b2_ae3d_27d4_eb4f);
    (h >> 32).is_multiple_of(10)
}

/// Steps of the fit: each class moves by this share of its mean residual per epoch
/// (a position reads 49 classes, so a share near 1/49 keeps the step stable).
const STEP: f32 = 0.04;
/// Residual sums are divided by the class's count plus this (rare fillings move less).
const DAMPING: f32 = 32.0;

/// Fits one phase's classes to `samples`, starting from `start`.
fn fit_phase(samples: &[Sample], start: &[i16], epochs: u32) -> (Vec<i16>, FitErrors) {
    let layout = layout();
    let per = pattern::features_per_position();
    let classes_of = |s: &Sample, out: &mut Vec<u32>| {
        layout.features(s.player, s.opponent, out);
        for f in out.iter_mut() {
            *f = layout.canonical()[*f as usize];
        }
    };
    let (held, train): (Vec<&Sample>, Vec<&Sample>) = samples.iter().partition(|s| held_apart(s));
    let mut scratch = Vec::with_capacity(per);
    let mut features = |set: &[&Sample]| -> Vec<u32> {
        let mut all = Vec::with_capacity(set.len() * per);
        for s in set {
            classes_of(s, &mut scratch);
            all.extend_from_slice(&scratch);
        }
        all
    };
    let (train_features, held_features) = (features(&train), features(&held));
    let mut count = vec![0f32; layout.classes()];
    for &c in &train_features {
        count[c as usize] += 1.0;
    }
    let mut w: Vec<f32> = start.iter().map(|&v| f32::from(v) / SCALE as f32).collect();
    let error = |w: &[f32], set: &[&Sample], features: &[u32]| -> f64 {
        if set.is_empty() {
            return 0.0;
        }
        let total: f64 = set
            .iter()
            .zip(features.chunks_exact(per))
            .map(|(s, f)| f64::from((s.label - f.iter().map(|&c| w[c as usize]).sum::<f32>()).abs()))
            .sum();
        total / set.len() as f64
    };
    let mut best = (error(&w, &held, &held_features), w.clone(), 0);
    let mut gradient = vec![0f32; layout.classes()];
    for epoch in 1..=epochs {
        gradient.iter_mut().for_each(|g| *g = 0.0);
        for (s, f) in train.iter().zip(train_features.chunks_exact(per)) {
            let residual = s.label - f.iter().map(|&c| w[c as usize]).sum::<f32>();
            for &c in f {
                gradient[c as usize] += residual;
            }
        }
        for ((w, g), n) in w.iter_mut().zip(&gradient).zip(&count) {
            *w += STEP * g / (n + DAMPING);
        }
        let held_error = error(&w, &held, &held_features);
        if held_error < best.0 || held.is_empty() {
            best = (held_error, w.clone(), epoch);
        }
    }
    let (held_error, w, best_epoch) = best;
    let quantised: Vec<i16> = w
        .iter()
        .map(|&v| {
            (v * SCALE as f32)
                .round()
                .clamp(f32::from(i16::MIN), f32::from(i16::MAX)) as i16
        })
        .collect();
    let linear = |s: &&Sample| f64::from(s.label) - crate::linear_evaluate(s.player, s.opponent);
    let held_error_linear = held.iter().map(|s| linear(s).abs()).sum::<f64>() / held.len().max(1) as f64;
    let errors = FitErrors {
        train: train.len(),
        held: held.len(),
        train_error: error(&w, &train, &train_features),
        held_error,
        held_error_linear,
        best_epoch,
    };
    (quantised, errors)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn training_is_reproducible_and_fits_its_labels() {
        let settings = TrainSettings {
            games: 40,
            seed: 5,
            exact_empties: 10,
            search_depth: MIN_SEARCH_DEPTH,
            epochs: 30,
        };
        let mut phases = 0;
        let (weights, fits) = train_pattern_eval(&settings, &mut |step| {
            if let TrainProgress::Phase(_) = step {
                phases += 1;
            }
        });
        assert_eq!(phases, PHASES);
        for fit in &fits {
            if fit.errors.train > 0 {
                assert!(
                    fit.errors.train_error < fit.errors.held_error_linear + 1.0,
                    "phase {} fits its labels: {:?}",
                    fit.phase,
                    fit.errors
                );
            }
        }
        assert!(fits[0].exact > 0 && fits[0].searched == 0 && fits[5].exact == 0);
        let (again, _) = train_pattern_eval(&settings, &mut |_| {});
        assert_eq!(
            weights.to_bytes(),
            again.to_bytes(),
            "the same settings give the same file"
        );
    }
}
