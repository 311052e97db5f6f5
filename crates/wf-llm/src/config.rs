//! The `[llm]` table of `wf.toml` and the environment: which provider a
//! node calls, where, with which key, and within which limits.
//!
//! ```toml
//! [llm]
//! provider = "anthropic"          # the default provider
//! model = "claude-sonnet-4-6"     # the default model
//! max_cost_usd = 5.0              # run-wide budgets
//! max_tokens = 2000000
//!
//! [llm.providers.anthropic]       # built in: anthropic, openai, gemini (google)
//! base_url = "https://api.anthropic.com"
//! api_key_env = "ANTHROPIC_API_KEY"
//! timeout = "120s"
//! max_output_tokens = 8192
//! retries = 3
//! concurrency = 4
//! structured_output = true        # routing answers as a tool call or JSON schema
//!
//! [llm.providers.local]           # any OpenAI-compatible server
//! api = "openai-chat"
//! base_url = "http://localhost:11434/v1"
//!
//! [llm.providers.openai]          # or a CLI coding agent (`crate::cli`)
//! api = "codex-cli"               # claude-cli | codex-cli | gemini-cli
//! command = "codex"
//! args = ["--sandbox", "workspace-write"]
//!
//! [llm.prices."my-model"]         # USD per million tokens
//! input = 1.0
//! output = 2.0
//!
//! [llm.models]                    # more models known per provider
//! local = ["qwen3:8b"]
//! ```

use std::collections::BTreeMap;
use std::time::Duration;

use toml::Value;

use crate::price::Price;
use crate::provider::Api;

/// A built-in provider: its name, API, default base URL, the variables
/// holding its key (first set wins) and the variable overriding its URL.
struct Builtin {
    name: &'static str,
    api: Api,
    base_url: &'static str,
    key_vars: &'static [&'static str],
    url_var: &'static str,
}

const BUILTINS: &[Builtin] = &[
    Builtin {
        name: "anthropic",
        api: Api::Anthropic,
        base_url: "https://api.anthropic.com",
        key_vars: &["ANTHROPIC_API_KEY"],
        url_var: "ANTHROPIC_BASE_URL",
    },
    Builtin {
        name: "openai",
        api: Api::OpenAiResponses,
        base_url: "https://api.openai.com/v1",
        key_vars: &["OPENAI_API_KEY"],
        url_var: "OPENAI_BASE_URL",
    },
    Builtin {
        name: "gemini",
        api: Api::Gemini,
        base_url: "https://generativelanguage.googleapis.com",
        key_vars: &["GEMINI_API_KEY", "GOOGLE_API_KEY"],
        url_var: "GEMINI_BASE_URL",
    },
];

/// The provider a name means: `google` is Gemini's other name.
pub fn canonical(name: &str) -> &str {
    match name {
        "google" => "gemini",
        other => other,
    }
}

/// Defaults of a provider's limits.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(120);
/// The default answer length, in tokens.
pub const DEFAULT_MAX_OUTPUT_TOKENS: u32 = 8192;
/// Retries after the first attempt, by default.
pub const DEFAULT_RETRIES: u32 = 3;
/// Calls at once per provider, by default.
pub const DEFAULT_CONCURRENCY: usize = 4;

/// A provider's table in `[llm.providers.NAME]`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ProviderTable {
    /// `api`: required for a provider that is not built in.
    pub api: Option<Api>,
    /// `base_url`.
    pub base_url: Option<String>,
    /// `api_key_env`: the variable holding the key.
    pub api_key_env: Option<String>,
    /// `timeout`.
    pub timeout: Option<Duration>,
    /// `max_output_tokens`.
    pub max_output_tokens: Option<u32>,
    /// `retries`.
    pub retries: Option<u32>,
    /// `concurrency`.
    pub concurrency: Option<usize>,
    /// `structured_output`: ask for a routing answer in the provider's
    /// structured form (`crate::structured`); default on.
    pub structured_output: Option<bool>,
    /// `api = "claude-cli"` (or `codex-cli`, `gemini-cli`): the provider
    /// is a CLI coding agent, not an HTTP API (`crate::cli`).
    pub cli: Option<crate::cli::CliKind>,
    /// `command`: a CLI agent's program (default: `claude`, `codex`,
    /// `gemini` on `PATH`).
    pub command: Option<String>,
    /// `args`: more arguments for a CLI agent.
    pub args: Option<Vec<String>>,
}

