//! The Gmsh reader on the committed meshes (three formats each), on bad input, and on corrupted
//! files (which must give errors, never panics).

use proptest::prelude::*;
use std::fmt::Write;
use std::path::Path;
use std::time::Instant;
use tumble::math::Point;
use tumble::mesh::generate::axis_box;
use tumble::mesh::gmsh::{self, AnyMesh};
use tumble::SimplexMesh;

const FORMATS: [&str; 3] = ["msh", "bin.msh", "v22.msh"];

fn read2(path: &str) -> SimplexMesh<2> {
    gmsh::read_dim::<2>(path).unwrap_or_else(|e| panic!("{e}"))
}
fn read3(path: &str) -> SimplexMesh<3> {
    gmsh::read_dim::<3>(path).unwrap_or_else(|e| panic!("{e}"))
}

/// The same nodes up to the 16 significant digits of Gmsh's ASCII output.
fn same_points<const D: usize>(a: &SimplexMesh<D>, b: &SimplexMesh<D>) {
    assert_eq!(a.num_points(), b.num_points());
    for (p, q) in a.points().iter().zip(b.points()) {
        assert!((p - q).norm() <= 1e-14 * (1.0 + q.norm()), "{p} vs {q}");
    }
}

/// Measure enclosed by the facets of `name`, by the divergence theorem, `|Σ x_f · n_f| / D`
/// (Gmsh orients a closed surface consistently, in or out).
fn enclosed_measure<const D: usize>(mesh: &SimplexMesh<D>, name: &str) -> f64 {
    let marker = mesh.facet_marker(name).unwrap();
    let sum: f64 = mesh
        .facets_marked(marker)
        .map(|f| mesh.points()[mesh.facets()[f as usize][0] as usize].dot(&mesh.facet_area_normal(f)))
        .sum();
    sum.abs() / D as f64
}

/// Every node of the facets marked `name` lies at distance `radius` from the origin (to Gmsh's
/// printed precision), and the cells measure `exact` within the facet sag.
fn check_markers<const D: usize>(mesh: &SimplexMesh<D>, radii: &[(&str, f64)]) {
    for &(name, radius) in radii {
        let m = mesh.facet_marker(name).unwrap();
        let mut count = 0;
        for f in mesh.facets_marked(m) {
            for &v in &mesh.facets()[f as usize] {
                let r = mesh.points()[v as usize].norm();
                assert!((r - radius).abs() < 1e-9, "{name}: node {v} at radius {r}");
            }
            count += 1;
        }
        assert!(count > 0, "{name} has no facets");
    }
}

#[test]
fn disk_in_three_formats() {
    let meshes: Vec<SimplexMesh<2>> = FORMATS.iter().map(|f| read2(&format!("meshes/disk_r3.{f}"))).collect();
    let first = &meshes[0];
    // Counted with awk on the v2.2 file; the specification's Gmsh mesh at h = 0.4 had 472.
    assert_eq!(first.num_cells(), 466);
    assert_eq!(first.num_points(), 258);
    let names: Vec<&str> = first.facet_names().values().map(String::as_str).collect();
    assert_eq!(names, ["r1", "r2", "outer"]);
    let cell_names: Vec<&str> = first.cell_names().values().map(String::as_str).collect();
    assert_eq!(cell_names, ["inner", "rings"]);
    check_markers(first, &[("r1", 1.0), ("r2", 2.0), ("outer", 3.0)]);
    let area: f64 = first.cell_measures().iter().sum();
    assert!((area - enclosed_measure(first, "outer")).abs() < 1e-12 * area);
    assert!(
        area < 9.0 * std::f64::consts::PI && area > 9.0 * std::f64::consts::PI * 0.98,
        "{area}"
    );
    // The outer circle is the whole boundary.
    assert_eq!(first.boundary().len(), first.facets_marked(13).count());
    for other in &meshes[1..] {
        same_points(other, first);
        assert_eq!(other.cells(), first.cells());
        assert_eq!(other.cell_markers(), first.cell_markers());
        assert_eq!(other.facets(), first.facets());
        assert_eq!(other.facet_markers(), first.facet_markers());
        assert_eq!(other.facet_names(), first.facet_names());
    }
}

