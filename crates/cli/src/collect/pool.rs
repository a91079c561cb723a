//! A small fixed pool of threads mapping a function over a list, results in input order. Requests
//! to a cluster are few (a handful per namespace and broker), so plain threads are enough.

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Most threads `collect` uses, whatever `--concurrency` says (be gentle with the cluster).
pub const MAX_THREADS: usize = 16;

/// Runs `f` over `items` on `threads` threads (clamped to 1..=16); results in `items` order.
pub fn map<T, R, F>(items: &[T], threads: usize, f: F) -> Vec<R>
where
    T: Sync,
    R: Send,
    F: Fn(&T) -> R + Sync,
{
    let threads = threads.clamp(1, MAX_THREADS).min(items.len().max(1));
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<(usize, R)>> = Mutex::new(Vec::with_capacity(items.len()));
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(item) = items.get(i) else {
                        break;
                    };
                    let r = f(item);
                    if let Ok(mut out) = results.lock() {
                        out.push((i, r));
                    }
                }
            });
        }
    });
    let mut out = results.into_inner().unwrap_or_else(|p| p.into_inner());
    out.sort_by_key(|(i, _)| *i);
    out.into_iter().map(|(_, r)| r).collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn keeps_order() {
        let items: Vec<u32> = (0..50).collect();
        let out = super::map(&items, 4, |x| x * 2);
        assert_eq!(out, (0..50).map(|x| x * 2).collect::<Vec<_>>());
        assert!(super::map(&Vec::<u32>::new(), 4, |x| *x).is_empty());
    }
}
