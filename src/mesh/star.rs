//! The star of each node, built on first use: the nodes sharing a cell with it, and its link
//! (the pairs of those nodes that share a cell with it) as one bit mask per neighbour: bit `q` of
//! the mask of the neighbour at position `p` says that the neighbours at positions `p` and `q`
//! span an edge of the link. In 2D the link of a node is the polygon of the edges opposite it; in
//! 3D it is the triangulated surface of the faces opposite it, whose edges `(b, c)` are the
//! triangles `(a, b, c)` around `a`. Fast marching walks a star at every node it accepts
//! ([`crate::fmm`]): with masks it finds the accepted neighbours a node shares a cell with, and
//! the link's edges between them, by a few bit operations, with no search and no look-up in
//! mesh-sized arrays. The masks hold the first [`LINK_POSITIONS`] positions of a star (a Gmsh
//! tetrahedral mesh's nodes have 10 to 40 neighbours): the link edges to positions beyond are not
//! kept, which leaves the march fewer updates to choose from at such a node, never a wrong one.
//! [`OrderedStars`] are the same stars with the nodes renumbered along a Morton curve
//! ([`super::morton`]), the numbering the march works in: the nodes of a star and their values
//! then lie close in memory, where a mesh's own numbering (Gmsh's, say) scatters them
//! (docs/performance.md, "Fast marching against scikit-fmm").

use super::morton::Morton;
use super::topology::Topology;
use crate::math::Point;
use rayon::prelude::*;

/// The positions of a star its link masks hold (the bits of a `u64`).
pub const LINK_POSITIONS: usize = 64;

/// Node stars in compressed rows (see the [module docs](self)).
#[derive(Debug)]
pub struct Stars {
    /// `nodes[offsets[v]..offsets[v + 1]]`: the neighbours of `v`, ascending, and `links[…]` the
    /// same range: for each, the positions among them of its link neighbours, as bits.
    offsets: Vec<u32>,
    nodes: Vec<u32>,
    links: Vec<u64>,
}

impl Stars {
    /// The stars of the `n_points` nodes of `cells` (flat, `nv` nodes each), in the numbering
    /// `order` gives (`(old, rank)`: the node numbered `n` is the mesh's `old[n]`, the mesh's node
    /// `u` is numbered `rank[u]`), the mesh's own if `None`.
    pub(super) fn new(
        n_points: usize,
        cells: &[u32],
        nv: usize,
        topology: &Topology,
        order: Option<(&[u32], &[u32])>,
    ) -> Self {
        let stars: Vec<(Vec<u32>, Vec<u64>)> = (0..n_points as u32)
            .into_par_iter()
            .map(|n| {
                let (v, rank) = match order {
                    Some((old, rank)) => (old[n as usize], Some(rank)),
                    None => (n, None),
                };
                let number = |u: u32| rank.map_or(u, |r| r[u as usize]);
                let around = topology.cells_of_node(v);
                let cell = |c: u32| &cells[c as usize * nv..(c as usize + 1) * nv];
                let mut nodes: Vec<u32> = around
                    .iter()
                    .flat_map(|&c| cell(c).iter().copied())
                    .filter(|&u| u != v)
                    .map(number)
                    .collect();
                nodes.sort_unstable();
                nodes.dedup();
                let position = |u: u32| nodes.binary_search(&u).expect("a neighbour");
                let mut links = vec![0u64; nodes.len()];
                for &c in around {
                    let (mut others, mut m) = ([0usize; 3], 0);
                    for &u in cell(c).iter().filter(|&&u| u != v) {
                        others[m] = position(number(u));
                        m += 1;
                    }
                    for (i, &p) in others[..m].iter().enumerate() {
                        for &q in &others[i + 1..m] {
                            if p.max(q) < LINK_POSITIONS {
                                links[p] |= 1 << q;
                                links[q] |= 1 << p;
                            }
                        }
                    }
                }
                (nodes, links)
            })
            .collect();
        let mut stars_out = Stars {
            offsets: Vec::with_capacity(n_points + 1),
            nodes: Vec::new(),
            links: Vec::new(),
        };
        stars_out.offsets.push(0);
        for (nodes, links) in stars {
            stars_out.nodes.extend(nodes);
            stars_out.links.extend(links);
            stars_out.offsets.push(stars_out.nodes.len() as u32);
        }
        stars_out
    }

