//! `mcp`: the Model Context Protocol face. Any MCP client (a coding agent, a desktop
//! assistant, an agent framework) plays through its tools: `new_game`, `get_state`,
//! `simulate_move`, `play_move`, `resign`; the system prompt our models get is
//! offered as the prompt `system`.
//!
//! The protocol is rmcp's (the official Rust SDK), over stdio ([`serve`]: one
//! JSON-RPC message a line, stdout carries nothing else) or over Streamable HTTP
//! ([`serve_http`]). The tools are declared once, by rmcp's `#[tool_router]`: each
//! method's name is the tool's, its doc comment the description, its typed
//! arguments the input schema (schemars, as the agent's tools are). This face only
//! reads the arguments and maps answers and errors: the games, their logs and their
//! bounds are [`arena::ClientStore`]'s.

mod handshake;
mod http;
mod sessions;
mod wire;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use rmcp::handler::server::common::FromContextPart;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, GetPromptRequestParams, GetPromptResponse,
    GetPromptResult, Implementation, InitializeRequestParams, InitializeResult, JsonObject, ListPromptsResult,
    ListToolsResult, PaginatedRequestParams, Prompt, PromptMessage, Role, ServerCapabilities, ServerConfig,
    Tool as McpTool,
};
use rmcp::service::RequestContext;
use rmcp::{tool, tool_router, ErrorData as McpError, RoleServer, ServerHandler, ServiceExt};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::Value;

use agent::tools::{parameters_schema, Tool};
use agent::{LegalMoves, ModelGame};
use arena::{player_name, ClientAnswer, ClientCall, ClientError, ClientGames, ClientRun, ClientSettings, ClientStore};
use game::othello::{Color, TextStyle};
use runs::McpClient;

pub use http::{serve_http, HttpOptions, PATH};

/// The name of the prompt that holds the agent's system prompt.
const SYSTEM_PROMPT: &str = "system";

/// Where a tool's description says what the client is told of its legal moves.
const YOUR_MOVES: &str = "{your_moves}";

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

/// `A`'s schema as a tool's input schema (the agent's tools' settings: subschemas
/// inlined).
fn schema<A: JsonSchema>() -> JsonObject {
    match parameters_schema::<A>() {
        Value::Object(object) => object,
        _ => JsonObject::new(),
    }
}

/// A tool's arguments read as `A`, or a JSON-RPC error naming the tool and the
/// problem (rmcp's own `Parameters` answers a bare "failed to deserialize
/// parameters", naming neither the tool nor where its schema is).
struct Args<A>(A);

impl<S, A: DeserializeOwned> FromContextPart<ToolCallContext<'_, S>> for Args<A> {
    fn from_context_part(context: &mut ToolCallContext<'_, S>) -> Result<Self, McpError> {
        let value = Value::Object(context.arguments.take().unwrap_or_default());
        serde_json::from_value(value).map(Args).map_err(|err| {
            McpError::invalid_params(
                format!(
                    "bad arguments for {}: {err} (tools/list gives each tool's schema)",
                    context.name()
                ),
                None,
            )
        })
    }
}

/// What every handler of one server shares: its options, its tools, its clients' games.
struct Served<R: ModelGame> {
    options: McpOptions<R>,
    tools: ToolRouter<McpServer<R>>,
    store: ClientStore<R>,
    /// The handlers made so far (each handler's number).
    handlers: AtomicU64,
    /// Each game's owner, by player and id: the handler that called it last.
    owners: Mutex<HashMap<(String, u64), u64>>,
}

impl<R: ModelGame> Served<R> {
    fn new(options: McpOptions<R>) -> Arc<Served<R>> {
        let store = ClientStore::new(options.settings.clone(), options.log_dir.clone());
        let tools = McpServer::tools(options.settings.legal_moves);
        Arc::new(Served {
            options,
            tools,
            store,
            handlers: AtomicU64::new(0),
            owners: Mutex::new(HashMap::new()),
        })
    }

