//! Fluid cases: a `[fluid]` table turns the domain mesh into a flow problem (see
//! [`schema::FluidSpec`]), solved steady (Newton) or in time (BDF2 pressure correction).
//!
//! Units are the case's: the solver works with the kinematic viscosity `ν = μ/ρ` and the
//! kinematic pressure `p/ρ`; output pressures and forces are multiplied back by `ρ`.
//!
//! | file | content |
//! |---|---|
//! | `flow.pvd`, `flow_NNNNNN.vtu` | the mesh with point data `velocity`, `pressure`, `vorticity` (a scalar in 2D, a vector in 3D), every `output.every` steps (steady: one file) |
//! | `fluid.csv` | with `[fluid.report]`, unsteady: `time,fx,fy(,fz),drag_coefficient,lift_coefficient,pressure_difference` every `output.csv_every` steps |
//! | `summary.json` | the mode, sizes, times, and the reported `drag_coefficient`, `lift_coefficient`, `pressure_difference` (final values; unsteady runs add maxima and the Strouhal number over the last half) |
//! | `checkpoint.cbor` | unsteady, with `output.checkpoint_every` or when the run is stopped: the fluid's state and the reported history, from which `tumble run --restart` continues ([`super::checkpoint`]) |
//!
//! Files are written whole; a run that stops (a non-finite velocity, say) keeps every file and row
//! written so far, and `summary.json` says `"status": "failed"` with the error.

use super::build::{FlowCase, Measured};
use super::checkpoint::{self, Kind, RunState};
use super::control::{Control, Notice, RunHeader};
use super::output::SavedOutputs;
use super::run::{built, conclude, drive, value_lines, Finished, Output, RunSummary, Seconds, Stepper};
use super::{Case, CaseError};
use crate::io::{OutputError, PartFile, PvdSeries};
use crate::math::{shown, Point, Vector};
use crate::sim::{Solvers, Unsteady};
use serde::{Deserialize, Serialize};
use std::path::Path;
use std::time::Instant;

/// One step's reported values as a checkpoint keeps them ([`Measured`] without its dimension).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(super) struct Reported {
    time: f64,
    force: Vec<f64>,
    drag_coefficient: Option<f64>,
    lift_coefficient: Option<f64>,
    pressure_difference: Option<f64>,
}

impl Reported {
    fn of<const D: usize>(&(time, m): &(f64, Measured<D>)) -> Reported {
        Reported {
            time,
            force: m.force.as_slice().to_vec(),
            drag_coefficient: m.drag_coefficient,
            lift_coefficient: m.lift_coefficient,
            pressure_difference: m.pressure_difference,
        }
    }

    fn measured<const D: usize>(&self) -> Option<(f64, Measured<D>)> {
        (self.force.len() == D).then(|| {
            let m = Measured {
                force: Vector::<D>::from_column_slice(&self.force),
                drag_coefficient: self.drag_coefficient,
                lift_coefficient: self.lift_coefficient,
                pressure_difference: self.pressure_difference,
            };
            (self.time, m)
        })
    }
}

/// Seconds per phase of a flow run.
#[derive(Debug, Clone, Default, Serialize)]
pub struct FlowSeconds {
    /// Reading the mesh, building the space; for unsteady runs also assembling and factoring the
    /// constant matrices.
    pub setup: f64,
    /// Steady: the Newton solve. Unsteady: right-hand sides, all steps.
    pub assembly: f64,
    /// Unsteady: triangular solves, all steps.
    pub solve: f64,
    /// Forces and pressure difference.
    pub report: f64,
    /// Writing files.
    pub output: f64,
}