    /// Asks the processor to bring `v`'s star into its cache (a hint; nothing on processors
    /// without one): the march knows the next node it accepts one acceptance ahead.
    #[inline]
    pub fn prefetch(&self, v: u32) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            let start = self.offsets[v as usize] as usize;
            // SAFETY: SSE, which the instruction needs, is part of every x86_64 processor, and a
            // prefetch reads nothing the program sees (the addresses are in bounds anyway).
            unsafe {
                _mm_prefetch::<_MM_HINT_T0>(self.nodes[start..].as_ptr().cast());
                _mm_prefetch::<_MM_HINT_T0>(self.links[start..].as_ptr().cast());
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = v;
    }

    /// The neighbours of `v` (ascending) and, for each, its link neighbours' positions as bits.
    #[inline]
    pub fn of(&self, v: u32) -> (&[u32], &[u64]) {
        let range = self.offsets[v as usize] as usize..self.offsets[v as usize + 1] as usize;
        (&self.nodes[range.clone()], &self.links[range])
    }
}
/// The nodes renumbered along a Morton curve, their coordinates and their stars in that
/// numbering: what the fast marching walks ([`crate::fmm`]). Built once per mesh, `O(n log n)`
/// (the sort) plus the stars; 8 bytes a node for the two maps and `8 D` for the coordinates beside
/// the stars.
#[derive(Debug)]
pub struct OrderedStars<const D: usize> {
    /// `old[n]`: the mesh's node numbered `n`.
    pub old: Vec<u32>,
    /// `rank[u]`: the number of the mesh's node `u`.
    pub rank: Vec<u32>,
    /// The nodes' coordinates in the new numbering.
    pub points: Vec<Point<D>>,
    stars: Stars,
}

impl<const D: usize> OrderedStars<D> {
    pub(super) fn new(points: &[Point<D>], cells: &[u32], topology: &Topology, (lo, hi): (Point<D>, Point<D>)) -> Self {
        let morton = Morton::new(lo, hi);
        let mut keyed: Vec<(u64, u32)> = points
            .par_iter()
            .enumerate()
            .map(|(u, x)| (morton.key(x), u as u32))
            .collect();
        keyed.par_sort_unstable();
        let old: Vec<u32> = keyed.iter().map(|&(_, u)| u).collect();
        let mut rank = vec![0u32; old.len()];
        for (n, &u) in old.iter().enumerate() {
            rank[u as usize] = n as u32;
        }
        let stars = Stars::new(points.len(), cells, D + 1, topology, Some((&old, &rank)));
        OrderedStars {
            points: old.iter().map(|&u| points[u as usize]).collect(),
            old,
            rank,
            stars,
        }
    }

    /// The neighbours of the node numbered `n` (ascending, in the new numbering) and, for each,
    /// its link neighbours' positions as bits.
    #[inline]
    pub fn star(&self, n: u32) -> (&[u32], &[u64]) {
        self.stars.of(n)
    }

    /// Asks the processor to bring the star of the node numbered `n` into its cache.
    #[inline]
    pub fn prefetch(&self, n: u32) {
        self.stars.prefetch(n);
    }
}

#[cfg(test)]
mod tests {
    use crate::math::Point;
    use crate::mesh::generate::axis_box;
    use crate::SimplexMesh;
    use std::collections::BTreeSet;

    /// The link's edges `(p, q)`, `p < q`, that a star's masks hold.
    fn edges(links: &[u64]) -> Vec<[usize; 2]> {
        let mut out = Vec::new();
        for (p, &mask) in links.iter().enumerate() {
            for (q, &back) in links.iter().enumerate().take(super::LINK_POSITIONS).skip(p + 1) {
                if mask >> q & 1 == 1 {
                    assert!(back >> p & 1 == 1, "the link is symmetric");
                    out.push([p, q]);
                }
            }
        }
        out
    }

