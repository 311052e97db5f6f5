//! Reads of a snapshot guarded against salsa's cancellation and panics:
//! a bug in one request must not end the server.

use std::panic::AssertUnwindSafe;

use wf_analysis::db::ide::catch_cancellation;

/// How a guarded read ended.
#[derive(Debug, PartialEq)]
pub enum Guarded<T> {
    /// It returned.
    Done(T),
    /// An edit cancelled it (salsa unwound it).
    Cancelled,
    /// It panicked, with this message.
    Panicked(String),
}

/// Runs a read of a snapshot, catching salsa's cancellation and any panic
/// (a bug in one request must not end the server).
pub fn guarded<T>(read: impl FnOnce() -> T) -> Guarded<T> {
    match std::panic::catch_unwind(AssertUnwindSafe(|| {
        catch_cancellation(AssertUnwindSafe(read))
    })) {
        Ok(Ok(value)) => Guarded::Done(value),
        Ok(Err(_cancelled)) => Guarded::Cancelled,
        Err(payload) => Guarded::Panicked(panic_message(payload.as_ref())),
    }
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "panic".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panicking_read_is_caught_with_its_message() {
        assert_eq!(guarded(|| 7), Guarded::Done(7));
        let caught: Guarded<()> = guarded(|| panic!("broken hover {}", 3));
        assert_eq!(caught, Guarded::Panicked("broken hover 3".to_string()));
        let caught: Guarded<()> = guarded(|| panic!("static"));
        assert_eq!(caught, Guarded::Panicked("static".to_string()));
    }
}
