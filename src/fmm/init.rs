//! The march's initial state: the working arrays ([`State`]) and the first layer, exact distances
//! on the cells that touch or cross the front and (in signed mode) the side of the front each of
//! those cells lies on, for a front of mesh facets ([`from_facets`]), a surface of its own
//! ([`from_surface`]) or a shape ([`from_shape`]); the front's topology and sides come from
//! [`super::topology`]. The nodes of the first layer are frozen with their exact distances
//! (point–facet, or `|φ|` for a shape) and sorted by value; the cost is that of the distances on
//! the cells near the front, plus, for a surface, locating its samples in the mesh.

use super::curved::Curved;
use super::heap::NodeHeap;
use super::topology::{orient, sides, FacetNeighbours, NodeFacets, PseudoNormals};
use super::{DistanceField, FmmError, FmmOptions, FmmStats, Front};
use crate::math::{self, Point, Vector};
use crate::mesh::{OrderedStars, SimplexMesh, NONE};
use crate::shape::Shape;
use std::collections::HashMap;

pub(super) const FAR: u8 = 0;
pub(super) const TRIAL: u8 = 1;
pub(super) const ACCEPTED: u8 = 2;

/// What the front is made of, for exact distances.
pub(super) enum Geometry<'a, const D: usize> {
    /// Facets' node coordinates, for each facet the facets sharing a node with it (compressed
    /// rows: `list[offsets[f]..offsets[f + 1]]`), and the facets' curved patches if the front is
    /// read as a smooth body.
    Facets(Vec<[Point<D>; D]>, FacetNeighbours, Option<Curved<D>>),
    /// An analytic shape (one "element": itself).
    Shape(&'a dyn Shape<D>),
}

impl<const D: usize> Geometry<'_, D> {
    /// Exact distance from `x` to front element `e`: to the straight facet, or to the analytic
    /// shape.
    #[inline]
    fn straight(&self, x: &Point<D>, e: u32) -> f64 {
        match self {
            Geometry::Facets(f, _, _) => math::distance_to_facet(x, &f[e as usize]),
            Geometry::Shape(s) => s.signed_distance(x).abs(),
        }
    }

    /// The front element closest to `x` found by descending from `start` to facets sharing a node
    /// (those sharing an edge tried first, the first improvement taken) while the distance
    /// decreases, and its distance. A node inheriting its neighbour's facet may
    /// not be closest to that very facet where the front curves towards it; the descent reaches the
    /// closest one on a smooth front. Moving through shared nodes rather than edges matters when
    /// the closest point of the current facet is a vertex: the closer facet may share only that
    /// vertex.
    ///
    /// On a curved front the descent runs on the straight facets and the distance returned is to
    /// the last facet's patch: one patch evaluation instead of one per facet tried (with one per
    /// facet, closest-point mode on the h = 0.2 ball took 3.6 times as long). The closest patch
    /// can be a neighbour's only near a shared edge, where the two patches meet; closest-point
    /// mode on curved fronts is at the P1 interpolation floor (1.00–1.03x, `tests/fmm_accuracy.rs`).
    #[inline]
    pub fn descend(&self, x: &Point<D>, start: u32) -> (f64, u32) {
        let (mut best, mut e) = (self.straight(x, start), start);
        if let Geometry::Facets(f, neighbours, curved) = self {
            'descent: loop {
                for &g in neighbours.of(e) {
                    let d = self.straight(x, g);
                    if d < best {
                        (best, e) = (d, g);
                        continue 'descent;
                    }
                }
                break;
            }
            if let Some(curved) = curved {
                best = curved.distance(x, &f[e as usize], e);
            }
        }
        (best, e)
    }

    /// The unit gradient at `x` of the unsigned distance to element `e` (the direction from its
    /// closest point; for a shape, by central differences), zero on the front.
    pub fn direction(&self, x: &Point<D>, e: u32) -> Vector<D> {
        let g = match self {
            Geometry::Facets(f, _, _) => x - math::closest_point_on_facet(x, &f[e as usize]),
            Geometry::Shape(s) => {
                let step = 1e-6 * (1.0 + x.norm());
                Vector::<D>::from_fn(|k, _| {
                    let mut dx = Vector::<D>::zeros();
                    dx[k] = step;
                    s.signed_distance(&(x + dx)).abs() - s.signed_distance(&(x - dx)).abs()
                })
            }
        };
        let n = g.norm();
        if n > 0.0 {
            g / n
        } else {
            Vector::<D>::zeros()
        }
    }

    /// The closest element found by descending from the nearest of `starts` (the smaller index on
    /// ties, so the result does not depend on the order of `starts`): distance and element.
    pub fn closest_from(&self, x: &Point<D>, starts: &[u32]) -> (f64, u32) {
        let (mut best, mut closest) = (f64::INFINITY, NONE);
        for &start in starts {
            let d = self.straight(x, start);
            if d < best || (d == best && start < closest) {
                (best, closest) = (d, start);
            }
        }
        if closest == NONE {
            return (best, closest);
        }
        self.descend(x, closest)
    }
}

