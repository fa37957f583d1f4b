//! What every run writes about its bodies, shared by dry runs ([`super::dry`]) and runs in a
//! fluid ([`super::immersed`]): the `bodies.csv` rows, the bodies' `.vtu` series and their
//! distance-field lattices, the final state and tilt in `summary.json`, and the step count.

use super::control::RunHeader;
use super::inflow::{self, Inflow};
use crate::body::{Angular, Dim, Kinematics, RigidBody};
use crate::io::{write_simplices_vtu, Field, OutputError, PartFile, PvdEntry, PvdSeries};
use crate::math::{Point, Vector};
use crate::sim::Simulation;
use serde::Serialize;
use std::io::Write;
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
    /// The state of `b`, a body of `sim`, in the lab's frame.
    pub(super) fn of<const D: usize>(b: &RigidBody<D>, sim: &Simulation<D>) -> Self
    where
        Dim<D>: Kinematics<D>,
    {
        let (position, velocity) = sim.in_lab(b);
        FinalBody {
            name: b.name.clone(),
            position: position.as_slice().to_vec(),
            rotation: <Dim<D> as Kinematics<D>>::rotation_components(&b.rotation),
            velocity: velocity.as_slice().to_vec(),
            angular_velocity: <Dim<D> as Kinematics<D>>::angular_components(&b.angular_velocity),
        }
    }
}

/// The bodies that entered and left over a run (`summary.json`, beside `bodies`, those present
/// at the end).
#[derive(Debug, Clone, Serialize)]
pub struct Traffic {
    /// Bodies present at the start or released since.
    pub bodies_in: usize,
    /// Bodies that left through an opening (`exits.csv`).
    pub bodies_out: usize,
    /// Their names, in the order they left.
    pub exit_order: Vec<String>,
}

