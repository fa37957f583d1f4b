//! The domain: its mesh (a box meshed on a lattice, or a Gmsh file) and the walls' distance field.

use super::super::{schema, Case, CaseError};
use crate::body::{Dim, Kinematics, RigidBody};
use crate::contact::Walls;
use crate::fmm::FmmError;
use crate::mesh::generate::{axis_box, check_lattice_size};
use crate::mesh::periodic::{identify, NodeImages, PeriodicFaces};
use crate::mesh::SimplexMesh;

impl Case {
    /// The domain's walls: the markers `domain.walls` names, by default a box's faces that are
    /// not periodic (none for a box periodic along every axis); periodic faces are refused as
    /// walls.
    pub(in crate::case) fn walls<const D: usize>(
        &self,
        mesh: SimplexMesh<D>,
        default_walls: Vec<String>,
        band: f64,
        bodies: &[RigidBody<D>],
        images: &NodeImages<D>,
    ) -> Result<Option<Walls<D>>, CaseError>
    where
        Dim<D>: Kinematics<D>,
    {
        let d = self
            .file
            .domain
            .as_ref()
            .expect("walls are built for a case with a domain");
        let names = d.walls.clone().unwrap_or(default_walls);
        if names.is_empty() && d.walls.is_none() && images.any() {
            // A box periodic in every direction: no walls.
            return Ok(None);
        }
        if names.is_empty() {
            return Err(self.invalid("domain.walls", "name the wall markers of the mesh"));
        }
        let periodic: Vec<&str> = images.faces().iter().flat_map(|f| [&f.lo[..], &f.hi[..]]).collect();
        if let Some(w) = names.iter().find(|w| periodic.contains(&w.as_str())) {
            return Err(self.invalid(
                "domain.walls",
                format!("'{w}' is a periodic face (domain.periodic), which is no wall: remove it from the walls"),
            ));
        }
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        let reach = bodies.iter().map(|b| b.geometry.radius).fold(0.0, f64::max) + band;
        let walls_err = |cause: FmmError| CaseError::Walls {
            file: self.path.clone(),
            cause: Box::new(cause),
        };
        // The faces' markers exist: the images were identified from them.
        let faces = periodic
            .iter()
            .map(|name| mesh.facet_marker(name))
            .collect::<Result<Vec<i32>, _>>()
            .map_err(|e| walls_err(e.into()))?;
        Ok(Some(
            Walls::new(mesh, &refs, reach)
                .map_err(walls_err)?
                .with_period(*images.period(), &faces),
        ))
    }

