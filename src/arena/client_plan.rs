//! What `othello-arena mcp` serves, settled once from its flags: the settings of its
//! clients' games and the system prompt it offers them ([`ClientPlan`]).

use std::path::Path;

use agent::{AgentConfig, LegalMoves, ModelGame, ParseFallbackError, Prompt, PromptError};
use game::othello::Labels;

use super::client::ClientSettings;
use super::client_calls::ClientError;
use super::openings::Openings;
use super::player_spec::PlayerSpec;

/// What an MCP server's flags give, before its defaults are settled.
pub struct ClientFlags<R: ModelGame> {
    /// The opponents offered, the default first.
    pub opponents: Vec<PlayerSpec<R>>,
    /// Where games start.
    pub openings: Openings<R>,
    /// The seed of the openings and the engines' choices.
    pub seed: u64,
    /// Illegal `play_move` calls at one ply before the fallback plays.
    pub max_invalid: u32,
    /// Games open at once.
    pub max_games: usize,
    /// The agent settings: the boards' style, the legal moves shown or hidden, the
    /// fallback, and `--system`.
    pub agent: AgentConfig,
    /// Whether the board labels were chosen (`--labels`).
    pub labels_chosen: bool,
}

/// An MCP server's games and the prompt it offers (`prompts/get`), every default
/// settled: the fallback read for the game, and without `--system` the game's English
/// tool prompt ([`ModelGame::CLIENT_PROMPT`]), which reads English board labels unless
/// others were chosen, or its blind twin (`-blind`, which names no list it does not
/// give) when legal moves are hidden.
pub struct ClientPlan<R: ModelGame> {
    /// The games' settings, checked ([`ClientSettings::check`]); `move_wait` is the
    /// transport's to set.
    pub settings: ClientSettings<R>,
    /// The system prompt offered.
    pub system_prompt: Prompt,
}

/// Why flags make no plan.
#[derive(Debug, thiserror::Error)]
pub enum ClientPlanError {
    /// The fallback names no engine of the game.
    #[error("bad --fallback")]
    Fallback(#[source] ParseFallbackError),
    /// The offered prompt cannot be read.
    #[error("cannot read the system prompt")]
    Prompt(#[source] PromptError),
    /// The settings serve no client (a player that needs a terminal).
    #[error(transparent)]
    Settings(#[from] ClientError),
}

impl<R: ModelGame> ClientPlan<R> {
    /// The plan `flags` give; prompt names resolve in `prompts`.
    pub fn resolve(flags: ClientFlags<R>, prompts: &Path) -> Result<ClientPlan<R>, ClientPlanError> {
        let mut config = flags.agent;
        let fallback = config.fallback.spec::<R>().map_err(ClientPlanError::Fallback)?;
        let system_prompt = match config.system_prompt.take() {
            Some(prompt) => prompt,
            None => {
                if !flags.labels_chosen {
                    config.style.labels = Labels::English;
                }
                let name = match config.legal_moves {
                    LegalMoves::Shown => R::CLIENT_PROMPT.to_string(),
                    LegalMoves::Hidden => format!("{}-blind", R::CLIENT_PROMPT),
                };
                Prompt::load(&name, prompts).map_err(ClientPlanError::Prompt)?
            }
        };
        let settings = ClientSettings {
            opponents: flags.opponents,
            openings: flags.openings,
            seed: flags.seed,
            max_invalid: flags.max_invalid,
            fallback,
            max_games: flags.max_games,
            style: config.style,
            legal_moves: config.legal_moves,
            move_wait: None,
        };
        settings.check()?;
        Ok(ClientPlan {
            settings,
            system_prompt,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use game::Othello;

    fn flags(agent: AgentConfig, labels_chosen: bool) -> ClientFlags<Othello> {
        ClientFlags {
            opponents: vec![PlayerSpec::Engine(engines::EngineSpec::Random)],
            openings: Openings::Random { plies: 0 },
            seed: 1,
            max_invalid: 3,
            max_games: 16,
            agent,
            labels_chosen,
        }
    }

    /// No prompts folder: the built-in prompts answer.
    fn shipped() -> std::path::PathBuf {
        std::path::PathBuf::from("no-prompts-folder-here")
    }

    #[test]
    fn the_offered_prompt_is_the_games_english_one_or_its_blind_twin() {
        let plan = ClientPlan::resolve(flags(AgentConfig::default(), false), &shipped()).unwrap();
        assert_eq!(plan.system_prompt.source, "tool-en");
        assert_eq!(plan.settings.style.labels, Labels::English);
        let mut blind = AgentConfig::default();
        blind.legal_moves = LegalMoves::Hidden;
        let plan = ClientPlan::resolve(flags(blind, false), &shipped()).unwrap();
        assert_eq!(plan.system_prompt.source, "tool-en-blind");
        assert_eq!(plan.settings.legal_moves, LegalMoves::Hidden);
        // Labels chosen stay as chosen.
        let plan = ClientPlan::resolve(flags(AgentConfig::default(), true), &shipped()).unwrap();
        assert_eq!(plan.settings.style.labels, AgentConfig::default().style.labels);
    }
}
