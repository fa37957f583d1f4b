//! Fluid cases run from TOML: the committed Schäfer–Turek 2D-1 case (on its coarse mesh) reports
//! the benchmark's quantities within the issue's tolerances, a pressure-driven channel reproduces
//! Poiseuille's solution in every output file, and bad input gets errors that name the field,
//! with the output written so far kept when a run blows up.

use std::path::{Path, PathBuf};
use tumble::case::{run_flow, Case, Control, FlowSummary};
use vtkio::model::{Attribute, DataSet, IOBuffer, Vtk};

fn run(case: &Case, out: &Path) -> Result<FlowSummary, String> {
    let flow = case.build_flow::<2>().map_err(|e| e.to_string())?;
    run_flow(case, &flow, out, Control::default()).map_err(|e| e.to_string())
}

fn point_array(path: &Path, name: &str) -> Vec<f64> {
    let vtk = Vtk::import(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let DataSet::UnstructuredGrid { pieces, .. } = vtk.data else {
        panic!("not an unstructured grid")
    };
    let piece = pieces.into_iter().next().unwrap().into_loaded_piece_data(None).unwrap();
    let found = piece.data.point.iter().find_map(|a| match a {
        Attribute::DataArray(d) if d.name == name => Some(d.data.clone()),
        _ => None,
    });
    match found {
        Some(IOBuffer::F64(v)) => v,
        other => panic!("{}: no f64 array {name}: {other:?}", path.display()),
    }
}

/// The committed 2D-1 case's path and its text pointed at the coarse mesh (1 008 triangles).
fn schafer_turek_2d1_coarse() -> (PathBuf, String) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("cases/schafer_turek_2d1.toml");
    let text = std::fs::read_to_string(&path)
        .unwrap()
        .replace("_medium.msh", "_coarse.msh");
    (path, text)
}

/// The monolithic scheme's steady state is the steady discrete solution: the 2D-1 case on the coarse
/// mesh, run from rest by the monolithic scheme with Δt = 0.01 to t = 20, reports Newton's drag, lift
/// and Δp to 1e-5 (relative; the drag to 1e-8). The pressure correction is unstable at this step (its explicit
/// convection stops being finite after about a hundred steps).
#[test]
fn monolithic_scheme_settles_on_the_steady_solution() {
    let (path, steady_text) = schafer_turek_2d1_coarse();
    let unsteady_text = steady_text.replace("steady = true", "scheme = \"monolithic\"").replace(
        "[check]",
        "[time]\nstep = 0.01\nend = 20.0\n[output]\nevery = 0\n[check]",
    );
    let quantities = |text: &str| {
        let case = Case::parse(&path, text).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let s = run(&case, dir.path()).unwrap();
        [s.drag_coefficient, s.lift_coefficient, s.pressure_difference].map(Option::unwrap)
    };
    let (steady, settled) = (quantities(&steady_text), quantities(&unsteady_text));
    println!("steady {steady:?}, monolithic at t = 20 {settled:?}");
    for (a, b) in steady.iter().zip(&settled) {
        assert!((a / b - 1.0).abs() < 1e-5, "steady {steady:?}, monolithic {settled:?}");
    }
}

/// The committed case, on the coarse mesh (1 008 triangles, the cylinder's cells curved): within
/// 0.05 % (drag), 1 % (lift) and 0.1 % (Δp) of the reference values, ten times tighter than the
/// issue asks of any mesh up to 50 000 triangles (0.5 %, 5 %, 1 %).
#[test]
fn schafer_turek_2d1_case_reports_the_benchmark_quantities() {
    let (path, text) = schafer_turek_2d1_coarse();
    let case = Case::parse(&path, &text).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let s = run(&case, dir.path()).unwrap();
    let (cd, cl, dp) = (
        s.drag_coefficient.unwrap(),
        s.lift_coefficient.unwrap(),
        s.pressure_difference.unwrap(),
    );
    let errors = [
        (cd / 5.57953523384 - 1.0).abs(),
        (cl / 0.010618948146 - 1.0).abs(),
        (dp / 0.11752016697 - 1.0).abs(),
    ];
    println!("c_D {cd:.6}, c_L {cl:.6}, Δp {dp:.6}: relative errors {errors:.2?}");
    assert!(errors[0] < 5e-4 && errors[1] < 1e-2 && errors[2] < 1e-3, "{errors:?}");
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["status"], "completed");
    for (key, value) in [
        ("drag_coefficient", cd),
        ("lift_coefficient", cl),
        ("pressure_difference", dp),
    ] {
        let written = summary[key].as_f64().unwrap();
        assert!(
            (written - value).abs() <= 1e-15 * value.abs(),
            "{key}: {written} vs {value}"
        );
    }
    let pressure = point_array(&dir.path().join("flow_000000.vtu"), "pressure");
    assert_eq!(pressure.len(), s.pressure_unknowns);
}

