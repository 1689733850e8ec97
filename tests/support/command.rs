//! Command lines and tournament files for the tests, built rather than written out flag
//! by flag: `Eval::model("m").vs("random").games(1).log_dir(&dir).run(&server.url)`
//! reads as what the test means, and a flag renamed is changed here once.

use std::path::Path;
use std::process::Output;

/// An `eval` command line: `eval --agent llm:MODEL`, then each flag in the order added.
#[derive(Clone, Debug)]
pub struct Eval {
    args: Vec<String>,
}

impl Eval {
    /// `eval --agent llm:MODEL`.
    pub fn model(model: &str) -> Eval {
        Eval {
            args: vec!["eval".into(), "--agent".into(), format!("llm:{model}")],
        }
    }

    /// `--NAME VALUE`.
    pub fn flag(mut self, name: &str, value: impl ToString) -> Eval {
        self.args.push(format!("--{name}"));
        self.args.push(value.to_string());
        self
    }

    /// `--NAME`, a switch.
    pub fn switch(mut self, name: &str) -> Eval {
        self.args.push(format!("--{name}"));
        self
    }

    /// `--vs SPECS` (a comma list).
    pub fn vs(self, specs: &str) -> Eval {
        self.flag("vs", specs)
    }

    /// `--games N` (per colour and opponent).
    pub fn games(self, games: u32) -> Eval {
        self.flag("games", games)
    }

    /// `--log-dir DIR`, the run's folder.
    pub fn log_dir(self, dir: &Path) -> Eval {
        self.flag("log-dir", dir.display())
    }

    /// `--json`.
    pub fn json(self) -> Eval {
        self.switch("json")
    }

    /// The arguments, as `run_arena` takes them.
    pub fn args(&self) -> Vec<&str> {
        self.args.iter().map(String::as_str).collect()
    }

    /// Runs it with `OLLAMA_HOST` set to `host` ([`super::run_arena`]).
    pub fn run(&self, host: &str) -> Output {
        super::run_arena(&self.args(), host)
    }
}

/// A tournament file: its top-level keys, then its `[[llm]]` tables, in the order added.
#[derive(Clone, Debug)]
pub struct Tournament {
    top: Vec<String>,
    llms: Vec<Vec<String>>,
}

impl Tournament {
    /// A gauntlet of `engines` against the LLM players, `games` a pairing, each game
    /// after 4 random opening plies.
    pub fn gauntlet(engines: &[&str], games: u32) -> Tournament {
        let engines: Vec<String> = engines.iter().map(|e| format!("{e:?}")).collect();
        Tournament {
            top: vec![
                "format = \"gauntlet\"".into(),
                format!("engines = [{}]", engines.join(", ")),
                format!("games = {games}"),
                "opening_random = 4".into(),
            ],
            llms: Vec::new(),
        }
    }

    /// A top-level `key = value` (`value` written as TOML).
    pub fn key(mut self, key: &str, value: &str) -> Tournament {
        self.top.push(format!("{key} = {value}"));
        self
    }

    /// A new `[[llm]]` table: `model` on the host at `url`.
    pub fn llm(mut self, model: &str, url: &str) -> Tournament {
        self.llms
            .push(vec![format!("model = {model:?}"), format!("host = [{url:?}]")]);
        self
    }

    /// `key = value` in the last `[[llm]]` table (`value` written as TOML).
    pub fn llm_key(mut self, key: &str, value: &str) -> Tournament {
        self.llms
            .last_mut()
            .expect("llm_key follows an llm table")
            .push(format!("{key} = {value}"));
        self
    }

    /// The file's text.
    pub fn text(&self) -> String {
        let mut text = self.top.join("\n") + "\n";
        for table in &self.llms {
            text.push_str("\n[[llm]]\n");
            text.push_str(&table.join("\n"));
            text.push('\n');
        }
        text
    }
}
