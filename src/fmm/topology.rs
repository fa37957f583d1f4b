//! The topology of a front of facets, and the side of it a point lies on: what the march's
//! initialisation ([`super::init`]) and the walls' closest-facet descent
//! ([`crate::contact::Walls`]) read of a front besides its coordinates.
//!
//! - [`NodeFacets`]: the facets around each front node, in compressed rows (one sort of the
//!   `m` (node, facet) pairs: `O(m log m)`), and the facet across each ridge (a node in 2D, an
//!   edge in 3D: a merge of two rows).
//! - [`FacetNeighbours`]: for each facet, the facets sharing a node with it, those sharing an
//!   edge first (one merge of its nodes' rows: `O(m)` overall).
//! - [`orient`]: the factor `±1` that turns each facet's normal out of the region a closed front
//!   encloses (a breadth-first search over the ridges, then `Σ x_f · n_f > 0` per component:
//!   `O(m)`).
//! - [`sides`]: the side of the front each cell touching a front of mesh facets lies on (from the
//!   facets' outward normals, then across the faces that are not front facets: `O(cells)`).
//! - [`PseudoNormals`]: the angle-weighted pseudo-normals of a closed surface, by which `x` is
//!   inside exactly when `(x − c) · N < 0` (`c` its closest point on the front); `O(1)` a point
//!   but where the test is ambiguous (the winding number: `O(m)`).

use super::FmmError;
use crate::math::{self, Feature, Point, Vector};
use crate::mesh::{SimplexMesh, NONE};

/// The facets of a front around each of its nodes, in compressed rows.
pub(crate) struct NodeFacets<const D: usize> {
    /// The front's nodes, ascending.
    pub(super) nodes: Vec<u32>,
    /// The facets of `nodes[k]`, ascending: `facets[offsets[k]..offsets[k + 1]]`.
    offsets: Vec<u32>,
    facets: Vec<u32>,
    /// For each facet, the positions of its nodes in `nodes`.
    local: Vec<[u32; D]>,
}

impl<const D: usize> NodeFacets<D> {
    /// The rows of `facets` (given by their nodes): one sort of (node, facet) pairs.
    pub(super) fn new(facets: &[[u32; D]]) -> Self {
        let mut pairs: Vec<u64> = facets
            .iter()
            .enumerate()
            .flat_map(|(i, f)| f.iter().map(move |&v| u64::from(v) << 32 | i as u64))
            .collect();
        pairs.sort_unstable();
        pairs.dedup();
        let (mut nodes, mut offsets) = (Vec::new(), Vec::new());
        let mut list = Vec::with_capacity(pairs.len());
        let mut local = vec![[NONE; D]; facets.len()];
        for &pair in &pairs {
            let (v, i) = ((pair >> 32) as u32, pair as u32);
            if nodes.last() != Some(&v) {
                offsets.push(list.len() as u32);
                nodes.push(v);
            }
            list.push(i);
            for (j, &u) in facets[i as usize].iter().enumerate() {
                if u == v {
                    local[i as usize][j] = nodes.len() as u32 - 1;
                }
            }
        }
        offsets.push(list.len() as u32);
        NodeFacets {
            nodes,
            offsets,
            facets: list,
            local,
        }
    }

    /// The facets around the node at position `k`, ascending.
    #[inline]
    pub(super) fn of(&self, k: u32) -> &[u32] {
        &self.facets[self.offsets[k as usize] as usize..self.offsets[k as usize + 1] as usize]
    }

    /// The node at place `j` of facet `i`.
    #[inline]
    fn node(&self, i: usize, j: usize) -> u32 {
        self.nodes[self.local[i][j] as usize]
    }

    /// The one other facet sharing ridge `skip` of facet `i` (the facet without its node `skip`: a
    /// node in 2D, an edge in 3D), or, where the front is not closed there, the ridge named
    /// (`node v`, `edge [a, b]`) with the number of facets sharing it.
    pub(super) fn partner(&self, i: usize, skip: usize) -> Result<u32, (String, usize)> {
        let mut ridge = (0..D).filter(|&j| j != skip).map(|j| self.of(self.local[i][j]));
        let first = ridge.next().expect("D >= 2");
        let second = ridge.next();
        let mut others = first
            .iter()
            .filter(|&&g| g as usize != i && second.is_none_or(|s| s.binary_search(&g).is_ok()));
        match (others.next(), others.count()) {
            (Some(&g), 0) => Ok(g),
            (found, more) => {
                let what = if D == 2 {
                    format!("node {}", self.node(i, 1 - skip))
                } else {
                    let (a, b) = (self.node(i, (skip + 1) % 3), self.node(i, (skip + 2) % 3));
                    format!("edge {:?}", [a.min(b), a.max(b)])
                };
                Err((what, 1 + usize::from(found.is_some()) + more))
            }
        }
    }
}

/// For each front facet, the other facets sharing a node with it, in compressed rows.
#[derive(Debug)]
pub(crate) struct FacetNeighbours {
    offsets: Vec<u32>,
    list: Vec<u32>,
}

