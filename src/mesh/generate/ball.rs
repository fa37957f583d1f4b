//! Disks, annuli and balls whose meshes conform to nested circles or spheres.
//!
//! The method, one code path for 2D and 3D, in three steps:
//! 1. a Kuhn lattice (see [`kuhn_lattice`]) covers the outer sphere; its step is the nominal size
//!    `h` times a factor chosen so that the element count matches Gmsh's at the same `h` (0.935 in 2D,
//!    1.133 in 3D: a disk of radius 3 at h = 0.1 has about 6 900 triangles, a ball of radius 3 at
//!    h = 0.2 about 70 000 tetrahedra, as in the specification's tables);
//! 2. lattice nodes closer than 0.3 step to a sphere are moved onto it (which avoids slivers), unless
//!    that would flatten a cell;
//! 3. each sphere cuts the cells it crosses ([`super::cut`]): a node is added where an edge crosses
//!    the sphere (exactly on it) and both sides are triangulated conformingly.
//!
//! Every cell then lies on one side of each sphere, so the facets between the regions have all
//! their nodes exactly on the spheres. Cells outside the outer sphere (and, for an annulus or a
//! shell, inside the inner one) are dropped. The minimum quality observed is stated by the tests
//! (`tests/generators.rs`): 0.25 in 2D and 0.08 in 3D (mean ratio, 1 for the regular simplex).

use super::cut::CutCell;
use super::lattice::kuhn_lattice;
use crate::math::{self, Point};
use crate::mesh::{oriented_face, MeshError, MeshParts, SimplexMesh, NONE};
use std::collections::{BTreeMap, HashMap};

/// A circle (2D) or sphere (3D) the mesh must conform to, with the name of its facet marker.
#[derive(Debug, Clone)]
pub struct Sphere<const D: usize> {
    /// Centre.
    pub centre: Point<D>,
    /// Radius.
    pub radius: f64,
    /// Name of the facet marker of the sphere.
    pub name: String,
}

impl<const D: usize> Sphere<D> {
    /// A sphere named `name`.
    pub fn new(centre: Point<D>, radius: f64, name: &str) -> Self {
        Sphere {
            centre,
            radius,
            name: name.to_string(),
        }
    }
    /// Signed distance: negative inside.
    fn phi(&self, x: &Point<D>) -> f64 {
        (x - self.centre).norm() - self.radius
    }
    fn project(&self, x: &Point<D>) -> Point<D> {
        let d = x - self.centre;
        let n = d.norm();
        if n == 0.0 {
            *x
        } else {
            self.centre + d * (self.radius / n)
        }
    }
}

/// Element-size factor: lattice step = `STEP[D - 2] · h`.
const STEP: [f64; 2] = [0.935, 1.133];
/// Nodes closer than `SNAP` lattice steps to a sphere are moved onto it.
const SNAP: f64 = 0.3;

/// A mesh of the ball bounded by the last of `spheres`, conforming to all of them, with nominal
/// element size `h`. Every sphere lies inside the last one; any two others are nested (the inner
/// one listed first) or apart, with a gap of at least one lattice step: a ball with several bodies
/// in it. With `hole`, the inside of the first sphere is left out (an annulus or a shell).
///
/// Facet markers 1, 2, … are the spheres in the given order, named by them; facets are oriented
/// with their normals pointing away from the sphere's centre. Cell marker `k + 1`, named
/// `inside_<name of sphere k>`, is the region inside sphere `k` and outside the smaller ones.
pub fn ball<const D: usize>(spheres: &[Sphere<D>], hole: bool, h: f64) -> Result<SimplexMesh<D>, MeshError> {
    math::assert_dim::<D>();
    check_spheres(spheres, hole, h)?;
    let outer = spheres.last().expect("checked non-empty");
    let step = STEP[D - 2] * h;
    let n = ((2.0 * outer.radius / step).ceil() + 2.0) as usize;
    super::lattice::check_lattice_size(&[n; D])?;
    let half = 0.5 * n as f64 * step;
    let (lo, hi) = (outer.centre.add_scalar(-half), outer.centre.add_scalar(half));
    let (mut points, mut cells) = kuhn_lattice(lo, hi, [n; D]);

    // `on[v]` is the sphere node v lies on exactly (after snapping or cutting), or NONE.
    let mut on = vec![NONE; points.len()];
    snap(&mut points, &cells, &mut on, spheres, step);
    for (k, sphere) in spheres.iter().enumerate() {
        cells = cut_by(&mut points, &mut on, &cells, sphere, k as u32)?;
    }

    let keep = |r: usize| r < spheres.len() && !(hole && r == 0);
    let (mesh, facets, facet_markers) = regions(&points, &on, &cells, spheres, keep, step)?;
    let mut parts = with_facets(mesh, facets, facet_markers, spheres);
    parts.facet_names.retain(|m, _| parts.facet_markers.contains(m));
    SimplexMesh::new(parts)
}

