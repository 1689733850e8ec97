//! One game of a schedule: who plays which colour, its pair and its seeds. The plan
//! deals them; the openings, the scheduler and resume read them.

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
    /// Seed of the players' random choices (the player at list index i uses it rotated by 17 i bits).
    pub seed: u64,
}

impl ScheduledGame {
    /// The colour the player at list index `player` has in this game.
    pub fn color_of(&self, player: usize) -> Color {
        if self.black == player {
            Color::Black
        } else {
            Color::White
        }
    }
}