/// The `[llm]` table.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LlmConfig {
    /// `provider`: used by nodes that name none.
    pub provider: Option<String>,
    /// `model`: used by nodes that name none.
    pub model: Option<String>,
    /// `max_cost_usd`: the run's budget in US dollars.
    pub max_cost_usd: Option<f64>,
    /// `max_tokens`: the run's budget in tokens (input plus output).
    pub max_tokens: Option<u64>,
    /// `[llm.providers.NAME]`.
    pub providers: BTreeMap<String, ProviderTable>,
    /// `[llm.prices.MODEL]`.
    pub prices: BTreeMap<String, Price>,
    /// `[llm.models]`: more models known per provider.
    pub models: BTreeMap<String, Vec<String>>,
}

/// A key, kept out of `Debug` output.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// Wraps a key.
    pub fn new(key: String) -> Self {
        Secret(key)
    }

    /// The key itself, for the request header only.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret([redacted])")
    }
}

/// Everything a call to one provider needs.
#[derive(Debug, Clone, PartialEq)]
pub struct ProviderSettings {
    /// The provider's name (`anthropic`, or a `[llm.providers]` name).
    pub name: String,
    /// Its API.
    pub api: Api,
    /// Its base URL.
    pub base_url: String,
    /// The key (empty for a compatible server that needs none).
    pub key: Secret,
    /// The variable the key came from.
    pub key_var: Option<String>,
    /// Time for one attempt.
    pub timeout: Duration,
    /// The answer's length cap.
    pub max_output_tokens: u32,
    /// Retries after the first attempt.
    pub retries: u32,
    /// Calls at once.
    pub concurrency: usize,
    /// The first backoff delay (doubled on each retry).
    pub retry_delay: Duration,
    /// Whether a stage with routing choices also asks for its answer in
    /// the API's structured form (`crate::structured`).
    pub structured_output: bool,
}

impl LlmConfig {
    /// The settings of provider `name`, reading keys and base URLs through
    /// `env`. `Err` says what is missing and how to give it (never the key).
    pub fn resolve(
        &self,
        name: &str,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<ProviderSettings, String> {
        let name = canonical(name);
        let table = self.providers.get(name).cloned().unwrap_or_default();
        let builtin = BUILTINS.iter().find(|b| b.name == name);
        let api = match (table.api, builtin) {
            (Some(api), _) => api,
            (None, Some(b)) => b.api,
            (None, None) => {
                let known: Vec<&str> = BUILTINS
                    .iter()
                    .map(|b| b.name)
                    .chain(self.providers.keys().map(String::as_str))
                    .collect();
                let hint = did_you_mean(name, &known)
                    .map(|s| format!("did you mean `{s}`? "))
                    .unwrap_or_default();
                return Err(format!(
                    "unknown provider `{name}`; {hint}known: {} (or declare it in wf.toml: \
                     [llm.providers.{name}] api = \"openai-chat\", base_url = \"…\")",
                    known.join(", ")
                ));
            }
        };
        let env_set = |var: &str| env(var).filter(|v| !v.trim().is_empty());
        let base_url = builtin
            .and_then(|b| env_set(b.url_var))
            .or(table.base_url.clone())
            .or(builtin.map(|b| b.base_url.to_string()))
            .ok_or_else(|| format!("provider `{name}` has no base URL: set [llm.providers.{name}] base_url in wf.toml"))?;
        let vars: Vec<String> = match (&table.api_key_env, builtin) {
            (Some(v), _) => vec![v.clone()],
            (None, Some(b)) => b.key_vars.iter().map(|v| v.to_string()).collect(),
            (None, None) => Vec::new(),
        };
        let found = vars.iter().find_map(|v| env_set(v).map(|k| (v.clone(), k)));
        let (key_var, key) = match found {
            Some((var, key)) => (Some(var), key),
            // A compatible server declared without `api_key_env` needs no key.
            None if vars.is_empty() => (None, String::new()),
            None => {
                return Err(format!(
                    "the key of provider `{name}` is read from {}, which is not set \
                     (export {}=…, or name another variable with [llm.providers.{name}] api_key_env in wf.toml)",
                    vars.iter()
                        .map(|v| format!("`{v}`"))
                        .collect::<Vec<_>>()
                        .join(" or "),
                    vars[0]
                ));
            }
        };
        Ok(ProviderSettings {
            name: name.to_string(),
            api,
            base_url,
            key: Secret(key.trim().to_string()),
            key_var,
            timeout: table.timeout.unwrap_or(DEFAULT_TIMEOUT),
            max_output_tokens: table.max_output_tokens.unwrap_or(DEFAULT_MAX_OUTPUT_TOKENS),
            retries: table.retries.unwrap_or(DEFAULT_RETRIES),
            concurrency: table.concurrency.unwrap_or(DEFAULT_CONCURRENCY),
            retry_delay: Duration::from_millis(500),
            // On for every API, compatible servers included: vLLM, Ollama,
            // llama.cpp and LM Studio take `response_format` json_schema,
            // and one that rejects it gets an error naming this switch.
            structured_output: table.structured_output.unwrap_or(true),
        })
    }
}

/// The closest of `known` to `word`, when close enough to suggest.
pub fn did_you_mean<'a>(word: &str, known: &[&'a str]) -> Option<&'a str> {
    known
        .iter()
        .map(|k| (strsim::jaro_winkler(word, k), *k))
        .filter(|(score, _)| *score > 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, k)| k)
}

