//! Intrinsic ratings of the players of some runs: each player's valued decisions (the
//! `values` of its lines in `move-scores.jsonl`) fitted by a choice model and carried
//! to the Elo scale by a calibration on the ladder's engines ([`Calibration`], shipped
//! as docs/intrinsic-calibration.toml). The maths is `stats`' ([`stats::fit_choices`],
//! [`stats::EloMap`]).
//!
//! A decision counts when the player chose it (fallback moves never do) among two or
//! more legal moves not all of one value (forced moves, passes and a choice among
//! equal moves carry no information; the last are counted apart and named in a note,
//! since fitted they would read as sharper than the strongest rung).

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use stats::{
    bootstrap_fits, fit_choices, held_out_log_loss, interval_coverage, ladder_position, Choice, ChoiceFit, ChoiceModel,
    Coverage, Draws, EloMap, IntrinsicElo, MapError, MapPoint, Params,
};

use crate::logs::{GameLogs, LoggedGame};
use crate::move_scores::{faulty_games, read_move_scores, MoveScoresError, ScoredMove};
use crate::players::PlayerNames;
use crate::Ladder;
use game::othello::Color;

/// Every player's valued decisions, game by game, and notes on the runs that had none.
#[derive(Clone, Debug, Default)]
pub struct Decisions {
    /// Each player (by spec, sorted) with its decisions, one list per game.
    pub players: BTreeMap<String, Vec<Vec<Choice>>>,
    /// Each player's decisions left out because every legal move had the same value
    /// ([`ScoredMove::is_level`]).
    pub level: BTreeMap<String, usize>,
    /// Runs whose moves were never valued, one sentence each.
    pub notes: Vec<String>,
}

/// Which valued decisions the fits use (the issue's weak-end directions): all of them
/// (the default), or only those valued exactly, or only those whose stakes (the spread
/// from the best move's value to the worst's) are at least `min_spread` discs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DecisionFilter {
    /// Only decisions whose values were exact (the reference's solver, not its search).
    #[serde(default)]
    pub exact_only: bool,
    /// Only decisions whose values spread at least this far, discs.
    #[serde(default)]
    pub min_spread: f64,
}

impl DecisionFilter {
    /// Whether it keeps every decision.
    pub fn is_all(&self) -> bool {
        !self.exact_only && self.min_spread <= 0.0
    }

    /// Whether it keeps `choice`, the decision `scored` records.
    pub fn keeps(&self, scored: &ScoredMove, choice: &Choice) -> bool {
        let spread = choice.gaps.iter().copied().fold(0.0, f64::max);
        (scored.exact || !self.exact_only) && spread >= self.min_spread
    }
}

/// Scored moves held in memory, by run folder (as [`GameLogs::runs`] names it): what
/// `rate` valued for a folder it could not write, read in place of its
/// `move-scores.jsonl`.
pub type HeldScores = BTreeMap<PathBuf, Vec<ScoredMove>>;

impl Decisions {
    /// The valued decisions of every game `logs` read that `filter` keeps, from each
    /// run folder's `move-scores.jsonl`.
    pub fn read(logs: &GameLogs, filter: DecisionFilter) -> Result<Decisions, MoveScoresError> {
        Decisions::read_held(logs, filter, &HeldScores::new())
    }