impl Traffic {
    /// The counts of `sim` now.
    pub(super) fn of<const D: usize>(sim: &Simulation<D>) -> Self
    where
        Dim<D>: Kinematics<D>,
    {
        Traffic {
            bodies_in: sim.bodies.len() + sim.exits.len(),
            bodies_out: sim.exits.len(),
            exit_order: sim.exits.iter().map(|e| e.name.clone()).collect(),
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

/// The files a run writes into its directory, by name.
const RUN_FILES: [&str; 14] = [
    "summary.json",
    "exits.csv",
    "checkpoint.cbor",
    "bodies.csv",
    "bodies.csv.part",
    "fluid.csv",
    "fluid.csv.part",
    "series.pvd",
    "fields.pvd",
    "flow.pvd",
    "domain.vtu",
    "position.png",
    "velocity.png",
    "angle.png",
];

/// The series a run writes, `<prefix>NNNNNN.vtu` (six digits or more: the step).
const RUN_SERIES: [&str; 3] = ["bodies_", "fields_", "flow_"];

/// Whether `name` is a snapshot of a run's series (`<series>_NNNNNN.vtu`).
pub(super) fn is_snapshot(name: &str) -> bool {
    RUN_SERIES.iter().any(|prefix| {
        name.strip_prefix(prefix)
            .and_then(|rest| rest.strip_suffix(".vtu"))
            .is_some_and(|step| step.len() >= 6 && step.bytes().all(|b| b.is_ascii_digit()))
    })
}

/// Whether `name` is a file a run writes (or the temporary file of one, `.<name>.tmp`).
pub(super) fn is_run_file(name: &str) -> bool {
    let own = |name: &str| RUN_FILES.contains(&name) || is_snapshot(name);
    own(name)
        || name
            .strip_prefix('.')
            .and_then(|rest| rest.strip_suffix(".tmp"))
            .is_some_and(own)
}

/// Makes `out` ready for a run: creates it; when it holds an earlier run's files (named as a run
/// names them, with that run's `summary.json`), removes them, so that the new run's series never
/// mixes with the old one's; then writes `summary.json` with `header` (status `running`: a
/// process killed outright leaves it so). Refused: a path that is a file, a directory where a
/// run's file goes, and files named like a run's without a `summary.json` of `tumble` (they may be
/// another program's). Returns how many files were removed.
pub fn prepare_output(out: &Path, header: &RunHeader) -> Result<usize, OutputError> {
    let refused = |path: &Path, message: String| OutputError::Refused {
        path: path.to_path_buf(),
        message,
    };
    let io = |path: &Path, cause| OutputError::Io {
        path: path.to_path_buf(),
        cause,
    };
    if out.exists() && !out.is_dir() {
        return Err(refused(
            out,
            "is a file: the output needs a directory (--out DIR)".into(),
        ));
    }
    std::fs::create_dir_all(out).map_err(|cause| io(out, cause))?;
    let mut earlier = Vec::new();
    for entry in std::fs::read_dir(out).map_err(|cause| io(out, cause))? {
        let entry = entry.map_err(|cause| io(out, cause))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if is_run_file(&name) {
            if entry.path().is_dir() {
                return Err(refused(
                    &entry.path(),
                    "is a directory where the run writes a file: remove it or choose another --out".into(),
                ));
            }
            earlier.push(entry.path());
        }
    }
    if !earlier.is_empty() {
        let summary = out.join("summary.json");
        let is_run = std::fs::read_to_string(&summary)
            .ok()
            .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok())
            .is_some_and(|v| v.get("case").is_some() && v.get("status").is_some());
        if !is_run {
            return Err(refused(
                out,
                format!(
                    "holds files named as a run's output ({}) but no summary.json of a tumble run: \
                     choose another --out, or remove them",
                    earlier[0].file_name().unwrap_or_default().to_string_lossy()
                ),
            ));
        }
        for path in &earlier {
            std::fs::remove_file(path).map_err(|cause| io(path, cause))?;
        }
    }
    crate::io::write_json(&out.join("summary.json"), header)?;
    Ok(earlier.len())
}

/// The number of steps of `dt` that reach `end` (the last one may overshoot by round-off only).
pub(crate) fn step_count(end: f64, dt: f64) -> usize {
    ((end / dt) * (1.0 - 1e-12)).ceil().max(1.0) as usize
}

/// The bodies' files of a run as its stepper opens them for the driver: a new run's, or a
/// continued run's cut back to its checkpoint; dry runs and runs in a fluid alike.
pub(super) struct BodyFiles {
    out: PathBuf,
    /// `series.pvd` (a dry run) or `flow.pvd` (a run in a fluid).
    series: &'static str,
    /// With `output.fields`: the bodies' distance-field lattices too.
    fields: bool,
    /// Whether the rows hold the hydrodynamic force and torque.
    hydro: bool,
    /// Open from `start` or `resume` on.
    writer: Option<Writer>,
}

impl BodyFiles {
    /// The files of a run into `out`, not yet opened.
    pub(super) fn new(out: &Path, series: &'static str, fields: bool, hydro: bool) -> Self {
        BodyFiles {
            out: out.to_path_buf(),
            series,
            fields,
            hydro,
            writer: None,
        }
    }

    /// Opens a new run's files.
    pub(super) fn start(&mut self) -> Result<(), OutputError> {
        self.writer = Some(Writer::new(&self.out, self.series, self.fields)?);
        Ok(())
    }

    /// Reopens the files as they stood at a checkpoint (`saved`).
    pub(super) fn resume(&mut self, saved: &SavedOutputs) -> Result<(), OutputError> {
        self.writer = Some(Writer::resume(&self.out, self.series, saved)?);
        Ok(())
    }

    /// The bytes of one time's rows ([`Writer::row_bytes`]).
    pub(super) fn row_bytes(&self) -> f64 {
        self.writer.as_ref().map_or(0.0, Writer::row_bytes)
    }

    /// The bytes of the rows of the bodies `inflows` will release, written every `period` until
    /// `end`.
    pub(super) fn bytes_to_come<const D: usize>(&self, inflows: &[Inflow<D>], end: f64, period: f64) -> f64
    where
        Dim<D>: Kinematics<D>,
    {
        inflow::rows_to_come(inflows, (end, period), |name| body_row_bytes::<D>(self.hydro, name))
    }

    /// The open files.
    pub(super) fn writer(&mut self) -> &mut Writer {
        self.writer
            .as_mut()
            .expect("the driver opens the files (start or resume) before it writes")
    }

    /// Closes the files (`bodies.csv` renamed into place).
    pub(super) fn finish(&mut self) -> Result<(), OutputError> {
        self.writer.take().map_or(Ok(()), Writer::finish)
    }
}

/// The bodies' output files of a run in progress.
pub(super) struct Writer {
    out: PathBuf,
    csv: PartFile,
    series: PvdSeries,
    fields: Option<PvdSeries>,
    count: usize,
    row_bytes: f64,
    /// The exits `exits.csv` holds (`usize::MAX`: unknown, after a restart).
    exits: usize,
    /// Each body's number in the `.vtu` files' `body` field, by name, in order of appearance
    /// (stable while bodies leave and enter).
    ids: std::collections::HashMap<String, i32>,
}

/// A run's outputs at a checkpoint: what a continued run keeps of them.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub(super) struct SavedOutputs {
    /// The bytes of the rows' file then (`bodies.csv`, or a flow's `fluid.csv`).
    pub csv_bytes: u64,
    /// The row times written.
    pub rows: usize,
    /// Each `.pvd` series: its file name and entries (time, part, file).
    pub series: Vec<(String, Vec<PvdEntry>)>,
    /// The bodies the `.vtu` files have numbered, in the order of their numbers.
    #[serde(default)]
    pub body_ids: Vec<String>,
}

/// Characters of a number in full precision in a CSV row, its comma included
/// (`-1.4004183739082085e-1,`).
const ROW_NUMBER_BYTES: f64 = 23.0;

/// The bytes of one body's `bodies.csv` row once its numbers have all their digits: the time,
/// the name and the state's numbers (with the hydrodynamic force and torque if `hydro`).
fn body_row_bytes<const D: usize>(hydro: bool, name: &str) -> f64 {
    // Position, rotation, velocity, angular velocity, contact force and torque.
    let state = if D == 2 { 9 } else { 19 };
    let numbers = state + if hydro { [3, 6][D - 2] } else { 0 };
    ROW_NUMBER_BYTES * (numbers + 1) as f64 + name.len() as f64 + 2.0
}

impl Writer {
    /// The writer of a new run into `out`: `bodies.csv`, the series `series` (`series.pvd` of a
    /// dry run, `flow.pvd` of a run in a fluid) and, with `fields`, `fields.pvd`.
    pub(super) fn new(out: &Path, series: &str, fields: bool) -> Result<Writer, OutputError> {
        Ok(Writer {
            out: out.to_path_buf(),
            csv: PartFile::create(&out.join("bodies.csv"))?,
            series: PvdSeries::new(out.join(series)),
            fields: fields.then(|| PvdSeries::new(out.join("fields.pvd"))),
            count: 0,
            row_bytes: 0.0,
            exits: 0,
            ids: Default::default(),
        })
    }

