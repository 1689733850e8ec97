//! The intrinsic table of `rate`, `report` and `tournament` ([`runs::intrinsic_table`]
//! through the calibration file), and `rate --write-intrinsic`'s calibration fitted
//! and written.

use std::path::Path;

use anyhow::{Context, Result};

use super::args::RateArgs;
use super::args::DEFAULT_CALIBRATION;
use super::inputs::{beside_sources, read_user_file, SETTINGS_CAP};
use super::outputs::write_output;
use runs::{intrinsic_table, read_game_logs, Calibration, DecisionFilter, Decisions, GameLogs, IntrinsicTable, Ladder};

/// The intrinsic table of the runs `args` names (writing the calibration first when
/// `--write-intrinsic` asks, from `ladder`'s rungs).
pub(super) fn table(args: &RateArgs, ladder: Option<(&str, &Ladder)>, bootstrap: usize) -> Result<IntrinsicTable> {
    let logs = read_game_logs(&args.paths)?;
    if let (Some(path), Some((ladder_path, ladder)), game::Game::Othello) = (&args.write_intrinsic, ladder, logs.game) {
        write_calibration(args, &logs, path, ladder_path, ladder)?;
    }
    logs_table(&logs, &args.intrinsic, bootstrap, args.seed)
}

/// The intrinsic table of `logs` through the calibration at `path` (`--intrinsic`;
/// the shipped one when it is [`DEFAULT_CALIBRATION`], a note when that is missing).
pub(super) fn logs_table(logs: &GameLogs, path: &Path, resamples: usize, seed: u64) -> Result<IntrinsicTable> {
    let found = beside_sources(path, DEFAULT_CALIBRATION);
    let calibration = if path == Path::new(DEFAULT_CALIBRATION) && !found.exists() {
        Err(format!(
            "no intrinsic calibration at {DEFAULT_CALIBRATION}: rebuild it with scripts/intrinsic-calibration.sh"
        ))
    } else {
        Ok(load_calibration(&found)?)
    };
    Ok(intrinsic_table(
        logs,
        calibration.as_ref().map_err(Clone::clone),
        resamples,
        seed,
    )?)
}

/// `--write-intrinsic`: the calibration fitted on `ladder`'s rungs in `logs` and
/// written to `path`.
fn write_calibration(args: &RateArgs, logs: &GameLogs, path: &Path, ladder_path: &str, ladder: &Ladder) -> Result<()> {
    let filter = DecisionFilter {
        exact_only: args.intrinsic_exact,
        min_spread: args.intrinsic_min_spread,
    };
    let runs: Vec<String> = args.paths.iter().map(|p| p.display().to_string()).collect();
    let mut source = format!(
        "othello-arena rate {} --ladder {} --write-intrinsic {}",
        runs.join(" "),
        ladder_path,
        path.display()
    );
    if filter.exact_only {
        source.push_str(" --intrinsic-exact");
    }
    if filter.min_spread > 0.0 {
        source.push_str(&format!(" --intrinsic-min-spread {}", filter.min_spread));
    }
    let decisions = Decisions::read(logs, filter)?;
    let calibration = Calibration::fit(&decisions, filter, ladder, source).context("bad --write-intrinsic")?;
    let text = format!(
        "# The calibration of intrinsic ratings (`othello-arena rate`): each rung's choice models fitted on\n\
         # its valued decisions, the model kept, and the map from its sensitivity to the ladder's Elo.\n{}",
        toml::to_string(&calibration).context("cannot write the calibration as TOML")?
    );
    write_output("--write-intrinsic", path, text.as_bytes())
}

/// The calibration file at `path` (`--intrinsic`).
pub(super) fn load_calibration(path: &Path) -> Result<Calibration> {
    let text = read_user_file("--intrinsic", path, SETTINGS_CAP)?;
    toml::from_str(&text).with_context(|| {
        format!(
            "bad --intrinsic {}: write one with `othello-arena rate RUNS --ladder --write-intrinsic FILE`",
            path.display()
        )
    })
}
