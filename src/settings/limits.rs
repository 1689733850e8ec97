//! Ranges and their messages: [`Bounds`] for a whole number (every numeric flag of the
//! command line uses it too), [`Reals`] for a real one, and the ranges of the agent's
//! numeric settings, which [`crate::AgentSettings`] declares beside each setting: clap
//! reads a flag through them, and [`crate::AgentSettings::check`] holds a file's or a
//! library caller's values to the same ones with the same words.

use std::ops::RangeInclusive;

/// A whole-number setting: its range and what it counts, for the message.
#[derive(Clone, Debug)]
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
    pub const fn new(range: RangeInclusive<i64>, unit: &'static str, why: &'static str) -> Bounds {
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

/// A real-number setting: its range and what it is, for the message.
#[derive(Clone, Debug)]
pub struct Reals {
    /// The values taken (NaN is in no range).
    pub range: RangeInclusive<f64>,
    /// What the number is ("a temperature").
    pub what: &'static str,
}

impl Reals {
    /// `value` when it lies in the range, else a message naming the range.
    pub fn check(&self, value: f64) -> Result<f64, String> {
        if self.range.contains(&value) {
            Ok(value)
        } else {
            Err(format!(
                "{value} is out of range: give {} from {} to {}",
                self.what,
                self.range.start(),
                self.range.end()
            ))
        }
    }

    /// Parses `text` as a number in range.
    pub fn parse(&self, text: &str) -> Result<f64, String> {
        let value: f64 = text.trim().parse().map_err(|_| format!("{text:?} is not a number"))?;
        self.check(value)
    }
}

/// A range a setting of type `T` is held to: its flag's parser and its value's check.
pub trait Limit<T>: Clone + Send + Sync + 'static {
    /// `value` when it lies in the range, else a message naming the range.
    fn check_value(&self, value: T) -> Result<T, String>;

    /// Parses a flag's `text` as a value in range.
    fn parse_text(&self, text: &str) -> Result<T, String>;

    /// The clap value parser of a flag held to this range.
    fn parser(&self) -> impl Fn(&str) -> Result<T, String> + Clone + Send + Sync + 'static {
        let limit = self.clone();
        move |text: &str| limit.parse_text(text)
    }
}

impl<T> Limit<T> for Bounds
where
    T: Copy + Into<i64> + TryFrom<i64> + 'static,
{
    fn check_value(&self, value: T) -> Result<T, String> {
        self.check(value.into()).map(|_| value)
    }

    fn parse_text(&self, text: &str) -> Result<T, String> {
        self.parse(text)
    }
}

impl Limit<f64> for Reals {
    fn check_value(&self, value: f64) -> Result<f64, String> {
        self.check(value)
    }

    fn parse_text(&self, text: &str) -> Result<f64, String> {
        self.parse(text)
    }
}

/// Turns per session and sessions per move of the agent.
pub const AGENT_ROUNDS: Bounds = Bounds::new(1..=100, "", "");
/// Samples per decision of a voting agent (each costs a whole decision's requests).
pub const VOTES: Bounds = Bounds::new(1..=16, "samples", "each sample costs a whole decision's requests");
/// Tool rounds per turn.
pub const TOOL_ROUNDS: Bounds = Bounds::new(0..=100, "", "");
/// The model's context window in tokens.
pub const NUM_CTX: Bounds = Bounds::new(1..=16_777_216, "tokens", "");
/// Tokens the model may generate (Ollama: -1 no limit, -2 fill the context).
pub const NUM_PREDICT: Bounds = Bounds::new(-2..=16_777_216, "tokens (-1: no limit, -2: fill the context)", "");
/// The sampling temperature: 0 to 10.
pub const TEMPERATURE: Reals = Reals {
    range: 0.0..=10.0,
    what: "a temperature",
};

/// Games per colour (or per pairing): the schedule is built whole.
pub const GAMES: Bounds = Bounds::new(1..=100_000, "games", "the schedule is built whole");
/// Random opening plies before the players take over: at most what any game allows
/// (Othello's; each game checks its own bound, [`game::check_opening`]).
pub const OPENING_PLIES: Bounds = Bounds::new(
    0..=<game::Othello as game::Rules>::MAX_OPENING_PLIES as i64,
    "plies",
    "the players must have a game left to play",
);
/// Games (or requests) in flight at once.
pub const PARALLEL: Bounds = Bounds::new(1..=1024, "at once", "");
/// Extra attempts of a failed request.
pub const RETRIES: Bounds = Bounds::new(0..=100, "retries", "");

/// The longest request timeout taken, in seconds: a day (a longer one is surely a typo).
pub const MAX_TIMEOUT_S: f64 = 86_400.0;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_out_of_range_is_refused_with_the_range() {
        let (temperature, predict) = (TEMPERATURE.parser(), NUM_PREDICT.parser());
        assert!(temperature("NaN").is_err() && temperature("-1").is_err() && temperature("x").is_err());
        assert_eq!(temperature("0.7"), Ok(0.7));
        assert_eq!(
            temperature("11").unwrap_err(),
            "11 is out of range: give a temperature from 0 to 10"
        );
        let predict: Result<i32, String> = predict("-2");
        assert_eq!(predict, Ok(-2));
        let votes: Result<u32, String> = VOTES.parser()("17");
        assert_eq!(
            votes.unwrap_err(),
            "17 is out of range: give 1 to 16 samples (each sample costs a whole decision's requests)"
        );
        assert_eq!(
            Limit::<u32>::check_value(&AGENT_ROUNDS, 0).unwrap_err(),
            "0 is out of range: give 1 to 100"
        );
    }
}
