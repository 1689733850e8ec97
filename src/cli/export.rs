//! `export`: finished games as GGF records or move transcripts, one game a line, to
//! `-o` (through the output check: never onto a run's files) or stdout.

use std::path::{Path, PathBuf};

use anyhow::Result;

use super::args::{ExportArgs, ExportFormat};
use super::inputs::open_runs;
use super::outputs::{check_output_flag, write_output};
use super::stats::print_notes;
use super::stdout::out;
use runs::{ggf, read_game_logs, transcript};

pub(super) fn run(args: ExportArgs) -> Result<()> {
    let inputs: Vec<&Path> = args.paths.iter().map(PathBuf::as_path).collect();
    if let Some(output) = &args.output {
        check_output_flag("-o", output, args.overwrite, &inputs, &[])?;
    }
    let opened = open_runs(&args.paths)?;
    let logs = read_game_logs(&opened.paths)?;
    print_notes(&logs.notes);
    let mut text = String::new();
    let mut skipped = Vec::new();
    for game in &logs.games {
        let line = match args.format {
            ExportFormat::Ggf => ggf(game),
            ExportFormat::Transcript => transcript(game),
        };
        match line {
            Ok(line) => {
                text.push_str(&line);
                text.push('\n');
            }
            Err(err) => skipped.push(err.to_string()),
        }
    }
    let written = logs.games.len() - skipped.len();
    for reason in &skipped {
        eprintln!("not exported: {reason}");
    }
    match &args.output {
        Some(output) => {
            write_output("-o", output, text.as_bytes())?;
            eprintln!("wrote {} ({written} of {} games)", output.display(), logs.games.len());
        }
        None => out!("{text}")?,
    }
    Ok(())
}
