//! The `[llm]` table and the environment.

use std::time::Duration;

use wf_llm::Api;
use wf_llm::config::{LlmConfig, parse};
use wf_llm::price::PriceTable;

#[test]
fn a_full_table_parses() {
    let c = parse(
        "[lints]\nWF0205 = \"allow\"\n[llm]\nprovider = \"anthropic\"\nmodel = \"claude-sonnet-4-6\"\nmax_cost_usd = 2\n\
         [llm.providers.anthropic]\ntimeout = \"30s\"\nretries = 1\nconcurrency = 2\nmax_output_tokens = 100\n\
         [llm.providers.local]\napi = \"openai-chat\"\nbase_url = \"http://127.0.0.1:1/v1\"\n\
         [llm.prices.\"qwen3\"]\ninput = 0\noutput = 0\n[llm.models]\nlocal = [\"qwen3\"]\n",
    )
    .unwrap();
    assert_eq!(c.provider.as_deref(), Some("anthropic"));
    assert_eq!(c.max_cost_usd, Some(2.0));
    let a = &c.providers["anthropic"];
    assert_eq!(a.timeout, Some(Duration::from_secs(30)));
    assert_eq!(c.providers["local"].api, Some(Api::OpenAiChat));
    assert_eq!(
        PriceTable::with_overrides(&c.prices)
            .get("qwen3")
            .unwrap()
            .output,
        0.0
    );
    // A local server declared without a key variable needs no key.
    let local = c.resolve("local", &|_| None).unwrap();
    assert_eq!(local.key.expose(), "");
}

#[test]
fn unknown_keys_get_a_did_you_mean_and_a_position() {
    let (line, column, message) =
        parse("[llm]\nprovider = \"openai\"\nmodle = \"x\"\n").unwrap_err();
    assert_eq!((line, column), (3, 1));
    assert!(
        message.contains("unknown key `modle` in [llm]; did you mean `model`?"),
        "{message}"
    );
    let (_, _, message) = parse("[llm.providers.openai]\nbase_ur = \"x\"\n").unwrap_err();
    assert!(message.contains("did you mean `base_url`?"), "{message}");
    let (_, _, message) = parse("[llm.providers.x]\napi = \"openai_chat\"\n").unwrap_err();
    assert!(message.contains("did you mean `openai-chat`?"), "{message}");
    let (_, _, message) = parse("[llm.providers.openai]\ntimeout = \"soon\"\n").unwrap_err();
    assert!(message.contains("not a duration"), "{message}");
}

#[test]
fn keys_and_base_urls_come_from_the_environment() {
    let c = LlmConfig::default();
    let env = |v: &str| match v {
        "GOOGLE_API_KEY" => Some("g-key".to_string()),
        "GEMINI_BASE_URL" => Some("http://127.0.0.1:9".to_string()),
        _ => None,
    };
    let g = c.resolve("google", &env).unwrap();
    assert_eq!((g.name.as_str(), g.api), ("gemini", Api::Gemini));
    assert_eq!(g.base_url, "http://127.0.0.1:9");
    assert_eq!(g.key_var.as_deref(), Some("GOOGLE_API_KEY"));
    let err = c.resolve("anthropic", &env).unwrap_err();
    assert!(
        err.contains("`ANTHROPIC_API_KEY`, which is not set"),
        "{err}"
    );
    let err = c.resolve("anthropc", &env).unwrap_err();
    assert!(
        err.contains("unknown provider `anthropc`; did you mean `anthropic`?"),
        "{err}"
    );
}

#[test]
fn shipped_tables_parse_and_price_usage() {
    let p = *PriceTable::shipped().get("claude-sonnet-4-6").unwrap();
    let u = wf_llm::Usage {
        input: 1_000_000,
        output: 1_000_000,
        cached: 0,
        reasoning: 0,
    };
    assert!((p.cost(&u) - 18.0).abs() < 1e-9);
    let cat = wf_llm::catalog::Catalog::with_extra(&Default::default());
    assert_eq!(cat.knows("google", "gemini-3-flash-preview"), Some(true));
    assert_eq!(cat.knows("openai", "gpt-5.9"), Some(false));
    assert_eq!(cat.knows("local", "x"), None);
}

#[test]
fn cli_agents_are_providers() {
    use wf_llm::cli::{CliKind, resolve};
    let config = wf_llm::config::parse(
        "[llm.providers.anthropic]\napi = \"claude-cli\"\ncommand = \"/opt/claude\"\nargs = [\"--permission-mode\", \"acceptEdits\"]\ntimeout = \"20m\"\n",
    )
    .unwrap();
    let c = resolve(&config, "anthropic").unwrap();
    assert_eq!(c.kind, CliKind::Claude);
    assert_eq!(c.command, "/opt/claude");
    assert_eq!(c.args, ["--permission-mode", "acceptEdits"]);
    assert_eq!(c.timeout, Some(std::time::Duration::from_secs(1200)));
    // Built in, with no table: the program on PATH.
    let d = resolve(&config, "gemini-cli").unwrap();
    assert_eq!((d.kind, d.command.as_str()), (CliKind::Gemini, "gemini"));
    // An HTTP provider is not one.
    assert!(resolve(&config, "openai").is_none());
    let (_, _, e) = wf_llm::config::parse("[llm.providers.x]\napi = \"claude-clj\"\n").unwrap_err();
    assert!(e.contains("did you mean `claude-cli`?"), "{e}");
    let (_, _, e) = wf_llm::config::parse("[llm.providers.x]\nargs = \"--yes\"\n").unwrap_err();
    assert!(e.contains("must be a list of strings"), "{e}");
}

#[test]
fn a_syntax_error_is_placed_where_it_is() {
    let (line, column, message) =
        parse("[llm]\nprovider = \"openai\"\nmodel = \"gpt-5.4\nretries = 1\n").unwrap_err();
    assert_eq!(line, 3, "{line}:{column}: {message}");
    assert!(column > 1, "{line}:{column}: {message}");
    let (line, _, _) = parse("[llm]\nmodel = \"é\" x\n").unwrap_err();
    assert_eq!(line, 2);
}

#[test]
fn structured_output_is_on_by_default_and_can_be_switched_off() {
    let c = parse(
        "[llm.providers.local]\napi = \"openai-chat\"\nbase_url = \"http://127.0.0.1:1/v1\"\nstructured_output = false\n",
    )
    .unwrap();
    assert!(!c.resolve("local", &|_| None).unwrap().structured_output);
    let key = |_: &str| Some("k".to_string());
    for name in ["anthropic", "openai", "gemini"] {
        assert!(
            LlmConfig::default()
                .resolve(name, &key)
                .unwrap()
                .structured_output,
            "{name}"
        );
    }
    let (line, column, message) =
        parse("[llm.providers.openai]\nstructured_output = \"no\"\n").unwrap_err();
    // Placed at the provider's table, as the other keys of a provider.
    assert_eq!((line, column), (1, 1));
    assert!(
        message.contains("`llm.providers.openai.structured_output` must be true or false"),
        "{message}"
    );
    let (_, _, message) = parse("[llm.providers.openai]\nstructured_outpt = true\n").unwrap_err();
    assert!(
        message.contains("did you mean `structured_output`?"),
        "{message}"
    );
}