/// The march's working arrays, one entry per node in the numbering of the mesh's [`OrderedStars`]
/// ([`State::finish`] returns the field in the mesh's own).
pub(super) struct State<'a, const D: usize> {
    /// Unsigned tentative or accepted value of each node (infinite if never touched).
    pub value: Vec<f64>,
    pub status: Vec<u8>,
    /// Side of the front: −1 inside, +1 outside (and for unsigned fields).
    pub sign: Vec<i8>,
    /// Closest front element of each node, or NONE.
    pub closest: Vec<u32>,
    /// The smallest linear update of each node so far (the march compares its candidates by it,
    /// and keeps the second-order value of the best in `value`); empty in closest-point mode.
    pub linear: Vec<f64>,
    /// The unit gradient of each node's unsigned value (zero where unknown: on the front, or not
    /// reached), for the march's second-order face values; empty in closest-point mode.
    pub gradient: Vec<Vector<D>>,
    pub heap: NodeHeap,
    /// The initialised nodes, in increasing order of value.
    pub initialised: Vec<u32>,
    /// Initialised nodes whose neighbours are all initialised (the nodes of a front of mesh
    /// facets: every cell around them touches the front), sorted: the march does not relax them.
    pub enclosed: Vec<u32>,
    /// The accepted nodes after the initialised ones, in order.
    pub accepted: Vec<u32>,
    pub geometry: Geometry<'a, D>,
}

impl<'a, const D: usize> State<'a, D> {
    fn new(n: usize, geometry: Geometry<'a, D>) -> Self {
        State {
            value: vec![f64::INFINITY; n],
            status: vec![FAR; n],
            sign: vec![1; n],
            closest: vec![NONE; n],
            linear: Vec::new(),
            gradient: Vec::new(),
            heap: NodeHeap::new(n),
            initialised: Vec::new(),
            enclosed: Vec::new(),
            accepted: Vec::new(),
            geometry,
        }
    }

    fn freeze(&mut self, v: u32, value: f64, sign: i8, closest: u32) {
        let i = v as usize;
        if self.status[i] != ACCEPTED {
            self.initialised.push(v);
        }
        self.status[i] = ACCEPTED;
        self.value[i] = value;
        self.sign[i] = sign;
        self.closest[i] = closest;
    }

    /// Makes `v` a trial node with its current value, on the side of `a` that updated it.
    pub fn offer(&mut self, v: u32, a: u32) {
        let i = v as usize;
        self.status[i] = TRIAL;
        self.sign[i] = self.sign[a as usize];
        self.heap.push_or_decrease(v, self.value[i]);
    }