/// A mesh of the box `[lo, hi]`, a Kuhn lattice of `n[a]` intervals along axis `a`, conforming to
/// the spheres `spheres` inside it: the bodies of a particulate flow in a box, meshed as the host
/// code of the specification's section 4.2 meshes them. The spheres lie inside the box and apart,
/// each with a gap of at least one lattice step. With `holes` their insides are left out (a
/// body-fitted fluid mesh); otherwise they are meshed too.
///
/// Facet markers `1 … s` are the spheres in the given order, named by them and oriented away from
/// their centres; `s + 1 … s + 2D` the box's sides, named `xmin`, `xmax`, `ymin`, `ymax` (`zmin`,
/// `zmax`). Cell marker `k + 1`, `inside_<name of sphere k>`, is a sphere's inside, `s + 1`,
/// `outside`, the rest.
pub fn box_with_balls<const D: usize>(
    lo: Point<D>,
    hi: Point<D>,
    n: [usize; D],
    spheres: &[Sphere<D>],
    holes: bool,
) -> Result<SimplexMesh<D>, MeshError> {
    math::assert_dim::<D>();
    if n.contains(&0) || !(0..D).all(|a| hi[a] > lo[a]) {
        return Err(MeshError::Invalid(format!(
            "a box needs lo < hi and at least one interval per axis (got lo {:?}, hi {:?}, n {n:?})",
            lo.as_slice(),
            hi.as_slice()
        )));
    }
    super::lattice::check_lattice_size(&n)?;
    let step = (0..D).map(|a| (hi[a] - lo[a]) / n[a] as f64).fold(0.0, f64::max);
    check_in_box(lo, hi, spheres, step)?;
    let (mut points, mut cells) = kuhn_lattice(lo, hi, n);
    let mut on = vec![NONE; points.len()];
    snap(&mut points, &cells, &mut on, spheres, step);
    for (k, sphere) in spheres.iter().enumerate() {
        cells = cut_by(&mut points, &mut on, &cells, sphere, k as u32)?;
    }
    let (mesh, mut facets, mut facet_markers) =
        regions(&points, &on, &cells, spheres, |r| !holes || r == spheres.len(), step)?;
    // The box's sides: the boundary faces on its planes.
    let first = spheres.len() as i32 + 1;
    let tol = |a: usize| 1e-9 * (hi[a] - lo[a]);
    for c in 0..mesh.num_cells() as u32 {
        for k in 0..=D {
            if mesh.neighbour(c, k) != NONE {
                continue;
            }
            let face = oriented_face(mesh.points(), mesh.cell(c), k);
            for a in 0..D {
                for (side, plane) in [(0, lo[a]), (1, hi[a])] {
                    if face
                        .iter()
                        .all(|&v| (mesh.points()[v as usize][a] - plane).abs() < tol(a))
                    {
                        facets.push(face);
                        facet_markers.push(first + 2 * a as i32 + side);
                    }
                }
            }
        }
    }
    let mut parts = with_facets(mesh, facets, facet_markers, spheres);
    for a in 0..D {
        let axis = ["x", "y", "z"][a];
        parts.facet_names.insert(first + 2 * a as i32, format!("{axis}min"));
        parts.facet_names.insert(first + 2 * a as i32 + 1, format!("{axis}max"));
    }
    parts.cell_names.insert(first, "outside".to_string());
    SimplexMesh::new(parts)
}

