//! Back-off constants and the delay rule (Attractor section 3.6).

use crate::types::Backoff;

impl Backoff {
    /// The settings a custom `backoff = { … }` map starts from, and those
    /// Attractor's `BackoffConfig` defaults to: 200 ms, ×2, at most 60 s,
    /// with jitter.
    pub const DEFAULT: Backoff = Backoff {
        initial_delay_ms: 200,
        factor: 2.0,
        max_delay_ms: 60_000,
        jitter: true,
    };

    /// The `none` preset: retries (if any) follow each other at once.
    pub const NONE: Backoff = Backoff {
        initial_delay_ms: 0,
        factor: 1.0,
        max_delay_ms: 0,
        jitter: false,
    };

    /// The delay before retry number `attempt` (1 for the first retry), in
    /// milliseconds, before jitter: `initial_delay_ms × factor^(attempt-1)`,
    /// at most `max_delay_ms`. With `jitter`, the engine multiplies it by a
    /// random factor in [0.5, 1.5).
    pub fn delay_ms(&self, attempt: u32) -> u64 {
        let exponent = attempt.saturating_sub(1).min(i32::MAX as u32) as i32;
        let delay = self.initial_delay_ms as f64 * self.factor.powi(exponent);
        // `as` saturates: an infinite or huge delay becomes u64::MAX first.
        (delay as u64).min(self.max_delay_ms)
    }
}

/// A backoff preset of Attractor's section 3.6 (docs/ir.md lists them).
pub fn backoff_preset(name: &str) -> Option<Backoff> {
    let (initial_delay_ms, factor, jitter) = match name {
        "none" => return Some(Backoff::NONE),
        "standard" => (200, 2.0, true),
        "aggressive" => (500, 2.0, true),
        "linear" => (500, 1.0, true),
        "patient" => (2_000, 3.0, true),
        _ => return None,
    };
    Some(Backoff {
        initial_delay_ms,
        factor,
        max_delay_ms: Backoff::DEFAULT.max_delay_ms,
        jitter,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_give_attractors_delays() {
        let delays = |name: &str, n: u32| -> Vec<u64> {
            let b = backoff_preset(name).unwrap();
            (1..=n).map(|a| b.delay_ms(a)).collect()
        };
        assert_eq!(delays("standard", 5), [200, 400, 800, 1600, 3200]);
        assert_eq!(delays("aggressive", 5), [500, 1000, 2000, 4000, 8000]);
        assert_eq!(delays("linear", 3), [500, 500, 500]);
        assert_eq!(delays("patient", 3), [2000, 6000, 18000]);
        assert_eq!(delays("none", 2), [0, 0]);
        assert!(backoff_preset("exponential").is_none());
    }

    #[test]
    fn delays_are_capped() {
        let b = Backoff {
            factor: 10.0,
            ..Backoff::DEFAULT
        };
        assert_eq!(b.delay_ms(100), 60_000);
        assert_eq!(b.delay_ms(u32::MAX), 60_000);
    }
}