    /// [`Decisions::read`], taking a run folder's scored moves from `held` where it
    /// has them.
    pub fn read_held(logs: &GameLogs, filter: DecisionFilter, held: &HeldScores) -> Result<Decisions, MoveScoresError> {
        let mut decisions = Decisions::default();
        let mut unvalued: BTreeMap<String, usize> = BTreeMap::new();
        // Players named as every reader names them (a player is its settings).
        let names = PlayerNames::of(logs);
        let by_number: HashMap<(&Path, usize), &LoggedGame> = logs
            .games
            .iter()
            .map(|g| ((g.run.as_path(), g.summary.number), g))
            .collect();
        let mut by_run: HashMap<&Path, Vec<&LoggedGame>> = HashMap::new();
        for game in &logs.games {
            by_run.entry(game.run.as_path()).or_default().push(game);
        }
        for run in logs.runs() {
            let scored = match held.get(run) {
                Some(scored) => scored.clone(),
                None => read_move_scores(run)?.unwrap_or_default(),
            };
            let games_of_run = by_run.get(run).map_or(&[][..], Vec::as_slice);
            for (player, sides) in sides_not_valued(games_of_run, &scored) {
                *unvalued.entry(names.name(run, player)).or_default() += sides;
            }
            if !scored.iter().any(|m| !m.values.is_empty()) {
                decisions.notes.push(format!(
                    "{} has no valued decisions yet (no move-scores.jsonl, or one written before values were kept): \
                     `othello-arena rate {}` values them (it does unless given --no-value)",
                    run.display(),
                    run.display()
                ));
                continue;
            }
            // Lines at fault (a decision written twice, values no game gives) are
            // left out, their game with them; `rate` values such games again.
            let faults = faulty_games(&scored);
            for (game, why) in &faults {
                decisions.notes.push(format!(
                    "{}: game {game}'s values are left out: {why}; `rate` without --no-value values it again",
                    run.join(crate::MOVE_SCORES_FILE).display()
                ));
            }
            let mut games: BTreeMap<(String, usize), Vec<Choice>> = BTreeMap::new();
            for m in scored.iter().filter(|m| !faults.contains_key(&m.game)) {
                let Some(game) = by_number.get(&(run, m.game)) else {
                    continue;
                };
                let Ok(color) = m.color.parse() else { continue };
                let player = || names.name(run, &game.summary.players[color]);
                if let Some(choice) = m.choice().filter(|c| filter.keeps(m, c)) {
                    games.entry((player(), m.game)).or_default().push(choice);
                } else if m.is_level() {
                    *decisions.level.entry(player()).or_default() += 1;
                }
            }
            for ((player, _), choices) in games {
                decisions.players.entry(player).or_default().push(choices);
            }
        }
        // A player rated from part of its games, the rest not valued yet, would read
        // differently once `rate` values them: said, with the command.
        for (player, sides) in unvalued.iter().filter(|(p, _)| decisions.players.contains_key(*p)) {
            decisions.notes.push(format!(
                "{player}: its moves in {sides} finished game(s) are not valued yet, so its intrinsic number rests on \
                 part of its games: `othello-arena rate` on these runs values them (it does unless given --no-value)"
            ));
        }
        for (player, count) in &decisions.level {
            decisions.notes.push(format!(
                "{player}: {count} decision(s) left out of the fit: every legal move had the same value, so the \
                 choice carries no information (fitted, it would read as sharper than the strongest rung)"
            ));
        }
        Ok(decisions)
    }
}

/// The players (their specs) of a run's `games` whose moves in a finished game hold no
/// values in its `scored` moves, with how many such games each (an `eval` run values
/// the model's side only).
fn sides_not_valued<'a>(games: &[&'a LoggedGame], scored: &[ScoredMove]) -> BTreeMap<&'a str, usize> {
    let valued: std::collections::HashSet<(usize, &str)> = scored
        .iter()
        .filter(|m| !m.values.is_empty())
        .map(|m| (m.game, m.color.as_str()))
        .collect();
    let mut missing: BTreeMap<&str, usize> = BTreeMap::new();
    for game in games.iter().filter(|g| g.summary.black_margin.is_some()) {
        for color in Color::BOTH {
            let moved = game.replay.plies.iter().any(|p| p.color == color && p.mv.is_some());
            if moved && !valued.contains(&(game.summary.number, color.name())) {
                *missing.entry(game.summary.players[color].as_str()).or_default() += 1;
            }
        }
    }
    missing
}

/// One engine of the calibration: its ladder rating and its fitted models.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CalibrationRung {
    /// The engine.
    pub player: String,
    /// Its rating on the ladder.
    pub elo: f64,
    /// Games fitted.
    pub games: usize,
    /// Valued decisions fitted.
    pub decisions: usize,
    /// The softmax's sensitivity.
    pub softmax_s: f64,
    /// Regan's sensitivity.
    pub regan_s: f64,
    /// Regan's consistency.
    pub regan_c: f64,
    /// Held-out log loss per decision of each model (games in folds, `stats::held_out_log_loss`).
    pub loss_softmax: f64,
    /// The same for Regan's form.
    pub loss_regan: f64,
    /// Whether the fit ended inside the search range (a point of the map).
    pub in_map: bool,
}