/// A channel [0, 2] × [0, 1] driven by a pressure drop Δp = 3 with μ = 0.5, ρ = 2, from rest: the
/// flow settles to `u = Δp/(2μL) y (1 − y)`, whose vorticity `−∂u/∂y = −Δp/(2μL) (1 − 2y)` and
/// pressure `Δp (1 − x/L)` the output must carry (in the case's units: `p` times ρ), and the
/// reported pressure difference between (0.5, 0.5) and (1.5, 0.5) is `Δp/2`.
#[test]
fn pressure_driven_channel_case_reaches_poiseuille_flow() {
    let text = r#"
        dimension = 2
        [domain]
        box = [[0, 0], [2, 1]]
        cells = [8, 4]
        [fluid]
        density = 2.0
        viscosity = 0.5
        [fluid.boundary]
        xmin = { pressure = 3.0 }
        xmax = "outflow"
        ymin = "no-slip"
        ymax = "no-slip"
        [fluid.report]
        pressure_points = [[0.5, 0.5], [1.5, 0.5]]
        [time]
        step = 0.04
        end = 8.0
        [output]
        every = 50
        csv_every = 10
    "#;
    let case = Case::parse(Path::new("channel.toml"), text).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let s = run(&case, dir.path()).unwrap();
    assert_eq!(s.run.steps, 200);
    let dp = s.pressure_difference.unwrap();
    println!("Δp between the probes: {dp:.10} (exact 1.5)");
    assert!((dp - 1.5).abs() < 1e-6, "{dp}");
    let last = dir.path().join("flow_000200.vtu");
    let vtk = Vtk::import(&last).unwrap();
    let DataSet::UnstructuredGrid { pieces, .. } = vtk.data else {
        panic!()
    };
    let piece = pieces.into_iter().next().unwrap().into_loaded_piece_data(None).unwrap();
    let points = piece.points.cast_into::<f64>().unwrap();
    let velocity = point_array(&last, "velocity");
    let pressure = point_array(&last, "pressure");
    let vorticity = point_array(&last, "vorticity");
    let g = 3.0 / (2.0 * 0.5 * 2.0);
    let mut worst = [0.0f64; 3];
    for k in 0..points.len() / 3 {
        let (x, y) = (points[3 * k], points[3 * k + 1]);
        worst[0] = worst[0].max((velocity[3 * k] - g * y * (1.0 - y)).abs() + velocity[3 * k + 1].abs());
        worst[1] = worst[1].max((pressure[k] - 3.0 * (1.0 - x / 2.0)).abs());
        worst[2] = worst[2].max((vorticity[k] + g * (1.0 - 2.0 * y)).abs());
    }
    println!(
        "max errors: velocity {:.2e}, pressure {:.2e}, vorticity {:.2e}",
        worst[0], worst[1], worst[2]
    );
    assert!(worst[0] < 1e-6 && worst[1] < 1e-5 && worst[2] < 1e-5, "{worst:?}");
    let series = std::fs::read_to_string(dir.path().join("flow.pvd")).unwrap();
    assert_eq!(series.matches("<DataSet").count(), 5, "steps 0, 50, 100, 150, 200");
    let csv = std::fs::read_to_string(dir.path().join("fluid.csv")).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(
        lines[0],
        "time,fx,fy,drag_coefficient,lift_coefficient,pressure_difference"
    );
    assert_eq!(lines.len(), 1 + 20);
    let last_dp: f64 = lines[20].split(',').nth(5).unwrap().parse().unwrap();
    assert_eq!(last_dp, dp);
}

const CHANNEL: &str = r#"
    dimension = 2
    [domain]
    box = [[0, 0], [2, 1]]
    cells = [4, 2]
    [fluid]
    viscosity = 0.5
    [fluid.boundary]
    xmin = { velocity = ["y*(1-y)", 0] }
    xmax = "outflow"
    ymin = "no-slip"
    ymax = "no-slip"
    [time]
    step = 0.1
    end = 0.2
"#;

