//! `engine --protocol gtp|nboard --engine SPEC`: one of our engines served on stdin
//! and stdout, so GUIs (NBoard) and harnesses (ours included) can load it as an
//! engine process. GTP is answered as Edax answers it (a side that must pass is passed
//! when the next `play` or `genmove` names the other colour); NBoard's `hint N` gives
//! the engine's own value of each candidate (the engines that score every root move:
//! `reference`, `alphabeta`, `search`...; the others give their chosen move's score, or
//! 0). Messages for a person go to stderr, as Edax's `Error: ...` lines.

use std::io::{BufRead, Write};

use anyhow::{Context, Result};
use clap::Args;

use engines::{Decision, Engine, EngineSpec};
use game::othello::{Board, Color, Move};
use protocol::gtp::{self, CommandLine, Reply};
use protocol::nboard;
use protocol::Protocol;

/// `engine`.
#[derive(Debug, Args)]
pub struct EngineArgs {
    /// The protocol spoken on stdin/stdout: gtp or nboard.
    #[arg(long, value_parser = parse_protocol)]
    pub protocol: Protocol,
    /// The engine served (an engine spec, as reference:4 or alphabeta:3).
    #[arg(long)]
    pub engine: EngineSpec,
    /// Seed of the engine's random choices.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

fn parse_protocol(text: &str) -> Result<Protocol, String> {
    text.parse().map_err(|e: protocol::ParseProtocolError| e.to_string())
}

/// Serves `args.engine` until `quit` or the end of stdin.
pub fn run(args: EngineArgs) -> Result<()> {
    if args.engine == EngineSpec::Human {
        anyhow::bail!("bad --engine human: a person at this terminal cannot answer on its stdin; give an engine spec");
    }
    let mut server = Server {
        spec: args.engine,
        engine: args.engine.build(args.seed),
        name: format!("othello-arena {}", args.engine),
        board: Board::new(),
    };
    let stdin = std::io::stdin();
    let mut out = std::io::stdout().lock();
    for line in stdin.lock().lines() {
        let line = line.context("cannot read stdin")?;
        let answer = match args.protocol {
            Protocol::Gtp => server.gtp(&line)?,
            Protocol::Nboard => server.nboard(&line)?,
        };
        let Some(answer) = answer else { continue };
        out.write_all(answer.text.as_bytes())
            .and_then(|()| out.flush())
            .context("cannot write stdout")?;
        if answer.quit {
            break;
        }
    }
    Ok(())
}

/// What the server writes for one line, and whether it stops.
struct Answer {
    text: String,
    quit: bool,
}

struct Server {
    spec: EngineSpec,
    engine: Box<dyn Engine>,
    name: String,
    board: Board,
}

impl Server {
    /// Passes for the side to move when it must and `color` is the other side's: GTP's
    /// way to say a pass. `false` when `color` cannot move now.
    fn turn_of(&mut self, color: Color) -> bool {
        if self.board.side_to_move() != color && self.board.must_pass() {
            self.board = self.board.play(Move::Pass);
        }
        self.board.side_to_move() == color
    }

    /// The depth a `hint` line names: the reference's (the empties where it solves
    /// exactly, so a client reads its values as exact there), 0 for other engines.
    fn hint_depth(&self) -> u32 {
        match self.spec {
            EngineSpec::Reference { exact_empties, .. } if self.board.empties() <= exact_empties => {
                self.board.empties()
            }
            EngineSpec::Reference { depth, .. } => depth,
            _ => 0,
        }
    }

    /// The engine's move in the current position (a pass when it must).
    fn think(&mut self) -> Result<Decision> {
        self.engine
            .choose(&self.board)
            .with_context(|| format!("engine {} failed", self.name))
    }

    fn gtp(&mut self, line: &str) -> Result<Option<Answer>> {
        let Some(CommandLine { id, command }) = CommandLine::parse(line) else {
            return Ok(None);
        };
        let (ok, text, quit) = match command {
            Err(err) => (false, err.to_string(), false),
            Ok(command) => match self.gtp_command(command)? {
                Ok(text) => (true, text, false),
                Err(Quit) => (true, String::new(), true),
            },
        };
        let (ok, text) = match text.strip_prefix('?') {
            Some(failure) => (false, failure.to_string()),
            None => (ok, text),
        };
        let text = Reply { ok, id, text }.to_string();
        Ok(Some(Answer { text, quit }))
    }

