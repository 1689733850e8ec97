//! Marubatsu engine tests: each rule's defining behaviour,
//! seeded tie-breaking, the perfect player, specs, and the seed's tables (ignored).

use std::collections::BTreeSet;

use super::*;
use game::marubatsu::{Board, IllegalMove, MarkPattern, Move, ParseBoardError, ParseMoveError};
use game::othello::{ByColor, Color, Outcome};

fn board(squares: &str) -> Board {
    Board::parse_squares(squares).unwrap_or_else(|e| panic!("{e}"))
}

fn mv(text: &str) -> Move {
    text.parse().unwrap()
}

fn moves(texts: &[&str]) -> BTreeSet<Move> {
    texts.iter().map(|t| mv(t)).collect()
}

/// Every move `rule` picks on `board` over `seeds` seeds.
fn choices(rule: Rule, board: &Board, seeds: u64) -> BTreeSet<Move> {
    (0..seeds)
        .map(|seed| RuleEngine::new(rule, seed).choose(board))
        .collect()
}

/// One game, 〇 first; panics if a player breaks the rules.
fn play_game(o: &mut dyn MarubatsuEngine, x: &mut dyn MarubatsuEngine) -> Outcome {
    let mut board = Board::new();
    loop {
        if let Some(outcome) = board.outcome() {
            return outcome;
        }
        let (chosen, name) = match board.side_to_move() {
            Color::Black => (o.choose(&board), o.name()),
            Color::White => (x.choose(&board), x.name()),
        };
        board = board
            .try_play(chosen)
            .unwrap_or_else(|e| panic!("{name} broke the rules: {e}"));
    }
}

/// Wins, losses and draws of one side.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Record {
    win: u32,
    lose: u32,
    draw: u32,
}

impl Record {
    fn add(&mut self, outcome: Outcome, me: Color) {
        match outcome {
            Outcome::Win(c) if c == me => self.win += 1,
            Outcome::Win(_) => self.lose += 1,
            Outcome::Draw => self.draw += 1,
        }
    }
}

/// Seed 003's `ai_match`: `games` games with `first` as 〇, then `games` as ×, from
/// `first`'s view. Each side keeps one engine (one random stream) for the match.
fn ai_match(first: &str, second: &str, games: u32, seed: u64) -> ByColor<Record> {
    let first: MarubatsuSpec = first.parse().unwrap();
    let second: MarubatsuSpec = second.parse().unwrap();
    let (mut a, mut b) = (first.build(seed), second.build(seed ^ 0x9e37_79b9_7f4a_7c15));
    let mut records = ByColor::<Record>::default();
    for _ in 0..games {
        records.black.add(play_game(&mut *a, &mut *b), Color::Black);
        records.white.add(play_game(&mut *b, &mut *a), Color::White);
    }
    records
}

// ---- rule engines ----

#[test]
fn ai1_takes_the_first_free_square_row_by_row() {
    let mut ai = RuleEngine::new(Rule::Ai1, 0);
    assert_eq!(ai.choose(&Board::new()), mv("a1"));
    assert_eq!(ai.choose(&board("O--------")), mv("b1"));
    assert_eq!(ai.choose(&board("OXO X-- ---")), mv("b2"));
}

#[test]
fn ai2_covers_every_legal_move_and_repeats_with_its_seed() {
    let empty = Board::new();
    assert_eq!(choices(Rule::Ai2, &empty, 200).len(), 9);
    let b = board("OX- -O- --X");
    assert_eq!(choices(Rule::Ai2, &b, 200), b.legal_moves().iter().collect());
    let run = |seed| {
        let mut ai = RuleEngine::new(Rule::Ai2, seed);
        (0..20).map(|_| ai.choose(&empty)).collect::<Vec<_>>()
    };
    assert_eq!(run(5), run(5));
    assert_ne!(run(5), run(6));
}