    /// The field in the mesh's numbering: node `u`'s entries are the state's at `ordered.rank[u]`.
    pub fn finish(
        self,
        ordered: &OrderedStars<D>,
        d_max: f64,
        default: f64,
        options: &FmmOptions,
        (init_seconds, march_seconds): (f64, f64),
    ) -> DistanceField<D> {
        let reached: Vec<bool> = ordered
            .rank
            .iter()
            .map(|&n| self.status[n as usize] == ACCEPTED && self.value[n as usize] <= d_max)
            .collect();
        let values = ordered
            .rank
            .iter()
            .zip(&reached)
            .map(|(&n, &r)| {
                let n = n as usize;
                if r {
                    f64::from(self.sign[n]) * self.value[n]
                } else {
                    default
                }
            })
            .collect();
        let accepted = reached.iter().filter(|&&r| r).count();
        let order = self
            .initialised
            .iter()
            .chain(&self.accepted)
            .map(|&n| ordered.old[n as usize])
            .collect();
        let closest = options.closest_point.then(|| {
            ordered
                .rank
                .iter()
                .zip(&reached)
                .map(|(&n, &r)| if r { self.closest[n as usize] } else { NONE })
                .collect()
        });
        DistanceField {
            values,
            reached,
            closest,
            order,
            front_facets: match self.geometry {
                Geometry::Facets(f, _, _) => f,
                Geometry::Shape(_) => Vec::new(),
            },
            max_distance: d_max,
            stats: FmmStats {
                accepted,
                initialised: self.initialised.len(),
                init_seconds,
                march_seconds,
            },
        }
    }
}

pub(super) fn initialise<'a, const D: usize>(
    mesh: &SimplexMesh<D>,
    front: &Front<'a, D>,
    options: &FmmOptions,
) -> Result<State<'a, D>, FmmError> {
    let mut state = match front {
        Front::Markers(markers) => from_facets(mesh, markers, options.signed, options.curved_front)?,
        Front::Shape(shape) => from_shape(mesh, *shape)?,
        Front::Surface { points, facets } => from_surface(mesh, points, facets, options.signed, options.curved_front)?,
    };
    if !options.signed {
        state.sign.fill(1);
    }
    let value = &state.value;
    state
        .initialised
        .sort_by(|&a, &b| value[a as usize].total_cmp(&value[b as usize]).then(a.cmp(&b)));
    Ok(state)
}

/// A front of mesh facets.
fn from_facets<'a, const D: usize>(
    mesh: &SimplexMesh<D>,
    markers: &[i32],
    signed: bool,
    curved: bool,
) -> Result<State<'a, D>, FmmError> {
    let facets: Vec<u32> = (0..mesh.facets().len() as u32)
        .filter(|&f| markers.contains(&mesh.facet_markers()[f as usize]))
        .collect();
    if facets.is_empty() {
        return Err(FmmError::EmptyFront(format!("no facet carries marker(s) {markers:?}")));
    }
    let geometry: Vec<[Point<D>; D]> = facets
        .iter()
        .map(|&f| std::array::from_fn(|j| mesh.points()[mesh.facets()[f as usize][j] as usize]))
        .collect();
    let nodes: Vec<[u32; D]> = facets.iter().map(|&f| mesh.facets()[f as usize]).collect();
    let around = NodeFacets::new(&nodes);

    // Cells touching the front (containing a front node), each once, and the position of each
    // cell in that list plus one (0: not touching). Zeroed memory comes from the allocator.
    let mut position = vec![0u32; mesh.num_cells()];
    let mut touching: Vec<u32> = Vec::new();
    for &v in &around.nodes {
        for &c in mesh.cells_of_node(v) {
            if position[c as usize] == 0 {
                touching.push(c);
                position[c as usize] = touching.len() as u32;
            }
        }
    }

    let side = if signed {
        sides(mesh, &facets, &geometry, &around, &touching, &position)?
    } else {
        vec![1; touching.len()]
    };
    drop(position);

    let neighbours = FacetNeighbours::around(&around);
    let curved = curved.then(|| Curved::new(&nodes, &geometry));
    let ordered = mesh.ordered_stars();
    let rank = &ordered.rank;
    let mut state = State::new(mesh.num_points(), Geometry::Facets(geometry, neighbours, curved));
    for (k, &v) in around.nodes.iter().enumerate() {
        state.freeze(rank[v as usize], 0.0, 1, around.of(k as u32)[0]);
    }
    let mut candidates: Vec<u32> = Vec::with_capacity(64);
    for (&c, &s) in touching.iter().zip(&side) {
        let cell = mesh.cell(c);
        for &u in cell {
            let n = rank[u as usize];
            if state.status[n as usize] == ACCEPTED {
                continue;
            }
            // Start from one facet of each front node sharing a cell with u (the nodes frozen at 0
            // so far) and descend along the front from each to the closest facet.
            candidates.clear();
            for &v in ordered.star(n).0 {
                let i = v as usize;
                if state.status[i] == ACCEPTED && state.value[i] == 0.0 {
                    candidates.push(state.closest[i]);
                }
            }
            candidates.sort_unstable();
            candidates.dedup();
            let x = mesh.points()[u as usize];
            let (best, closest) = state.geometry.closest_from(&x, &candidates);
            state.freeze(n, best, s, closest);
        }
    }
    state.enclosed = around.nodes.iter().map(|&v| rank[v as usize]).collect();
    state.enclosed.sort_unstable();
    Ok(state)
}