/// What `summary.json` holds for a fluid case.
#[derive(Debug, Clone, Serialize)]
pub struct FlowSummary {
    /// The case, how the run ended, steps, time, warnings.
    #[serde(flatten)]
    pub run: RunSummary,
    /// `"steady"` or `"unsteady"`.
    pub mode: String,
    /// Mesh cells.
    pub cells: usize,
    /// Velocity unknowns (components × P2 dofs).
    pub velocity_unknowns: usize,
    /// How the unsteady step's velocity, pressure and mass systems were solved (`"cholesky"` or
    /// `"amg-cg"`, `[fluid] solver`); `null` for a steady flow.
    pub linear_solvers: Option<Solvers>,
    /// Pressure unknowns.
    pub pressure_unknowns: usize,
    /// Newton iterations (steady).
    pub newton_iterations: Option<usize>,
    /// The force on the reported marker (final).
    pub force: Option<Vec<f64>>,
    /// `2 F_x/(ρ U² L)` (final).
    pub drag_coefficient: Option<f64>,
    /// `2 F_y/(ρ U² L)` (final).
    pub lift_coefficient: Option<f64>,
    /// `p(a) − p(b)` (final).
    pub pressure_difference: Option<f64>,
    /// Unsteady: the largest drag coefficient over the last half of the run.
    pub drag_coefficient_max: Option<f64>,
    /// Unsteady: the largest lift coefficient over the last half of the run.
    pub lift_coefficient_max: Option<f64>,
    /// Unsteady: `f L / U` with `f` the lift's frequency over the last half of the run (from its
    /// upward crossings of its mean; at least three needed).
    pub strouhal_number: Option<f64>,
    /// Seconds per phase.
    pub seconds: FlowSeconds,
    /// Unsteady: assembly and solve seconds per step.
    pub seconds_per_step: Option<f64>,
}

/// Runs the fluid case `flow` (built from `case`), writing into `out`, as [`super::run`] runs a
/// flow it builds itself (`control.setup_seconds`: the seconds the build took); `control` reports
/// progress and may stop an unsteady run at the end of a step.
pub fn run_flow<const D: usize>(
    case: &Case,
    flow: &FlowCase<D>,
    out: &Path,
    mut control: Control<'_>,
) -> Result<FlowSummary, CaseError> {
    if control.restart && flow.steady {
        return Err(steady_restart(case));
    }
    let output = Output::open::<D>(case, out, Kind::Flow, &mut control)?;
    run_opened(case, flow, output, control).map(|(summary, _)| summary)
}

/// [`super::run`]'s flow without bodies in dimension `D`: the directory made ready, the flow
/// built, solved or stepped.
pub(super) fn run<const D: usize>(case: &Case, out: &Path, mut control: Control<'_>) -> Result<Finished, CaseError> {
    if control.restart && case.file.fluid.as_ref().and_then(|f| f.steady).unwrap_or(false) {
        return Err(steady_restart(case));
    }
    let output = Output::open::<D>(case, out, Kind::Flow, &mut control)?;
    let flow = built(case, &output, &mut control, || case.build_flow::<D>())?;
    run_opened(case, &flow, output, control).map(Finished::of)
}

/// The refusal to continue a steady flow.
fn steady_restart(case: &Case) -> CaseError {
    CaseError::Refused {
        file: case.path.clone(),
        message: "a steady flow is one solve and writes no checkpoint: run it again".into(),
    }
}

/// Solves or steps `flow` into `output`.
fn run_opened<const D: usize>(
    case: &Case,
    flow: &FlowCase<D>,
    output: Output<'_>,
    mut control: Control<'_>,
) -> Result<(FlowSummary, Vec<String>), CaseError> {
    if flow.steady {
        for note in case.take_notes() {
            control.tell(Notice::Note(note));
        }
        let summary = run_steady(case, flow, output.dir, control.setup_seconds)?;
        let report = FlowRun::<D>::report(&summary);
        return Ok((summary, report));
    }
    let out = output.dir;
    drive(case, output, control, || FlowRun::new(case, flow, out))
}

impl<const D: usize> FlowCase<D> {
    /// The summary of this flow's run before its numbers: the mode and the sizes.
    fn summary(&self, run: RunSummary, seconds: FlowSeconds) -> FlowSummary {
        FlowSummary {
            run,
            mode: if self.steady { "steady" } else { "unsteady" }.into(),
            cells: self.mesh.num_cells(),
            velocity_unknowns: D * self.space.len(),
            linear_solvers: None,
            pressure_unknowns: self.space.vertices,
            newton_iterations: None,
            force: None,
            drag_coefficient: None,
            lift_coefficient: None,
            pressure_difference: None,
            drag_coefficient_max: None,
            lift_coefficient_max: None,
            strouhal_number: None,
            seconds,
            seconds_per_step: None,
        }
    }
}

