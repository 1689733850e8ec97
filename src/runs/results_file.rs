//! `results.json`, typed: what came of a run, as `eval`, `tournament` and `probe`
//! write it at the end of each session (and print it with `--json`). Each command
//! builds its [`RunResults`] and [`RunFolder::write_results`](crate::RunFolder::write_results)
//! writes it. Statistics other modules serialise by hand (an agent's
//! [`AgentStats::to_json`](crate::AgentStats::to_json), a `MoveQuality::to_json` of `arena`)
//! are kept as the JSON they write.

use std::fmt::Write as _;

use serde::Serialize;
use serde_json::Value;

use crate::{HostUsage, Leaderboard};
use stats::{whole, wilson_interval, Decision, Tally};

/// A run's `results.json`, by command (the file names none), borrowed for writing.
#[derive(Clone, Copy, Debug, Serialize)]
#[serde(untagged)]
pub enum RunResults<'a> {
    /// An `eval`'s.
    Eval(&'a EvalResults),
    /// A `tournament`'s.
    Tournament(&'a TournamentResults),
    /// A `probe`'s.
    Probe(&'a ProbeResults),
    /// A rules probe's (`probe --ask legal-moves|after-move`).
    RulesProbe(&'a RulesProbeResults),
}

/// A share with its Wilson 95% interval: `hits` of `of`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Share {
    /// What is counted (`exact_set`, `precision`, ...).
    pub name: String,
    /// The hits.
    pub hits: u32,
    /// Out of.
    pub of: u32,
    /// `hits / of` (0 when `of` is 0).
    pub rate: f64,
    /// The interval's low end.
    pub ci_low: f64,
    /// The interval's high end.
    pub ci_high: f64,
}

impl Share {
    /// `hits` of `of`, named `name`, with its interval.
    pub fn new(name: &str, hits: u32, of: u32) -> Share {
        let (ci_low, ci_high) = wilson_interval(hits, of);
        Share {
            name: name.to_string(),
            hits,
            of,
            rate: if of == 0 { 0.0 } else { f64::from(hits) / f64::from(of) },
            ci_low,
            ci_high,
        }
    }
}

/// A rules probe's results: the overall shares and each position's scores.
#[derive(Clone, Debug, Serialize)]
pub struct RulesProbeResults {
    /// `legal-moves` or `after-move`.
    pub ask: String,
    /// Positions asked.
    pub positions: u32,
    /// Answers that could not be read (no JSON asked for, no 8 rows), scored as wrong.
    pub unreadable: u32,
    /// Answers the server cut off at the token limit (`done_reason` `length`): the
    /// budget's fault, not scored (absent in older results).
    pub cut_off: u32,
    /// Requests that failed (not scored).
    pub errors: u32,
    /// The overall shares, each with its interval.
    pub shares: Vec<Share>,
    /// Each position's scores, in file order.
    pub per_position: Vec<Value>,
    /// The run folder.
    pub log_dir: String,
}

impl RunResults<'_> {
    /// The results as JSON, keys sorted as results.json has always been written (see
    /// [`RunFile::to_json`](crate::RunFile::to_json)): what the file holds and `--json` prints.
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).expect("results have string keys only")
    }
}

/// An `eval`'s results.
#[derive(Clone, Debug, Serialize)]
pub struct EvalResults {
    /// Per opponent, in schedule order.
    pub opponents: Vec<OpponentResults>,
    /// The agent over all games ([`AgentStats::to_json`](crate::AgentStats::to_json)).
    pub agent: Value,
    /// Whether every scheduled game finished.
    pub complete: bool,
    /// Scheduled games that did not finish (not counted).
    pub unfinished_games: usize,
    /// The run folder.
    pub log_dir: String,
    /// Each host's usage over every session of the run.
    pub hosts: Vec<HostUsage>,
    /// With `--stop`: the rule and where each opponent stopped.
    #[serde(flatten)]
    pub stopping: Option<Stopping>,
    /// With `--score-moves`, once every game finished: the quality of the agent's
    /// moves (`arena::MoveQuality::to_json`) with a `reference`
    /// key holding the reference's settings.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub move_quality: Option<Value>,
}

/// An eval's results against one opponent.
#[derive(Clone, Debug, Serialize)]
pub struct OpponentResults {
    /// The opponent's spec.
    pub opponent: String,
    /// Games scheduled as each colour.
    pub games_per_color: usize,
    /// The agent's games as black.
    pub as_black: TallySummary,
    /// The agent's games as white.
    pub as_white: TallySummary,
    /// Both colours.
    pub overall: TallySummary,
    /// The agent in these games ([`AgentStats::to_json`](crate::AgentStats::to_json)).
    pub agent: Value,
    /// With `--score-moves`: the agent's move quality in these games.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub move_quality: Option<Value>,
}

/// An eval's stop rule and its stops.
#[derive(Clone, Debug, Serialize)]
pub struct Stopping {
    /// The rule, as `--stop` writes it.
    pub stop_rule: String,
    /// Per opponent: where the rule stopped its games (`null`: unfinished).
    pub stops: Vec<Option<PairingStop>>,
}

