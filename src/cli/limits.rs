//! The range of every numeric flag but the agent settings' (which `settings` declares
//! beside each setting, for the flag and the agent file alike), checked when the
//! command line is parsed (clap calls these parsers, so the message names the flag).
//! One place for each limit and its message.

use engines::lab::MIN_SEARCH_DEPTH;
use engines::{MAX_EXACT_EMPTIES, MAX_REFERENCE_DEPTH};
pub use settings::limits::Bounds;
use settings::limits::AGENT_ROUNDS;
pub use settings::limits::{timeout_seconds, GAMES, OPENING_PLIES, PARALLEL, RETRIES};

/// Empties at which the reference solves exactly (as the `reference:D:E` spec).
pub const EXACT_EMPTIES: Bounds = Bounds::new(
    0..=MAX_EXACT_EMPTIES as i64,
    "empties",
    "a solve beyond that takes hours",
);
/// The reference's search depth (as the `reference:D:E` spec).
pub const REFERENCE_DEPTH: Bounds = Bounds::new(1..=MAX_REFERENCE_DEPTH as i64, "plies", "");
/// Plies of a wipeout line.
pub const WIPEOUT_PLIES: Bounds = Bounds::new(1..=24, "plies", "the lines grow about tenfold per attacker move");
/// Perft depth.
pub const PERFT_DEPTH: Bounds = Bounds::new(0..=20, "plies", "depth 14 already counts about 10^13 leaves");
/// Empties at which `train-eval` labels exactly: the solver labels every position,
/// tens of thousands per empty count.
pub const TRAIN_EXACT_EMPTIES: Bounds = Bounds::new(0..=20, "empties", "beyond that labelling takes days");
/// Depth of `train-eval`'s labelling search: at least a phase's width.
pub const TRAIN_SEARCH_DEPTH: Bounds = Bounds::new(
    MIN_SEARCH_DEPTH as i64..=10,
    "plies",
    "shallower searches would read phases not fitted yet",
);
/// Fitting steps per phase.
pub const EPOCHS: Bounds = Bounds::new(1..=100_000, "epochs", "");
/// Positions or examples to generate.
pub const COUNT: Bounds = Bounds::new(1..=1_000_000, "", "");

/// The widest `place --width` taken, in Elo: wider than the whole engine ladder.
pub const MAX_WIDTH: f64 = 4000.0;

/// Parses `place --width`: an interval width in Elo, above 0, at most [`MAX_WIDTH`].
pub fn interval_width(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(width) if width > 0.0 && width <= MAX_WIDTH => Ok(width),
        _ => Err(format!(
            "{text:?} is out of range: give an interval width in Elo above 0, at most {MAX_WIDTH}"
        )),
    }
}

/// Parses a `--timeout` flag.
/// An address to listen on: an IP address and a port (a host name is not looked up).
pub fn listen_address(text: &str) -> Result<std::net::SocketAddr, String> {
    text.parse().map_err(|_| {
        format!(
            "{text:?} is not an IP address and port: give one such as 127.0.0.1:8765 (a host name is not looked up)"
        )
    })
}

pub fn timeout(text: &str) -> Result<f64, String> {
    let seconds: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("{text:?} is not a number of seconds"))?;
    timeout_seconds(seconds)
}

/// Parses a margin in discs: a finite number from 0 to 64.
pub fn disc_margin(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(value) if (0.0..=64.0).contains(&value) => Ok(value),
        _ => Err(format!("{text:?}: give a number of discs from 0 to 64")),
    }
}

/// clap value parsers for the flags, one per limit.
pub mod flag {
    use super::*;

    /// `fn name(text) -> Result<T, String>`: the flag's text read within `BOUNDS`.
    macro_rules! ranged {
        ($($(#[$doc:meta])* $name:ident: $ty:ty = $bounds:ident;)*) => {$(
            $(#[$doc])*
            pub fn $name(text: &str) -> Result<$ty, String> {
                $bounds.parse(text)
            }
        )*};
    }

    ranged! {
        /// `--games`.
        games: usize = GAMES;
        /// `--parallel`, `--max-in-flight`.
        parallel: usize = PARALLEL;
        /// `--opening-random`.
        opening_plies: usize = OPENING_PLIES;
        /// `--exact-empties`.
        exact_empties: u32 = EXACT_EMPTIES;
        /// `--reference-depth`.
        reference_depth: u32 = REFERENCE_DEPTH;
        /// `wipeouts --max-plies`.
        wipeout_plies: usize = WIPEOUT_PLIES;
        /// `perft DEPTH`, `bench --perft-depth`.
        perft_depth: u32 = PERFT_DEPTH;
        /// `--count`, `train-eval --games`.
        count: usize = COUNT;
        /// `train-eval --exact-empties`.
        train_exact_empties: u32 = TRAIN_EXACT_EMPTIES;
        /// `train-eval --search-depth`.
        train_search_depth: u32 = TRAIN_SEARCH_DEPTH;
        /// `train-eval --epochs`.
        epochs: u32 = EPOCHS;
        /// `mcp --max-invalid` (an agent's rounds).
        agent_rounds: u32 = AGENT_ROUNDS;
        /// `--max-retries`.
        retries: u32 = RETRIES;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_out_of_range_is_refused_with_the_range() {
        assert_eq!(flag::games("12"), Ok(12));
        let message = flag::games("0").unwrap_err();
        assert!(message.contains("give 1 to 100000 games"), "{message}");
        assert!(flag::games("99999999999999999999")
            .unwrap_err()
            .contains("not a whole number"));
        assert!(flag::parallel("-3").unwrap_err().contains("give 1 to 1024"));
        assert!(timeout("1e300").unwrap_err().contains("at most 86400"));
        assert!(timeout("0").is_err() && timeout("NaN").is_err() && timeout("inf").is_err());
    }
}