#[test]
fn ai3_takes_the_centre_else_anything() {
    assert_eq!(choices(Rule::Ai3, &Board::new(), 50), moves(&["b2"]));
    let b = board("---- O----");
    assert_eq!(choices(Rule::Ai3, &b, 200).len(), 8);
}

#[test]
fn ai4_takes_the_centre_then_corners_in_order() {
    assert_eq!(choices(Rule::Ai4, &Board::new(), 50), moves(&["b2"]));
    assert_eq!(choices(Rule::Ai4, &board("---- O----"), 50), moves(&["a1"]));
    assert_eq!(choices(Rule::Ai4, &board("X-- -O- ---"), 50), moves(&["c1"]));
    assert_eq!(
        choices(Rule::Ai4, &board("O-X -X- O-O"), 100),
        moves(&["b1", "a2", "c2", "b3"])
    );
}

#[test]
fn ai5_wins_when_it_can() {
    // 〇 can win on c1 (row 1) or a3 (column a), where × also threatens.
    let b = board("OO- OX- -XX");
    assert_eq!(b.side_to_move(), Color::Black);
    assert_eq!(choices(Rule::Ai5, &b, 100), moves(&["c1", "a3"]));
    // No win: anything.
    let quiet = board("O-- -X- ---");
    assert_eq!(choices(Rule::Ai5, &quiet, 300).len(), 7);
}

#[test]
fn ai6_blocks_and_ai5_does_not() {
    // 〇 a1 c1, × a2 b2; 〇 to move: it wins at b1 before blocking c2.
    let b = board("O-O XX- ---");
    assert_eq!(choices(Rule::Ai6, &b, 50), moves(&["b1"]));
    let b = board("O-- XX- O--");
    // 〇 a1 a3, × a2 b2: 〇 has no win (column a is blocked), × threatens c2.
    assert_eq!(choices(Rule::Ai6, &b, 50), moves(&["c2"]));
    assert_eq!(choices(Rule::Ai7, &b, 50), moves(&["c2"]));
    assert!(choices(Rule::Ai5, &b, 300).len() > 1);
}

#[test]
fn ai6_blocks_one_side_of_a_fork_but_ai6s_gives_up() {
    // 〇 c1 a3 c3, × b2 c2 b3, 〇 to move: × threatens b1 and a2 at once.
    let b = board("--O -XX OXO");
    assert_eq!(b.side_to_move(), Color::Black);
    let threats: BTreeSet<Move> = b.winning_squares(Color::White).iter().collect();
    assert_eq!(threats, moves(&["b1", "a2"]));
    let own_wins: BTreeSet<Move> = b.winning_squares(Color::Black).iter().collect();
    assert!(own_wins.is_empty(), "{own_wins:?}");
    assert_eq!(choices(Rule::Ai6, &b, 100), threats);
    // Every move leaves × a win, so ai6s scores them all -1 and picks any.
    assert_eq!(choices(Rule::Ai6s, &b, 200), b.legal_moves().iter().collect());
}

/// Positions reached by random play, each with a legal move.
fn random_positions(count: u64) -> Vec<Board> {
    let mut out = Vec::new();
    for seed in 0..count {
        let mut ai = RuleEngine::new(Rule::Ai2, seed);
        let mut b = Board::new();
        while b.outcome().is_none() {
            out.push(b);
            b = b.play(ai.choose(&b));
        }
    }
    out
}

#[test]
fn ai6s_never_leaves_an_immediate_win_when_it_can_avoid_it() {
    let leaves_win = |b: &Board, m: Move| {
        let after = b.play(m);
        after.outcome().is_none() && !after.winning_squares(after.side_to_move()).is_empty()
    };
    for rule in [
        Rule::Ai6s,
        Rule::Ai7s,
        Rule::Ai8s,
        Rule::Ai9s,
        Rule::Ai10s { bonus: 1 },
        Rule::Ai11s,
    ] {
        let mut ai = RuleEngine::new(rule, 3);
        for b in random_positions(300) {
            let me = b.side_to_move();
            let chosen = ai.choose(&b);
            // The centre comes first for all but ai6s, even before a win.
            let centre_first = rule != Rule::Ai6s && b.is_legal(Move::CENTER);
            if centre_first {
                assert_eq!(chosen, Move::CENTER, "{rule}\n{b}");
                continue;
            }
            if !b.winning_squares(me).is_empty() {
                assert!(b.winning_squares(me).contains(chosen), "{rule} missed a win\n{b}");
                continue;
            }
            let avoidable = b.legal_moves().iter().any(|m| !leaves_win(&b, m));
            if avoidable {
                assert!(!leaves_win(&b, chosen), "{rule} chose {chosen}, leaving a win\n{b}");
            }
        }
    }
}

