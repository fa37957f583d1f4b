//! Cases with bodies in a fluid: a `[fluid]` table (unsteady) and `[[bodies]]` together run the
//! fictitious-domain coupling ([`crate::sim::Immersed`]). Gravity (the top-level `gravity`) acts
//! on the bodies, buoyancy-corrected; the fluid's own weight is balanced by a hydrostatic
//! pressure, so the pressure written out is the dynamic one.
//!
//! | file | content |
//! |---|---|
//! | `flow.pvd` | each output time has two parts: `flow_NNNNNN.vtu` (the mesh with `velocity`, `pressure`, `vorticity`) and `bodies_NNNNNN.vtu` (the bodies' boundaries) |
//! | `bodies.csv` | the dry run's columns followed by the hydrodynamic force and torque, `hx,hy,htorque` (2D) or `hx,hy,hz,htx,hty,htz` (3D) |
//! | `position.png`, `velocity.png`, `angle.png` | the bodies' coordinates, velocity components and angles (2D) against time |
//! | `checkpoint.cbor` | with `output.checkpoint_every`, or when the run is stopped: the whole state, from which `tumble run --restart` continues ([`super::checkpoint`]) |
//! | `summary.json` | status (`running`, then `completed`, `failed` or `interrupted` with the error), sizes, times, `terminal_velocity`, `max_speed`, `max_reynolds`, `final_gap`, `min_body_gap`, `max_cfl`, `max_body_cfl`, `final_tilt`, the final state |
//!
//! Every file is written whole; a run that fails or is stopped keeps everything written so far.

use super::checkpoint::{self, Kind, RunState, Saver, SpentSeconds};
use super::control::{Control, Plan, RunHeader};
use super::fluid::FlowCase;
use super::inflow;
use super::output::{body_row_bytes, final_tilt, prepare_output, step_count, FinalBody, Traffic, Writer};
use super::{Case, CaseError};
use crate::body::{Dim, Kinematics, RigidBody};
use crate::contact::WALL;
use crate::fluid::{Convection, Scheme, Solvers};
use crate::io::{plot_curves, Curve, OutputError};
use crate::math::Vector;
use crate::sim::{substeps_for, Immersed, ImmersedOptions, Simulation};
use serde::Serialize;
use std::path::Path;
use std::time::Instant;

/// Seconds per phase of a run of bodies in a fluid.
#[derive(Debug, Clone, Default, Serialize)]
pub struct ImmersedPhaseSeconds {
    /// Mesh, space, bodies, walls, factorisations.
    pub setup: f64,
    /// Fluid steps without the constraint.
    pub fluid: f64,
    /// The rigidity constraint (conjugate gradients) and projection.
    pub constraint: f64,
    /// Contact and body updates.
    pub bodies: f64,
    /// Files.
    pub output: f64,
}