/// Wins, losses and draws with the win rate's interval and the mean margin.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct TallySummary {
    /// Games counted.
    pub games: u32,
    /// Games won.
    pub wins: u32,
    /// Games lost.
    pub losses: u32,
    /// Games drawn.
    pub draws: u32,
    /// Wins over games (a draw is not a win; 0 without games).
    pub win_rate: f64,
    /// The Wilson 95% score interval of the win rate: low end.
    pub ci_low: f64,
    /// Its high end.
    pub ci_high: f64,
    /// The mean final margin, in the game's unit (Othello: discs).
    pub mean_disc_diff: f64,
}

impl From<&Tally> for TallySummary {
    fn from(t: &Tally) -> TallySummary {
        let (ci_low, ci_high) = t.win_interval();
        TallySummary {
            games: t.games(),
            wins: t.wins,
            losses: t.losses,
            draws: t.draws,
            win_rate: t.win_rate(),
            ci_low,
            ci_high,
            mean_disc_diff: t.mean_margin(),
        }
    }
}

/// A `tournament`'s results.
#[derive(Clone, Debug, Serialize)]
pub struct TournamentResults {
    /// Per pairing, in schedule order.
    pub pairings: Vec<PairingResult>,
    /// The players' ratings over every game of the run.
    pub ratings: TournamentRatings,
    /// Whether every needed game finished.
    pub complete: bool,
    /// The run folder.
    pub log_dir: String,
}

/// One pairing's games, from its first player's side.
#[derive(Clone, Debug, Serialize)]
pub struct PairingResult {
    /// The pairing's label (`A vs B`).
    pub pairing: String,
    /// Games finished.
    pub games: u32,
    /// The first player's wins.
    pub wins: u32,
    /// Draws.
    pub draws: u32,
    /// The first player's losses.
    pub losses: u32,
    /// Where the stop rule stopped the pairing (`null`: no rule, or unfinished).
    pub stop: Option<PairingStop>,
}

impl PairingResult {
    /// The pairings' table: games, the first player's W-D-L, and the stop.
    pub fn table(pairings: &[PairingResult]) -> String {
        let mut out = String::new();
        let width = pairings.iter().map(|p| p.pairing.len()).max().unwrap_or(8).max(8);
        let _ = writeln!(out, "{:width$}  games  W-D-L (first player)  stop", "pairing");
        for p in pairings {
            let stop = p.stop.as_ref().map(PairingStop::describe).unwrap_or_default();
            let _ = writeln!(
                out,
                "{:width$}  {:>5}  {:>21}  {stop}",
                p.pairing,
                p.games,
                format!("{}-{}-{}", p.wins, p.draws, p.losses)
            );
        }
        out
    }
}

/// A tournament's leaderboards.
#[derive(Clone, Debug, Serialize)]
pub struct TournamentRatings {
    /// The games as played (`null`: an interrupted run that cannot be rated yet).
    pub as_played: Option<Leaderboard>,
    /// The games a fallback moved in counted as losses (`null`: there were none).
    pub fallback_as_loss: Option<Leaderboard>,
}

/// A `probe`'s results.
#[derive(Clone, Debug, Serialize)]
pub struct ProbeResults {
    /// Positions probed.
    pub positions: u32,
    /// The answers graded against the reference's best moves.
    pub against_best: GradeCounts,
    /// The teacher whose moves the positions carry, if any.
    pub teacher: Option<String>,
    /// The answers graded against the teacher's moves (`null` without a teacher).
    pub against_teacher: Option<GradeCounts>,
    /// Moves the model made itself (scored for regret).
    pub model_moves: usize,
    /// The mean regret of the model's own moves (`null`: none was scored).
    pub mean_regret: Option<MeanRegret>,
    /// Positions where the fallback moved.
    pub fallback_moves: u32,
    /// Fallback moves over positions.
    pub fallback_rate: f64,
    /// The Wilson 95% interval of the fallback rate: low end.
    pub fallback_ci_low: f64,
    /// Its high end.
    pub fallback_ci_high: f64,
    /// Answers that named no legal move.
    pub invalid_answers: u32,
    /// Invalid answers over positions.
    pub invalid_answers_per_position: f64,
    /// The run folder.
    pub log_dir: String,
}

/// Answers by grade, with the accuracy and its interval.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct GradeCounts {
    /// The model's own move matched the label.
    pub correct: u32,
    /// The model's own move, another one.
    pub wrong: u32,
    /// No legal answer: the fallback moved.
    pub invalid: u32,
    /// The request failed.
    pub error: u32,
    /// Correct over all (0 without answers).
    pub accuracy: f64,
    /// The Wilson 95% interval of the accuracy: low end.
    pub accuracy_ci_low: f64,
    /// Its high end.
    pub accuracy_ci_high: f64,
}

