//! `include/tumble.h` is what cbindgen makes of the crate now: the committed header and the code
//! cannot drift apart. `TUMBLE_BLESS=1` rewrites it instead of failing.

use std::path::Path;

#[test]
fn the_committed_header_is_the_generated_one() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let config = cbindgen::Config::from_file(dir.join("cbindgen.toml")).unwrap();
    let mut generated = Vec::new();
    cbindgen::Builder::new()
        .with_crate(dir)
        .with_config(config)
        .generate()
        .expect("cbindgen reads the crate")
        .write(&mut generated);
    let header = dir.join("../include/tumble.h");
    if std::env::var_os("TUMBLE_BLESS").is_some() {
        std::fs::write(&header, &generated).unwrap();
        return;
    }
    let committed = std::fs::read(&header).unwrap_or_default();
    assert!(
        committed == generated,
        "include/tumble.h differs from what capi/src declares: run `TUMBLE_BLESS=1 cargo test --release -p tumble-capi --test header` and commit it"
    );
}
