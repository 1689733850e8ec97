//! `bench rate`: the rating fit timed on a synthetic field whose true ratings are
//! known, and how close it came to them.

use std::time::Instant;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::elo::elo_to_score;
use crate::ratings::{check_resamples, fit_ratings, RatedGame, RatingError, RatingOptions, RatingWatch};

/// A synthetic field for the rating fit: `players` true ratings spread evenly at
/// random over 0..2000 Elo, and `players * games_each / 2` games, each between a player
/// (every player in turn) and a random other, won by the model's probability (no
/// draws, no pairs), so each plays `games_each` games on average.
fn rating_field(players: usize, games_each: usize, seed: u64) -> (Vec<f64>, Vec<RatedGame>) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let truth: Vec<f64> = (0..players).map(|_| rng.gen_range(0.0..2000.0)).collect();
    let mut games = Vec::new();
    for k in 0..players * games_each / 2 {
        let first = k % players;
        let second = (first + rng.gen_range(1..players)) % players;
        let expected = elo_to_score(truth[first] - truth[second]);
        let score = if rng.gen_bool(expected) { 1.0 } else { 0.0 };
        games.push(RatedGame {
            first,
            second,
            score,
            pair: None,
        });
    }
    (truth, games)
}

/// [`rating_bench`]'s figures.
#[derive(Clone, Debug)]
pub struct RatingBench {
    /// Players in the field.
    pub players: usize,
    /// Games each plays on average.
    pub games_each: usize,
    /// Games in the field.
    pub games: usize,
    /// Bootstrap resamples of the second fit.
    pub resamples: usize,
    /// The field's seed.
    pub seed: u64,
    /// Seconds of the point estimate with the likelihood intervals.
    pub point_secs: f64,
    /// Seconds of the fit with the resamples.
    pub bootstrap_secs: f64,
    /// The point estimate's root mean square error against the truth, in Elo.
    pub rms: f64,
    /// The share of players whose bootstrap interval holds the truth.
    pub covered: f64,
}

/// Fits a field of `players` (`games_each` games each on average, seed `seed`), the
/// anchor the player nearest 1000: the point estimate (with the likelihood intervals),
/// then the same with `resamples` bootstrap resamples, counted on `watch`.
pub fn rating_bench(
    players: usize,
    games_each: usize,
    resamples: usize,
    seed: u64,
    watch: &RatingWatch,
) -> Result<RatingBench, RatingError> {
    check_resamples(resamples)?;
    let (truth, games) = rating_field(players, games_each, seed);
    let names: Vec<String> = (0..players).map(|p| format!("p{p}")).collect();
    // In the middle, so that the prior's pull toward the anchor squeezes the field
    // evenly: with 1000 virtual draws and 20 real games of the anchor, the field's
    // centre follows the anchor's level.
    let anchor = (0..players)
        .min_by(|&a, &b| (truth[a] - 1000.0).abs().total_cmp(&(truth[b] - 1000.0).abs()))
        .unwrap_or(0);
    let options = RatingOptions {
        anchor,
        anchor_elo: truth.get(anchor).copied().unwrap_or(0.0),
        bootstrap: 0,
        seed,
        confidence: 0.95,
    };
    let start = Instant::now();
    let point = fit_ratings(&names, &games, &options, &[], watch)?;
    let point_secs = start.elapsed().as_secs_f64();
    let start = Instant::now();
    let bootstrap = RatingOptions {
        bootstrap: resamples,
        ..options
    };
    let fitted = fit_ratings(&names, &games, &bootstrap, &[], watch)?;
    let bootstrap_secs = start.elapsed().as_secs_f64();
    let free = (players - 1) as f64;
    let others = || (0..players).filter(|&p| p != anchor);
    let rms = (others().map(|p| (point.ratings[p].elo - truth[p]).powi(2)).sum::<f64>() / free).sqrt();
    let covered = others()
        .filter(|&p| fitted.ratings[p].low <= truth[p] && truth[p] <= fitted.ratings[p].high)
        .count();
    Ok(RatingBench {
        players,
        games_each,
        games: games.len(),
        resamples,
        seed,
        point_secs,
        bootstrap_secs,
        rms,
        covered: covered as f64 / free,
    })
}

impl RatingBench {
    /// The heading, printed before the fits (they take a while), on `cores` cores.
    pub fn heading(players: usize, games_each: usize, seed: u64, cores: usize) -> String {
        format!(
            "rating fit: {players} players 0-2000 Elo apart, {} games ({games_each} each on average, \
             random opponents, seed {seed}), on {cores} cores; the anchor the player nearest 1000",
            players * games_each / 2
        )
    }

    /// The figures as `bench rate` prints them under the heading.
    pub fn text(&self) -> String {
        format!(
            "  point estimate and likelihood intervals: {:8.3} s\n  with {} resamples:                {:8.3} s ({:.1} ms a resample)\n  error against the truth: rms {:.0} Elo; 95% intervals hold the truth for {:.1}% of the players\n",
            self.point_secs,
            self.resamples,
            self.bootstrap_secs,
            1e3 * (self.bootstrap_secs - self.point_secs).max(0.0) / self.resamples as f64,
            self.rms,
            100.0 * self.covered
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rating_field_is_seeded_and_every_player_plays() {
        let (truth, games) = rating_field(50, 20, 3);
        assert_eq!((truth.len(), games.len()), (50, 500));
        assert!(games
            .iter()
            .all(|g| g.first != g.second && g.first < 50 && g.second < 50));
        assert!((0..50).all(|p| games.iter().any(|g| g.first == p || g.second == p)));
        assert_eq!(rating_field(50, 20, 3).1, games);
    }
}
