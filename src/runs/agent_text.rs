//! The text pieces every report of an LLM player shares (eval, stats, play): an
//! opponent's rows with the model-decided share, and what the agent did over its
//! games ([`agent_lines`]: moves, illegal play, answers, tool calls, cost); `stats`'
//! table of the LLM players' groups ([`Groups::text`]).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use game::Game;

use crate::groups::{Group, Key};
use crate::tally::{tally_header, tally_row};
use crate::{AgentRates, AgentStats, Groups};
use stats::Tally;

/// The three rows (black, white, all) of one opponent, the last with the model-decided
/// share and `note`, appended to `out`.
pub fn opponent_rows(
    out: &mut String,
    opponent: &str,
    width: usize,
    colors: [Tally; 2],
    agent: &AgentStats,
    note: &str,
) {
    let [black, white] = colors;
    for (color, tally) in [("black", black), ("white", white), ("all", black.merged(&white))] {
        let name = if color == "black" { opponent } else { "" };
        let model = if color == "all" {
            format!(
                "  {} of {} ({}){note}",
                agent.llm_moves,
                agent.moves,
                share(agent.llm_moves, agent.moves)
            )
        } else {
            String::new()
        };
        let _ = writeln!(out, "{}{model}", tally_row(name, width, color, &tally));
    }
}

/// `part` of `whole` as a percentage, `-` of nothing.
fn share(part: u32, whole: u32) -> String {
    if whole == 0 {
        "-".to_string()
    } else {
        format!("{:.1}%", 100.0 * f64::from(part) / f64::from(whole))
    }
}

/// The agent's lines under a results table: what it did over `games` games.
pub fn agent_lines(stats: &AgentStats, games: u32, out: &mut String) {
    let rates = stats.rates();
    let _ = writeln!(out, "  moves asked             {}", stats.moves);
    let _ = writeln!(out, "  illegal play            {}", stats.illegal_play(games));
    let _ = writeln!(
        out,
        "  decided by the model    {} ({:.1}%, 95% CI [{:.1}, {:.1}]); by the fallback {}",
        stats.llm_moves,
        100.0 * rates.llm_share,
        100.0 * rates.llm_share_ci_low,
        100.0 * rates.llm_share_ci_high,
        stats.fallback_moves
    );
    if stats.schema_violations > 0 {
        let _ = writeln!(
            out,
            "  schema violations       {} (structured answers that were not JSON against the schema)",
            stats.schema_violations
        );
    }
    if stats.forfeits > 0 {
        let _ = writeln!(out, "  forfeited games         {}", stats.forfeits);
    }
    if stats.answers_measured() {
        let _ = writeln!(
            out,
            "  model answers           clean {} ({}), extracted from prose {} ({})",
            stats.clean_answers,
            share(stats.clean_answers, stats.llm_moves),
            stats.extracted_answers,
            share(stats.extracted_answers, stats.llm_moves)
        );
    } else {
        let _ = writeln!(
            out,
            "  model answers           not read: the moves came as tool calls (MCP), not as text"
        );
    }
    let _ = writeln!(
        out,
        "  invalid answers         {} ({:.2} per move)",
        stats.invalid_answers, rates.invalid_answers_per_move
    );
    if stats.cut_off_answers > 0 {
        let _ = writeln!(
            out,
            "  cut off at token limit  {} ({:.2} per move; answers that ended on the token cap, not counted as invalid)",
            stats.cut_off_answers, rates.cut_off_answers_per_move
        );
    }
    let _ = writeln!(
        out,
        "  tool calls per move     {:.2} structured, {:.2} recovered from text; {} returned an error",
        rates.tool_calls_per_move, rates.recovered_tool_calls_per_move, stats.tool_errors
    );
    let _ = writeln!(out, "  requests per move       {:.2}", rates.requests_per_move);
    cost_lines(stats, &rates, out);
    let _ = writeln!(out, "  speed                   {}", stats.speed());
}

/// The agent's extra lines (another model answering, votes) and what a move cost it
/// (tokens, latency).
fn cost_lines(stats: &AgentStats, rates: &AgentRates, out: &mut String) {
    if stats.other_model_replies > 0 {
        let _ = writeln!(
            out,
            "  WARNING: {} repl(ies) named another model than the one asked for (`answered_by` in the logs' exchange lines): the host may serve another model",
            stats.other_model_replies
        );
    }
    if stats.voted_decisions > 0 {
        let _ = writeln!(
            out,
            "  voted decisions         {} ({} unanimous, {})",
            stats.voted_decisions,
            stats.unanimous_votes,
            share(stats.unanimous_votes, stats.voted_decisions)
        );
    }
    let estimated = if stats.thinking_estimated > 0 {
        format!(
            " (thinking of {} repl(ies) estimated from its share of the characters)",
            stats.thinking_estimated
        )
    } else {
        String::new()
    };
    if stats.answers_measured() {
        let _ = writeln!(
            out,
            "  tokens per move         prompt {:.0}, thinking {:.0}, answer {:.0}{estimated}",
            rates.prompt_tokens_per_move, rates.thinking_tokens_per_move, rates.answer_tokens_per_move
        );
    } else {
        let _ = writeln!(
            out,
            "  tokens per move         not measured: an MCP client's requests to its model are its own"
        );
    }
    let ms = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.0} ms"));
    let _ = writeln!(
        out,
        "  latency per move        p50 {}, p95 {}",
        ms(rates.latency_ms_p50),
        ms(rates.latency_ms_p95)
    );
}

impl Groups {
    /// The LLM players' groups of `groups` as `stats` prints them: per model and system
    /// prompt, each opponent's rows with the model-decided share and unfinished games,
    /// then what the agent did over all these games; `game`'s margin in the header.
    pub fn text(groups: &BTreeMap<Key, Group>, game: Game) -> String {
        let mut out = String::new();
        let mut models: BTreeMap<(String, String), (AgentStats, u32)> = BTreeMap::new();
        for ((model, prompt, _), g) in groups {
            let (agent, games) = models.entry((model.clone(), prompt.clone())).or_default();
            agent.merge(&g.matchup.agent);
            *games += g.matchup.overall().games() + g.matchup.unfinished;
        }
        for ((model, prompt), (all, games)) in &models {
            let _ = writeln!(out, "{model}, system prompt sha256 {prompt}");
            let width = groups.keys().map(|k| k.2.len()).max().unwrap_or(8).max(8);
            let _ = writeln!(
                out,
                "{}  model-decided moves",
                tally_header("opponent", width, game.margin_label())
            );
            for ((_, _, opponent), g) in groups.iter().filter(|(k, _)| &k.0 == model && &k.1 == prompt) {
                let m = &g.matchup;
                let note = if m.unfinished > 0 {
                    format!("; {} unfinished game(s) not counted", m.unfinished)
                } else {
                    String::new()
                };
                opponent_rows(&mut out, opponent, width, [m.as_black, m.as_white], &m.agent, &note);
            }
            let _ = writeln!(
                out,
                "Agent, all these games (a move the fallback played is never counted as the model's):"
            );
            agent_lines(all, *games, &mut out);
            out.push('\n');
        }
        out
    }
}
