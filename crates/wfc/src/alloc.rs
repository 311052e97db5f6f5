//! The global allocator: mimalloc, called without its alignment path when
//! the block's natural alignment suffices.
//!
//! mimalloc instead of the system allocator: checking allocates many small
//! values (names, keys, syntax and model nodes), and glibc's malloc and free
//! were a quarter of a profile of `wfc check` on a large project. The
//! `mimalloc` crate's allocator sends every request through
//! `mi_malloc_aligned`/`mi_realloc_aligned`, whose checks were about 4% of
//! the instructions of checking the Attractor corpus; almost every Rust
//! allocation needs no more alignment than `mi_malloc` gives anyway.

use std::alloc::{GlobalAlloc, Layout};
use std::ffi::c_void;

use libmimalloc_sys as mi;

/// mimalloc aligns every block of at least this many bytes to this many
/// (`MI_MAX_ALIGN_SIZE`, `sizeof(max_align_t)`), and smaller blocks to their
/// size: its own `mi_malloc_is_naturally_aligned` relies on the same rule.
const NATURAL_ALIGN: usize = 16;

/// Whether `mi_malloc(size)` is aligned enough for `align`.
#[inline]
fn naturally_aligned(size: usize, align: usize) -> bool {
    align <= NATURAL_ALIGN && align <= size
}

/// mimalloc as the global allocator.
pub struct Mimalloc;

// SAFETY: every method forwards to the mimalloc function with the same
// contract, choosing the unaligned one only when mimalloc guarantees the
// alignment the layout asks for (see `naturally_aligned`).
unsafe impl GlobalAlloc for Mimalloc {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: plain allocations; mimalloc returns null on failure.
        unsafe {
            if naturally_aligned(layout.size(), layout.align()) {
                mi::mi_malloc(layout.size()).cast()
            } else {
                mi::mi_malloc_aligned(layout.size(), layout.align()).cast()
            }
        }
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as `alloc`.
        unsafe {
            if naturally_aligned(layout.size(), layout.align()) {
                mi::mi_zalloc(layout.size()).cast()
            } else {
                mi::mi_zalloc_aligned(layout.size(), layout.align()).cast()
            }
        }
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, _layout: Layout) {
        // SAFETY: `ptr` came from this allocator (GlobalAlloc's contract);
        // mimalloc frees aligned and unaligned blocks alike.
        unsafe { mi::mi_free(ptr.cast::<c_void>()) }
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: `ptr` came from this allocator with `layout`; the new
        // block keeps the layout's alignment.
        unsafe {
            if naturally_aligned(new_size, layout.align()) {
                mi::mi_realloc(ptr.cast::<c_void>(), new_size).cast()
            } else {
                mi::mi_realloc_aligned(ptr.cast::<c_void>(), new_size, layout.align()).cast()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every size and alignment up to a page, allocated, grown, shrunk and
    /// zeroed, lands on its alignment and keeps its bytes.
    #[test]
    fn blocks_are_aligned_and_keep_their_contents() {
        let alloc = Mimalloc;
        for align in [1usize, 2, 4, 8, 16, 32, 64, 4096] {
            for size in (1..=300).chain([1000, 4096, 70_000]) {
                let layout = Layout::from_size_align(size, align).unwrap();
                // SAFETY: non-zero sizes, freed with the layout they had.
                unsafe {
                    let p = alloc.alloc(layout);
                    assert!(!p.is_null());
                    assert_eq!(p as usize % align, 0, "size {size} align {align}");
                    std::ptr::write_bytes(p, 0xA5, size);
                    let grown = alloc.realloc(p, layout, size * 3);
                    assert_eq!(grown as usize % align, 0, "grown {size} align {align}");
                    assert!((0..size).all(|i| *grown.add(i) == 0xA5));
                    let grown_layout = Layout::from_size_align(size * 3, align).unwrap();
                    let shrunk = alloc.realloc(grown, grown_layout, size.div_ceil(2));
                    assert_eq!(shrunk as usize % align, 0, "shrunk {size} align {align}");
                    assert!((0..size.div_ceil(2)).all(|i| *shrunk.add(i) == 0xA5));
                    alloc.dealloc(
                        shrunk,
                        Layout::from_size_align(size.div_ceil(2), align).unwrap(),
                    );
                    let z = alloc.alloc_zeroed(layout);
                    assert_eq!(z as usize % align, 0);
                    assert!((0..size).all(|i| *z.add(i) == 0));
                    alloc.dealloc(z, layout);
                }
            }
        }
    }
}
