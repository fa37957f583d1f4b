//! An indexed binary min-heap of nodes keyed by their tentative values, with decrease-key: each node
//! is in the heap at most once, and `slot[node]` says where.

use crate::mesh::NONE;

pub(super) struct NodeHeap {
    entries: Vec<(f64, u32)>,
    slot: Vec<u32>,
}

impl NodeHeap {
    pub fn new(n_nodes: usize) -> Self {
        NodeHeap {
            entries: Vec::new(),
            slot: vec![NONE; n_nodes],
        }
    }

    /// Inserts `node` with `key`, or lowers its key if it is already in the heap with a larger one.
    pub fn push_or_decrease(&mut self, node: u32, key: f64) {
        let s = self.slot[node as usize];
        let i = if s == NONE {
            self.entries.push((key, node));
            self.entries.len() - 1
        } else if key < self.entries[s as usize].0 {
            self.entries[s as usize].0 = key;
            s as usize
        } else {
            return;
        };
        self.sift_up(i);
    }

    /// The node with the smallest key and its key, without removing it.
    pub fn peek(&self) -> Option<(f64, u32)> {
        self.entries.first().copied()
    }

    /// Removes and returns the node with the smallest key.
    pub fn pop(&mut self) -> Option<(f64, u32)> {
        let top = *self.entries.first()?;
        let last = self.entries.pop().expect("not empty");
        self.slot[top.1 as usize] = NONE;
        if !self.entries.is_empty() {
            self.entries[0] = last;
            self.slot[last.1 as usize] = 0;
            self.sift_down(0);
        }
        Some(top)
    }

    /// Ties are broken by node index, so the order never depends on insertion history.
    fn less(a: (f64, u32), b: (f64, u32)) -> bool {
        a.0 < b.0 || (a.0 == b.0 && a.1 < b.1)
    }

    fn sift_up(&mut self, mut i: usize) {
        let item = self.entries[i];
        while i > 0 {
            let parent = (i - 1) / 2;
            if !Self::less(item, self.entries[parent]) {
                break;
            }
            self.entries[i] = self.entries[parent];
            self.slot[self.entries[i].1 as usize] = i as u32;
            i = parent;
        }
        self.entries[i] = item;
        self.slot[item.1 as usize] = i as u32;
    }

    fn sift_down(&mut self, mut i: usize) {
        let item = self.entries[i];
        let n = self.entries.len();
        loop {
            let left = 2 * i + 1;
            if left >= n {
                break;
            }
            let right = left + 1;
            let child = if right < n && Self::less(self.entries[right], self.entries[left]) {
                right
            } else {
                left
            };
            if !Self::less(self.entries[child], item) {
                break;
            }
            self.entries[i] = self.entries[child];
            self.slot[self.entries[i].1 as usize] = i as u32;
            i = child;
        }
        self.entries[i] = item;
        self.slot[item.1 as usize] = i as u32;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pops_in_order_with_decrease_key() {
        let mut h = NodeHeap::new(100);
        let mut state = 12345u64;
        let mut best = vec![f64::INFINITY; 100];
        for _ in 0..1000 {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let node = ((state >> 33) % 100) as u32;
            let key = ((state >> 11) % 10_000) as f64;
            h.push_or_decrease(node, key);
            best[node as usize] = best[node as usize].min(key);
        }
        let mut last = f64::NEG_INFINITY;
        let mut count = 0;
        while let Some((key, node)) = h.pop() {
            assert!(key >= last);
            assert_eq!(key, best[node as usize]);
            last = key;
            count += 1;
        }
        assert_eq!(count, best.iter().filter(|b| b.is_finite()).count());
    }
}
