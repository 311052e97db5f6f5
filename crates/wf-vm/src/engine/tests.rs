use std::time::Duration;

use super::support::backoff_delay;

#[test]
fn backoff_grows_caps_and_jitters_deterministically() {
    let b = wf_ir::Backoff {
        initial_delay_ms: 100,
        factor: 3.0,
        max_delay_ms: 500,
        jitter: false,
    };
    let delays: Vec<_> = (1..=4).map(|a| backoff_delay(Some(&b), a, 0)).collect();
    assert_eq!(delays, [100, 300, 500, 500].map(Duration::from_millis));
    assert_eq!(backoff_delay(None, 2, 0), Duration::from_millis(400));
    let j = wf_ir::Backoff { jitter: true, ..b };
    let d = backoff_delay(Some(&j), 1, 42);
    assert_eq!(d, backoff_delay(Some(&j), 1, 42), "same seed, same delay");
    assert!((50..=150).contains(&d.as_millis()), "{d:?}");
}
