//! Win/loss/draw tallies from one side's view.

use serde::Serialize;

use crate::interval::wilson_interval;
use crate::stopping::GameScore;

/// Wins, losses and draws from one side's view, with the summed disc margin.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Tally {
    /// Games won.
    pub wins: u32,
    /// Games lost.
    pub losses: u32,
    /// Games drawn.
    pub draws: u32,
    /// Sum of final disc differences (own minus opponent's).
    pub margin_sum: i64,
}

impl Tally {
    /// Adds one game with final disc difference `margin` from this side's view.
    pub fn record(&mut self, margin: i32) {
        match GameScore::from_margin(margin) {
            GameScore::Win => self.wins += 1,
            GameScore::Loss => self.losses += 1,
            GameScore::Draw => self.draws += 1,
        }
        self.margin_sum += i64::from(margin);
    }

    /// Games counted.
    pub fn games(&self) -> u32 {
        self.wins + self.losses + self.draws
    }

    /// Share of games won (draws count as not won); 0 with no games.
    pub fn win_rate(&self) -> f64 {
        ratio(self.wins, self.games())
    }

    /// Mean final disc difference; 0 with no games.
    pub fn mean_margin(&self) -> f64 {
        if self.games() == 0 {
            0.0
        } else {
            self.margin_sum as f64 / f64::from(self.games())
        }
    }

    /// The Wilson 95% interval of the win rate.
    pub fn win_interval(&self) -> (f64, f64) {
        wilson_interval(self.wins, self.games())
    }

    /// The sum of two tallies.
    pub fn merged(&self, other: &Tally) -> Tally {
        Tally {
            wins: self.wins + other.wins,
            losses: self.losses + other.losses,
            draws: self.draws + other.draws,
            margin_sum: self.margin_sum + other.margin_sum,
        }
    }
}

fn ratio(part: u32, whole: u32) -> f64 {
    if whole == 0 {
        0.0
    } else {
        f64::from(part) / f64::from(whole)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tally_counts_and_means() {
        let mut t = Tally::default();
        for margin in [10, -4, 0, 2] {
            t.record(margin);
        }
        assert_eq!((t.wins, t.losses, t.draws, t.games()), (2, 1, 1, 4));
        assert_eq!(t.win_rate(), 0.5);
        assert_eq!(t.mean_margin(), 2.0);
        assert_eq!(t.merged(&t).games(), 8);
    }
}
