//! A parallel map over a slice on rayon: the batch jobs' one way to use the cores.

use rayon::prelude::*;

/// `work(&mut state, index, item)` for every item, on a rayon pool of `workers`
/// threads; each rayon job gets its own `state` from `new_state` (a search table,
/// say: `map_init` builds one per job, a few per thread, never one per item). The
/// results come back in the items' order. Call it from a blocking thread, never from
/// an async worker: it blocks until every item is done.
pub fn parallel_map<T: Sync, R: Send, S>(
    items: &[T],
    workers: usize,
    new_state: impl Fn() -> S + Sync + Send,
    work: impl Fn(&mut S, usize, &T) -> R + Sync + Send,
) -> Vec<R> {
    let map = || {
        items
            .par_iter()
            .enumerate()
            .map_init(&new_state, |state, (index, item)| work(state, index, item))
            .collect()
    };
    match rayon::ThreadPoolBuilder::new().num_threads(workers.max(1)).build() {
        Ok(pool) => pool.install(map),
        // No thread could be started for a pool of our own: rayon's global pool.
        Err(_) => map(),
    }
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
