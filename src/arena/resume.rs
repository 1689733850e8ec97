//! Resuming an interrupted run: finished games are read back from their logs,
//! unfinished ones are moved aside to be played again.

use agent::ModelGame;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::openings::Openings;
use super::play::{Forfeit, GameRecord, PlyRecord};
use super::player::Played;
use super::player_spec::PlayerSpec;
use super::scheduled::ScheduledGame;
use game::othello::Color;
use game::{Game, Line, Othello};
use record::{
    game_log_path, game_start, join_moves, read_game_log_prefix, Event, Notation, ReadLogError, Record, Squares,
};
use runs::replay_records;

/// What an interrupted run left behind.
#[derive(Clone, Debug)]
pub struct ResumeState<R: ModelGame = Othello> {
    /// Finished games, by schedule index.
    pub finished: BTreeMap<usize, GameRecord<R>>,
    /// Logs of unfinished games, each renamed to `game-NNNN.jsonl.unfinished-K`.
    pub set_aside: Vec<PathBuf>,
}

/// A run folder that cannot be resumed.
#[derive(Debug, thiserror::Error)]
pub enum ResumeError {
    /// A log cannot be read.
    #[error(transparent)]
    Read(#[from] ReadLogError),
    /// A finished log does not belong to this run's schedule.
    #[error(
        "{path}: game {game} was played by {found} but this run schedules {expected}: \
         resume the run with the settings in its run.json"
    )]
    Mismatch {
        /// The log.
        path: PathBuf,
        /// Game number.
        game: usize,
        /// Players, seed and opening in the log.
        found: String,
        /// Players, seed and opening the schedule expects.
        expected: String,
    },
    /// A finished log whose moves cannot be replayed, or whose end record disagrees with them.
    #[error("{path}: {reason}; move the file aside to play this game again")]
    Corrupt {
        /// The log.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// An unfinished log cannot be renamed.
    #[error("cannot move the unfinished log {path} aside")]
    Rename {
        /// The log.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
}

/// Reads the logs in `dir` for `schedule` (played by `players` from `openings`): a game whose log ends with `game_end`, and whose players, seed and
/// opening are the schedule's, is rebuilt and kept; a log without one (stopped, killed, torn last
/// line) is renamed so the game is played again from its start and nothing written is lost.
pub fn load_resume_state<R: ModelGame>(
    dir: &Path,
    players: &[PlayerSpec<R>],
    schedule: &[ScheduledGame],
    openings: &Openings<R>,
) -> Result<ResumeState<R>, ResumeError> {
    let mut state = ResumeState {
        finished: BTreeMap::new(),
        set_aside: Vec::new(),
    };
    let names: Vec<String> = players.iter().map(ToString::to_string).collect();
    for (index, scheduled) in schedule.iter().enumerate() {
        let number = index + 1;
        let path = game_log_path(dir, number);
        if !path.exists() {
            continue;
        }
        let log = read_game_log_prefix(&path)?;
        let finished = !log.torn_tail && log.records.iter().any(|r| matches!(r.event, Event::GameEnd(_)));
        if !finished {
            state.set_aside.push(set_aside(&path)?);
            continue;
        }
        check_players(&path, number, &log.records, &names, scheduled, openings)?;
        let record = rebuild_game(&log.records).map_err(|reason| ResumeError::Corrupt {
            path: path.clone(),
            reason,
        })?;
        state.finished.insert(index, record);
    }
    Ok(state)
}

fn set_aside(path: &Path) -> Result<PathBuf, ResumeError> {
    let mut k = 1;
    let target = loop {
        let candidate = PathBuf::from(format!("{}.unfinished-{k}", path.display()));
        if !candidate.exists() {
            break candidate;
        }
        k += 1;
    };
    std::fs::rename(path, &target).map_err(|source| ResumeError::Rename {
        path: path.to_path_buf(),
        source,
    })?;
    Ok(target)
}

/// Refuses a finished log of game `number` whose players (`names`, the players list
/// as logs write it), seed or opening are not the ones `scheduled` plays from
/// `openings`.
pub(crate) fn check_players<R: ModelGame>(
    path: &Path,
    number: usize,
    records: &[Record],
    names: &[String],
    scheduled: &ScheduledGame,
    openings: &Openings<R>,
) -> Result<(), ResumeError> {
    let opening = openings.line(scheduled);
    let moves: Vec<Notation> = opening.moves().iter().map(|&mv| Notation::of::<R>(mv)).collect();
    let describe = |black: &str, white: &str, seed: u64, start: &Squares, to_move: Color, opening: &[Notation]| {
        // The start position is named only where a suite's board replaced the usual one.
        let from = if *start == Squares::of::<R>(&R::start()) && to_move == Color::Black {
            String::new()
        } else {
            format!("from {start} ({to_move} to move), ")
        };
        format!(
            "{black} (black) vs {white} (white), seed {seed}, {from}opening [{}]",
            join_moves(opening)
        )
    };
    let expected = describe(
        &names[scheduled.black],
        &names[scheduled.white],
        scheduled.seed,
        &Squares::of::<R>(opening.start()),
        R::to_move(opening.start()),
        &moves,
    );
    let found = game_start(records).map_or_else(
        || "no game_start record".to_string(),
        |s| {
            let to_move = s.start_to_move.unwrap_or(Color::Black);
            describe(&s.black, &s.white, s.seed, &s.start_board, to_move, &s.opening)
        },
    );
    if found == expected {
        Ok(())
    } else {
        Err(ResumeError::Mismatch {
            path: path.to_path_buf(),
            game: number,
            found,
            expected,
        })
    }
}

/// Rebuilds a finished game from its records; the error says what does not add up.
/// The checks are the replay's ([`replay_records`]: legal moves by the side to move, a
/// forfeit only where one can happen, `game_end` only where the game is over or after a
/// forfeit, with the board's discs and winner); a finished game also needs its
/// `game_end`. After a `forfeit`, the game goes to the opponent, scored
/// [`game::Rules::FORFEIT_MARGIN`].
pub fn rebuild_game<R: ModelGame>(records: &[Record]) -> Result<GameRecord<R>, String> {
    let replay = replay_records(records).map_err(|e| e.to_string())?;
    if replay.final_discs.is_none() {
        return Err("no game_end record".into());
    }
    let start = game_start(records).ok_or("no game_start record")?;
    if start.game() != Game::of::<R>() {
        return Err(format!("the log is a game of {}, not {}", start.game(), R::NAME));
    }
    let mut game: Line<R> = start.opening_line::<R>()?;
    let opening_plies = game.moves().len();
    let mut plies = Vec::new();
    let mut forfeit: Option<Forfeit> = None;
    for record in records {
        match &record.event {
            Event::Move(m) => {
                let mv = m.mv.to_move::<R>()?;
                game.try_play(mv).map_err(|e| format!("ply {}: {e}", m.ply))?;
                plies.push(PlyRecord {
                    color: m.color,
                    played: Played {
                        mv,
                        source: m.source,
                        agent: m.agent.clone(),
                    },
                });
            }
            Event::Forfeit(f) => {
                forfeit = Some(Forfeit {
                    color: f.color,
                    player: f.player.clone(),
                    agent: f.agent.clone(),
                });
            }
            _ => {}
        }
    }
    if let Some(forfeit) = forfeit {
        return Ok(GameRecord::forfeited(game, opening_plies, plies, forfeit));
    }
    Ok(GameRecord {
        opening_plies,
        plies,
        forfeit: None,
        outcome: R::outcome(game.board()),
        disc_difference: R::margin(game.board()),
        game,
    })
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use engines::EngineSpec;
    use game::othello::ByColor;
    use game::othello::{Board, Outcome};
    use game::Rules;
    use record::{AgentDecision, ForfeitRecord, GameEnd, GameStart, MoveRecord, MoveSource};
    use runs::{GameSummary, Matchup};

    fn line(event: Event) -> Record {
        Record {
            schema_version: 1,
            time_ms: 0,
            event,
        }
    }

    /// Black (random) plays d3, then white (`llm:m`) forfeits at ply 2; `game_end`
    /// names `winner` with the discs on the board (4-1).
    pub(crate) fn forfeited_log(winner: &str) -> Vec<Record> {
        let after = Board::new().try_play("d3".parse().unwrap()).unwrap();
        vec![
            line(Event::GameStart(GameStart {
                game: 1,
                black: "random".into(),
                white: "llm:m".into(),
                start_board: Squares::of::<Othello>(&Board::new()),
                start_to_move: None,
                suite_opening: None,
                opening: Vec::new(),
                seed: 7,
                kinds: None,
                rules: None,
                black_engine: None,
                white_engine: None,
            })),
            line(Event::Move(MoveRecord {
                game: 1,
                ply: 1,
                color: Color::Black,
                player: "random".into(),
                mv: "d3".parse().unwrap(),
                source: MoveSource::Engine,
                board_after: Squares::of::<Othello>(&after),
                agent: None,
            })),
            line(Event::Forfeit(ForfeitRecord {
                game: 1,
                ply: 2,
                color: Color::White,
                player: "llm:m".into(),
                agent: AgentDecision {
                    source: Some(MoveSource::Forfeit),
                    sessions: 3,
                    turns: 3,
                    invalid_answers: 3,
                    ..AgentDecision::default()
                },
            })),
            line(Event::GameEnd(GameEnd {
                game: 1,
                black_discs: 4,
                white_discs: 1,
                winner: winner.parse().expect("a test names black, white or draw"),
                margin: None,
                moves: vec!["d3".parse().unwrap()],
            })),
        ]
    }

    #[test]
    fn a_forfeited_game_is_rebuilt_as_the_forfeiting_sides_wipeout_loss() {
        let game = rebuild_game::<Othello>(&forfeited_log("black")).unwrap();
        let forfeit = game.forfeit.as_ref().unwrap();
        assert_eq!((forfeit.color, forfeit.player.as_str()), (Color::White, "llm:m"));
        assert_eq!(forfeit.agent.source, Some(MoveSource::Forfeit));
        assert_eq!(game.outcome, Outcome::Win(Color::Black));
        assert_eq!(game.disc_difference, Othello::FORFEIT_MARGIN);
        assert_eq!(game.margin_for(Color::White), -64);
        assert_eq!((game.plies.len(), game.game.moves().len()), (1, 1));
        assert!(!game.game.is_over(), "the board stays where the forfeit happened");
        assert_eq!(game.agent_decisions().count(), 1, "the forfeiting decision");
    }

    #[test]
    fn a_forfeit_that_does_not_add_up_is_refused() {
        let err = rebuild_game::<Othello>(&forfeited_log("white")).unwrap_err();
        assert!(
            err.contains("white forfeited") && err.contains("winner is white"),
            "{err}"
        );
        // A forfeit by the side that is not to move.
        let mut log = forfeited_log("white");
        if let Event::Forfeit(f) = &mut log[2].event {
            f.color = Color::Black;
        }
        let err = rebuild_game::<Othello>(&log).unwrap_err();
        assert!(
            err.contains("forfeit by black at ply 2, but the moves leave white to move"),
            "{err}"
        );
        // A move after the forfeit.
        let mut log = forfeited_log("black");
        log.insert(3, log[1].clone());
        assert!(rebuild_game::<Othello>(&log)
            .unwrap_err()
            .contains("a move after the forfeit"));
        // The discs are the board's, not the 64-0 score.
        let mut log = forfeited_log("black");
        if let Event::GameEnd(end) = &mut log[3].event {
            (end.black_discs, end.white_discs) = (64, 0);
        }
        assert!(rebuild_game::<Othello>(&log)
            .unwrap_err()
            .contains("the moves end at 4-1"));
    }

    #[test]
    fn a_forfeit_is_a_64_disc_loss_from_the_log_and_from_the_game() {
        let log = forfeited_log("black");
        let from_log = GameSummary::from_log(&log).unwrap();
        let record = rebuild_game::<game::Othello>(&log).unwrap();
        let random = PlayerSpec::Engine(EngineSpec::Random);
        let mut from_game = record.summary(
            1,
            ByColor {
                black: &random,
                white: &random,
            },
        );
        from_game.players = from_log.players.clone();
        from_game.kinds = from_log.kinds;
        assert_eq!(from_game, from_log, "both readers tally a forfeit alike");
        assert_eq!(from_log.forfeit, Some(Color::White));
        assert_eq!(
            (from_log.margin_for(Color::White), from_log.margin_for(Color::Black)),
            (Some(-64), Some(64))
        );
        assert_eq!(
            (from_log.score_for(Color::White), from_log.score_for(Color::Black)),
            (Some(0.0), Some(1.0))
        );
        let agent = &from_log.agents[Color::White];
        assert_eq!((agent.moves, agent.invalid_answers, agent.requests), (1, 3, 3));

        let mut matchup = Matchup::default();
        matchup.add(&from_log, Color::White);
        assert_eq!((matchup.as_white.losses, matchup.as_white.margin_sum), (1, -64));
        assert_eq!((matchup.forfeits, matchup.unfinished), (1, 0));
        let mut winner = Matchup::default();
        winner.add(&from_log, Color::Black);
        assert_eq!((winner.as_black.wins, winner.forfeits), (1, 0));
    }

    #[test]
    fn a_forfeit_without_game_end_is_an_unfinished_game() {
        let mut log = forfeited_log("black");
        log.pop();
        let summary = GameSummary::from_log(&log).unwrap();
        assert_eq!((summary.black_margin, summary.forfeit), (None, Some(Color::White)));
        let mut matchup = Matchup::default();
        matchup.add(&summary, Color::White);
        assert_eq!(
            (matchup.unfinished, matchup.forfeits, matchup.as_white.games()),
            (1, 0, 0)
        );
        assert_eq!(matchup.agent.moves, 1, "its decision still counts");
    }
}
