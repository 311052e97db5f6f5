//! The string table: each string once, numbered in order of first use.

use std::collections::HashMap;

use wf_ir::StrId;

/// Interns strings into the program's string table.
#[derive(Debug, Default)]
pub struct Interner {
    strings: Vec<String>,
    ids: HashMap<String, StrId>,
}

impl Interner {
    /// The id of `text`, adding it to the table on first use.
    pub fn intern(&mut self, text: &str) -> StrId {
        if let Some(&id) = self.ids.get(text) {
            return id;
        }
        let id = StrId(self.strings.len() as u32);
        self.strings.push(text.to_string());
        self.ids.insert(text.to_string(), id);
        id
    }

    /// The table, in id order.
    pub fn into_strings(self) -> Vec<String> {
        self.strings
    }
}
