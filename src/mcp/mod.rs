//! `mcp`: the Model Context Protocol face. Any MCP client (a coding agent, a desktop
//! assistant, an agent framework) starts `othello-arena mcp` and plays through its
//! tools: `new_game`, `get_state`, `simulate_move`, `play_move`, `resign`; the system
//! prompt our models get is offered as the prompt `system`.
//!
//! The protocol is rmcp's (the official Rust SDK) over stdio, one JSON-RPC message a
//! line; stdout carries nothing else. Each tool's input schema is derived from its
//! typed arguments (schemars, as the agent's tools are). This face only reads the
//! arguments and maps answers and errors: the games, their logs and their bounds are
//! [`arena::ClientGames`]'.

mod handshake;
mod wire;

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, GetPromptRequestParams, GetPromptResponse,
    GetPromptResult, Implementation, InitializeRequestParams, InitializeResult, JsonObject, ListPromptsResult,
    ListToolsResult, PaginatedRequestParams, Prompt, PromptMessage, Role, ServerCapabilities, ServerConfig,
    Tool as McpTool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler, ServiceExt};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::Value;
use tokio::sync::OnceCell;

use agent::tools::{parameters_schema, Tool};
use agent::{LegalMoves, ModelGame};
use arena::{player_name, ClientAnswer, ClientCall, ClientError, ClientGames, ClientRun, ClientSettings};
use game::othello::{Color, TextStyle};
use runs::McpClient;

/// The name of the prompt that holds the agent's system prompt.
const SYSTEM_PROMPT: &str = "system";

/// How the server runs: its games' settings, where they are logged, the player's name.
pub struct McpOptions<R: ModelGame> {
    /// The games' settings.
    pub settings: ClientSettings<R>,
    /// Where the client's games are logged (checked before serving).
    pub log_dir: ClientRun,
    /// The client's player name (`mcp:NAME`); by default its handshake's name and version.
    pub name: Option<String>,
    /// The system prompt offered as the prompt `system`.
    pub system_prompt: String,
}

/// `new_game`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct NewGameArgs {
    /// Your colour: black (moves first) or white. By default black in odd games,
    /// white in even ones.
    color: Option<ColorArg>,
    /// The opponent's spec, one of those the server offers (its default when left out).
    opponent: Option<String>,
}

/// A side.
#[derive(Clone, Copy, Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum ColorArg {
    /// Black, who moves first.
    Black,
    /// White.
    White,
}

/// Arguments naming a game.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct GameArgs {
    /// The game's id, as new_game answered it.
    game_id: u64,
}

/// Arguments naming a game and a square.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct MoveArgs {
    /// The game's id, as new_game answered it.
    game_id: u64,
    /// The square: a column then a row, such as "d3".
    coord: String,
}

/// The server: its options and, once the client starts a game, its run.
struct McpServer<R: ModelGame> {
    options: Arc<McpOptions<R>>,
    games: Arc<OnceCell<ClientGames<R>>>,
    /// Whether the session's `initialize` was answered: a second is refused (it would
    /// rename the player).
    initialized: AtomicBool,
}

/// Serves one client on stdin and stdout until it disconnects; then ends its open
/// games (logged as stopped) and returns the run folder, if a game was started.
pub async fn serve<R: ModelGame>(options: McpOptions<R>) -> anyhow::Result<Option<PathBuf>> {
    let games = Arc::new(OnceCell::new());
    let server = McpServer {
        options: Arc::new(options),
        games: games.clone(),
        initialized: AtomicBool::new(false),
    };
    let (input, refusals) = wire::read_lines(tokio::io::stdin());
    // rmcp's cap counts a line's newline, which ours does not: every line passed on fits.
    let transport = rmcp::transport::async_rw::AsyncRwTransport::new_server(input, tokio::io::stdout())
        .with_max_line_length(wire::MAX_LINE + 1);
    let transport = wire::Answering::new(transport, refusals);
    let running = server.serve(handshake::Lenient::new(transport)).await;
    if let Ok(running) = running {
        running.waiting().await?;
    }
    let Some(games) = games.get() else { return Ok(None) };
    games.close().await;
    Ok(Some(games.path().to_path_buf()))
}

