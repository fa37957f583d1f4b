//! The guide's walkthrough in Rust (`examples/walkthrough.rs`) prints the text the guide shows,
//! `examples/walkthrough.out`, which the C and Python walkthroughs print too
//! (`capi/tests/c_examples.rs`, `python/tests/test_tumble.py`).

#[allow(dead_code)]
#[path = "../examples/walkthrough.rs"]
mod example;

#[test]
fn the_rust_walkthrough_prints_the_guides_output() {
    let mut out = Vec::new();
    example::walkthrough(&mut out).unwrap();
    let expected = std::fs::read_to_string("examples/walkthrough.out").unwrap();
    assert_eq!(String::from_utf8(out).unwrap(), expected);
}
