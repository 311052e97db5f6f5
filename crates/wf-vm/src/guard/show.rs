//! Guard values written back in the language's own syntax, for error
//! messages: a user wrote `"yes"`, not `Str("yes", None)`.

use std::fmt::{self, Display, Formatter};

use serde_json::Value;

use super::{V, from_json};

impl Display for V<'_> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            // Never printed by `truth` (an absent key reads as false), but
            // named plainly should a later message show it.
            V::Missing => f.write_str("an absent key"),
            V::Null => f.write_str("null"),
            V::Bool(b) => write!(f, "{b}"),
            V::Int(i) => write!(f, "{i}"),
            V::Float(x) => match serde_json::Number::from_f64(*x) {
                Some(n) => write!(f, "{n}"),
                None => write!(f, "{x}"),
            },
            // JSON's quoting is the language's: `"a \"b\""`.
            V::Str(s, _) => write!(f, "{}", Value::from(*s)),
            V::Json(Value::Array(a)) => list(f, a.iter().map(from_json)),
            V::Json(Value::Object(m)) => {
                f.write_str("{")?;
                for (i, (k, v)) in m.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{}: {}", Value::from(k.as_str()), from_json(v))?;
                }
                f.write_str("}")
            }
            V::Json(v) => write!(f, "{}", from_json(v)),
            V::List(items) => list(f, items.iter().cloned()),
        }
    }
}

/// `[a, b]`, spaced as the formatter writes a list.
fn list<'a>(f: &mut Formatter<'_>, items: impl Iterator<Item = V<'a>>) -> fmt::Result {
    f.write_str("[")?;
    for (i, item) in items.enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        write!(f, "{item}")?;
    }
    f.write_str("]")
}
