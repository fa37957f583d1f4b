//! Solves with a simplicial Cholesky factor `L Lᵀ` on two threads, by splitting its elimination
//! tree.
//!
//! Column `j` of `L` has its off-diagonal rows among the ancestors of `j` in the elimination
//! tree. So the forward solve `L y = b` of a subtree writes only into the subtree and the columns
//! above it, and the backward solve `Lᵀ x = y` of a subtree reads only from them. Two sets of
//! disjoint subtrees (the halves) can therefore be solved on two threads at once, each in its own
//! copy of the right-hand side; the columns above them (the top) are solved alone, after the
//! halves in the forward solve (their contributions summed) and before them in the backward one.
//!
//! The split ([`TreeSplit::new`]) is chosen once per factor: starting from the roots, the
//! heaviest subtree (by entries of `L`) is moved to the top while that lowers the estimated time
//! `top + max(half₀, half₁)` of a solve, the subtrees below the top dealt to the halves largest
//! first. On the P2 velocity factor of the immersed-bodies benchmark (AMD order) the top holds a few
//! percent of the entries.
//!
//! All right-hand sides are solved in one sweep over `L` (`K` values per unknown): the solves
//! are bound by reading `L`, which this reads once for all of them.
//!
//! **Cost**: the split is a pass over the tree (`O(n log n)` with the heap of subtrees); a solve
//! does `4 nnz(L) K` flops in about `top + max(half₀, half₁)` of the one-thread time, plus a
//! copy of the right-hand sides for the second thread.

use rayon::join;
use std::collections::BinaryHeap;

const NONE: u32 = u32::MAX;

/// The lower factor `L` of a simplicial Cholesky factorisation, by columns, the diagonal first
/// in each.
#[derive(Clone, Copy)]
pub struct Lower<'a> {
    /// `start[j]..start[j + 1]` are column `j`'s entries.
    pub start: &'a [u32],
    /// Their rows.
    pub row: &'a [u32],
    /// Their values.
    pub value: &'a [f64],
}

impl Lower<'_> {
    /// `L y = b` on `columns` (increasing), in place.
    fn forward<const K: usize>(&self, columns: &[u32], y: &mut [[f64; K]]) {
        for &j in columns {
            let (first, last) = (self.start[j as usize] as usize, self.start[j as usize + 1] as usize);
            let d = self.value[first];
            let t = y[j as usize].map(|v| v / d);
            y[j as usize] = t;
            for (&i, &v) in self.row[first + 1..last].iter().zip(&self.value[first + 1..last]) {
                let e = &mut y[i as usize];
                for c in 0..K {
                    e[c] -= v * t[c];
                }
            }
        }
    }

    /// `Lᵀ x = y` on `columns` (increasing, walked backwards), in place.
    fn backward<const K: usize>(&self, columns: &[u32], y: &mut [[f64; K]]) {
        for &j in columns.iter().rev() {
            let (first, last) = (self.start[j as usize] as usize, self.start[j as usize + 1] as usize);
            // Four partial sums: one would chain every entry's subtraction to the last.
            let mut s = [[0.0; K]; 4];
            let (rows, values) = (&self.row[first + 1..last], &self.value[first + 1..last]);
            let (rows4, values4) = (rows.chunks_exact(4), values.chunks_exact(4));
            let (rest_rows, rest_values) = (rows4.remainder(), values4.remainder());
            for (r, v) in rows4.zip(values4) {
                for q in 0..4 {
                    let e = &y[r[q] as usize];
                    for c in 0..K {
                        s[q][c] += v[q] * e[c];
                    }
                }
            }
            for (&i, &v) in rest_rows.iter().zip(rest_values) {
                let e = &y[i as usize];
                for c in 0..K {
                    s[0][c] += v * e[c];
                }
            }
            let d = self.value[first];
            let b = y[j as usize];
            y[j as usize] = std::array::from_fn(|c| (b[c] - ((s[0][c] + s[1][c]) + (s[2][c] + s[3][c]))) / d);
        }
    }
}

/// The split of an elimination tree, with the right-hand sides of its solves.
#[derive(Debug)]
pub struct TreeSplit {
    /// The columns of each half, increasing.
    halves: [Vec<u32>; 2],
    /// The columns above the halves, increasing.
    top: Vec<u32>,
    scratch: SplitScratch,
}

