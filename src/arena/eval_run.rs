//! An `eval` run's life in its folder: the run a resume continues read back, the
//! settings recorded in run.json (or a resume held to the ones it recorded), the games
//! played through [`Run`], the agent's moves gathered for valuing, and results.json.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use agent::{AgentConfig, ModelGame};
use runs::{
    changed_agent_settings, utc_now, EvalResults, EvalRun, HostUsage, PairingStop, ReadRunError, Resume, RunEngine,
    RunFile, RunKind, Stopping,
};
use serde_json::Value;
use stats::StopRule;

use super::connection::Connection;
use super::eval::{EvalConfig, EvalResult};
use super::lifecycle::{Resumed, Run, RunError, Start};
use super::plan::Plan;
use super::player_spec::PlayerSpec;
use super::quality::{GameToScore, MoveQuality, ScoredMove};
use super::schedule::MatchEvent;
use super::stop_judge::StopJudge;

/// Why the run `eval --resume` names cannot be continued as recorded.
#[derive(Debug, thiserror::Error)]
pub enum RecordedEvalError {
    /// Its run.json cannot be read.
    #[error("bad --resume: cannot read {}; give a run folder made by eval", .path.display())]
    Unreadable {
        /// The run.json.
        path: PathBuf,
        /// Why.
        #[source]
        source: record::lines::LineError,
    },
    /// Its run.json is not JSON.
    #[error("bad --resume: {} is not JSON", .path.display())]
    NotJson {
        /// The run.json.
        path: PathBuf,
        /// The parse error.
        #[source]
        source: serde_json::Error,
    },
    /// Its run.json is JSON of another shape.
    #[error("bad --resume")]
    Shape(#[source] ReadRunError),
    /// It is a run of another command.
    #[error("bad --resume: {} is not an eval run", .path.display())]
    NotEval {
        /// The run.json.
        path: PathBuf,
    },
    /// It keeps no command line to play the rest of its games with.
    #[error(
        "bad --resume: {} keeps no argv (written by an older version or another command); start a new run",
        .path.display()
    )]
    NoArgv {
        /// The run.json.
        path: PathBuf,
    },
}

/// The eval run in `dir` as its run.json recorded it, with the command line (after the
/// program's name) that defines it.
pub fn recorded_eval(dir: &Path) -> Result<(EvalRun, Vec<String>), RecordedEvalError> {
    let path = dir.join("run.json");
    let run = RunFile::read(dir).map_err(|err| match err {
        ReadRunError::Io { source, .. } => RecordedEvalError::Unreadable {
            path: path.clone(),
            source,
        },
        ReadRunError::NotJson { source, .. } => RecordedEvalError::NotJson {
            path: path.clone(),
            source,
        },
        err @ ReadRunError::Shape { .. } => RecordedEvalError::Shape(err),
    })?;
    let RunKind::Eval(recorded) = run.run else {
        return Err(RecordedEvalError::NotEval { path });
    };
    let Some(argv) = recorded.argv.clone() else {
        return Err(RecordedEvalError::NoArgv { path });
    };
    Ok((recorded, argv))
}

/// Why an eval run could not be opened or played.
#[derive(Debug, thiserror::Error)]
pub enum EvalRunError {
    /// The opening suite does not fit the schedule (said before any folder is made).
    #[error("bad --openings: {0}")]
    Openings(String),
    /// The run folder could not be opened, recorded or resumed.
    #[error(transparent)]
    Run(#[from] RunError),
    /// Playing failed.
    #[error("evaluation stopped; logs so far are in {}", .dir.display())]
    Stopped {
        /// The run folder.
        dir: PathBuf,
        /// Why.
        #[source]
        source: RunError,
    },
}

/// An eval run, settled from the command line: what it plays, its agent's settings,
/// where its model is served, and what run.json records beside them.
pub struct EvalSettings<R: ModelGame> {
    /// The agent, its opponents, the seeds and the openings (`run.openings`).
    pub config: EvalConfig<R>,
    /// The agent's settings.
    pub agent: AgentConfig,
    /// The model server or fleet.
    pub connection: Connection,
    /// Games at once.
    pub parallel: usize,
    /// The command line after the program's name (credentials are taken out here).
    pub argv: Vec<String>,
    /// Random opening plies, as run.json records them.
    pub opening_random: usize,
    /// The move-valuing reference when it is an external engine.
    pub reference: Option<RunEngine>,
    /// The move-valuing reference's settings as run.json records them (`None`: no
    /// valuing).
    pub score_moves: Option<Value>,
}

/// An eval run, open: its folder (Ctrl-C armed), what it plays, and what a resume read
/// back.
#[derive(Debug)]
pub struct OpenEval<R: ModelGame> {
    /// The run.
    pub run: Run,
    /// What it plays (the finished games of a resume in `run.finished`).
    pub config: EvalConfig<R>,
    /// What a resume read back (`None`: a new run).
    pub resumed: Option<Resumed>,
}

impl<R: ModelGame> EvalSettings<R> {
    /// The external engines of the run, as run.json records them: its opponents, and
    /// its move-valuing reference.
    fn engines(&self) -> Vec<RunEngine> {
        let opponents = self.config.opponents.iter().filter_map(PlayerSpec::run_engine);
        opponents.chain(self.reference.clone()).collect()
    }