/// Each sphere's centre finite and radius positive and finite.
fn check_radii<const D: usize>(spheres: &[Sphere<D>]) -> Result<(), MeshError> {
    match spheres
        .iter()
        .position(|s| !(s.radius > 0.0 && s.radius.is_finite() && s.centre.iter().all(|x| x.is_finite())))
    {
        Some(k) => Err(MeshError::Invalid(format!(
            "sphere {k} ('{}'): radius {} must be positive and finite",
            spheres[k].name, spheres[k].radius
        ))),
        None => Ok(()),
    }
}

/// Each sphere inside the box `[lo, hi]` and apart from the others, with gaps of at least `step`.
fn check_in_box<const D: usize>(lo: Point<D>, hi: Point<D>, spheres: &[Sphere<D>], step: f64) -> Result<(), MeshError> {
    let bad = |m: String| Err(MeshError::Invalid(m));
    check_radii(spheres)?;
    for (k, s) in spheres.iter().enumerate() {
        let gap = (0..D)
            .map(|a| (s.centre[a] - s.radius - lo[a]).min(hi[a] - s.centre[a] - s.radius))
            .fold(f64::INFINITY, f64::min);
        if gap < step {
            return bad(format!(
                "sphere {k} ('{}') must lie inside the box with a gap of at least one lattice step ({step}); \
                 its gap is {gap}",
                s.name
            ));
        }
        for (m, t) in spheres.iter().enumerate().skip(k + 1) {
            let gap = (t.centre - s.centre).norm() - s.radius - t.radius;
            if gap < step {
                return bad(format!(
                    "spheres {k} ('{}') and {m} ('{}') must lie apart with a gap of at least one lattice step \
                     ({step}); their gap is {gap}",
                    s.name, t.name
                ));
            }
        }
    }
    Ok(())
}

/// The cells of `cells` (cut by `spheres`) whose region `keep` accepts (the region of a cell: the
/// innermost sphere it lies in, `spheres.len()` outside all), renumbered into a mesh whose cell
/// markers are the regions plus one, and the spheres' facets on it with their markers.
#[allow(clippy::type_complexity)]
fn regions<const D: usize>(
    points: &[Point<D>],
    on: &[u32],
    cells: &[u32],
    spheres: &[Sphere<D>],
    keep: impl Fn(usize) -> bool,
    step: f64,
) -> Result<(SimplexMesh<D>, Vec<[u32; D]>, Vec<i32>), MeshError> {
    let nv = D + 1;
    let region: Vec<usize> = cells
        .chunks_exact(nv)
        .map(|cell| {
            (0..spheres.len())
                .find(|&k| inside(points, on, cell, &spheres[k], k as u32))
                .unwrap_or(spheres.len())
        })
        .collect();
    let mut new_index = vec![NONE; points.len()];
    let mut kept_points = Vec::new();
    let mut kept_cells = Vec::new();
    let mut cell_markers = Vec::new();
    for (cell, &r) in cells.chunks_exact(nv).zip(&region) {
        if !keep(r) {
            continue;
        }
        for &v in cell {
            if new_index[v as usize] == NONE {
                new_index[v as usize] = kept_points.len() as u32;
                kept_points.push(points[v as usize]);
            }
            kept_cells.push(new_index[v as usize]);
        }
        cell_markers.push(r as i32 + 1);
    }
    let cell_names = spheres
        .iter()
        .enumerate()
        .filter(|&(k, _)| keep(k))
        .map(|(k, s)| (k as i32 + 1, format!("inside_{}", s.name)))
        .collect();
    let mesh = SimplexMesh::new(MeshParts {
        points: kept_points,
        cells: kept_cells,
        cell_markers,
        facets: Vec::new(),
        facet_markers: Vec::new(),
        facet_names: BTreeMap::new(),
        cell_names,
    })?;
    let (facets, markers) = sphere_facets(&mesh, spheres, step);
    Ok((mesh, facets, markers))
}

/// The parts of `mesh` with `facets` and their markers, the spheres' names on theirs.
fn with_facets<const D: usize>(
    mesh: SimplexMesh<D>,
    facets: Vec<[u32; D]>,
    facet_markers: Vec<i32>,
    spheres: &[Sphere<D>],
) -> MeshParts<D> {
    MeshParts {
        points: mesh.points().to_vec(),
        cells: mesh.cells().to_vec(),
        cell_markers: mesh.cell_markers().to_vec(),
        facets,
        facet_markers,
        facet_names: spheres
            .iter()
            .enumerate()
            .map(|(k, s)| (k as i32 + 1, s.name.clone()))
            .collect(),
        cell_names: mesh.cell_names().clone(),
    }
}

