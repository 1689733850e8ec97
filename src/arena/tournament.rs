//! A tournament: its file's settings ([`TournamentFile`]; the `[[llm]]` tables are
//! [`LlmEntry`], whose host keys are the host flags'), checked as the flags of the same names are;
//! its players checked ([`Entrants`]); its run opened or resumed (held to the players
//! and openings it recorded) and played through [`Run`] ([`OpenTournament`]); each
//! pairing's result.

use std::path::{Path, PathBuf};

use game::othello::Color;
use game::Othello;
use record::lines::{read_user_file, UserFileError, SETTINGS_FILE_CAP};
use runs::{
    canonical_player, changed_agent_settings, rate_games, read_game_logs, utc_now, Anchor, EngineTable, LogsError,
    OpeningsOrder, PairingResult, RateError, RateSettings, ReadRunError, Resume, RunFile, RunGame, RunKind,
    TournamentRatings, TournamentRun,
};
use serde::Deserialize;
use settings::limits::{GAMES, OPENING_PLIES};
use stats::{ParseStopRuleError, StopRule, Tally};

use super::eval_plan::MoveValuing;
use super::lifecycle::{Resumed, Run, RunError, RunGames, Start};
use super::llm_table::LlmEntry;
use super::openings::Openings;
use super::plan::{Format, Plan};
use super::player_spec::PlayerSpec;
use super::quality::GameToScore;
use super::schedule::{MatchEvent, RunOptions};
use super::stop_judge::StopJudge;
use super::suite_file::{SuiteFileError, BALANCED_SUITE};

/// A tournament file: `L` is the type of its `[[llm]]` tables ([`LlmEntry`]; `verify`
/// reads them as bare tables).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, bound(deserialize = "L: Deserialize<'de>"))]
pub struct TournamentFile<L = LlmEntry> {
    /// `gauntlet` (every LLM player against every engine) or `round-robin`.
    #[serde(default)]
    pub format: Format,
    /// Engine specs.
    #[serde(default)]
    pub engines: Vec<String>,
    /// External engines (`[[engine]]` tables, players `ext:NAME@...`).
    #[serde(default, rename = "engine")]
    pub external: Vec<EngineTable>,
    /// LLM players.
    #[serde(default, rename = "llm")]
    pub llms: Vec<L>,
    /// Games per pairing (an even number: colour-swapped pairs); with `stop`, the most.
    pub games: usize,
    /// Random opening plies (a file that names neither this nor `openings` plays the
    /// built-in balanced suite).
    pub opening_random: Option<usize>,
    /// An opening suite file (one opening a line), instead of random plies.
    pub openings: Option<PathBuf>,
    /// How the suite is dealt: `sequential` or `shuffle` (by `seed`).
    #[serde(default)]
    pub openings_order: OpeningsOrder,
    /// Whether the suite starts over when the pairs outnumber it.
    #[serde(default)]
    pub openings_cycle: bool,
    /// Seed of the openings and the engines' choices.
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Per-pairing stop rule: `sprt:ELO0,ELO1[,ALPHA,BETA]`, `ci:WIDTH` or `intrinsic:WIDTH`.
    pub stop: Option<String>,
    /// The player ratings are anchored to, `SPEC=ELO` (default: the published ladder's
    /// engines held when they play, else [`Anchor::among`] the players: `random=0`,
    /// else the first player at 0).
    pub anchor: Option<String>,
}

/// The seed of a file that names none.
fn default_seed() -> u64 {
    1
}

/// A tournament as its file defines it, checked, with its anchor and stop rule read.
#[derive(Debug)]
pub struct Tournament<L = LlmEntry> {
    /// Where the file's text came from (the file, or the run.json of `--resume`).
    pub path: PathBuf,
    /// The run folder `--resume` continues, with what its run.json recorded.
    pub resume: Option<(PathBuf, TournamentRun)>,
    /// The file's text, which run.json keeps.
    pub text: String,
    /// What it says.
    pub file: TournamentFile<L>,
    /// Its `anchor`, read.
    pub anchor: Option<Anchor>,
    /// Its `stop`, read.
    pub rule: Option<StopRule>,
    /// Whether the LLM players' decisions are left unvalued: the run it resumes chose
    /// so, or `--no-score-moves` (the CLI adds it).
    pub no_score_moves: bool,
}