#[test]
fn ball_in_three_formats() {
    let meshes: Vec<SimplexMesh<3>> = FORMATS.iter().map(|f| read3(&format!("meshes/ball_r3.{f}"))).collect();
    let first = &meshes[0];
    // Counted with awk on the v2.2 file; the specification's Gmsh mesh at h = 0.8 had 1 489.
    assert_eq!(first.num_cells(), 1416);
    check_markers(first, &[("r1", 1.0), ("r2", 2.0), ("outer", 3.0)]);
    let inner = first.cell_marker("inner").unwrap();
    let inner_volume: f64 = first
        .cell_markers()
        .iter()
        .zip(first.cell_measures())
        .filter(|(&m, _)| m == inner)
        .map(|(_, v)| v)
        .sum();
    // The cells fill exactly the polyhedron bounded by the facets of r1.
    let enclosed = enclosed_measure(first, "r1");
    assert!(
        (inner_volume - enclosed).abs() < 1e-12 * enclosed,
        "{inner_volume} vs {enclosed}"
    );
    assert!(inner_volume < 4.0 / 3.0 * std::f64::consts::PI);
    for other in &meshes[1..] {
        same_points(other, first);
        assert_eq!(other.cells(), first.cells());
        assert_eq!(other.facets(), first.facets());
        assert_eq!(other.facet_markers(), first.facet_markers());
    }
    assert!(matches!(gmsh::read("meshes/ball_r3.msh").unwrap(), AnyMesh::D3(_)));
    let err = gmsh::read_dim::<2>("meshes/ball_r3.msh").unwrap_err().to_string();
    assert!(err.contains("expected a 2D mesh, the file holds a 3D mesh"), "{err}");
}

/// The error for `text` read as `bad.msh`.
fn error_of(text: &str) -> String {
    match gmsh::parse_bytes(text.as_bytes(), Path::new("bad.msh")) {
        Ok(_) => panic!("accepted:\n{text}"),
        Err(e) => e.to_string(),
    }
}

const GOOD_V2: &str =
    "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$PhysicalNames\n2\n1 1 \"wall\"\n2 2 \"fluid\"\n$EndPhysicalNames\n\
$Nodes\n4\n1 0 0 0\n2 1 0 0\n3 1 1 0\n4 0 1 0\n$EndNodes\n$Elements\n4\n1 1 2 1 1 1 2\n2 1 2 1 1 2 3\n\
3 2 2 2 1 1 2 3\n4 2 2 2 1 1 3 4\n$EndElements\n";

#[test]
fn small_valid_file_reads() {
    let AnyMesh::D2(mesh) = gmsh::parse_bytes(GOOD_V2.as_bytes(), Path::new("good.msh")).unwrap() else {
        panic!("expected 2D")
    };
    assert_eq!((mesh.num_points(), mesh.num_cells(), mesh.facets().len()), (4, 2, 2));
    assert_eq!(mesh.facet_marker("wall").unwrap(), 1);
    assert_eq!(mesh.cell_marker("fluid").unwrap(), 2);
    let err = mesh.facet_marker("inlet").unwrap_err().to_string();
    assert!(err.contains("no marker named 'inlet'") && err.contains("wall"), "{err}");
}

#[test]
fn bad_input_names_the_file_the_line_and_what_was_expected() {
    let cases: Vec<(String, &str)> = vec![
        (
            GOOD_V2[..GOOD_V2.len() - 40].to_string(),
            "bad.msh, line 20: 2 element tags cannot fit in the 0 bytes left",
        ),
        (
            GOOD_V2.replace("2.2 0 8", "3.0 0 8"),
            "line 2: format version 3.0 is not supported",
        ),
        (
            GOOD_V2.replace("4 2 2 2 1 1 3 4", "4 2 2 2 1 1 3 9"),
            "line 21: element 4 refers to node 9",
        ),
        (
            GOOD_V2.replace("2 2 \"fluid\"", "2 7 \"fluid\""),
            "line 7: physical group 'fluid' (dimension 2, tag 7) has no elements",
        ),
        (
            GOOD_V2.replace("4 0 1 0", "4 2 2 0"),
            "cell 1 (element 4, line 21): measure 0e0 is not positive",
        ),
        ("hello world\n".to_string(), "line 1: expected a section header"),
        (
            "$Nodes\n1\n1 0 0 0\n$EndNodes\n".to_string(),
            "line 1: expected $MeshFormat first",
        ),
        (
            GOOD_V2.replace("4 2 2 2 1 1 3 4", "4 3 2 2 1 1 3 4 2"),
            "line 21: element type 3 (4-node quadrangle) is not supported",
        ),
        (
            GOOD_V2.replace("3 1 1 0", "3 1 x 0"),
            "line 13: expected a node coordinate, found 'x'",
        ),
        (
            GOOD_V2.replace("2 1 2 1 1 2 3", "2 1 2 1 1 2 4"),
            "facet 1 (marker wall) (element 2, line 19): nodes [1, 3] are not the nodes of a face",
        ),
        (
            GOOD_V2.replace("$Elements\n4", "$Elements\n99999999"),
            "99999999 elements cannot fit",
        ),
        (
            GOOD_V2.replace("$EndNodes", "$EndNode"),
            "line 15: expected $EndNodes, found '$EndNode'",
        ),
        (String::new(), "the file is empty"),
    ];
    for (text, expected) in cases {
        let err = error_of(&text);
        assert!(err.contains(expected), "expected '{expected}' in:\n{err}");
        assert!(err.starts_with("bad.msh"), "{err}");
    }
    // A missing file.
    let err = gmsh::read("meshes/does_not_exist.msh").unwrap_err().to_string();
    assert!(err.starts_with("meshes/does_not_exist.msh: "), "{err}");
}

