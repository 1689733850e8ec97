//! `report`: writes [`runs::report_page`] (the results, charts and every game
//! replayable, in one self-contained HTML file) to `-o`.

use std::path::{Path, PathBuf};

use anyhow::Result;

use super::args::ReportArgs;
use super::inputs::open_runs;
use super::outputs::{check_output_flag, write_output};
use super::stats::{collect_groups, print_notes};
use super::stdout::outln;
use arena::logs_table;
use runs::{report_page, RateSettings};

pub(super) fn run(args: ReportArgs) -> Result<()> {
    let inputs: Vec<&Path> = args.paths.iter().map(PathBuf::as_path).collect();
    check_output_flag("-o", &args.output, args.overwrite, &inputs, &[])?;
    // Bundles are read as the run folders they hold (checked against their manifests).
    let opened = open_runs(&args.paths)?;
    let args = ReportArgs {
        paths: opened.paths.clone(),
        ..args
    };
    let groups = collect_groups(&args.paths)?;
    print_notes(&groups.logs.notes);
    let intrinsic = logs_table(&groups.logs)?;
    let rating = RateSettings::with_ladder(args.no_ladder);
    let (html, games) = report_page(&args.paths, &groups, &rating, Some(&intrinsic));
    write_output("-o", &args.output, html.as_bytes())?;
    outln!("wrote {} ({games} games)", args.output.display())?;
    Ok(())
}
