//! Running a built case: the time loop and its output directory.
//!
//! | file | content |
//! |---|---|
//! | `series.pvd`, `bodies_NNNNNN.vtu` | the bodies' boundaries (segments in 2D, triangles in 3D), point data `body` and `velocity`, every `output.every` steps |
//! | `fields.pvd`, `fields_NNNNNN.vtu` | with `output.fields = true`: each body's distance-field lattice moved with it, point data `distance`, `body` |
//! | `domain.vtu` | the domain mesh with the wall distance `wall_distance` (if the case has walls) |
//! | `bodies.csv` | one row per body every `output.csv_every` steps: `time,body,x,y,angle,vx,vy,omega,fx,fy,torque` (2D) or `time,body,x,y,z,qw,qx,qy,qz,vx,vy,vz,wx,wy,wz,fx,fy,fz,tx,ty,tz` (3D); `f`, `t` the contact force and torque |
//! | `summary.json` | case, steps, times per phase, `final_tilt`, final state; `"status": "failed"` and the error if the run stopped |
//!
//! Every file is written whole (temporary file, then rename); `bodies.csv` is renamed into place at
//! the end, or when the run fails, so a failed run keeps every row it computed.

use super::{Case, CaseError};
use crate::body::{Angular, Dim, Kinematics, RigidBody};
use crate::io::{write_mesh_vtu, write_simplices_vtu, Field, OutputError, PartFile, PvdSeries};
use crate::math::{Point, Vector};
use crate::sim::Simulation;
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Seconds spent per phase.
#[derive(Debug, Clone, Default, Serialize)]
pub struct PhaseSeconds {
    /// Building the bodies' geometries and fields and the walls' field.
    pub setup: f64,
    /// Broad phase.
    pub broad_phase: f64,
    /// Gap evaluation on the distance fields.
    pub distance: f64,
    /// Force laws.
    pub forces: f64,
    /// Time integration.
    pub integration: f64,
    /// Writing files.
    pub output: f64,
}

/// One body at the end of the run.
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

/// What `summary.json` holds.
#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    /// The case's name.
    pub case: String,
    /// `"completed"` or `"failed"`.
    pub status: String,
    /// The error that stopped the run.
    pub error: Option<String>,
    /// 2 or 3.
    pub dimension: usize,
    /// Number of bodies.
    pub bodies: usize,
    /// Steps done.
    pub steps: usize,
    /// Simulated time reached.
    pub time: f64,
    /// `Δt`.
    pub time_step: f64,
    /// The contact springs' stable time step (see [`Simulation::stable_time_step`]).
    pub stable_time_step: f64,
    /// The force law.
    pub law: String,
    /// The broad-phase method.
    pub broad_phase: String,
    /// The most contacts at one step.
    pub max_contacts: usize,
    /// Wall-clock seconds of the whole run, setup included.
    pub wall_seconds: f64,
    /// Seconds per phase.
    pub seconds: PhaseSeconds,
    /// Contact seconds (broad phase + distance + forces) per step.
    pub contact_seconds_per_step: f64,
    /// The largest tilt of a body's first axis from level at the end (radians, see
    /// [`final_tilt`]); `null` without gravity.
    pub final_tilt: Option<f64>,
    /// The bodies at the end.
    pub final_state: Vec<FinalBody>,
}

/// Runs `sim` (built from `case`, which took `setup_seconds`) to the end time, writing into
/// `out`; `progress(step, steps)` is called after every step.
pub fn run<const D: usize>(
    case: &Case,
    sim: &mut Simulation<D>,
    out: &Path,
    setup_seconds: f64,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<Summary, CaseError>
where
    Dim<D>: Kinematics<D>,
{
    let start = Instant::now();
    std::fs::create_dir_all(out).map_err(|cause| OutputError::Io {
        path: out.to_path_buf(),
        cause,
    })?;
    let time = case.time()?;
    let dt = time.step;
    let steps = step_count(time.end, dt);
    let output = case.file.output.clone().unwrap_or_default();
    let every = output.every.unwrap_or((steps / 100).max(1));
    let csv_every = output.csv_every.unwrap_or(1).max(1);
    let mut writer = Writer::new(out, output.fields.unwrap_or(false))?;
    let mut output_seconds = 0.0;
    let mut max_contacts = 0;

    let t = Instant::now();
    if let Some(w) = &sim.walls {
        write_mesh_vtu(
            &out.join("domain.vtu"),
            w.mesh(),
            vec![Field::scalar("wall_distance", w.values())],
            vec![],
        )?;
    }
    writer.rows(sim, None)?;
    if every > 0 {
        writer.snapshot(sim)?;
    }
    output_seconds += t.elapsed().as_secs_f64();

    let mut failure = None;
    for s in 1..=steps {
        if let Err(cause) = sim.step(dt) {
            failure = Some(CaseError::Sim {
                file: case.path.clone(),
                cause: Box::new(cause),
            });
            break;
        }
        sim.time = s as f64 * dt;
        max_contacts = max_contacts.max(sim.contact.contacts.len());
        let t = Instant::now();
        if s % csv_every == 0 || s == steps {
            writer.rows(sim, None)?;
        }
        if every > 0 && (s % every == 0 || s == steps) {
            writer.snapshot(sim)?;
        }
        output_seconds += t.elapsed().as_secs_f64();
        progress(s, steps);
    }
    writer.finish()?;

    let times = sim.contact.times;
    let summary = Summary {
        case: case.name(),
        status: if failure.is_some() { "failed" } else { "completed" }.into(),
        error: failure.as_ref().map(|e| e.to_string()),
        dimension: D,
        bodies: sim.bodies.len(),
        steps: sim.steps,
        time: sim.time,
        time_step: dt,
        stable_time_step: sim.stable_time_step(),
        law: sim.contact.model.law.name().into(),
        broad_phase: sim.contact.broad_name().into(),
        max_contacts,
        wall_seconds: setup_seconds + start.elapsed().as_secs_f64(),
        seconds: PhaseSeconds {
            setup: setup_seconds,
            broad_phase: times.broad,
            distance: times.distance,
            forces: times.forces,
            integration: sim.integration_seconds,
            output: output_seconds,
        },
        contact_seconds_per_step: (times.broad + times.distance + times.forces) / sim.steps.max(1) as f64,
        final_tilt: final_tilt(&sim.bodies, &sim.gravity),
        final_state: sim.bodies.iter().map(FinalBody::of).collect(),
    };
    crate::io::write_json(&out.join("summary.json"), &summary)?;
    match failure {
        Some(e) => Err(e),
        None => Ok(summary),
    }
}

/// The number of steps of `dt` that reach `end` (the last one may overshoot by round-off only).
pub(crate) fn step_count(end: f64, dt: f64) -> usize {
    ((end / dt) * (1.0 - 1e-12)).ceil().max(1.0) as usize
}

/// The output files of a run in progress (also used by fluid runs with bodies).
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
    fn snapshot<const D: usize>(&mut self, sim: &Simulation<D>) -> Result<(), OutputError>
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
