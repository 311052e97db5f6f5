//! A fixed-size bit set: the "definitely written" keys of one program point.

/// A set of key indices `0..len`, one bit each. Every operation is
/// O(len / 64).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BitSet {
    words: Box<[u64]>,
}

impl BitSet {
    /// The empty set over `len` keys.
    pub fn empty(len: usize) -> Self {
        BitSet {
            words: vec![0; len.div_ceil(64)].into_boxed_slice(),
        }
    }

    /// Adds `bit`.
    pub fn insert(&mut self, bit: u32) {
        self.words[bit as usize / 64] |= 1 << (bit % 64);
    }

    /// Whether `bit` is in the set.
    pub fn contains(&self, bit: u32) -> bool {
        self.words[bit as usize / 64] & (1 << (bit % 64)) != 0
    }

    /// Adds every bit of `other` (the fan-in of parallel branches).
    pub fn union_with(&mut self, other: &BitSet) {
        for (a, b) in self.words.iter_mut().zip(other.words.iter()) {
            *a |= b;
        }
    }

    /// Keeps only the bits also in `other` (the merge of two paths).
    pub fn intersect_with(&mut self, other: &BitSet) {
        for (a, b) in self.words.iter_mut().zip(other.words.iter()) {
            *a &= b;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn insert_contains_intersect() {
        let mut a = BitSet::empty(130);
        a.insert(0);
        a.insert(64);
        a.insert(129);
        assert!(a.contains(0) && a.contains(64) && a.contains(129));
        assert!(!a.contains(1));
        let mut b = BitSet::empty(130);
        b.insert(64);
        a.intersect_with(&b);
        assert!(!a.contains(0) && a.contains(64) && !a.contains(129));
        b.insert(3);
        a.union_with(&b);
        assert!(a.contains(3) && a.contains(64));
    }
}
