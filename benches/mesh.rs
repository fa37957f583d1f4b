//! Mesh construction (adjacency, measures, quality) on about 1e6 cells, with one thread and with
//! all threads side by side, and point location of 1e6 random points: one query at a time (each
//! starts from the k-d tree) and as one batch (`locate_many`), on one core and on all.
//!
//! Run: `cargo bench --bench mesh`.

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use std::collections::BTreeMap;
use std::hint::black_box;
use tumble::math::Point;
use tumble::mesh::generate::kuhn_lattice;
use tumble::mesh::MeshParts;
use tumble::SimplexMesh;

fn parts<const D: usize>(n: usize) -> MeshParts<D> {
    let (points, cells) = kuhn_lattice(Point::<D>::zeros(), Point::<D>::repeat(1.0), [n; D]);
    let n_cells = cells.len() / (D + 1);
    MeshParts {
        points,
        cells,
        cell_markers: vec![0; n_cells],
        facets: vec![],
        facet_markers: vec![],
        facet_names: BTreeMap::new(),
        cell_names: BTreeMap::new(),
    }
}

fn random_points<const D: usize>(n: usize) -> Vec<Point<D>> {
    let mut state = 0x9E3779B97F4A7C15u64;
    (0..n)
        .map(|_| {
            Point::<D>::from_fn(|_, _| {
                state = state
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                (state >> 11) as f64 / (1u64 << 53) as f64
            })
        })
        .collect()
}

fn bench_dim<const D: usize>(c: &mut Criterion, n: usize) {
    let base = parts::<D>(n);
    let cells = base.cells.len() / (D + 1);
    let mut group = c.benchmark_group(format!("mesh_{D}d_{cells}_cells"));
    group.sample_size(10);
    let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    group.bench_function("build_1_thread", |b| {
        b.iter_batched(
            || base.clone(),
            |p| one.install(|| SimplexMesh::new(p).unwrap()),
            BatchSize::LargeInput,
        )
    });
    group.bench_function("build_all_threads", |b| {
        b.iter_batched(|| base.clone(), |p| SimplexMesh::new(p).unwrap(), BatchSize::LargeInput)
    });
    let mesh = SimplexMesh::new(base).unwrap();
    mesh.locator_ready();
    let queries = random_points::<D>(1_000_000);
    group.bench_function("locate_1e6_random_points_1_core", |b| {
        b.iter(|| {
            let mut found = 0u64;
            for x in &queries {
                found += mesh.locate(x).map_or(0, |p| p.cell as u64);
            }
            black_box(found)
        })
    });
    // The same points as one batch (Morton-ordered walks from answer to answer), on one thread and
    // on all threads.
    group.bench_function("locate_many_1e6_random_points_1_thread", |b| {
        b.iter(|| black_box(one.install(|| mesh.locate_many(&queries))))
    });
    group.bench_function("locate_many_1e6_random_points_all_threads", |b| {
        b.iter(|| black_box(mesh.locate_many(&queries)))
    });
    group.finish();
}

fn benches(c: &mut Criterion) {
    bench_dim::<2>(c, 707); // 999 698 triangles
    bench_dim::<3>(c, 55); // 998 250 tetrahedra
}

criterion_group!(mesh, benches);
criterion_main!(mesh);
