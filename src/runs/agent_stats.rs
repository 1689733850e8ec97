//! What an LLM player did over a set of moves: [`AgentStats`], counted from the
//! agent's decisions, and its derived rates ([`AgentRates`]).
//!
//! Each counter is declared once, in the `counters!` list below: its doc, its type and
//! how one decision adds to it. The struct, [`AgentStats::add`], [`AgentStats::merge`]
//! and the JSON (serde, through [`AgentStats::to_json`]) all come from that list.

use serde::Serialize;
use serde_json::Value;

use record::{AgentDecision, AnswerKind, MoveSource, ServerWork};
use stats::{mean_interval, order_free_sum, percentile, wilson_interval};

/// A counter's sum that never wraps: a server that reports `u64::MAX` tokens leaves the
/// count at its ceiling instead of wrapping it round to a small number.
trait Accumulate {
    fn accumulate(&mut self, more: Self);
}

impl Accumulate for u32 {
    fn accumulate(&mut self, more: u32) {
        *self = self.saturating_add(more);
    }
}

impl Accumulate for u64 {
    fn accumulate(&mut self, more: u64) {
        *self = self.saturating_add(more);
    }
}

impl Accumulate for ServerWork {
    fn accumulate(&mut self, more: ServerWork) {
        *self = self.plus(more);
    }
}

impl Accumulate for f64 {
    fn accumulate(&mut self, more: f64) {
        *self += more;
    }
}

