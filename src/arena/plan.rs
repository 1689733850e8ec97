//! The one planner: a run's pairings and games (a match, an evaluation, a tournament),
//! each pairing played as colour-swapped game pairs on one opening list shared by the
//! whole run, every seed derived from the run's.

use serde::Deserialize;

use super::scheduled::ScheduledGame;
use super::sequential::Pairing;
use game::derive_seed;

/// Who meets whom.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    /// Every LLM player against every engine.
    #[default]
    Gauntlet,
    /// Every pair of players, LLM against LLM included.
    RoundRobin,
}

/// A run's pairings and games over a players list: one planner for a match, an
/// evaluation (a gauntlet of one LLM player) and a tournament, so every run numbers its
/// games and derives its seeds the same way.
#[derive(Clone, Debug)]
pub struct Plan {
    /// Every game, in playing (and numbering) order.
    pub schedule: Vec<ScheduledGame>,
    /// Every pairing with its pairs of schedule indices.
    pub pairings: Vec<Pairing>,
}

impl Plan {
    /// The plan for `meetings` (pairs of indices into `names`, the players list), in
    /// order: `pairs` pairs of games per meeting, the meeting's first player black in
    /// the first game of a pair and white in the second (`swap`; without it a "pair" is
    /// one game, the first player black). Pair `p` of every meeting starts from the
    /// same opening: the `p`-th of a suite, or the random one seeded by
    /// `derive_seed(opening_seed, 2p)`; game `i` of the schedule
    /// (from 0) seeds its players with `derive_seed(seed, 2i + 1)`.
    pub fn new(
        names: &[String],
        meetings: &[(usize, usize)],
        pairs: usize,
        swap: bool,
        opening_seed: u64,
        seed: u64,
    ) -> Plan {
        let mut schedule = Vec::new();
        let mut pairings = Vec::new();
        for &(a, b) in meetings {
            let mut pairing = Pairing {
                label: format!("{} vs {}", names[a], names[b]),
                first: a,
                pairs: Vec::new(),
            };
            for pair in 0..pairs {
                let opening_seed = derive_seed(opening_seed, pair as u64 * 2);
                let first = schedule.len();
                let colours: &[(usize, usize)] = if swap { &[(a, b), (b, a)] } else { &[(a, b)] };
                for &(black, white) in colours {
                    let index = schedule.len();
                    schedule.push(ScheduledGame {
                        black,
                        white,
                        opening_seed,
                        pair,
                        seed: derive_seed(seed, index as u64 * 2 + 1),
                    });
                }
                if swap {
                    pairing.pairs.push([first, first + 1]);
                }
            }
            pairings.push(pairing);
        }
        Plan { schedule, pairings }
    }

    /// A tournament's plan for `names` (the players list), of which `llm` are the LLM
    /// players' indices: `pairs` colour-swapped pairs per pairing, pair `p` of every
    /// pairing on the same opening (seeded by `seed`), the pairing's first player black
    /// in the first game.
    pub fn tournament(names: &[String], llm: &[usize], format: Format, pairs: usize, seed: u64) -> Plan {
        let meetings: Vec<(usize, usize)> = match format {
            Format::Gauntlet => llm
                .iter()
                .flat_map(|&a| (0..names.len()).filter(|b| !llm.contains(b)).map(move |b| (a, b)))
                .collect(),
            Format::RoundRobin => (0..names.len())
                .flat_map(|a| (a + 1..names.len()).map(move |b| (a, b)))
                .collect(),
        };
        Plan::new(names, &meetings, pairs, true, seed, seed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(n: usize) -> Vec<String> {
        (0..n).map(|i| format!("p{i}")).collect()
    }

    #[test]
    fn a_gauntlet_meets_every_engine_once_per_llm() {
        let plan = Plan::tournament(&names(4), &[2, 3], Format::Gauntlet, 3, 7);
        let labels: Vec<&str> = plan.pairings.iter().map(|p| p.label.as_str()).collect();
        assert_eq!(labels, ["p2 vs p0", "p2 vs p1", "p3 vs p0", "p3 vs p1"]);
        assert_eq!(plan.schedule.len(), 4 * 3 * 2);
        // Pair p shares its opening across pairings and colours; colours swap within it.
        for pairing in &plan.pairings {
            for (p, [x, y]) in pairing.pairs.iter().enumerate() {
                let (gx, gy) = (&plan.schedule[*x], &plan.schedule[*y]);
                assert_eq!(
                    gx.opening_seed,
                    plan.schedule[plan.pairings[0].pairs[p][0]].opening_seed
                );
                assert_eq!((gx.black, gx.white), (gy.white, gy.black));
                assert_eq!(gx.black, pairing.first);
            }
        }
    }

    #[test]
    fn a_round_robin_meets_every_pair() {
        let plan = Plan::tournament(&names(4), &[3], Format::RoundRobin, 1, 1);
        assert_eq!(plan.pairings.len(), 6);
        assert_eq!(plan.schedule.len(), 12);
    }
}