#[test]
fn ai7_and_ai7s_take_the_centre_first() {
    for rule in [
        Rule::Ai7,
        Rule::Ai7s,
        Rule::Ai8s,
        Rule::Ai9s,
        Rule::Ai10s { bonus: 1 },
        Rule::Ai11s,
    ] {
        assert_eq!(choices(rule, &Board::new(), 30), moves(&["b2"]), "{rule}");
        assert_eq!(choices(rule, &board("O--------"), 30), moves(&["b2"]), "{rule}");
    }
}

#[test]
fn ai8s_makes_a_two_and_ai9s_prefers_a_fork() {
    // 〇 a1 b2, × b1 c3, 〇 to move: no win, no threat. a2 and a3 make two
    // 「自 2 敵 0 空 1」 (forks); c1 and c2 make one.
    let b = board("OX- -O- --X");
    let own_two = |m: Move| b.play(m).count_patterns(Color::Black).get(MarkPattern::OWN_TWO);
    let makers: BTreeSet<Move> = b.legal_moves().iter().filter(|&m| own_two(m) >= 1).collect();
    let forks: BTreeSet<Move> = b.legal_moves().iter().filter(|&m| own_two(m) >= 2).collect();
    assert_eq!(makers, moves(&["c1", "a2", "c2", "a3"]));
    assert_eq!(forks, moves(&["a2", "a3"]));
    assert_eq!(choices(Rule::Ai8s, &b, 300), makers);
    assert_eq!(choices(Rule::Ai9s, &b, 300), forks);
    assert_eq!(choices(Rule::Ai7s, &b, 300), b.legal_moves().iter().collect());
}

#[test]
fn scored_rules_follow_the_seed_value_tables() {
    let e = |rule: Rule, b: &Board, m: &str| rule.evaluate(b, mv(m)).unwrap();
    let empty = Board::new();
    assert_eq!(e(Rule::Ai9s, &empty, "b2"), 4);
    assert_eq!(e(Rule::Ai11s, &empty, "b2"), 300);
    // ai10s counts 「自 1 敵 0 空 2」: a corner opens three lines, an edge two.
    assert_eq!(e(Rule::Ai10s { bonus: 1 }, &empty, "a1"), 3);
    assert_eq!(e(Rule::Ai10s { bonus: 1 }, &empty, "b1"), 2);
    // ai11s also subtracts 「自 0 敵 1 空 2」: after 〇 b2, × a1 scores 2 - 3, × b1 1 - 3.
    let b = board("---- O----");
    assert_eq!(e(Rule::Ai11s, &b, "a1"), -1);
    assert_eq!(e(Rule::Ai11s, &b, "b1"), -2);
    assert_eq!(e(Rule::Ai10s { bonus: 1 }, &b, "a1"), 2);
    assert_eq!(choices(Rule::Ai11s, &b, 200), moves(&["a1", "c1", "a3", "c3"]));
    // A single 「自 2 敵 0 空 1」: A plus the open lines.
    let b = board("OX- -O- --X");
    // 〇 c1: one two (c1-b2-a3) and two open lines (column a, row 2).
    assert_eq!(e(Rule::Ai10s { bonus: 1 }, &b, "c1"), 1 + 2);
    assert_eq!(e(Rule::Ai10s { bonus: 5 }, &b, "c1"), 5 + 2);
    assert_eq!(e(Rule::Ai11s, &b, "c1"), 1 + 2 - 1, "row 3 is ×'s open line");
    assert_eq!(e(Rule::Ai10s { bonus: 1 }, &b, "a2"), 100);
    assert_eq!(e(Rule::Ai9s, &b, "a2"), 2);
    assert_eq!(e(Rule::Ai8s, &b, "a2"), 1);
    // A win and a move that leaves the opponent a win.
    let b = board("O-O XX- ---");
    assert_eq!(e(Rule::Ai8s, &b, "b1"), 2);
    assert_eq!(e(Rule::Ai11s, &b, "b1"), 200);
    assert_eq!(e(Rule::Ai11s, &b, "a3"), -100);
    assert_eq!(e(Rule::Ai6s, &b, "a3"), -1);
    assert_eq!(Rule::Ai6.evaluate(&b, mv("b1")), None);
    assert!(Rule::Ai6s.is_scored() && !Rule::Ai7.is_scored());
}

