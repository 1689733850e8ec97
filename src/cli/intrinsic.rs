//! `rate`'s intrinsic ratings: the players' valued decisions read, rated through the
//! calibration file, and with `--write-intrinsic` the calibration fitted and written.

use std::path::Path;

use anyhow::{Context, Result};

use super::args::RateArgs;
use super::inputs::{read_user_file, SETTINGS_CAP};
use super::outputs::write_output;
use super::rate::{beside_sources, DEFAULT_CALIBRATION};
use runs::{read_game_logs, Calibration, DecisionFilter, Decisions, IntrinsicTable, Ladder};

/// Resamples of each player's games for its intrinsic interval, at most.
const MAX_RESAMPLES: usize = 200;

/// The intrinsic table of the runs `args` names (writing the calibration first when
/// `--write-intrinsic` asks, from `ladder`'s rungs).
pub(super) fn table(args: &RateArgs, ladder: Option<(&str, &Ladder)>, bootstrap: usize) -> Result<IntrinsicTable> {
    let logs = read_game_logs(&args.paths)?;
    if logs.game != game::Game::Othello {
        return Ok(IntrinsicTable::uncalibrated(
            &Decisions::default(),
            format!("no intrinsic ratings for {}: the calibration is Othello's", logs.game),
        ));
    }
    if let (Some(path), Some((ladder_path, ladder))) = (&args.write_intrinsic, ladder) {
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
        let decisions = Decisions::read(&logs, filter)?;
        let calibration = Calibration::fit(&decisions, filter, ladder, source).context("bad --write-intrinsic")?;
        let text = format!(
            "# The calibration of intrinsic ratings (`othello-arena rate`): each rung's choice models fitted on\n\
             # its valued decisions, the model kept, and the map from its sensitivity to the ladder's Elo.\n{}",
            toml::to_string(&calibration).context("cannot write the calibration as TOML")?
        );
        write_output("--write-intrinsic", path, text.as_bytes())?;
    }
    let path = beside_sources(&args.intrinsic, DEFAULT_CALIBRATION);
    if args.intrinsic == Path::new(DEFAULT_CALIBRATION) && !path.exists() {
        return Ok(IntrinsicTable::uncalibrated(
            &Decisions::read(&logs, DecisionFilter::default())?,
            format!(
                "no intrinsic calibration at {DEFAULT_CALIBRATION}: rebuild it with scripts/intrinsic-calibration.sh"
            ),
        ));
    }
    let calibration = load_calibration(&path)?;
    let decisions = Decisions::read(&logs, calibration.decisions)?;
    Ok(IntrinsicTable::rate(
        &decisions,
        &calibration,
        bootstrap.min(MAX_RESAMPLES),
        args.seed,
    ))
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
