//! The merge strategies of a `.wf` `join` (docs/attributes.md, "Merge
//! strategies"; docs/runtime.md, "Parallel branches").

use serde_json::{Map, Value};

use crate::agent::Write;
use crate::attractor::parallel::policy::BranchResult;

/// Merges the keys the branches wrote, in edge order, by `strategy`
/// (docs/attributes.md, "Merge strategies"). `Err`: a `fail` conflict.
pub(crate) fn merge(strategy: &str, branches: &[&BranchResult]) -> Result<Vec<Write>, String> {
    let mut keys: Vec<&String> = Vec::new();
    for b in branches {
        for k in b.context_updates.keys() {
            if !keys.contains(&k) {
                keys.push(k);
            }
        }
    }
    let mut writes = Vec::with_capacity(keys.len());
    for key in keys {
        let from: Vec<(&str, &Value)> = branches
            .iter()
            .filter_map(|b| b.context_updates.get(key).map(|v| (b.id.as_str(), v)))
            .collect();
        let value = match strategy {
            "first_wins" => from[0].1.clone(),
            "collect" => Value::Array(from.iter().map(|(_, v)| (*v).clone()).collect()),
            "merge_dict" => {
                let mut map = Map::new();
                let mut last = None;
                for (_, v) in &from {
                    match v {
                        Value::Object(m) => map.extend(m.clone()),
                        other => last = Some((*other).clone()),
                    }
                }
                // A value that is not a map replaces, as `last_wins` would.
                last.unwrap_or(Value::Object(map))
            }
            "fail" if from.len() > 1 => {
                let names: Vec<String> = from.iter().map(|(b, _)| format!("`{b}`")).collect();
                let (last, rest) = names.split_last().expect("two or more");
                return Err(format!(
                    "branches {} and {last} each wrote `{key}`, and the join merges with `merge = fail`",
                    rest.join(", ")
                ));
            }
            _ => from[from.len() - 1].1.clone(),
        };
        writes.push(Write {
            key: key.clone(),
            value,
        });
    }
    Ok(writes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::Status;
    use serde_json::json;

    fn branch(id: &str, writes: Value) -> BranchResult {
        BranchResult {
            outcome: Status::Success,
            context_updates: writes.as_object().unwrap().clone(),
            ..BranchResult::not_run(id, "")
        }
    }

    #[test]
    fn merge_strategies_in_edge_order() {
        let a = branch("a", json!({"k": {"x": 1, "both": "a"}, "only_a": 1}));
        let b = branch("b", json!({"k": {"y": 2, "both": "b"}}));
        let got = |s: &str| {
            merge(s, &[&a, &b]).map(|w| w.into_iter().map(|w| (w.key, w.value)).collect::<Vec<_>>())
        };
        let k = |v: Value| vec![("k".to_string(), v), ("only_a".to_string(), json!(1))];
        assert_eq!(got("last_wins").unwrap(), k(json!({"y": 2, "both": "b"})));
        assert_eq!(got("first_wins").unwrap(), k(json!({"x": 1, "both": "a"})));
        assert_eq!(
            got("merge_dict").unwrap(),
            k(json!({"x": 1, "y": 2, "both": "b"}))
        );
        let collected = got("collect").unwrap();
        assert_eq!(
            collected[0].1,
            json!([{"x": 1, "both": "a"}, {"y": 2, "both": "b"}])
        );
        assert_eq!(collected[1].1, json!([1]));
        let conflict = got("fail").unwrap_err();
        assert_eq!(
            conflict,
            "branches `a` and `b` each wrote `k`, and the join merges with `merge = fail`"
        );
        // One writer is no conflict.
        assert!(merge("fail", &[&a]).is_ok());
    }
}
