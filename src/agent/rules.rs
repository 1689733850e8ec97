//! Rules probes: the questions that check what a model says about a position, not
//! only its move (`probe --ask legal-moves|after-move`), and how its answers are read.
//!
//! The position is shown as the agent shows it with hidden legal moves (the board text
//! without its list). The answer is read as the agent reads one: the text after
//! `</think>` ([`answer_text`]), its coordinates in order ([`coordinates`]); or, with a
//! JSON answer format, JSON held to a schema (`{"moves": [...]}`, `{"rows": [...]}`).

use serde::Deserialize;
use serde_json::{json, Value};

use super::answer::{answer_text, coordinates};
use crate::AnswerFormat;
use game::othello::{Bitboard, Board, Color, Labels, Perspective, Square, TextStyle};

/// What a rules probe asks about a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RulesQuestion {
    /// Every legal move of the side to move.
    LegalMoves,
    /// The board after the side to move plays this square.
    AfterMove(Square),
}

/// The cells of a board as an answer gives them, a1..h8 row-major (`None`: empty).
pub type Cells = [Option<Color>; 64];

/// The user message for `question` about `board` (the board text without the legal
/// moves, then the question), in `style`'s language, asking for JSON unless `format`
/// is text.
pub fn rules_question(question: RulesQuestion, board: &Board, style: TextStyle, format: AnswerFormat) -> String {
    let english = style.labels == Labels::English;
    let side = board.side_to_move();
    let name = |color: Color| match (english, color) {
        (true, Color::Black) => "Black",
        (true, Color::White) => "White",
        (false, Color::Black) => "黒",
        (false, Color::White) => "白",
    };
    let json = format != AnswerFormat::Text;
    let ask = match (question, english) {
        (RulesQuestion::LegalMoves, true) => format!(
            "List every legal move for {}: each empty square where a disc flips at least one disc. {}",
            name(side),
            if json {
                "Answer as JSON: {\"moves\": [\"<square>\", ...]}."
            } else {
                "Answer with the squares separated by commas, each a column letter (a to h) then a row number (1 to 8)."
            }
        ),
        (RulesQuestion::LegalMoves, false) => format!(
            "{}が置ける位置をすべて挙げてください。{}",
            name(side),
            if json {
                "JSON {\"moves\": [\"座標\", ...]} で答えてください。"
            } else {
                "座標（列 a〜h、行 1〜8）をカンマで区切って答えてください。"
            }
        ),
        (RulesQuestion::AfterMove(square), true) => format!(
            "{} plays {square}. Write the board after this move: {} {}",
            name(side),
            letters_english(style.perspective),
            if json {
                "Answer as JSON: {\"rows\": [\"<row 1>\", ..., \"<row 8>\"]}, each row 8 characters from a to h."
            } else {
                "Answer with the 8 rows as the board above is written (row number, then a to h)."
            }
        ),
        (RulesQuestion::AfterMove(square), false) => format!(
            "{}が {square} に置きます。置いた後の盤面を書いてください。{}{}",
            name(side),
            letters_japanese(style.perspective),
            if json {
                "JSON {\"rows\": [\"1行目\", ..., \"8行目\"]}（各行 a から h の8文字）で答えてください。"
            } else {
                "上の盤面と同じ形（行番号、a から h）で8行を答えてください。"
            }
        ),
    };
    format!("{}\n\n{ask}", board.to_text_without_moves(style))
}

fn letters_english(perspective: Perspective) -> &'static str {
    match perspective {
        Perspective::Absolute => "B for black, W for white, . for empty.",
        Perspective::Relative => "B for the discs of the side that moved, W for the opponent's, . for empty.",
    }
}

fn letters_japanese(perspective: Perspective) -> &'static str {
    match perspective {
        Perspective::Absolute => "B は黒、W は白、. は空き。",
        Perspective::Relative => "B は置いた側の石、W は相手の石、. は空き。",
    }
}

/// The JSON schema a structured answer to `question` is held to.
pub fn rules_schema(question: RulesQuestion) -> Value {
    match question {
        RulesQuestion::LegalMoves => json!({
            "type": "object",
            "properties": {"moves": {"type": "array", "items": {"type": "string", "pattern": "^[a-h][1-8]$"}}},
            "required": ["moves"],
        }),
        RulesQuestion::AfterMove(_) => json!({
            "type": "object",
            "properties": {"rows": {
                "type": "array", "minItems": 8, "maxItems": 8,
                "items": {"type": "string", "pattern": "^[BW.]{8}$"},
            }},
            "required": ["rows"],
        }),
    }
}

/// The JSON object of an answer: the text after `</think>`, fences and prose around
/// the outermost braces left out.
fn json_object<T: for<'de> Deserialize<'de>>(content: &str) -> Option<T> {
    let text = answer_text(content);
    let (start, end) = (text.find('{')?, text.rfind('}')?);
    serde_json::from_str(text.get(start..=end)?).ok()
}