impl FacetNeighbours {
    /// The neighbours of `facets` (given by their nodes).
    pub(crate) fn new<const D: usize>(facets: &[[u32; D]]) -> Self {
        Self::around(&NodeFacets::new(facets))
    }

    /// The neighbours of the facets of `around`.
    ///
    /// The rows of a facet's nodes are ascending, so one merge of them lists the other facets
    /// with the number of nodes each shares, in ascending order; they are then listed by that
    /// number, most first (those sharing an edge: the descent takes the first improvement).
    pub(super) fn around<const D: usize>(around: &NodeFacets<D>) -> Self {
        let mut offsets = Vec::with_capacity(around.local.len() + 1);
        offsets.push(0u32);
        let mut list = Vec::new();
        let mut shared: Vec<(u32, usize)> = Vec::new();
        for (i, nodes) in around.local.iter().enumerate() {
            let mut rows: [&[u32]; D] = std::array::from_fn(|j| around.of(nodes[j]));
            shared.clear();
            loop {
                let g = rows.iter().filter_map(|r| r.first()).fold(u32::MAX, |g, &h| g.min(h));
                if g == u32::MAX {
                    break;
                }
                let mut n = 0;
                for r in &mut rows {
                    if r.first() == Some(&g) {
                        *r = &r[1..];
                        n += 1;
                    }
                }
                if g != i as u32 {
                    shared.push((g, n));
                }
            }
            for n in (1..=D).rev() {
                list.extend(shared.iter().filter(|s| s.1 == n).map(|s| s.0));
            }
            offsets.push(list.len() as u32);
        }
        FacetNeighbours { offsets, list }
    }

    /// The facets sharing a node with `f`, those sharing more nodes first.
    #[inline]
    pub(crate) fn of(&self, f: u32) -> &[u32] {
        &self.list[self.offsets[f as usize] as usize..self.offsets[f as usize + 1] as usize]
    }
}

/// The side (−1 inside, +1 outside) of every cell touching a closed front of facets, in the order
/// of `touching` (`position[c]` is cell `c`'s place there plus one, 0 if it does not touch).
///
/// The facets are first oriented outward ([`orient`]); a cell holding a facet lies on the side its
/// normal points to or away from; the other touching cells take the side of a touching neighbour
/// across a face that is not a front facet (around each front node the front splits the cells into
/// two connected groups, each next to a front facet). Each touching cell knows which of its faces
/// are front facets (a bit per local node opposite): no searching.
pub(super) fn sides<const D: usize>(
    mesh: &SimplexMesh<D>,
    facets: &[u32],
    geometry: &[[Point<D>; D]],
    around: &NodeFacets<D>,
    touching: &[u32],
    position: &[u32],
) -> Result<Vec<i8>, FmmError> {
    let outward = orient(facets, geometry, around)?;
    let mut side = vec![0i8; touching.len()];
    let mut front_faces = vec![0u8; touching.len()];
    let mut queue = Vec::new();
    for (i, &f) in facets.iter().enumerate() {
        let normal = math::facet_area_normal(&geometry[i][..]) * outward[i];
        for c in mesh.facet_cells()[f as usize] {
            if c == NONE || position[c as usize] == 0 {
                continue;
            }
            let p = position[c as usize] as usize - 1;
            let opposite = mesh
                .cell(c)
                .iter()
                .position(|v| !mesh.facets()[f as usize].contains(v))
                .expect("a cell has a node off its facet");
            front_faces[p] |= 1 << opposite;
            let toward = (mesh.points()[mesh.cell(c)[opposite] as usize] - geometry[i][0]).dot(&normal);
            if side[p] == 0 {
                side[p] = if toward > 0.0 { 1 } else { -1 };
                queue.push(p);
            }
        }
    }
    while let Some(p) = queue.pop() {
        for k in 0..=D {
            let n = mesh.neighbour(touching[p], k);
            if front_faces[p] >> k & 1 == 1 || n == NONE || position[n as usize] == 0 {
                continue;
            }
            let q = position[n as usize] as usize - 1;
            if side[q] == 0 {
                side[q] = side[p];
                queue.push(q);
            }
        }
    }
    debug_assert!(side.iter().all(|&s| s != 0));
    Ok(side)
}

