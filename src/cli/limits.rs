//! The range of every numeric setting, checked once when the command line is parsed
//! (clap calls these parsers, so the message names the flag) and again, with the same
//! words, for the values an agent file gives. One place for each limit and its message.

use std::ops::RangeInclusive;

use anyhow::Context as _;
use engines::lab::MIN_SEARCH_DEPTH;
use engines::{MAX_EXACT_EMPTIES, MAX_REFERENCE_DEPTH};
use game::{Othello, Rules};
use llm::ChatOptions;

/// A whole-number setting: its range and what it counts, for the message.
pub struct Bounds {
    /// The values taken.
    pub range: RangeInclusive<i64>,
    /// What the number counts ("games", "plies").
    pub unit: &'static str,
    /// Why the upper end is where it is, when that is not obvious.
    pub why: &'static str,
}

impl Bounds {
    /// The values in `range`, counting `unit`, bounded above for the reason `why` (empty:
    /// none worth saying).
    const fn new(range: RangeInclusive<i64>, unit: &'static str, why: &'static str) -> Bounds {
        Bounds { range, unit, why }
    }

    /// `value` when it lies in the range, else a message naming the range.
    pub fn check(&self, value: i64) -> Result<i64, String> {
        if self.range.contains(&value) {
            return Ok(value);
        }
        let why = if self.why.is_empty() {
            String::new()
        } else {
            format!(" ({})", self.why)
        };
        Err(format!(
            "{value} is out of range: give {} to {}{}{why}",
            self.range.start(),
            self.range.end(),
            self.unit()
        ))
    }

    fn unit(&self) -> String {
        if self.unit.is_empty() {
            String::new()
        } else {
            format!(" {}", self.unit)
        }
    }

    /// Parses `text` as a whole number in range.
    pub fn parse<T: TryFrom<i64>>(&self, text: &str) -> Result<T, String> {
        let value: i64 = text.trim().parse().map_err(|_| {
            format!(
                "{text:?} is not a whole number: give {} to {}{}",
                self.range.start(),
                self.range.end(),
                self.unit()
            )
        })?;
        let value = self.check(value)?;
        T::try_from(value).map_err(|_| format!("{value} does not fit"))
    }
}

/// Games per colour (or per pairing): the schedule is built whole.
pub const GAMES: Bounds = Bounds::new(1..=100_000, "games", "the schedule is built whole");
/// Games (or requests) in flight at once.
pub const PARALLEL: Bounds = Bounds::new(1..=1024, "at once", "");
/// Random opening plies before the players take over: at most what any game allows
/// (Othello's; each game checks its own bound, [`game::check_opening`]).
pub const OPENING_PLIES: Bounds = Bounds::new(
    0..=Othello::MAX_OPENING_PLIES as i64,
    "plies",
    "the players must have a game left to play",
);
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
/// Turns per session and sessions per move of the agent.
pub const AGENT_ROUNDS: Bounds = Bounds::new(1..=100, "", "");
/// Samples per decision of a voting agent (each costs a whole decision's requests).
pub const VOTES: Bounds = Bounds::new(1..=16, "samples", "each sample costs a whole decision's requests");
/// Tool rounds per turn.
pub const TOOL_ROUNDS: Bounds = Bounds::new(0..=100, "", "");
/// Extra attempts of a failed request.
pub const RETRIES: Bounds = Bounds::new(0..=100, "retries", "");
/// The model's context window in tokens.
pub const NUM_CTX: Bounds = Bounds::new(1..=16_777_216, "tokens", "");
/// Tokens the model may generate (Ollama: -1 no limit, -2 fill the context).
pub const NUM_PREDICT: Bounds = Bounds::new(-2..=16_777_216, "tokens (-1: no limit, -2: fill the context)", "");

/// The longest request timeout taken, in seconds: a day (a longer one is surely a typo).
pub const MAX_TIMEOUT_S: f64 = 86_400.0;
/// The highest sampling temperature taken.
pub const MAX_TEMPERATURE: f64 = 10.0;

/// A request timeout in seconds: above 0, at most a day.
pub fn timeout_seconds(seconds: f64) -> Result<f64, String> {
    if seconds > 0.0 && seconds <= MAX_TIMEOUT_S {
        Ok(seconds)
    } else {
        Err(format!(
            "{seconds} is out of range: give seconds above 0, at most {MAX_TIMEOUT_S}"
        ))
    }
}

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
pub fn timeout(text: &str) -> Result<f64, String> {
    let seconds: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("{text:?} is not a number of seconds"))?;
    timeout_seconds(seconds)
}

/// A sampling temperature: finite, 0 to [`MAX_TEMPERATURE`].
pub fn temperature(value: f64) -> Result<f64, String> {
    if (0.0..=MAX_TEMPERATURE).contains(&value) {
        Ok(value)
    } else {
        Err(format!(
            "{value} is out of range: give a temperature from 0 to {MAX_TEMPERATURE}"
        ))
    }
}

/// Parses a margin in discs: a finite number from 0 to 64.
pub fn disc_margin(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(value) if (0.0..=64.0).contains(&value) => Ok(value),
        _ => Err(format!("{text:?}: give a number of discs from 0 to 64")),
    }
}

/// Parses a temperature flag.
pub fn parse_temperature(text: &str) -> Result<f64, String> {
    let value: f64 = text.trim().parse().map_err(|_| format!("{text:?} is not a number"))?;
    temperature(value)
}

/// Checks what an agent file gives against the limits the flags' parsers hold (the
/// message names the key).
pub fn check_agent_file(settings: &agent::AgentSettings) -> anyhow::Result<()> {
    check_options(&settings.options).context("bad [options] in --agent-file")?;
    let rounds = [
        ("max_turns", AGENT_ROUNDS, settings.max_turns),
        ("max_sessions", AGENT_ROUNDS, settings.max_sessions),
        ("max_tool_rounds", TOOL_ROUNDS, settings.max_tool_rounds),
        ("vote", VOTES, settings.vote),
    ];
    for (key, bounds, value) in rounds {
        if let Some(value) = value {
            bounds
                .check(i64::from(value))
                .map_err(|e| anyhow::anyhow!("bad {key} in --agent-file: {e}"))?;
        }
    }
    Ok(())
}

/// The model options an agent file gives, checked against the flags' limits.
fn check_options(options: &ChatOptions) -> anyhow::Result<()> {
    let bad = |key: &str, e: String| anyhow::anyhow!("{key}: {e}");
    if let Some(t) = options.temperature {
        temperature(t).map_err(|e| bad("temperature", e))?;
    }
    if let Some(n) = options.num_ctx {
        NUM_CTX.check(i64::from(n)).map_err(|e| bad("num_ctx", e))?;
    }
    if let Some(n) = options.num_predict {
        NUM_PREDICT.check(i64::from(n)).map_err(|e| bad("num_predict", e))?;
    }
    Ok(())
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
        /// `--max-turns`, `--max-sessions`.
        agent_rounds: u32 = AGENT_ROUNDS;
        /// `--max-tool-rounds`.
        tool_rounds: u32 = TOOL_ROUNDS;
        /// `--vote`.
        votes: u32 = VOTES;
        /// `--max-retries`.
        retries: u32 = RETRIES;
        /// `--num-ctx`.
        num_ctx: u32 = NUM_CTX;
        /// `--num-predict`.
        num_predict: i32 = NUM_PREDICT;
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
        assert!(parse_temperature("NaN").is_err() && parse_temperature("-1").is_err());
        assert_eq!(parse_temperature("0.7"), Ok(0.7));
        assert_eq!(flag::num_predict("-2"), Ok(-2));
    }
}
