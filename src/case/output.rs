//! What every run writes about its bodies, shared by dry runs ([`super::dry`]) and runs in a
//! fluid ([`super::immersed`]): the `bodies.csv` rows, the bodies' `.vtu` series and their
//! distance-field lattices, the final state and tilt in `summary.json`, and the step count.

use crate::body::{Angular, Dim, Kinematics, RigidBody};
use crate::io::{write_simplices_vtu, Field, OutputError, PartFile, PvdSeries};
use crate::math::{Point, Vector};
use crate::sim::Simulation;
use serde::Serialize;
use std::path::{Path, PathBuf};

/// One body at the end of the run (`summary.json`'s `final_state`).
#[derive(Debug, Clone, Serialize)]
pub struct FinalBody {
    /// Its name.
    pub name: String,
    /// Centre of mass.
    pub position: Vec<f64>,
    /// Rotation components (`[θ]` or `[qw, qx, qy, qz]`).
    pub rotation: Vec<f64>,
    /// Velocity.
    pub velocity: Vec<f64>,
    /// Angular velocity.
    pub angular_velocity: Vec<f64>,
}

impl FinalBody {
    /// The state of `b`.
    pub(super) fn of<const D: usize>(b: &RigidBody<D>) -> Self
    where
        Dim<D>: Kinematics<D>,
    {
        FinalBody {
            name: b.name.clone(),
            position: b.position.as_slice().to_vec(),
            rotation: <Dim<D> as Kinematics<D>>::rotation_components(&b.rotation),
            velocity: b.velocity.as_slice().to_vec(),
            angular_velocity: <Dim<D> as Kinematics<D>>::angular_components(&b.angular_velocity),
        }
    }
}

/// The largest tilt of the bodies: for each, the angle between its own first axis (the `x` axis of
/// its frame, the first semi-axis of an ellipse or the first side of a rectangle) and the plane
/// normal to gravity, `asin |R e_x · g/|g||` in `[0, π/2]`; 0 when that axis lies level. `None`
/// without gravity or bodies.
pub fn final_tilt<const D: usize>(bodies: &[RigidBody<D>], gravity: &Vector<D>) -> Option<f64>
where
    Dim<D>: Kinematics<D>,
{
    let g = gravity.try_normalize(0.0)?;
    bodies
        .iter()
        .map(|b| b.matrix().column(0).dot(&g).abs().min(1.0).asin())
        .reduce(f64::max)
}

/// The number of steps of `dt` that reach `end` (the last one may overshoot by round-off only).
pub(crate) fn step_count(end: f64, dt: f64) -> usize {
    ((end / dt) * (1.0 - 1e-12)).ceil().max(1.0) as usize
}

/// The bodies' output files of a run in progress.
pub(super) struct Writer {
    out: PathBuf,
    csv: PartFile,
    series: PvdSeries,
    fields: Option<PvdSeries>,
    count: usize,
}

impl Writer {
    pub(super) fn new(out: &Path, fields: bool) -> Result<Writer, OutputError> {
        Ok(Writer {
            out: out.to_path_buf(),
            csv: PartFile::create(&out.join("bodies.csv"))?,
            series: PvdSeries::new(out.join("series.pvd")),
            fields: fields.then(|| PvdSeries::new(out.join("fields.pvd"))),
            count: 0,
        })
    }