#[test]
fn ai_by_score_breaks_ties_with_its_seeded_generator() {
    use rand::SeedableRng;
    let b = board("OX- -O- --X");
    let legal: BTreeSet<Move> = b.legal_moves().iter().collect();
    let pick = |seed| ai_by_score(&b, |_| 7, &mut rand_chacha::ChaCha8Rng::seed_from_u64(seed));
    let seen: BTreeSet<Move> = (0..200).map(pick).collect();
    assert_eq!(seen, legal);
    assert_eq!(
        (0..50).map(pick).collect::<Vec<_>>(),
        (0..50).map(pick).collect::<Vec<_>>()
    );
    // The highest score wins outright.
    let best = ai_by_score(
        &b,
        |m| i32::from(m == mv("c2")),
        &mut rand_chacha::ChaCha8Rng::seed_from_u64(1),
    );
    assert_eq!(best, mv("c2"));
}

// ---- perfect ----

#[test]
fn the_empty_board_is_a_draw() {
    assert_eq!(Perfect::value(&Board::new()), 0);
    assert!(Perfect::score_moves(&Board::new()).iter().all(|&(_, v)| v == 0));
    // After a corner, only the centre holds the draw; after the centre, only corners.
    let corner = Perfect::score_moves(&board("O--------"));
    assert_eq!(
        corner
            .iter()
            .filter(|&&(_, v)| v == 0)
            .map(|&(m, _)| m)
            .collect::<Vec<_>>(),
        [mv("b2")]
    );
    assert!(corner.iter().all(|&(m, v)| m == mv("b2") || v == -1));
    let centre = Perfect::score_moves(&board("---- O----"));
    let holding: BTreeSet<Move> = centre.iter().filter(|&&(_, v)| v == 0).map(|&(m, _)| m).collect();
    assert_eq!(holding, Move::CORNERS.into_iter().collect());
    assert!(Perfect::score_moves(&board("OOO XX- ---")).is_empty());
}

#[test]
fn perfect_takes_the_quickest_win() {
    // 〇 wins now on b1, or later through other moves; it takes b1.
    let b = board("O-O XX- ---");
    assert_eq!(
        (0..20).map(|s| Perfect::new(s).choose(&b)).collect::<BTreeSet<_>>(),
        moves(&["b1"])
    );
    assert!(Perfect::score_moves(&b).contains(&(mv("b1"), 1)));
    // Facing a fork, every move loses at once: all tie, and the seed picks among them.
    let fork = board("--O -XX OXO");
    assert_eq!(Perfect::value(&fork), -1);
    assert!(Perfect::score_moves(&fork).iter().all(|&(_, v)| v == -1));
    let chosen: BTreeSet<Move> = (0..50).map(|s| Perfect::new(s).choose(&fork)).collect();
    assert_eq!(chosen, fork.legal_moves().iter().collect());
    // A lost side takes the slowest loss: × (b1) must block c3, or lose at once.
    let lost = board("OX- -O- ---");
    assert_eq!(Perfect::value(&lost), -1);
    assert!(Perfect::score_moves(&lost).iter().all(|&(_, v)| v == -1));
    assert_eq!(
        (0..20).map(|s| Perfect::new(s).choose(&lost)).collect::<BTreeSet<_>>(),
        moves(&["c3"])
    );
}

