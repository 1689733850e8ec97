//! A parallel map over a slice: the work queue the arena's batch jobs share.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// `work(&mut state, index, item)` for every item, on up to `workers` threads, each
/// with its own `state` from `new_state` (a search table, say). Items are taken in
/// order as threads come free; the results come back in the items' order.
pub fn parallel_map<T: Sync, R: Send, S>(
    items: &[T],
    workers: usize,
    new_state: impl Fn() -> S + Sync,
    work: impl Fn(&mut S, usize, &T) -> R + Sync,
) -> Vec<R> {
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<R>>> = Mutex::new((0..items.len()).map(|_| None).collect());
    std::thread::scope(|scope| {
        for _ in 0..workers.clamp(1, items.len().max(1)) {
            scope.spawn(|| {
                let mut state = new_state();
                loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    let Some(item) = items.get(index) else { break };
                    let result = work(&mut state, index, item);
                    results.lock().unwrap_or_else(|p| p.into_inner())[index] = Some(result);
                }
            });
        }
    });
    results
        .into_inner()
        .unwrap_or_else(|p| p.into_inner())
        .into_iter()
        .map(|r| r.expect("every item is taken by exactly one worker"))
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn results_keep_the_items_order() {
        let items: Vec<u64> = (0..100).collect();
        let squares = super::parallel_map(
            &items,
            4,
            || 0u64,
            |calls, i, x| {
                *calls += 1;
                assert_eq!(i as u64, *x);
                x * x
            },
        );
        assert_eq!(squares, items.iter().map(|x| x * x).collect::<Vec<_>>());
        assert!(super::parallel_map(&[] as &[u8], 3, || (), |_, _, x| *x).is_empty());
    }
}
