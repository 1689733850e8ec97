//! Two tables, one player (issue 54): the rule every face applies where an intrinsic
//! rating is shown beside the rating by results, written once here.
//!
//! - Where the method was validated ([`Calibration::validated`]): the calibration's
//!   rungs, sharpest first, fall in ladder order (every sharper rung stronger than
//!   every flatter one) only down to some sensitivity; below it (flatter) rungs of very
//!   different strength fit alike (docs/intrinsic.md: n-most:2, 124 Elo, fits sharper
//!   than greedy, 300). A player whose fit is flatter than that gets no number, with
//!   the reason ([`IntrinsicTable::rate`] asks).
//! - Where both are shown ([`IntrinsicTable::beside`]): a player whose two 95%
//!   intervals do not overlap has its row say so, with the results interval.

use serde::Serialize;
use stats::ChoiceModel;

use crate::intrinsic::{Calibration, CalibrationRung, IntrinsicTable};
use crate::leaderboard::Leaderboard;

/// How far down a calibration's rungs keep their ladder order.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Validated {
    /// The flattest sensitivity validated: the weakest rung still in order.
    pub s_high: f64,
    /// That rung, and its ladder rating.
    pub weakest: (String, f64),
    /// The flatter rung that breaks the order first, and its ladder rating and
    /// sensitivity (`None`: every rung is in order).
    pub breaks: Option<(String, f64, f64)>,
}

impl Validated {
    /// Why a player of sensitivity `s` gets no number.
    pub fn refusal(&self, s: f64) -> String {
        let (weakest, elo) = &self.weakest;
        let breaks = self.breaks.as_ref().map_or_else(String::new, |(rung, elo, s)| {
            format!(" ({rung}, {elo:.0} Elo, fits s {s:.1})")
        });
        format!(
            "not validated here: flatter (s {s:.1}) than {weakest} (s {:.1}, {elo:.0} Elo), below which the \
             calibration's rungs no longer fall in ladder order{breaks}; no number (docs/intrinsic.md)",
            self.s_high
        )
    }
}

impl Calibration {
    /// The sensitivity of `rung` under the kept model.
    fn rung_s(&self, rung: &CalibrationRung) -> f64 {
        match self.model {
            ChoiceModel::Softmax => rung.softmax_s,
            ChoiceModel::Regan => rung.regan_s,
        }
    }

    /// How far down the rungs keep their ladder order: sorted sharpest first, the
    /// longest run of cuts from the top at which every sharper rung is rated at least
    /// as high on the ladder as every flatter one. `None` with fewer than two rungs or
    /// when the two sharpest are already out of order.
    pub fn validated(&self) -> Option<Validated> {
        let mut rungs: Vec<(&CalibrationRung, f64)> = self.rungs.iter().map(|r| (r, self.rung_s(r))).collect();
        rungs.sort_by(|a, b| a.1.total_cmp(&b.1));
        let mut last_in_order = None;
        for cut in 1..rungs.len() {
            let sharper_min = rungs[..cut].iter().map(|(r, _)| r.elo).fold(f64::INFINITY, f64::min);
            let flatter_max = rungs[cut..]
                .iter()
                .map(|(r, _)| r.elo)
                .fold(f64::NEG_INFINITY, f64::max);
            if sharper_min < flatter_max {
                break;
            }
            last_in_order = Some(cut);
        }
        let cut = last_in_order?;
        let (weakest, s_high) = rungs[cut - 1];
        // The next flatter rung: the order breaks with it.
        let breaks = rungs.get(cut).map(|(r, s)| (r.player.clone(), r.elo, *s));
        Some(Validated {
            s_high,
            weakest: (weakest.player.clone(), weakest.elo),
            breaks,
        })
    }
}