/// The tools, each with its arguments' schema (their descriptions promise the legal
/// moves only when `legal` shows them).
fn tools<R: ModelGame>(legal: LegalMoves) -> Vec<McpTool> {
    let tool = |name: &'static str, description: String, schema: Value| {
        let schema: JsonObject = match schema {
            Value::Object(object) => object,
            _ => JsonObject::new(),
        };
        McpTool::new(name, description, Arc::new(schema))
    };
    let your_moves = if legal.shown() {
        ", your legal moves"
    } else {
        " (not your legal moves: find them from the board)"
    };
    vec![
        tool(
            "new_game",
            format!(
                "Start a game against the server's engine. Answers the position at your first turn \
                 (the engine moves first when it holds black): the board, your colour{your_moves}."
            ),
            parameters_schema::<NewGameArgs>(),
        ),
        tool(
            "get_state",
            format!("The game's position: the board, the side to move{your_moves}, and the result once over."),
            parameters_schema::<GameArgs>(),
        ),
        tool(
            "simulate_move",
            R::simulate_tool(TextStyle::default(), legal).description().to_string(),
            parameters_schema::<MoveArgs>(),
        ),
        tool(
            "play_move",
            "Play a square (such as d3). The opponent answers; you get the position at your next turn, \
             or the result. An illegal move is an error and counts against you: after too many at one \
             turn a fallback moves for you, or you forfeit."
                .to_string(),
            parameters_schema::<MoveArgs>(),
        ),
        tool(
            "resign",
            "Give the game up: it is logged as your forfeit (a loss).".to_string(),
            parameters_schema::<GameArgs>(),
        ),
    ]
}

/// `arguments` read as `A`, or an error naming the tool and the problem.
fn arguments<A: DeserializeOwned>(tool: &str, arguments: Option<JsonObject>) -> Result<A, McpError> {
    let value = Value::Object(arguments.unwrap_or_default());
    serde_json::from_value(value).map_err(|err| {
        McpError::invalid_params(
            format!("bad arguments for {tool}: {err} (tools/list gives each tool's schema)"),
            None,
        )
    })
}

/// A tool's answer as MCP sends it: the text, and the same as structured content.
fn result(answer: ClientAnswer) -> CallToolResult {
    let mut result = if answer.is_error {
        CallToolResult::structured_error(answer.content)
    } else {
        CallToolResult::structured(answer.content)
    };
    result.content = vec![ContentBlock::text(answer.text)];
    result
}

/// A call the games could not answer, as an MCP error naming the problem.
fn error(err: ClientError) -> McpError {
    match err {
        ClientError::Failed { .. } | ClientError::Folder(_) | ClientError::Log(_) => {
            McpError::internal_error(format!("{:#}", anyhow::Error::new(err)), None)
        }
        err => McpError::invalid_params(err.to_string(), None),
    }
}

impl<R: ModelGame> McpServer<R> {
    /// The client's games, opening the run folder on the first call.
    async fn games(&self, context: &RequestContext<RoleServer>) -> Result<&ClientGames<R>, McpError> {
        self.games
            .get_or_try_init(|| async {
                let info = context.peer.peer_info();
                let client = McpClient {
                    name: info
                        .as_ref()
                        .map_or("unknown".to_string(), |i| i.client_info.name.clone()),
                    version: info.as_ref().map_or(String::new(), |i| i.client_info.version.clone()),
                };
                let player = player_name(&client, self.options.name.as_deref());
                let (settings, dir) = (self.options.settings.clone(), self.options.log_dir.clone());
                tokio::task::spawn_blocking(move || ClientGames::open(settings, &dir, client, player))
                    .await
                    .map_err(|err| McpError::internal_error(format!("{err}"), None))?
                    .map_err(error)
            })
            .await
    }