/// The squares a legal-move answer names (as a set: a repeated square counts once);
/// `None` when a JSON answer is not the JSON asked for. A text answer naming no square
/// is an empty list.
pub fn read_move_list(content: &str, format: AnswerFormat) -> Option<Bitboard> {
    let squares = if format == AnswerFormat::Text {
        coordinates(answer_text(content))
    } else {
        #[derive(Deserialize)]
        struct Moves {
            moves: Vec<String>,
        }
        let moves: Moves = json_object(content)?;
        moves.moves.iter().filter_map(|s| s.trim().parse().ok()).collect()
    };
    Some(Bitboard(squares.iter().fold(0, |bits, s| bits | 1u64 << s.index())))
}

/// The board an after-move answer writes, its letters read as the question stated
/// them (`perspective`; `mover` is the side that moved); `None` when no 8 rows of 8
/// cells can be read. A text answer's last 8 such lines count (a model may first copy
/// the board it was given).
pub fn read_board(content: &str, format: AnswerFormat, perspective: Perspective, mover: Color) -> Option<Cells> {
    let rows: Vec<String> = if format == AnswerFormat::Text {
        let lines: Vec<String> = answer_text(content).lines().filter_map(row_cells).collect();
        lines[lines.len().checked_sub(8)?..].to_vec()
    } else {
        #[derive(Deserialize)]
        struct Rows {
            rows: Vec<String>,
        }
        let rows: Rows = json_object(content)?;
        rows.rows.iter().map(|r| row_cells(r)).collect::<Option<Vec<_>>>()?
    };
    if rows.len() != 8 {
        return None;
    }
    let own = match perspective {
        Perspective::Absolute => Color::Black,
        Perspective::Relative => mover,
    };
    let mut cells: Cells = [None; 64];
    for (index, cell) in rows.concat().chars().enumerate() {
        cells[index] = match cell {
            'B' => Some(own),
            'W' => Some(!own),
            _ => None,
        };
    }
    Some(cells)
}

/// A row's 8 cells (`B`, `W`, `.`, upper-cased), from a line that may start with its
/// row number and space its cells; `None` when the line is no such row.
fn row_cells(line: &str) -> Option<String> {
    let line = line.trim();
    let line = line.strip_prefix(|c: char| ('1'..='8').contains(&c)).unwrap_or(line);
    let cells: String = line
        .chars()
        .filter(|c| !c.is_whitespace())
        .map(|c| c.to_ascii_uppercase())
        .collect();
    (cells.len() == 8 && cells.chars().all(|c| matches!(c, 'B' | 'W' | '.'))).then_some(cells)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_are_read_from_text_and_json() {
        let text = read_move_list("<think>e6?</think>d3, c4 and f5, d3", AnswerFormat::Text).unwrap();
        assert_eq!(text.to_string(), "d3, c4, f5");
        let json = read_move_list("```json\n{\"moves\": [\"e6\", \"zz\"]}\n```", AnswerFormat::Json).unwrap();
        assert_eq!(json.to_string(), "e6");
        assert_eq!(read_move_list("none", AnswerFormat::Text), Some(Bitboard(0)));
        assert_eq!(read_move_list("d3", AnswerFormat::Json), None);
    }

    #[test]
    fn boards_are_read_from_text_and_json_in_either_perspective() {
        let after = Board::new().play(game::othello::Move::Place("d3".parse().unwrap()));
        let text = after.to_text(TextStyle {
            labels: Labels::English,
            perspective: Perspective::Absolute,
        });
        let cells = read_board(&text, AnswerFormat::Text, Perspective::Absolute, Color::Black).unwrap();
        for square in Square::ALL {
            assert_eq!(cells[square.index()], after.disc_at(square), "{square}");
        }
        let rows: Vec<String> = text.lines().skip(1).take(8).filter_map(row_cells).collect();
        let relative = read_board(
            &json!({ "rows": rows }).to_string(),
            AnswerFormat::Json,
            Perspective::Relative,
            Color::White,
        )
        .unwrap();
        assert_eq!(
            relative[Square::ALL[27].index()],
            Some(Color::White),
            "d4 (B): the mover's, white"
        );
        assert_eq!(
            read_board("no board", AnswerFormat::Text, Perspective::Absolute, Color::Black),
            None
        );
    }

    #[test]
    fn the_question_shows_no_legal_moves() {
        let style = TextStyle {
            labels: Labels::English,
            perspective: Perspective::Absolute,
        };
        let asked = rules_question(RulesQuestion::LegalMoves, &Board::new(), style, AnswerFormat::Text);
        assert!(
            !asked.contains("Legal moves:") && asked.contains("Black to move"),
            "{asked}"
        );
        let asked = rules_question(
            RulesQuestion::AfterMove("d3".parse().unwrap()),
            &Board::new(),
            style,
            AnswerFormat::Json,
        );
        assert!(
            asked.contains("Black plays d3") && asked.contains("\"rows\""),
            "{asked}"
        );
    }
}