    /// Makes the run folder (in `dir`, else under logs/), or takes the one a resume
    /// continues (`recorded`: what its run.json says, held to these settings, its
    /// finished games read back); records the run in run.json and arms Ctrl-C.
    pub async fn open(self, dir: Option<&Path>, recorded: Option<&EvalRun>) -> Result<OpenEval<R>, EvalRunError> {
        let mut config = self.config.clone();
        let games: Vec<_> = config.schedule().into_iter().map(|(_, _, game)| game).collect();
        // Checked before the run folder is made: a refused suite leaves nothing behind.
        config.run.openings.check(&games).map_err(EvalRunError::Openings)?;
        let openings = config.run.openings.record(&games);
        let start = match (dir, recorded) {
            (Some(dir), Some(_)) => Start::Resume(dir),
            (dir, _) => Start::New {
                dir,
                label: &self.agent.model,
            },
        };
        let run = Run::open("eval", start)?;
        config.run = run.options(config.run.openings, self.parallel);
        let resumed = match recorded {
            Some(recorded) => {
                self.refuse_changed(&run, recorded)?;
                run.refuse_changed_openings(recorded.openings.as_ref(), openings.as_ref())?;
                Some(self.resume(&run, &mut config)?)
            }
            None => {
                run.record(&self.run_file(openings).await)?;
                None
            }
        };
        run.stop_on_ctrl_c();
        Ok(OpenEval { run, config, resumed })
    }

    /// Refuses a resume whose agent settings (prompt and template texts included, read
    /// again from their files) or external engines are not the ones the run recorded.
    fn refuse_changed(&self, run: &Run, recorded: &EvalRun) -> Result<(), RunError> {
        let changed = changed_agent_settings(&recorded.agent, &self.agent);
        if !changed.is_empty() {
            return Err(RunError::Changed {
                dir: run.path().to_path_buf(),
                changed: format!(
                    "the agent settings are not the ones the run recorded: {}",
                    changed.join("; ")
                ),
                restore: "restore them",
            });
        }
        let changed = RunEngine::changed_tables(&recorded.engines, &self.engines());
        if !changed.is_empty() {
            return Err(RunError::Changed {
                dir: run.path().to_path_buf(),
                changed: changed.join("; "),
                restore: "restore the --engines file the run played",
            });
        }
        Ok(())
    }

    /// Reads back the finished games of the run into `config` (unfinished logs are set
    /// aside) and records this resume in run.json.
    fn resume(&self, run: &Run, config: &mut EvalConfig<R>) -> Result<Resumed, RunError> {
        let games: Vec<_> = config.schedule().into_iter().map(|(_, _, g)| g).collect();
        let parallel = config.run.parallel;
        let fleet = self.connection.fleet_json();
        let state = run.resume((&config.players(), &games, &config.run.openings), |state| Resume {
            created_utc: utc_now().0,
            parallel,
            fleet: Some(fleet),
            games_finished_before: Some(state.finished.len()),
        })?;
        let resumed = Resumed {
            finished: state.finished.len(),
            set_aside: state.set_aside.len(),
        };
        config.run.finished = state.finished;
        Ok(resumed)
    }