    /// Every star against brute force over the cells: its nodes are exactly the nodes sharing a cell
    /// with it, its edges exactly the pairs of them in a common cell. Interior stars are spheres:
    /// `V − E + F = 2` with `F` the cells around the node (the link's triangles) in 3D, and a
    /// polygon (`E = V`) in 2D.
    fn check<const D: usize>(mesh: &SimplexMesh<D>) -> usize {
        let mut interior = 0;
        for v in 0..mesh.num_points() as u32 {
            let (nodes, links) = mesh.star(v);
            let edges = edges(links);
            let mut want_nodes: BTreeSet<u32> = BTreeSet::new();
            let mut want_edges: BTreeSet<(u32, u32)> = BTreeSet::new();
            for &c in mesh.cells_of_node(v) {
                let others: Vec<u32> = mesh.cell(c).iter().copied().filter(|&u| u != v).collect();
                want_nodes.extend(&others);
                for (i, &p) in others.iter().enumerate() {
                    for &q in &others[i + 1..] {
                        want_edges.insert((p.min(q), p.max(q)));
                    }
                }
            }
            assert_eq!(nodes, want_nodes.iter().copied().collect::<Vec<_>>(), "node {v}");
            let got: BTreeSet<(u32, u32)> = edges.iter().map(|&[p, q]| (nodes[p], nodes[q])).collect();
            assert_eq!(got.len(), edges.len(), "node {v}: an edge listed twice");
            assert_eq!(got, want_edges, "node {v}");
            let on_boundary = mesh.boundary().iter().any(|f| mesh.face_nodes(*f).contains(&v));
            if !on_boundary {
                interior += 1;
                let (vertices, links, faces) = (nodes.len(), edges.len(), mesh.cells_of_node(v).len());
                if D == 3 {
                    assert_eq!(vertices + faces, links + 2, "node {v}");
                } else {
                    assert_eq!(vertices, links, "node {v}");
                }
            }
        }
        interior
    }

    /// The ordered stars are the stars renumbered: `old` and `rank` are inverse permutations, the
    /// points follow them, and each node's neighbours and link edges are its own star's.
    #[test]
    fn ordered_stars_are_the_stars_renumbered() {
        let cube = axis_box::<3>(
            Point::<3>::new(0.0, 0.0, 0.0),
            Point::<3>::new(1.0, 2.0, 1.5),
            [3, 5, 4],
        )
        .unwrap();
        let ordered = cube.ordered_stars();
        assert_ne!(ordered.old, (0..cube.num_points() as u32).collect::<Vec<_>>());
        for (n, &u) in ordered.old.iter().enumerate() {
            assert_eq!(ordered.rank[u as usize], n as u32);
            assert_eq!(ordered.points[n], cube.points()[u as usize]);
            let (nodes, links) = ordered.star(n as u32);
            let (want_nodes, want_links) = cube.star(u);
            let (edges, want_edges) = (edges(links), edges(want_links));
            let back: BTreeSet<u32> = nodes.iter().map(|&m| ordered.old[m as usize]).collect();
            assert_eq!(back, want_nodes.iter().copied().collect::<BTreeSet<_>>());
            let pair = |list: &[u32], [p, q]: [usize; 2]| {
                let (a, b) = (list[p], list[q]);
                (a.min(b), a.max(b))
            };
            let old_nodes: Vec<u32> = nodes.iter().map(|&m| ordered.old[m as usize]).collect();
            let got: BTreeSet<(u32, u32)> = edges.iter().map(|&e| pair(&old_nodes, e)).collect();
            let want: BTreeSet<(u32, u32)> = want_edges.iter().map(|&e| pair(want_nodes, e)).collect();
            assert_eq!(got, want, "node {u}");
        }
    }

    #[test]
    fn stars_are_the_cells_around_each_node() {
        let square = axis_box::<2>(Point::<2>::new(0.0, 0.0), Point::<2>::new(1.0, 2.0), [4, 5]).unwrap();
        assert_eq!(check(&square), 3 * 4);
        let cube = axis_box::<3>(
            Point::<3>::new(0.0, 0.0, 0.0),
            Point::<3>::new(1.0, 1.0, 2.0),
            [3, 3, 4],
        )
        .unwrap();
        assert_eq!(check(&cube), 2 * 2 * 3);
        // An interior node of the Kuhn lattice: 14 neighbours, 24 tetrahedra, 36 link edges.
        let centre = (0..cube.num_points() as u32)
            .find(|&v| (cube.points()[v as usize] - Point::<3>::new(1.0 / 3.0, 1.0 / 3.0, 1.0)).norm() < 1e-12)
            .unwrap();
        let (nodes, links) = cube.star(centre);
        assert_eq!(
            (nodes.len(), edges(links).len(), cube.cells_of_node(centre).len()),
            (14, 36, 24)
        );
    }
}
