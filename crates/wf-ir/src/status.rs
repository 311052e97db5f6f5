//! The outcome spellings of peer Attractor engines that conditions accept.
//!
//! fabro's engine writes `succeeded` and `failed` where the Attractor
//! spec (section 5.2) says `success` and `fail`, and fabro's pipelines
//! route on them (`condition="outcome=succeeded"`). wfc's handlers return
//! only the spec's statuses, so in an Attractor pipeline an
//! `outcome=V`/`outcome!=V` comparison reads `V` through this list: the
//! runtime's guard evaluator (`wf-vm`) and the checker (`wf-analysis`)
//! both use it, so they agree on which edges can be taken
//! (`docs/attractor.md`, "Peer outcome spellings").

/// `(peer spelling, spec status)`: exactly these, written exactly so.
pub const PEER_STATUSES: &[(&str, &str)] = &[("succeeded", "success"), ("failed", "fail")];

/// The spec status a peer spelling stands for (`succeeded` → `success`);
/// `None` for any other text, the spec's own statuses included.
pub fn peer_status(value: &str) -> Option<&'static str> {
    PEER_STATUSES
        .iter()
        .find(|(peer, _)| *peer == value)
        .map(|(_, status)| *status)
}