    /// The writer of a run continued from a checkpoint whose outputs were `saved`
    /// ([`Self::saved`]): `bodies.csv` cut back to the checkpoint's rows, the series to its
    /// entries.
    pub(super) fn resume(out: &Path, series: &str, saved: &SavedOutputs) -> Result<Writer, OutputError> {
        let restored = |name: &str| {
            let entries = saved.series.iter().find(|(n, _)| n == name).map(|(_, e)| e.clone());
            entries.map(|e| PvdSeries::restored(out.join(name), e)).transpose()
        };
        Ok(Writer {
            out: out.to_path_buf(),
            csv: PartFile::resume(&out.join("bodies.csv"), saved.csv_bytes)?,
            series: restored(series)?.unwrap_or_else(|| PvdSeries::new(out.join(series))),
            fields: restored("fields.pvd")?,
            count: saved.rows,
            row_bytes: 0.0,
            exits: usize::MAX,
            ids: saved
                .body_ids
                .iter()
                .enumerate()
                .map(|(k, name)| (name.clone(), k as i32))
                .collect(),
        })
    }

    /// What the outputs are now, for a checkpoint (`bodies.csv` is flushed first).
    pub(super) fn saved(&mut self) -> Result<SavedOutputs, OutputError> {
        self.csv.flush()?;
        let name = |s: &PvdSeries| {
            s.path()
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default()
        };
        let mut series = vec![(name(&self.series), self.series.entries().to_vec())];
        series.extend(self.fields.iter().map(|f| (name(f), f.entries().to_vec())));
        let mut body_ids = vec![String::new(); self.ids.len()];
        for (name, &k) in &self.ids {
            body_ids[k as usize] = name.clone();
        }
        Ok(SavedOutputs {
            csv_bytes: self.csv.written()?,
            rows: self.count,
            series,
            body_ids,
        })
    }