/// The right-hand sides (in the factor's order) and the second half's copy of them, by number of
/// right-hand sides.
#[derive(Debug, Default)]
pub struct SplitScratch {
    one: [Vec<[f64; 1]>; 2],
    two: [Vec<[f64; 2]>; 2],
    three: [Vec<[f64; 3]>; 2],
}

/// The scratch for `K` right-hand sides.
pub trait Lanes<const K: usize> {
    /// The right-hand sides and the second half's copy.
    fn lanes(&mut self) -> &mut [Vec<[f64; K]>; 2];
}

impl Lanes<1> for SplitScratch {
    fn lanes(&mut self) -> &mut [Vec<[f64; 1]>; 2] {
        &mut self.one
    }
}

impl Lanes<2> for SplitScratch {
    fn lanes(&mut self) -> &mut [Vec<[f64; 2]>; 2] {
        &mut self.two
    }
}

impl Lanes<3> for SplitScratch {
    fn lanes(&mut self) -> &mut [Vec<[f64; 3]>; 2] {
        &mut self.three
    }
}

impl TreeSplit {
    /// Splits the elimination tree given by `parent` (`NONE` at the roots) of the factor with
    /// column starts `start`.
    pub fn new(start: &[u32], parent: &[u32]) -> TreeSplit {
        let n = parent.len();
        let mut weight: Vec<u64> = (0..n).map(|j| u64::from(start[j + 1] - start[j])).collect();
        let mut first_child = vec![0u32; n + 1];
        for j in 0..n {
            if parent[j] != NONE {
                weight[parent[j] as usize] += weight[j];
                first_child[parent[j] as usize + 1] += 1;
            }
        }
        for j in 0..n {
            first_child[j + 1] += first_child[j];
        }
        let mut children = vec![0u32; first_child[n] as usize];
        let mut next = first_child.clone();
        for (j, &p) in parent.iter().enumerate() {
            if p != NONE {
                children[next[p as usize] as usize] = j as u32;
                next[p as usize] += 1;
            }
        }
        let total: u64 = (0..n).filter(|&j| parent[j] == NONE).map(|j| weight[j]).sum();
        let mut frontier: BinaryHeap<(u64, u32)> = (0..n)
            .filter(|&j| parent[j] == NONE)
            .map(|j| (weight[j], j as u32))
            .collect();
        let mut top = Vec::new();
        let mut top_weight = 0u64;
        let mut best = (u64::MAX, 0usize, Vec::new());
        loop {
            // Largest first into the lighter half.
            let mut roots: Vec<(u64, u32)> = frontier.iter().copied().collect();
            roots.sort_unstable_by(|a, b| b.cmp(a));
            let mut load = [0u64; 2];
            let mut deal = [Vec::new(), Vec::new()];
            for (w, j) in roots {
                let h = usize::from(load[1] < load[0]);
                load[h] += w;
                deal[h].push(j);
            }
            let cost = top_weight + load[0].max(load[1]);
            if cost < best.0 {
                best = (cost, top.len(), [&deal[0][..], &[NONE], &deal[1][..]].concat());
            }
            // Whatever moves to the top next, a solve costs at least this.
            if top_weight + (total - top_weight) / 2 >= best.0 {
                break;
            }
            let Some((w, j)) = frontier.pop() else { break };
            top.push(j);
            top_weight += w - children_weight(&children, &first_child, &weight, j);
            for &c in &children[first_child[j as usize] as usize..first_child[j as usize + 1] as usize] {
                frontier.push((weight[c as usize], c));
            }
        }
        let (_, top_len, dealt) = best;
        top.truncate(top_len);
        top.sort_unstable();
        let mut halves = [Vec::new(), Vec::new()];
        let mut h = 0;
        let mut stack = Vec::new();
        for r in dealt {
            if r == NONE {
                h = 1;
                continue;
            }
            stack.push(r);
            while let Some(j) = stack.pop() {
                halves[h].push(j);
                stack.extend_from_slice(
                    &children[first_child[j as usize] as usize..first_child[j as usize + 1] as usize],
                );
            }
        }
        for half in &mut halves {
            half.sort_unstable();
        }
        TreeSplit {
            halves,
            top,
            scratch: SplitScratch::default(),
        }
    }

    /// The entries of `L` in the top and in each half (what a solve's time follows).
    pub fn loads(&self, start: &[u32]) -> [u64; 3] {
        let count = |columns: &[u32]| {
            columns
                .iter()
                .map(|&j| u64::from(start[j as usize + 1] - start[j as usize]))
                .sum::<u64>()
        };
        [count(&self.top), count(&self.halves[0]), count(&self.halves[1])]
    }

