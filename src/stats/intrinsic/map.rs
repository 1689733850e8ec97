//! The calibration of intrinsic ratings: a monotone map from a player's fitted
//! sensitivity to the Elo scale, fitted on players of known rating (the ladder's
//! engines), with its residual error and the range where it holds.

use serde::{Deserialize, Serialize};

use super::{ChoiceFit, S_RANGE};
use crate::interval::{percentile, Z_95};

/// How much wider than its ends the range is taken (a relative slack).
const RANGE_SLACK: f64 = 1e-3;

/// One calibration player: its known rating and its fitted sensitivity.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MapPoint {
    /// The player.
    pub player: String,
    /// Its known rating.
    pub elo: f64,
    /// Its fitted sensitivity.
    pub s: f64,
}

/// `elo = intercept + slope · ln s`, fitted by least squares on calibration players
/// whose fits ended inside [`S_RANGE`]; it holds for sensitivities between `s_low`
/// and `s_high` (the sharpest and flattest of them) and nowhere else.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct EloMap {
    /// Elo at `s = 1`.
    pub intercept: f64,
    /// Elo per natural-log unit of `s` (negative: a sharper player is stronger).
    pub slope: f64,
    /// The residual standard deviation of the calibration players about the line, Elo.
    pub residual_sd: f64,
    /// The sharpest calibration player's sensitivity (the strong end of the range).
    pub s_low: f64,
    /// The flattest calibration player's sensitivity (the weak end).
    pub s_high: f64,
}

/// Why no map can be fitted.
#[derive(Debug, PartialEq, thiserror::Error)]
pub enum MapError {
    /// Too few calibration players inside the search range.
    #[error("{points} calibration player(s) with a sensitivity inside the search range: a map needs at least 3; play more rungs")]
    TooFewPoints {
        /// How many there were.
        points: usize,
    },
    /// Ratings that do not fall as the sensitivity grows.
    #[error("the calibration players' ratings do not fall as their sensitivity grows (slope {slope:.1} Elo per ln s): the values do not rank these players; calibrate on other rungs")]
    NotMonotone {
        /// The fitted slope.
        slope: f64,
    },
    /// A number of a map read from a file that is not finite.
    #[error("the map's {field} is {value}, not a finite number: the file was edited or damaged; write it again")]
    NotFinite {
        /// The field (`intercept`, `slope`, `residual_sd`, `s_low`, `s_high`).
        field: &'static str,
        /// Its value.
        value: f64,
    },
    /// A negative residual (a standard deviation is never below 0).
    #[error(
        "the map's residual_sd is {residual_sd}, below 0: a standard deviation is never negative; write the file again"
    )]
    NegativeResidual {
        /// The residual.
        residual_sd: f64,
    },
    /// A range that is empty or not of sensitivities (which are above 0).
    #[error("the map's range s_low {s_low} to s_high {s_high} is not a range of sensitivities (0 < s_low <= s_high); write the file again")]
    BadRange {
        /// The strong end.
        s_low: f64,
        /// The weak end.
        s_high: f64,
    },
}

/// A player's intrinsic rating through an [`EloMap`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct IntrinsicElo {
    /// The rating; `None` when the player's sensitivity lies outside the map's range.
    pub elo: Option<f64>,
    /// The 95% interval: bootstrap over games through the map, widened by the map's
    /// residual error (absent with the rating).
    pub low: Option<f64>,
    /// Its upper end.
    pub high: Option<f64>,
}

