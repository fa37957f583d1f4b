//! Every file written is read back: counts and values must come out as they went in.

use tumble::io::{write_mesh_vtu, Field, PvdSeries};
use tumble::math::{Point, Vector};
use tumble::mesh::generate::{axis_box, ball, Sphere};
use tumble::SimplexMesh;
use vtkio::model::{Attribute, CellType, DataSet, IOBuffer, VertexNumbers, Vtk};

fn read_back(path: &std::path::Path) -> vtkio::model::UnstructuredGridPiece {
    let vtk = Vtk::import(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let DataSet::UnstructuredGrid { pieces, .. } = vtk.data else {
        panic!("not an unstructured grid")
    };
    assert_eq!(pieces.len(), 1);
    pieces.into_iter().next().unwrap().into_loaded_piece_data(None).unwrap()
}

fn array<'a>(attributes: &'a [Attribute], name: &str) -> &'a IOBuffer {
    attributes
        .iter()
        .find_map(|a| match a {
            Attribute::DataArray(d) if d.name == name => Some(&d.data),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no array {name}"))
}

fn round_trip<const D: usize>(mesh: &SimplexMesh<D>, dir: &std::path::Path) {
    let path = dir.join(format!("mesh{D}.vtu"));
    let f: Vec<f64> = mesh.points().iter().map(|p| p[0] * p[0] - 3.0 * p[1]).collect();
    let g: Vec<Vector<D>> = mesh.points().iter().map(|p| p * 2.0).collect();
    write_mesh_vtu(
        &path,
        mesh,
        vec![Field::scalar("f", &f), Field::vector("g", &g)],
        vec![
            Field::integer("marker", mesh.cell_markers()),
            Field::scalar("measure", mesh.cell_measures()),
        ],
    )
    .unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(
        text.contains("format=\"binary\""),
        "data must be binary (base64), not ASCII"
    );
    let piece = read_back(&path);
    assert_eq!(piece.num_points(), mesh.num_points());
    let points = piece.points.cast_into::<f64>().unwrap();
    for (v, p) in mesh.points().iter().enumerate() {
        for i in 0..3 {
            let expected = if i < D { p[i] } else { 0.0 };
            assert_eq!(points[3 * v + i], expected);
        }
    }
    let VertexNumbers::XML { connectivity, offsets } = &piece.cells.cell_verts else {
        panic!("expected XML cell numbering")
    };
    assert_eq!(offsets.len(), mesh.num_cells());
    assert_eq!(connectivity.iter().map(|&v| v as u32).collect::<Vec<_>>(), mesh.cells());
    let expected_type = if D == 2 { CellType::Triangle } else { CellType::Tetra };
    assert!(piece.cells.types.iter().all(|&t| t == expected_type));
    assert_eq!(array(&piece.data.point, "f").clone().cast_into::<f64>().unwrap(), f);
    let g_read = array(&piece.data.point, "g").clone().cast_into::<f64>().unwrap();
    assert_eq!(g_read.len(), 3 * mesh.num_points());
    for (v, gv) in g.iter().enumerate() {
        assert_eq!(g_read[3 * v], gv[0]);
        assert_eq!(g_read[3 * v + 1], gv[1]);
    }
    assert_eq!(
        array(&piece.data.cell, "marker").clone().cast_into::<i32>().unwrap(),
        mesh.cell_markers()
    );
    assert_eq!(
        array(&piece.data.cell, "measure").clone().cast_into::<f64>().unwrap(),
        mesh.cell_measures()
    );
    // No temporary file is left behind.
    let leftovers: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty());
}

#[test]
fn vtu_round_trip_2d_and_3d() {
    let dir = tempfile::tempdir().unwrap();
    let o = Point::<2>::zeros();
    let disk = ball(&[Sphere::new(o, 1.0, "r1"), Sphere::new(o, 3.0, "outer")], false, 0.3).unwrap();
    round_trip(&disk, dir.path());
    let cube = axis_box::<3>(Point::<3>::zeros(), Point::<3>::repeat(1.0), [3, 4, 5]).unwrap();
    round_trip(&cube, dir.path());
}

