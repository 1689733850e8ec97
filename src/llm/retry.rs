//! Retrying transient failures with capped exponential backoff.

use std::time::Duration;

use super::error::{retry_class, LlmError, RetryClass};

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
            max_retries: 4,
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
            return Duration::from_secs_f64(secs.max(0.0)).min(self.max_backoff);
        }
        let factor = 2u32.saturating_pow(retry.min(16));
        self.initial_backoff.saturating_mul(factor).min(self.max_backoff)
    }

    /// Runs `attempt` until it succeeds, fails permanently, or the retries are spent.
    /// Returns the value and the number of retries used.
    pub fn run<T>(&self, mut attempt: impl FnMut() -> Result<T, LlmError>) -> Result<(T, u32), LlmError> {
        let mut retry = 0;
        loop {
            match attempt() {
                Ok(value) => return Ok((value, retry)),
                Err(err) if retry_class(&err) == RetryClass::Transient && retry < self.max_retries => {
                    let pause = self.backoff(retry, &err);
                    tracing::warn!(retry = retry + 1, pause_ms = pause.as_millis() as u64, error = %err, "transient failure, retrying");
                    std::thread::sleep(pause);
                    retry += 1;
                }
                Err(err) if retry_class(&err) == RetryClass::Transient => {
                    return Err(LlmError::RetriesExhausted {
                        attempts: retry + 1,
                        last: Box::new(err),
                    })
                }
                Err(err) => return Err(err),
            }
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
    }

    #[test]
    fn max_retries_counts_extra_attempts() {
        let policy = RetryPolicy {
            max_retries: 2,
            initial_backoff: Duration::ZERO,
            max_backoff: Duration::ZERO,
        };
        let mut calls = 0;
        let err = policy
            .run(|| -> Result<(), LlmError> {
                calls += 1;
                Err(status(500, None))
            })
            .unwrap_err();
        assert_eq!(calls, 3);
        assert!(matches!(err, LlmError::RetriesExhausted { attempts: 3, .. }));
        let mut calls = 0;
        let err = policy
            .run(|| -> Result<(), LlmError> {
                calls += 1;
                Err(status(404, None))
            })
            .unwrap_err();
        assert_eq!(calls, 1, "permanent failures are not retried");
        assert!(matches!(err, LlmError::Status { code: 404, .. }));
        let mut calls = 0;
        let ((), retries) = policy
            .run(|| {
                calls += 1;
                if calls < 3 {
                    Err(status(502, None))
                } else {
                    Ok(())
                }
            })
            .unwrap();
        assert_eq!(retries, 2);
    }
}