    /// Answers one tool call.
    async fn call(
        &self,
        request: CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        let name = request.name.as_ref();
        let args = request.arguments;
        let (id, call) = match name {
            "new_game" => {
                let args: NewGameArgs = arguments(name, args)?;
                let color = args.color.map(|c| match c {
                    ColorArg::Black => Color::Black,
                    ColorArg::White => Color::White,
                });
                let games = self.games(context).await?;
                return games
                    .new_game(color, args.opponent.as_deref())
                    .await
                    .map(result)
                    .map_err(error);
            }
            "get_state" => (arguments::<GameArgs>(name, args)?.game_id, ClientCall::State),
            "resign" => (arguments::<GameArgs>(name, args)?.game_id, ClientCall::Resign),
            "simulate_move" => {
                let args: MoveArgs = arguments(name, args)?;
                (args.game_id, ClientCall::Simulate(args.coord))
            }
            "play_move" => {
                let args: MoveArgs = arguments(name, args)?;
                (args.game_id, ClientCall::Play(args.coord))
            }
            other => {
                let known: Vec<String> = tools::<R>(self.options.settings.legal_moves)
                    .into_iter()
                    .map(|t| t.name.to_string())
                    .collect();
                return Err(McpError::invalid_params(
                    format!("unknown tool {other:?}; the tools are: {}", known.join(", ")),
                    None,
                ));
            }
        };
        let Some(games) = self.games.get() else {
            return Err(error(ClientError::NoGame {
                id,
                open: String::new(),
            }));
        };
        games.call(id, call).await.map(result).map_err(error)
    }
}

impl<R: ModelGame> ServerHandler for McpServer<R> {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder().enable_tools().enable_prompts().build();
        ServerConfig::new(capabilities)
            .with_server_info(Implementation::new("othello-arena", env!("CARGO_PKG_VERSION")))
            .with_instructions(format!(
                "Play {} against the server's engine: new_game, then play_move until the game is over \
                 (simulate_move tries a square without playing it). Every call is logged and rated. \
                 The prompt `{SYSTEM_PROMPT}` holds the instructions the harness's own models get.",
                R::NAME
            ))
    }

    /// The handshake, once a session: a second `initialize` is refused, and the
    /// client keeps the name and version of its first.
    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, McpError> {
        if self.initialized.swap(true, Ordering::SeqCst) {
            let first = context.peer.peer_info().map_or_else(String::new, |info| {
                format!(" as {} {}", info.client_info.name, info.client_info.version)
            });
            return Err(McpError::invalid_request(
                format!(
                    "this session is initialized already{first}: initialize is sent once, at the start of a \
                     session (a new session is a new server process)"
                ),
                None,
            ));
        }
        context.peer.set_peer_info(request.clone());
        let answer = self.negotiate_initialize(&request);
        if answer.is_err() {
            self.initialized.store(false, Ordering::SeqCst);
        }
        answer
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(tools::<R>(
            self.options.settings.legal_moves,
        )))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        self.call(request, &context).await.map(Into::into)
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, McpError> {
        let description = "The system prompt the harness's own models play with (how to read the board, \
                           how to answer).";
        Ok(ListPromptsResult::with_all_items(vec![Prompt::new(
            SYSTEM_PROMPT,
            Some(description),
            None,
        )]))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, McpError> {
        if request.name != SYSTEM_PROMPT {
            return Err(McpError::invalid_params(
                format!("unknown prompt {:?}; the prompt is {SYSTEM_PROMPT:?}", request.name),
                None,
            ));
        }
        let message = PromptMessage::new_text(Role::User, self.options.system_prompt.clone());
        Ok(GetPromptResult::new(vec![message])
            .with_description("The harness's system prompt")
            .into())
    }
}