/// The calibration of intrinsic ratings: the model kept, its map to Elo and the rungs
/// it rests on.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Calibration {
    /// The command that rebuilds the file byte for byte.
    pub source: String,
    /// The model kept: Regan's form when its held-out loss, the rungs' mean, is lower
    /// than the softmax's by more than [`REGAN_MARGIN`], else the softmax.
    pub model: ChoiceModel,
    /// The decisions fitted (absent: all); a player is rated on the same kind.
    #[serde(default, skip_serializing_if = "DecisionFilter::is_all")]
    pub decisions: DecisionFilter,
    /// The reference whose values the decisions fitted hold, and `rate`'s by default
    /// (`[reference]`; absent in files written before it was recorded, which read as
    /// [`CalibrationReference::default`]).
    #[serde(default)]
    pub reference: CalibrationReference,
    /// The map from the model's sensitivity to Elo.
    pub map: EloMap,
    /// The rungs, strongest first.
    #[serde(rename = "rung")]
    pub rungs: Vec<CalibrationRung>,
}

/// The reference that valued a calibration's decisions (the file's `[reference]`):
/// exact at `exact_empties` empty squares or fewer, a `depth`-ply search before
/// (`--exact-empties`, `--reference-depth`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CalibrationReference {
    /// Positions with this many empty squares or fewer were solved exactly.
    pub exact_empties: u32,
    /// Before that, the reference searched this many plies deep.
    pub depth: u32,
}

impl Default for CalibrationReference {
    /// The shipped calibration's: [`CALIBRATION_EXACT_EMPTIES`] and
    /// [`CALIBRATION_DEPTH`] (what a file that names none was fitted on).
    fn default() -> CalibrationReference {
        CalibrationReference {
            exact_empties: CALIBRATION_EXACT_EMPTIES,
            depth: CALIBRATION_DEPTH,
        }
    }
}

/// Why no calibration was made.
#[derive(Debug, thiserror::Error)]
pub enum CalibrationError {
    /// No rung of the ladder has valued decisions in the runs.
    #[error("no engine of the ladder has valued decisions in these runs: play the rungs with --score-moves")]
    NoRungs,
    /// The map could not be fitted.
    #[error(transparent)]
    Map(#[from] MapError),
}

/// How much lower (nats per decision, the rungs' mean) Regan's held-out loss must be
/// for the calibration to keep it: its second parameter trades off against the first
/// (the consistency runs to its bounds on weak rungs), so its sensitivity alone is no
/// skill scale for the map, and a gain smaller than this does not pay for that.
pub const REGAN_MARGIN: f64 = 0.01;

/// Four significant decimals: enough for the map, and the same text on every machine.
fn round4(x: f64) -> f64 {
    (x * 1e4).round() / 1e4 + 0.0
}

impl Calibration {
    /// Fits every rung of `ladder` that has decisions in `decisions` (read with
    /// `filter`, valued by `reference`), keeps the model with the lower held-out loss
    /// over them all, and fits its map.
    pub fn fit(
        decisions: &Decisions,
        filter: DecisionFilter,
        reference: CalibrationReference,
        ladder: &Ladder,
        source: String,
    ) -> Result<Calibration, CalibrationError> {
        let mut rungs = Vec::new();
        for rung in &ladder.rungs {
            let Some(games) = decisions.players.get(&rung.player) else {
                continue;
            };
            let all = || games.iter().flatten();
            let softmax = fit_choices(all(), ChoiceModel::Softmax);
            let regan = fit_choices(all(), ChoiceModel::Regan);
            let loss = |model| held_out_log_loss(games, model).unwrap_or(f64::NAN);
            rungs.push(CalibrationRung {
                player: rung.player.clone(),
                elo: rung.elo,
                games: games.len(),
                decisions: softmax.decisions,
                softmax_s: round4(softmax.params.s),
                regan_s: round4(regan.params.s),
                regan_c: round4(regan.params.c),
                loss_softmax: round4(loss(ChoiceModel::Softmax)),
                loss_regan: round4(loss(ChoiceModel::Regan)),
                in_map: false,
            });
        }
        if rungs.is_empty() {
            return Err(CalibrationError::NoRungs);
        }
        let mean = |loss: fn(&CalibrationRung) -> f64| -> f64 {
            let losses: Vec<f64> = rungs.iter().map(loss).filter(|x| x.is_finite()).collect();
            losses.iter().sum::<f64>() / losses.len().max(1) as f64
        };
        let model = if mean(|r| r.loss_regan) < mean(|r| r.loss_softmax) - REGAN_MARGIN {
            ChoiceModel::Regan
        } else {
            ChoiceModel::Softmax
        };
        let map = EloMap::fit(&map_points(model, &rungs))?;
        let map = EloMap {
            intercept: round4(map.intercept),
            slope: round4(map.slope),
            residual_sd: round4(map.residual_sd),
            s_low: round4(map.s_low),
            s_high: round4(map.s_high),
        };
        for r in &mut rungs {
            r.in_map = map.holds_for(Calibration::sensitivity(model, r));
        }
        Ok(Calibration {
            source,
            model,
            decisions: filter,
            reference,
            map,
            rungs,
        })
    }

