//! `compare`: runs side by side, per opponent; for runs that share openings, a paired
//! comparison game pair by game pair (exact two-sided sign test) and the verdict to
//! publish: the Elo difference pooled over every colour-swapped pair both runs played,
//! with its 95% interval ([`stats::paired_elo`]); and which settings differ (a prompt
//! by its file and its hash).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;
use settings::AgentConfig;

use crate::groups::{collect_groups, Group, GroupsError, Key};
use crate::logs::{run_folders, LogsError};
use crate::run_file::RecordedSettings;

/// Why a run cannot be compared.
#[derive(Debug, thiserror::Error)]
pub enum CompareError {
    /// No run.json to say what the run was.
    #[error("{path} has no readable run.json: give run folders made by eval")]
    NoRunFile {
        /// The folder.
        path: PathBuf,
    },
    /// Its games cannot be read or hold no LLM player.
    #[error(transparent)]
    Groups(#[from] GroupsError),
    /// A folder of runs cannot be listed.
    #[error(transparent)]
    Logs(#[from] LogsError),
    /// Fewer than two runs to compare (with the notes of the folders listed).
    #[error("compare needs two runs or more: give run folders, or a folder that holds several")]
    TooFew {
        /// What listing the folders noted.
        notes: Vec<String>,
    },
}

/// The runs `paths` stand for, to be compared: each run folder, and every run folder
/// under a folder of runs ([`run_folders`]), with the notes that say so; at least two
/// (fewer: refused, the notes kept in the error).
pub fn compared_folders(paths: &[PathBuf]) -> Result<(Vec<PathBuf>, Vec<String>), CompareError> {
    let (mut folders, mut notes) = (Vec::new(), Vec::new());
    for path in paths {
        let (runs, note) = run_folders(path)?;
        folders.extend(runs);
        notes.extend(note);
    }
    if folders.len() < 2 {
        return Err(CompareError::TooFew { notes });
    }
    Ok((folders, notes))
}

/// A run compared: its configuration, groups and games.
pub struct ComparedRun {
    /// The run folder.
    pub path: PathBuf,
    /// What its run.json records.
    pub config: RecordedSettings,
    /// Its games grouped as every reader groups them.
    pub groups: BTreeMap<Key, Group>,
    /// (opponent, agent color, opening, occurrence) -> score (1 win, 0.5 draw, 0 loss).
    games: BTreeMap<(String, String, Vec<String>, usize), f64>,
    /// What the log reader noticed (games cut off by a crash, logs reached twice).
    pub notes: Vec<String>,
}

/// The run folder `path`: its run.json, and its games grouped ([`collect_groups`]).
pub fn load_run(path: &Path) -> Result<ComparedRun, CompareError> {
    let config = RecordedSettings::read(path).map_err(|_| CompareError::NoRunFile {
        path: path.to_path_buf(),
    })?;
    let read = collect_groups(&[path.to_path_buf()])?;
    let mut games = BTreeMap::new();
    // How many games of each (opponent, colour, opening) came before: the next one's
    // occurrence.
    let mut seen: BTreeMap<(String, String, Vec<String>), usize> = BTreeMap::new();
    for group in read.groups.values() {
        for played in &group.games {
            let (color, game) = (&played.color, read.summary(played));
            let Some(score) = game.score_for(*color) else { continue };
            let key = (game.players[!*color].clone(), color.to_string(), game.opening.clone());
            let count = seen.entry(key.clone()).or_default();
            games.insert((key.0, key.1, key.2, *count), score);
            *count += 1;
        }
    }
    Ok(ComparedRun {
        path: path.to_path_buf(),
        config,
        groups: read.groups,
        games,
        notes: read.logs.notes,
    })
}

impl ComparedRun {
    /// The LLM player's settings (an eval's or a probe's agent).
    fn agent(&self) -> Option<&AgentConfig> {
        self.config.agent.as_ref()
    }
}

/// Settings that differ between two runs: the agents' (a prompt by its hash and file,
/// options, ...) and the run's own, each as run.json writes it.
fn differences(a: &ComparedRun, b: &ComparedRun) -> Vec<String> {
    let mut out = Vec::new();
    let written = |run: &ComparedRun| {
        run.agent()
            .map_or(Value::Null, |agent| serde_json::to_value(agent).unwrap_or_default())
    };
    let (agent_a, agent_b) = (written(a), written(b));
    let keys: Vec<String> = match (a.agent(), b.agent()) {
        (Some(agent_a), Some(agent_b)) => agent_a.differing(agent_b),
        // One run has no agent: every setting the other records differs.
        _ => {
            let mut keys: Vec<String> = [&agent_a, &agent_b]
                .into_iter()
                .filter_map(Value::as_object)
                .flat_map(|o| o.keys().cloned())
                .collect();
            keys.sort_unstable();
            keys.dedup();
            keys
        }
    };
    for key in keys.iter().map(String::as_str) {
        let prompt = match key {
            "system_prompt" => Some("system prompt"),
            "user_template" => Some("user template"),
            _ => None,
        };
        match prompt {
            // A prompt by its hash, with the file it was read from beside it.
            Some(name) if agent_a[key]["sha256"] != agent_b[key]["sha256"] => {
                let side = |agent: &Value| match agent[key]["source"].as_str() {
                    Some(file) => format!("{} ({file})", agent[key]["sha256"]),
                    None => "none".to_string(),
                };
                out.push(format!("{name} sha256: {} -> {}", side(&agent_a), side(&agent_b)));
            }
            Some(_) => {}
            None if agent_a[key] != agent_b[key] => {
                out.push(format!("{key}: {} -> {}", agent_a[key], agent_b[key]));
            }
            None => {}
        }
    }
    for ((key, then), (_, now)) in a.config.run_wide().into_iter().zip(b.config.run_wide()) {
        if then != now {
            out.push(format!("{key}: {then} -> {now}"));
        }
    }
    out
}

/// The paired comparison of one run against the baseline for one opponent, game pair
/// by game pair on the same openings (`compare --json`'s keys, in their order).
#[derive(Clone, Debug, Serialize)]
pub struct Paired {
    /// The mean score difference (other minus baseline), `null` without a pair.
    pub mean_score_difference: Option<f64>,
    /// The opponent.
    pub opponent: String,
    /// Pairs the other run scored better in.
    pub other_better: u32,
    /// Pairs it scored worse in.
    pub other_worse: u32,
    /// The exact two-sided sign test's p, `null` without a pair.
    pub p_value: Option<f64>,
    /// Game pairs both runs played.
    pub pairs: u32,
    /// Pairs scored alike.
    pub ties: u32,
}

/// The Elo difference (other minus baseline) over every colour-swapped pair both runs
/// played, with its 95% interval; the Elo `null` without a pair.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Pooled {
    /// The estimate.
    pub elo: Option<f64>,
    /// The interval's upper end.
    pub high: Option<f64>,
    /// The interval's lower end.
    pub low: Option<f64>,
    /// The colour-swapped pairs.
    pub pairs: usize,
    /// The verdict at 95%, `null` without a pair.
    pub verdict: Option<Verdict>,
}

/// What a pooled interval says of the compared run against the baseline, at 95%.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Verdict {
    /// The interval lies above 0.
    #[serde(rename = "better")]
    Better,
    /// The interval lies below 0.
    #[serde(rename = "worse")]
    Worse,
    /// The interval holds 0.
    #[serde(rename = "no detectable difference")]
    NoDifference,
}

