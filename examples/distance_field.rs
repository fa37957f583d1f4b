//! Using tumble from a host code: generate a mesh conforming to a body's boundary, compute the
//! body's signed narrow-band distance field, query it, and write it for ParaView.
//!
//! Run: `cargo run --release --example distance_field` (writes `distance_field.vtu`).

use tumble::fmm::{distance_to_range, FmmOptions, Front};
use tumble::io::{write_mesh_vtu, Field};
use tumble::math::Point;
use tumble::mesh::generate::{ball, Sphere};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // A disk of radius 3 whose mesh conforms to a body of radius 1 (facet marker "body") and to a
    // circle of radius 2; nominal element size 0.05.
    let o = Point::<2>::zeros();
    let mesh = ball(
        &[
            Sphere::new(o, 1.0, "body"),
            Sphere::new(o, 2.0, "middle"),
            Sphere::new(o, 3.0, "wall"),
        ],
        false,
        0.05,
    )?;
    println!("{} nodes, {} triangles", mesh.num_points(), mesh.num_cells());

    // The body's distance field, only within 1.2 of it, negative inside, with exact distances to
    // the closest facet of each node.
    let options = FmmOptions {
        max_distance: Some(1.2),
        closest_point: true,
        ..FmmOptions::default()
    };
    let field = distance_to_range(&mesh, &Front::named(&mesh, &["body"])?, &options)?;
    println!(
        "{} nodes within the band; initialisation {:.2} ms, march {:.2} ms",
        field.stats.accepted,
        field.stats.init_seconds * 1e3,
        field.stats.march_seconds * 1e3
    );

    // Queries: the value and the normal at a point, and where the field is smallest on a boundary.
    let x = Point::<2>::new(1.2, 0.3);
    let value = field.value_at(&mesh, &x).expect("inside the mesh");
    let normal = field.normal_at(&mesh, &x).expect("in the band");
    println!(
        "at {:?}: distance {value:.4} (exact {:.4}), normal {:?}",
        x.as_slice(),
        x.norm() - 1.0,
        normal.as_slice()
    );
    let middle = mesh.facet_marker("middle")?;
    if let Some((p, d)) = field.argmin_on(&mesh, &[middle]) {
        println!("closest point of the middle circle: {:?} at {d:.4}", p.as_slice());
    } else {
        println!("the middle circle is beyond the band");
    }

    write_mesh_vtu(
        std::path::Path::new("distance_field.vtu"),
        &mesh,
        vec![Field::scalar("distance", &field.values)],
        vec![Field::integer("marker", mesh.cell_markers())],
    )?;
    println!("wrote distance_field.vtu: open it in ParaView and colour by 'distance'");
    Ok(())
}
