//! The prompts and Modelfiles we ship stay consistent with each other and loadable.

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