impl Verdict {
    /// The verdict of the interval [`low`, `high`].
    fn of(low: f64, high: f64) -> Verdict {
        if low > 0.0 {
            Verdict::Better
        } else if high < 0.0 {
            Verdict::Worse
        } else {
            Verdict::NoDifference
        }
    }

    /// The verdict in a sentence on run `run` against run 1.
    fn sentence(self, run: usize) -> String {
        match self {
            Verdict::Better => format!("verdict: run {run} is better than run 1 at 95% (the interval lies above 0)"),
            Verdict::Worse => format!("verdict: run {run} is worse than run 1 at 95% (the interval lies below 0)"),
            Verdict::NoDifference => format!(
                "verdict: no detectable difference between run {run} and run 1 at 95% (the interval holds 0; more pairs narrow it)"
            ),
        }
    }
}

/// One run compared with the baseline (`compare --json`'s keys, in their order).
#[derive(Clone, Debug, Serialize)]
pub struct Comparison {
    /// The baseline's folder.
    pub baseline: String,
    /// The settings that differ, one line each.
    pub differences: Vec<String>,
    /// The compared run's folder.
    pub other: String,
    /// Per opponent.
    pub paired: Vec<Paired>,
    /// Over every opponent.
    pub pooled: Pooled,
}

/// The paired comparison of `other` against `base` for one opponent.
fn paired(base: &ComparedRun, other: &ComparedRun, opponent: &str) -> Paired {
    let (mut better, mut worse, mut ties) = (0u32, 0u32, 0u32);
    let mut diff_sum = 0.0;
    for (key, score) in base.games.iter().filter(|(k, _)| k.0 == opponent) {
        if let Some(other_score) = other.games.get(key) {
            diff_sum += other_score - score;
            match other_score.partial_cmp(score) {
                Some(std::cmp::Ordering::Greater) => better += 1,
                Some(std::cmp::Ordering::Less) => worse += 1,
                _ => ties += 1,
            }
        }
    }
    let pairs = better + worse + ties;
    let any = pairs > 0;
    Paired {
        // + 0.0: never -0.
        mean_score_difference: any.then(|| diff_sum / f64::from(pairs) + 0.0),
        opponent: opponent.to_string(),
        other_better: better,
        other_worse: worse,
        p_value: any.then(|| stats::sign_test(better, worse)),
        pairs,
        ties,
    }
}

