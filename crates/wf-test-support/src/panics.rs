//! Keeping caught panics quiet in one test without silencing the others.
//!
//! A test that catches panics on purpose (a fuzz-like loop) would print
//! each through the panic hook. Replacing the hook for the whole process,
//! as a test alone in its executable could, would also swallow the
//! failure messages of the other tests that run meanwhile in the same
//! binary; this guard silences the current thread only.

use std::cell::Cell;
use std::sync::Once;

thread_local! {
    static QUIET: Cell<bool> = const { Cell::new(false) };
}

/// While it lives, panics on this thread print nothing; panics on other
/// threads print as before.
pub struct QuietPanics {
    _not_send: std::marker::PhantomData<*const ()>,
}

impl QuietPanics {
    /// Silences panics on the current thread until the guard is dropped.
    pub fn on_this_thread() -> QuietPanics {
        static HOOK: Once = Once::new();
        HOOK.call_once(|| {
            let previous = std::panic::take_hook();
            std::panic::set_hook(Box::new(move |info| {
                if !QUIET.with(Cell::get) {
                    previous(info);
                }
            }));
        });
        QUIET.with(|quiet| quiet.set(true));
        QuietPanics {
            _not_send: std::marker::PhantomData,
        }
    }
}

impl Drop for QuietPanics {
    fn drop(&mut self) {
        QUIET.with(|quiet| quiet.set(false));
    }
}
