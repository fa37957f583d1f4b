//! The layering of ARCHITECTURE.md, checked on the source: every `crate::<module>` a library
//! module names is on a layer below its own (a doc link is not an import), and the runs of case
//! files (`src/case/{run,dry,fluid,immersed}.rs`) name only `sim`, `io` and `math` of the library
//! (the case builder hands them what they step). The layers are read from ARCHITECTURE.md's
//! drawing, so the map and the check cannot drift apart.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The layer of each module (0 the lowest), read from the fenced block under ARCHITECTURE.md's
/// `## Layers`: one line per layer from the top, its modules' names in a first column (the
/// binary's line, `cli (binary)`, gives the column's width) and a description after it.
fn layers(root: &Path) -> HashMap<String, usize> {
    let text = std::fs::read_to_string(root.join("ARCHITECTURE.md")).unwrap();
    let section = text
        .split("## Layers")
        .nth(1)
        .expect("ARCHITECTURE.md has a `## Layers` section");
    let block = section
        .split("```")
        .nth(1)
        .expect("the layers are drawn in a fenced block");
    let rows: Vec<&str> = block.lines().filter(|l| !l.trim().is_empty()).collect();
    let first = rows[0];
    let gap = first.find("  ").expect("the first column ends at a gap");
    let column = gap + first[gap..].find(|c: char| c != ' ').unwrap();
    let mut rank = HashMap::new();
    for (k, row) in rows.iter().enumerate() {
        let names = row.get(..column).unwrap_or(row);
        for name in names.split_whitespace() {
            if name.chars().all(|c| c.is_ascii_lowercase() || c == '_') {
                rank.insert(name.to_string(), rows.len() - 1 - k);
            }
        }
    }
    rank
}

/// Every `.rs` file under `dir`.
fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The modules of the crate that `text` names as `crate::<module>` in its code (not in comments).
fn named(text: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let code = line.split("//").next().unwrap_or("");
        let mut rest = code;
        while let Some(at) = rest.find("crate::") {
            let after = &rest[at + "crate::".len()..];
            let name: String = after
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            // `crate::{a, b}` names several.
            if name.is_empty() && after.starts_with('{') {
                let inside = after[1..].split('}').next().unwrap_or("");
                for part in inside.split(',') {
                    let part: String = part
                        .trim()
                        .chars()
                        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                        .collect();
                    if !part.is_empty() {
                        found.push((n + 1, part));
                    }
                }
            } else if !name.is_empty() {
                found.push((n + 1, name));
            }
            rest = after;
        }
    }
    found
}

#[test]
fn no_module_imports_a_layer_above_its_own() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let rank = layers(root);
    for m in ["math", "mesh", "fmm", "body", "contact", "fluid", "sim", "case", "cli"] {
        assert!(rank.contains_key(m), "ARCHITECTURE.md's layers lack `{m}`: {rank:?}");
    }
    let src = root.join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    let mut climbs = Vec::new();
    for file in &files {
        let relative = file.strip_prefix(&src).unwrap();
        let module = relative
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy()
            .trim_end_matches(".rs")
            .to_string();
        let Some(&own) = rank.get(&module) else {
            assert!(
                ["lib", "main"].contains(&module.as_str()),
                "src/{} is in no layer of ARCHITECTURE.md",
                relative.display()
            );
            continue;
        };
        let text = std::fs::read_to_string(file).unwrap();
        for (line, name) in named(&text) {
            if name == module || name == "self" || name == "super" {
                continue;
            }
            match rank.get(&name) {
                Some(&r) if r < own => {}
                Some(_) => climbs.push(format!("src/{}:{line}: {module} uses {name}", relative.display())),
                // Items of the crate's root (`crate::SimplexMesh`) re-export a module's.
                None => {}
            }
        }
    }
    assert!(climbs.is_empty(), "imports that climb a layer:\n{}", climbs.join("\n"));
}

#[test]
fn the_runs_of_case_files_see_only_sim_io_and_math() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut seen = Vec::new();
    for run in ["run", "dry", "fluid", "immersed"] {
        let path = root.join("src/case").join(format!("{run}.rs"));
        let text = std::fs::read_to_string(&path).unwrap();
        for (line, name) in named(&text) {
            if !["sim", "io", "math"].contains(&name.as_str()) {
                seen.push(format!("src/case/{run}.rs:{line}: uses {name}"));
            }
        }
    }
    assert!(
        seen.is_empty(),
        "the runs step what the case builder (case::build) made, through sim and io:\n{}",
        seen.join("\n")
    );
}