/// The Elo difference (other minus baseline) over every colour-swapped pair both runs
/// played (same opponent, opening and occurrence, each run once with each colour).
fn pooled(base: &ComparedRun, other: &ComparedRun) -> Pooled {
    let mut pairs = Vec::new();
    for ((opponent, color, opening, occurrence), score) in &base.games {
        if color != "black" {
            continue;
        }
        let swapped = (opponent.clone(), "white".to_string(), opening.clone(), *occurrence);
        let black = (opponent.clone(), color.clone(), opening.clone(), *occurrence);
        if let (Some(base_white), Some(other_black), Some(other_white)) = (
            base.games.get(&swapped),
            other.games.get(&black),
            other.games.get(&swapped),
        ) {
            pairs.push(((score + base_white) / 2.0, (other_black + other_white) / 2.0));
        }
    }
    let elo = stats::paired_elo(&pairs);
    Pooled {
        elo: elo.map(|e| e.estimate),
        high: elo.map(|e| e.high),
        low: elo.map(|e| e.low),
        pairs: pairs.len(),
        verdict: elo.map(|e| Verdict::of(e.low, e.high)),
    }
}

/// A run as `compare --json` lists it (its keys in their order).
#[derive(Serialize)]
struct RunLine<'a> {
    groups: Vec<Value>,
    model: Option<&'a str>,
    path: String,
    prompt_file: Option<&'a str>,
    prompt_sha256: Option<&'a str>,
}

impl ComparedRun {
    /// The run as `compare --json` lists it: its path, model, prompt (hash and file)
    /// and groups.
    fn line(&self) -> RunLine<'_> {
        let prompt = self.agent().and_then(|a| a.system_prompt.as_ref());
        RunLine {
            groups: crate::groups_json(&self.groups),
            model: self.agent().map(|a| a.model.as_str()),
            path: self.path.display().to_string(),
            prompt_file: prompt.map(|p| p.source.as_str()),
            prompt_sha256: prompt.map(|p| p.sha256.as_str()),
        }
    }
}

/// `compare`'s result: the runs (the first the baseline), their opponents, and each
/// later run compared with the first.
pub struct Compared {
    /// The runs, in the order given.
    pub runs: Vec<ComparedRun>,
    /// Every opponent of any run, sorted.
    pub opponents: Vec<String>,
    /// Runs `runs[1..]` against the first: the settings that differ, the paired
    /// comparison per opponent and the Elo difference pooled over every opponent.
    pub comparisons: Vec<Comparison>,
}

