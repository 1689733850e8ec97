//! A tournament `[[llm]]` entry's `grid` ([`runs::Grid`]), each value read by its
//! agent flag's own parser, each combination a set of agent flags over the entry's.

use anyhow::Result;
use clap::Parser;
use runs::Grid;

use super::agent_args::AgentArgs;

/// One combination of a grid: the agent flags it sets and the name parts it gives.
#[derive(Debug)]
pub struct Variant {
    /// The flags, over the entry's agent file.
    pub agent: AgentArgs,
    /// The player-name parts, one per setting (`tool`, `json-legal`, `vote-3`).
    pub name_parts: Vec<String>,
}

/// The agent flags alone, parsed by clap as on a command line.
#[derive(Parser)]
#[command(no_binary_name = true)]
struct GridFlags {
    #[command(flatten)]
    agent: AgentArgs,
}

/// Every combination of `grid` over `base` (the entry's own flags), the first setting
/// varying slowest; each value checked by its flag's parser, the message naming the
/// key and the value.
pub fn variants(grid: &Grid, base: &AgentArgs) -> Result<Vec<Variant>> {
    let check = |args: &[String]| {
        GridFlags::try_parse_from(args).map(drop).map_err(|e| {
            let why = e.to_string();
            why.lines()
                .next()
                .unwrap_or_default()
                .trim_start_matches("error: ")
                .to_string()
        })
    };
    let players = grid.players(&check)?;
    Ok(players
        .into_iter()
        .map(|player| Variant {
            agent: GridFlags::try_parse_from(player.flags)
                .expect("each value parsed alone above")
                .agent
                .over(base),
            name_parts: player.name_parts,
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grid(text: &str) -> Result<Vec<Variant>> {
        #[derive(serde::Deserialize)]
        struct Entry {
            grid: Grid,
        }
        let entry: Entry = toml::from_str(text).unwrap();
        variants(&entry.grid, &AgentArgs::default())
    }

    #[test]
    fn each_value_is_read_by_its_flags_parser() {
        let variants = grid(r#"grid = { mode = ["tool", "direct"], answer_format = ["text", "json-legal"] }"#).unwrap();
        assert_eq!(variants[3].agent.settings.mode, Some(agent::Mode::Direct));
        assert_eq!(
            variants[3].agent.settings.answer_format,
            Some(agent::AnswerFormat::JsonLegal)
        );
        let variants = grid(r#"grid = { vote = [1, 3], answer_reason = [false] }"#).unwrap();
        assert_eq!(variants[1].agent.settings.vote, Some(3));
        assert_eq!(variants[1].agent.settings.answer_reason, Some(false));
        let message = |text: &str| grid(text).unwrap_err().to_string();
        let unknown = message(r#"grid = { colour = ["red"] }"#);
        assert!(
            unknown.contains("grid colour = \"red\"") && unknown.contains("agent flags"),
            "{unknown}"
        );
        let range = message(r#"grid = { vote = [0] }"#);
        assert!(
            range.contains("grid vote = \"0\"") && range.contains("1 to 16"),
            "{range}"
        );
    }
}