    /// A player's fit to its decisions `games` (one list per game) under the kept
    /// model, and its intrinsic rating through the map with `resamples` bootstrap fits
    /// over the games seeded from `seed`: no number where the method was not
    /// validated (a fit flatter than [`Calibration::validated`]'s range).
    pub fn rate(&self, games: &[Vec<Choice>], resamples: usize, seed: u64) -> (ChoiceFit, IntrinsicElo) {
        let fit = fit_choices(games.iter().flatten(), self.model);
        if self.validated().is_some_and(|v| fit.params.s > v.s_high) {
            let none = IntrinsicElo {
                elo: None,
                low: None,
                high: None,
            };
            return (fit, none);
        }
        let resampled = bootstrap_fits(games, self.model, resamples, seed);
        let rated = self.map.rate(&fit, &resampled);
        (fit, rated)
    }

    fn sensitivity(model: ChoiceModel, rung: &CalibrationRung) -> f64 {
        match model {
            ChoiceModel::Softmax => rung.softmax_s,
            ChoiceModel::Regan => rung.regan_s,
        }
    }

    /// The coverage of intrinsic intervals (the issue's item 4): each rung with games
    /// in `decisions` left out of the map in turn (the map refitted on the others'
    /// points), `draws.samples` sets of k of its games drawn for each k of `ks` and
    /// rated through that map, counting how often the interval holds its ladder rating.
    pub fn coverage(&self, decisions: &Decisions, ks: &[usize], draws: Draws) -> Vec<CoverageRow> {
        let points = map_points(self.model, &self.rungs);
        self.rungs
            .iter()
            .filter_map(|rung| {
                let games = decisions.players.get(&rung.player)?;
                let others: Vec<MapPoint> = points.iter().filter(|p| p.player != rung.player).cloned().collect();
                let by_k = EloMap::fit(&others).map_err(|e| e.to_string()).map(|map| {
                    ks.iter()
                        .map(|&k| {
                            let draws = Draws { k, ..draws };
                            (k, interval_coverage(games, self.model, &map, rung.elo, draws))
                        })
                        .collect()
                });
                Some(CoverageRow {
                    player: rung.player.clone(),
                    elo: rung.elo,
                    in_map: rung.in_map,
                    by_k,
                })
            })
            .collect()
    }
}

/// The map's points: each rung's sensitivity under `model` and its ladder rating.
fn map_points(model: ChoiceModel, rungs: &[CalibrationRung]) -> Vec<MapPoint> {
    rungs
        .iter()
        .map(|r| MapPoint {
            player: r.player.clone(),
            elo: r.elo,
            s: Calibration::sensitivity(model, r),
        })
        .collect()
}

/// One rung's coverage ([`Calibration::coverage`]).
#[derive(Clone, Debug, PartialEq)]
pub struct CoverageRow {
    /// The rung.
    pub player: String,
    /// Its ladder rating, the truth its intervals should hold.
    pub elo: f64,
    /// Whether it is a point of the full calibration's map.
    pub in_map: bool,
    /// For each k, the tally of its draws; or why no map could be fitted without it.
    pub by_k: Result<Vec<(usize, Coverage)>, String>,
}

/// The heading above [`coverage_text`]: the calibration file `file`, the draws and
/// what each column counts.
pub fn coverage_heading(file: &Path, draws: &Draws) -> String {
    format!(
        "intrinsic coverage: each rung of {} left out of the map in turn, {} draws of k of its games \
         (with replacement), {} bootstrap fits each, seed {}; held: rated draws whose 95% interval holds \
         the ladder rating; rated: draws given a number; width: mean interval width, Elo",
        file.display(),
        draws.samples,
        draws.resamples,
        draws.seed
    )
}

/// The coverage table: per rung and k, the share of rated draws whose interval held
/// the ladder rating, the share of draws rated and the mean width; then the totals
/// over the rungs of the map and over all.
pub fn coverage_text(rows: &[CoverageRow], ks: &[usize]) -> String {
    let percent = |x: Option<f64>| x.map_or_else(|| "-".to_string(), |x| format!("{:.0}%", 100.0 * x));
    let cell = |c: &Coverage| {
        let width = c.mean_width().map_or_else(|| "-".to_string(), |w| format!("{w:.0}"));
        format!(
            "{:>5} {:>5} {:>5}",
            percent(c.held_share()),
            percent(c.rated_share()),
            width
        )
    };
    let width = rows.iter().map(|r| r.player.len()).max().unwrap_or(6).max(6);
    let mut out = format!("  {:width$}  {:>6}  map", "rung", "elo");
    for k in ks {
        let _ = write!(out, "  {:>17}", format!("k={k}: held rated width"));
    }
    out.push('\n');
    let mut totals = vec![[Coverage::default(); 2]; ks.len()];
    for row in rows {
        let _ = write!(
            out,
            "  {:width$}  {:>6.0}  {:>3}",
            row.player,
            row.elo,
            if row.in_map { "in" } else { "out" }
        );
        match &row.by_k {
            Ok(by_k) => {
                for (i, (_, c)) in by_k.iter().enumerate() {
                    let _ = write!(out, "  {:>17}", cell(c));
                    totals[i][1] = totals[i][1] + *c;
                    if row.in_map {
                        totals[i][0] = totals[i][0] + *c;
                    }
                }
            }
            Err(why) => {
                let _ = write!(out, "  no map without it: {why}");
            }
        }
        out.push('\n');
    }
    for (label, which) in [("rungs in the map", 0), ("all rungs", 1)] {
        let _ = write!(out, "  {label:width$}  {:>6}  {:>3}", "", "");
        for total in &totals {
            let _ = write!(out, "  {:>17}", cell(&total[which]));
        }
        out.push('\n');
    }
    out
}

/// Resamples of each player's games for its intrinsic interval, at most (each is a
/// fit of all its decisions).
pub const MAX_INTRINSIC_RESAMPLES: usize = 200;

/// The exact empties of the reference the shipped calibration was fitted on
/// (scripts/intrinsic-calibration.sh: exact at 14 empties or fewer, a 4-ply search
/// before), and of a calibration file that names no `[reference]`
/// ([`CalibrationReference::default`]). `rate` values runs with the calibration's
/// reference by default, so that a player's values are of the kind the map from
/// sensitivity to Elo was fitted on.
pub const CALIBRATION_EXACT_EMPTIES: u32 = 14;

/// The search depth of the shipped calibration's reference (see
/// [`CALIBRATION_EXACT_EMPTIES`]).
pub const CALIBRATION_DEPTH: u32 = 4;

/// The intrinsic table of the games `logs` read, as every face shows it (`rate`,
/// `report`, `tournament`): each player's valued decisions (those `calibration` was
/// fitted on) rated through it with `resamples` bootstrap fits (at most
/// [`MAX_INTRINSIC_RESAMPLES`]) seeded from `seed`, each run's scored moves from
/// `held` where it has them, else from its `move-scores.jsonl`. Without a calibration
/// (`Err`: why, said in a note) or for a game other than Othello (whose calibration it
/// is) no ratings.
pub fn intrinsic_table(
    logs: &GameLogs,
    held: &HeldScores,
    calibration: Result<&Calibration, String>,
    resamples: usize,
    seed: u64,
) -> Result<IntrinsicTable, MoveScoresError> {
    if logs.game != game::Game::Othello {
        return Ok(IntrinsicTable::uncalibrated(
            &Decisions::default(),
            format!("no intrinsic ratings for {}: the calibration is Othello's", logs.game),
        ));
    }
    let filter = calibration
        .as_ref()
        .map_or_else(|_| DecisionFilter::default(), |c| c.decisions);
    // A move-scores.jsonl that cannot be read costs the intrinsic table, never the
    // results tables beside it.
    let decisions = match Decisions::read_held(logs, filter, held) {
        Ok(decisions) => decisions,
        Err(err) => {
            return Ok(IntrinsicTable::uncalibrated(
                &Decisions::default(),
                format!("no intrinsic ratings: {err}"),
            ))
        }
    };
    Ok(match calibration {
        Ok(calibration) => IntrinsicTable::rate(&decisions, calibration, resamples.min(MAX_INTRINSIC_RESAMPLES), seed),
        Err(why) => IntrinsicTable::uncalibrated(&decisions, why),
    })
}

/// One player's intrinsic rating.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct IntrinsicRow {
    /// The player.
    pub player: String,
    /// Its intrinsic Elo (`None` outside the calibration's range).
    pub elo: Option<f64>,
    /// The 95% interval's low end.
    pub low: Option<f64>,
    /// Its high end.
    pub high: Option<f64>,
    /// Valued decisions fitted.
    pub decisions: usize,
    /// Decisions left out because every legal move had the same value.
    #[serde(skip_serializing_if = "is_zero")]
    pub level_decisions: usize,
    /// Games they came from.
    pub games: usize,
    /// The fitted parameters.
    pub params: Params,
    /// Where it falls among the calibration's rungs, or why it has no number.
    pub place: String,
    /// Set where the rating by results is shown beside it ([`IntrinsicTable::beside`])
    /// and the two 95% intervals do not overlap: says so, with the results interval.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub disagrees: Option<String>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// Every player's intrinsic rating, with notes.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct IntrinsicTable {
    /// The model the calibration kept (`None` without a calibration).
    pub model: Option<ChoiceModel>,
    /// One row a player with valued decisions.
    pub rows: Vec<IntrinsicRow>,
    /// Runs without values, and what the numbers rest on.
    pub notes: Vec<String>,
}