/// `compare --json`'s document (its keys in their order).
#[derive(Serialize)]
struct CompareJson<'a> {
    comparisons: &'a [Comparison],
    notes: Vec<&'a String>,
    runs: Vec<RunLine<'a>>,
}

impl Compared {
    /// Compares `runs[1..]` with `runs[0]` against each opponent any of them met.
    pub fn new(runs: Vec<ComparedRun>) -> Compared {
        let mut opponents: Vec<String> = runs.iter().flat_map(|r| r.groups.keys().map(|k| k.2.clone())).collect();
        opponents.sort();
        opponents.dedup();
        let base = &runs[0];
        let comparisons = runs[1..]
            .iter()
            .map(|other| Comparison {
                baseline: base.path.display().to_string(),
                differences: differences(base, other),
                other: other.path.display().to_string(),
                paired: opponents.iter().map(|o| paired(base, other, o)).collect(),
                pooled: pooled(base, other),
            })
            .collect();
        Compared {
            runs,
            opponents,
            comparisons,
        }
    }

    /// `compare --json`: the runs, the comparisons and the log readers' notes.
    pub fn to_json(&self) -> String {
        serde_json::to_string(&CompareJson {
            comparisons: &self.comparisons,
            notes: self.runs.iter().flat_map(|r| &r.notes).collect(),
            runs: self.runs.iter().map(ComparedRun::line).collect(),
        })
        .expect("a comparison serialises")
    }

    /// The text report: per opponent each run's row and the paired lines, then the
    /// pooled verdicts and the settings that differ.
    pub fn text(&self) -> String {
        let mut out = String::new();
        for (i, run) in self.runs.iter().enumerate() {
            let _ = writeln!(
                out,
                "run {}: {} ({})",
                i + 1,
                run.path.display(),
                if i == 0 { "baseline" } else { "compared with run 1" }
            );
        }
        for opponent in &self.opponents {
            let _ = writeln!(out, "\nagainst {opponent}:");
            let _ = writeln!(out, "  run  games   W   L   D   win%  95% CI (Wilson)  model-decided  invalid/move  cut off/move  tool calls/move  tokens/move  latency p50, p95");
            for (i, run) in self.runs.iter().enumerate() {
                run_row(&mut out, i, run, opponent);
            }
            for (i, c) in self.comparisons.iter().enumerate() {
                paired_line(&mut out, i, c.paired.iter().find(|p| &p.opponent == opponent));
            }
        }
        for (i, c) in self.comparisons.iter().enumerate() {
            pooled_line(&mut out, i, &c.pooled);
        }
        for (i, c) in self.comparisons.iter().enumerate() {
            let _ = writeln!(
                out,
                "\nrun {} differs from run 1 in: {}",
                i + 2,
                if c.differences.is_empty() {
                    "nothing recorded".to_string()
                } else {
                    c.differences.join("; ")
                }
            );
        }
        out
    }
}

/// Run `i`'s row of the table against `opponent`.
fn run_row(out: &mut String, i: usize, run: &ComparedRun, opponent: &str) {
    let Some(g) = run.groups.iter().find(|(k, _)| k.2 == opponent).map(|(_, g)| g) else {
        let _ = writeln!(out, "  {:3}  (no games)", i + 1);
        return;
    };
    let t = g.matchup.overall();
    let (low, high) = t.win_interval();
    let a = g.matchup.agent.rates();
    let _ = writeln!(
        out,
        "  {:3}  {:5} {:3} {:3} {:3}  {:5.1}  [{:5.1}, {:5.1}]   {:5.1}%        {:6.2}        {:6.2}        {:6.2}        {:7.0}  {:8.0} ms, {:.0} ms",
        i + 1,
        t.games(),
        t.wins,
        t.losses,
        t.draws,
        100.0 * t.win_rate(),
        100.0 * low,
        100.0 * high,
        100.0 * a.llm_share,
        a.invalid_answers_per_move,
        a.cut_off_answers_per_move,
        a.tool_calls_per_move + a.recovered_tool_calls_per_move,
        a.prompt_tokens_per_move + a.completion_tokens_per_move,
        a.latency_ms_p50.unwrap_or(0.0),
        a.latency_ms_p95.unwrap_or(0.0),
    );
}

