//! The server over in-memory input and output (the process is tested in the
//! integration tests).

use super::*;

/// Serves `input` with `spec`: (replies, error lines).
fn run(protocol: Protocol, spec: &str, input: &[u8]) -> (String, String) {
    let (mut output, mut errors) = (Vec::new(), Vec::new());
    serve(protocol, spec.parse().unwrap(), 1, input, &mut output, &mut errors).unwrap();
    (String::from_utf8(output).unwrap(), String::from_utf8(errors).unwrap())
}

#[test]
fn gtp_commands_are_answered_as_edax_answers_them() {
    let (out, err) = run(
        Protocol::Gtp,
        "greedy",
        b"1 name\nplay black d3\n2 play black c4\nboxsize\n\n# comment\ngenmove white\nquit\nname\n",
    );
    assert_eq!(
        out,
        "=1 othello-arena greedy\n\n= \n\n?2 wrong color\n\n? unknown command\n\n= c3\n\n= \n\n"
    );
    assert!(err.is_empty(), "{err}");
}

#[test]
fn an_over_long_line_is_refused_in_each_protocol_and_the_next_answered() {
    let mut input = vec![b'x'; COMMAND_LINE_CAP + 1];
    input.extend_from_slice(b"\nname\n");
    let (out, _) = run(Protocol::Gtp, "greedy", &input);
    assert_eq!(
        out,
        "? input line 1 is longer than 65536 bytes, the most a line may hold; it was skipped up to its newline\n\n\
         = othello-arena greedy\n\n"
    );
    let mut input = b"set game ".to_vec();
    input.extend(vec![b'x'; COMMAND_LINE_CAP]);
    input.extend_from_slice(b"\ngo\nping 1\n");
    let (out, err) = run(Protocol::Nboard, "greedy", &input);
    assert_eq!(out, "pong 1\n");
    assert_eq!(
        err,
        "Error: input line 1 is longer than 65536 bytes, the most a line may hold; it was skipped up to its newline; \
         no position is held now, as the line may have been a set game\n\
         Error: no position: the last set game was refused; send set game with a GGF record this engine reads\n"
    );
}

#[test]
fn a_refused_set_game_leaves_no_position_until_the_next_one() {
    let good = "(;GM[Othello]BO[8 ---------------------------O*------*O--------------------------- *]B[f5];)";
    let input = format!(
        "set game (;GM[Othello]BO[8 ---------------------------O*------*O--------------------------- *]B[a1];)\n\
         go\nhint 2\nmove d6\nset game (;GM[Othello]B[zz\nset game {good}\ngo\n"
    );
    let (out, err) = run(Protocol::Nboard, "greedy", input.as_bytes());
    let errors: Vec<&str> = err.lines().collect();
    assert_eq!(errors.len(), 5, "{err}");
    assert!(errors[0].starts_with("Error: cannot play game (;GM[Othello]"), "{err}");
    assert!(errors[0].ends_with("; no position is held now"), "{err}");
    for line in &errors[1..3] {
        assert!(
            line.starts_with("Error: no position: the last set game was refused"),
            "{err}"
        );
    }
    assert!(
        errors[3].starts_with("Error: cannot play move d6: no position"),
        "{err}"
    );
    assert!(errors[4].starts_with("Error: set game: "), "{err}");
    // Only the last go, after a good set game, is answered: greedy as white after f5.
    let replies: Vec<&str> = out.lines().collect();
    assert_eq!(replies.len(), 3, "{out}");
    assert!(replies[1].starts_with("=== f6 2.00 "), "{out}");
}

#[test]
fn set_depth_outside_one_to_sixty_is_refused_and_the_spec_keeps_its_depth() {
    let (out, err) = run(
        Protocol::Nboard,
        "alphabeta:2",
        b"set depth 0\nset depth 99\nset depth 60\n",
    );
    assert_eq!(out, "set myname othello-arena alphabeta:2:weight\n");
    assert_eq!(
        err,
        "Error: set depth 0 refused: give a depth from 1 to 60; this engine plays alphabeta:2:weight at the depth its spec sets, whatever set depth says\n\
         Error: set depth 99 refused: give a depth from 1 to 60; this engine plays alphabeta:2:weight at the depth its spec sets, whatever set depth says\n"
    );
}

#[test]
fn a_person_is_not_served_and_errors_are_send_and_sync() {
    let err = serve(Protocol::Gtp, EngineSpec::Human, 1, &b""[..], Vec::new(), Vec::new()).unwrap_err();
    assert!(err.to_string().contains("give an engine spec"), "{err}");
    fn check<T: Send + Sync>() {}
    check::<ServeError>();
}
