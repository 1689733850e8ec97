//! Result bundles through the binary: `bundle` seals a tournament's run folder, `verify`
//! holds it, and every tampered copy fails `verify` with a message naming the file and
//! the figure. A tampered copy is re-sealed as a cheater would (a fresh manifest of the
//! edited files), so the check that finds it is the re-derivation, not the hashes;
//! the hostile archives (unlisted entries, `..` and absolute paths, links, 10 GB
//! claimed sizes) are written by hand.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::{Duration, Instant};

use crate::support::command::Eval;
use crate::support::{model_host, run_arena, run_tournament, temp_dir};
use serde_json::Value;
use sha2::{Digest, Sha256};

/// A round robin of three fast engines under an SPRT stop rule: 12 games at most.
const ENGINES: &str = "format = \"round-robin\"\nengines = [\"random\", \"greedy\", \"n-hand:1\"]\ngames = 4\n\
                       opening_random = 4\nseed = 3\nstop = \"sprt:0,50\"\n";

fn arena(args: &[&str]) -> Output {
    run_arena(args, "127.0.0.1:9")
}

fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// Bundles `run` into `out`.
fn bundle(run: &Path, out: &Path) {
    let made = arena(&["bundle", run.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert!(made.status.success(), "{}", text(&made));
}

/// `verify path`, which must fail; its message.
fn refused(path: &Path) -> String {
    let output = arena(&["verify", path.to_str().unwrap()]);
    assert!(
        !output.status.success(),
        "verify held a tampered bundle: {}",
        text(&output)
    );
    text(&output)
}

fn assert_names(message: &str, parts: &[&str]) {
    for part in parts {
        assert!(message.contains(part), "{part:?} not named in: {message}");
    }
}

/// The entries of a bundle, in order.
fn entries(path: &Path) -> Vec<(String, Vec<u8>)> {
    let file = std::fs::File::open(path).unwrap();
    let mut archive = tar::Archive::new(flate2::read::GzDecoder::new(file));
    archive
        .entries()
        .unwrap()
        .map(|e| {
            let mut e = e.unwrap();
            let name = e.path().unwrap().to_string_lossy().into_owned();
            let mut bytes = Vec::new();
            e.read_to_end(&mut bytes).unwrap();
            (name, bytes)
        })
        .collect()
}

/// One raw entry: `name` written into the header as given (no path checks), `size`
/// claimed, `data` written, of `kind`.
struct Raw<'a> {
    name: &'a str,
    size: u64,
    data: &'a [u8],
    kind: tar::EntryType,
}

/// Writes `entries` as a bundle at `out`, the manifest first re-sealed (each listed
/// file's size and SHA-256 as it now is) when `reseal`, then `raw` entries as given.
fn write(out: &Path, mut entries: Vec<(String, Vec<u8>)>, reseal: bool, raw: &[Raw<'_>]) {
    if reseal {
        let mut manifest: Value = serde_json::from_slice(&entries[0].1).unwrap();
        let files: Vec<Value> = entries[1..]
            .iter()
            .map(|(name, bytes)| {
                serde_json::json!({"path": name, "size": bytes.len(), "sha256": hex::encode(Sha256::digest(bytes))})
            })
            .collect();
        manifest["files"] = Value::Array(files);
        entries[0].1 = serde_json::to_vec_pretty(&manifest).unwrap();
    }
    let file = std::fs::File::create(out).unwrap();
    let mut tar = tar::Builder::new(flate2::write::GzEncoder::new(file, flate2::Compression::fast()));
    for (name, bytes) in &entries {
        let mut header = tar::Header::new_gnu();
        header.set_size(bytes.len() as u64);
        header.set_mode(0o644);
        tar.append_data(&mut header, name, &bytes[..]).unwrap();
    }
    for raw in raw {
        let mut header = tar::Header::new_old();
        header.as_old_mut().name[..raw.name.len()].copy_from_slice(raw.name.as_bytes());
        header.set_size(raw.size);
        header.set_mode(0o644);
        header.set_entry_type(raw.kind);
        header.set_cksum();
        tar.get_mut().write_all(header.as_bytes()).unwrap();
        tar.get_mut().write_all(raw.data).unwrap();
    }
    tar.into_inner().unwrap().finish().unwrap();
}

/// A copy of the bundle `sealed` at `out` with `edit` applied to the entry whose name
/// ends with `entry`, re-sealed.
fn tampered(sealed: &Path, out: &Path, entry: &str, edit: impl Fn(&str) -> String) -> PathBuf {
    let mut all = entries(sealed);
    let target = all
        .iter_mut()
        .find(|(name, _)| name.ends_with(entry))
        .expect("the entry exists");
    let edited = edit(&String::from_utf8(target.1.clone()).unwrap());
    assert_ne!(edited.as_bytes(), &target.1[..], "the edit changed {entry}");
    target.1 = edited.into_bytes();
    write(out, all, true, &[]);
    out.to_path_buf()
}

/// The first line of `log` that holds `needle` replaced by `with` there.
fn replace_first(text: &str, needle: &str, with: &str) -> String {
    text.replacen(needle, with, 1)
}

#[test]
fn a_sealed_tournament_verifies_and_each_tampered_copy_fails_naming_file_and_figure() {
    let dir = temp_dir("bundle", "tamper");
    let made = run_tournament(&dir, ENGINES, &[]);
    assert!(made.status.success(), "{}", text(&made));
    let run = dir.join("run");
    let sealed = dir.join("sealed.tar.gz");
    bundle(&run, &sealed);
    for path in [&sealed, &run] {
        let held = arena(&["verify", path.to_str().unwrap()]);
        assert!(held.status.success(), "{}", text(&held));
        assert_names(
            &text(&held),
            &["12 games", "moves) replayed", "figures derived again", "all hold"],
        );
    }
    let copy = |name: &str| dir.join(format!("{name}.tar.gz"));
    // A move changed in a log: white's reply at ply 6 of game 1 is no longer legal.
    let first_move = entries(&sealed)
        .into_iter()
        .find(|(name, _)| name.ends_with("game-0001.jsonl"))
        .map(|(_, bytes)| String::from_utf8(bytes).unwrap())
        .unwrap();
    let white: Value = serde_json::from_str(first_move.lines().nth(2).unwrap()).unwrap();
    let played = format!("\"move\":\"{}\"", white["move"].as_str().unwrap());
    let path = tampered(&sealed, &copy("move"), "game-0001.jsonl", |t| {
        replace_first(t, &played, "\"move\":\"a1\"")
    });
    assert_names(
        &refused(&path),
        &["runs/run/game-0001.jsonl", "ply 6", "illegal move a1"],
    );
    // A result changed: game 2's end names the other winner.
    let path = tampered(&sealed, &copy("result"), "game-0002.jsonl", |t| {
        replace_first(t, "\"winner\":\"black\"", "\"winner\":\"white\"")
    });
    assert_names(&refused(&path), &["runs/run/game-0002.jsonl", "winner"]);
    // A game removed from a pairing (the manifest re-sealed without it).
    let mut all = entries(&sealed);
    all.retain(|(name, _)| !name.ends_with("game-0003.jsonl"));
    write(&copy("removed"), all, true, &[]);
    assert_names(
        &refused(&copy("removed")),
        &["runs/run/game-0003.jsonl", "missing", "random vs greedy", "pair 2"],
    );
    // results.json's Elo edited.
    let path = tampered(&sealed, &copy("elo"), "results.json", |t| {
        let mut results: Value = serde_json::from_str(t).unwrap();
        let elo = &mut results["ratings"]["as_played"]["rows"][0]["elo"];
        *elo = Value::from(elo.as_f64().unwrap() + 25.0);
        serde_json::to_string_pretty(&results).unwrap()
    });
    assert_names(
        &refused(&path),
        &["runs/run/results.json", "ratings.as_played.rows[0].elo"],
    );
    // A stop decision's LLR edited.
    let path = tampered(&sealed, &copy("decision"), "decisions.jsonl", |t| {
        replace_first(t, "\"llr\":-0.", "\"llr\":-1.")
    });
    assert_names(&refused(&path), &["runs/run/decisions.jsonl", "line 1.decision.llr"]);
    // One opponent passed off as a stronger one: `n-hand:1` renamed `n-hand:2` in every
    // file of the run, so plan, logs and tables agree; only its moves give it away.
    let mut all = entries(&sealed);
    for (name, bytes) in all.iter_mut().filter(|(name, _)| name.starts_with("runs/")) {
        let renamed = String::from_utf8(bytes.clone())
            .unwrap()
            .replace("n-hand:1", "n-hand:2");
        *bytes = renamed.into_bytes();
        let _ = name;
    }
    write(&copy("renamed"), all, true, &[]);
    assert_names(
        &refused(&copy("renamed")),
        &[
            ".jsonl",
            "the log says n-hand:2 played",
            "n-hand:2 with the game's seed plays",
        ],
    );
    check_hostile_archives(&dir, &sealed);
}

/// Entries the manifest does not list, edits not re-sealed, `..` and absolute paths,
/// links and 10 GB claimed sizes: each refused naming the entry, nothing written
/// outside the folder the bundle is read into.
fn check_hostile_archives(dir: &Path, sealed: &Path) {
    let copy = |name: &str| dir.join(format!("{name}.tar.gz"));
    let raw = |name, size, data, kind| Raw { name, size, data, kind };
    let plain = tar::EntryType::Regular;
    // An added file the manifest does not list.
    write(
        &copy("unlisted"),
        entries(sealed),
        false,
        &[raw("runs/run/extra.txt", 3, b"hi\n", plain)],
    );
    assert_names(
        &refused(&copy("unlisted")),
        &["runs/run/extra.txt", "manifest does not list it"],
    );
    // An edit left unsealed: the hashes find it.
    let mut all = entries(sealed);
    all.iter_mut()
        .find(|(n, _)| n.ends_with("results.json"))
        .unwrap()
        .1
        .push(b' ');
    write(&copy("unsealed"), all, false, &[]);
    assert_names(
        &refused(&copy("unsealed")),
        &["runs/run/results.json", "size is", "manifest.json says"],
    );
    // `..`, an absolute path and a link.
    let escape = format!("../othello-bundle-escape-{}.txt", std::process::id());
    let absolute = std::env::temp_dir().join(format!("othello-bundle-absolute-{}.txt", std::process::id()));
    let absolute = absolute.to_str().unwrap().to_string();
    let cases = [
        (escape.as_str(), plain, "\"..\" part"),
        (absolute.as_str(), plain, "absolute"),
        ("runs/run/link", tar::EntryType::Symlink, "plain files only"),
    ];
    for (name, kind, says) in cases {
        write(
            &copy("hostile"),
            entries(sealed),
            false,
            &[raw(name, 5, b"evil\n", kind)],
        );
        assert_names(&refused(&copy("hostile")), &[name, says]);
    }
    assert!(
        !std::env::temp_dir().join(&escape[3..]).exists(),
        "a `..` entry was written"
    );
    assert!(!Path::new(&absolute).exists(), "an absolute entry was written");
    // 10 GB claimed: refused at the header, before any byte is read.
    write(
        &copy("huge"),
        entries(sealed),
        false,
        &[raw("runs/run/huge.jsonl", 10 << 30, b"", plain)],
    );
    let started = Instant::now();
    assert_names(
        &refused(&copy("huge")),
        &["runs/run/huge.jsonl", "10737418240 bytes", "past the cap"],
    );
    assert!(started.elapsed() < Duration::from_secs(20), "a huge claim was read");
}

#[test]
fn a_bundle_holds_the_prompts_an_llm_player_used_and_an_edited_prompt_fails() {
    let (host, _) = model_host("m", Duration::ZERO);
    let dir = temp_dir("bundle", "prompts");
    let agent_file = dir.join("agent.toml");
    std::fs::write(&agent_file, "system = \"tool-en\"\n").unwrap();
    let text_file = format!(
        "format = \"gauntlet\"\nengines = [\"random\"]\ngames = 2\nopening_random = 2\nseed = 5\n\n\
         [[llm]]\nmodel = \"m\"\nhost = [\"{}\"]\nagent_file = \"{}\"\n",
        host.url,
        agent_file.display()
    );
    let made = run_tournament(&dir, &text_file, &["--no-score-moves"]);
    assert!(made.status.success(), "{}", text(&made));
    let sealed = dir.join("sealed.tar.gz");
    bundle(&dir.join("run"), &sealed);
    let held = arena(&["verify", sealed.to_str().unwrap()]);
    assert!(held.status.success(), "{}", text(&held));
    let all = entries(&sealed);
    let (prompt, body) = all
        .iter()
        .find(|(name, _)| name.starts_with("runs/run/prompts/"))
        .cloned()
        .expect("the system prompt is bundled");
    assert!(prompt.contains(&hex::encode(Sha256::digest(&body))), "{prompt}");
    // The bundled copy edited.
    let path = tampered(&sealed, &dir.join("prompt-file.tar.gz"), &prompt, |t| {
        format!("{t}\nAlways play a1.")
    });
    assert_names(&refused(&path), &[&prompt, "hashes to", "edited"]);
    // The text in run.json edited.
    let path = tampered(&sealed, &dir.join("prompt-run.tar.gz"), "run.json", |t| {
        let mut run: Value = serde_json::from_str(t).unwrap();
        let prompt = &mut run["players"][1]["agent"]["system_prompt"]["text"];
        *prompt = Value::from(format!("{} Always play a1.", prompt.as_str().unwrap()));
        serde_json::to_string_pretty(&run).unwrap()
    });
    assert_names(&refused(&path), &["runs/run/run.json", "llm:m", "system_prompt.sha256"]);
    // `rate` reads the bundle as it reads the run folder.
    let from_bundle = arena(&["rate", sealed.to_str().unwrap(), "--json"]);
    let from_folder = arena(&["rate", dir.join("run").to_str().unwrap(), "--json"]);
    assert!(from_bundle.status.success(), "{}", text(&from_bundle));
    let elo =
        |o: &Output| -> Value { serde_json::from_slice::<Value>(&o.stdout).unwrap()["as_played"]["rows"].clone() };
    assert_eq!(elo(&from_bundle), elo(&from_folder));
    // So do `stats`, `export` and `compare`.
    let groups = |o: &Output| -> Value { serde_json::from_slice::<Value>(&o.stdout).unwrap()["groups"].clone() };
    let stats = arena(&["stats", sealed.to_str().unwrap(), "--json"]);
    assert!(stats.status.success(), "{}", text(&stats));
    assert_eq!(
        groups(&stats),
        groups(&arena(&["stats", dir.join("run").to_str().unwrap(), "--json"]))
    );
    let exported = arena(&["export", sealed.to_str().unwrap()]);
    assert_eq!(
        exported.stdout,
        arena(&["export", dir.join("run").to_str().unwrap()]).stdout
    );
    let compared = arena(&["compare", dir.join("run").to_str().unwrap(), sealed.to_str().unwrap()]);
    assert!(compared.status.success(), "{}", text(&compared));
    // So does `report`, the same games given twice counted once.
    let page = dir.join("report.html");
    let (folder, sealed) = (dir.join("run"), sealed.to_str().unwrap());
    let report = arena(&["report", sealed, folder.to_str().unwrap(), "-o", page.to_str().unwrap()]);
    assert!(report.status.success(), "{}", text(&report));
    assert_names(&text(&report), &["(2 games)", "counted once"]);
}

#[test]
fn an_eval_is_derived_again_from_its_logs_and_an_edited_tally_fails() {
    let (host, _) = model_host("m", Duration::ZERO);
    let dir = temp_dir("bundle", "eval");
    let run = dir.join("run");
    let made = Eval::model("m")
        .vs("random,greedy")
        .games(2)
        .flag("opening-random", 2)
        .flag("system", "tool-en")
        .flag("stop", "sprt:0,200")
        .switch("no-score-moves")
        .log_dir(&run)
        .run(&host.url);
    assert!(made.status.success(), "{}", text(&made));
    let sealed = dir.join("sealed.tar.gz");
    bundle(&run, &sealed);
    let held = arena(&["verify", sealed.to_str().unwrap()]);
    assert!(held.status.success(), "{}", text(&held));
    assert_names(&text(&held), &["8 games", "2 prompt texts", "all hold"]);
    assert!(
        !text(&held).contains("note:"),
        "an eval is derived again whole: {}",
        text(&held)
    );
    let path = tampered(&sealed, &dir.join("tally.tar.gz"), "results.json", |t| {
        let mut results: Value = serde_json::from_str(t).unwrap();
        let losses = &mut results["opponents"][1]["as_white"]["losses"];
        *losses = Value::from(losses.as_u64().unwrap() + 1);
        serde_json::to_string_pretty(&results).unwrap()
    });
    assert_names(
        &refused(&path),
        &["runs/run/results.json", "opponents[1].as_white.losses"],
    );
}

#[test]
fn the_same_games_given_twice_count_once_in_rate() {
    let dir = temp_dir("bundle", "twice");
    let made = run_tournament(&dir, ENGINES, &[]);
    assert!(made.status.success(), "{}", text(&made));
    let run = dir.join("run");
    let sealed = dir.join("sealed.tar.gz");
    bundle(&run, &sealed);
    let copy = dir.join("copy.tar.gz");
    std::fs::copy(&sealed, &copy).unwrap();
    let games = |args: &[&str]| -> Value {
        let output = arena(args);
        assert!(output.status.success(), "{}", text(&output));
        serde_json::from_slice::<Value>(&output.stdout).unwrap()["as_played"]["games"].clone()
    };
    let once = games(&["rate", run.to_str().unwrap(), "--json"]);
    let (run, sealed, copy) = (run.to_str().unwrap(), sealed.to_str().unwrap(), copy.to_str().unwrap());
    let twice = arena(&["rate", run, sealed, copy, "--json"]);
    assert_names(&text(&twice), &["same bytes", "counted once"]);
    assert_eq!(games(&["rate", run, sealed, copy, "--json"]), once);
}

/// A file named as a bundle that is not one is refused by name (it was read as a game
/// log cut off at its start), and `verify` of a path that is not there says so.
#[test]
fn a_fake_bundle_and_a_missing_path_are_named() {
    let dir = temp_dir("bundle", "fake");
    let fake = dir.join("results.tar.gz");
    std::fs::write(&fake, "not an archive\n").unwrap();
    for command in ["rate", "stats", "report"] {
        let output = arena(&[command, fake.to_str().unwrap()]);
        assert!(!output.status.success(), "{command}: {}", text(&output));
        assert_names(
            &text(&output),
            &["results.tar.gz", "is named as a result bundle but is not one"],
        );
    }
    assert_names(&refused(&dir.join("nothere")), &["nothere", "no such file or folder"]);
}

/// docs/leaderboard.md's table is the output of `rate --ladder` on the bundle checked in
/// beside it, and that bundle verifies: anyone can re-derive the published table.
#[test]
fn the_published_leaderboard_is_rated_again_from_its_bundle() {
    let docs = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs");
    let sealed = docs.join("leaderboard-2026-12-07.tar.gz");
    let verified = arena(&["verify", sealed.to_str().unwrap()]);
    assert!(verified.status.success(), "{}", text(&verified));
    // Every move is either an engine's asked again, a model's taken as logged, or a
    // forced pass (27 in these games): none is left uncounted.
    assert_names(
        &text(&verified),
        &[
            "32 games (1669 moves)",
            "810 engine moves chosen again",
            "(832 moves of models, people or external engines taken as logged)",
            "all hold",
        ],
    );
    let rated = arena(&["rate", sealed.to_str().unwrap(), "--ladder"]);
    assert!(rated.status.success(), "{}", text(&rated));
    let printed: Vec<&str> = std::str::from_utf8(&rated.stdout)
        .unwrap()
        .lines()
        .map(str::trim_end)
        .collect();
    let page = std::fs::read_to_string(docs.join("leaderboard.md")).unwrap();
    let marker = "<!-- the output of: othello-arena rate docs/leaderboard-2026-12-07.tar.gz --ladder -->";
    let after = page.split_once(marker).expect("the page marks the table it quotes").1;
    // The quoted blocks up to the next section: each is a run of lines `rate` printed.
    let section = after.split("\n## ").next().unwrap();
    let blocks: Vec<&str> = section.split("```").skip(1).step_by(2).collect();
    assert_eq!(blocks.len(), 2, "the results table and the intrinsic table");
    for block in blocks {
        let quoted: Vec<&str> = block.trim_matches('\n').lines().collect();
        let found = printed.windows(quoted.len()).any(|lines| lines == quoted.as_slice());
        assert!(
            found,
            "docs/leaderboard.md quotes lines `rate` no longer prints:\n{}",
            quoted.join("\n")
        );
    }
}

/// A `play` run is checked against its match's plan: its engines' moves chosen again
/// from their seeds, and a game removed from the middle found.
#[test]
fn a_match_is_checked_against_its_plan_and_a_removed_game_is_found() {
    let dir = temp_dir("bundle", "play");
    let run = dir.join("match");
    let (run_arg, out) = (run.to_str().unwrap(), dir.join("sealed.tar.gz"));
    let played = arena(&[
        "play",
        "--black",
        "dilute:30:greedy",
        "--white",
        "n-hand:1",
        "--games",
        "5",
        "--swap",
        "--opening-random",
        "4",
        "--seed",
        "11",
        "--log-dir",
        run_arg,
    ]);
    assert!(played.status.success(), "{}", text(&played));
    bundle(&run, &out);
    let held = arena(&["verify", out.to_str().unwrap()]);
    assert!(held.status.success(), "{}", text(&held));
    assert_names(&text(&held), &["5 games", "engine moves chosen again", "all hold"]);
    let mut all = entries(&out);
    all.retain(|(name, _)| !name.ends_with("game-0002.jsonl"));
    write(&dir.join("removed.tar.gz"), all, true, &[]);
    assert_names(
        &refused(&dir.join("removed.tar.gz")),
        &["runs/match/game-0002.jsonl", "missing", "a game was removed"],
    );
}

#[test]
fn a_marubatsu_match_is_checked_against_its_plan_and_a_log_off_the_plan_is_named_once() {
    let dir = temp_dir("bundle", "marubatsu");
    let run = dir.join("match");
    let run_arg = run.to_str().unwrap();
    let played = arena(&[
        "play",
        "--game",
        "marubatsu",
        "--black",
        "ai2",
        "--white",
        "random",
        "--games",
        "5",
        "--swap",
        "--seed",
        "5",
        "--log-dir",
        run_arg,
    ]);
    assert!(played.status.success(), "{}", text(&played));
    let held = arena(&["verify", run_arg]);
    assert!(held.status.success(), "{}", text(&held));
    assert_names(&text(&held), &["5 games", "engine moves chosen again", "all hold"]);
    // Game 2 played by another seed: a log that is not the plan's game is named once.
    let log = run.join("game-0002.jsonl");
    let original = std::fs::read_to_string(&log).unwrap();
    let seed = original.split("\"seed\":").nth(1).unwrap().split(',').next().unwrap();
    std::fs::write(&log, original.replacen(&format!("\"seed\":{seed}"), "\"seed\":7", 1)).unwrap();
    let message = refused(&run);
    assert_names(&message, &["game-0002.jsonl", "seed 7", "the run's plan"]);
    assert_eq!(message.matches("game-0002.jsonl").count(), 1, "{message}");
    assert!(!message.contains("resume"), "{message}");
}

#[test]
fn an_engine_move_given_to_a_fallback_is_not_the_engines() {
    let dir = temp_dir("bundle", "relabelled");
    let run = dir.join("match");
    let run_arg = run.to_str().unwrap();
    let played = arena(&[
        "play",
        "--black",
        "greedy",
        "--white",
        "random",
        "--games",
        "1",
        "--log-dir",
        run_arg,
    ]);
    assert!(played.status.success(), "{}", text(&played));
    // A cheater's move in greedy's place is logged as a fallback's, so that greedy is
    // not asked again: the source alone must not hold.
    let log = run.join("game-0001.jsonl");
    let original = std::fs::read_to_string(&log).unwrap();
    let needle = "\"ply\":11,\"color\":\"black\",\"player\":\"greedy\",";
    let at = original.find(needle).expect("greedy moves at ply 11");
    let (before, after) = original.split_at(at);
    std::fs::write(
        &log,
        format!(
            "{before}{}",
            after.replacen("\"source\":\"engine\"", "\"source\":\"fallback\"", 1)
        ),
    )
    .unwrap();
    assert_names(
        &refused(&run),
        &["game-0001.jsonl", "ply 11", "fallback", "greedy is a built-in engine"],
    );
}
