//! Every broad-phase method returns exactly the brute-force pair set, on random sets in 2D and 3D
//! (uniform and clustered, size ratios 1 to 100, one huge sphere among small ones, coincident
//! centres), in the same order whatever the number of threads.

use proptest::prelude::*;
use tumble::broad::{
    box_wall_distance, near_walls, Auto, BoundingSphere, BroadError, BroadPhase, BruteForce, HierarchicalGrid, KdTree,
    LinkedCell, SortAndSweep, SortedDistance,
};
use tumble::math::Point;

fn methods<const D: usize>() -> Vec<Box<dyn BroadPhase<D>>> {
    vec![
        Box::new(LinkedCell::<D>::default()),
        Box::new(SortAndSweep::<D>::default()),
        Box::new(SortedDistance::<D>::default()),
        Box::new(HierarchicalGrid::<D>::default()),
        Box::new(KdTree::<D>::default()),
        Box::new(Auto::<D>::default()),
    ]
}

fn sorted_pairs<const D: usize>(
    method: &mut dyn BroadPhase<D>,
    spheres: &[BoundingSphere<D>],
    margin: f64,
) -> Vec<(u32, u32)> {
    method.update(spheres, margin).unwrap();
    let mut out = vec![(7, 7)];
    method.pairs(&mut out);
    let n = out.len();
    out.sort_unstable();
    out.dedup();
    assert_eq!(out.len(), n, "{} reported a pair twice", method.name());
    assert!(out.iter().all(|&(i, j)| i < j));
    out
}

fn check<const D: usize>(spheres: &[BoundingSphere<D>], margin: f64) -> Result<(), TestCaseError> {
    let expected = sorted_pairs(&mut BruteForce::<D>::default(), spheres, margin);
    for mut m in methods::<D>() {
        let got = sorted_pairs(m.as_mut(), spheres, margin);
        prop_assert_eq!(&got, &expected, "method {}", m.name());
    }
    Ok(())
}

/// A set of spheres from raw numbers in [0, 1): `kind` 0 uniform, 1 clustered (four tight
/// clusters), 2 one huge sphere among small ones, 3 with coincident centres.
fn build<const D: usize>(raw: &[(Vec<f64>, f64)], omega: f64, kind: u8) -> Vec<BoundingSphere<D>> {
    let n = raw.len().max(1) as f64;
    let r_min = 0.5 / n.powf(1.0 / D as f64);
    raw.iter()
        .enumerate()
        .map(|(i, (x, r))| {
            let mut centre = Point::<D>::from_fn(|a, _| x[a] * 10.0);
            if kind == 1 {
                let cluster = Point::<D>::from_fn(|a, _| if (i >> a) & 1 == 1 { 8.0 } else { 1.0 });
                centre = cluster + (centre - Point::<D>::repeat(5.0)) * 0.05;
            }
            if kind == 3 && i % 3 == 1 {
                centre = Point::<D>::from_fn(|a, _| raw[0].0[a] * 10.0);
            }
            let mut radius = r_min * (1.0 + (omega - 1.0) * r);
            if kind == 2 && i == 0 {
                radius = 3.0;
            }
            BoundingSphere { centre, radius }
        })
        .collect()
}

fn raw_set(dim: usize) -> impl Strategy<Value = Vec<(Vec<f64>, f64)>> {
    prop::collection::vec((prop::collection::vec(0.0f64..1.0, dim), 0.0f64..1.0), 2..250)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(120))]

    #[test]
    fn methods_agree_with_brute_force_2d(raw in raw_set(2), omega in 1.0f64..100.0, kind in 0u8..4, margin in 0.0f64..0.2) {
        check::<2>(&build::<2>(&raw, omega, kind), margin)?;
    }

    #[test]
    fn methods_agree_with_brute_force_3d(raw in raw_set(3), omega in 1.0f64..100.0, kind in 0u8..4, margin in 0.0f64..0.2) {
        check::<3>(&build::<3>(&raw, omega, kind), margin)?;
    }
}

type Pairs = Vec<(u32, u32)>;

/// The pairs `m` finds on one thread and on two (each after its own update).
fn one_and_two_threads<const D: usize>(
    m: &mut dyn BroadPhase<D>,
    spheres: &[BoundingSphere<D>],
    margin: f64,
) -> (Pairs, Pairs) {
    let mut found = [Vec::new(), Vec::new()];
    for (threads, out) in [1, 2].into_iter().zip(found.iter_mut()) {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| {
            m.update(spheres, margin).unwrap();
            m.pairs(out);
        });
    }
    let [serial, parallel] = found;
    (serial, parallel)
}

/// Larger sets, with many contacts, and the same sequence of pairs with one thread or two.
#[test]
fn large_sets_and_thread_independence() {
    let mut state = 42u64;
    let mut rnd = || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 11) as f64 / (1u64 << 53) as f64
    };
    let spheres: Vec<BoundingSphere<3>> = (0..20_000)
        .map(|_| BoundingSphere {
            centre: Point::<3>::new(rnd(), rnd(), rnd()) * 20.0,
            radius: 0.1 + 0.9 * rnd().powi(3),
        })
        .collect();
    let expected = sorted_pairs(&mut BruteForce::<3>::default(), &spheres, 0.05);
    assert!(expected.len() > 10_000, "{} pairs", expected.len());
    for mut m in methods::<3>() {
        let (mut serial, parallel) = one_and_two_threads(m.as_mut(), &spheres, 0.05);
        if m.name() != "auto" {
            assert_eq!(serial, parallel, "{}", m.name());
        }
        serial.sort_unstable();
        assert_eq!(serial, expected, "{}", m.name());
    }
}