/// Comparison `i`'s (run `i + 2` against run 1) paired line against one opponent.
fn paired_line(out: &mut String, i: usize, paired: Option<&Paired>) {
    let _ = match paired {
        Some(p) if p.pairs > 0 => writeln!(
            out,
            "  paired, run {} vs run 1: {} game(s) played by both on the same opening and colour; run {} better in {}, worse in {}, tied in {}; sign test p = {:.3}",
            i + 2,
            p.pairs,
            i + 2,
            p.other_better,
            p.other_worse,
            p.ties,
            p.p_value.unwrap_or(1.0)
        ),
        _ => writeln!(
            out,
            "  paired, run {} vs run 1: no shared openings (use the same --opening-seed)",
            i + 2
        ),
    };
}

/// Comparison `i`'s verdict: the Elo difference of run `i + 2` against run 1 pooled
/// over every colour-swapped pair both played, with its 95% interval.
fn pooled_line(out: &mut String, i: usize, pooled: &Pooled) {
    let _ = match (pooled.elo, pooled.low, pooled.high) {
        (Some(elo), Some(low), Some(high)) => writeln!(
            out,
            "\nrun {} against run 1, pooled over {} colour-swapped pair(s) ({} games) on the same openings: {:+.0} Elo, 95% interval [{:+.0}, {:+.0}]\n{}",
            i + 2,
            pooled.pairs,
            2 * pooled.pairs,
            stats::whole(elo),
            stats::whole(low),
            stats::whole(high),
            Verdict::of(low, high).sentence(i + 2)
        ),
        _ => writeln!(
            out,
            "\nrun {} against run 1: no colour-swapped pair on the same openings, so no pooled Elo (use the same --opening-seed)",
            i + 2
        ),
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two runs or more are compared; one is refused with the reason.
    #[test]
    fn compare_needs_two_runs_or_more() {
        let two = [PathBuf::from("no-such-run-a"), PathBuf::from("no-such-run-b")];
        assert_eq!(compared_folders(&two).unwrap().0, two);
        let one = compared_folders(&two[..1]).unwrap_err();
        assert!(matches!(one, CompareError::TooFew { .. }), "{one}");
        assert!(one.to_string().starts_with("compare needs two runs or more"), "{one}");
    }

    /// `compare --json` was written with `json!`, whose objects sort their keys: each
    /// typed part declares its fields in that order, so the bytes stay the same.
    #[test]
    fn the_json_keys_come_sorted_as_json_wrote_them() {
        let sorted = |text: String| {
            let value: Value = serde_json::from_str(&text).unwrap();
            assert_eq!(value.to_string(), text, "keys in sorted order");
        };
        let paired = Paired {
            mean_score_difference: Some(-0.25),
            opponent: "greedy".to_string(),
            other_better: 1,
            other_worse: 2,
            p_value: Some(1.0),
            pairs: 4,
            ties: 1,
        };
        sorted(serde_json::to_string(&paired).unwrap());
        let pooled = Pooled {
            elo: None,
            high: None,
            low: None,
            pairs: 0,
            verdict: None,
        };
        sorted(serde_json::to_string(&pooled).unwrap());
        let comparison = Comparison {
            baseline: "a".to_string(),
            differences: vec!["opening_seed: 5 -> 6".to_string()],
            other: "b".to_string(),
            paired: vec![paired],
            pooled,
        };
        sorted(serde_json::to_string(&comparison).unwrap());
        let line = RunLine {
            groups: Vec::new(),
            model: Some("m"),
            path: "a".to_string(),
            prompt_file: None,
            prompt_sha256: None,
        };
        sorted(serde_json::to_string(&line).unwrap());
    }
}