impl IntrinsicTable {
    /// Marks each row whose 95% interval does not overlap the same player's interval
    /// in `results` (the rating by results of the same games), with that interval;
    /// every face that shows both tables calls it.
    pub fn beside(&mut self, results: &Leaderboard) {
        for row in &mut self.rows {
            row.disagrees = None;
            let (Some(low), Some(high)) = (row.low, row.high) else {
                continue;
            };
            let Some(by_results) = results.rows.iter().find(|r| r.player == row.player) else {
                continue;
            };
            let rating = &by_results.rating;
            if !(rating.low.is_finite() && rating.high.is_finite()) {
                continue;
            }
            if high < rating.low || low > rating.high {
                row.disagrees = Some(format!(
                    "the intervals do not overlap: by results {:.0} [{:.0}, {:.0}]",
                    stats::whole(rating.elo),
                    stats::whole(rating.low),
                    stats::whole(rating.high)
                ));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::intrinsic::IntrinsicRow;
    use crate::leaderboard::{LeaderRow, RatingView};
    use stats::{Params, Rating};

    fn shipped() -> Calibration {
        toml::from_str(crate::SHIPPED_CALIBRATION).unwrap()
    }

    #[test]
    fn the_shipped_calibration_is_validated_down_to_alphabeta_1() {
        // docs/intrinsic.md: from alphabeta:1:weight up the sensitivity falls with
        // strength in ladder order; n-most:2 (124) fits sharper than greedy (300).
        let validated = shipped().validated().unwrap();
        assert_eq!(validated.weakest.0, "alphabeta:1:weight");
        assert!((validated.s_high - 23.2741).abs() < 1e-9);
        assert_eq!(validated.breaks.as_ref().unwrap().0, "n-most:2");
        let why = validated.refusal(31.9);
        assert!(
            why.contains("not validated") && why.contains("alphabeta:1:weight"),
            "{why}"
        );
    }

    #[test]
    fn a_fit_flatter_than_the_validated_range_gets_no_number() {
        let calibration = shipped();
        // Gaps of 0, 20, 40 and 60 discs chosen 45, 28, 17 and 10 times in 100, as a
        // softmax of s = 40 chooses: inside the map (4.95 to 78.2), flatter than 23.3.
        let chosen = |i: usize| match i % 100 {
            0..=44 => 0,
            45..=72 => 1,
            73..=89 => 2,
            _ => 3,
        };
        let flat: Vec<Vec<stats::Choice>> = (0..8)
            .map(|g| {
                (0..100)
                    .map(|i| stats::Choice::from_values(&[60.0, 40.0, 20.0, 0.0], chosen(i + g)).unwrap())
                    .collect()
            })
            .collect();
        let (fit, rated) = calibration.rate(&flat, 20, 1);
        assert!(
            fit.params.s > 23.3 && calibration.map.holds_for(fit.params.s),
            "{fit:?}"
        );
        assert_eq!(rated.elo, None);
    }

    fn table_row(player: &str, low: f64, high: f64) -> IntrinsicRow {
        IntrinsicRow {
            player: player.into(),
            elo: Some((low + high) / 2.0),
            low: Some(low),
            high: Some(high),
            decisions: 100,
            level_decisions: 0,
            games: 4,
            params: Params { s: 10.0, c: 1.0 },
            place: String::new(),
            disagrees: None,
        }
    }

    fn board_row(player: &str, elo: f64, low: f64, high: f64) -> LeaderRow {
        LeaderRow {
            player: player.into(),
            kind: record::PlayerKind::Llm,
            rating: Rating {
                elo,
                low,
                high,
                games: 40,
                score: 20.0,
            },
            moves: None,
            fallback_games: None,
            ladder: None,
            agent: None,
        }
    }

    #[test]
    fn a_row_whose_intervals_do_not_overlap_says_so() {
        // The first-legal-move client: results 25 [-81, 134], intrinsic
        // 448 [84, 810] overlap; [200, 810] would not.
        let mut table = IntrinsicTable {
            model: Some(ChoiceModel::Softmax),
            rows: vec![table_row("llm:a", 84.0, 810.0), table_row("llm:b", 200.0, 810.0)],
            notes: Vec::new(),
        };
        let board = Leaderboard {
            view: RatingView::AsPlayed,
            anchor: ("random".into(), 0.0),
            held: Vec::new(),
            games: 80,
            rows: vec![
                board_row("llm:a", 25.0, -81.0, 134.0),
                board_row("llm:b", 25.0, -81.0, 134.0),
            ],
            notes: Vec::new(),
        };
        table.beside(&board);
        assert_eq!(table.rows[0].disagrees, None);
        let said = table.rows[1].disagrees.as_deref().unwrap();
        assert_eq!(said, "the intervals do not overlap: by results 25 [-81, 134]");
        assert!(table.text().contains(said), "{}", table.text());
    }
}