/// Why a tournament cannot be read, opened or played.
#[derive(Debug, thiserror::Error)]
pub enum TournamentError {
    /// The file says something that does not hold (the message names the key).
    #[error("bad tournament file {}: {problem}", .path.display())]
    File {
        /// The file.
        path: PathBuf,
        /// What is wrong and what to do.
        problem: String,
    },
    /// The file's players cannot be rated as it asks.
    #[error("bad tournament file {}", .path.display())]
    Players {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: AnchorError,
    },
    /// The file's `stop` does not read.
    #[error("bad stop in {}", .path.display())]
    Stop {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: ParseStopRuleError,
    },
    /// The folder `--resume` names has no run.json.
    #[error("bad --resume: {} has no run.json", .dir.display())]
    NoRunFile {
        /// The folder.
        dir: PathBuf,
        /// Why.
        #[source]
        source: record::lines::LineError,
    },
    /// Its run.json is not JSON.
    #[error("bad --resume: {}/run.json is not JSON", .dir.display())]
    NotJson {
        /// The folder.
        dir: PathBuf,
        /// The parse error.
        #[source]
        source: serde_json::Error,
    },
    /// Its run.json is JSON of another shape.
    #[error("bad --resume")]
    Shape(#[source] ReadRunError),
    /// It is a run of another command.
    #[error("bad --resume: {} is not a tournament run", .dir.display())]
    NotTournament {
        /// The folder.
        dir: PathBuf,
    },
    /// Neither a file nor a run to resume was given.
    #[error("give a tournament file, or --resume RUN-DIR")]
    NoFile,
    /// The file cannot be read.
    #[error(transparent)]
    Read(#[from] UserFileError),
    /// The file is not a tournament file's TOML.
    #[error(
        "bad tournament file {}: see docs/tournament.md (format, engines, [[engine]] and [[llm]] tables, games, opening_random, seed, stop, anchor)",
        .path.display()
    )]
    Toml {
        /// The file (or the run.json that keeps it).
        path: PathBuf,
        /// The parse error.
        #[source]
        source: toml::de::Error,
    },
    /// The run folder could not be opened, recorded, resumed or played on.
    #[error(transparent)]
    Run(#[from] RunError),
}

/// The name of one player of a tournament file's `[[llm]]` table: the table's `name`,
/// else its thinking level (`think-on`, `think-off`, `think-high`) when `think_named`
/// (its grid does not vary the level, which then names it in its own parts), as
/// leaderboards of thinking models do; then the grid's `parts`, joined by `-`. None
/// when nothing names it; refused when the name is not a player name.
pub fn llm_player_name(
    table_name: Option<&str>,
    think: Option<&llm::Think>,
    think_named: bool,
    parts: &[String],
) -> Result<Option<String>, agent::PlayerNameError> {
    let think = think.filter(|_| think_named).map(|think| match think {
        llm::Think::Enabled(true) => "think-on".to_string(),
        llm::Think::Enabled(false) => "think-off".to_string(),
        llm::Think::Level(level) => format!("think-{level}"),
    });
    let base = table_name.map(str::to_string).or(think);
    let parts: Vec<String> = base.into_iter().chain(parts.iter().cloned()).collect();
    if parts.is_empty() {
        return Ok(None);
    }
    let name = parts.join("-");
    agent::AgentConfig::check_name(&name)?;
    Ok(Some(name))
}

/// A tournament run's ratings ([`Tournament::rate`]).
#[derive(Debug)]
pub enum TournamentRating {
    /// Rated; `notes` are the log reader's, then the scale's.
    Rated {
        /// As played, and with fallback games as losses.
        ratings: TournamentRatings,
        /// What the reader and the scale noted.
        notes: Vec<String>,
    },
    /// An interrupted run not rated yet (it still resumes); `notes` are the reader's.
    NotYet {
        /// What the reader noted.
        notes: Vec<String>,
        /// Why it cannot be rated yet.
        why: RateRunError,
    },
}

/// A tournament run's games could not be read or rated.
#[derive(Debug, thiserror::Error)]
pub enum RateRunError {
    /// Its logs do not read.
    #[error(transparent)]
    Logs(#[from] LogsError),
    /// Its games cannot be rated as it asks.
    #[error(transparent)]
    Rate(#[from] RateError),
}

/// A file's `anchor` that is not one of its players, or too few players to rate.
#[derive(Debug, thiserror::Error)]
pub enum AnchorError {
    /// The anchor does not play.
    #[error("anchor = {spec}: it is not a player here; give one of {}", .players.join(", "))]
    NotAPlayer {
        /// The anchor, in the form logs write.
        spec: String,
        /// The players.
        players: Vec<String>,
    },
    /// One player or none.
    #[error("a tournament needs two players or more")]
    TooFew,
}

/// The tournament run in `dir` as its run.json recorded it (its file's text included).
pub fn recorded_tournament(dir: &Path) -> Result<TournamentRun, TournamentError> {
    let run = RunFile::read(dir).map_err(|err| match err {
        ReadRunError::Io { source, .. } => TournamentError::NoRunFile {
            dir: dir.to_path_buf(),
            source,
        },
        ReadRunError::NotJson { source, .. } => TournamentError::NotJson {
            dir: dir.to_path_buf(),
            source,
        },
        err @ ReadRunError::Shape { .. } => TournamentError::Shape(err),
    })?;
    match run.run {
        RunKind::Tournament(run) => Ok(run),
        _ => Err(TournamentError::NotTournament { dir: dir.to_path_buf() }),
    }
}

impl TournamentFile {
    /// Refuses `games` and `opening_random` out of their flags' ranges, an `[[llm]]`
    /// name that is not a player name and a grid value its flag refuses
    /// ([`runs::Grid::players`]); the message names the file (`path`) and the key.
    pub fn check(&self, path: &Path) -> Result<(), TournamentError> {
        let bad = |problem: String| TournamentError::File {
            path: path.to_path_buf(),
            problem,
        };
        let checks = [
            ("games", &GAMES, self.games),
            ("opening_random", &OPENING_PLIES, self.opening_random.unwrap_or(0)),
        ];
        for (key, bounds, value) in checks {
            bounds.check(value as i64).map_err(|e| bad(format!("{key} = {e}")))?;
        }
        for name in self.llms.iter().filter_map(|entry| entry.name.as_deref()) {
            agent::AgentConfig::check_name(name).map_err(|e| bad(format!("[[llm]] name: {e}")))?;
        }
        // A grid's values are checked now, before any server is asked for anything.
        for entry in &self.llms {
            if let Some(grid) = &entry.grid {
                grid.players()
                    .map_err(|e| bad(format!("[[llm]] {}: {e}", entry.model)))?;
            }
        }
        Ok(())
    }
}

impl Tournament {
    /// The tournament of the file at `file`, or, when `resume` names a run folder, of
    /// the text its run.json keeps ([`recorded_tournament`]); read, then checked as the
    /// flags of the same names are ([`TournamentFile::check`], [`Tournament::new`]);
    /// each message names the file and the key.
    pub fn read(file: Option<&Path>, resume: Option<&Path>) -> Result<Tournament, TournamentError> {
        let (path, resume, text) = match (file, resume) {
            (_, Some(dir)) => {
                let run = recorded_tournament(dir)?;
                let text = run.tournament_file.clone();
                (dir.join("run.json"), Some((dir.to_path_buf(), run)), text)
            }
            (Some(file), None) => {
                let text = read_user_file("the tournament file", file, SETTINGS_FILE_CAP)?;
                (file.to_path_buf(), None, text)
            }
            (None, None) => return Err(TournamentError::NoFile),
        };
        let parsed: TournamentFile = toml::from_str(&text).map_err(|source| TournamentError::Toml {
            path: path.clone(),
            source,
        })?;
        parsed.check(&path)?;
        Tournament::new((path, text), resume, parsed)
    }
}

impl<L> Tournament<L> {
    /// The tournament `file` (read from `text` at `path`, or from the run.json of the
    /// run `resume` continues), its games, anchor, stop rule and openings checked; each
    /// message names the file and the key.
    pub fn new(
        (path, text): (PathBuf, String),
        resume: Option<(PathBuf, TournamentRun)>,
        file: TournamentFile<L>,
    ) -> Result<Tournament<L>, TournamentError> {
        let bad = |problem: String| TournamentError::File {
            path: path.clone(),
            problem,
        };
        if file.games < 2 || file.games % 2 == 1 {
            return Err(bad(format!(
                "games = {} must be an even number of at least 2 (colour-swapped pairs)",
                file.games
            )));
        }
        // Refused now, as `rate --anchor` refuses it, rather than after every game.
        let anchor: Option<Anchor> = file
            .anchor
            .as_deref()
            .map(str::parse)
            .transpose()
            .map_err(|e: String| bad(format!("anchor = {e}")))?;
        let rule: Option<StopRule> =
            file.stop
                .as_deref()
                .map(str::parse)
                .transpose()
                .map_err(|source| TournamentError::Stop {
                    path: path.clone(),
                    source,
                })?;
        if file.openings.is_some() && file.opening_random.is_some_and(|plies| plies > 0) {
            return Err(bad(
                "give openings (a suite file) or opening_random (random plies), not both".to_string(),
            ));
        }
        let no_score_moves = resume.as_ref().is_some_and(|(_, run)| run.no_score_moves);
        Ok(Tournament {
            path,
            resume,
            text,
            file,
            anchor,
            rule,
            no_score_moves,
        })
    }

    /// Where its games start: `--openings` (`flag`), else the file's `openings` suite,
    /// else its `opening_random` plies, else (a file naming neither) the built-in
    /// balanced suite; with notes on the openings a suite repeats. A resume deals what
    /// its run recorded: the suite it played, read again (and refused later if it
    /// changed), or for a run without one (every run before suites) the random plies
    /// its file meant then.
    pub fn openings(&self, flag: Option<&Path>) -> Result<(Openings<Othello>, Vec<String>), SuiteFileError> {
        let file = &self.file;
        let deal = (file.openings_order, file.openings_cycle, file.seed);
        let what = format!("openings in {}", self.path.display());
        let random = |plies: usize| Ok((Openings::random(plies), Vec::new()));
        let balanced = || Ok((Openings::balanced(deal.0, deal.1, deal.2)?, Vec::new()));
        if let Some((_, run)) = &self.resume {
            return match &run.openings {
                Some(recorded) if recorded.file == BALANCED_SUITE => balanced(),
                Some(recorded) => Openings::from_file(&what, Path::new(&recorded.file), deal),
                None => random(file.opening_random.unwrap_or(0)),
            };
        }
        match (flag, &file.openings, file.opening_random) {
            (Some(suite), _, _) => Openings::from_file(&what, suite, deal),
            (None, Some(suite), _) => Openings::from_file(&what, suite, deal),
            (None, None, Some(plies)) => random(plies),
            (None, None, None) => balanced(),
        }
    }

    /// How its LLM players' decisions are valued once every game is played: as eval's
    /// by default ([`MoveValuing::calibration`]), not at all when the run it resumes or
    /// `--no-score-moves` chose so.
    pub fn valuing(&self) -> MoveValuing {
        if self.no_score_moves {
            MoveValuing {
                scoring: None,
                reported: false,
            }
        } else {
            MoveValuing::calibration()
        }
    }

    /// How its games are rated, as `rate` rates them: the file's anchor, else the
    /// published ladder unless `no_ladder` (`--no-ladder`).
    pub fn rate_settings(&self, no_ladder: bool) -> RateSettings {
        RateSettings {
            anchor: self.anchor.clone(),
            ..RateSettings::with_ladder(no_ladder)
        }
    }

    /// The ratings of every game in the run folder `log_dir` ([`runs::rate_games`], as
    /// `rate` rates them: [`Tournament::rate_settings`]): as played, and with fallback
    /// games as losses when there were any. An `interrupted` run that cannot be rated
    /// yet (the anchor may not have played) is [`TournamentRating::NotYet`], not an
    /// error: it still resumes. The bootstrap runs here: call it off the async workers.
    pub fn rate(&self, no_ladder: bool, log_dir: &Path, interrupted: bool) -> Result<TournamentRating, RateRunError> {
        let logs = read_game_logs(&[log_dir.to_path_buf()])?;
        let games = RunGame::from_logs(&logs);
        let settings = self.rate_settings(no_ladder);
        match rate_games(&games, game::Game::Othello, &settings, &stats::RatingWatch::default()) {
            Ok(rated) => Ok(TournamentRating::Rated {
                ratings: TournamentRatings {
                    as_played: Some(rated.as_played),
                    fallback_as_loss: rated.fallback_as_loss,
                },
                notes: logs.notes.into_iter().chain(rated.notes).collect(),
            }),
            Err(why) if interrupted => Ok(TournamentRating::NotYet {
                notes: logs.notes,
                why: why.into(),
            }),
            Err(why) => Err(why.into()),
        }
    }

    /// Refuses an anchor that is not one of `names` (an engine in the form logs
    /// write), and a tournament of fewer than two players.
    fn check_anchor(&self, names: &[String]) -> Result<(), TournamentError> {
        let refuse = |source| TournamentError::Players {
            path: self.path.clone(),
            source,
        };
        if let Some(anchor) = &self.anchor {
            let spec = canonical_player(&anchor.spec);
            if !names.contains(&spec) {
                return Err(refuse(AnchorError::NotAPlayer {
                    spec,
                    players: names.to_vec(),
                }));
            }
        }
        if names.len() < 2 {
            return Err(refuse(AnchorError::TooFew));
        }
        Ok(())
    }

    /// Makes the run folder (in `log_dir`, else under logs/), or takes the one
    /// `--resume` continues (held to the players and openings it recorded, its finished
    /// games read back); records the run in run.json and arms Ctrl-C. `openings` are
    /// where its games start; `parallel` games at once.
    pub fn open(
        &self,
        entrants: &Entrants,
        openings: Openings<Othello>,
        (parallel, log_dir): (usize, Option<&Path>),
    ) -> Result<OpenTournament, TournamentError> {
        // Refused now rather than after every game: the anchor must be one of the players.
        self.check_anchor(&entrants.names)?;
        let file = &self.file;
        let plan = Plan::tournament(&entrants.names, &entrants.llm, file.format, file.games / 2, file.seed);
        openings
            .check(&plan.schedule)
            .map_err(|problem| TournamentError::File {
                path: self.path.clone(),
                problem,
            })?;
        let start = match &self.resume {
            Some((dir, _)) => Start::Resume(dir),
            None => Start::New {
                dir: log_dir,
                label: "tournament",
            },
        };
        let run = Run::open("tournament", start)?;
        let mut options = run.options(openings, parallel);
        let record = options.openings.record(&plan.schedule);
        let players = &entrants.players;
        let resumed = match &self.resume {
            Some((_, recorded)) => {
                refuse_changed_players(&run, recorded, players)?;
                run.refuse_changed_openings(recorded.openings.as_ref(), record.as_ref())?;
                let state = run.resume((players, &plan.schedule, &options.openings), |_| Resume {
                    created_utc: utc_now().0,
                    parallel,
                    fleet: None,
                    games_finished_before: None,
                })?;
                let resumed = Resumed {
                    finished: state.finished.len(),
                    set_aside: state.set_aside.len(),
                };
                options.finished = state.finished;
                Some(resumed)
            }
            None => {
                run.record(&RunFile::new(RunKind::Tournament(TournamentRun {
                    tournament_file: self.text.clone(),
                    players: players.iter().map(PlayerSpec::run_player).collect(),
                    pairings: plan.pairings.iter().map(|p| p.label.clone()).collect(),
                    openings: record,
                    parallel,
                    no_score_moves: self.no_score_moves,
                })))?;
                None
            }
        };
        run.stop_on_ctrl_c();
        Ok(OpenTournament {
            run,
            plan,
            options,
            resumed,
        })
    }
}

/// Refuses a resume whose LLM players' settings (agent files and prompts read again)
/// are not the ones the run recorded, naming each player and setting.
fn refuse_changed_players(run: &Run, recorded: &TournamentRun, players: &[PlayerSpec]) -> Result<(), RunError> {
    let mut changed = Vec::new();
    for (then, player) in recorded.players.iter().zip(players) {
        if let (Some(then_agent), Some(now)) = (&then.agent, player.agent_config()) {
            let lines = changed_agent_settings(then_agent, now);
            changed.extend(lines.into_iter().map(|line| format!("{}: {line}", then.spec)));
        }
    }
    if changed.is_empty() {
        return Ok(());
    }
    Err(RunError::Changed {
        dir: run.path().to_path_buf(),
        changed: format!(
            "the players' settings are not the ones the run recorded: {}",
            changed.join("; ")
        ),
        restore: "restore them",
    })
}

/// A tournament's players, in the file's order: its engines, its external engines,
/// then its LLM players.
#[derive(Debug)]
pub struct Entrants {
    /// The players.
    pub players: Vec<PlayerSpec>,
    /// Their names, as logs and tables write them.
    pub names: Vec<String>,
    /// Which of them are LLM players.
    pub llm: Vec<usize>,
    /// The LLM players' hosts' total `max_in_flight`: the default `--parallel`.
    pub fleet_capacity: usize,
}

impl Entrants {
    /// Games at once: `given` (`--parallel`), else the LLM players' hosts' total
    /// capacity (at least one).
    pub fn parallel(&self, given: Option<usize>) -> usize {
        given.unwrap_or(self.fleet_capacity.max(1))
    }

    /// The `players` (those at the indices `llm` are LLM players, on hosts of
    /// `fleet_capacity` requests at once) of the file at `path` in `format`; refused
    /// when two share a name, one is a person, or the format lacks players.
    pub fn new(
        players: Vec<PlayerSpec>,
        llm: Vec<usize>,
        fleet_capacity: usize,
        (format, path): (Format, &Path),
    ) -> Result<Entrants, TournamentError> {
        let names: Vec<String> = players.iter().map(ToString::to_string).collect();
        let bad = |problem: String| TournamentError::File {
            path: path.to_path_buf(),
            problem,
        };
        if let Some((index, twice)) = names.iter().enumerate().find(|(i, n)| names[..*i].contains(n)) {
            let advice = if llm.contains(&index) {
                "give each [[llm]] of one model a name"
            } else {
                "list each engine once"
            };
            return Err(bad(format!("{twice} appears twice; {advice}")));
        }
        if let Some(person) = players.iter().find(|p| p.is_human()) {
            return Err(bad(format!(
                "{person} is a person at the terminal, and a tournament plays unattended: \
                 list engines and [[llm]] players only"
            )));
        }
        if format == Format::Gauntlet && (llm.is_empty() || llm.len() == players.len()) {
            return Err(bad("a gauntlet needs [[llm]] players and engines".to_string()));
        }
        if players.len() < 2 {
            return Err(bad("a tournament needs two players or more".to_string()));
        }
        Ok(Entrants {
            players,
            names,
            llm,
            fleet_capacity,
        })
    }

    /// Keeps the token caps the run `recorded` played its LLM players with.
    pub fn keep_recorded_caps(&mut self, recorded: &TournamentRun) {
        for (then, player) in recorded.players.iter().zip(&mut self.players) {
            if let Some(agent) = &then.agent {
                player.keep_recorded_cap(agent);
            }
        }
    }
}

/// A tournament run, open: its folder (Ctrl-C armed), its plan and options, and what a
/// resume read back.
#[derive(Debug)]
pub struct OpenTournament {
    /// The run.
    pub run: Run,
    /// Its games and pairings.
    pub plan: Plan,
    /// How its games are played (the finished games of a resume in `finished`).
    pub options: RunOptions,
    /// What a resume read back (`None`: a new run).
    pub resumed: Option<Resumed>,
}

/// What a tournament played.
#[derive(Debug)]
pub struct TournamentGames {
    /// Each scheduled game and each pairing's stop.
    pub games: RunGames<Othello>,
    /// Per pairing: games, the first player's wins, draws and losses, and the stop.
    pub pairings: Vec<PairingResult>,
    /// Whether a needed game did not finish.
    pub interrupted: bool,
}

impl OpenTournament {
    /// Plays the schedule between `players` (pairing by pairing under `rule`), each
    /// event to `report`.
    pub async fn play(
        &self,
        players: &[PlayerSpec],
        rule: Option<&StopJudge>,
        report: &(dyn Fn(MatchEvent<'_>) + Sync),
    ) -> Result<TournamentGames, RunError> {
        let plan = &self.plan;
        let played = (players, &plan.schedule[..], &plan.pairings[..]);
        let games = self.run.play(played, rule, &self.options, report).await?;
        Ok(TournamentGames {
            interrupted: games.interrupted(rule.is_some()),
            pairings: self.pairing_results(&games),
            games,
        })
    }

    /// The decisions of the LLM players (`llm`: their indices) in every finished game
    /// of `games`, to be valued.
    pub fn games_to_score<'a>(&self, games: &'a TournamentGames, llm: &[usize]) -> Vec<GameToScore<'a, Othello>> {
        let schedule = &self.plan.schedule;
        games
            .games
            .records
            .iter()
            .enumerate()
            .filter_map(|(i, record)| {
                let (game, record) = (&schedule[i], record.as_ref()?);
                let seats = [(Color::Black, game.black), (Color::White, game.white)];
                let colors: Vec<Color> = seats
                    .into_iter()
                    .filter(|(_, player)| llm.contains(player))
                    .map(|(color, _)| color)
                    .collect();
                (!colors.is_empty()).then_some(GameToScore {
                    number: i + 1,
                    record,
                    colors,
                })
            })
            .collect()
    }

    /// Per pairing: games, the first player's wins, draws and losses, and the stop.
    fn pairing_results(&self, games: &RunGames<Othello>) -> Vec<PairingResult> {
        pairing_results(&self.plan, games)
    }
}

/// Per pairing of `plan`: the finished games of `games`, the first player's wins, draws
/// and losses, and the stop (what results.json's `pairings` holds; `verify` derives it
/// again from the logs).
pub(crate) fn pairing_results(plan: &Plan, games: &RunGames<Othello>) -> Vec<PairingResult> {
    plan.pairings
        .iter()
        .enumerate()
        .map(|(p, pairing)| {
            let mut tally = Tally::default();
            for &i in pairing.pairs.iter().flatten() {
                let Some(record) = &games.records[i] else { continue };
                tally.record(record.margin_for(plan.schedule[i].color_of(pairing.first)));
            }
            PairingResult {
                pairing: pairing.label.clone(),
                games: tally.games(),
                wins: tally.wins,
                draws: tally.draws,
                losses: tally.losses,
                stop: games.stops.get(p).cloned().flatten(),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::llm_player_name;
    use llm::Think;

    /// A table's name comes first, else its thinking level (unless the grid names it),
    /// then the grid's parts; a name that is not a player name is refused.
    #[test]
    fn an_llm_tables_player_is_named_by_its_name_else_its_thinking_then_its_grid() {
        let parts = ["tool".to_string(), "vote-3".to_string()];
        let high = Think::Level("high".to_string());
        let name = |table, think, named, parts: &[String]| llm_player_name(table, think, named, parts).unwrap();
        assert_eq!(
            name(Some("a"), Some(&high), true, &parts).as_deref(),
            Some("a-tool-vote-3")
        );
        assert_eq!(name(None, Some(&high), true, &[]).as_deref(), Some("think-high"));
        assert_eq!(
            name(None, Some(&Think::Enabled(false)), true, &[]).as_deref(),
            Some("think-off")
        );
        assert_eq!(name(None, Some(&high), false, &parts).as_deref(), Some("tool-vote-3"));
        assert_eq!(name(None, None, true, &[]), None);
        assert!(llm_player_name(Some("a b"), None, true, &[]).is_err());
    }
}