fn error(text: &str) -> String {
    let case = match Case::parse(Path::new("bad.toml"), text) {
        Ok(c) => c,
        Err(e) => return e.to_string(),
    };
    match case.build_flow::<2>() {
        Ok(_) => panic!("accepted:\n{text}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn bad_fluid_input_gets_errors_naming_the_field() {
    let dir = tempfile::tempdir().unwrap();
    let case = Case::parse(Path::new("good.toml"), CHANNEL).unwrap();
    run(&case, dir.path()).unwrap();
    let cases = [
        (
            CHANNEL.replace("\"outflow\"", "\"outlfow\""),
            "`fluid.boundary.xmax`: unknown condition 'outlfow'",
        ),
        (
            CHANNEL.replace("ymax = \"no-slip\"", "ymax = \"no-slip\"\nzmax = \"no-slip\""),
            "`fluid.boundary.zmax`",
        ),
        (
            CHANNEL.replace("ymax = \"no-slip\"", ""),
            "the boundary facets marked ymax have no condition",
        ),
        (
            CHANNEL.replace("y*(1-y)", "y*(1-y"),
            "`fluid.boundary.xmin.velocity[0]`: in `y*(1-y` at character 6: expected `)`",
        ),
        (CHANNEL.replace("y*(1-y)", "w*y"), "unknown name `w`"),
        (
            CHANNEL.replace("[\"y*(1-y)\", 0]", "[1]"),
            "`fluid.boundary.xmin.velocity`: expected 2 components, got 1",
        ),
        (
            CHANNEL.replace("{ velocity = [\"y*(1-y)\", 0] }", "{ velocity = [1, 0], pressure = 2 }"),
            "give either `velocity` or `pressure`",
        ),
        (
            CHANNEL.replace("viscosity = 0.5", "viscosity = -0.5"),
            "`fluid.viscosity`: must be a positive number",
        ),
        (
            CHANNEL.replace("viscosity = 0.5", "viscosity = 0.5\nviscosty = 1"),
            "unknown field `viscosty`",
        ),
        (
            CHANNEL.replace("viscosity = 0.5", "viscosity = 0.5\nconvection = \"upwind\""),
            "unknown variant `upwind`, expected `extrapolated` or `characteristics`",
        ),
        (
            CHANNEL.replace("viscosity = 0.5", "viscosity = 0.5\nscheme = \"implicit\""),
            "unknown variant `implicit`, expected one of `pressure-correction`, `coupled`, `monolithic`",
        ),
        (
            CHANNEL.replace("viscosity = 0.5", "viscosity = 0.5\npressure_passes = 0"),
            "`fluid.pressure_passes`: at least 1 pass a step, got 0",
        ),
        (
            CHANNEL.replace(
                "viscosity = 0.5",
                "viscosity = 0.5\nstokes = true\nconvection = \"characteristics\"",
            ),
            "`fluid.convection`: a Stokes flow (fluid.stokes = true) has no convection to treat",
        ),
        (
            CHANNEL.replace("[time]\n    step = 0.1\n    end = 0.2", ""),
            "`time`: this case needs a [time] table",
        ),
        (
            CHANNEL.replace(
                "ymax = \"no-slip\"",
                "ymax = \"no-slip\"\n[fluid.report]\npressure_points = [[5, 0.5], [1, 0.5]]",
            ),
            "`fluid.report.pressure_points[0]`: the point [5.0, 0.5] is outside the mesh",
        ),
        (
            CHANNEL.replace(
                "ymax = \"no-slip\"",
                "ymax = \"no-slip\"\n[fluid.report]\nmarker = \"cylinder\"",
            ),
            "`fluid.report.marker`: the mesh has no marker named 'cylinder'; it has: xmin, xmax, ymin, ymax",
        ),
        (
            CHANNEL.replace(
                "ymax = \"no-slip\"",
                "ymax = \"no-slip\"\n[fluid.report]\nreference_velocity = 1.0",
            ),
            "need both `reference_velocity` and `reference_length`",
        ),
        (
            CHANNEL.replace(
                "[time]",
                "[[fluid.curved]]\nmarker = \"ymin\"\ncentre = [1, 5]\nradius = 5\n[time]",
            ),
            "`fluid.curved[0]`: the nodes of the facets marked 'ymin' are up to 9.902e-2 off the circle",
        ),
    ];
    for (text, expected) in cases {
        let message = error(&text);
        assert!(message.contains(expected), "expected «{expected}» in «{message}»");
    }
}

/// A lid-driven cavity with a tiny viscosity and a time step far beyond the convective limit:
/// the run stops with the step and the field named, `summary.json` says so, and the files written
/// before the blow-up are kept.
#[test]
fn a_blown_up_run_names_the_step_and_keeps_its_output() {
    let text = r#"
        dimension = 2
        [domain]
        box = [[0, 0], [1, 1]]
        cells = [8, 8]
        [fluid]
        viscosity = 1e-6
        [fluid.boundary]
        ymax = { velocity = [1, 0] }
        xmin = "no-slip"
        xmax = "no-slip"
        ymin = "no-slip"
        [time]
        step = 2.0
        end = 2000.0
        [output]
        every = 1
    "#;
    let case = Case::parse(Path::new("cavity.toml"), text).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let message = run(&case, dir.path()).unwrap_err();
    println!("{message}");
    assert!(
        message.starts_with("cavity.toml: the velocity is not finite"),
        "{message}"
    );
    assert!(message.contains("after step"), "{message}");
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["status"], "failed");
    assert_eq!(summary["error"].as_str(), Some(message.as_str()));
    let steps = summary["steps"].as_u64().unwrap();
    assert!(steps > 0);
    let series = std::fs::read_to_string(dir.path().join("flow.pvd")).unwrap();
    assert_eq!(series.matches("<DataSet").count() as u64, steps + 1);
    assert!(dir.path().join(format!("flow_{steps:06}.vtu")).exists());
}