/// Sets larger than one chunk of the cell lists' parallel sort (65 536 spheres), rebuilt into the
/// same buffers as the set shrinks and moves: the grids agree with the k-d tree (itself checked
/// against brute force above), in the same order with one thread or two.
#[test]
fn grids_rebuilt_on_large_changing_sets() {
    use tumble::broad::sets;
    let mut grids: Vec<Box<dyn BroadPhase<3>>> = vec![
        Box::new(LinkedCell::<3>::default()),
        Box::new(HierarchicalGrid::<3>::default()),
    ];
    for (n, omega, shift) in [(200_000, 3.0, 0.0), (120_000, 1.0, 0.7), (150_000, 20.0, -3.0)] {
        let spheres: Vec<BoundingSphere<3>> = sets::uniform::<3>(n, omega, 0.3, n as u64)
            .into_iter()
            .map(|s| BoundingSphere {
                centre: s.centre.add_scalar(shift),
                ..s
            })
            .collect();
        let mut expected = Vec::new();
        let mut kd = KdTree::<3>::default();
        kd.update(&spheres, 0.1).unwrap();
        kd.pairs(&mut expected);
        expected.sort_unstable();
        assert!(expected.len() > n / 2, "{} pairs", expected.len());
        for m in grids.iter_mut() {
            let (mut serial, parallel) = one_and_two_threads(m.as_mut(), &spheres, 0.1);
            assert_eq!(serial, parallel, "{} with n = {n}", m.name());
            serial.sort_unstable();
            assert_eq!(serial, expected, "{} with n = {n}", m.name());
        }
    }
}

/// Sort and sweep re-sorts incrementally between updates; the pairs stay exact as bodies move.
#[test]
fn sweep_stays_exact_as_bodies_move() {
    let mut spheres: Vec<BoundingSphere<2>> = (0..2000)
        .map(|i| BoundingSphere {
            centre: Point::<2>::new((i % 50) as f64 * 0.9, (i / 50) as f64 * 0.9),
            radius: 0.4,
        })
        .collect();
    let mut sweep = SortAndSweep::<2>::default();
    for step in 0..20 {
        for (i, s) in spheres.iter_mut().enumerate() {
            let phase = (i * 31 + step * 7) as f64;
            s.centre += Point::<2>::new(phase.sin(), phase.cos()) * 0.05;
        }
        let expected = sorted_pairs(&mut BruteForce::<2>::default(), &spheres, 0.01);
        assert_eq!(sorted_pairs(&mut sweep, &spheres, 0.01), expected, "step {step}");
    }
}

#[test]
fn auto_says_what_it_chose() {
    let spheres: Vec<BoundingSphere<2>> = (0..1000)
        .map(|i| BoundingSphere {
            centre: Point::<2>::new((i % 40) as f64, (i / 40) as f64),
            radius: 0.45,
        })
        .collect();
    let mut auto = Auto::<2>::default();
    assert_eq!(auto.chosen(), None);
    auto.update(&spheres, 0.0).unwrap();
    assert!(["linked-cell", "sweep", "hgrid"].contains(&auto.chosen().unwrap()));
}

#[test]
fn walls_and_bad_input() {
    let spheres = vec![
        BoundingSphere {
            centre: Point::<2>::new(0.5, 0.5),
            radius: 0.1,
        },
        BoundingSphere {
            centre: Point::<2>::new(0.15, 0.5),
            radius: 0.1,
        },
        BoundingSphere {
            centre: Point::<2>::new(0.5, 0.95),
            radius: 0.1,
        },
    ];
    let walls = box_wall_distance(Point::<2>::zeros(), Point::<2>::repeat(1.0));
    assert_eq!(near_walls(&spheres, 0.0, &walls), vec![2]);
    assert_eq!(near_walls(&spheres, 0.06, &walls), vec![1, 2]);
    for mut m in methods::<2>()
        .into_iter()
        .chain([Box::new(BruteForce::<2>::default()) as Box<dyn BroadPhase<2>>])
    {
        assert_eq!(m.update(&[], 0.0), Err(BroadError::TooFew(0)));
        assert_eq!(m.update(&spheres[..1], 0.0), Err(BroadError::TooFew(1)));
        let mut bad = spheres.clone();
        bad[1].radius = f64::NAN;
        assert!(
            matches!(m.update(&bad, 0.0), Err(BroadError::InvalidSphere { index: 1, .. })),
            "{}",
            m.name()
        );
        bad[1].radius = -1.0;
        let err = m.update(&bad, 0.0).unwrap_err().to_string();
        assert!(
            err.contains("sphere 1: radius -1 must be finite and non-negative"),
            "{err}"
        );
        bad[1].radius = 0.1;
        bad[2].centre.x = f64::INFINITY;
        assert!(matches!(
            m.update(&bad, 0.0),
            Err(BroadError::InvalidSphere { index: 2, .. })
        ));
        assert_eq!(m.update(&spheres, -0.1), Err(BroadError::Margin(-0.1)));
    }
}