impl GradeCounts {
    /// The counts of correct, wrong, invalid and error answers, in that order.
    pub fn new([correct, wrong, invalid, error]: [u32; 4]) -> GradeCounts {
        let total = correct + wrong + invalid + error;
        let (accuracy_ci_low, accuracy_ci_high) = wilson_interval(correct, total);
        GradeCounts {
            correct,
            wrong,
            invalid,
            error,
            accuracy: if total == 0 {
                0.0
            } else {
                f64::from(correct) / f64::from(total)
            },
            accuracy_ci_low,
            accuracy_ci_high,
        }
    }
}

/// The mean regret of the model's own moves, with its interval.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct MeanRegret {
    /// The mean, in the game's unit.
    pub mean: f64,
    /// The 95% interval: low end (never below 0).
    pub ci_low: f64,
    /// Its high end.
    pub ci_high: f64,
    /// Moves scored exactly (by the solver).
    pub exact_moves: u32,
}

/// The rule's answer for a pairing after a number of pairs: where it stopped, or a
/// step of the decision log.
#[derive(Clone, Debug, Serialize)]
pub struct PairingStop {
    /// The pairing's label.
    pub pairing: String,
    /// Pairs played when the rule was asked.
    pub pairs: u32,
    /// Its answer (for a stop: a stop verdict, or `continue` when the cap was reached).
    pub decision: Decision,
}

impl PairingStop {
    /// Where each pairing that stopped did, one line each (`PAIRING: ` and
    /// [`PairingStop::describe`]).
    pub fn lines(stops: &[Option<PairingStop>]) -> String {
        let mut out = String::new();
        for stop in stops.iter().flatten() {
            let _ = writeln!(out, "{}: {}", stop.pairing, stop.describe());
        }
        out
    }

    /// Where the pairing stopped, as every table prints it: the rule's verdict after
    /// the pairs played (`accept_h1 after 3 pair(s)`), or, when its pairs ran out with
    /// the rule still undecided, that it stopped at that cap undecided; then the rule's
    /// figures: an SPRT's LLR and its bounds, else the Elo interval.
    pub fn describe(&self) -> String {
        let d = &self.decision;
        let head = if d.verdict.is_stop() {
            let verdict = serde_json::to_value(d.verdict).ok();
            let verdict = verdict.as_ref().and_then(Value::as_str).unwrap_or_default();
            format!("{verdict} after {} pair(s)", self.pairs)
        } else {
            format!("undecided at the cap of {} pair(s)", self.pairs)
        };
        if let Some(intrinsic) = &d.intrinsic {
            return format!(
                "{head} (intrinsic Elo {:.0} [{:.0}, {:.0}], width {:.0})",
                whole(intrinsic.estimate),
                whole(intrinsic.low),
                whole(intrinsic.high),
                whole(intrinsic.width())
            );
        }
        match (d.llr, d.lower, d.upper, &d.elo) {
            (Some(llr), Some(lower), Some(upper), _) => {
                format!("{head} (LLR {llr:.2}, bounds [{lower:.2}, {upper:.2}])")
            }
            (_, _, _, Some(elo)) => format!(
                "{head} (Elo {:.0} [{:.0}, {:.0}])",
                whole(elo.estimate),
                whole(elo.low),
                whole(elo.high)
            ),
            _ => head,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use stats::{EloInterval, TrialUnit, Verdict};

    fn stop(verdict: Verdict, sprt: bool) -> PairingStop {
        PairingStop {
            pairing: "llm:m vs random".to_string(),
            pairs: 2,
            decision: Decision {
                verdict,
                llr: sprt.then_some(0.4142),
                lower: sprt.then_some(-2.944),
                upper: sprt.then_some(2.944),
                elo: Some(EloInterval {
                    estimate: 120.2,
                    low: -35.0,
                    high: 310.6,
                }),
                intrinsic: None,
                trials: 2,
                unit: TrialUnit::Pair,
            },
        }
    }

    #[test]
    fn a_stop_at_the_cap_reads_as_undecided_with_the_rules_figures() {
        assert_eq!(
            stop(Verdict::Continue, true).describe(),
            "undecided at the cap of 2 pair(s) (LLR 0.41, bounds [-2.94, 2.94])"
        );
        assert_eq!(
            stop(Verdict::AcceptH1, true).describe(),
            "accept_h1 after 2 pair(s) (LLR 0.41, bounds [-2.94, 2.94])"
        );
        assert_eq!(
            stop(Verdict::Continue, false).describe(),
            "undecided at the cap of 2 pair(s) (Elo 120 [-35, 311])"
        );
        let mut intrinsic = stop(Verdict::IntrinsicNarrow, false);
        intrinsic.decision.intrinsic = Some(EloInterval {
            estimate: 250.4,
            low: 100.0,
            high: 380.0,
        });
        assert_eq!(
            intrinsic.describe(),
            "intrinsic_narrow after 2 pair(s) (intrinsic Elo 250 [100, 380], width 280)"
        );
    }
}