    /// The right-hand sides of a solve with `n` columns, `K` values per column of the factor,
    /// to fill before [`solve`](Self::solve) and read after.
    pub fn right_hand_sides<const K: usize>(&mut self, n: usize) -> &mut [[f64; K]]
    where
        SplitScratch: Lanes<K>,
    {
        let y = &mut self.scratch.lanes()[0];
        y.resize(n, [0.0; K]);
        y
    }

    /// `y ← (L Lᵀ)⁻¹ y` on the [`right_hand_sides`](Self::right_hand_sides).
    pub fn solve<const K: usize>(&mut self, l: Lower<'_>)
    where
        SplitScratch: Lanes<K>,
    {
        let TreeSplit { halves, top, scratch } = self;
        let [y, second] = scratch.lanes();
        second.resize(y.len(), [0.0; K]);
        for &j in &halves[1] {
            second[j as usize] = y[j as usize];
        }
        for &j in top.iter() {
            second[j as usize] = [0.0; K];
        }
        join(|| l.forward(&halves[0], y), || l.forward(&halves[1], second));
        for &j in top.iter() {
            for c in 0..K {
                y[j as usize][c] += second[j as usize][c];
            }
        }
        l.forward(top, y);
        l.backward(top, y);
        for &j in top.iter() {
            second[j as usize] = y[j as usize];
        }
        join(|| l.backward(&halves[0], y), || l.backward(&halves[1], second));
        for &j in &halves[1] {
            y[j as usize] = second[j as usize];
        }
    }
}

/// The summed subtree weights of `j`'s children.
fn children_weight(children: &[u32], first_child: &[u32], weight: &[u64], j: u32) -> u64 {
    children[first_child[j as usize] as usize..first_child[j as usize + 1] as usize]
        .iter()
        .map(|&c| weight[c as usize])
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every column in exactly one of the top and the halves, each half closed under
    /// descendants (a column's parent is in its half or the top), the top closed under
    /// ancestors.
    fn check_partition(parent: &[u32], split: &TreeSplit) {
        let mut owner = vec![u8::MAX; parent.len()];
        for (o, columns) in [(2u8, &split.top), (0, &split.halves[0]), (1, &split.halves[1])] {
            assert!(columns.windows(2).all(|w| w[0] < w[1]), "increasing");
            for &j in columns {
                assert_eq!(owner[j as usize], u8::MAX, "column {j} twice");
                owner[j as usize] = o;
            }
        }
        for (j, &p) in parent.iter().enumerate() {
            assert_ne!(owner[j], u8::MAX, "column {j} in no part");
            if p != NONE {
                let (mine, theirs) = (owner[j], owner[p as usize]);
                assert!(
                    theirs == mine || theirs == 2,
                    "column {j} in {mine}, its parent {p} in {theirs}"
                );
            }
        }
    }

    #[test]
    fn a_balanced_binary_tree_splits_below_its_root() {
        // Heap order reversed so that parents come after children: node k of the heap (children
        // 2k + 1, 2k + 2) is column n − 1 − k; one entry per column.
        let n = 1023;
        let parent: Vec<u32> = (0..n)
            .map(|j| {
                let k = n - 1 - j;
                if k == 0 {
                    NONE
                } else {
                    (n - 1 - (k - 1) / 2) as u32
                }
            })
            .collect();
        let start: Vec<u32> = (0..=n as u32).collect();
        let split = TreeSplit::new(&start, &parent);
        check_partition(&parent, &split);
        assert_eq!(split.loads(&start), [1, 511, 511]);
    }

    #[test]
    fn random_forests_are_partitioned_and_no_worse_than_one_thread() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for n in [1usize, 2, 7, 100, 5000] {
            let parent: Vec<u32> = (0..n)
                .map(|j| {
                    if j + 1 == n || next() % 10 == 0 {
                        NONE
                    } else {
                        (j + 1 + (next() % 4) as usize).min(n - 1) as u32
                    }
                })
                .collect();
            let mut start = vec![0u32];
            for _ in 0..n {
                start.push(start.last().unwrap() + 1 + (next() % 50) as u32);
            }
            let split = TreeSplit::new(&start, &parent);
            check_partition(&parent, &split);
            let [top, a, b] = split.loads(&start);
            assert!(top + a.max(b) <= u64::from(start[n]), "{top} + max({a}, {b})");
        }
    }
}
