//! What the threads of one Lazy SMP search share besides the transposition table: the flag
//! that ends the helpers and each thread's published node and tablebase-hit counts (so that
//! `go nodes` and the reports count every thread). The search owns it; `threads` makes one per
//! search and hands it to every searcher.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// What the threads of one search share besides the table.
#[derive(Debug)]
pub struct Group {
    /// Raised by the main thread once it has its answer: the helpers stop.
    pub done: AtomicBool,
    /// Nodes searched by each thread, published at every clock poll (`poll_mask`).
    nodes: Vec<AtomicU64>,
    /// Tablebase hits of each thread, published with the nodes.
    tb_hits: Vec<AtomicU64>,
}

impl Group {
    pub fn new(threads: usize) -> Group {
        Group {
            done: AtomicBool::new(false),
            nodes: (0..threads).map(|_| AtomicU64::new(0)).collect(),
            tb_hits: (0..threads).map(|_| AtomicU64::new(0)).collect(),
        }
    }

    /// Publishes the node count and tablebase hits of thread `id`.
    #[inline]
    pub fn publish(&self, id: usize, nodes: u64, tb_hits: u64) {
        self.nodes[id].store(nodes, Ordering::Relaxed);
        self.tb_hits[id].store(tb_hits, Ordering::Relaxed);
    }

    /// Nodes searched by every thread except `id`, as last published.
    pub fn others(&self, id: usize) -> u64 {
        Self::sum_except(&self.nodes, id)
    }

    /// Tablebase hits of every thread except `id`, as last published.
    pub fn others_tb_hits(&self, id: usize) -> u64 {
        Self::sum_except(&self.tb_hits, id)
    }

    fn sum_except(counts: &[AtomicU64], id: usize) -> u64 {
        counts
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != id)
            .map(|(_, n)| n.load(Ordering::Relaxed))
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn group_counts_other_threads() {
        let g = Group::new(3);
        g.publish(0, 10, 1);
        g.publish(1, 20, 2);
        g.publish(2, 30, 4);
        assert_eq!(g.others(0), 50);
        assert_eq!(g.others(2), 30);
        assert_eq!(g.others_tb_hits(0), 6);
        assert_eq!(g.others_tb_hits(1), 5);
    }
}