#[test]
fn binary_errors_give_byte_offsets() {
    let data = std::fs::read("meshes/disk_r3.bin.msh").unwrap();
    let cut = data.len() - 500;
    let err = gmsh::parse_bytes(&data[..cut], Path::new("cut.msh"))
        .unwrap_err()
        .to_string();
    assert!(err.starts_with("cut.msh, byte "), "{err}");
}

fn committed_files() -> Vec<Vec<u8>> {
    ["disk_r3", "ball_r3"]
        .iter()
        .flat_map(|g| {
            FORMATS
                .iter()
                .map(move |f| std::fs::read(format!("meshes/{g}.{f}")).unwrap())
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Truncated files are errors.
    #[test]
    fn truncated_files_are_errors(file in 0usize..6, fraction in 0.0f64..1.0) {
        let data = &committed_files()[file];
        // Keep less than the whole: the final $EndElements (or more) is always lost.
        let end = data.windows(12).rposition(|w| w == b"$EndElements").unwrap();
        let cut = (fraction * end as f64) as usize;
        prop_assert!(gmsh::parse_bytes(&data[..cut], Path::new("t.msh")).is_err());
    }

    /// A byte that is not text, anywhere in an ASCII file, is an error.
    #[test]
    fn non_text_bytes_in_ascii_files_are_errors(file in prop::sample::select(vec![0usize, 2, 3, 5]), at in 0.0f64..1.0) {
        let mut data = committed_files()[file].clone();
        let i = ((at * data.len() as f64) as usize).min(data.len() - 1);
        data[i] = 0xFF;
        prop_assert!(gmsh::parse_bytes(&data, Path::new("t.msh")).is_err());
    }

    /// Random bytes written anywhere never make the reader panic; if the file still reads, the
    /// mesh it gives is valid (construction validated it).
    #[test]
    fn flipped_bytes_never_panic(file in 0usize..6, flips in prop::collection::vec((0.0f64..1.0, any::<u8>()), 1..8)) {
        let mut data = committed_files()[file].clone();
        for (at, byte) in flips {
            let i = ((at * data.len() as f64) as usize).min(data.len() - 1);
            data[i] = byte;
        }
        if let Ok(mesh) = gmsh::parse_bytes(&data, Path::new("t.msh")) {
            let measures_ok = match mesh {
                AnyMesh::D2(m) => m.cell_measures().iter().all(|&v| v > 0.0),
                AnyMesh::D3(m) => m.cell_measures().iter().all(|&v| v > 0.0),
            };
            prop_assert!(measures_ok);
        }
    }
}

/// `mesh` as Gmsh 4.1 ASCII writes it: one entity per facet marker (its tag the marker's) and one
/// for the cells, each with its physical group; `clockwise` reverses every cell's orientation, as
/// Gmsh does for a surface meshed from a clockwise curve loop.
fn msh41_ascii<const D: usize>(mesh: &SimplexMesh<D>, clockwise: bool) -> String {
    let (lo, hi) = mesh.bounding_box();
    let bbox = format!(
        "{} {} {} {} {} {}",
        lo[0],
        lo[1],
        if D == 3 { lo[2] } else { 0.0 },
        hi[0],
        hi[1],
        if D == 3 { hi[2] } else { 0.0 }
    );
    let names = mesh.facet_names();
    let mut out = String::from("$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$PhysicalNames\n");
    let _ = writeln!(out, "{}", names.len() + 1);
    for (tag, name) in names {
        let _ = writeln!(out, "{} {tag} \"{name}\"", D - 1);
    }
    let _ = writeln!(out, "{D} 1000 \"domain\"\n$EndPhysicalNames\n$Entities");
    let mut counts = [0; 4];
    counts[D - 1] = names.len();
    counts[D] = 1;
    let _ = writeln!(out, "{} {} {} {}", counts[0], counts[1], counts[2], counts[3]);
    for tag in names.keys() {
        let _ = writeln!(out, "{tag} {bbox} 1 {tag} 0");
    }
    let _ = writeln!(out, "1 {bbox} 1 1000 0\n$EndEntities\n$Nodes");
    let n = mesh.num_points();
    let _ = writeln!(out, "1 {n} 1 {n}\n{D} 1 0 {n}");
    for v in 1..=n {
        let _ = writeln!(out, "{v}");
    }
    for p in mesh.points() {
        let _ = writeln!(out, "{} {} {}", p[0], p[1], if D == 3 { p[2] } else { 0.0 });
    }
    let facets = mesh.facets().len();
    let total = facets + mesh.num_cells();
    let _ = writeln!(out, "$EndNodes\n$Elements\n{} {total} 1 {total}", names.len() + 1);
    let mut tag = 0;
    for &marker in names.keys() {
        let marked: Vec<u32> = mesh.facets_marked(marker).collect();
        let _ = writeln!(
            out,
            "{} {marker} {} {}",
            D - 1,
            if D == 2 { 1 } else { 2 },
            marked.len()
        );
        for f in marked {
            tag += 1;
            let nodes: Vec<String> = mesh.facets()[f as usize].iter().map(|v| (v + 1).to_string()).collect();
            let _ = writeln!(out, "{tag} {}", nodes.join(" "));
        }
    }
    let _ = writeln!(out, "{D} 1 {} {}", if D == 2 { 2 } else { 4 }, mesh.num_cells());
    for c in 0..mesh.num_cells() as u32 {
        tag += 1;
        let mut nodes: Vec<u32> = mesh.cell(c).to_vec();
        if clockwise {
            nodes.swap(1, 2);
        }
        let nodes: Vec<String> = nodes.iter().map(|v| (v + 1).to_string()).collect();
        let _ = writeln!(out, "{tag} {}", nodes.join(" "));
    }
    out.push_str("$EndElements\n");
    out
}

/// A generated ASCII file of 100 352 triangles reads back as the mesh it was written from, and in
/// a time a linear reader needs (about 0.05 s): a reader that counts lines from the start of the
/// file for every element took 80 s on a file of this size, so the 10 s bound catches a quadratic
/// reader coming back without depending on the machine's speed.
#[test]
fn a_large_ascii_file_reads_in_linear_time() {
    let mesh = axis_box::<2>(Point::<2>::new(0.0, 0.0), Point::<2>::new(2.0, 1.0), [224, 224]).unwrap();
    assert_eq!(mesh.num_cells(), 100_352);
    let text = msh41_ascii(&mesh, false);
    let start = Instant::now();
    let AnyMesh::D2(read) = gmsh::parse_bytes(text.as_bytes(), Path::new("large.msh")).unwrap() else {
        panic!("expected a 2D mesh")
    };
    let seconds = start.elapsed().as_secs_f64();
    assert!(seconds < 10.0, "reading {} MB took {seconds} s", text.len() / 1_000_000);
    same_points(&read, &mesh);
    assert_eq!(read.cells(), mesh.cells());
    assert_eq!(read.facets().len(), mesh.facets().len());
    for name in ["xmin", "xmax", "ymin", "ymax"] {
        let (a, b) = (read.facet_marker(name).unwrap(), mesh.facet_marker(name).unwrap());
        assert_eq!(read.facets_marked(a).count(), mesh.facets_marked(b).count(), "{name}");
    }
}

/// Cells written clockwise (2D) or left-handed (3D) are reordered, counted, and give the same
/// measures as the original mesh.
#[test]
fn clockwise_cells_are_reoriented() {
    fn check<const D: usize>(mesh: SimplexMesh<D>) {
        let text = msh41_ascii(&mesh, true);
        let (read, notes) = gmsh::parse_bytes_noted(text.as_bytes(), Path::new("cw.msh")).unwrap();
        assert_eq!(notes.reoriented_cells, mesh.num_cells());
        let measures = match read {
            AnyMesh::D2(m) => m.cell_measures().to_vec(),
            AnyMesh::D3(m) => m.cell_measures().to_vec(),
        };
        for (a, b) in measures.iter().zip(mesh.cell_measures()) {
            assert!((a - b).abs() <= 1e-14 * b, "{a} vs {b}");
        }
        let (_, notes) = gmsh::parse_bytes_noted(msh41_ascii(&mesh, false).as_bytes(), Path::new("ccw.msh")).unwrap();
        assert_eq!(notes.reoriented_cells, 0);
    }
    check(axis_box::<2>(Point::<2>::new(0.0, 0.0), Point::<2>::new(1.0, 1.0), [5, 4]).unwrap());
    check(
        axis_box::<3>(
            Point::<3>::new(0.0, 0.0, 0.0),
            Point::<3>::new(1.0, 1.0, 1.0),
            [3, 2, 2],
        )
        .unwrap(),
    );
}

/// `tumble run` on a case whose domain is a clockwise Gmsh mesh runs it and says what it
/// reordered.
#[test]
fn a_run_on_a_clockwise_mesh_notes_the_reordered_cells() {
    let dir = tempfile::tempdir().unwrap();
    let mesh = axis_box::<2>(Point::<2>::new(0.0, 0.0), Point::<2>::new(2.0, 2.0), [16, 16]).unwrap();
    std::fs::write(dir.path().join("cw.msh"), msh41_ascii(&mesh, true)).unwrap();
    let case = dir.path().join("cw.toml");
    std::fs::write(
        &case,
        r#"
dimension = 2
gravity = [0.0, -981.0]
[domain]
mesh = "cw.msh"
walls = ["xmin", "xmax", "ymin", "ymax"]
[[bodies]]
name = "disk"
shape = { type = "circle", radius = 0.25 }
density = 1.0
position = [1.0, 1.0]
[contact]
range = 0.05
stiffness = 1e-4
[time]
step = 1e-4
end = 1e-3
"#,
    )
    .unwrap();
    let result = std::process::Command::new(env!("CARGO_BIN_EXE_tumble"))
        .args(["run", "--quiet", "--out"])
        .arg(dir.path().join("out"))
        .arg(&case)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&result.stderr);
    assert!(result.status.success(), "{err}");
    assert!(
        err.contains("cw.msh (`domain.mesh`): 512 of 512 cells were clockwise (2D) or left-handed (3D) in the file and were reordered"),
        "{err}"
    );
}

/// A line deleted or added by hand in an element block is reported at the line where the counts
/// stop matching, with the block that declared them.
#[test]
fn a_deleted_or_added_line_names_its_block() {
    let mesh = axis_box::<2>(Point::<2>::new(0.0, 0.0), Point::<2>::new(1.0, 1.0), [3, 3]).unwrap();
    let text = msh41_ascii(&mesh, false);
    let lines: Vec<&str> = text.lines().collect();
    let header = |prefix: &str| lines.iter().position(|l| l.starts_with(prefix)).unwrap();
    let (segments, triangles) = (header("$Elements") + 2, header("2 1 2 18"));
    let edit = |remove: Option<usize>, append: Option<(usize, &str)>| {
        let mut out = String::new();
        for (i, l) in lines.iter().enumerate() {
            if Some(i) != remove {
                out.push_str(l);
                if let Some((j, extra)) = append {
                    if i == j {
                        out.push_str(extra);
                    }
                }
                out.push('\n');
            }
        }
        error_of(&out)
    };
    let cases = [
        (
            edit(Some(segments + 1), None),
            format!(
                "line {}: expected an element line of 3 numbers (its tag and 2 node tags): element 3 of the 3 that the block at line {} declares",
                segments + 4,
                segments + 1
            ),
        ),
        (
            edit(Some(triangles + 2), None),
            format!(
                "the section ends after 17 of the 18 elements that the block at line {} declares; was an element line deleted?",
                triangles + 1
            ),
        ),
        (
            edit(None, Some((triangles + 5, " 7"))),
            format!("line {}: expected an element line of 4 numbers", triangles + 6),
        ),
        (
            edit(None, Some((header("$Nodes") + 20, " 7"))),
            format!("line {}: expected a line of 3 node coordinates", header("$Nodes") + 21),
        ),
    ];
    for (err, expected) in cases {
        assert!(err.contains(&expected), "expected '{expected}' in:\n{err}");
    }
}
