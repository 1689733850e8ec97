//! Per-host usage of a run, tallied from its exchange records (so a resumed run counts
//! every request of every session, and a single host reads the same as a fleet).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use serde::Serialize;

use record::{is_game_or_set_aside_log, read_game_log_prefix, Event, ExchangeRecord, ServerWork};

use crate::LogsError;
use stats::percentile;

/// What one host did in a run.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct HostUsage {
    /// The host's base URL (`unknown` for exchanges logged before hosts were named).
    pub host: String,
    /// Requests it answered (each an exchange in the logs).
    pub answered: u64,
    /// Attempts that failed on it (retried there or on another host).
    pub failures: u64,
    /// Median latency of its answers, in milliseconds.
    pub latency_p50_ms: Option<f64>,
    /// 95th percentile latency of its answers, in milliseconds.
    pub latency_p95_ms: Option<f64>,
    /// What it reported of the answers it timed itself, summed (absent: it timed none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server: Option<ServerWork>,
}

impl HostUsage {
    /// Requests sent to it: answered plus failed.
    pub fn requests(&self) -> u64 {
        self.answered + self.failures
    }

    /// The hosts' lines of a text report: requests answered and failed, latency.
    pub fn table(hosts: &[HostUsage]) -> String {
        let mut out = String::new();
        let width = hosts.iter().map(|h| h.host.len()).max().unwrap_or(4).max(4);
        let _ = writeln!(
            out,
            "{:width$}  answered  failed  latency p50     p95  server: prefill  decode tok/s  prompt tokens processed a request",
            "host"
        );
        let ms = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.0} ms"));
        let speed = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.1}"));
        for h in hosts {
            let server = match &h.server {
                Some(work) => format!(
                    "{:>15}  {:>12}  {}",
                    speed(work.prefill_tokens_per_s()),
                    speed(work.decode_tokens_per_s()),
                    work.prompt_tokens_per_request()
                        .map_or("-".to_string(), |n| format!("{n:.0}"))
                ),
                None => format!("{:>15}", "not reported"),
            };
            let _ = writeln!(
                out,
                "{:width$}  {:>8}  {:>6}  {:>11}  {:>6}  {server}",
                h.host,
                h.answered,
                h.failures,
                ms(h.latency_p50_ms),
                ms(h.latency_p95_ms)
            );
        }
        out
    }
}

/// The usage of every host named in `exchanges` (answering or failing), by URL.
pub fn host_usage<'a>(exchanges: impl IntoIterator<Item = &'a ExchangeRecord>) -> Vec<HostUsage> {
    let mut latencies: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    let mut failures: BTreeMap<String, u64> = BTreeMap::new();
    let mut timed: BTreeMap<String, ServerWork> = BTreeMap::new();
    for exchange in exchanges {
        let host = exchange.host.clone().unwrap_or_else(|| "unknown".to_string());
        if let Some(work) = exchange.server {
            let sum = timed.entry(host.clone()).or_default();
            *sum = sum.plus(work);
        }
        latencies.entry(host).or_default().push(exchange.latency_ms);
        for failure in &exchange.failures {
            *failures.entry(failure.host.clone()).or_default() += 1;
        }
    }
    let hosts: std::collections::BTreeSet<&String> = latencies.keys().chain(failures.keys()).collect();
    hosts
        .into_iter()
        .map(|host| {
            let answered = latencies.get(host).map_or(&[][..], Vec::as_slice);
            HostUsage {
                host: host.clone(),
                answered: answered.len() as u64,
                failures: failures.get(host).copied().unwrap_or(0),
                latency_p50_ms: percentile(answered, 50.0),
                latency_p95_ms: percentile(answered, 95.0),
                server: timed.get(host).copied(),
            }
        })
        .collect()
}

/// Per-host usage over every game log of the run in `dir`: earlier sessions of a
/// resumed run included, and the unfinished games they set aside (`*.unfinished-N`,
/// whose requests were sent too; a line a crash cut off is skipped).
pub fn folder_host_usage(dir: &Path) -> Result<Vec<HostUsage>, LogsError> {
    let io = |source| LogsError::Io {
        path: dir.to_path_buf(),
        source,
    };
    let mut logs: Vec<_> = std::fs::read_dir(dir)
        .map_err(io)?
        .flatten()
        .map(|e| e.path())
        .filter(|p| is_game_or_set_aside_log(p))
        .collect();
    logs.sort();
    let mut exchanges = Vec::new();
    for path in logs {
        for record in read_game_log_prefix(&path)?.records {
            if let Event::Exchange(exchange) = record.event {
                exchanges.push(exchange);
            }
        }
    }
    Ok(host_usage(&exchanges))
}

#[cfg(test)]
mod tests {
    use super::*;
    use record::AttemptFailure;

    fn exchange(host: &str, latency_ms: f64, failed_on: &[&str]) -> ExchangeRecord {
        ExchangeRecord {
            game: 1,
            ply: 1,
            color: game::Color::Black,
            session: 1,
            turn: 1,
            latency_ms,
            retries: failed_on.len() as u32,
            host: Some(host.into()),
            finish_reason: None,
            answered_by: None,
            server: None,
            feedback_reason: None,
            omitted_messages: None,
            failures: failed_on
                .iter()
                .map(|h| AttemptFailure {
                    host: (*h).into(),
                    error: "refused".into(),
                })
                .collect(),
            request: serde_json::Value::Null,
            response: serde_json::Value::Null,
        }
    }

    #[test]
    fn answers_and_failures_are_counted_per_host() {
        let logged = [
            exchange("http://a", 100.0, &[]),
            exchange("http://a", 300.0, &["http://b"]),
            exchange("http://a", 200.0, &["http://b", "http://b"]),
        ];
        let usage = host_usage(&logged);
        assert_eq!(usage.len(), 2);
        assert_eq!((usage[0].answered, usage[0].failures, usage[0].requests()), (3, 0, 3));
        assert_eq!(usage[0].latency_p50_ms, Some(200.0));
        assert_eq!(usage[0].latency_p95_ms, Some(300.0));
        assert_eq!(
            (usage[1].host.as_str(), usage[1].answered, usage[1].failures),
            ("http://b", 0, 3)
        );
        assert_eq!(usage[1].latency_p50_ms, None);
    }
}