fn record<const D: usize>(summary: &mut FlowSummary, m: &Measured<D>, has_force: bool) {
    summary.force = has_force.then(|| m.force.as_slice().to_vec());
    summary.drag_coefficient = m.drag_coefficient;
    summary.lift_coefficient = m.lift_coefficient;
    summary.pressure_difference = m.pressure_difference;
}

/// Solves the steady `flow` (Newton) and writes it into `out`, the case built in `setup_seconds`.
fn run_steady<const D: usize>(
    case: &Case,
    flow: &FlowCase<D>,
    out: &Path,
    setup_seconds: f64,
) -> Result<FlowSummary, CaseError> {
    let start = Instant::now();
    let mut seconds = FlowSeconds {
        setup: setup_seconds,
        ..FlowSeconds::default()
    };
    let mut newton_iterations = None;
    let mut measured = None;
    let mut series = PvdSeries::new(out.join("flow.pvd"));
    let result = (|| {
        let t = Instant::now();
        let (solution, iterations) = flow.solve_steady(case)?;
        seconds.assembly = t.elapsed().as_secs_f64();
        newton_iterations = Some(iterations);
        let t = Instant::now();
        measured = Some(flow.measure(&solution, None));
        seconds.report = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let name = "flow_000000.vtu";
        flow.write_flow(&out.join(name), &solution)?;
        series.push(0.0, name)?;
        seconds.output = t.elapsed().as_secs_f64();
        Ok::<(), CaseError>(())
    })();
    let mut header = RunHeader::running::<D>(case);
    header.conclude(result.as_ref().err());
    let run = RunSummary {
        header,
        steps: 0,
        time: 0.0,
        time_step: None,
        wall_seconds: setup_seconds + start.elapsed().as_secs_f64(),
        warnings: Vec::new(),
    };
    let mut summary = flow.summary(run, seconds);
    summary.newton_iterations = newton_iterations;
    if let Some(m) = &measured {
        record(&mut summary, m, flow.report.marker.is_some());
    }
    conclude(out, summary, result.err())
}

/// An unsteady flow in progress: the stepper, the reported history, `fluid.csv` and the series.
struct FlowRun<'a, const D: usize> {
    case: &'a Case,
    flow: &'a FlowCase<D>,
    out: &'a Path,
    stepper: Unsteady<D>,
    /// Whether the case reports forces or pressures (`fluid.csv`).
    reporting: bool,
    acceleration: Vec<Vector<D>>,
    csv: Option<Csv>,
    series: PvdSeries,
    /// The values reported at every step.
    history: Vec<(f64, Measured<D>)>,
    /// Seconds of the stepper's set-up (this process).
    setup: f64,
    /// Seconds assembling, solving and reporting of the earlier processes.
    earlier: [f64; 3],
    /// Seconds reporting in this process.
    report_seconds: f64,
}

impl<'a, const D: usize> FlowRun<'a, D> {
    fn new(case: &'a Case, flow: &'a FlowCase<D>, out: &'a Path) -> Result<Self, CaseError> {
        let dt = case.time()?.step;
        let stepper = flow.stepper(case, dt, None)?;
        Ok(FlowRun {
            case,
            flow,
            out,
            setup: stepper.seconds.setup,
            reporting: flow.report.marker.is_some() || flow.report.pressure_points.is_some(),
            acceleration: vec![Vector::<D>::zeros(); flow.space.len()],
            csv: None,
            series: PvdSeries::new(out.join("flow.pvd")),
            history: Vec::new(),
            stepper,
            earlier: [0.0; 3],
            report_seconds: 0.0,
        })
    }

    /// Seconds assembling, solving and reporting, all processes.
    fn phases(&self) -> [f64; 3] {
        [
            self.earlier[0] + self.stepper.seconds.assembly,
            self.earlier[1] + self.stepper.seconds.solve,
            self.earlier[2] + self.report_seconds,
        ]
    }
}

