//! Retrying transient failures with capped exponential backoff.

use std::time::Duration;

use super::error::{retry_class, LlmError, RetryClass};

/// Extra attempts after a transient failure unless a host says otherwise.
pub const DEFAULT_MAX_RETRIES: u32 = 4;

/// How transient HTTP failures are retried.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RetryPolicy {
    /// Extra attempts after the first (0: never retry).
    pub max_retries: u32,
    /// Pause before the first retry.
    pub initial_backoff: Duration,
    /// Longest pause between attempts (also caps Retry-After).
    pub max_backoff: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_retries: DEFAULT_MAX_RETRIES,
            initial_backoff: Duration::from_millis(500),
            max_backoff: Duration::from_secs(30),
        }
    }
}

impl RetryPolicy {
    /// The pause before retry number `retry` (0-based): doubling from the initial
    /// backoff, capped, or the server's Retry-After when it gave one (also capped).
    pub fn backoff(&self, retry: u32, err: &LlmError) -> Duration {
        if let LlmError::Status {
            retry_after_s: Some(secs),
            ..
        } = err
        {
            // A huge or infinite Retry-After is capped, never a panic.
            return Duration::try_from_secs_f64(secs.max(0.0)).map_or(self.max_backoff, |d| d.min(self.max_backoff));
        }
        let factor = 2u32.saturating_pow(retry.min(16));
        self.initial_backoff.saturating_mul(factor).min(self.max_backoff)
    }

    /// A fresh count of retries under this policy, for one request.
    pub fn start(&self) -> Retries<'_> {
        Retries { policy: self, used: 0 }
    }
}

/// The retries of one request: after each failed attempt, [`Retries::after_failure`]
/// pauses and says to go on, or gives the error to return.
#[derive(Debug)]
pub struct Retries<'a> {
    policy: &'a RetryPolicy,
    used: u32,
}

impl Retries<'_> {
    /// Retries used so far.
    pub fn used(&self) -> u32 {
        self.used
    }

    /// After a failed attempt: pauses and returns `Ok` when `err` is transient and
    /// retries are left; otherwise the error the request fails with.
    pub async fn after_failure(&mut self, err: LlmError) -> Result<(), LlmError> {
        match retry_class(&err) {
            RetryClass::Transient if self.used < self.policy.max_retries => {
                let pause = self.policy.backoff(self.used, &err);
                tracing::warn!(retry = self.used + 1, pause_ms = pause.as_millis() as u64, error = %err, "transient failure, retrying");
                tokio::time::sleep(pause).await;
                self.used += 1;
                Ok(())
            }
            RetryClass::Transient => Err(LlmError::RetriesExhausted {
                attempts: self.used + 1,
                last: Box::new(err),
            }),
            RetryClass::Permanent => Err(err),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status(code: u16, retry_after_s: Option<f64>) -> LlmError {
        LlmError::Status {
            code,
            url: "u".into(),
            body: String::new(),
            retry_after_s,
        }
    }

    #[test]
    fn backoff_doubles_is_capped_and_honours_retry_after() {
        let policy = RetryPolicy {
            max_retries: 5,
            initial_backoff: Duration::from_millis(100),
            max_backoff: Duration::from_millis(500),
        };
        let err = status(503, None);
        let pauses: Vec<u128> = (0..5).map(|r| policy.backoff(r, &err).as_millis()).collect();
        assert_eq!(pauses, [100, 200, 400, 500, 500]);
        assert_eq!(policy.backoff(0, &status(429, Some(0.25))).as_millis(), 250);
        assert_eq!(policy.backoff(0, &status(429, Some(90.0))).as_millis(), 500);
        assert_eq!(policy.backoff(0, &status(429, Some(1e20))).as_millis(), 500);
        assert_eq!(policy.backoff(0, &status(429, Some(f64::INFINITY))).as_millis(), 500);
    }

    /// Calls `attempt` under `policy` as the backends do; returns the outcome and calls made.
    async fn run(
        policy: &RetryPolicy,
        mut attempt: impl FnMut(u32) -> Result<(), LlmError>,
    ) -> (Result<u32, LlmError>, u32) {
        let mut retries = policy.start();
        let mut calls = 0;
        loop {
            calls += 1;
            match attempt(calls) {
                Ok(()) => return (Ok(retries.used()), calls),
                Err(err) => {
                    if let Err(err) = retries.after_failure(err).await {
                        return (Err(err), calls);
                    }
                }
            }
        }
    }

    #[tokio::test]
    async fn max_retries_counts_extra_attempts() {
        let policy = RetryPolicy {
            max_retries: 2,
            initial_backoff: Duration::ZERO,
            max_backoff: Duration::ZERO,
        };
        let (result, calls) = run(&policy, |_| Err(status(500, None))).await;
        assert_eq!(calls, 3);
        assert!(matches!(
            result.unwrap_err(),
            LlmError::RetriesExhausted { attempts: 3, .. }
        ));
        let (result, calls) = run(&policy, |_| Err(status(404, None))).await;
        assert_eq!(calls, 1, "permanent failures are not retried");
        assert!(matches!(result.unwrap_err(), LlmError::Status { code: 404, .. }));
        let (result, _) = run(&policy, |calls| if calls < 3 { Err(status(502, None)) } else { Ok(()) }).await;
        assert_eq!(result.unwrap(), 2);
    }
}
