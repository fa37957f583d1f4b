//! Splitting a simplex along the zero set of a level-set function, conformingly.
//!
//! Each vertex of a cell has a sign (−, 0, +); every edge with a − and a + end carries a new node
//! on the zero set. The part of the cell on one side is a convex polytope whose vertices are the
//! cell's vertices of that sign or 0 and the cut nodes; it is split into simplices by the *pulling*
//! triangulation: take its vertex with the smallest global index, triangulate (recursively, by the
//! same rule) each of its facets that does not contain that vertex, and join them to it. A facet
//! shared by two cells has the same vertices and signs in both, so both triangulate it the same
//! way: the result is conforming without any communication between cells.
//!
//! A polytope is described by a subset `T` of the cell's vertices (a bitmask) and what it is:
//! `Piece(T, s)`, the part of the sub-simplex `T` on side `s`, with facets `Piece(T∖i, s)` and
//! `Zero(T)`; or `Zero(T)`, the zero set inside `T`, with facets `Zero(T∖i)`.

/// A polytope inside one cell.
#[derive(Clone, Copy)]
enum Poly {
    Piece(u8, i8),
    Zero(u8),
}

/// A cell being cut: its global node ids, their signs, and the cut node of each crossing edge.
pub(super) struct CutCell<'a> {
    pub ids: &'a [u32],
    pub sign: &'a [i8],
    /// `cut(i, j)`: the global id of the node on the edge between local vertices `i` and `j`.
    pub cut: &'a dyn Fn(usize, usize) -> u32,
}

impl CutCell<'_> {
    /// The simplices (each `ids.len()` global node ids) of the part of the cell on side `side`.
    pub(super) fn piece(&self, side: i8) -> Vec<Vec<u32>> {
        let all = (1u8 << self.ids.len()) - 1;
        let mut out = Vec::new();
        self.pull(Poly::Piece(all, side), self.ids.len() - 1, &mut out);
        out
    }

    fn vertices(&self, poly: Poly) -> Vec<u32> {
        let (mask, keep) = match poly {
            Poly::Piece(m, s) => (m, s),
            Poly::Zero(m) => (m, 0),
        };
        let mut v = Vec::with_capacity(8);
        for i in 0..self.ids.len() {
            if mask & (1 << i) != 0 && (self.sign[i] == 0 || self.sign[i] == keep) {
                v.push(self.ids[i]);
            }
        }
        for i in 0..self.ids.len() {
            for j in i + 1..self.ids.len() {
                if mask & (1 << i) != 0 && mask & (1 << j) != 0 && self.sign[i] * self.sign[j] < 0 {
                    v.push((self.cut)(i, j));
                }
            }
        }
        v.sort_unstable();
        v.dedup();
        v
    }

    fn facets(&self, poly: Poly) -> Vec<Poly> {
        let (Poly::Piece(mask, _) | Poly::Zero(mask)) = poly;
        let mut out: Vec<Poly> = (0..self.ids.len())
            .filter(|i| mask & (1 << i) != 0)
            .map(|i| match poly {
                Poly::Piece(_, s) => Poly::Piece(mask & !(1 << i), s),
                Poly::Zero(_) => Poly::Zero(mask & !(1 << i)),
            })
            .collect();
        if let Poly::Piece(..) = poly {
            out.push(Poly::Zero(mask));
        }
        out
    }

    /// Appends the pulling triangulation of the `k`-dimensional polytope `poly` to `out`.
    fn pull(&self, poly: Poly, k: usize, out: &mut Vec<Vec<u32>>) {
        let v = self.vertices(poly);
        if v.len() < k + 1 {
            return;
        }
        if v.len() == k + 1 {
            out.push(v);
            return;
        }
        let apex = v[0];
        let mut seen: Vec<Vec<u32>> = Vec::new();
        for f in self.facets(poly) {
            let vf = self.vertices(f);
            if vf.len() < k || vf.contains(&apex) || seen.contains(&vf) {
                continue;
            }
            seen.push(vf);
            let start = out.len();
            self.pull(f, k - 1, out);
            for s in &mut out[start..] {
                s.push(apex);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn measure(p: &[[f64; 3]], s: &[u32]) -> f64 {
        let d = |i: usize| {
            let (a, b) = (p[s[i] as usize], p[s[0] as usize]);
            [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
        };
        let (a, b, c) = (d(1), d(2), d(3));
        (a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) + a[2] * (b[0] * c[1] - b[1] * c[0]))
            .abs()
            / 6.0
    }

    /// Both pieces of a tetrahedron cut by a plane, for every sign pattern, add up to its volume.
    #[test]
    fn pieces_tile_the_cell() {
        let mut p = vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
        // Level set φ = x + y + z − 0.5 with vertex values forced to the sign patterns below; cut
        // nodes by linear interpolation of the actual values.
        for pattern in [
            [-1i8, 1, 1, 1],
            [-1, -1, 1, 1],
            [-1, -1, -1, 1],
            [-1, 0, 1, 1],
            [-1, 0, 0, 1],
            [0, -1, 1, 1],
        ] {
            let phi: Vec<f64> = pattern.iter().map(|&s| s as f64).collect();
            p.truncate(4);
            let mut cuts = std::collections::HashMap::new();
            for i in 0..4 {
                for j in i + 1..4 {
                    if pattern[i] * pattern[j] < 0 {
                        let t = phi[i] / (phi[i] - phi[j]);
                        let (a, b) = (p[i], p[j]);
                        p.push([
                            a[0] + t * (b[0] - a[0]),
                            a[1] + t * (b[1] - a[1]),
                            a[2] + t * (b[2] - a[2]),
                        ]);
                        cuts.insert((i, j), (p.len() - 1) as u32);
                    }
                }
            }
            let cut = |i: usize, j: usize| cuts[&(i.min(j), i.max(j))];
            let cell = CutCell {
                ids: &[0, 1, 2, 3],
                sign: &pattern,
                cut: &cut,
            };
            let total: f64 = [-1, 1]
                .iter()
                .flat_map(|&s| cell.piece(s))
                .map(|s| {
                    let m = measure(&p, &s);
                    assert!(m > 1e-6, "degenerate simplex {s:?} for {pattern:?}");
                    m
                })
                .sum();
            assert!((total - 1.0 / 6.0).abs() < 1e-12, "{pattern:?}: {total}");
        }
    }
}