/// For each front facet, ±1: the factor that makes its normal ([`math::facet_area_normal`] of its
/// nodes in the given order) point out of the region the front encloses.
///
/// The front must be closed: every ridge (a node in 2D, an edge in 3D) is shared by exactly two
/// facets. Facets sharing a ridge are consistently oriented when they induce opposite orientations
/// on it (a node is the end of one segment and the start of the next; an edge is traversed in
/// opposite directions); a breadth-first search over the ridges orients each connected component of
/// the front, and the component is then flipped if needed so that `Σ x_f · n_f > 0` (the
/// divergence theorem: its enclosed volume is positive with outward normals). Each component is taken
/// as the boundary of its own region.
pub(super) fn orient<const D: usize>(
    facets: &[u32],
    geometry: &[[Point<D>; D]],
    around: &NodeFacets<D>,
) -> Result<Vec<f64>, FmmError> {
    let node = |i: usize, j: usize| around.node(i, j);
    // The facet across ridge `skip` of facet `i`, and whether the two are consistently oriented.
    let partner = |i: usize, skip: usize| -> Result<(usize, bool), FmmError> {
        let g = around
            .partner(i, skip)
            .map_err(|(what, n)| FmmError::OpenFront(format!("{what} belongs to {n} front facet(s), not 2")))?
            as usize;
        let place = |v: u32| {
            (0..D)
                .position(|j| node(g, j) == v)
                .expect("a partner shares the ridge")
        };
        let consistent = if D == 2 {
            // The shared node ends one segment and starts the other.
            place(node(i, 1 - skip)) != 1 - skip
        } else {
            // The edge s → t of facet i is t → s in g.
            let (s, t) = (node(i, (skip + 1) % 3), node(i, (skip + 2) % 3));
            (place(t) + 1) % 3 == place(s)
        };
        Ok((g, consistent))
    };
    let mut flip = vec![0.0f64; geometry.len()];
    let (mut component, mut queue) = (Vec::new(), Vec::new());
    for seed in 0..geometry.len() {
        if flip[seed] != 0.0 {
            continue;
        }
        flip[seed] = 1.0;
        component.clear();
        component.push(seed);
        queue.push(seed);
        while let Some(f) = queue.pop() {
            for skip in 0..D {
                let (g, consistent) = partner(f, skip)?;
                let wanted = if consistent { flip[f] } else { -flip[f] };
                if flip[g] == 0.0 {
                    flip[g] = wanted;
                    component.push(g);
                    queue.push(g);
                } else if flip[g] != wanted {
                    return Err(FmmError::OpenFront(format!(
                        "the front is not orientable around facet {} (a non-manifold or one-sided surface)",
                        facets[g]
                    )));
                }
            }
        }
        let enclosed: f64 = component
            .iter()
            .map(|&f| geometry[f][0].dot(&math::facet_area_normal(&geometry[f][..])) * flip[f])
            .sum();
        if enclosed < 0.0 {
            for &f in &component {
                flip[f] = -flip[f];
            }
        }
    }
    Ok(flip)
}

/// Angle-weighted pseudo-normals of a closed front (Bærentzen and Aanæs, "Signed distance
/// computation using the angle weighted pseudonormal", IEEE TVCG 11, 2005): the outward unit normal
/// `n_f` of each facet, the sum `n_f + n_g` of the two facets on an edge, and at a node the sum of
/// its facets' normals weighted by their angles there (in 2D, the two segments' normals). If `c`
/// is the point of the front closest to `x` and `N` the pseudo-normal of the feature `c` lies on,
/// `x` is inside exactly when `(x − c) · N < 0`.
pub(super) struct PseudoNormals<'a, const D: usize> {
    facet: Vec<Vector<D>>,
    /// By the node's position in `around`.
    node: Vec<Vector<D>>,
    around: &'a NodeFacets<D>,
}

impl<'a, const D: usize> PseudoNormals<'a, D> {
    /// The pseudo-normals of `geometry`, each facet's normal multiplied by its factor in
    /// `outward` ([`orient`]).
    pub(super) fn new(geometry: &[[Point<D>; D]], around: &'a NodeFacets<D>, outward: &[f64]) -> Self {
        let facet: Vec<Vector<D>> = geometry
            .iter()
            .zip(outward)
            .map(|(g, &o)| math::facet_area_normal(&g[..]).normalize() * o)
            .collect();
        let mut node = vec![Vector::<D>::zeros(); around.nodes.len()];
        for (i, g) in geometry.iter().enumerate() {
            for j in 0..D {
                let angle = if D == 2 {
                    1.0
                } else {
                    let (a, b) = (g[(j + 1) % 3] - g[j], g[(j + 2) % 3] - g[j]);
                    a.angle(&b)
                };
                node[around.local[i][j] as usize] += facet[i] * angle;
            }
        }
        PseudoNormals { facet, node, around }
    }

    /// The side of the front `x` lies on (−1 inside, +1 outside), given its closest facet `e`; by
    /// the winding number (its cost is the number of facets) where the pseudo-normal is nearly
    /// tangent to `x − c`: a closest facet found by descent that is not the closest overall.
    pub(super) fn side(&self, x: &Point<D>, geometry: &[[Point<D>; D]], e: u32) -> i8 {
        let i = e as usize;
        let (c, feature) = math::closest_feature_on_facet(x, &geometry[i]);
        let normal = match feature {
            Feature::Interior => self.facet[i],
            Feature::Edge(j) => {
                let g = self.around.partner(i, j).expect("a closed front") as usize;
                self.facet[i] + self.facet[g]
            }
            Feature::Vertex(j) => self.node[self.around.local[i][j] as usize],
        };
        let away = x - c;
        let along = away.dot(&normal);
        if along.abs() > 1e-3 * away.norm() * normal.norm() {
            if along < 0.0 {
                -1
            } else {
                1
            }
        } else if away == Vector::<D>::zeros() || math::winding_number(x, geometry).abs() <= 0.5 {
            1
        } else {
            -1
        }
    }
}
