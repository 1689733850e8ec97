//! A weak-end direction tried on the calibration's games (docs/intrinsic.md, "Weak-end
//! directions tried"): blunders modelled apart from fine choices ([`stats::Mixture`]),
//! compared with the softmax and Regan's form by held-out log loss per rung, and its
//! blunder chance checked for the ladder's order. An analysis, not a check: it needs
//! the games `scripts/intrinsic-calibration.sh` writes to logs/intrinsic-calibration,
//! so it is ignored by default:
//!
//! ```text
//! BIN=target/release/othello-arena scripts/intrinsic-calibration.sh
//! cargo test --test integration intrinsic_mixture -- --ignored --nocapture
//! ```

use std::path::{Path, PathBuf};

use runs::{read_game_logs, DecisionFilter, Decisions, Ladder};
use stats::{fit_mixture, held_out_log_loss, mixture_held_out_log_loss, ChoiceModel};

/// One rung's row: ladder Elo, decisions, the three held-out losses, the mixture's fit.
struct Row {
    player: String,
    elo: f64,
    decisions: usize,
    losses: [f64; 3],
    e: f64,
    s: f64,
}

/// Pairs of `rows` (strongest first) whose blunder chances are in ladder order (the
/// weaker rung blunders more), out of all pairs.
fn pairs_in_order(rows: &[&Row]) -> (usize, usize) {
    let mut ordered = 0;
    let mut pairs = 0;
    for (i, a) in rows.iter().enumerate() {
        for b in &rows[i + 1..] {
            pairs += 1;
            ordered += usize::from(b.e > a.e);
        }
    }
    (ordered, pairs)
}

#[test]
#[ignore = "an analysis of logs/intrinsic-calibration (scripts/intrinsic-calibration.sh writes it)"]
fn blunders_modelled_apart_on_the_calibration_games() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let runs: Vec<PathBuf> = std::fs::read_dir(root.join("logs/intrinsic-calibration"))
        .expect("no logs/intrinsic-calibration: run scripts/intrinsic-calibration.sh first")
        .map(|entry| entry.unwrap().path())
        .collect();
    let logs = read_game_logs(&runs).unwrap();
    let decisions = Decisions::read(&logs, DecisionFilter::default()).unwrap();
    let ladder = Ladder::from_toml(&std::fs::read_to_string(root.join("docs/ladder-ratings.toml")).unwrap()).unwrap();
    let rows: Vec<Row> = ladder
        .rungs
        .iter()
        .filter_map(|rung| {
            let games = decisions.players.get(&rung.player)?;
            let (mixture, _) = fit_mixture(games.iter().flatten());
            let loss = |model| held_out_log_loss(games, model).unwrap();
            Some(Row {
                player: rung.player.clone(),
                elo: rung.elo,
                decisions: games.iter().map(Vec::len).sum(),
                losses: [
                    loss(ChoiceModel::Softmax),
                    loss(ChoiceModel::Regan),
                    mixture_held_out_log_loss(games).unwrap(),
                ],
                e: mixture.e,
                s: mixture.s,
            })
        })
        .collect();
    println!("| rung | ladder Elo | decisions | loss softmax | loss Regan | loss mixture | e | s |");
    println!("|---|---|---|---|---|---|---|---|");
    for r in &rows {
        println!(
            "| {} | {:.0} | {} | {:.4} | {:.4} | {:.4} | {:.3} | {:.2} |",
            r.player, r.elo, r.decisions, r.losses[0], r.losses[1], r.losses[2], r.e, r.s
        );
    }
    let mean = |i: usize| rows.iter().map(|r| r.losses[i]).sum::<f64>() / rows.len() as f64;
    let best = rows
        .iter()
        .filter(|r| r.losses[2] < r.losses[0].min(r.losses[1]))
        .count();
    println!(
        "mean held-out loss over {} rungs: softmax {:.4}, Regan {:.4}, mixture {:.4}; the mixture best on {best}",
        rows.len(),
        mean(0),
        mean(1),
        mean(2)
    );
    let weak: Vec<&Row> = rows.iter().filter(|r| r.elo < 310.0).collect();
    let all: Vec<&Row> = rows.iter().collect();
    let (weak_ordered, weak_pairs) = pairs_in_order(&weak);
    let (ordered, pairs) = pairs_in_order(&all);
    println!(
        "pairs in ladder order by e: {weak_ordered} of {weak_pairs} among the {} rungs below 310 Elo, {ordered} of {pairs} over all",
        weak.len()
    );
    assert!(rows.iter().all(|r| r.losses.iter().all(|l| l.is_finite())));
}