    /// One `bodies.csv` row per body (the header first); with `hydro` (the hydrodynamic force and
    /// torque on each body), their columns `hx,hy,htorque` (2D) or `hx,hy,hz,htx,hty,htz` (3D)
    /// follow the contact's.
    pub(super) fn rows<const D: usize>(
        &mut self,
        sim: &Simulation<D>,
        hydro: Option<(&[Vector<D>], &[Angular<D>])>,
    ) -> Result<(), OutputError>
    where
        Dim<D>: Kinematics<D>,
    {
        if self.count == 0 && sim.steps == 0 {
            let mut header = if D == 2 {
                "time,body,x,y,angle,vx,vy,omega,fx,fy,torque"
            } else {
                "time,body,x,y,z,qw,qx,qy,qz,vx,vy,vz,wx,wy,wz,fx,fy,fz,tx,ty,tz"
            }
            .to_string();
            if hydro.is_some() {
                header.push_str(if D == 2 {
                    ",hx,hy,htorque"
                } else {
                    ",hx,hy,hz,htx,hty,htz"
                });
            }
            self.csv.line(&header)?;
        }
        for (k, b) in sim.bodies.iter().enumerate() {
            let mut line = format!("{},{}", sim.time, b.name);
            let hydro_columns = hydro.into_iter().flat_map(|(f, t)| {
                f[k].iter()
                    .copied()
                    .chain(<Dim<D> as Kinematics<D>>::angular_components(&t[k]))
            });
            let columns = b
                .position
                .iter()
                .copied()
                .chain(<Dim<D> as Kinematics<D>>::rotation_components(&b.rotation))
                .chain(b.velocity.iter().copied())
                .chain(<Dim<D> as Kinematics<D>>::angular_components(&b.angular_velocity))
                .chain(sim.force[k].iter().copied())
                .chain(<Dim<D> as Kinematics<D>>::angular_components(&sim.torque[k]))
                .chain(hydro_columns);
            for x in columns {
                line.push(',');
                line.push_str(&format!("{x:e}"));
            }
            self.csv.line(&line)?;
        }
        self.count += 1;
        Ok(())
    }

    /// The bodies' boundaries (and fields) now.
    pub(super) fn snapshot<const D: usize>(&mut self, sim: &Simulation<D>) -> Result<(), OutputError>
    where
        Dim<D>: Kinematics<D>,
    {
        let name = self.bodies_vtu(sim)?;
        self.series.push(sim.time, &name)?;
        self.fields_vtu(sim)
    }

    /// Writes `bodies_NNNNNN.vtu` (the bodies' boundaries now) and returns its name.
    pub(super) fn bodies_vtu<const D: usize>(&mut self, sim: &Simulation<D>) -> Result<String, OutputError>
    where
        Dim<D>: Kinematics<D>,
    {
        self.csv.flush()?;
        let step = sim.steps;
        let mut points: Vec<Point<D>> = Vec::new();
        let mut cells: Vec<u32> = Vec::new();
        let mut body = Vec::new();
        let mut velocity = Vec::new();
        for (k, b) in sim.bodies.iter().enumerate() {
            let base = points.len() as u32;
            let s = &b.geometry.surface;
            points.extend(s.points.iter().map(|p| b.to_world(p)));
            velocity.extend(s.points.iter().map(|p| b.point_velocity(&b.to_world(p))));
            body.extend(std::iter::repeat_n(k as i32, s.points.len()));
            cells.extend(s.facets.iter().flat_map(|f| f.iter().map(move |&v| v + base)));
        }
        let name = format!("bodies_{step:06}.vtu");
        write_simplices_vtu(
            &self.out.join(&name),
            &points,
            &cells,
            D,
            vec![Field::integer("body", &body), Field::vector("velocity", &velocity)],
            vec![],
        )?;
        Ok(name)
    }

    /// With `output.fields`, writes each body's lattice field now into `fields.pvd`.
    pub(super) fn fields_vtu<const D: usize>(&mut self, sim: &Simulation<D>) -> Result<(), OutputError>
    where
        Dim<D>: Kinematics<D>,
    {
        let step = sim.steps;
        if let Some(series) = &mut self.fields {
            let mut points: Vec<Point<D>> = Vec::new();
            let mut cells: Vec<u32> = Vec::new();
            let mut distance = Vec::new();
            let mut body = Vec::new();
            for (k, b) in sim.bodies.iter().enumerate() {
                let f = &b.geometry.field;
                let base = points.len() as u32;
                let (lattice_points, lattice_cells) = crate::mesh::generate::kuhn_lattice::<D>(f.lo, f.hi(), f.n);
                points.extend(lattice_points.iter().map(|p| b.to_world(p)));
                cells.extend(lattice_cells.iter().map(|&v| v + base));
                distance.extend_from_slice(&f.values);
                body.extend(std::iter::repeat_n(k as i32, f.values.len()));
            }
            let name = format!("fields_{step:06}.vtu");
            write_simplices_vtu(
                &self.out.join(&name),
                &points,
                &cells,
                D + 1,
                vec![Field::scalar("distance", &distance), Field::integer("body", &body)],
                vec![],
            )?;
            series.push(sim.time, &name)?;
        }
        Ok(())
    }

    /// Flushes `bodies.csv` and renames it into place.
    pub(super) fn finish(self) -> Result<(), OutputError> {
        self.csv.finish()
    }
}