/// Parses the `[llm]` table of a `wf.toml` (absent: the defaults). `Err`
/// is `(line, column, message)` of the first problem.
pub fn parse(text: &str) -> Result<LlmConfig, (usize, usize, String)> {
    let at_offset = |offset: usize, message: String| {
        // A span may end past the text (an error at its end) or inside a
        // character: clamp it to the last boundary before it.
        let mut offset = offset.min(text.len());
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let before = &text[..offset];
        let line = before.matches('\n').count() + 1;
        let column = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
        (line, column, message)
    };
    let at = |needle: &str, message: String| at_offset(text.find(needle).unwrap_or(0), message);
    // A syntax error is placed where the TOML parser found it.
    let doc: toml::Table = toml::from_str(text).map_err(|e| {
        let offset = e.span().map_or(0, |r| r.start);
        at_offset(offset, e.message().to_string())
    })?;
    let Some(llm) = doc.get("llm") else {
        return Ok(LlmConfig::default());
    };
    let llm = table(llm, "[llm]").map_err(|m| at("[llm", m))?;
    let mut config = LlmConfig::default();
    for (key, value) in llm {
        let bad = |m: String| at(key, m);
        match key.as_str() {
            "provider" => config.provider = Some(string(value, "llm.provider").map_err(bad)?),
            "model" => config.model = Some(string(value, "llm.model").map_err(bad)?),
            "max_cost_usd" => {
                config.max_cost_usd = Some(number(value, "llm.max_cost_usd").map_err(bad)?)
            }
            "max_tokens" => config.max_tokens = Some(count(value, "llm.max_tokens").map_err(bad)?),
            "providers" => {
                for (name, t) in table(value, "[llm.providers]").map_err(bad)? {
                    // Placed at the provider's table header when there is
                    // one (the name alone may first appear as a value).
                    let header = format!("[llm.providers.{name}]");
                    let needle = if text.contains(&header) {
                        &header
                    } else {
                        name
                    };
                    let p = provider_table(name, t).map_err(|m| at(needle, m))?;
                    config.providers.insert(canonical(name).to_string(), p);
                }
            }
            "prices" => {
                for (model, t) in table(value, "[llm.prices]").map_err(bad)? {
                    let p = Price::from_toml(t)
                        .map_err(|m| at(model, format!("[llm.prices.\"{model}\"]: {m}")))?;
                    config.prices.insert(model.clone(), p);
                }
            }
            "models" => {
                for (provider, list) in table(value, "[llm.models]").map_err(bad)? {
                    let what = format!("llm.models.{provider}");
                    let models = list
                        .as_array()
                        .and_then(|a| {
                            a.iter()
                                .map(|m| m.as_str().map(str::to_string))
                                .collect::<Option<Vec<_>>>()
                        })
                        .ok_or_else(|| {
                            at(provider, format!("`{what}` must be a list of model names"))
                        })?;
                    config
                        .models
                        .insert(canonical(provider).to_string(), models);
                }
            }
            other => {
                return Err(bad(unknown(
                    other,
                    "[llm]",
                    &[
                        "provider",
                        "model",
                        "max_cost_usd",
                        "max_tokens",
                        "providers",
                        "prices",
                        "models",
                    ],
                )));
            }
        }
    }
    Ok(config)
}