impl<const D: usize> Stepper for FlowRun<'_, D> {
    type Summary = FlowSummary;

    fn at(&self) -> (usize, f64) {
        (self.stepper.steps, self.stepper.time)
    }

    fn start(&mut self) -> Result<(), OutputError> {
        if self.reporting {
            self.csv = Some(Csv::new(self.out, D)?);
        }
        Ok(())
    }

    fn restore(&mut self, run: &RunState) -> Result<(), CaseError> {
        let out = self.out;
        let RunState::Flow {
            state,
            history,
            seconds,
        } = run
        else {
            return Err(checkpoint::unfit(out, "it is not of a flow without bodies").into());
        };
        self.stepper.restore(state).map_err(|e| checkpoint::unfit(out, e))?;
        self.history = history
            .iter()
            .map(Reported::measured::<D>)
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| checkpoint::unfit(out, format!("its reported forces are not of dimension {D}")))?;
        self.earlier = *seconds;
        Ok(())
    }

    fn resume(&mut self, saved: &SavedOutputs) -> Result<(), OutputError> {
        if let Some((_, entries)) = saved.series.iter().find(|(name, _)| name == "flow.pvd") {
            self.series = PvdSeries::restored(self.out.join("flow.pvd"), entries.clone())?;
        }
        if self.reporting {
            self.csv = Some(Csv::resume(self.out, saved.csv_bytes)?);
        }
        Ok(())
    }

    fn row_bytes(&self) -> f64 {
        // A `fluid.csv` row: the time, the force and three coefficients, about 24 bytes each.
        if self.reporting {
            24.0 * (D + 4) as f64
        } else {
            0.0
        }
    }

    fn step(&mut self, _: usize) -> Result<(), CaseError> {
        let g = self.flow.gravity;
        self.stepper
            .step(&self.flow.mesh, &|_: &Point<D>, _| g)
            .map_err(|e| self.case.fluid_error(e))?;
        if self.reporting {
            let t = Instant::now();
            self.stepper.acceleration(&mut self.acceleration);
            let measured = self.flow.measure(&self.stepper.flow, Some(&self.acceleration));
            self.history.push((self.stepper.time, measured));
            self.report_seconds += t.elapsed().as_secs_f64();
        }
        Ok(())
    }

    fn write(&mut self, row: bool, snapshot: bool) -> Result<(), OutputError> {
        if let (true, Some(csv), Some((time, m))) = (row, &mut self.csv, self.history.last()) {
            csv.row(*time, m)?;
        }
        if snapshot {
            let name = format!("flow_{:06}.vtu", self.stepper.steps);
            self.flow.write_flow(&self.out.join(&name), &self.stepper.flow)?;
            self.series.push(self.stepper.time, &name)?;
        }
        Ok(())
    }

    fn save(&mut self) -> Result<(SavedOutputs, RunState), OutputError> {
        let csv_bytes = match &mut self.csv {
            Some(csv) => csv.written()?,
            None => 0,
        };
        let outputs = SavedOutputs {
            csv_bytes,
            rows: 0,
            series: vec![("flow.pvd".into(), self.series.entries().to_vec())],
            body_ids: Vec::new(),
        };
        let state = RunState::Flow {
            state: Box::new(self.stepper.state()),
            history: self.history.iter().map(Reported::of).collect(),
            seconds: self.phases(),
        };
        Ok((outputs, state))
    }

    fn finish(&mut self) -> Result<(), OutputError> {
        self.csv.take().map_or(Ok(()), Csv::finish)
    }

    fn summary(&self, run: RunSummary, seconds: Seconds) -> FlowSummary {
        let [assembly, solve, report] = self.phases();
        let seconds = FlowSeconds {
            setup: seconds.setup + self.setup,
            assembly,
            solve,
            report,
            output: seconds.output,
        };
        let steps = self.stepper.steps;
        let mut summary = self.flow.summary(run, seconds);
        summary.linear_solvers = Some(self.stepper.solvers());
        summary.seconds_per_step = Some((assembly + solve) / steps.max(1) as f64);
        if let Some((_, last)) = self.history.last() {
            record(&mut summary, last, self.flow.report.marker.is_some());
            let half = &self.history[self.history.len() / 2..];
            let max = |f: fn(&Measured<D>) -> Option<f64>| {
                half.iter()
                    .filter_map(|(_, m)| f(m))
                    .fold(None, |a: Option<f64>, x| Some(a.map_or(x, |a| a.max(x))))
            };
            summary.drag_coefficient_max = max(|m| m.drag_coefficient);
            summary.lift_coefficient_max = max(|m| m.lift_coefficient);
            if let Some((u, l)) = self.flow.report.reference {
                let lift: Vec<(f64, f64)> = half
                    .iter()
                    .filter_map(|(t, m)| Some((*t, m.lift_coefficient?)))
                    .collect();
                summary.strouhal_number = frequency(&lift).map(|f| f * l / u);
            }
        }
        summary
    }

    fn report(s: &FlowSummary) -> Vec<String> {
        let mut lines = vec![format!(
            "{}: {} flow, {} cells, {} unknowns, {:.2} s",
            s.run.header.case,
            s.mode,
            s.cells,
            s.velocity_unknowns + s.pressure_unknowns,
            s.run.wall_seconds,
        )];
        if let Some(k) = s.newton_iterations {
            lines.push(format!("  {k} Newton iterations"));
        }
        if s.mode == "unsteady" {
            lines.push(format!(
                "  {} steps to t = {}, {:.1} ms per step",
                s.run.steps,
                shown(s.run.time),
                s.seconds_per_step.unwrap_or(0.0) * 1e3
            ));
        }
        let values = [
            ("drag_coefficient", s.drag_coefficient),
            ("lift_coefficient", s.lift_coefficient),
            ("pressure_difference", s.pressure_difference),
            ("drag_coefficient_max", s.drag_coefficient_max),
            ("lift_coefficient_max", s.lift_coefficient_max),
            ("strouhal_number", s.strouhal_number),
        ];
        lines.extend(value_lines(&values, 8));
        lines
    }
}

