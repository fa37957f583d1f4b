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

use super::build::FlowCase;
use super::checkpoint::{self, Kind, RunState};
use super::control::Control;
use super::inflow::{self, Inflow};
use super::output::{final_tilt, BodyFiles, FinalBody, SavedOutputs, Traffic};
use super::run::{built, drive, value_lines, Finished, Output, RunSummary, Seconds, Stepper};
use super::{Case, CaseError};
use crate::io::{plot_curves, Curve, OutputError};
use crate::math::{shown, Vector};
use crate::sim::{Dim, Immersed, ImmersedOptions, Kinematics, RigidBody, Simulation, Solvers};
use serde::Serialize;
use std::path::Path;

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
    /// The case, how the run ended, steps, time, warnings.
    #[serde(flatten)]
    pub run: RunSummary,
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
    /// Body sub-steps per fluid step (from the contact stiffness).
    pub substeps: usize,
    /// Mean conjugate-gradient iterations of the rigidity constraint per step.
    pub constraint_iterations: f64,
    /// The first body's mean speed over the last tenth of the run, if its acceleration has died
    /// out there (the speed varies by at most 1 % of its mean: the nodes inside a body change as
    /// it moves, a jitter of about 0.2 %); `null` otherwise.
    pub terminal_velocity: Option<f64>,
    /// With `[fluid] balance`: the bodies' mean velocity along gravity relative to the
    /// mixture's mean velocity (fluid and bodies, the frame of zero volume flux), averaged over
    /// the bodies and the steps of the run's second half; `null` otherwise.
    pub settling_velocity: Option<f64>,
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
    /// With `[fluid] balance`, the sum of the bodies' mean speed along gravity relative to the
    /// mixture's mean velocity over the steps of the run's second half, and their number.
    #[serde(default)]
    settling: (f64, usize),
}

impl Extremes {
    /// Takes in the state of `c` after a step of `dt`, on a mesh whose smallest edge is `h_min`,
    /// in a fluid of dynamic viscosity `mu`; the settling speed from the time `settling_from`
    /// on, if any.
    fn update<const D: usize>(&mut self, c: &Immersed<D>, (dt, h_min, mu): (f64, f64, f64), settling_from: Option<f64>)
    where
        Dim<D>: Kinematics<D>,
    {
        let bodies = &c.bodies.bodies;
        if let (Some(t0), Some(down)) = (settling_from, c.bodies.gravity.try_normalize(0.0)) {
            if c.bodies.time >= t0 && !bodies.is_empty() {
                let mean = bodies.iter().map(|b| b.velocity.dot(&down)).sum::<f64>() / bodies.len() as f64;
                self.settling.0 += mean - c.mean_velocity().dot(&down);
                self.settling.1 += 1;
            }
        }
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
        if let Some(gap) = c.bodies.smallest_body_gap() {
            self.min_body_gap = Some(self.min_body_gap.map_or(gap, |g: f64| g.min(gap)));
        }
        let u_max = c.fluid.flow.velocity.iter().map(|u| u.norm()).fold(0.0, f64::max);
        self.max_cfl = self.max_cfl.max(u_max * dt / h_min);
    }
}

/// Runs the bodies of `case` in the fluid `flow` (built from `case`), writing into `out`, as
/// [`super::run`] runs a case it builds itself (`control.setup_seconds`: the seconds the flow's
/// build took); `control` reports progress and may stop the run at the end of a step.
pub fn run_immersed<const D: usize>(
    case: &Case,
    flow: &FlowCase<D>,
    out: &Path,
    mut control: Control<'_>,
) -> Result<ImmersedSummary, CaseError>
where
    Dim<D>: Kinematics<D>,
{
    flow.check_for_bodies(case)?;
    let output = Output::open::<D>(case, out, Kind::Immersed, &mut control)?;
    drive(case, output, control, || ImmersedRun::new(case, flow, out)).map(|(summary, _)| summary)
}

