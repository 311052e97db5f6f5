//! Fuzzes the `[llm]` table of `wf.toml` (wf-llm): any text gives a config
//! or an error with a position inside the text; a config resolves every
//! provider it declares to settings or a clear error.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    match wf_llm::config::parse(&text) {
        Ok(config) => {
            let env = |_: &str| Some("k".to_string());
            let names: Vec<String> = config.providers.keys().cloned().collect();
            for name in names
                .iter()
                .map(String::as_str)
                .chain(["anthropic", "openai", "gemini"])
            {
                let _ = config.resolve(name, &env);
            }
        }
        Err((line, column, message)) => {
            assert!(line >= 1 && column >= 1, "{line}:{column}: {message}");
            assert!(line <= text.lines().count().max(1) + 1, "{line}: {message}");
            assert!(!message.is_empty());
        }
    }
    for word in text.split_whitespace().take(8) {
        let _ = wf_llm::config::duration(word);
    }
});