/// The frequency of an oscillating series `(t, y)`: the number of upward crossings of its mean,
/// less one, over the time between the first and the last (crossing times linearly interpolated);
/// `None` with fewer than three crossings.
pub fn frequency(series: &[(f64, f64)]) -> Option<f64> {
    let mean = series.iter().map(|s| s.1).sum::<f64>() / series.len().max(1) as f64;
    let crossings: Vec<f64> = series
        .windows(2)
        .filter(|w| w[0].1 < mean && w[1].1 >= mean)
        .map(|w| {
            let (a, b) = (w[0].1 - mean, w[1].1 - mean);
            w[0].0 + (w[1].0 - w[0].0) * (-a / (b - a))
        })
        .collect();
    if crossings.len() < 3 {
        return None;
    }
    Some((crossings.len() - 1) as f64 / (crossings[crossings.len() - 1] - crossings[0]))
}

/// `fluid.csv`, written to a `.part` file and renamed into place when done or failed.
struct Csv(PartFile);

impl Csv {
    /// `fluid.csv` of a run continued from a checkpoint: its first `bytes` bytes kept.
    fn resume(out: &Path, bytes: u64) -> Result<Csv, OutputError> {
        Ok(Csv(PartFile::resume(&out.join("fluid.csv"), bytes)?))
    }

    /// Bytes written so far, all flushed (for a checkpoint).
    fn written(&mut self) -> Result<u64, OutputError> {
        self.0.flush()?;
        self.0.written()
    }

    fn new(out: &Path, dimension: usize) -> Result<Csv, OutputError> {
        let mut file = PartFile::create(&out.join("fluid.csv"))?;
        let force = ["fx", "fy", "fz"][..dimension].join(",");
        file.line(&format!(
            "time,{force},drag_coefficient,lift_coefficient,pressure_difference"
        ))?;
        Ok(Csv(file))
    }

    fn row<const D: usize>(&mut self, time: f64, m: &Measured<D>) -> Result<(), OutputError> {
        let optional = |x: Option<f64>| x.map(|x| format!("{x:e}")).unwrap_or_default();
        let force: Vec<String> = m.force.iter().map(|x| format!("{x:e}")).collect();
        self.0.line(&format!(
            "{time},{},{},{},{}",
            force.join(","),
            optional(m.drag_coefficient),
            optional(m.lift_coefficient),
            optional(m.pressure_difference)
        ))
    }

    fn finish(self) -> Result<(), OutputError> {
        self.0.finish()
    }
}