fn check_spheres<const D: usize>(spheres: &[Sphere<D>], hole: bool, h: f64) -> Result<(), MeshError> {
    let bad = |m: String| Err(MeshError::Invalid(m));
    if spheres.is_empty() || (hole && spheres.len() < 2) {
        return bad("a ball needs at least one sphere (two with a hole)".into());
    }
    if !(h > 0.0 && h.is_finite()) {
        return bad(format!("the element size h must be positive and finite, got {h}"));
    }
    check_radii(spheres)?;
    let step = STEP[D - 2] * h;
    let last = spheres.len() - 1;
    for (k, s) in spheres.iter().enumerate().take(last) {
        for (m, t) in spheres.iter().enumerate().skip(k + 1) {
            let apart = (t.centre - s.centre).norm();
            let inside_gap = t.radius - apart - s.radius;
            let outside_gap = apart - t.radius - s.radius;
            let ok = inside_gap >= step || (m != last && outside_gap >= step);
            if !ok {
                return bad(format!(
                    "sphere {k} ('{}') must lie inside sphere {m} ('{}'){} with a gap of at least one lattice \
                     step ({step} at h = {h}); the gaps are {inside_gap} inside and {outside_gap} outside",
                    s.name,
                    t.name,
                    if m == last { "" } else { " or apart from it" },
                ));
            }
        }
    }
    Ok(())
}

/// Moves the lattice nodes within `SNAP · step` of a sphere onto it, then undoes the moves of the
/// nodes of any cell whose measure that made non-positive.
fn snap<const D: usize>(points: &mut [Point<D>], cells: &[u32], on: &mut [u32], spheres: &[Sphere<D>], step: f64) {
    let original = points.to_vec();
    for (v, p) in points.iter_mut().enumerate() {
        if let Some(k) = spheres.iter().position(|s| s.phi(p).abs() < SNAP * step) {
            *p = spheres[k].project(p);
            on[v] = k as u32;
        }
    }
    for _ in 0..4 {
        let mut changed = false;
        for cell in cells.chunks_exact(D + 1) {
            let p = crate::mesh::gather(points, cell);
            if math::signed_measure(&p[..D + 1]) <= 1e-3 * step.powi(D as i32) {
                for &v in cell {
                    if on[v as usize] != NONE {
                        points[v as usize] = original[v as usize];
                        on[v as usize] = NONE;
                        changed = true;
                    }
                }
            }
        }
        if !changed {
            break;
        }
    }
}

/// Sign of node `v` with respect to sphere `k`: exactly 0 on it.
fn sign<const D: usize>(points: &[Point<D>], on: &[u32], v: u32, sphere: &Sphere<D>, k: u32) -> i8 {
    if on[v as usize] == k {
        return 0;
    }
    let phi = sphere.phi(&points[v as usize]);
    if phi < 0.0 {
        -1
    } else if phi > 0.0 {
        1
    } else {
        0
    }
}

/// Whether a cell (after the cuts, all its nodes on one side of each sphere) is inside sphere `k`.
fn inside<const D: usize>(points: &[Point<D>], on: &[u32], cell: &[u32], sphere: &Sphere<D>, k: u32) -> bool {
    let signs = || cell.iter().map(|&v| sign(points, on, v, sphere, k));
    if signs().any(|s| s < 0) {
        return true;
    }
    if signs().any(|s| s > 0) {
        return false;
    }
    // Every node on the sphere: the cell is a chord of it, inside (the sphere is convex).
    let centroid = cell.iter().map(|&v| points[v as usize]).sum::<Point<D>>() / cell.len() as f64;
    sphere.phi(&centroid) < 0.0
}