    /// The key that sets the domain mesh's size: `domain.mesh`, `domain.cells` or `domain.h`.
    pub(in crate::case) fn domain_size_key(&self) -> &'static str {
        match &self.file.domain {
            Some(d) if d.mesh.is_some() => "domain.mesh",
            Some(d) if d.cells.is_some() => "domain.cells",
            _ => "domain.h",
        }
    }

    /// The periodic directions `domain.periodic` names.
    fn periodic_faces<const D: usize>(&self, d: &schema::DomainSpec) -> Result<Vec<PeriodicFaces>, CaseError> {
        let axis = |name: &str| -> Result<usize, CaseError> {
            ["x", "y", "z"][..D].iter().position(|a| *a == name).ok_or_else(|| {
                self.invalid(
                    "domain.periodic",
                    format!(
                        "unknown axis '{name}'; expected {}",
                        ["\"x\"", "\"y\"", "\"z\""][..D].join(", ")
                    ),
                )
            })
        };
        let expected = || {
            self.invalid(
                "domain.periodic",
                "expected a list of axes, such as [\"x\", \"z\"], or a table of axes and their faces' markers, \
                 such as { x = [\"left\", \"right\"] }",
            )
        };
        let name = |v: &toml::Value| v.as_str().map(str::to_string).ok_or_else(expected);
        match &d.periodic {
            None => Ok(Vec::new()),
            Some(toml::Value::Array(axes)) => axes
                .iter()
                .map(|a| Ok(PeriodicFaces::of_box(axis(&name(a)?)?)))
                .collect(),
            Some(toml::Value::Table(faces)) => faces
                .iter()
                .map(|(a, pair)| match pair.as_array().map(Vec::as_slice) {
                    Some([lo, hi]) => Ok(PeriodicFaces {
                        axis: axis(a)?,
                        lo: name(lo)?,
                        hi: name(hi)?,
                    }),
                    _ => Err(expected()),
                })
                .collect(),
            Some(_) => Err(expected()),
        }
    }

    /// The domain's mesh (a box meshed with spacing `domain.h`, default `default_h`, or a Gmsh
    /// file), the names of a box's faces that are not periodic (none for a file), and its nodes
    /// identified across the periodic faces (`domain.periodic`).
    pub(crate) fn domain_mesh<const D: usize>(
        &self,
        d: &schema::DomainSpec,
        default_h: f64,
    ) -> Result<(SimplexMesh<D>, Vec<String>, NodeImages<D>), CaseError> {
        let mesh_err = |what: &str, cause| CaseError::Mesh {
            file: self.path.clone(),
            what: what.into(),
            cause: Box::new(cause),
        };
        let (mesh, default_walls) = match (&d.bounds, &d.mesh) {
            (Some([lo, hi]), None) => {
                let lo = self.vector::<D>("domain.box[0]", lo)?;
                let hi = self.vector::<D>("domain.box[1]", hi)?;
                if (0..D).any(|a| hi[a] <= lo[a]) {
                    return Err(self.invalid("domain.box", "the upper corner must exceed the lower one on every axis"));
                }
                let cells: [usize; D] = match &d.cells {
                    Some(n) if n.len() == D && n.iter().all(|&k| k > 0) => std::array::from_fn(|a| n[a]),
                    Some(n) => {
                        return Err(self.invalid("domain.cells", format!("expected {D} positive integers, got {n:?}")))
                    }
                    None => {
                        // The default size (2ρ) is capped so that a small ρ cannot make a huge mesh
                        // unasked; a size the case gives is honoured.
                        let h = self.positive("domain.h", d.h.unwrap_or(default_h))?;
                        let cap = match (d.h, D) {
                            (Some(_), _) => f64::INFINITY,
                            (None, 2) => 256.0,
                            (None, _) => 48.0,
                        };
                        std::array::from_fn(|a| ((hi[a] - lo[a]) / h).ceil().clamp(1.0, cap) as usize)
                    }
                };
                check_lattice_size(&cells).map_err(|e| {
                    if !e.is_size_limit() {
                        return mesh_err("domain.box", e);
                    }
                    let hint = match d.cells {
                        Some(_) => "fewer cells make a smaller mesh",
                        None => "a larger spacing makes a smaller mesh",
                    };
                    self.invalid(self.domain_size_key(), format!("{e}; {hint}"))
                })?;
                let mesh = axis_box::<D>(lo, hi, cells).map_err(|e| mesh_err("domain.box", e))?;
                let names = ["xmin", "xmax", "ymin", "ymax", "zmin", "zmax"];
                (mesh, names[..2 * D].iter().map(|s| s.to_string()).collect())
            }
            (None, Some(file)) => {
                let mesh = self.read_mesh::<D>(&self.relative(file), "domain.mesh")?;
                (mesh, Vec::new())
            }
            _ => return Err(self.invalid("domain", "give either `box` or `mesh`")),
        };
        let faces = self.periodic_faces::<D>(d)?;
        let images = identify(&mesh, &faces).map_err(|e| mesh_err("domain.periodic", e))?;
        let default_walls = default_walls
            .into_iter()
            .filter(|w| !faces.iter().any(|f| f.lo == *w || f.hi == *w))
            .collect();
        Ok((mesh, default_walls, images))
    }
}
