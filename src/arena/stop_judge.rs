//! A pairing's stop rule as a run plays it: the rule (`stats::StopRule`), and for the
//! intrinsic rule (`intrinsic:WIDTH`) what rates A's decisions as the games come in:
//! each finished game's decisions of A valued by the calibration's reference (as
//! `rate` values them) and rated through the calibration, as the intrinsic table
//! rates a player.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use agent::ModelGame;
use game::othello::Color;
use runs::{Calibration, DEFAULT_BOOTSTRAP_SEED, MAX_INTRINSIC_RESAMPLES};
use stats::{Choice, EloInterval, StopRule};

use super::play::GameRecord;
use super::quality::{score_games, GameToScore, MoveScorer, ScoringWatch};

/// A run's stop rule, with the calibration the intrinsic rule rates through.
#[derive(Clone, Debug)]
pub struct StopJudge {
    /// The rule asked after every colour-swapped pair.
    pub rule: StopRule,
    /// The calibration of the intrinsic rule (`None` for the others).
    calibration: Option<Arc<Calibration>>,
}

/// Why a stop rule cannot be played.
#[derive(Debug, thiserror::Error)]
pub enum StopJudgeError {
    /// The intrinsic rule without a calibration.
    #[error("--stop {rule} rates the player's decisions through the intrinsic calibration, and there is none: {why}")]
    NoCalibration {
        /// The rule.
        rule: StopRule,
        /// Why there is no calibration.
        why: String,
    },
    /// The intrinsic rule in a game the calibration is not for.
    #[error("--stop {rule} needs the intrinsic calibration, which is Othello's: use sprt: or ci: for {game}")]
    OtherGame {
        /// The rule.
        rule: StopRule,
        /// The game played.
        game: game::Game,
    },
}

impl StopJudge {
    /// `rule` for game `R`; the intrinsic rule takes its calibration from
    /// `calibration` (asked only then), and is refused without one or for a game
    /// other than Othello.
    pub fn new<R: ModelGame>(
        rule: StopRule,
        calibration: impl FnOnce() -> Result<Calibration, String>,
    ) -> Result<StopJudge, StopJudgeError> {
        if !rule.is_intrinsic() {
            return Ok(StopJudge {
                rule,
                calibration: None,
            });
        }
        let game = game::Game::of::<R>();
        if game != game::Game::Othello {
            return Err(StopJudgeError::OtherGame { rule, game });
        }
        let calibration = calibration().map_err(|why| StopJudgeError::NoCalibration { rule, why })?;
        Ok(StopJudge {
            rule,
            calibration: Some(Arc::new(calibration)),
        })
    }

    /// Whether the rule rates A's decisions (so each game of A must be valued).
    pub fn values_decisions(&self) -> bool {
        self.calibration.is_some()
    }

    /// The decisions `color` made in `record` that the intrinsic rule rates: every
    /// move of that side valued by the calibration's reference (fallback and forced
    /// moves left out, as the intrinsic table leaves them); none for the other rules.
    pub fn decisions<R: ModelGame>(&self, record: &GameRecord<R>, color: Color) -> Vec<Choice> {
        let Some(calibration) = &self.calibration else {
            return Vec::new();
        };
        let runs::CalibrationReference { exact_empties, depth } = calibration.reference;
        let scorer = move || MoveScorer::Ours(R::reference(exact_empties, depth));
        let game = GameToScore {
            number: 1,
            record,
            colors: vec![color],
        };
        // Our reference never fails and nothing sets the stop flag.
        let scored =
            score_games(&[game], &scorer, 1, &ScoringWatch::default(), &AtomicBool::new(false)).unwrap_or_default();
        scored
            .iter()
            .filter_map(|m| m.choice().filter(|c| calibration.decisions.keeps(m, c)))
            .collect()
    }

    /// A's intrinsic rating from its decisions so far (one list per game), as the
    /// intrinsic table rates a player; `None` for the other rules, and while the
    /// rating has no number (a fit on a bound or outside the calibration's range).
    pub fn intrinsic(&self, games: &[Vec<Choice>]) -> Option<EloInterval> {
        let calibration = self.calibration.as_ref()?;
        let (_, rated) = calibration.rate(games, MAX_INTRINSIC_RESAMPLES, DEFAULT_BOOTSTRAP_SEED);
        Some(EloInterval {
            estimate: rated.elo?,
            low: rated.low?,
            high: rated.high?,
        })
    }
}