/// Declares [`AgentStats`] from its counters: `doc name: type = how one decision adds
/// to it` (a function of the [`AgentDecision`]).
macro_rules! counters {
    ($($(#[$attr:meta])* $name:ident: $ty:ty = $from:expr,)*) => {
        /// What the agent did over a set of moves.
        #[derive(Clone, Debug, Default, PartialEq, Serialize)]
        pub struct AgentStats {
            $($(#[$attr])* pub $name: $ty,)*
            /// Per-move latency (all requests of the move), milliseconds.
            #[serde(skip)]
            pub move_latencies_ms: Vec<f64>,
            /// Per-move invalid answers (the interval of their mean).
            #[serde(skip)]
            pub move_invalid_answers: Vec<f64>,
        }

        impl AgentStats {
            /// Adds one decision.
            pub fn add(&mut self, d: &AgentDecision) {
                $(
                    let from: fn(&AgentDecision) -> $ty = $from;
                    self.$name.accumulate(from(d));
                )*
                self.move_latencies_ms.push(d.latency_ms);
                self.move_invalid_answers.push(f64::from(d.invalid_answers));
            }

            /// The sum of two sets of statistics.
            pub fn merge(&mut self, other: &AgentStats) {
                $(self.$name.accumulate(other.$name);)*
                self.move_latencies_ms.extend_from_slice(&other.move_latencies_ms);
                self.move_invalid_answers.extend_from_slice(&other.move_invalid_answers);
            }
        }
    };
}

counters! {
    /// Moves the agent was asked for (forced passes excluded).
    moves: u32 = |_| 1,
    /// Moves the model itself decided.
    llm_moves: u32 = |d| u32::from(by_model(d)),
    /// Of those, moves decided on the model's first final answer (none rejected).
    first_answer_moves: u32 = |d| u32::from(by_model(d) && rejected(d) == 0),
    /// Of those, moves decided after one or more rejected answers (told so with
    /// feedback, or asked again in a new session).
    after_rejection_moves: u32 = |d| u32::from(by_model(d) && rejected(d) > 0),
    /// Moves the fallback played.
    fallback_moves: u32 = |d| u32::from(!matches!(d.source, Some(MoveSource::Llm | MoveSource::Forfeit) | None)),
    /// Games the agent forfeited (`--fallback forfeit`): asked for a move, it gave none.
    forfeits: u32 = |d| u32::from(d.source == Some(MoveSource::Forfeit)),
    /// Model moves whose answer was exactly one coordinate.
    clean_answers: u32 = |d| u32::from(d.answer_kind == Some(AnswerKind::Clean)),
    /// Model moves whose coordinate was extracted from prose.
    extracted_answers: u32 = |d| u32::from(d.answer_kind == Some(AnswerKind::Extracted)),
    /// Final answers without a legal move (each cost a session or a feedback turn).
    invalid_answers: u32 = |d| d.invalid_answers,
    /// Of those, structured answers that were not JSON against the schema.
    schema_violations: u32 = |d| d.schema_violations,
    /// Answers without a legal move that the server cut off at the token limit
    /// (apart from the invalid ones; older logs count them as invalid).
    cut_off_answers: u32 = |d| d.cut_off_answers,
    /// Requests sent (written as its rate per move only).
    #[serde(skip_serializing)]
    requests: u32 = |d| d.turns,
    /// Structured tool calls.
    tool_calls: u32 = |d| d.tool_calls,
    /// Tool calls recovered from text.
    recovered_tool_calls: u32 = |d| d.recovered_tool_calls,
    /// Tool calls answered with an error.
    tool_errors: u32 = |d| d.tool_errors,
    /// Prompt tokens (written as its rate per move only).
    #[serde(skip_serializing)]
    prompt_tokens: u64 = |d| d.prompt_tokens,
    /// Generated tokens (written as its rate per move only).
    #[serde(skip_serializing)]
    completion_tokens: u64 = |d| d.completion_tokens,
    /// Of those, the tokens spent thinking (written as its rate per move only).
    #[serde(skip_serializing)]
    thinking_tokens: u64 = |d| d.thinking_tokens,
    /// Replies whose thinking tokens are an estimate (the server did not count them
    /// apart: the generated tokens split by the share of characters).
    thinking_estimated: u32 = |d| d.thinking_estimated,
    /// Replies that named another model than the one asked for (written when any did).
    #[serde(skip_serializing_if = "is_zero")]
    other_model_replies: u32 = |d| d.other_model_replies,
    /// What the server reported of the requests it timed (llama-server's `timings`,
    /// Ollama's durations), summed; written when it timed any.
    #[serde(skip_serializing_if = "untimed")]
    server: ServerWork = |d| d.server.unwrap_or_default(),
    /// Decisions sampled several times (`--vote K`, K above 1).
    voted_decisions: u32 = |d| u32::from(d.vote.is_some()),
    /// Of those, the ones where every sample gave the same move.
    unanimous_votes: u32 = |d| u32::from(d.vote.as_ref().is_some_and(record::Vote::unanimous)),
}

/// Whether the model itself decided the move.
fn by_model(d: &AgentDecision) -> bool {
    matches!(d.source, Some(MoveSource::Llm) | None)
}

/// The move's answers that did not count: invalid or cut off at the token limit.
fn rejected(d: &AgentDecision) -> u32 {
    d.invalid_answers.saturating_add(d.cut_off_answers)
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

fn untimed(work: &ServerWork) -> bool {
    work.requests == 0
}

/// A model server's speed by its own clock, over the requests it timed: prefill and
/// decode tokens a second, and the prompt tokens it had to process a request after
/// reusing its cache.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct ServerSpeed {
    /// Prompt tokens processed a second (`None`: no prompt time reported).
    pub prefill_tokens_per_s: Option<f64>,
    /// Tokens generated a second (`None`: no generation time reported).
    pub decode_tokens_per_s: Option<f64>,
    /// Prompt tokens the server processed a timed request (those its cache held
    /// excluded).
    pub processed_prompt_tokens_per_request: f64,
    /// Seconds the server was busy a move (prefill and decode of the move's timed
    /// requests): the floor under the seconds a move at these speeds.
    pub server_seconds_per_move: f64,
}

/// The rates derived from [`AgentStats`] (per move: 0 with no moves), written beside
/// its counters.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct AgentRates {
    /// Share of moves the model decided itself.
    pub llm_share: f64,
    /// Its Wilson 95% interval, low end.
    pub llm_share_ci_low: f64,
    /// Its Wilson 95% interval, high end.
    pub llm_share_ci_high: f64,
    /// Invalid answers per move.
    pub invalid_answers_per_move: f64,
    /// Its normal 95% interval over the moves, low end.
    pub invalid_answers_per_move_ci_low: f64,
    /// Its normal 95% interval over the moves, high end.
    pub invalid_answers_per_move_ci_high: f64,
    /// Share of the moves asked that the model decided on its first answer.
    pub first_answer_share: f64,
    /// Its Wilson 95% interval, low end.
    pub first_answer_share_ci_low: f64,
    /// Its Wilson 95% interval, high end.
    pub first_answer_share_ci_high: f64,
    /// Share of the moves asked that the model decided after a rejected answer.
    pub after_rejection_share: f64,
    /// Its Wilson 95% interval, low end.
    pub after_rejection_share_ci_low: f64,
    /// Its Wilson 95% interval, high end.
    pub after_rejection_share_ci_high: f64,
    /// Cut-off answers per move.
    pub cut_off_answers_per_move: f64,
    /// Requests per move.
    pub requests_per_move: f64,
    /// Structured tool calls per move.
    pub tool_calls_per_move: f64,
    /// Tool calls recovered from text per move.
    pub recovered_tool_calls_per_move: f64,
    /// Prompt tokens per move.
    pub prompt_tokens_per_move: f64,
    /// Generated tokens per move (thinking and answer).
    pub completion_tokens_per_move: f64,
    /// Of those, thinking tokens per move.
    pub thinking_tokens_per_move: f64,
    /// And answer tokens per move (generated, less thinking).
    pub answer_tokens_per_move: f64,
    /// Median per-move latency, milliseconds (`None` with no moves).
    pub latency_ms_p50: Option<f64>,
    /// 95th percentile of the per-move latency, milliseconds.
    pub latency_ms_p95: Option<f64>,
    /// Mean seconds a move (all requests of the move; `None` with no moves).
    pub seconds_per_move: Option<f64>,
    /// The server's speed in its own clock, where it timed its requests.
    #[serde(flatten)]
    pub server: Option<ServerSpeed>,
    /// Share of the voted decisions that were unanimous (`None`: no decision voted).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unanimous_vote_share: Option<f64>,
}

impl AgentStats {
    /// Whether its moves went through requests of ours, whose answers and tokens are
    /// measured: not so for an MCP client, whose model (if any) is its own.
    pub fn answers_measured(&self) -> bool {
        self.requests > 0 || self.moves == 0
    }

    fn per_move(&self, total: f64) -> f64 {
        if self.moves == 0 {
            0.0
        } else {
            total / f64::from(self.moves)
        }
    }

    /// The derived rates.
    pub fn rates(&self) -> AgentRates {
        let (llm_share_ci_low, llm_share_ci_high) = wilson_interval(self.llm_moves, self.moves);
        let (first_answer_share_ci_low, first_answer_share_ci_high) =
            wilson_interval(self.first_answer_moves, self.moves);
        let (after_rejection_share_ci_low, after_rejection_share_ci_high) =
            wilson_interval(self.after_rejection_moves, self.moves);
        let (_, invalid_low, invalid_high) = mean_interval(&self.move_invalid_answers).unwrap_or_default();
        AgentRates {
            llm_share: self.per_move(f64::from(self.llm_moves)),
            llm_share_ci_low,
            llm_share_ci_high,
            invalid_answers_per_move: self.per_move(f64::from(self.invalid_answers)),
            invalid_answers_per_move_ci_low: invalid_low.max(0.0),
            invalid_answers_per_move_ci_high: invalid_high.max(0.0),
            first_answer_share: self.per_move(f64::from(self.first_answer_moves)),
            first_answer_share_ci_low,
            first_answer_share_ci_high,
            after_rejection_share: self.per_move(f64::from(self.after_rejection_moves)),
            after_rejection_share_ci_low,
            after_rejection_share_ci_high,
            cut_off_answers_per_move: self.per_move(f64::from(self.cut_off_answers)),
            requests_per_move: self.per_move(f64::from(self.requests)),
            tool_calls_per_move: self.per_move(f64::from(self.tool_calls)),
            recovered_tool_calls_per_move: self.per_move(f64::from(self.recovered_tool_calls)),
            prompt_tokens_per_move: self.per_move(self.prompt_tokens as f64),
            completion_tokens_per_move: self.per_move(self.completion_tokens as f64),
            thinking_tokens_per_move: self.per_move(self.thinking_tokens as f64),
            answer_tokens_per_move: self.per_move(self.completion_tokens.saturating_sub(self.thinking_tokens) as f64),
            latency_ms_p50: percentile(&self.move_latencies_ms, 50.0),
            latency_ms_p95: percentile(&self.move_latencies_ms, 95.0),
            seconds_per_move: (self.moves > 0)
                .then(|| order_free_sum(&self.move_latencies_ms) / 1000.0 / f64::from(self.moves)),
            server: self.server_speed(),
            unanimous_vote_share: (self.voted_decisions > 0)
                .then(|| f64::from(self.unanimous_votes) / f64::from(self.voted_decisions)),
        }
    }

    /// The server's speed over the requests it timed; `None` when it timed none.
    fn server_speed(&self) -> Option<ServerSpeed> {
        let work = &self.server;
        Some(ServerSpeed {
            prefill_tokens_per_s: work.prefill_tokens_per_s(),
            decode_tokens_per_s: work.decode_tokens_per_s(),
            processed_prompt_tokens_per_request: work.prompt_tokens_per_request()?,
            server_seconds_per_move: self.per_move(work.busy_ms() / 1000.0),
        })
    }

    /// Speed in one line beside a player's costs: seconds a move, and where the server
    /// timed its requests, its prefill and decode tokens a second, the prompt tokens
    /// it processed a request (of those sent) and its own seconds a move.
    pub fn speed(&self) -> String {
        let r = self.rates();
        let Some(seconds) = r.seconds_per_move else {
            return "no moves".to_string();
        };
        let Some(server) = r.server else {
            return format!("{seconds:.2} s a move; the server reported no timings");
        };
        let speed = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.0}"));
        let sent = self.prompt_tokens as f64 / f64::from(self.requests.max(1));
        format!(
            "{seconds:.2} s a move, {:.2} s of it the server's (prefill {} tok/s, decode {} tok/s); prompt tokens \
             processed {:.0} a request of {sent:.0} sent",
            server.server_seconds_per_move,
            speed(server.prefill_tokens_per_s),
            speed(server.decode_tokens_per_s),
            server.processed_prompt_tokens_per_request,
        )
    }

    /// Illegal play as the field counts it, in one line beside a player's strength:
    /// invalid answers per move, the shares of moves decided on the first answer and
    /// after a rejected one, and the forfeits of its `games`, each with its 95% interval.
    pub fn illegal_play(&self, games: u32) -> String {
        let r = self.rates();
        let (forfeit_low, forfeit_high) = wilson_interval(self.forfeits, games);
        format!(
            "{:.2} illegal answers/move [{:.2}, {:.2}]; first answer {:.1}% [{:.1}, {:.1}]; after a rejected \
             answer {:.1}% [{:.1}, {:.1}]; forfeits {} of {games} games [{:.1}, {:.1}]%",
            r.invalid_answers_per_move,
            r.invalid_answers_per_move_ci_low,
            r.invalid_answers_per_move_ci_high,
            100.0 * r.first_answer_share,
            100.0 * r.first_answer_share_ci_low,
            100.0 * r.first_answer_share_ci_high,
            100.0 * r.after_rejection_share,
            100.0 * r.after_rejection_share_ci_low,
            100.0 * r.after_rejection_share_ci_high,
            self.forfeits,
            100.0 * forfeit_low,
            100.0 * forfeit_high,
        )
    }

    /// The statistics as JSON (`results.json`, `stats --json`): the counters with the
    /// derived rates.
    pub fn to_json(&self) -> Value {
        #[derive(Serialize)]
        struct Written<'a> {
            #[serde(flatten)]
            counters: &'a AgentStats,
            #[serde(flatten)]
            rates: AgentRates,
        }
        serde_json::to_value(Written {
            counters: self,
            rates: self.rates(),
        })
        .expect("numbers and a struct of them always serialise")
    }
}

impl<'a> FromIterator<&'a AgentDecision> for AgentStats {
    fn from_iter<I: IntoIterator<Item = &'a AgentDecision>>(decisions: I) -> AgentStats {
        let mut stats = AgentStats::default();
        for d in decisions {
            stats.add(d);
        }
        stats
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn decision(source: MoveSource, kind: Option<AnswerKind>) -> AgentDecision {
        AgentDecision {
            source: Some(source),
            sessions: 2,
            turns: 3,
            tool_calls: 4,
            recovered_tool_calls: 1,
            tool_errors: 1,
            invalid_answers: 2,
            schema_violations: 1,
            cut_off_answers: 1,
            answer_kind: kind,
            prompt_tokens: 100,
            completion_tokens: 10,
            thinking_tokens: 4,
            thinking_estimated: 1,
            other_model_replies: 0,
            latency_ms: 40.0,
            server: None,
            fallback_reason: None,
            vote: None,
            ended_sessions: Vec::new(),
        }
    }

    #[test]
    fn server_timings_give_speeds_and_the_floor_a_move_and_none_when_untimed() {
        let untimed: AgentStats = decisions().iter().collect();
        assert_eq!(untimed.rates().server, None);
        assert!(
            untimed.speed().ends_with("the server reported no timings"),
            "{}",
            untimed.speed()
        );
        assert!(untimed.to_json().get("prefill_tokens_per_s").is_none());
        let mut timed = decision(MoveSource::Llm, Some(AnswerKind::Clean));
        // Two requests: 200 prompt tokens processed in 400 ms, 20 generated in 1 s.
        timed.server = Some(record::ServerWork {
            requests: 2,
            prompt_tokens: 200,
            prompt_ms: 400.0,
            generated_tokens: 20,
            generation_ms: 1000.0,
        });
        timed.latency_ms = 2000.0;
        let mut stats: AgentStats = [&timed, &timed].into_iter().collect();
        // A move the server did not time still counts as a move.
        stats.add(&decision(MoveSource::Fallback, None));
        let speed = stats.rates().server.expect("timed requests");
        assert_eq!(speed.prefill_tokens_per_s, Some(500.0));
        assert_eq!(speed.decode_tokens_per_s, Some(20.0));
        assert_eq!(speed.processed_prompt_tokens_per_request, 100.0);
        assert!((speed.server_seconds_per_move - 2.8 / 3.0).abs() < 1e-9);
        assert_eq!(stats.to_json()["decode_tokens_per_s"], json!(20.0));
        let line = stats.speed();
        assert!(line.starts_with("1.35 s a move, 0.93 s of it the server's"), "{line}");
        assert!(line.contains("prefill 500 tok/s, decode 20 tok/s"), "{line}");
    }

    /// One decision of each kind: a clean and an extracted model move, a fallback
    /// move and a forfeit.
    fn decisions() -> [AgentDecision; 4] {
        [
            decision(MoveSource::Llm, Some(AnswerKind::Clean)),
            decision(MoveSource::Llm, Some(AnswerKind::Extracted)),
            decision(MoveSource::Fallback, None),
            decision(MoveSource::Forfeit, None),
        ]
    }

    fn sample() -> AgentStats {
        decisions().iter().collect()
    }

    #[test]
    fn token_sums_stop_at_their_ceiling_instead_of_wrapping() {
        let mut huge = decision(MoveSource::Llm, Some(AnswerKind::Clean));
        huge.prompt_tokens = u64::MAX;
        let mut stats: AgentStats = [huge.clone(), huge].iter().collect();
        assert_eq!(stats.prompt_tokens, u64::MAX);
        stats.merge(&sample());
        assert_eq!((stats.prompt_tokens, stats.moves), (u64::MAX, 6));
    }

    #[test]
    fn the_json_keeps_its_keys_and_numbers() {
        let AgentRates {
            llm_share: share,
            llm_share_ci_low: low,
            llm_share_ci_high: high,
            first_answer_share_ci_high: first_high,
            ..
        } = sample().rates();
        assert_eq!(
            sample().to_json(),
            json!({
                "moves": 4,
                "llm_moves": 2,
                "first_answer_moves": 0,
                "after_rejection_moves": 2,
                "first_answer_share": 0.0,
                "first_answer_share_ci_low": 0.0,
                "first_answer_share_ci_high": first_high,
                "after_rejection_share": 0.5,
                "after_rejection_share_ci_low": low,
                "after_rejection_share_ci_high": high,
                "invalid_answers_per_move_ci_low": 2.0,
                "invalid_answers_per_move_ci_high": 2.0,
                "fallback_moves": 1,
                "forfeits": 1,
                "llm_share": share,
                "llm_share_ci_low": low,
                "llm_share_ci_high": high,
                "clean_answers": 1,
                "extracted_answers": 1,
                "invalid_answers": 8,
                "schema_violations": 4,
                "cut_off_answers": 4,
                "thinking_estimated": 4,
                "voted_decisions": 0,
                "unanimous_votes": 0,
                "invalid_answers_per_move": 2.0,
                "cut_off_answers_per_move": 1.0,
                "requests_per_move": 3.0,
                "tool_calls": 16,
                "recovered_tool_calls": 4,
                "tool_errors": 4,
                "tool_calls_per_move": 4.0,
                "recovered_tool_calls_per_move": 1.0,
                "prompt_tokens_per_move": 100.0,
                "completion_tokens_per_move": 10.0,
                "thinking_tokens_per_move": 4.0,
                "answer_tokens_per_move": 6.0,
                "latency_ms_p50": 40.0,
                "latency_ms_p95": 40.0,
                "seconds_per_move": 0.04,
            })
        );
        assert_eq!(share, 0.5);
        assert_eq!(
            sample().illegal_play(4),
            format!(
                "2.00 illegal answers/move [2.00, 2.00]; first answer 0.0% [0.0, {:.1}]; after a rejected answer \
                 50.0% [{:.1}, {:.1}]; forfeits 1 of 4 games [{:.1}, {:.1}]%",
                100.0 * first_high,
                100.0 * low,
                100.0 * high,
                100.0 * wilson_interval(1, 4).0,
                100.0 * wilson_interval(1, 4).1
            )
        );
    }

    /// A move decided on the first answer, one decided after a rejected (or cut-off)
    /// answer, one the fallback played: the shares count the moves asked.
    #[test]
    fn first_answers_and_later_ones_are_counted_apart() {
        let mut first = decision(MoveSource::Llm, Some(AnswerKind::Clean));
        (first.invalid_answers, first.cut_off_answers) = (0, 0);
        let mut cut = first.clone();
        cut.cut_off_answers = 1;
        let stats: AgentStats = [first, cut, decision(MoveSource::Fallback, None)].iter().collect();
        assert_eq!((stats.first_answer_moves, stats.after_rejection_moves), (1, 1));
        let rates = stats.rates();
        assert!((rates.first_answer_share - 1.0 / 3.0).abs() < 1e-12);
        assert_eq!(rates.invalid_answers_per_move, 2.0 / 3.0);
        assert!(rates.invalid_answers_per_move_ci_low < rates.invalid_answers_per_move);
        assert!(rates.invalid_answers_per_move_ci_high > rates.invalid_answers_per_move);
    }

    #[test]
    fn no_moves_give_zero_rates_and_no_latency() {
        let json = AgentStats::default().to_json();
        assert_eq!(json["llm_share"], 0.0);
        assert_eq!(json["requests_per_move"], 0.0);
        assert_eq!(json["latency_ms_p50"], Value::Null);
    }

    #[test]
    fn merge_sums_every_counter() {
        let mut twice = sample();
        twice.merge(&sample());
        let both = [decisions(), decisions()].concat();
        let added: AgentStats = both.iter().collect();
        assert_eq!(twice, added);
        assert_eq!((twice.requests, twice.prompt_tokens), (24, 800));
    }
}
