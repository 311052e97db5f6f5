//! The models known per provider (`data/models.toml`), with `wf.toml`'s
//! `[llm.models]` added: `wfc check` warns about a model its provider does
//! not list.

use std::collections::BTreeMap;

use crate::config::canonical;

/// The catalog shipped with wfc.
pub const MODELS_TOML: &str = include_str!("../data/models.toml");

/// Models by provider.
#[derive(Debug, Clone, PartialEq)]
pub struct Catalog(BTreeMap<String, Vec<String>>);

impl Catalog {
    /// The shipped catalog with `extra` models added.
    pub fn with_extra(extra: &BTreeMap<String, Vec<String>>) -> Catalog {
        let doc: toml::Table = toml::from_str(MODELS_TOML).expect("data/models.toml parses");
        let mut map: BTreeMap<String, Vec<String>> = doc
            .iter()
            .map(|(p, list)| {
                let models = list.as_array().expect("a list");
                (
                    p.clone(),
                    models
                        .iter()
                        .filter_map(|m| m.as_str().map(str::to_string))
                        .collect(),
                )
            })
            .collect();
        for (p, models) in extra {
            map.entry(canonical(p).to_string())
                .or_default()
                .extend(models.iter().cloned());
        }
        Catalog(map)
    }

    /// Whether wfc can judge `provider`'s models (it lists some).
    pub fn covers(&self, provider: &str) -> bool {
        self.0.contains_key(canonical(provider))
    }

    /// Whether `model` is known for `provider`; `None` when the catalog does
    /// not cover the provider.
    /// A dated snapshot of a listed model (`gpt-5.2-2025-12-11`,
    /// `claude-sonnet-4-5-20250929`) is known too.
    pub fn knows(&self, provider: &str, model: &str) -> Option<bool> {
        let base = strip_date(model);
        self.0
            .get(canonical(provider))
            .map(|models| models.iter().any(|m| m == model || m == base))
    }

    /// The provider's known model closest to `model`, for a suggestion.
    pub fn closest(&self, provider: &str, model: &str) -> Option<&str> {
        let models = self.0.get(canonical(provider))?;
        let names: Vec<&str> = models.iter().map(String::as_str).collect();
        crate::config::did_you_mean(model, &names)
    }
}

/// `model` without a trailing `-YYYY-MM-DD` or `-YYYYMMDD`.
fn strip_date(model: &str) -> &str {
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if let Some((base, date)) = model.rsplit_once('-')
        && date.len() == 8
        && digits(date)
    {
        return base;
    }
    let parts: Vec<&str> = model.rsplitn(4, '-').collect();
    if parts.len() == 4
        && parts[2].len() == 4
        && parts[1].len() == 2
        && parts[0].len() == 2
        && parts[..3].iter().all(|p| digits(p))
    {
        return parts[3];
    }
    model
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dated_snapshots_are_known() {
        let c = Catalog::with_extra(&BTreeMap::new());
        assert_eq!(c.knows("openai", "gpt-5.2-2025-12-11"), Some(true));
        assert_eq!(
            c.knows("anthropic", "claude-sonnet-4-5-20250929"),
            Some(true)
        );
        assert_eq!(c.knows("anthropic", "claude-sonnet-4-5-2025"), Some(false));
    }
}