/// What `summary.json` holds for a case of bodies in a fluid.
#[derive(Debug, Clone, Serialize)]
pub struct ImmersedSummary {
    /// The case, how the run ended, the error.
    #[serde(flatten)]
    pub run: RunHeader,
    /// `"immersed"`.
    pub mode: String,
    /// Mesh cells.
    pub cells: usize,
    /// Velocity unknowns.
    pub velocity_unknowns: usize,
    /// How the velocity, pressure and mass systems were solved: `"cholesky"` (a factor) or
    /// `"amg-cg"` (conjugate gradients and algebraic multigrid), `[fluid] solver`.
    pub linear_solvers: Solvers,
    /// Bodies present at the end.
    pub bodies: usize,
    /// Bodies that entered and left.
    #[serde(flatten)]
    pub traffic: Traffic,
    /// Steps done.
    pub steps: usize,
    /// Time reached.
    pub time: f64,
    /// `Δt`.
    pub time_step: f64,
    /// Body sub-steps per fluid step (from the contact stiffness).
    pub substeps: usize,
    /// Mean conjugate-gradient iterations of the rigidity constraint per step.
    pub constraint_iterations: f64,
    /// The first body's mean speed over the last tenth of the run, if its acceleration has died
    /// out there (the speed varies by at most 1 % of its mean: the nodes inside a body change as
    /// it moves, a jitter of about 0.2 %); `null` otherwise.
    pub terminal_velocity: Option<f64>,
    /// The largest speed of any body.
    pub max_speed: f64,
    /// When it was reached.
    pub max_speed_time: f64,
    /// `ρ_s U d / μ` at the largest speed, `d` the body's bounding diameter (the particle-density
    /// definition of Wan and Turek).
    pub max_reynolds: f64,
    /// The largest speed of any body at the end.
    pub final_speed: f64,
    /// The smallest distance from a body to a wall at the end; `null` if farther than the walls'
    /// distance field reaches (the bodies' radius plus twice the contact range).
    pub final_gap: Option<f64>,
    /// The smallest gap between two bodies within contact range over the run (negative: overlap).
    pub min_body_gap: Option<f64>,
    /// The largest `|u| Δt / h` of the fluid over the run (`h` the smallest cell edge).
    pub max_cfl: f64,
    /// The largest `|U| Δt / h` of a body over the run: how far, in cells, a body moves per step.
    pub max_body_cfl: f64,
    /// Warnings (time step too large for the flow).
    pub warnings: Vec<String>,
    /// Seconds since the start.
    pub wall_seconds: f64,
    /// Per phase.
    pub seconds: ImmersedPhaseSeconds,
    /// The largest tilt of a body's first axis from level at the end (radians, see
    /// [`super::final_tilt`]); `null` without gravity.
    pub final_tilt: Option<f64>,
    /// The bodies at the end (in the lab).
    pub final_state: Vec<FinalBody>,
    /// With `[frame]`: how far the frame (and the mesh with it) has moved along its axis, and
    /// its velocity, at the end; a body at `x` on the mesh is at `x + frame_offset · axis` in the
    /// lab.
    pub frame_offset: Option<f64>,
    /// See `frame_offset`.
    pub frame_velocity: Option<f64>,
}

/// A body's state recorded for the plots.
#[derive(Debug, Clone)]
struct Sample<const D: usize> {
    time: f64,
    position: Vector<D>,
    velocity: Vector<D>,
    rotation: Vec<f64>,
}

impl<const D: usize> Sample<D> {
    /// Body `b` of `sim` at `time`, in the lab's frame.
    fn of(time: f64, b: &RigidBody<D>, sim: &Simulation<D>) -> Self
    where
        Dim<D>: Kinematics<D>,
    {
        let (position, velocity) = sim.in_lab(b);
        Sample {
            time,
            position,
            velocity,
            rotation: <Dim<D> as Kinematics<D>>::rotation_components(&b.rotation),
        }
    }
}

/// Each body's samples, by name in order of appearance (bodies leave and enter).
#[derive(Debug, Default)]
struct History<const D: usize> {
    names: Vec<String>,
    samples: Vec<Vec<Sample<D>>>,
    slot: std::collections::HashMap<String, usize>,
}

impl<const D: usize> History<D> {
    /// The samples of the body called `name`.
    fn of(&mut self, name: &str) -> &mut Vec<Sample<D>> {
        let k = match self.slot.get(name) {
            Some(&k) => k,
            None => {
                self.slot.insert(name.to_string(), self.names.len());
                self.names.push(name.to_string());
                self.samples.push(Vec::new());
                self.names.len() - 1
            }
        };
        &mut self.samples[k]
    }

    /// Takes in the bodies of `sim` now, in the lab's frame.
    fn record(&mut self, time: f64, sim: &Simulation<D>)
    where
        Dim<D>: Kinematics<D>,
    {
        for b in &sim.bodies {
            self.of(&b.name).push(Sample::of(time, b, sim));
        }
    }