    /// A command's answer text (`?TEXT` for a failure), or [`Quit`].
    fn gtp_command(&mut self, command: gtp::Command) -> Result<Result<String, Quit>> {
        use gtp::Command as C;
        let text = match command {
            C::ProtocolVersion => "2".to_string(),
            C::Name => self.name.clone(),
            C::Version => env!("CARGO_PKG_VERSION").to_string(),
            C::KnownCommand(name) => gtp::Command::NAMES.contains(&name.as_str()).to_string(),
            C::ListCommands => gtp::Command::NAMES.join("\n"),
            C::Boardsize(8) | C::Komi(_) | C::TimeSettings { .. } => String::new(),
            C::Boardsize(_) => "?unacceptable size".to_string(),
            C::ClearBoard => {
                self.board = Board::new();
                String::new()
            }
            C::Play(color, mv) => {
                if !self.turn_of(color) {
                    "?wrong color".to_string()
                } else {
                    match self.board.try_play(mv) {
                        Ok(board) => {
                            self.board = board;
                            String::new()
                        }
                        Err(_) => "?illegal move".to_string(),
                    }
                }
            }
            C::Genmove(color) => {
                if !self.turn_of(color) {
                    "?wrong color".to_string()
                } else if self.board.is_game_over() {
                    "pass".to_string()
                } else {
                    let mv = self.think()?.mv;
                    self.board = self.board.play(mv);
                    mv.to_string()
                }
            }
            C::Showboard => format!("\n{}", self.board),
            C::Quit => return Ok(Err(Quit)),
            C::Other(_) => "?unknown command".to_string(),
        };
        Ok(Ok(text))
    }

    fn nboard(&mut self, line: &str) -> Result<Option<Answer>> {
        use nboard::{Command as C, Reply as R};
        let say = |replies: Vec<R>| {
            let text = replies.iter().map(|r| format!("{r}\n")).collect();
            Ok(Some(Answer { text, quit: false }))
        };
        let command = match line.parse::<C>() {
            Ok(command) => command,
            Err(err) => {
                eprintln!("Error: {err}");
                return Ok(None);
            }
        };
        match command {
            C::Nboard(1) => Ok(None),
            C::Nboard(version) => {
                eprintln!("Error: expected \"nboard 1\" protocol, got nboard {version}");
                Ok(None)
            }
            C::SetDepth(_) => say(vec![R::MyName(self.name.clone())]),
            C::SetGame(game) => {
                match game.position() {
                    Ok(board) => self.board = board,
                    Err(err) => eprintln!("Error: cannot play game {game}: {err}"),
                }
                Ok(None)
            }
            C::Move(mv) => {
                match self.board.try_play(mv) {
                    Ok(board) => self.board = board,
                    Err(err) => eprintln!("Error: cannot play move {mv}: {err}"),
                }
                Ok(None)
            }
            C::Go => {
                let started = std::time::Instant::now();
                let decision = self.think()?;
                let time = Some(started.elapsed().as_secs_f64());
                let eval = decision.score;
                let best = R::Best {
                    mv: decision.mv,
                    eval,
                    time: eval.and(time),
                };
                say(vec![
                    R::Status("thinking".to_string()),
                    best,
                    R::Status("waiting".to_string()),
                ])
            }
            C::Hint(n) => {
                let decision = self.think()?;
                let mut values: Vec<(Move, f64)> = if decision.candidates.is_empty() {
                    vec![(decision.mv, decision.score.unwrap_or(0.0))]
                } else {
                    decision
                        .candidates
                        .iter()
                        .map(|c| (Move::Place(c.square), c.value))
                        .collect()
                };
                values.sort_by(|a, b| b.1.total_cmp(&a.1));
                let depth = self.hint_depth().to_string();
                let mut replies = vec![R::Status("thinking".to_string())];
                replies.extend(values.into_iter().take(n as usize).map(|(mv, eval)| R::Search {
                    mv,
                    eval,
                    depth: depth.clone(),
                }));
                replies.push(R::Status("waiting".to_string()));
                say(replies)
            }
            C::Ping(n) => say(vec![R::Pong(n)]),
            C::Quit => Ok(Some(Answer {
                text: String::new(),
                quit: true,
            })),
            C::Other(_) => Ok(None),
        }
    }
}

/// GTP's `quit`: the answer is sent, then the server stops.
struct Quit;
