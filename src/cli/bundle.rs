//! `bundle RUN-DIR... -o FILE` seals runs in one result bundle; `verify FILE|RUN-DIR`
//! checks one (both are the library's: [`runs::write_bundle`], [`arena::verify`]).

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result};

use super::args::{BundleArgs, VerifyArgs};
use super::outputs::check_output_flag;
use super::stdout::outln;

pub(super) fn run_bundle(args: BundleArgs) -> Result<()> {
    let inputs: Vec<&Path> = args.runs.iter().map(PathBuf::as_path).collect();
    check_output_flag("-o", &args.output, args.overwrite, &inputs, &[])?;
    if args.output.is_file() {
        // Checked above: an empty file, or --force.
        std::fs::remove_file(&args.output).with_context(|| format!("cannot replace -o {}", args.output.display()))?;
    }
    let started = Instant::now();
    let manifest = runs::write_bundle(&args.runs, &args.output)
        .with_context(|| format!("cannot write the bundle -o {}", args.output.display()))?;
    let bytes: u64 = manifest.files.iter().map(|f| f.size).sum();
    let size = std::fs::metadata(&args.output).map_or(0, |m| m.len());
    outln!(
        "wrote {}: {} run(s), {} files ({bytes} bytes; {size} bytes compressed) in {:.1} s; check it with: \
         othello-arena verify {}",
        args.output.display(),
        manifest.runs.len(),
        manifest.files.len() + 1,
        started.elapsed().as_secs_f64(),
        args.output.display()
    )?;
    Ok(())
}

pub(super) fn run_verify(args: VerifyArgs) -> Result<()> {
    let started = Instant::now();
    let verified = arena::verify(&args.path)
        .with_context(|| format!("verify {}: the first thing that does not hold", args.path.display()))?;
    for note in &verified.notes {
        outln!("note: {note}")?;
    }
    outln!(
        "verified {}: {} run(s); {} files against the manifest; {} prompt texts against their hashes; {} games \
         ({} moves) replayed through the rules, {} engine moves chosen again from the games' seeds ({} moves of \
         models, people or external engines taken as logged); {} figures derived again from the games; all hold \
         ({:.1} s)",
        args.path.display(),
        verified.runs,
        verified.files,
        verified.prompts,
        verified.games,
        verified.moves,
        verified.engine_moves,
        verified.logged_moves,
        verified.figures,
        started.elapsed().as_secs_f64()
    )?;
    Ok(())
}