    /// The bodies' history read back from the rows of `bodies.csv` at `path` (a run continued
    /// from a checkpoint plots the whole run): after the header, rows of `time,body,` then the
    /// position, the rotation's components and the velocity.
    fn read(path: &Path) -> Result<Self, OutputError>
    where
        Dim<D>: Kinematics<D>,
    {
        let text = std::fs::read_to_string(path).map_err(|cause| OutputError::Io {
            path: path.to_path_buf(),
            cause,
        })?;
        let rotation = <Dim<D> as Kinematics<D>>::rotation_components(&<Dim<D> as Kinematics<D>>::identity()).len();
        let mut history = History::default();
        for (k, line) in text.lines().skip(1).enumerate() {
            let mut fields = line.split(',');
            let (time, name) = (fields.next().and_then(|t| t.parse().ok()), fields.next());
            let numbers: Option<Vec<f64>> = fields.take(2 * D + rotation).map(|x| x.parse().ok()).collect();
            match (time, name, numbers) {
                (Some(time), Some(name), Some(x)) if x.len() == 2 * D + rotation => {
                    history.of(name).push(Sample {
                        time,
                        position: Vector::<D>::from_column_slice(&x[..D]),
                        rotation: x[D..D + rotation].to_vec(),
                        velocity: Vector::<D>::from_column_slice(&x[D + rotation..]),
                    });
                }
                _ => {
                    return Err(OutputError::Refused {
                        path: path.to_path_buf(),
                        message: format!(
                            "line {} is not a body's row as a run of this case writes it: the file was changed",
                            k + 2
                        ),
                    })
                }
            }
        }
        Ok(history)
    }
}

/// The largest speeds, CFL numbers and the smallest gap over a run (`summary.json`'s).
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub(super) struct Extremes {
    max_speed: f64,
    max_speed_time: f64,
    max_reynolds: f64,
    min_body_gap: Option<f64>,
    max_cfl: f64,
    max_body_cfl: f64,
}

impl Extremes {
    /// Takes in the state of `c` after a step of `dt`, on a mesh whose smallest edge is `h_min`,
    /// in a fluid of dynamic viscosity `mu`.
    fn update<const D: usize>(&mut self, c: &Immersed<D>, (dt, h_min, mu): (f64, f64, f64))
    where
        Dim<D>: Kinematics<D>,
    {
        // Speeds in the lab; the cells a body crosses per step on the mesh (in a following frame,
        // its speed relative to the mesh).
        for b in &c.bodies.bodies {
            let speed = c.bodies.in_lab(b).1.norm();
            self.max_body_cfl = self.max_body_cfl.max(b.velocity.norm() * dt / h_min);
            if speed > self.max_speed {
                self.max_speed = speed;
                self.max_speed_time = c.bodies.time;
                self.max_reynolds = b.density * speed * 2.0 * b.geometry.radius / mu;
            }
        }
        for contact in c.bodies.contact.contacts.iter().filter(|contact| contact.j != WALL) {
            self.min_body_gap = Some(self.min_body_gap.map_or(contact.gap, |g: f64| g.min(contact.gap)));
        }
        let u_max = c.fluid.flow.velocity.iter().map(|u| u.norm()).fold(0.0, f64::max);
        self.max_cfl = self.max_cfl.max(u_max * dt / h_min);
    }
}