    /// The run.json of a new run (the server asked about the model).
    async fn run_file(&self, openings: Option<runs::OpeningsRecord>) -> RunFile {
        let backend = &self.connection.backend;
        let model_info = backend.model_info(&self.agent.model).await;
        let config = &self.config;
        RunFile::new(RunKind::Eval(EvalRun {
            // Credentials in a URL are sent, never recorded: a resume gives --host again.
            argv: Some(llm::arguments_without_credentials(self.argv.iter().cloned())),
            backend: backend.describe(),
            fleet: Some(self.connection.fleet_json()),
            model_digest: Some(
                model_info
                    .as_ref()
                    .and_then(|m| m["digest"].as_str().map(str::to_string)),
            ),
            model_info: Some(model_info),
            agent: self.agent.clone(),
            opponents: config.opponents.iter().map(ToString::to_string).collect(),
            engines: self.engines(),
            games_per_color: config.games_per_color,
            opening_random: self.opening_random,
            openings,
            seed: config.seed,
            opening_seed: Some(config.opening_seed.unwrap_or(config.seed)),
            parallel: self.parallel,
            score_moves: Some(self.score_moves.clone()),
        }))
    }
}

impl<R: ModelGame> OpenEval<R> {
    /// Games scheduled.
    pub fn total(&self) -> usize {
        self.config.schedule().len()
    }

    /// Plays the evaluation (each opponent stopped early under `stop`, its answers in
    /// decisions.jsonl), each event to `report`; returns the result and each opponent's
    /// stop.
    pub async fn play(
        &self,
        stop: Option<&StopJudge>,
        report: &(dyn Fn(MatchEvent<'_, R>) + Sync),
    ) -> Result<(EvalResult<R>, Vec<Option<PairingStop>>), EvalRunError> {
        let Plan { schedule, pairings } = self.config.plan();
        let players = self.config.players();
        let played = self
            .run
            .play((&players, &schedule, &pairings), stop, &self.config.run, report)
            .await
            .map_err(|source| EvalRunError::Stopped {
                dir: self.run.path().to_path_buf(),
                source,
            })?;
        let needed = played.needed(&pairings);
        let result = self.config.tally(played.records, &|i| needed[i]);
        Ok((result, played.stops))
    }
}

impl<R: ModelGame> EvalResult<R> {
    /// The agent's moves of every finished game, to be valued.
    pub fn games_to_score(&self) -> Vec<GameToScore<'_, R>> {
        self.games
            .iter()
            .map(|g| GameToScore {
                number: g.number,
                record: &g.record,
                colors: vec![g.agent_color],
            })
            .collect()
    }

    /// The quality of the agent's valued `moves`, over all games and per opponent (of
    /// `opponents`).
    pub fn move_quality(&self, moves: &[ScoredMove], opponents: usize) -> (MoveQuality, Vec<MoveQuality>) {
        let mut all = MoveQuality::default();
        let mut per_opponent = vec![MoveQuality::default(); opponents];
        let opponent_of: HashMap<usize, usize> = self.games.iter().map(|g| (g.number, g.opponent)).collect();
        for m in moves {
            all.add(m);
            if let Some(&opponent) = opponent_of.get(&m.game) {
                per_opponent[opponent].add(m);
            }
        }
        (all, per_opponent)
    }

    /// results.json: the tallies and agent statistics, the hosts' usage (`hosts`), the
    /// stops under `stop` and the move quality (`quality`: the reference's settings
    /// and the quality over all games and per opponent) of the run in `log_dir`.
    pub fn results(
        &self,
        games_per_color: usize,
        (stop, stops): (Option<&StopRule>, &[Option<PairingStop>]),
        hosts: &[HostUsage],
        quality: Option<(Value, &(MoveQuality, Vec<MoveQuality>))>,
        log_dir: &Path,
    ) -> EvalResults {
        let mut opponents = self.opponent_results(games_per_color);
        let move_quality = quality.map(|(reference, (all, per_opponent))| {
            for (opponent, q) in opponents.iter_mut().zip(per_opponent) {
                opponent.move_quality = Some(q.to_json());
            }
            let mut all = all.to_json();
            all["reference"] = reference;
            all
        });
        EvalResults {
            opponents,
            agent: self.agent.to_json(),
            complete: self.unfinished == 0,
            unfinished_games: self.unfinished,
            log_dir: log_dir.display().to_string(),
            hosts: hosts.to_vec(),
            stopping: stop.map(|rule| Stopping {
                stop_rule: rule.to_string(),
                stops: stops.to_vec(),
            }),
            move_quality,
        }
    }
}