/// [`super::run`]'s bodies in a fluid in dimension `D`: the directory made ready, the flow and
/// the bodies built, run.
pub(super) fn run<const D: usize>(case: &Case, out: &Path, mut control: Control<'_>) -> Result<Finished, CaseError>
where
    Dim<D>: Kinematics<D>,
{
    let output = Output::open::<D>(case, out, Kind::Immersed, &mut control)?;
    let flow = built(case, &output, &mut control, || {
        let flow = case.build_flow::<D>()?;
        flow.check_for_bodies(case)?;
        Ok(flow)
    })?;
    drive(case, output, control, || ImmersedRun::new(case, &flow, out)).map(Finished::of)
}

/// Bodies in a fluid in progress: the coupling, the bodies still to enter, the files, the
/// history the plots draw and the summary's extremes.
struct ImmersedRun<'a, const D: usize>
where
    Dim<D>: Kinematics<D>,
{
    case: &'a Case,
    flow: &'a FlowCase<D>,
    out: &'a Path,
    immersed: Immersed<D>,
    inflows: Vec<Inflow<D>>,
    files: BodyFiles,
    history: History<D>,
    extremes: Extremes,
    /// `Δt`.
    dt: f64,
    /// The run's end time.
    end: f64,
    /// The mesh's smallest cell edge.
    h_min: f64,
}

impl<'a, const D: usize> ImmersedRun<'a, D>
where
    Dim<D>: Kinematics<D>,
{
    fn new(case: &'a Case, flow: &'a FlowCase<D>, out: &'a Path) -> Result<Self, CaseError> {
        let time = case.time()?;
        let (dt, end) = (time.step, time.end);
        let (mut sim, inflows) = case.parts::<D>()?;
        sim.frame = case.frame::<D>(&sim, &flow.gravity)?;
        let fluid = flow.stepper(case, dt, sim.frame.as_ref())?;
        let options = ImmersedOptions {
            boundary: flow.body_boundary,
            balance: flow.balance,
            substeps: sim.substeps(dt, inflows.iter().map(Inflow::template)),
            ..ImmersedOptions::new(flow.fluid.density)
        };
        let immersed = Immersed::new(fluid, sim, options).map_err(|cause| case.sim_error(cause))?;
        let h_min = flow.mesh.shortest_edge();
        Ok(ImmersedRun {
            case,
            flow,
            out,
            immersed,
            inflows,
            files: BodyFiles::new(out, "flow.pvd", false, true),
            history: History::default(),
            extremes: Extremes::default(),
            dt,
            end,
            h_min,
        })
    }
}

impl<const D: usize> Stepper for ImmersedRun<'_, D>
where
    Dim<D>: Kinematics<D>,
{
    type Summary = ImmersedSummary;
    const ROWS_AT_SNAPSHOTS: bool = true;

    fn at(&self) -> (usize, f64) {
        (self.immersed.bodies.steps, self.immersed.bodies.time)
    }

    fn start(&mut self) -> Result<(), OutputError> {
        self.files.start()
    }

    fn restore(&mut self, run: &RunState) -> Result<(), CaseError> {
        let out = self.out;
        let RunState::Immersed { state, extremes } = run else {
            return Err(checkpoint::unfit(out, "it is not of a run in a fluid").into());
        };
        inflow::resume(&mut self.inflows, &state.bodies, &mut self.immersed.bodies.bodies);
        self.immersed.restore(state).map_err(|e| checkpoint::unfit(out, e))?;
        self.extremes = *extremes;
        Ok(())
    }

    fn resume(&mut self, saved: &SavedOutputs) -> Result<(), OutputError> {
        self.files.resume(saved)?;
        self.history = History::<D>::read(&self.out.join("bodies.csv.part"))?;
        Ok(())
    }

    fn row_bytes(&self) -> f64 {
        self.files.row_bytes()
    }

    fn bytes_to_come(&self, end: f64, period: f64) -> f64 {
        self.files.bytes_to_come(&self.inflows, end, period)
    }

    fn step(&mut self, _: usize) -> Result<(), CaseError> {
        let released = inflow::release(&mut self.inflows, &self.immersed.bodies);
        let mesh = &self.flow.mesh;
        self.immersed
            .insert(mesh, released)
            .and_then(|()| self.immersed.step(mesh))
            .map_err(|cause| self.case.sim_error(cause))?;
        let settling_from = self.flow.balance.then_some(0.5 * self.end);
        self.extremes.update(
            &self.immersed,
            (self.dt, self.h_min, self.flow.fluid.viscosity),
            settling_from,
        );
        Ok(())
    }

    fn write(&mut self, rows: bool, snapshot: bool) -> Result<(), OutputError> {
        let ImmersedRun {
            immersed: c,
            files,
            history,
            flow,
            out,
            ..
        } = self;
        let writer = files.writer();
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
        Ok(())
    }

    fn save(&mut self) -> Result<(SavedOutputs, RunState), OutputError> {
        let state = RunState::Immersed {
            state: Box::new(self.immersed.state()),
            extremes: self.extremes,
        };
        Ok((self.files.writer().saved()?, state))
    }

    fn finish(&mut self) -> Result<(), OutputError> {
        self.files.finish()?;
        plots::<D>(self.out, &self.history)
    }

    fn warnings(&self) -> Vec<String> {
        let Extremes {
            max_cfl, max_body_cfl, ..
        } = self.extremes;
        let h_min = self.h_min;
        let mut warnings = Vec::new();
        if max_cfl > 1.0 && self.flow.explicit_convection() {
            warnings.push(format!(
                "the CFL number |u| Δt / h reached {max_cfl:.2} (h = {h_min:.3e}, the smallest cell): above 1 the explicit convection may be inaccurate or unstable; lower time.step or set fluid.convection = \"characteristics\""
            ));
        }
        if max_body_cfl > 0.5 {
            warnings.push(format!(
                "a body moved {max_body_cfl:.2} cells per step (|U| Δt / h, h = {h_min:.3e} the smallest cell): a body moving more than half a cell per step captures several layers of velocity nodes at once, which acts as a spurious drag (measured: a disk at Re 500 falls 15 % too slowly at 0.7 cells per step); lower time.step"
            ));
        }
        warnings
    }

    fn summary(&self, run: RunSummary, seconds: Seconds) -> ImmersedSummary {
        let immersed = &self.immersed;
        let sim = &immersed.bodies;
        let terminal_velocity = self.history.samples.first().and_then(|h| {
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
        let final_gap = sim.wall_gap();
        let Extremes {
            max_speed,
            max_speed_time,
            max_reynolds,
            min_body_gap,
            max_cfl,
            max_body_cfl,
            settling,
        } = self.extremes;
        let phases = immersed.seconds;
        ImmersedSummary {
            mode: "immersed".into(),
            cells: self.flow.mesh.num_cells(),
            velocity_unknowns: D * self.flow.space.len(),
            linear_solvers: immersed.fluid.solvers(),
            bodies: sim.bodies.len(),
            traffic: Traffic::of(sim),
            substeps: immersed.substeps,
            constraint_iterations: immersed.iterations as f64 / run.steps.max(1) as f64,
            run,
            terminal_velocity,
            settling_velocity: (settling.1 > 0).then(|| settling.0 / settling.1 as f64),
            max_speed,
            max_speed_time,
            max_reynolds,
            final_speed: sim.bodies.iter().map(|b| sim.in_lab(b).1.norm()).fold(0.0, f64::max),
            final_gap,
            min_body_gap,
            max_cfl,
            max_body_cfl,
            seconds: ImmersedPhaseSeconds {
                setup: seconds.setup,
                fluid: phases.fluid,
                constraint: phases.constraint,
                bodies: phases.bodies,
                output: seconds.output,
            },
            final_tilt: final_tilt(&sim.bodies, &sim.gravity),
            final_state: sim.bodies.iter().map(|b| FinalBody::of(b, sim)).collect(),
            frame_offset: sim.frame.as_ref().map(|f| f.motion.get().0),
            frame_velocity: sim.frame.as_ref().map(|f| f.motion.get().1),
        }
    }

    fn report(s: &ImmersedSummary) -> Vec<String> {
        let mut lines = vec![format!(
            "{}: {} bodies in the fluid, {} cells, {} steps to t = {}, {:.2} s ({:.1} ms per step, {:.1} constraint iterations per step, {} body sub-steps)",
            s.run.header.case,
            s.bodies,
            s.cells,
            s.run.steps,
            shown(s.run.time),
            s.run.wall_seconds,
            1e3 * (s.seconds.fluid + s.seconds.constraint + s.seconds.bodies) / s.run.steps.max(1) as f64,
            s.constraint_iterations,
            s.substeps,
        )];
        let values = [
            ("terminal_velocity", s.terminal_velocity),
            ("max_speed", Some(s.max_speed)),
            ("max_speed_time", Some(s.max_speed_time)),
            ("max_reynolds", Some(s.max_reynolds)),
            ("final_gap", s.final_gap),
            ("min_body_gap", s.min_body_gap),
        ];
        lines.extend(value_lines(&values, 6));
        lines
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