fn provider_table(name: &str, value: &Value) -> Result<ProviderTable, String> {
    let section = format!("[llm.providers.{name}]");
    let mut p = ProviderTable::default();
    for (key, v) in table(value, &section)? {
        let what = format!("llm.providers.{name}.{key}");
        match key.as_str() {
            "api" => {
                let s = string(v, &what)?;
                if let Some(kind) = crate::cli::CliKind::from_name(&s) {
                    p.cli = Some(kind);
                    continue;
                }
                p.api = Some(
                    Api::ALL
                        .iter()
                        .find(|(n, _)| *n == s)
                        .map(|(_, a)| *a)
                        .ok_or_else(|| {
                            let names: Vec<&str> = Api::ALL
                                .iter()
                                .map(|(n, _)| *n)
                                .chain(crate::cli::CliKind::ALL.iter().map(|(n, _)| *n))
                                .collect();
                            unknown_value(&s, &what, &names)
                        })?,
                );
            }
            "command" => p.command = Some(string(v, &what)?),
            "args" => {
                p.args = Some(
                    v.as_array()
                        .and_then(|a| {
                            a.iter()
                                .map(|x| x.as_str().map(str::to_string))
                                .collect::<Option<Vec<_>>>()
                        })
                        .ok_or_else(|| format!("`{what}` must be a list of strings"))?,
                )
            }
            "base_url" => p.base_url = Some(string(v, &what)?),
            "api_key_env" => p.api_key_env = Some(string(v, &what)?),
            "timeout" => {
                let s = string(v, &what)?;
                p.timeout = Some(duration(&s).ok_or_else(|| {
                    format!("`{what}` is `{s}`, not a duration (write 250ms, 30s, 5m or 1h)")
                })?);
            }
            "max_output_tokens" => {
                p.max_output_tokens = Some(
                    u32::try_from(count(v, &what)?)
                        .map_err(|_| format!("`{what}` is too large"))?,
                )
            }
            "retries" => {
                p.retries = Some(
                    u32::try_from(count(v, &what)?)
                        .map_err(|_| format!("`{what}` is too large"))?,
                )
            }
            "concurrency" => {
                let n = count(v, &what)?;
                if n == 0 {
                    return Err(format!("`{what}` must be at least 1"));
                }
                p.concurrency = Some(n as usize);
            }
            "structured_output" => {
                p.structured_output = Some(
                    v.as_bool()
                        .ok_or_else(|| format!("`{what}` must be true or false"))?,
                )
            }
            other => {
                return Err(unknown(
                    other,
                    &section,
                    &[
                        "api",
                        "base_url",
                        "api_key_env",
                        "timeout",
                        "max_output_tokens",
                        "retries",
                        "concurrency",
                        "structured_output",
                        "command",
                        "args",
                    ],
                ));
            }
        }
    }
    Ok(p)
}

fn unknown(key: &str, section: &str, known: &[&str]) -> String {
    let hint = did_you_mean(key, known)
        .map(|s| format!("did you mean `{s}`? "))
        .unwrap_or_default();
    format!(
        "unknown key `{key}` in {section}; {hint}expected one of: {}",
        known.join(", ")
    )
}

fn unknown_value(value: &str, what: &str, known: &[&str]) -> String {
    let hint = did_you_mean(value, known)
        .map(|s| format!("did you mean `{s}`? "))
        .unwrap_or_default();
    format!(
        "`{what}` is `{value}`; {hint}expected one of: {}",
        known.join(", ")
    )
}

fn table<'a>(value: &'a Value, what: &str) -> Result<&'a toml::Table, String> {
    value
        .as_table()
        .ok_or_else(|| format!("{what} must be a table"))
}

fn string(value: &Value, what: &str) -> Result<String, String> {
    value
        .as_str()
        .map(str::to_string)
        .ok_or_else(|| format!("`{what}` must be a string"))
}

fn number(value: &Value, what: &str) -> Result<f64, String> {
    let n = match value {
        Value::Float(f) => *f,
        Value::Integer(i) => *i as f64,
        _ => return Err(format!("`{what}` must be a number")),
    };
    if n.is_finite() && n >= 0.0 {
        Ok(n)
    } else {
        Err(format!("`{what}` must be zero or more"))
    }
}

fn count(value: &Value, what: &str) -> Result<u64, String> {
    value
        .as_integer()
        .and_then(|i| u64::try_from(i).ok())
        .ok_or_else(|| format!("`{what}` must be a whole number, zero or more"))
}

/// Parses `250ms`, `30s`, `5m`, `1h` or a plain number of seconds.
pub fn duration(text: &str) -> Option<Duration> {
    let t = text.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (digits, unit) = t.split_at(split);
    let n: u64 = digits.parse().ok()?;
    let ms = match unit {
        "ms" => Some(n),
        "" | "s" => n.checked_mul(1000),
        "m" => n.checked_mul(60_000),
        "h" => n.checked_mul(3_600_000),
        _ => None,
    }?;
    Some(Duration::from_millis(ms))
}