    /// Adds the files `parts` written for `time` to the run's series.
    pub(super) fn push_parts(&mut self, time: f64, parts: &[&str]) -> Result<(), OutputError> {
        self.series.push_parts(time, parts)
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
        let mut row_bytes = 0.0;
        for (k, b) in sim.bodies.iter().enumerate() {
            let mut line = format!("{},{}", sim.time, b.name);
            let hydro_columns = hydro.into_iter().flat_map(|(f, t)| {
                f[k].iter()
                    .copied()
                    .chain(<Dim<D> as Kinematics<D>>::angular_components(&t[k]))
            });
            let (position, velocity) = sim.in_lab(b);
            let columns = position
                .iter()
                .copied()
                .chain(<Dim<D> as Kinematics<D>>::rotation_components(&b.rotation))
                .chain(velocity.iter().copied())
                .chain(<Dim<D> as Kinematics<D>>::angular_components(&b.angular_velocity))
                .chain(sim.force[k].iter().copied())
                .chain(<Dim<D> as Kinematics<D>>::angular_components(&sim.torque[k]))
                .chain(hydro_columns);
            for x in columns {
                line.push(',');
                line.push_str(&format!("{x:e}"));
            }
            self.csv.line(&line)?;
            row_bytes += body_row_bytes::<D>(hydro.is_some(), &b.name);
        }
        self.row_bytes = row_bytes;
        self.count += 1;
        Ok(())
    }

    /// Rewrites `exits.csv` whole when the bodies that left ([`Simulation::exits`]) are not
    /// those it holds: a row per body, `time,body,opening,x,y[,z],vx,vy[,vz]`, in the order they
    /// left. No file while none has left.
    pub(super) fn exits<const D: usize>(&mut self, sim: &Simulation<D>) -> Result<(), OutputError>
    where
        Dim<D>: Kinematics<D>,
    {
        if self.exits == sim.exits.len() {
            return Ok(());
        }
        let path = self.out.join("exits.csv");
        if sim.exits.is_empty() {
            match std::fs::remove_file(&path) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    return Err(OutputError::Io { path, cause: e });
                }
                _ => {}
            }
        } else {
            let axes = ["x", "y", "z"];
            let header: Vec<String> = ["time", "body", "opening"]
                .iter()
                .map(|s| s.to_string())
                .chain(axes[..D].iter().map(|a| a.to_string()))
                .chain(axes[..D].iter().map(|a| format!("v{a}")))
                .collect();
            crate::io::write_atomically(&path, |w| {
                let io = |cause| OutputError::Io {
                    path: path.clone(),
                    cause,
                };
                writeln!(w, "{}", header.join(",")).map_err(io)?;
                for e in &sim.exits {
                    let numbers: Vec<String> = e
                        .position
                        .iter()
                        .chain(e.velocity.iter())
                        .map(|x| format!("{x:e}"))
                        .collect();
                    writeln!(w, "{},{},{},{}", e.time, e.name, e.opening, numbers.join(",")).map_err(io)?;
                }
                Ok(())
            })?;
        }
        self.exits = sim.exits.len();
        Ok(())
    }

    /// The number of the body called `name` in the `.vtu` files, from `ids` (`Writer::ids`).
    fn id(ids: &mut std::collections::HashMap<String, i32>, name: &str) -> i32 {
        let next = ids.len() as i32;
        *ids.entry(name.to_string()).or_insert(next)
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
        for b in &sim.bodies {
            let base = points.len() as u32;
            let s = &b.geometry.surface;
            points.extend(s.points.iter().map(|p| b.to_world(p)));
            velocity.extend(s.points.iter().map(|p| b.point_velocity(&b.to_world(p))));
            body.extend(std::iter::repeat_n(Self::id(&mut self.ids, &b.name), s.points.len()));
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
            for b in &sim.bodies {
                let f = &b.geometry.field;
                let base = points.len() as u32;
                let (lattice_points, lattice_cells) = crate::mesh::generate::kuhn_lattice::<D>(f.lo, f.hi(), f.n);
                points.extend(lattice_points.iter().map(|p| b.to_world(p)));
                cells.extend(lattice_cells.iter().map(|&v| v + base));
                distance.extend_from_slice(&f.values);
                body.extend(std::iter::repeat_n(Self::id(&mut self.ids, &b.name), f.values.len()));
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

    /// The bytes of one time's rows of `bodies.csv` once its numbers have all their digits (at
    /// the start many are `0e0`).
    pub(super) fn row_bytes(&self) -> f64 {
        self.row_bytes
    }

    /// Flushes `bodies.csv` and renames it into place.
    pub(super) fn finish(self) -> Result<(), OutputError> {
        self.csv.finish()
    }
}