/// A polyline or surface of its own: the cells it crosses are found by locating samples of its
/// facets (spaced at half the size of the cells around them); those cells and one ring of cells
/// around them are initialised by descent along the surface from the facets that hit them; the
/// sides come from the closest facet's pseudo-normals ([`PseudoNormals`]).
fn from_surface<'a, const D: usize>(
    mesh: &SimplexMesh<D>,
    points: &[Point<D>],
    facets: &[[u32; D]],
    signed: bool,
    curved: bool,
) -> Result<State<'a, D>, FmmError> {
    if facets.is_empty() {
        return Err(FmmError::EmptyFront("the surface has no facets".into()));
    }
    if let Some((f, facet)) = facets
        .iter()
        .enumerate()
        .find(|(_, f)| f.iter().any(|&v| v as usize >= points.len()))
    {
        return Err(FmmError::Surface(format!(
            "facet {f} refers to node {:?}, the surface has {} nodes",
            facet,
            points.len()
        )));
    }
    if let Some(v) = points.iter().position(|p| !p.iter().all(|x| x.is_finite())) {
        return Err(FmmError::Surface(format!("node {v} has non-finite coordinates")));
    }
    let geometry: Vec<[Point<D>; D]> = facets
        .iter()
        .map(|f| std::array::from_fn(|j| points[f[j] as usize]))
        .collect();
    let around = NodeFacets::new(facets);
    if signed {
        for i in 0..facets.len() {
            for skip in 0..D {
                around.partner(i, skip).map_err(|(what, n)| {
                    FmmError::OpenFront(format!("{what} of the surface belongs to {n} facet(s), not 2"))
                })?;
            }
        }
    }
    // Sample each facet at half the size of the cells around its nodes.
    let mean_size = (mesh.cell_measures().iter().sum::<f64>() / mesh.num_cells() as f64).powf(1.0 / D as f64);
    let size_at = |x: &Point<D>| {
        mesh.locate(x).map_or(mean_size, |c| {
            mesh.cell_measures()[c.cell as usize].powf(1.0 / D as f64)
        })
    };
    let (mut samples, mut owner) = (Vec::new(), Vec::new());
    for (f, g) in geometry.iter().enumerate() {
        let spacing = 0.5 * g.iter().map(size_at).fold(f64::INFINITY, f64::min);
        let longest = (0..D)
            .flat_map(|i| (i + 1..D).map(move |j| (i, j)))
            .map(|(i, j)| (g[i] - g[j]).norm())
            .fold(0.0, f64::max);
        let n = ((longest / spacing).ceil() as usize).clamp(1, 10_000);
        for i in 0..=n {
            for j in 0..=(if D == 3 { n - i } else { 0 }) {
                let (u, v) = (i as f64 / n as f64, j as f64 / n as f64);
                let p = if D == 2 {
                    g[0] + (g[1] - g[0]) * u
                } else {
                    g[0] + (g[1] - g[0]) * u + (g[2] - g[0]) * v
                };
                samples.push(p);
                owner.push(f as u32);
            }
        }
    }
    // Cells hit by a sample, and the ring of cells sharing a node with them, each with a facet.
    let mut facet_of: HashMap<u32, u32> = HashMap::new();
    for (found, &f) in mesh.locate_many(&samples).iter().zip(&owner) {
        if let Some(c) = found {
            facet_of.entry(c.cell).or_insert(f);
        }
    }
    if facet_of.is_empty() {
        return Err(FmmError::EmptyFront("the surface does not cross the mesh".into()));
    }
    let mut hit: Vec<(u32, u32)> = facet_of.iter().map(|(&c, &f)| (c, f)).collect();
    hit.sort_unstable();
    for &(c, f) in &hit {
        for &v in mesh.cell(c) {
            for &ring in mesh.cells_of_node(v) {
                facet_of.entry(ring).or_insert(f);
            }
        }
    }
    let mut touching: Vec<u32> = facet_of.keys().copied().collect();
    touching.sort_unstable();

    let normals = if signed {
        let ids: Vec<u32> = (0..facets.len() as u32).collect();
        Some(PseudoNormals::new(
            &geometry,
            &around,
            &orient(&ids, &geometry, &around)?,
        ))
    } else {
        None
    };
    let neighbours = FacetNeighbours::around(&around);
    let curved = curved.then(|| Curved::new(facets, &geometry));
    let rank = &mesh.ordered_stars().rank;
    let mut state = State::new(mesh.num_points(), Geometry::Facets(geometry, neighbours, curved));
    let mut starts: Vec<u32> = Vec::new();
    for &c in &touching {
        for &u in mesh.cell(c) {
            if state.status[rank[u as usize] as usize] == ACCEPTED {
                continue;
            }
            starts.clear();
            starts.extend(mesh.cells_of_node(u).iter().filter_map(|c2| facet_of.get(c2)));
            starts.sort_unstable();
            starts.dedup();
            let x = mesh.points()[u as usize];
            let (best, closest) = state.geometry.closest_from(&x, &starts);
            let sign = match (&state.geometry, &normals) {
                (Geometry::Facets(g, _, _), Some(normals)) => normals.side(&x, g, closest),
                _ => 1,
            };
            state.freeze(rank[u as usize], best, sign, closest);
        }
    }
    Ok(state)
}