impl EloMap {
    /// The least-squares line through `points` that are inside [`S_RANGE`]; refused
    /// with fewer than 3 such points or a slope that is not negative.
    pub fn fit(points: &[MapPoint]) -> Result<EloMap, MapError> {
        let inside: Vec<(f64, f64)> = points
            .iter()
            .filter(|p| p.s > S_RANGE.0 * 1.01 && p.s < S_RANGE.1 / 1.01)
            .map(|p| (p.s.ln(), p.elo))
            .collect();
        let n = inside.len() as f64;
        if inside.len() < 3 {
            return Err(MapError::TooFewPoints { points: inside.len() });
        }
        let mean_x = inside.iter().map(|p| p.0).sum::<f64>() / n;
        let mean_y = inside.iter().map(|p| p.1).sum::<f64>() / n;
        let sxx: f64 = inside.iter().map(|p| (p.0 - mean_x).powi(2)).sum();
        let sxy: f64 = inside.iter().map(|p| (p.0 - mean_x) * (p.1 - mean_y)).sum();
        let slope = if sxx > 0.0 { sxy / sxx } else { 0.0 };
        if slope >= 0.0 {
            return Err(MapError::NotMonotone { slope });
        }
        let intercept = mean_y - slope * mean_x;
        let ssr: f64 = inside.iter().map(|p| (p.1 - intercept - slope * p.0).powi(2)).sum();
        let xs = inside.iter().map(|p| p.0);
        Ok(EloMap {
            intercept,
            slope,
            residual_sd: (ssr / (n - 2.0)).sqrt(),
            s_low: xs.clone().fold(f64::INFINITY, f64::min).exp(),
            s_high: xs.fold(f64::NEG_INFINITY, f64::max).exp(),
        })
    }

    /// Whether a map read from a file is one [`EloMap::fit`] could have made: every
    /// number finite, the slope below 0 (a sharper player rates higher), the residual
    /// not below 0, and `0 < s_low <= s_high`.
    pub fn check(&self) -> Result<(), MapError> {
        let numbers = [
            ("intercept", self.intercept),
            ("slope", self.slope),
            ("residual_sd", self.residual_sd),
            ("s_low", self.s_low),
            ("s_high", self.s_high),
        ];
        if let Some(&(field, value)) = numbers.iter().find(|(_, value)| !value.is_finite()) {
            return Err(MapError::NotFinite { field, value });
        }
        if self.slope >= 0.0 {
            return Err(MapError::NotMonotone { slope: self.slope });
        }
        if self.residual_sd < 0.0 {
            return Err(MapError::NegativeResidual {
                residual_sd: self.residual_sd,
            });
        }
        if !(self.s_low > 0.0 && self.s_low <= self.s_high) {
            return Err(MapError::BadRange {
                s_low: self.s_low,
                s_high: self.s_high,
            });
        }
        Ok(())
    }

    /// The line's Elo at sensitivity `s`, inside the range or not.
    pub fn line(&self, s: f64) -> f64 {
        self.intercept + self.slope * s.ln()
    }

    /// Whether `s` lies in the range the map holds for (its ends taken a thousandth
    /// wider, so that a file's rounded ends keep the rungs they came from).
    pub fn holds_for(&self, s: f64) -> bool {
        (self.s_low * (1.0 - RANGE_SLACK)..=self.s_high * (1.0 + RANGE_SLACK)).contains(&s)
    }

    /// The rating of a player fitted as `fit`, with the interval from its bootstrap
    /// fits `resampled`: no number when `fit` ended on a bound or outside the range.
    pub fn rate(&self, fit: &ChoiceFit, resampled: &[ChoiceFit]) -> IntrinsicElo {
        let none = IntrinsicElo {
            elo: None,
            low: None,
            high: None,
        };
        if fit.at_bound.is_some() || !self.holds_for(fit.params.s) {
            return none;
        }
        let elo = self.line(fit.params.s);
        let mapped: Vec<f64> = resampled.iter().map(|f| self.line(f.params.s)).collect();
        let residual = Z_95 * self.residual_sd;
        let widen = |bound: f64| ((bound - elo).powi(2) + residual.powi(2)).sqrt();
        let (low, high) = match (percentile(&mapped, 2.5), percentile(&mapped, 97.5)) {
            (Some(low), Some(high)) => (elo - widen(low.min(elo)), elo + widen(high.max(elo))),
            _ => (elo - residual, elo + residual),
        };
        IntrinsicElo {
            elo: Some(elo),
            low: Some(low),
            high: Some(high),
        }
    }
}