/// Runs the bodies of `case` in the fluid `flow`, writing into `out` (prepared by
/// [`super::prepare_output`]); `control` reports progress and may stop the run at the end of a
/// step. A run that fails or is stopped writes what it computed and its `summary.json`, and
/// returns the error.
pub fn run_immersed<const D: usize>(
    case: &Case,
    flow: &FlowCase<D>,
    out: &Path,
    mut control: Control<'_>,
) -> Result<ImmersedSummary, CaseError>
where
    Dim<D>: Kinematics<D>,
{
    let start = Instant::now();
    if flow.steady {
        return Err(case.invalid(
            "fluid.steady",
            "bodies move: a case with [[bodies]] needs time stepping ([time]), not a steady flow",
        ));
    }
    if flow.scheme == Scheme::Monolithic {
        return Err(case.invalid(
            "fluid.scheme",
            "the bodies' constraint acts between the velocity step and the pressure correction: a case with \
             [[bodies]] needs scheme = \"pressure-correction\" (the default)",
        ));
    }
    let time = case.time()?;
    let (dt, steps) = (time.step, step_count(time.end, time.step));
    let output = case.file.output.clone().unwrap_or_default();
    let every = output.every.unwrap_or((steps / 100).max(1));
    let csv_every = output.csv_every.unwrap_or(1).max(1);
    let checkpoint_every = output.checkpoint_every.unwrap_or(0);
    let checkpoint = if control.restart {
        Some(checkpoint::open(out, case, (D, dt, steps), Kind::Immersed)?)
    } else {
        prepare_output(out, &RunHeader::running::<D>(case))?;
        None
    };
    let case_setup_seconds = control.setup_seconds;

    let setup = Instant::now();
    let (mut sim, mut inflows) = case.parts::<D>()?;
    sim.frame = case.frame::<D>(&sim, &flow.gravity)?;
    let fluid = flow.stepper(case, dt, sim.frame.as_ref())?;
    let sim_error = |cause| CaseError::Sim {
        file: case.path.clone(),
        cause: Box::new(cause),
    };
    // The contact's sub-steps suit the bodies to come too.
    let stable = inflows
        .iter()
        .map(|i| sim.stable_time_step_of(i.template()))
        .fold(sim.stable_time_step(), f64::min);
    let options = ImmersedOptions {
        boundary: flow.body_boundary,
        substeps: substeps_for(dt, stable),
        ..ImmersedOptions::new(flow.fluid.density)
    };
    let mut immersed = Immersed::new(fluid, sim, options).map_err(sim_error)?;
    let setup_seconds = case_setup_seconds + setup.elapsed().as_secs_f64();
    let h_min = (0..flow.mesh.num_cells() as u32)
        .map(|c| {
            let p = flow.mesh.cell_points(c);
            (0..=D)
                .flat_map(|a| (a + 1..=D).map(move |b| (a, b)))
                .map(|(a, b)| (p[a] - p[b]).norm())
                .fold(f64::INFINITY, f64::min)
        })
        .fold(f64::INFINITY, f64::min);
    let mu = flow.fluid.viscosity;

    let write = |c: &Immersed<D>,
                 writer: &mut Writer,
                 history: &mut History<D>,
                 output_seconds: &mut f64,
                 (rows, snapshot): (bool, bool)|
     -> Result<(), OutputError> {
        let t = Instant::now();
        writer.exits(&c.bodies)?;
        if rows {
            writer.rows(&c.bodies, Some((&c.hydro_force, &c.hydro_torque)))?;
            history.record(c.bodies.time, &c.bodies);
        }
        if snapshot {
            let name = format!("flow_{:06}.vtu", c.bodies.steps);
            flow.write_flow(&out.join(&name), &c.fluid.flow)?;
            let bodies = writer.bodies_vtu(&c.bodies)?;
            writer.push_parts(c.bodies.time, &[&name, &bodies])?;
        }
        *output_seconds += t.elapsed().as_secs_f64();
        Ok(())
    };
    let mut failure: Option<CaseError> = None;
    let (mut writer, mut history, first, mut extremes, spent, restarts) = match checkpoint {
        Some(checkpoint) => {
            let RunState::Immersed { state, extremes } = &checkpoint.run else {
                return Err(checkpoint::unfit(out, "it is not of a run in a fluid").into());
            };
            inflow::resume(&mut inflows, &state.bodies, &mut immersed.bodies.bodies);
            immersed.restore(state).map_err(|e| checkpoint::unfit(out, e))?;
            checkpoint.trim(out)?;
            let writer = Writer::resume(out, "flow.pvd", &checkpoint.outputs)?;
            let history = History::<D>::read(&out.join("bodies.csv.part"))?;
            let first = checkpoint.step + 1;
            (
                writer,
                history,
                first,
                *extremes,
                checkpoint.spent,
                checkpoint.restarts + 1,
            )
        }
        None => {
            let mut writer = Writer::new(out, "flow.pvd", false)?;
            let mut history = History::default();
            let mut seconds = 0.0;
            failure = write(&immersed, &mut writer, &mut history, &mut seconds, (true, every > 0))
                .err()
                .map(CaseError::from);
            let spent = SpentSeconds {
                output: seconds,
                ..SpentSeconds::default()
            };
            (writer, history, 1, Extremes::default(), spent, 0)
        }
    };
    let mut output_seconds = spent.output;
    if failure.is_none() {
        let mut plan = Plan::new(
            (steps + 1 - first, dt, time.end),
            (every, csv_every),
            out,
            writer.row_bytes(),
        );
        let period = dt * csv_every as f64;
        plan.add_bytes(inflow::rows_to_come(&inflows, (time.end, period), |name| {
            body_row_bytes::<D>(true, name)
        }));
        failure = control.approve(case, &plan).err();
    }
    let saver = Saver {
        restarts,
        spent,
        before_start: case_setup_seconds,
        setup: setup_seconds,
        ..Saver::of::<D>(case, out, dt, start)
    };
    // The checkpoint of the state now, with the outputs as they stand.
    let save = |immersed: &Immersed<D>, writer: &mut Writer, extremes: Extremes, output_seconds: f64| {
        let state = RunState::Immersed {
            state: Box::new(immersed.state()),
            extremes,
        };
        let at = (immersed.bodies.steps, immersed.bodies.time);
        saver.save(at, writer.saved()?, output_seconds, state)
    };
    for s in first..=steps {
        if failure.is_some() {
            break;
        }
        if control.stop_requested() {
            let (done, t) = (immersed.bodies.steps, immersed.bodies.time);
            // The checkpoint, then the state the run stopped at ends the series and the rows
            // (rows are written at every output step, snapshots at every `every`-th).
            let snapshot_step = every > 0 && done % every == 0;
            let due = (done % csv_every != 0 && !snapshot_step, every > 0 && !snapshot_step);
            let last = save(&immersed, &mut writer, extremes, output_seconds)
                .and_then(|()| write(&immersed, &mut writer, &mut history, &mut output_seconds, due));
            failure = Some(last.err().map_or_else(|| case.interrupted(done, t), CaseError::from));
            break;
        }
        let released = inflow::release(&mut inflows, &immersed.bodies);
        let inserted = immersed.insert(&flow.mesh, released);
        if let Err(cause) = inserted.and_then(|()| immersed.step(&flow.mesh)) {
            failure = Some(sim_error(cause));
            break;
        }
        extremes.update(&immersed, (dt, h_min, mu));
        // The outputs due at this step, the checkpoint, then those due because the run ends
        // here (which a longer run would not write: a run continued from the checkpoint drops
        // them).
        let snapshot = every > 0 && s % every == 0;
        let rows = s % csv_every == 0 || snapshot;
        let mut written = write(
            &immersed,
            &mut writer,
            &mut history,
            &mut output_seconds,
            (rows, snapshot),
        );
        if written.is_ok() && checkpoint_every > 0 && (s % checkpoint_every == 0 || s == steps) {
            let t = Instant::now();
            written = save(&immersed, &mut writer, extremes, output_seconds);
            output_seconds += t.elapsed().as_secs_f64();
        }
        if written.is_ok() && s == steps {
            let due = (!rows, every > 0 && !snapshot);
            written = write(&immersed, &mut writer, &mut history, &mut output_seconds, due);
        }
        if let Err(e) = written {
            failure = Some(e.into());
        }
        control.report(s, steps);
    }
    if let Err(e) = writer.finish() {
        failure.get_or_insert(e.into());
    }
    let t = Instant::now();
    if let Err(e) = plots::<D>(out, &history) {
        failure.get_or_insert(e.into());
    }
    output_seconds += t.elapsed().as_secs_f64();

    let terminal_velocity = history.samples.first().and_then(|h| {
        let (t0, t1) = (h.first()?.time, h.last()?.time);
        let speeds: Vec<f64> = h
            .iter()
            .filter(|r| r.time >= t1 - 0.1 * (t1 - t0))
            .map(|r| r.velocity.norm())
            .collect();
        let mean = speeds.iter().sum::<f64>() / speeds.len() as f64;
        let (lo, hi) = speeds
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &v| (a.min(v), b.max(v)));
        (speeds.len() >= 3 && mean > 0.0 && hi - lo <= 0.01 * mean).then_some(mean)
    });
    let final_gap = immersed.bodies.walls.as_ref().and_then(|w| {
        let mut hint = 0;
        let gap = immersed
            .bodies
            .bodies
            .iter()
            .flat_map(|b| b.geometry.surface.points.iter().map(move |p| b.to_world(p)))
            .map(|x| w.query(&x, &mut hint).0)
            .fold(f64::INFINITY, f64::min);
        (gap < w.band()).then_some(gap)
    });
    let Extremes {
        max_speed,
        max_speed_time,
        max_reynolds,
        min_body_gap,
        max_cfl,
        max_body_cfl,
    } = extremes;
    let mut warnings = Vec::new();
    if max_cfl > 1.0 && flow.convection == Convection::Extrapolated {
        warnings.push(format!(
            "the CFL number |u| Δt / h reached {max_cfl:.2} (h = {h_min:.3e}, the smallest cell): above 1 the explicit convection may be inaccurate or unstable; lower time.step or set fluid.convection = \"characteristics\""
        ));
    }
    if max_body_cfl > 0.5 {
        warnings.push(format!(
            "a body moved {max_body_cfl:.2} cells per step (|U| Δt / h, h = {h_min:.3e} the smallest cell): a body moving more than half a cell per step captures several layers of velocity nodes at once, which acts as a spurious drag (measured: a disk at Re 500 falls 15 % too slowly at 0.7 cells per step); lower time.step"
        ));
    }
    let steps_done = immersed.bodies.steps;
    let seconds = immersed.seconds;
    let summary = ImmersedSummary {
        run: RunHeader {
            restarts,
            ..RunHeader::new::<D>(case, failure.as_ref())
        },
        mode: "immersed".into(),
        cells: flow.mesh.num_cells(),
        velocity_unknowns: D * flow.space.len(),
        linear_solvers: immersed.fluid.solvers(),
        bodies: immersed.bodies.bodies.len(),
        traffic: Traffic::of(&immersed.bodies),
        steps: steps_done,
        time: immersed.bodies.time,
        time_step: dt,
        substeps: immersed.substeps,
        constraint_iterations: immersed.iterations as f64 / steps_done.max(1) as f64,
        terminal_velocity,
        max_speed,
        max_speed_time,
        max_reynolds,
        final_speed: immersed
            .bodies
            .bodies
            .iter()
            .map(|b| immersed.bodies.in_lab(b).1.norm())
            .fold(0.0, f64::max),
        final_gap,
        min_body_gap,
        max_cfl,
        max_body_cfl,
        warnings,
        wall_seconds: spent.wall + case_setup_seconds + start.elapsed().as_secs_f64(),
        seconds: ImmersedPhaseSeconds {
            setup: spent.setup + setup_seconds,
            fluid: seconds.fluid,
            constraint: seconds.constraint,
            bodies: seconds.bodies,
            output: output_seconds,
        },
        final_tilt: final_tilt(&immersed.bodies.bodies, &immersed.bodies.gravity),
        final_state: immersed
            .bodies
            .bodies
            .iter()
            .map(|b| FinalBody::of(b, &immersed.bodies))
            .collect(),
        frame_offset: immersed.bodies.frame.as_ref().map(|f| f.motion.get().0),
        frame_velocity: immersed.bodies.frame.as_ref().map(|f| f.motion.get().1),
    };
    let written = crate::io::write_json(&out.join("summary.json"), &summary);
    match (failure, written) {
        (Some(e), _) => Err(e),
        (None, Err(e)) => Err(e.into()),
        (None, Ok(())) => Ok(summary),
    }
}

