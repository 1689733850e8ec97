//! Sequential stopping over a schedule: each pairing plays its colour-swapped game
//! pairs in order, and its stop rule is asked after every whole pair. Decisions depend
//! only on the pairs before them (their results, and for the intrinsic rule the first
//! player's decisions in them, valued and rated the same way each time), never on
//! timing, so a resumed run reaches the same decisions at the same pairs.
//!
//! Rounds: every undecided pairing plays its next pair, all pairings at once (up to
//! `parallel` games); then each pairing's rule is asked. Games already finished (an
//! earlier session of the run) are read first, pair by pair, and never played again.

use agent::ModelGame;
use std::collections::BTreeSet;

use super::play::GameRecord;
use super::player_spec::PlayerSpec;
use super::schedule::{run_games, MatchError, MatchEvent, RunOptions};
use super::scheduled::ScheduledGame;
use super::stop_judge::StopJudge;
use game::Othello;
use runs::PairingStop;
use stats::{Choice, GameScore, Trials};

/// One pairing of a sequential run.
#[derive(Clone, Debug)]
pub struct Pairing {
    /// How reports name it (`llm:m vs greedy`).
    pub label: String,
    /// The player (index in the players list) whose score the rule follows.
    pub first: usize,
    /// Its colour-swapped game pairs as schedule indices, in playing order (the cap).
    pub pairs: Vec<[usize; 2]>,
}

/// What a sequential run played.
#[derive(Clone, Debug)]
pub(crate) struct SequentialResult<R: ModelGame = Othello> {
    /// Per schedule index: the game, or `None` when it was not needed (or not finished).
    pub records: Vec<Option<GameRecord<R>>>,
    /// Per pairing: where it stopped; `None` when the run was interrupted first.
    pub stops: Vec<Option<PairingStop>>,
    /// The rule's answer at every pair boundary of every pairing, in pairing order
    /// (the run's decision log).
    pub decisions: Vec<PairingStop>,
}

/// Plays `pairings` over `schedule` under `rule`; `options.finished` holds games an
/// earlier session finished. Stops early (with `None` stops) when `options.stop` is set.
pub async fn run_sequential<R: ModelGame>(
    players: &[PlayerSpec<R>],
    schedule: &[ScheduledGame],
    pairings: &[Pairing],
    rule: &StopJudge,
    options: &RunOptions<R>,
    report: &(dyn Fn(MatchEvent<'_, R>) + Sync),
) -> Result<SequentialResult<R>, MatchError> {
    let mut records: Vec<Option<GameRecord<R>>> = vec![None; schedule.len()];
    for (&index, record) in &options.finished {
        if let Some(slot) = records.get_mut(index) {
            report(MatchEvent::GameDone { game: index, record });
            *slot = Some(record.clone());
        }
    }
    let mut states = vec![PairingState::default(); pairings.len()];
    loop {
        let mut to_play = BTreeSet::new();
        for (state, pairing) in states.iter_mut().zip(pairings) {
            to_play.extend(state.advance(pairing, rule, schedule, &records));
        }
        if to_play.is_empty() {
            break;
        }
        let round = RunOptions {
            finished: records
                .iter()
                .enumerate()
                .filter_map(|(i, r)| Some((i, r.clone()?)))
                .collect(),
            only: Some(to_play.clone()),
            ..options.clone()
        };
        let played = run_games(players, schedule, &round, &|event| match event {
            MatchEvent::GameDone { game, .. } if !to_play.contains(&game) => {}
            event => report(event),
        })
        .await?;
        let mut missing = false;
        for index in &to_play {
            missing |= played[*index].is_none();
            records[*index] = played[*index].clone();
        }
        if missing {
            // Interrupted: pairings that had not stopped keep no stop.
            break;
        }
    }
    Ok(SequentialResult {
        records,
        stops: states.iter().map(|s| s.stop.clone()).collect(),
        decisions: states.into_iter().flat_map(|s| s.decisions).collect(),
    })
}

/// The rule's answers over games already played (`records`, by schedule index), as
/// [`run_sequential`] reached them: each pairing's stop (`None` where a game it needed
/// before its stop is not there) and the decision log, in pairing order; and the
/// schedule index of the first such missing game.
pub(crate) fn decide_played<R: ModelGame>(
    schedule: &[ScheduledGame],
    pairings: &[Pairing],
    rule: &StopJudge,
    records: &[Option<GameRecord<R>>],
) -> (Vec<Option<PairingStop>>, Vec<PairingStop>, Option<usize>) {
    let mut states = vec![PairingState::default(); pairings.len()];
    let mut missing = None;
    for (state, pairing) in states.iter_mut().zip(pairings) {
        let unplayed = state.advance(pairing, rule, schedule, records);
        missing = missing.or(unplayed.first().copied());
    }
    (
        states.iter().map(|s| s.stop.clone()).collect(),
        states.into_iter().flat_map(|s| s.decisions).collect(),
        missing,
    )
}

/// Where one pairing's sequential test stands.
#[derive(Clone, Default)]
struct PairingState {
    /// The pairs fed to the rule so far.
    trials: Trials,
    /// The first player's valued decisions in each game fed so far (the intrinsic
    /// rule only).
    choices: Vec<Vec<Choice>>,
    /// The next pair to feed (pairs are fed in order).
    next: usize,
    /// The rule's stop, once it stopped (or the pairs ran out).
    stop: Option<PairingStop>,
    /// The rule's answer after every pair fed.
    decisions: Vec<PairingStop>,
}

impl PairingState {
    /// Feeds `pairing`'s finished pairs to `rule`, in order, until it stops or the next
    /// pair is unfinished; returns that pair's games still to play.
    fn advance<R: ModelGame>(
        &mut self,
        pairing: &Pairing,
        rule: &StopJudge,
        schedule: &[ScheduledGame],
        records: &[Option<GameRecord<R>>],
    ) -> Vec<usize> {
        while self.stop.is_none() {
            let Some(pair) = pairing.pairs.get(self.next) else {
                // The cap: the rule's answer after the last pair, whatever it is.
                self.stop = Some(self.answer(pairing, rule));
                break;
            };
            let [Some(first), Some(second)] = pair.map(|i| records[i].as_ref()) else {
                return pair.iter().copied().filter(|&i| records[i].is_none()).collect();
            };
            // Each game with the first player's colour in it.
            let games = [
                (first, schedule[pair[0]].color_of(pairing.first)),
                (second, schedule[pair[1]].color_of(pairing.first)),
            ];
            let [first, second] = games.map(|(record, color)| GameScore::from_margin(record.margin_for(color)));
            self.trials.add_pair(first, second);
            if rule.values_decisions() {
                for (record, color) in games {
                    self.choices.push(rule.decisions(record, color));
                }
            }
            self.next += 1;
            let step = self.answer(pairing, rule);
            if step.decision.verdict.is_stop() {
                self.stop = Some(step.clone());
            }
            self.decisions.push(step);
        }
        Vec::new()
    }

    /// The rule's answer after the pairs fed so far.
    fn answer(&self, pairing: &Pairing, rule: &StopJudge) -> PairingStop {
        PairingStop {
            pairing: pairing.label.clone(),
            pairs: self.next as u32,
            decision: rule.rule.decide(&self.trials, rule.intrinsic(&self.choices)),
        }
    }
}