/// Splits every cell crossed by sphere `k` into cells on either side of it.
fn cut_by<const D: usize>(
    points: &mut Vec<Point<D>>,
    on: &mut Vec<u32>,
    cells: &[u32],
    sphere: &Sphere<D>,
    k: u32,
) -> Result<Vec<u32>, MeshError> {
    let nv = D + 1;
    let mut cut_nodes: HashMap<(u32, u32), u32> = HashMap::new();
    let mut out = Vec::with_capacity(cells.len() + cells.len() / 4);
    for cell in cells.chunks_exact(nv) {
        let signs: Vec<i8> = cell.iter().map(|&v| sign(points, on, v, sphere, k)).collect();
        if !(signs.contains(&-1) && signs.contains(&1)) {
            out.extend_from_slice(cell);
            continue;
        }
        for i in 0..nv {
            for j in i + 1..nv {
                if signs[i] * signs[j] < 0 {
                    let key = (cell[i].min(cell[j]), cell[i].max(cell[j]));
                    cut_nodes.entry(key).or_insert_with(|| {
                        points.push(edge_crossing(&points[key.0 as usize], &points[key.1 as usize], sphere));
                        on.push(k);
                        (points.len() - 1) as u32
                    });
                }
            }
        }
        let cut = |i: usize, j: usize| cut_nodes[&(cell[i].min(cell[j]), cell[i].max(cell[j]))];
        let cut_cell = CutCell {
            ids: cell,
            sign: &signs,
            cut: &cut,
        };
        for side in [-1, 1] {
            for mut simplex in cut_cell.piece(side) {
                let p = crate::mesh::gather(points, &simplex);
                let m = math::signed_measure(&p[..nv]);
                if m < 0.0 {
                    simplex.swap(0, 1);
                }
                if m == 0.0 {
                    return Err(MeshError::Invalid(format!(
                        "cutting along sphere '{}' produced a degenerate cell; try another h",
                        sphere.name
                    )));
                }
                out.extend_from_slice(&simplex);
            }
        }
    }
    Ok(out)
}

/// The point where the segment `[a, b]` (one end inside, one outside) crosses the sphere: the root
/// in (0, 1) of `|a + t (b − a) − c|² = r²`.
fn edge_crossing<const D: usize>(a: &Point<D>, b: &Point<D>, sphere: &Sphere<D>) -> Point<D> {
    let (d, f) = (b - a, a - sphere.centre);
    let (qa, qb, qc) = (
        d.norm_squared(),
        2.0 * f.dot(&d),
        f.norm_squared() - sphere.radius * sphere.radius,
    );
    let disc = (qb * qb - 4.0 * qa * qc).max(0.0).sqrt();
    let t = [(-qb - disc) / (2.0 * qa), (-qb + disc) / (2.0 * qa)]
        .into_iter()
        .find(|t| (0.0..=1.0).contains(t))
        .unwrap_or(0.5)
        .clamp(0.0, 1.0);
    sphere.project(&(a + d * t))
}

/// The facets on each sphere: faces between a cell inside it and a cell outside it (or no cell),
/// oriented away from the sphere's centre; a face on the outside that lies on no sphere (farther
/// than `step / 2` from each) is skipped.
fn sphere_facets<const D: usize>(mesh: &SimplexMesh<D>, spheres: &[Sphere<D>], step: f64) -> (Vec<[u32; D]>, Vec<i32>) {
    let (mut facets, mut markers) = (Vec::new(), Vec::new());
    let region = |c: u32| mesh.cell_markers()[c as usize] - 1;
    for c in 0..mesh.num_cells() as u32 {
        for k in 0..=D {
            let other = mesh.neighbour(c, k);
            let (r, s) = (region(c), if other == NONE { -1 } else { region(other) });
            // Each face once: from the inner region's side, or from the only cell.
            if other != NONE && r >= s {
                continue;
            }
            let mut face = oriented_face(mesh.points(), mesh.cell(c), k);
            let centroid = face.iter().map(|&v| mesh.points()[v as usize]).sum::<Point<D>>() / D as f64;
            let Some(sphere) = (0..spheres.len()).min_by(|&a, &b| {
                spheres[a]
                    .phi(&centroid)
                    .abs()
                    .total_cmp(&spheres[b].phi(&centroid).abs())
            }) else {
                continue;
            };
            // A face of the mesh's outside that lies on no sphere (the side of a box).
            if spheres[sphere].phi(&centroid).abs() > 0.5 * step {
                continue;
            }
            let p = crate::mesh::gather(mesh.points(), &face);
            if math::facet_area_normal(&p[..D]).dot(&(centroid - spheres[sphere].centre)) < 0.0 {
                face.swap(0, 1);
            }
            facets.push(face);
            markers.push(sphere as i32 + 1);
        }
    }
    (facets, markers)
}