/// `position.png`, `velocity.png` and (2D) `angle.png` from the recorded history.
fn plots<const D: usize>(out: &Path, history: &History<D>) -> Result<(), OutputError>
where
    Dim<D>: Kinematics<D>,
{
    let axes = ["x", "y", "z"];
    let curves = |pick: &dyn Fn(&Sample<D>) -> Vector<D>, prefix: &str| {
        let mut curves = Vec::new();
        for (name, h) in history.names.iter().zip(&history.samples) {
            for (a, axis) in axes.iter().enumerate().take(D) {
                curves.push(Curve {
                    name: format!("{name} {prefix}{axis}"),
                    points: h.iter().map(|r| (r.time, pick(r)[a])).collect(),
                });
            }
        }
        curves
    };
    plot_curves(
        &out.join("position.png"),
        "Position",
        "position",
        &curves(&|r| r.position, ""),
    )?;
    plot_curves(
        &out.join("velocity.png"),
        "Velocity",
        "velocity",
        &curves(&|r| r.velocity, "v"),
    )?;
    if D == 2 {
        let angles: Vec<Curve> = history
            .names
            .iter()
            .zip(&history.samples)
            .map(|(name, h)| Curve {
                name: name.clone(),
                points: h.iter().map(|r| (r.time, r.rotation[0])).collect(),
            })
            .collect();
        plot_curves(&out.join("angle.png"), "Angle", "angle (rad)", &angles)?;
    }
    Ok(())
}
