//! Game records for the rest of the Othello world: GGF (what Edax, Egaroucid, NBoard
//! and GGS read) and plain move transcripts (what everyone pastes).
//!
//! A GGF record holds the players (`PB`, `PW`), the result (`RE`, black's disc
//! difference with the empty squares given to the winner, as tournaments count it;
//! `:r` after a forfeit), the start position (`BO`), every move and pass (`PA`) from
//! there, the opening included, and a comment (`C`) saying for each LLM side how
//! many of its moves the model decided and which were the harness's fallback.

use std::fmt::Write as _;

use super::logs::LoggedGame;
use game::othello::{margin_with_empties, Board, Color, Move};
use game::{Game, Othello, Rules};
use protocol::ggf::GgfGame;
use record::MoveSource;

/// Why a game has no record in the asked format.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExportError {
    /// Not a game of Othello.
    #[error("{path}: a game of {game}; GGF and transcripts hold Othello games")]
    NotOthello {
        /// The log.
        path: String,
        /// The game it plays.
        game: Game,
    },
    /// The game did not finish.
    #[error("{path}: the game did not finish, so it has no result to export")]
    Unfinished {
        /// The log.
        path: String,
    },
    /// A transcript starts from the usual position; this game does not.
    #[error("{path}: the game starts from a set-up board, which a transcript cannot hold; use --format ggf")]
    SetUpBoard {
        /// The log.
        path: String,
    },
}

/// One move of an exported game: its mover, the move and, after
/// the opening, its ply number and source as logged.
type ExportedMove = (Color, Move, Option<(usize, MoveSource)>);

/// The moves of a finished Othello game from its start, passes included.
struct ExportedGame {
    start: Board,
    moves: Vec<ExportedMove>,
}

fn exported(game: &LoggedGame) -> Result<ExportedGame, ExportError> {
    let path = game.path.display().to_string();
    let replay = &game.replay;
    if replay.game != Game::Othello {
        return Err(ExportError::NotOthello {
            path,
            game: replay.game,
        });
    }
    if replay.final_discs.is_none() {
        return Err(ExportError::Unfinished { path });
    }
    // The replay checked every move against the rules, so these parse and play.
    let start = (replay.start_board)
        .to_position::<Othello>(replay.start_to_move)
        .expect("a replayed start board");
    let mut board = start;
    let mut moves = Vec::new();
    for logged in &replay.opening {
        let mv = logged.to_move::<Othello>().expect("a replayed opening move");
        moves.push((Othello::to_move(&board), mv, None));
        board = Othello::play(&board, mv).expect("a replayed opening move");
    }
    for ply in &replay.plies {
        let logged = ply.mv.expect("an Othello log records its moves");
        let mv = logged.to_move::<Othello>().expect("a replayed move");
        moves.push((ply.color, mv, ply.source.map(|source| (ply.ply, source))));
    }
    Ok(ExportedGame { start, moves })
}

/// The game's GGF record, one line.
pub fn ggf(game: &LoggedGame) -> Result<String, ExportError> {
    let exported = exported(game)?;
    let replay = &game.replay;
    let (black, white) = replay.final_discs.expect("checked by exported");
    // A forfeit is scored as a resignation: the whole board to the opponent.
    let result = match &replay.forfeit {
        Some(forfeit) => format!("{:+}.000:r", Othello::forfeit_margin(forfeit.color)),
        None => format!("{:+}.000", margin_with_empties(black, white)),
    };
    let comment = sources_comment(replay, &exported);
    let record = GgfGame {
        black: replay.black.clone(),
        white: replay.white.clone(),
        start: exported.start,
        moves: exported.moves.iter().map(|(_, mv, _)| *mv).collect(),
    };
    Ok(record.record(&result, Some(comment.as_str()).filter(|c| !c.is_empty())))
}

/// The game as a transcript from the usual start: its moves in lower case, passes
/// left out (each is forced, so readers infer them).
pub fn transcript(game: &LoggedGame) -> Result<String, ExportError> {
    let exported = exported(game)?;
    if exported.start != Board::new() {
        return Err(ExportError::SetUpBoard {
            path: game.path.display().to_string(),
        });
    }
    Ok(exported
        .moves
        .iter()
        .filter(|(_, mv, _)| *mv != Move::Pass)
        .map(|(_, mv, _)| mv.to_string())
        .collect())
}

/// For each LLM side: its moves decided by the model, and the plies of its fallback
/// moves (empty when no side is an LLM).
fn sources_comment(replay: &super::replay::GameReplay, game: &ExportedGame) -> String {
    let mut parts = Vec::new();
    for color in [Color::Black, Color::White] {
        let mine: Vec<(usize, MoveSource)> = game
            .moves
            .iter()
            .filter(|(c, _, _)| *c == color)
            .filter_map(|(_, _, played)| *played)
            .collect();
        let by_model = mine.iter().filter(|(_, s)| *s == MoveSource::Llm).count();
        let fallback: Vec<String> = mine
            .iter()
            .filter(|(_, s)| *s == MoveSource::Fallback)
            .map(|(ply, _)| ply.to_string())
            .collect();
        if by_model + fallback.len() == 0 {
            continue;
        }
        let player = if color == Color::Black {
            &replay.black
        } else {
            &replay.white
        };
        let mut part = format!(
            "{color} {player}: {by_model} moves by the model, {} fallback",
            fallback.len()
        );
        if !fallback.is_empty() {
            let _ = write!(part, " (plies {})", fallback.join(" "));
        }
        if replay.forfeit.as_ref().is_some_and(|f| f.color == color) {
            part.push_str(", forfeited");
        }
        parts.push(part);
    }
    parts.join("; ")
}
