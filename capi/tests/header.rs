//! `include/tumble.h` is what cbindgen makes of the crate now, its comments read as C comments
//! (rustdoc's links `[`name`]` become `name`): the committed header and the code cannot drift
//! apart. `TUMBLE_BLESS=1` rewrites it instead of failing.

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
    let generated = without_links(&String::from_utf8(generated).unwrap()).into_bytes();
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

/// `text` with each rustdoc link `[`x`]` written `x` in backquotes, as a C reader expects.
fn without_links(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find("[`") {
        let link = rest[open + 2..]
            .find("`]")
            .filter(|&close| !rest[open + 2..open + 2 + close].contains(['\n', '`']));
        match link {
            Some(close) => {
                out.push_str(&rest[..open]);
                out.push('`');
                out.push_str(&rest[open + 2..open + 2 + close]);
                out.push('`');
                rest = &rest[open + 2 + close + 2..];
            }
            None => {
                out.push_str(&rest[..open + 2]);
                rest = &rest[open + 2..];
            }
        }
    }
    out.push_str(rest);
    out
}

#[test]
fn rustdoc_links_become_code_spans() {
    assert_eq!(
        without_links("made by [`tumble_mesh_new`], freed by [`tumble_mesh_free`]; a[`0`"),
        "made by `tumble_mesh_new`, freed by `tumble_mesh_free`; a[`0`"
    );
}