#[test]
fn field_of_the_wrong_length_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let mesh = axis_box::<2>(Point::<2>::zeros(), Point::<2>::repeat(1.0), [2, 2]).unwrap();
    let path = dir.path().join("bad.vtu");
    let err = write_mesh_vtu(&path, &mesh, vec![Field::scalar("short", &[1.0, 2.0])], vec![]).unwrap_err();
    assert!(err.to_string().contains("'short' has 2 values"), "{err}");
    assert!(!path.exists());
}

#[test]
fn pvd_series_lists_every_step() {
    let dir = tempfile::tempdir().unwrap();
    let mesh = axis_box::<2>(Point::<2>::zeros(), Point::<2>::repeat(1.0), [2, 2]).unwrap();
    let mut series = PvdSeries::new(dir.path().join("series.pvd"));
    for step in 0..3 {
        let name = format!("step_{step:04}.vtu");
        let values = vec![step as f64; mesh.num_points()];
        write_mesh_vtu(
            &dir.path().join(&name),
            &mesh,
            vec![Field::scalar("u", &values)],
            vec![],
        )
        .unwrap();
        series.push(0.5 * step as f64, &name).unwrap();
        // After each step the collection is complete and valid.
        let text = std::fs::read_to_string(dir.path().join("series.pvd")).unwrap();
        assert_eq!(text.matches("<DataSet ").count(), step + 1);
        assert!(text.trim_end().ends_with("</VTKFile>"));
    }
    let text = std::fs::read_to_string(dir.path().join("series.pvd")).unwrap();
    for (step, line) in text.lines().filter(|l| l.contains("<DataSet ")).enumerate() {
        let time: f64 = line
            .split("timestep=\"")
            .nth(1)
            .unwrap()
            .split('"')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        assert_eq!(time, 0.5 * step as f64);
        let file = line.split("file=\"").nth(1).unwrap().split('"').next().unwrap();
        let piece = read_back(&dir.path().join(file));
        let u = array(&piece.data.point, "u").clone().cast_into::<f64>().unwrap();
        assert!(u.iter().all(|&x| x == step as f64));
    }
}

/// The files of `tumble run`: the bodies' boundaries as line cells (2D) with `body` and `velocity`
/// point data, the moving distance-field lattices, and the series listing them.
#[test]
fn run_output_reads_back() {
    use std::path::Path;
    use tumble::case::{run_dry, Case, Control};
    let text = std::fs::read_to_string("cases/dry_tripole_floor.toml")
        .unwrap()
        .replace("end = 2.0", "end = 0.01")
        .replace("every = 200", "every = 50\nfields = true");
    let case = Case::parse(Path::new("tripole.toml"), &text).unwrap();
    let mut sim = case.build::<2>().unwrap();
    let dir = tempfile::tempdir().unwrap();
    run_dry(&case, &mut sim, dir.path(), Control::default()).unwrap();
    let surface = &sim.bodies[0].geometry.surface;
    let piece = read_back(&dir.path().join("bodies_000100.vtu"));
    assert_eq!(piece.num_points(), surface.points.len());
    assert_eq!(piece.cells.types.len(), surface.facets.len());
    assert!(piece.cells.types.iter().all(|&t| t == CellType::Line));
    let IOBuffer::I32(body) = array(&piece.data.point, "body") else {
        panic!("body is i32")
    };
    assert!(body.iter().all(|&b| b == 0));
    let IOBuffer::F64(velocity) = array(&piece.data.point, "velocity") else {
        panic!("velocity is f64")
    };
    assert_eq!(velocity.len(), 3 * surface.points.len());
    let field = &sim.bodies[0].geometry.field;
    let piece = read_back(&dir.path().join("fields_000100.vtu"));
    assert_eq!(piece.num_points(), field.values.len());
    let IOBuffer::F64(distance) = array(&piece.data.point, "distance") else {
        panic!("distance is f64")
    };
    assert_eq!(distance, &field.values);
    for series in ["series.pvd", "fields.pvd"] {
        let text = std::fs::read_to_string(dir.path().join(series)).unwrap();
        assert_eq!(text.matches("<DataSet").count(), 3, "{series}: steps 0, 50 and 100");
    }
}