#[test]
fn perfect_never_loses_to_any_rule_as_either_side() {
    let mut specs: Vec<String> = Rule::ALL.iter().map(|r| r.to_string()).collect();
    specs.push("ai10s:5".to_string());
    specs.push("perfect".to_string());
    for spec in &specs {
        let records = ai_match("perfect", spec, 300, 11);
        assert_eq!(
            records.black.lose + records.white.lose,
            0,
            "perfect lost to {spec}: {records:?}"
        );
        if spec == "perfect" {
            assert_eq!(records.black.draw + records.white.draw, 600);
        }
    }
    // Against random play it wins most games as 〇.
    let vs_random = ai_match("perfect", "ai2", 1000, 2);
    assert!(vs_random.black.win > 950, "{vs_random:?}");
}

// ---- specs ----

#[test]
fn specs_parse_to_canonical_names() {
    for (text, canonical) in [
        ("ai1", "ai1"),
        ("AI1S", "ai1"),
        ("random", "ai2"),
        ("ai2s", "ai2"),
        ("ai5s", "ai5"),
        ("ai6", "ai6"),
        ("ai6s", "ai6s"),
        ("ai7", "ai7"),
        ("ai7s", "ai7s"),
        (" ai8s ", "ai8s"),
        ("ai9s", "ai9s"),
        ("ai10s", "ai10s"),
        ("ai10s:1", "ai10s"),
        ("ai10s:5", "ai10s:5"),
        ("ai11s", "ai11s"),
        ("Perfect", "perfect"),
    ] {
        let spec: MarubatsuSpec = text.parse().unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(spec.to_string(), canonical);
        assert_eq!(spec.build(1).name(), canonical);
        assert_eq!(canonical.parse::<MarubatsuSpec>().unwrap(), spec);
    }
    for rule in Rule::ALL {
        assert_eq!(
            rule.to_string().parse::<MarubatsuSpec>().unwrap(),
            MarubatsuSpec::Rule(rule)
        );
    }
}

#[test]
fn bad_specs_name_the_problem_and_the_valid_specs() {
    for (text, reason) in [
        ("", "empty"),
        ("ai12", "unknown engine"),
        ("minimax", "unknown engine"),
        ("ai8", "only the scored ai8s"),
        ("ai10s:0", "from 1 to 50"),
        ("ai10s:x", "from 1 to 50"),
        ("ai9s:2", "takes no parameters"),
        ("perfect:1", "takes no parameters"),
    ] {
        let err = text.parse::<MarubatsuSpec>().unwrap_err();
        let msg = err.to_string();
        assert!(
            msg.contains(reason) && msg.contains(VALID_SPECS) && msg.contains(&format!("{text:?}")),
            "{msg}"
        );
    }
}

#[test]
fn engines_are_send() {
    fn send<T: Send>(_: &T) {}
    send(&"ai11s".parse::<MarubatsuSpec>().unwrap().build(0));
    fn error<T: std::error::Error + Send + Sync>() {}
    error::<IllegalMove>();
    error::<ParseBoardError>();
    error::<ParseMoveError>();
    error::<ParseMarubatsuSpecError>();
}

#[test]
fn squares_strings_round_trip_over_random_games() {
    for seed in 0..200 {
        let mut engine = RuleEngine::new(Rule::Ai2, seed);
        let mut b = Board::new();
        while b.outcome().is_none() {
            assert_eq!(Board::parse_squares(&b.to_squares_string()).unwrap(), b);
            b = b.play(engine.choose(&b));
        }
        assert_eq!(Board::parse_squares(&b.to_squares_string()).unwrap(), b);
    }
    assert_eq!(board("o.x 〇_× ---"), board("O-X O-X ---"));
}