    fn owners(&self) -> std::sync::MutexGuard<'_, HashMap<(String, u64), u64>> {
        self.owners.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// One session's handler (over stdio the whole connection; over HTTP a legacy
/// session, or a single stateless request).
///
/// A game belongs to the handler that called it last: when a session ends, the
/// games it owns still open are ended (logged `disconnected`), as over stdio when the
/// client goes away. A client that plays one game across sessions (the MCP
/// Inspector's CLI opens one a call) keeps it; a stateless request's games outlive it
/// (they end by [`ClientSettings::move_wait`]).
struct McpServer<R: ModelGame> {
    served: Arc<Served<R>>,
    /// This handler's number among the server's.
    number: u64,
    /// Whether the session's `initialize` was answered: a second is refused (it would
    /// rename the player).
    initialized: AtomicBool,
    /// The games this handler called.
    called: Mutex<Vec<(Arc<ClientGames<R>>, u64)>>,
}

impl<R: ModelGame> Drop for McpServer<R> {
    fn drop(&mut self) {
        if !self.initialized.load(Ordering::SeqCst) {
            return;
        }
        let owners = self.served.owners();
        for (games, id) in self.called.get_mut().unwrap_or_else(|p| p.into_inner()).drain(..) {
            if owners.get(&(games.player().to_string(), id)) == Some(&self.number) {
                games.end(id);
            }
        }
    }
}

/// Serves one client on stdin and stdout until it disconnects; then ends its open
/// games (logged as stopped) and returns the run folder, if a game was started.
pub async fn serve<R: ModelGame>(options: McpOptions<R>) -> anyhow::Result<Option<PathBuf>> {
    let served = Served::new(options);
    let server = McpServer::new(served.clone());
    let (input, refusals) = wire::read_lines(tokio::io::stdin());
    // rmcp's cap counts a line's newline, which ours does not: every line passed on fits.
    let transport = rmcp::transport::async_rw::AsyncRwTransport::new_server(input, tokio::io::stdout())
        .with_max_line_length(wire::MAX_LINE + 1);
    let transport = wire::Answering::new(transport, refusals);
    let running = server.serve(handshake::Lenient::new(transport)).await;
    if let Ok(running) = running {
        running.waiting().await?;
    }
    Ok(served.store.close().await.pop())
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

#[tool_router(router = routes)]
impl<R: ModelGame> McpServer<R> {
    /// Start a game against the server's engine. Answers the position at your first
    /// turn (the engine moves first when it holds black): the board, your
    /// colour{your_moves}.
    #[tool(input_schema = schema::<NewGameArgs>())]
    async fn new_game(
        &self,
        Args(args): Args<NewGameArgs>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        let color = args.color.map(|c| match c {
            ColorArg::Black => Color::Black,
            ColorArg::White => Color::White,
        });
        let client = self.client(&context);
        let player = player_name(&client, self.served.options.name.as_deref());
        let games = self.served.store.open(client, player).await.map_err(error)?;
        let (id, answer) = games.new_game(color, args.opponent.as_deref()).await.map_err(error)?;
        self.own(&games, id);
        Ok(result(answer))
    }

    /// The game's position: the board, the side to move{your_moves}, and the result
    /// once over.
    #[tool(input_schema = schema::<GameArgs>())]
    async fn get_state(
        &self,
        Args(args): Args<GameArgs>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        self.call(args.game_id, ClientCall::State, &context).await
    }

    /// What playing a square would do, without playing it (the description is the
    /// agent's own tool's, set when the router is built).
    #[tool(input_schema = schema::<MoveArgs>())]
    async fn simulate_move(
        &self,
        Args(args): Args<MoveArgs>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        self.call(args.game_id, ClientCall::Simulate(args.coord), &context)
            .await
    }

    /// Play a square (such as d3). The opponent answers; you get the position at your
    /// next turn, or the result. An illegal move is an error and counts against you:
    /// after too many at one turn a fallback moves for you, or you forfeit.
    #[tool(input_schema = schema::<MoveArgs>())]
    async fn play_move(
        &self,
        Args(args): Args<MoveArgs>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        self.call(args.game_id, ClientCall::Play(args.coord), &context).await
    }

    /// Give the game up: it is logged as your forfeit (a loss).
    #[tool(input_schema = schema::<GameArgs>())]
    async fn resign(
        &self,
        Args(args): Args<GameArgs>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        self.call(args.game_id, ClientCall::Resign, &context).await
    }
}

impl<R: ModelGame> McpServer<R> {
    fn new(served: Arc<Served<R>>) -> McpServer<R> {
        McpServer {
            initialized: AtomicBool::new(false),
            called: Mutex::new(Vec::new()),
            number: served.handlers.fetch_add(1, Ordering::Relaxed),
            served,
        }
    }

    /// Makes game `id` of `games` this handler's (see [`McpServer`]).
    fn own(&self, games: &Arc<ClientGames<R>>, id: u64) {
        self.served
            .owners()
            .insert((games.player().to_string(), id), self.number);
        let mut called = self.called.lock().unwrap_or_else(|p| p.into_inner());
        if !called.iter().any(|(g, i)| *i == id && Arc::ptr_eq(g, games)) {
            called.push((games.clone(), id));
        }
    }

    /// The tools as `legal` has them described: whether the client is told its legal
    /// moves, and `simulate_move` described as the agent's own tool is.
    fn tools(legal: LegalMoves) -> ToolRouter<McpServer<R>> {
        let your_moves = if legal.shown() {
            ", your legal moves"
        } else {
            " (not your legal moves: find them from the board)"
        };
        let mut tools = Self::routes();
        for route in tools.map.values_mut() {
            if let Some(doc) = &route.attr.description {
                let words: Vec<&str> = doc.split_whitespace().collect();
                route.attr.description = Some(words.join(" ").replace(YOUR_MOVES, your_moves).into());
            }
        }
        if let Some(route) = tools.map.get_mut(&Self::simulate_move_tool_attr().name) {
            let tool = R::simulate_tool(TextStyle::default(), legal);
            route.attr.description = Some(tool.description().into());
        }
        tools
    }

    /// The client as the request's metadata names it (the protocol's stateless
    /// revision), else as its session's handshake did.
    fn client(&self, context: &RequestContext<RoleServer>) -> McpClient {
        let info = context.meta.client_info().or_else(|| {
            let handshake = self
                .initialized
                .load(Ordering::SeqCst)
                .then(|| context.peer.peer_info());
            handshake.flatten().map(|info| info.client_info.clone())
        });
        McpClient {
            name: info.as_ref().map_or_else(|| "unknown".to_string(), |i| i.name.clone()),
            version: info.map_or_else(String::new, |i| i.version),
        }
    }

    /// Answers `call` on the client's game `id`.
    async fn call(
        &self,
        id: u64,
        call: ClientCall,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        let player = player_name(&self.client(context), self.served.options.name.as_deref());
        let Some(games) = self.served.store.find(&player) else {
            return Err(error(ClientError::NoGame {
                id,
                open: String::new(),
            }));
        };
        if games.has(id) {
            self.own(&games, id);
        }
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
                     session (a new session is a new server process over stdio, a new initialize without a \
                     session id over HTTP)"
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
        Ok(ListToolsResult::with_all_items(self.served.tools.list_all()))
    }

    fn get_tool(&self, name: &str) -> Option<McpTool> {
        self.served.tools.get(name).cloned()
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        if !self.served.tools.has_route(&request.name) {
            let known: Vec<String> = self
                .served
                .tools
                .list_all()
                .into_iter()
                .map(|t| t.name.to_string())
                .collect();
            return Err(McpError::invalid_params(
                format!("unknown tool {:?}; the tools are: {}", request.name, known.join(", ")),
                None,
            ));
        }
        self.served
            .tools
            .call(ToolCallContext::new(self, request, context))
            .await
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
        let message = PromptMessage::new_text(Role::User, self.served.options.system_prompt.clone());
        Ok(GetPromptResult::new(vec![message])
            .with_description("The harness's system prompt")
            .into())
    }
}
