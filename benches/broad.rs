//! The broad-phase methods side by side, in one process, on the sets: 3D uniform with
//! solid fraction 0.3, ω ∈ {1, 10, 100}, N from 1e3 to 1e6; Leszczynski and Ciesielski's 2D sets
//! (100 particles per unit area, diameters in [0.05, 0.1], [0.02, 0.05], [0.005, 0.02]) with their
//! contact ratios; one big sphere among many. Medians of 5 full queries (build included), and each
//! method's ratio to the best on the set; `auto`'s first query, which probes its candidates, is
//! timed apart and not in its median.
//!
//! Run: `cargo bench --bench broad` (several minutes: brute force runs up to N = 1e4 only).

use tumble::broad::sets::{self, METHODS};
use tumble::broad::BoundingSphere;

fn table<const D: usize>(title: &str, spheres: &[BoundingSphere<D>], extra: &str) {
    let timings: Vec<sets::Timing> = METHODS
        .iter()
        .filter(|&&m| m != "brute" || spheres.len() <= 10_000)
        .map(|m| sets::time::<D>(m, spheres, 0.0, 5).unwrap())
        .collect();
    let best = timings
        .iter()
        .filter(|t| t.method != "auto")
        .map(|t| t.median_ms)
        .fold(f64::INFINITY, f64::min);
    let cells: Vec<String> = timings
        .iter()
        .map(|t| {
            let chose = if t.chosen.is_empty() {
                String::new()
            } else {
                format!(" ({})", t.chosen)
            };
            format!("{:.2} ({:.2}x){chose}", t.median_ms, t.median_ms / best)
        })
        .collect();
    let brute = if spheres.len() <= 10_000 { "" } else { "– | " };
    println!(
        "| {title} | {} | {brute}{} |{extra}",
        timings[0].pairs,
        cells.join(" | ")
    );
}

fn main() {
    println!("Median ms of a full query (and the ratio to the best method) on this machine, 2 threads.\n");
    println!("| set | pairs | {} | contact ratio |", METHODS.join(" | "));
    println!("|---|---|{}---|", "---|".repeat(METHODS.len()));
    for omega in [1.0, 10.0, 100.0] {
        for n in [1_000, 10_000, 100_000, 1_000_000] {
            let spheres = sets::uniform::<3>(n, omega, 0.3, 1);
            table(&format!("3D uniform ω = {omega}, N = {n}"), &spheres, "");
        }
    }
    for (name, d_min, d_max, paper) in [
        ("A", 0.05, 0.1, "87 %"),
        ("B", 0.02, 0.05, "19 %"),
        ("C", 0.005, 0.02, "2 %"),
    ] {
        let spheres = sets::leszczynski(100_000, d_min, d_max, 1);
        let mut pairs = Vec::new();
        let mut m = sets::method::<2>("linked-cell").unwrap();
        m.update(&spheres, 0.0).unwrap();
        m.pairs(&mut pairs);
        let ratio = format!(
            " {:.1} % (paper {paper}) |",
            100.0 * pairs.len() as f64 / spheres.len() as f64
        );
        table(&format!("2D Leszczynski {name}, N = 1e5"), &spheres, &ratio);
    }
    for n in [100_000, 1_000_000] {
        let spheres = sets::one_big_among_many::<3>(n, 0.3, 1);
        table(&format!("3D one big among many, N = {n}"), &spheres, "");
    }
}