impl IntrinsicTable {
    /// Rates every player of `decisions` through `calibration`, with `resamples`
    /// bootstrap fits over each player's games seeded from `seed`.
    pub fn rate(decisions: &Decisions, calibration: &Calibration, resamples: usize, seed: u64) -> IntrinsicTable {
        let model = calibration.model;
        let rungs: Vec<(String, f64)> = calibration.rungs.iter().map(|r| (r.player.clone(), r.elo)).collect();
        let validated = calibration.validated();
        let rows = decisions
            .players
            .iter()
            .map(|(player, games)| {
                let (fit, rated) = calibration.rate(games, resamples, seed);
                let unvalidated = validated.as_ref().filter(|v| {
                    let s = fit.params.s;
                    fit.at_bound.is_none() && calibration.map.holds_for(s) && s > v.s_high
                });
                let place = match (rated.elo, unvalidated) {
                    (Some(elo), _) => ladder_position(&rungs, elo),
                    (None, Some(validated)) => validated.refusal(fit.params.s),
                    (None, None) if fit.params.s < calibration.map.s_low => {
                        "sharper than the strongest calibrated rung: no number".to_string()
                    }
                    (None, None) => "flatter than the weakest calibrated rung: no number".to_string(),
                };
                IntrinsicRow {
                    player: player.clone(),
                    elo: rated.elo,
                    low: rated.low,
                    high: rated.high,
                    decisions: fit.decisions,
                    level_decisions: decisions.level.get(player).copied().unwrap_or(0),
                    games: games.len(),
                    params: fit.params,
                    place,
                    disagrees: None,
                }
            })
            .collect();
        let mut notes = decisions.notes.clone();
        notes.push(format!(
            "intrinsic ratings: the {} choice model on the reference's values of every legal move, mapped to Elo by \
             {} calibration rungs (sensitivity {:.2} to {:.2}, residual {:.0} Elo); outside that range no number",
            model.name(),
            calibration.rungs.iter().filter(|r| r.in_map).count(),
            calibration.map.s_low,
            calibration.map.s_high,
            calibration.map.residual_sd
        ));
        IntrinsicTable {
            model: Some(model),
            rows,
            notes,
        }
    }

