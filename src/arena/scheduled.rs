//! One game of a schedule: who plays which colour, its pair and its seeds. The plan
//! deals them; the openings, the scheduler and resume read them.

use std::collections::BTreeMap;

use game::othello::Color;

/// One game to play: who has which color, and its seeds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScheduledGame {
    /// Index of black's player in the players list.
    pub black: usize,
    /// Index of white's player.
    pub white: usize,
    /// Seed of the random opening (shared by games that should meet the same positions).
    pub opening_seed: u64,
    /// The game's pair in its pairing (from 0): pair `p` plays a suite's `p`-th opening.
    pub pair: usize,
    /// Seed of the players' random choices ([`ScheduledGame::player_seed`]).
    pub seed: u64,
}

impl ScheduledGame {
    /// The seed of the player at list index `player` in this game: the game's seed
    /// rotated by 17 bits an index, so it depends on the player's place in the players
    /// list, not on its colour.
    pub fn player_seed(&self, player: usize) -> u64 {
        self.seed.rotate_left(17 * player as u32)
    }

    /// The colour the player at list index `player` has in this game.
    pub fn color_of(&self, player: usize) -> Color {
        if self.black == player {
            Color::Black
        } else {
            Color::White
        }
    }
}

/// A server a player's moves wait on: a model server (or fleet) of LLM players, an
/// external engine's process slots. Players on one connection share it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Host {
    /// Who it is (the address of what its players share).
    pub id: usize,
    /// The games it serves at once (its `max_in_flight`; a fleet's total).
    pub capacity: usize,
}

/// The games of a schedule left to start, and the games in flight on each host: the
/// next game to start is the first, in schedule order, whose hosts all have room
/// (else the first), so that every host works from the start instead of the first
/// pairings' hosts queueing games while the others idle. Only the order of starting
/// changes: a game keeps its number, seeds, opening and colours.
#[derive(Debug)]
pub(crate) struct StartQueue {
    /// Schedule indices not yet started, in schedule order, each with its hosts.
    pending: Vec<(usize, Vec<Host>)>,
    /// Games in flight per host id.
    busy: BTreeMap<usize, usize>,
    /// The hosts of each game in flight, by schedule index.
    running: BTreeMap<usize, Vec<Host>>,
}

impl StartQueue {
    /// A queue of `games` (schedule indices, in order), each played on the hosts
    /// `hosts` gives it.
    pub fn new(games: impl IntoIterator<Item = usize>, hosts: impl Fn(usize) -> Vec<Host>) -> StartQueue {
        StartQueue {
            pending: games.into_iter().map(|i| (i, hosts(i))).collect(),
            busy: BTreeMap::new(),
            running: BTreeMap::new(),
        }
    }

    /// Whether every game has started.
    pub fn is_empty(&self) -> bool {
        self.pending.is_empty()
    }

    /// Takes the next game to start (see the type's doc), counted in flight on its
    /// hosts until [`StartQueue::finished`]; `None` when none is left.
    pub fn next(&mut self) -> Option<usize> {
        let has_room = |hosts: &Vec<Host>| {
            hosts
                .iter()
                .all(|h| self.busy.get(&h.id).copied().unwrap_or(0) < h.capacity)
        };
        let at = self.pending.iter().position(|(_, hosts)| has_room(hosts));
        if self.pending.is_empty() {
            return None;
        }
        let (index, hosts) = self.pending.remove(at.unwrap_or(0));
        for host in &hosts {
            *self.busy.entry(host.id).or_default() += 1;
        }
        self.running.insert(index, hosts);
        Some(index)
    }

    /// Game `index` (started by [`StartQueue::next`]) is over: its hosts have room again.
    pub fn finished(&mut self, index: usize) {
        for host in self.running.remove(&index).unwrap_or_default() {
            if let Some(busy) = self.busy.get_mut(&host.id) {
                *busy = busy.saturating_sub(1);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: Host = Host { id: 1, capacity: 1 };
    const B: Host = Host { id: 2, capacity: 1 };

    #[test]
    fn the_next_game_is_the_first_whose_hosts_have_room() {
        // Games 0-3 on host A (file order: the first model's pairings), 4-7 on host B,
        // 8 between two engines (no host).
        let hosts = |i: usize| match i {
            0..=3 => vec![A],
            4..=7 => vec![B],
            _ => Vec::new(),
        };
        let mut queue = StartQueue::new(0..9, hosts);
        assert_eq!(queue.next(), Some(0));
        assert_eq!(queue.next(), Some(4), "B idles no more while A is busy");
        assert_eq!(queue.next(), Some(8), "a game on no host always has room");
        queue.finished(4);
        assert_eq!(queue.next(), Some(5));
        // Both hosts full: the first game left, queued at its host.
        assert_eq!(queue.next(), Some(1));
        queue.finished(0);
        queue.finished(1);
        assert_eq!(queue.next(), Some(2));
        assert_eq!((queue.next(), queue.next(), queue.next()), (Some(3), Some(6), Some(7)));
        assert!(queue.is_empty());
        assert_eq!(queue.next(), None);
    }

    #[test]
    fn a_game_needs_room_on_every_host_it_plays_on() {
        let big = Host { id: 3, capacity: 2 };
        let hosts = |i: usize| if i == 0 { vec![A, big] } else { vec![big] };
        let mut queue = StartQueue::new(0..3, hosts);
        assert_eq!(queue.next(), Some(0));
        assert_eq!(queue.next(), Some(1));
        // `big` is full now: game 2 starts only as the first left.
        queue.finished(1);
        assert_eq!(queue.next(), Some(2));
    }
}
