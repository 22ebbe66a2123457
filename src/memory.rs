//! Large zeroed tables of atomic words (the transposition table), in memory that Linux backs
//! with 2 MB pages where it can.
//!
//! A search probes the transposition table at random places, so with 4 KB pages nearly every
//! probe also misses the TLB and walks the page tables before the cache miss proper. On Linux
//! the table is mapped directly (fresh, zeroed pages, touched only as the search uses them),
//! aligned to 2 MB and marked `MADV_HUGEPAGE`, which transparent huge pages honour in both their
//! `madvise` and `always` modes. Otherwise (other systems, tables under 2 MB, or a failed
//! mapping) the table comes from the allocator; both read the same.
//!
//! Also what Linux says about memory (`/proc`): how much is available, for the table's size
//! check, and the process's peak use, which the trainer prints.

use std::alloc::Layout;
use std::ops::Deref;
use std::ptr::NonNull;
use std::sync::atomic::AtomicU64;

/// The size of a huge page, and the alignment of a mapped table.
#[cfg(target_os = "linux")]
const HUGE_PAGE: usize = 2 * 1024 * 1024;

/// `len` zeroed atomic words that stay where they are until dropped.
pub struct ZeroedWords {
    ptr: NonNull<AtomicU64>,
    len: usize,
    origin: Origin,
}

/// Where the words came from, to give them back the same way.
enum Origin {
    /// The global allocator, with this layout.
    Heap(Layout),
    /// An anonymous mapping starting at `base`, `size` bytes long (the words start at the
    /// first 2 MB boundary inside it).
    #[cfg(target_os = "linux")]
    Mapped {
        base: *mut libc::c_void,
        size: usize,
    },
}

// SAFETY: the words are atomics, shared by reference like a `[AtomicU64]`; the raw pointers
// are owned exclusively by this value and only used to free the memory once.
unsafe impl Send for ZeroedWords {}
unsafe impl Sync for ZeroedWords {}

impl ZeroedWords {
    /// `len` zeroed words (`len` > 0), or `None` when the memory cannot be had.
    pub fn new(len: usize) -> Option<ZeroedWords> {
        #[cfg(target_os = "linux")]
        if len
            .checked_mul(size_of::<AtomicU64>())
            .is_some_and(|bytes| bytes >= HUGE_PAGE)
            && let Some(words) = Self::mapped(len)
        {
            return Some(words);
        }
        Self::heap(len)
    }

    fn heap(len: usize) -> Option<ZeroedWords> {
        let layout = Layout::array::<AtomicU64>(len).ok()?;
        if layout.size() == 0 {
            return None;
        }
        // SAFETY: the layout has a non-zero size; a null result is handled. All-zero bytes
        // are a valid AtomicU64.
        let ptr = NonNull::new(unsafe { std::alloc::alloc_zeroed(layout) } as *mut AtomicU64)?;
        Some(ZeroedWords {
            ptr,
            len,
            origin: Origin::Heap(layout),
        })
    }

    #[cfg(target_os = "linux")]
    fn mapped(len: usize) -> Option<ZeroedWords> {
        let bytes = len.checked_mul(size_of::<AtomicU64>())?;
        // One huge page more than needed, so that a 2 MB boundary with `bytes` after it lies
        // inside whatever address the kernel picks.
        let size = bytes.checked_add(HUGE_PAGE)?;
        // SAFETY: an anonymous private mapping at an address of the kernel's choosing; it
        // touches no existing memory. Failure is MAP_FAILED, handled below.
        let base = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                size,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if base == libc::MAP_FAILED {
            return None;
        }
        let offset = (HUGE_PAGE - base as usize % HUGE_PAGE) % HUGE_PAGE;
        // SAFETY: `offset` < HUGE_PAGE, so `start .. start + bytes` lies inside the mapping.
        let start = unsafe { (base as *mut u8).add(offset) };
        // Only advice: without transparent huge pages the call fails and 4 KB pages serve.
        // SAFETY: the range is inside the mapping made above.
        unsafe { libc::madvise(start as *mut libc::c_void, bytes, libc::MADV_HUGEPAGE) };
        Some(ZeroedWords {
            // SAFETY: `start` lies inside a mapping that succeeded, so it is not null.
            ptr: unsafe { NonNull::new_unchecked(start as *mut AtomicU64) },
            len,
            origin: Origin::Mapped { base, size },
        })
    }
}

impl Deref for ZeroedWords {
    type Target = [AtomicU64];

    fn deref(&self) -> &[AtomicU64] {
        // SAFETY: `ptr` points to `len` initialised (zeroed, then only atomically written)
        // words that live as long as `self`.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl Drop for ZeroedWords {
    fn drop(&mut self) {
        match self.origin {
            // SAFETY: allocated by the global allocator with exactly this layout.
            Origin::Heap(layout) => unsafe {
                std::alloc::dealloc(self.ptr.as_ptr() as *mut u8, layout)
            },
            // SAFETY: the mapping made in `mapped`, unmapped once.
            #[cfg(target_os = "linux")]
            Origin::Mapped { base, size } => unsafe {
                libc::munmap(base, size);
            },
        }
    }
}

impl std::fmt::Debug for ZeroedWords {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ZeroedWords")
            .field("len", &self.len)
            .field("mapped", &!matches!(self.origin, Origin::Heap(_)))
            .finish()
    }
}

/// A `/proc` file's `key:` line, in megabytes (the kernel writes it in kB), where the system
/// tells it.
fn proc_mb(path: &str, key: &str) -> Option<u64> {
    let text = std::fs::read_to_string(path).ok()?;
    let line = text.lines().find(|l| l.starts_with(key))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024)
}

/// `MemAvailable` from /proc/meminfo, in megabytes.
pub fn available_mb() -> Option<u64> {
    proc_mb("/proc/meminfo", "MemAvailable:")
}

/// The process's peak resident memory (`VmHWM` of /proc/self/status), in megabytes.
pub fn peak_mb() -> Option<u64> {
    proc_mb("/proc/self/status", "VmHWM:")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::Ordering;

    #[test]
    fn tables_small_and_large_start_zeroed_and_hold_what_is_written() {
        // 64 KB from the allocator; 8 MB and 3 MB mapped (on Linux) at a 2 MB boundary (a
        // mapping whose size is not a multiple of 2 MB is not placed on one by the kernel, so
        // the 3 MB table needs the offset).
        for len in [8 * 1024, 1024 * 1024, 3 << 17] {
            let words = ZeroedWords::new(len).unwrap();
            assert_eq!(words.len(), len);
            assert!(words.iter().all(|w| w.load(Ordering::Relaxed) == 0));
            for (i, w) in words.iter().enumerate().step_by(4099) {
                w.store(i as u64 + 1, Ordering::Relaxed);
            }
            for (i, w) in words.iter().enumerate() {
                let expected = if i % 4099 == 0 { i as u64 + 1 } else { 0 };
                assert_eq!(w.load(Ordering::Relaxed), expected);
            }
            #[cfg(target_os = "linux")]
            if len * 8 >= HUGE_PAGE {
                assert!(matches!(words.origin, Origin::Mapped { .. }));
                assert_eq!(words.as_ptr() as usize % HUGE_PAGE, 0);
            }
        }
        assert!(ZeroedWords::new(0).is_none());
    }
}
