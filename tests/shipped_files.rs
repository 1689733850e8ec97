//! The prompts and Modelfiles we ship stay consistent with each other and loadable.

use crate::support::command::Eval;
use agent::Prompt;
use std::path::Path;

#[test]
fn the_tool_modelfile_carries_the_shipped_prompt() {
    let modelfile = std::fs::read_to_string("modelfiles/gemma4-tool.Modelfile").unwrap();
    let prompt = std::fs::read_to_string("prompts/tool-ja.md").unwrap();
    let system = modelfile
        .split_once("SYSTEM \"\"\"")
        .unwrap()
        .1
        .rsplit_once("\"\"\"")
        .unwrap()
        .0;
    assert_eq!(system, prompt);
    assert!(modelfile.contains("\nFROM gemma4:e4b\n"));
}

#[test]
fn the_direct_modelfile_opens_a_think_block() {
    let modelfile = std::fs::read_to_string("modelfiles/qwen-direct.Modelfile").unwrap();
    assert!(modelfile.contains("<|im_start|>assistant\n<think>\n\"\"\""));
}

#[test]
fn every_prompt_loads_by_name_and_describes_its_rendering() {
    for (name, needle) in [
        ("tool-ja", "B は黒の石、W は白の石"),
        ("tool-ja-relative", "B はあなた（手番の側）の石"),
        ("tool-en", "B is a black disc, W a white disc"),
        ("direct-ja", "</think> の後に"),
        ("small-model", "B = black disc, W = white disc"),
        ("small-model-tools", "simulate_move"),
    ] {
        let prompt = Prompt::load(name, Path::new("prompts")).unwrap();
        assert!(prompt.text.contains(needle), "{name}");
        assert_eq!(prompt.sha256.len(), 64);
    }
    let err = Prompt::load("missing", Path::new("prompts")).unwrap_err().to_string();
    assert!(
        err.contains("tool-ja") && err.contains("give a file path or a name"),
        "{err}"
    );
}

/// The built binary copied to `dir/bin`, so that it runs with nothing of the checkout
/// beside it.
fn installed_binary(dir: &Path) -> std::path::PathBuf {
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let copy = bin.join("othello-arena");
    std::fs::copy(env!("CARGO_BIN_EXE_othello-arena"), &copy).unwrap();
    copy
}

/// `binary args` run in the folder `cwd`, its OLLAMA_HOST `host`.
fn run_in(binary: &Path, cwd: &Path, args: &[&str], host: &str) -> std::process::Output {
    let output = std::process::Command::new(binary)
        .args(args)
        .current_dir(cwd)
        .env("OLLAMA_HOST", host)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// An installed binary run in a folder with no prompts/ or docs/ finds the shipped
/// prompts, agent files, ladder and calibration built in (run.json records the same
/// hash as the text on disk), lists them, and reads a ./prompts file instead when one
/// is there.
#[test]
fn an_installed_binary_carries_its_prompts_agent_files_and_calibration() {
    let dir = crate::support::temp_dir("shipped", "installed");
    let binary = installed_binary(&dir);
    let work = dir.join("elsewhere");
    std::fs::create_dir_all(&work).unwrap();
    let shipped = Prompt::load("prompts/small-model-tools.md", Path::new("prompts")).unwrap();
    let listed = run_in(&binary, &work, &["prompts"], "127.0.0.1:9");
    let listed = String::from_utf8(listed.stdout).unwrap();
    assert!(listed.contains(&shipped.sha256[..12]), "{listed}");
    assert!(
        listed.contains("small-model.toml") && !listed.contains("read from"),
        "{listed}"
    );

    let server = crate::support::playing_model();
    let host = server.url.trim_start_matches("http://").to_string();
    let eval = |run: &str| {
        let eval = Eval::model("m").flag("agent-file", "prompts/small-model-tools.toml");
        run_in(
            &binary,
            &work,
            &eval.vs("random").games(1).flag("log-dir", run).args(),
            &host,
        );
        let run_json = std::fs::read_to_string(work.join(run).join("run.json")).unwrap();
        serde_json::from_str::<serde_json::Value>(&run_json).unwrap()["agent"]["system_prompt"].clone()
    };
    let built_in = eval("built-in");
    assert_eq!(built_in["sha256"], shipped.sha256.as_str());
    assert_eq!(built_in["text"], shipped.text.as_str());

    let rated = run_in(&binary, &work, &["rate", "built-in", "--json"], "127.0.0.1:9");
    let rated: serde_json::Value = serde_json::from_slice(&rated.stdout).unwrap();
    assert!(!rated["intrinsic"]["model"].is_null(), "{}", rated["intrinsic"]);

    std::fs::create_dir_all(work.join("prompts")).unwrap();
    std::fs::write(work.join("prompts/small-model-tools.md"), "my own prompt").unwrap();
    assert_eq!(eval("local")["text"], "my own prompt");
    let listed = run_in(&binary, &work, &["prompts"], "127.0.0.1:9");
    assert!(String::from_utf8(listed.stdout)
        .unwrap()
        .contains("read from prompts/small-model-tools.md instead"));
}

/// No library or face finds its data through the checkout's path: outside tests, the
/// sources name no `CARGO_MANIFEST_DIR` (the data is built in with include_str!).
#[test]
fn no_source_looks_up_data_beside_the_checkout() {
    let mut stack = vec![std::path::PathBuf::from("src")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let name = path.to_string_lossy();
            if !name.ends_with(".rs") || name.ends_with("_tests.rs") {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            let code = text.split("#[cfg(test)]").next().unwrap();
            assert!(
                !code.contains("CARGO_MANIFEST_DIR"),
                "{name} finds files through the checkout"
            );
        }
    }
}
