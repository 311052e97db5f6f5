//! Bounding an agent's answer before it is logged or applied: key names,
//! reasons, notes, names and handler events (`docs/runtime.md` section 4).
//! Values are bounded when they are staged (`max_write_bytes`).

use serde_json::json;

use super::{Engine, StepInput};
use crate::agent::{Decision, Outcome, Status};
use crate::bound::{clip_in_place, key_excerpt};
use crate::config::SizeLimits;
use crate::contract::serialized_size;
use crate::failure::FailureKind;

/// The most node ids of `suggested_next` an outcome keeps.
const MAX_SUGGESTED: usize = 64;

impl Engine<'_> {
    /// Cuts what `input` carries to the size limits, in place. It runs on
    /// live and replayed inputs alike, before the log records them, so a
    /// log never holds more than a live run keeps and a replay applies
    /// exactly what the live run applied.
    pub(super) fn screen(&self, input: &mut StepInput) {
        let sizes = &self.config.sizes;
        match input {
            StepInput::Engine => {}
            StepInput::Reused { produced, .. } => self.screen(produced),
            StepInput::OverBudget { reason, .. } => clip_in_place(reason, sizes.max_text_bytes),
            StepInput::Abort { reason, .. } => clip_in_place(reason, sizes.max_text_bytes),
            StepInput::AgentError { message, .. } => clip_in_place(message, sizes.max_text_bytes),
            StepInput::Tool { outcome, .. } => {
                screen_outcome(outcome, sizes);
            }
            StepInput::Decision { decision, failure } => match decision {
                Decision::Advance(outcome) => {
                    if screen_outcome(outcome, sizes) {
                        *failure = Some(FailureKind::Contract);
                    }
                }
                Decision::Suspend { reason } => clip_in_place(reason, sizes.max_text_bytes),
                Decision::Complete { writes } => {
                    let Some(reason) = long_key(writes, sizes.max_key_bytes) else {
                        return;
                    };
                    let (wf, node, _) = self.position();
                    let terminal = self.program.workflows[wf.0 as usize].nodes[node.0 as usize]
                        .edges
                        .len
                        == 0;
                    if terminal {
                        // What staging the writes would have done.
                        *decision = Decision::Advance(Outcome {
                            status: Status::Fail,
                            failure_reason: Some(reason),
                            ..Outcome::success()
                        });
                        *failure = Some(FailureKind::Contract);
                    } else {
                        // Refused anyway (`complete` away from a terminal).
                        writes.clear();
                    }
                }
            },
        }
    }
}

/// The rejection of the first write whose key is too long, if any.
pub(crate) fn long_key(writes: &[crate::agent::Write], max: usize) -> Option<String> {
    let w = writes.iter().find(|w| w.key.len() > max)?;
    Some(format!(
        "write to `{}` rejected: the key is {} bytes long, over the limit of {max} (max_key_bytes)",
        key_excerpt(&w.key),
        w.key.len()
    ))
}

/// Bounds an outcome's texts; `true` when a write was rejected (the
/// outcome now fails: a contract failure).
fn screen_outcome(o: &mut Outcome, sizes: &SizeLimits) -> bool {
    let text = sizes.max_text_bytes;
    let rejected = match long_key(&o.writes, sizes.max_key_bytes) {
        Some(reason) => {
            // Like any rejected write: nothing is written and the node fails.
            o.writes.clear();
            o.status = Status::Fail;
            o.failure_reason = Some(reason);
            true
        }
        None => false,
    };
    for s in [
        &mut o.failure_reason,
        &mut o.notes,
        &mut o.edge,
        &mut o.preferred_label,
        &mut o.jump,
    ]
    .into_iter()
    .flatten()
    {
        clip_in_place(s, text);
    }
    o.suggested_next.truncate(MAX_SUGGESTED);
    for id in &mut o.suggested_next {
        clip_in_place(id, text);
    }
    o.events.truncate(sizes.max_events_per_step);
    for e in &mut o.events {
        clip_in_place(&mut e.name, sizes.max_key_bytes);
        let size = serialized_size(&e.data);
        if size > sizes.max_event_bytes {
            e.data = json!({
                "truncated": format!("the payload was {size} bytes, over the limit of {} (max_event_bytes)", sizes.max_event_bytes)
            });
        }
    }
    rejected
}
