//! Turning tokens into US dollars: the price table in the repo
//! (`data/prices.toml`) with `wf.toml`'s `[llm.prices]` over it.

use std::collections::BTreeMap;

use crate::provider::Usage;

/// The price table shipped with wfc.
pub const PRICES_TOML: &str = include_str!("../data/prices.toml");

/// A model's prices, in USD per million tokens.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Price {
    /// Prompt tokens.
    pub input: f64,
    /// Answer tokens (reasoning included).
    pub output: f64,
    /// Prompt tokens read from the cache.
    pub cached_input: f64,
}

impl Price {
    /// Reads `{ input, output, cached_input? }`.
    pub fn from_toml(value: &toml::Value) -> Result<Price, String> {
        let t = value.as_table().ok_or("a price must be a table")?;
        let get = |k: &str| -> Result<Option<f64>, String> {
            match t.get(k) {
                None => Ok(None),
                Some(toml::Value::Float(f)) if *f >= 0.0 => Ok(Some(*f)),
                Some(toml::Value::Integer(i)) if *i >= 0 => Ok(Some(*i as f64)),
                Some(_) => Err(format!("`{k}` must be a number, zero or more")),
            }
        };
        if let Some(k) = t
            .keys()
            .find(|k| !["input", "output", "cached_input"].contains(&k.as_str()))
        {
            return Err(format!(
                "unknown key `{k}`; expected input, output, cached_input"
            ));
        }
        let input = get("input")?.ok_or("`input` is required")?;
        Ok(Price {
            input,
            output: get("output")?.ok_or("`output` is required")?,
            cached_input: get("cached_input")?.unwrap_or(input),
        })
    }

    /// The cost of `usage`, in USD.
    pub fn cost(&self, usage: &Usage) -> f64 {
        let fresh = usage.input.saturating_sub(usage.cached) as f64;
        (fresh * self.input
            + usage.cached as f64 * self.cached_input
            + usage.output as f64 * self.output)
            / 1_000_000.0
    }
}

/// Prices by model.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PriceTable(pub BTreeMap<String, Price>);

impl PriceTable {
    /// The shipped table with `overrides` (from `wf.toml`) over it.
    pub fn with_overrides(overrides: &BTreeMap<String, Price>) -> PriceTable {
        let mut table = Self::shipped();
        table
            .0
            .extend(overrides.iter().map(|(k, v)| (k.clone(), *v)));
        table
    }

    /// The shipped table.
    pub fn shipped() -> PriceTable {
        let doc: toml::Table = toml::from_str(PRICES_TOML).expect("data/prices.toml parses");
        let models = doc["models"].as_table().expect("[models]");
        PriceTable(
            models
                .iter()
                .map(|(k, v)| (k.clone(), Price::from_toml(v).expect("a valid price")))
                .collect(),
        )
    }

    /// The price of `model`, when known.
    pub fn get(&self, model: &str) -> Option<&Price> {
        self.0.get(model)
    }
}