    /// No ratings: there is no calibration (`why` says so), only `decisions`' notes.
    pub fn uncalibrated(decisions: &Decisions, why: String) -> IntrinsicTable {
        let mut notes = decisions.notes.clone();
        notes.push(why);
        IntrinsicTable {
            model: None,
            rows: Vec::new(),
            notes,
        }
    }

    /// The text table, with its notes below.
    pub fn text(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "Intrinsic ratings ({} model on every valued decision, 95% intervals: bootstrap over games plus the \
             calibration's residual)",
            self.model.map_or("no", ChoiceModel::name)
        );
        let width = self.rows.iter().map(|r| r.player.len()).max().unwrap_or(6).max(6);
        let _ = writeln!(
            out,
            "  {:width$}  {:>6}  {:>15}  {:>9}  {:>5}  {:>7}  {:>5}  place among the rungs",
            "player", "elo", "95% interval", "decisions", "games", "s", "c"
        );
        for r in &self.rows {
            let elo = r
                .elo
                .map_or_else(|| "-".to_string(), |e| format!("{:.0}", stats::whole(e)));
            let interval = match (r.low, r.high) {
                (Some(low), Some(high)) => format!("[{:.0}, {:.0}]", stats::whole(low), stats::whole(high)),
                _ => "-".to_string(),
            };
            let disagrees = r.disagrees.as_ref().map_or_else(String::new, |d| format!("; {d}"));
            let _ = writeln!(
                out,
                "  {:width$}  {elo:>6}  {interval:>15}  {:>9}  {:>5}  {:>7.2}  {:>5.2}  {}{disagrees}",
                r.player, r.decisions, r.games, r.params.s, r.params.c, r.place
            );
        }
        if self.rows.is_empty() {
            let _ = writeln!(out, "  (no player has valued decisions)");
        }
        for note in &self.notes {
            let _ = writeln!(out, "  note: {note}");
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use record::MoveSource;

    fn scored(exact: bool) -> ScoredMove {
        ScoredMove {
            game: 1,
            ply: 40,
            color: "black".into(),
            source: MoveSource::Engine,
            mv: "a1".into(),
            empties: 20,
            best_moves: vec!["a1".into()],
            regret: 0.0,
            blunder: false,
            exact,
            depth: 4,
            values: Vec::new(),
        }
    }

    #[test]
    fn a_filter_keeps_exact_decisions_and_decisions_with_stakes() {
        let small = Choice::from_values(&[4.0, 2.0, -1.0], 0).unwrap();
        let large = Choice::from_values(&[4.0, -12.0], 1).unwrap();
        let all = DecisionFilter::default();
        assert!(all.is_all() && all.keeps(&scored(false), &small));
        let exact = DecisionFilter {
            exact_only: true,
            min_spread: 0.0,
        };
        assert!(!exact.is_all() && exact.keeps(&scored(true), &small) && !exact.keeps(&scored(false), &small));
        let stakes = DecisionFilter {
            exact_only: false,
            min_spread: 8.0,
        };
        assert!(!stakes.keeps(&scored(true), &small), "a spread of 5 discs");
        assert!(stakes.keeps(&scored(false), &large), "a spread of 16 discs");
    }

    /// A calibration file as written before it named its reference.
    const OLDER_FILE: &str = r#"source = "a calibration without [reference]"
model = "softmax"

[map]
intercept = 1289.9508
slope = -295.0543
residual_sd = 183.2468
s_low = 4.9504
s_high = 78.1841

[[rung]]
player = "search"
elo = 1065.6
games = 16
decisions = 443
softmax_s = 4.9504
regan_s = 2.8174
regan_c = 0.6528
loss_softmax = 1.6343
loss_regan = 1.6136
in_map = true
"#;

    #[test]
    fn a_calibration_names_its_reference_and_an_older_file_reads_as_the_shipped_one() {
        let older: Calibration = toml::from_str(OLDER_FILE).unwrap();
        let shipped = CalibrationReference {
            exact_empties: CALIBRATION_EXACT_EMPTIES,
            depth: CALIBRATION_DEPTH,
        };
        assert_eq!(older.reference, shipped);
        let mut named = older;
        named.reference = CalibrationReference {
            exact_empties: 8,
            depth: 2,
        };
        let text = toml::to_string(&named).unwrap();
        assert!(text.contains("\n[reference]\nexact_empties = 8\ndepth = 2\n"), "{text}");
        assert_eq!(toml::from_str::<Calibration>(&text).unwrap(), named);
    }
}