/// A front given by a shape: its signed distance at every node (in parallel); the nodes of the
/// cells where it changes sign are initialised with `|φ|`, and every node knows its side.
fn from_shape<'a, const D: usize>(mesh: &SimplexMesh<D>, shape: &'a dyn Shape<D>) -> Result<State<'a, D>, FmmError> {
    use rayon::prelude::*;
    let phi: Vec<f64> = mesh.points().par_iter().map(|x| shape.signed_distance(x)).collect();
    let rank = &mesh.ordered_stars().rank;
    let mut state = State::new(mesh.num_points(), Geometry::Shape(shape));
    for (&n, &p) in rank.iter().zip(&phi) {
        state.sign[n as usize] = if p < 0.0 { -1 } else { 1 };
    }
    for c in 0..mesh.num_cells() as u32 {
        let cell = mesh.cell(c);
        let (lo, hi) = cell.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &v| {
            (lo.min(phi[v as usize]), hi.max(phi[v as usize]))
        });
        if lo <= 0.0 && hi >= 0.0 {
            for &v in cell {
                let n = rank[v as usize];
                let sign = state.sign[n as usize];
                state.freeze(n, phi[v as usize].abs(), sign, 0);
            }
        }
    }
    if state.initialised.is_empty() {
        return Err(FmmError::EmptyFront(
            "the shape's boundary does not cross the mesh".into(),
        ));
    }
    Ok(state)
}
