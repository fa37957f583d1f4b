//! The sections of a `.msh` file (versions 2.2 ASCII and 4.1 ASCII or binary) into raw tables.
//!
//! Format reference: the Gmsh manual, "MSH file format" (version 4.1) and "Legacy formats"
//! (version 2.2). Sections other than those read here are skipped.

use super::cursor::{truncate, Cursor, Mark};
use crate::mesh::MeshError;
use std::collections::HashMap;

/// What a `.msh` file holds, before it becomes a mesh.
#[derive(Default)]
pub(super) struct Raw {
    pub node_tags: Vec<u64>,
    /// Where each node tag is.
    pub node_marks: Vec<Mark>,
    pub coords: Vec<[f64; 3]>,
    pub elements: Vec<RawElement>,
    /// Physical tags of each element group (a v4 entity, or one v2 physical tag).
    pub groups: Vec<Vec<i32>>,
    /// `$PhysicalNames`: dimension, tag, name, where it was declared.
    pub names: Vec<(u8, i32, String, Mark)>,
}

/// A line, triangle or tetrahedron of the file.
pub(super) struct RawElement {
    pub tag: u64,
    pub dim: u8,
    pub group: u32,
    pub nodes: [u64; 4],
    pub mark: Mark,
}

#[derive(Clone, Copy, PartialEq)]
enum Version {
    V2,
    V4,
}

/// Dimension and node count of the element types read; `None` for the others.
fn element_shape(kind: i64) -> Option<(u8, usize)> {
    match kind {
        15 => Some((0, 1)),
        1 => Some((1, 2)),
        2 => Some((2, 3)),
        4 => Some((3, 4)),
        _ => None,
    }
}

fn unsupported(kind: i64) -> String {
    let name = match kind {
        3 => "4-node quadrangle",
        5 => "8-node hexahedron",
        6 => "6-node prism",
        7 => "5-node pyramid",
        8 => "3-node second-order line",
        9 => "6-node second-order triangle",
        11 => "10-node second-order tetrahedron",
        _ => "unknown type",
    };
    format!(
        "element type {kind} ({name}) is not supported: tumble reads first-order meshes of 2-node lines, \
         3-node triangles and 4-node tetrahedra (and ignores points)"
    )
}

pub(super) fn parse(cur: &mut Cursor) -> Result<Raw, MeshError> {
    let mut raw = Raw::default();
    let mut format: Option<(Version, bool)> = None;
    let mut entities: HashMap<(u8, i32), u32> = HashMap::new();
    let mut v2_groups: HashMap<i32, u32> = HashMap::new();
    let mut seen_nodes = false;
    let mut seen_elements = false;
    while !cur.at_end() {
        let header = cur.line_text("a section header such as $Nodes")?;
        let Some(name) = header.strip_prefix('$') else {
            return Err(cur.error(format!(
                "expected a section header such as $Nodes, found '{}'",
                truncate(header)
            )));
        };
        if name != "MeshFormat" && format.is_none() {
            return Err(cur.error(format!(
                "expected $MeshFormat first, found '{}' (is this a Gmsh .msh file?)",
                truncate(header)
            )));
        }
        match name {
            "MeshFormat" => format = Some(mesh_format(cur)?),
            "PhysicalNames" => physical_names(cur, &mut raw)?,
            "Entities" => {
                let (version, binary) = format.expect("checked above");
                if version == Version::V4 {
                    cur.binary = binary;
                    entities = entities_v4(cur, &mut raw)?;
                }
                cur.expect_end(name)?;
                continue;
            }
            "Nodes" => {
                let (version, binary) = format.expect("checked above");
                cur.binary = binary;
                match version {
                    Version::V2 => nodes_v2(cur, &mut raw)?,
                    Version::V4 => nodes_v4(cur, &mut raw)?,
                }
                seen_nodes = true;
            }
            "Elements" => {
                let (version, binary) = format.expect("checked above");
                cur.binary = binary;
                match version {
                    Version::V2 => elements_v2(cur, &mut raw, &mut v2_groups)?,
                    Version::V4 => elements_v4(cur, &mut raw, &entities)?,
                }
                seen_elements = true;
            }
            _ => {
                cur.skip_section(name)?;
                continue;
            }
        }
        cur.expect_end(name)?;
    }
    if format.is_none() {
        return Err(cur.error("the file is empty: expected $MeshFormat (is this a Gmsh .msh file?)"));
    }
    if !seen_nodes || !seen_elements {
        return Err(cur.error(format!(
            "the file ends without {} section",
            if seen_nodes { "an $Elements" } else { "a $Nodes" }
        )));
    }
    Ok(raw)
}

fn mesh_format(cur: &mut Cursor) -> Result<(Version, bool), MeshError> {
    let version: String = cur.token("the format version (2.2 or 4.1)")?.to_string();
    let version = match version.as_str() {
        "2.2" => Version::V2,
        "4.1" => Version::V4,
        v => {
            return Err(cur.error(format!(
                "format version {} is not supported: tumble reads versions 4.1 and 2.2 (in Gmsh: Mesh.MshFileVersion = 4.1)",
                truncate(v)
            )))
        }
    };
    let file_type: u32 = cur.parse("the file type (0 for ASCII, 1 for binary)")?;
    let data_size: u32 = cur.parse("the data size (8)")?;
    if data_size != 8 {
        return Err(cur.error(format!("data size {data_size} is not supported (expected 8)")));
    }
    let binary = match (file_type, version) {
        (0, _) => false,
        (1, Version::V4) => true,
        (1, Version::V2) => {
            return Err(cur.error("binary version 2.2 is not supported: save as 4.1 (binary or ASCII) or 2.2 ASCII"))
        }
        (t, _) => return Err(cur.error(format!("file type {t} is not 0 (ASCII) or 1 (binary)"))),
    };
    if binary {
        cur.skip_newline();
        cur.binary = true;
        let one = cur.bin_i32("the endianness check (the integer 1)")?;
        if one != 1 {
            return Err(
                cur.error("the binary data is big-endian or corrupted: expected the integer 1 in little-endian order")
            );
        }
    }
    Ok((version, binary))
}

fn physical_names(cur: &mut Cursor, raw: &mut Raw) -> Result<(), MeshError> {
    let n: u64 = cur.parse("the number of physical names")?;
    let n = cur.check_count(n, 6, "physical names")?;
    for _ in 0..n {
        let mark = cur.mark();
        let dim: u8 = cur.parse("a physical dimension (0 to 3)")?;
        let tag: i32 = cur.parse("a physical tag")?;
        let rest = cur.line_text("a quoted physical name")?;
        let name = rest
            .strip_prefix('"')
            .and_then(|r| r.strip_suffix('"'))
            .ok_or_else(|| cur.error_at(mark, format!("expected a quoted name, found '{}'", truncate(rest))))?;
        if dim > 3 {
            return Err(cur.error_at(mark, format!("physical dimension {dim} is not 0 to 3")));
        }
        raw.names.push((dim, tag, name.to_string(), mark));
    }
    Ok(())
}

/// A count: `size_t` in binary files, text otherwise.
fn count(cur: &mut Cursor, what: &str) -> Result<u64, MeshError> {
    if cur.binary {
        cur.bin_u64(what)
    } else {
        cur.parse(what)
    }
}
fn int(cur: &mut Cursor, what: &str) -> Result<i32, MeshError> {
    if cur.binary {
        cur.bin_i32(what)
    } else {
        cur.parse(what)
    }
}
fn real(cur: &mut Cursor, what: &str) -> Result<f64, MeshError> {
    if cur.binary {
        cur.bin_f64(what)
    } else {
        cur.parse(what)
    }
}

/// `$Entities` (v4): the physical tags of every point, curve, surface and volume.
fn entities_v4(cur: &mut Cursor, raw: &mut Raw) -> Result<HashMap<(u8, i32), u32>, MeshError> {
    if cur.binary {
        cur.skip_newline();
    }
    let mut numbers = [0usize; 4];
    for (dim, n) in numbers.iter_mut().enumerate() {
        let c = count(cur, &format!("the number of entities of dimension {dim}"))?;
        *n = cur.check_count(c, 8, "entities")?;
    }
    let mut map = HashMap::new();
    for (dim, &n) in numbers.iter().enumerate() {
        for _ in 0..n {
            let tag = int(cur, "an entity tag")?;
            let n_box = if dim == 0 { 3 } else { 6 };
            for _ in 0..n_box {
                real(cur, "an entity's bounding-box coordinate")?;
            }
            let n_phys = count(cur, "the number of physical tags")?;
            let n_phys = cur.check_count(n_phys, 1, "physical tags")?;
            let mut phys = Vec::with_capacity(n_phys);
            for _ in 0..n_phys {
                phys.push(int(cur, "a physical tag")?);
            }
            if dim > 0 {
                let n_bound = count(cur, "the number of bounding entities")?;
                let n_bound = cur.check_count(n_bound, 1, "bounding entities")?;
                for _ in 0..n_bound {
                    int(cur, "a bounding entity tag")?;
                }
            }
            map.insert((dim as u8, tag), raw.groups.len() as u32);
            raw.groups.push(phys);
        }
    }
    Ok(map)
}

fn nodes_v2(cur: &mut Cursor, raw: &mut Raw) -> Result<(), MeshError> {
    let n: u64 = cur.parse("the number of nodes")?;
    let n = cur.check_count(n, 8, "nodes")?;
    raw.node_tags.reserve(n);
    raw.node_marks.reserve(n);
    raw.coords.reserve(n);
    for _ in 0..n {
        raw.node_marks.push(cur.mark());
        raw.node_tags.push(cur.parse("a node tag")?);
        let mut x = [0.0; 3];
        for xi in &mut x {
            *xi = cur.parse("a node coordinate")?;
        }
        raw.coords.push(x);
    }
    Ok(())
}

/// The header of a v4 `$Nodes` or `$Elements` section: the numbers of blocks and of items (checked
/// against the bytes left), then the smallest and largest tags (not used).
fn block_header(cur: &mut Cursor, item: &str) -> Result<(usize, usize), MeshError> {
    if cur.binary {
        cur.skip_newline();
    }
    let blocks = count(cur, &format!("the number of {item} blocks"))?;
    let blocks = cur.check_count(blocks, 4, &format!("{item} blocks"))?;
    let total = count(cur, &format!("the number of {item}s"))?;
    let total = cur.check_count(total, 8, &format!("{item}s"))?;
    count(cur, &format!("the smallest {item} tag"))?;
    count(cur, &format!("the largest {item} tag"))?;
    Ok((blocks, total))
}

fn nodes_v4(cur: &mut Cursor, raw: &mut Raw) -> Result<(), MeshError> {
    let (blocks, total) = block_header(cur, "node")?;
    raw.node_tags.reserve(total);
    raw.node_marks.reserve(total);
    raw.coords.reserve(total);
    for _ in 0..blocks {
        let dim = int(cur, "a node block's entity dimension")?;
        int(cur, "a node block's entity tag")?;
        let parametric = int(cur, "a node block's parametric flag (0 or 1)")?;
        let n = count(cur, "the number of nodes in a block")?;
        let n = cur.check_count(n, 8, "nodes")?;
        let n_params = if parametric == 1 { dim.clamp(0, 3) as usize } else { 0 };
        let first = raw.node_tags.len();
        for _ in 0..n {
            raw.node_tags.push(count(cur, "a node tag")?);
        }
        for j in 0..n {
            let mark = cur.mark();
            raw.node_marks.push(mark);
            let mut x = [0.0; 3];
            for xi in &mut x {
                *xi = real(cur, "a node coordinate")?;
            }
            for _ in 0..n_params {
                real(cur, "a parametric node coordinate")?;
            }
            if !cur.binary && !cur.at_line_end() {
                return Err(cur.error_at(
                    mark,
                    format!(
                        "expected a line of {} node coordinates (node {} of the block's {n}); was a line deleted or added?",
                        3 + n_params,
                        j + 1
                    ),
                ));
            }
            raw.coords.push(x);
        }
        debug_assert_eq!(raw.coords.len() - first, n);
    }
    if raw.node_tags.len() != total {
        return Err(cur.error(format!(
            "the node blocks hold {} nodes, the header says {total}",
            raw.node_tags.len()
        )));
    }
    Ok(())
}

fn elements_v2(cur: &mut Cursor, raw: &mut Raw, groups: &mut HashMap<i32, u32>) -> Result<(), MeshError> {
    let n: u64 = cur.parse("the number of elements")?;
    let n = cur.check_count(n, 8, "elements")?;
    raw.elements.reserve(n);
    for j in 0..n {
        let mark = cur.mark();
        if cur.peek() == Some(b'$') {
            return Err(cur.error_at(
                mark,
                format!(
                    "the section ends after {j} of the {n} elements its header declares; was an element line deleted?"
                ),
            ));
        }
        let tag: u64 = cur.parse("an element tag")?;
        let kind: i64 = cur.parse("an element type")?;
        let (dim, n_nodes) = element_shape(kind).ok_or_else(|| cur.error_at(mark, unsupported(kind)))?;
        let n_tags: u64 = cur.parse("the number of element tags")?;
        let n_tags = cur.check_count(n_tags, 2, "element tags")?;
        let mut physical = 0;
        for t in 0..n_tags {
            let value: i32 = cur.parse("an element tag value")?;
            if t == 0 {
                physical = value;
            }
        }
        let mut nodes = [0u64; 4];
        for node in nodes.iter_mut().take(n_nodes) {
            *node = cur.parse("an element's node tag")?;
        }
        if dim == 0 {
            continue;
        }
        let next = raw.groups.len() as u32;
        let group = *groups.entry(physical).or_insert(next);
        if group == next {
            raw.groups.push(if physical == 0 { vec![] } else { vec![physical] });
        }
        raw.elements.push(RawElement {
            tag,
            dim,
            group,
            nodes,
            mark,
        });
    }
    Ok(())
}

fn elements_v4(cur: &mut Cursor, raw: &mut Raw, entities: &HashMap<(u8, i32), u32>) -> Result<(), MeshError> {
    let (blocks, total) = block_header(cur, "element")?;
    raw.elements.reserve(total);
    let mut read = 0usize;
    let mut previous: Option<(Mark, usize)> = None;
    for _ in 0..blocks {
        let block_mark = cur.mark();
        // In text, a count that does not match the block's lines (a line deleted or added by hand)
        // shows first as a malformed block header or element line: say which block to look at.
        let recount = |cur: &Cursor| match previous {
            Some((mark, n)) => format!(
                "; the previous block ({}) declares {n} elements: was an element line deleted or added there?",
                cur.locate(mark)
            ),
            None => String::new(),
        };
        let entity_dim = int(cur, "an element block's entity dimension")?;
        if !(0..=3).contains(&entity_dim) {
            return Err(cur.error_at(
                block_mark,
                format!(
                    "expected an element block header (entity dimension 0 to 3, entity tag, element type, \
                     number of elements), found entity dimension {entity_dim}{}",
                    recount(cur)
                ),
            ));
        }
        let entity_tag = int(cur, "an element block's entity tag")?;
        let kind = int(cur, "an element type")? as i64;
        let (dim, n_nodes) = element_shape(kind)
            .ok_or_else(|| cur.error_at(block_mark, format!("{}{}", unsupported(kind), recount(cur))))?;
        let n = count(cur, "the number of elements in a block")?;
        let n = cur.check_count(n, 8, "elements")?;
        if !cur.binary && !cur.at_line_end() {
            return Err(cur.error_at(
                block_mark,
                format!(
                    "an element block header holds 4 numbers (entity dimension, entity tag, element type, \
                     number of elements), this line more{}",
                    recount(cur)
                ),
            ));
        }
        if entity_dim != dim as i32 {
            return Err(cur.error_at(
                block_mark,
                format!(
                    "an element block of entity dimension {entity_dim} holds elements of dimension {dim}{}",
                    recount(cur)
                ),
            ));
        }
        let group = match entities.get(&(dim, entity_tag)) {
            Some(&g) => g,
            None if dim == 0 => 0,
            None => {
                return Err(cur.error_at(
                    block_mark,
                    format!("the element block refers to entity ({dim}, {entity_tag}), which $Entities does not list"),
                ))
            }
        };
        let wrong_line = |cur: &Cursor, mark: Mark, j: usize| {
            cur.error_at(
                mark,
                format!(
                    "expected an element line of {} numbers (its tag and {n_nodes} node tags): element {} of \
                     the {n} that the block at {} declares (type {kind}); was a line deleted or added?",
                    n_nodes + 1,
                    j + 1,
                    cur.locate(block_mark)
                ),
            )
        };
        for j in 0..n {
            let mark = cur.mark();
            if !cur.binary && cur.peek() == Some(b'$') {
                return Err(cur.error_at(
                    mark,
                    format!(
                        "the section ends after {j} of the {n} elements that the block at {} declares; \
                         was an element line deleted?",
                        cur.locate(block_mark)
                    ),
                ));
            }
            let tag = count(cur, "an element tag")?;
            let mut nodes = [0u64; 4];
            for node in nodes.iter_mut().take(n_nodes) {
                if !cur.binary && cur.at_line_end() {
                    return Err(wrong_line(cur, mark, j));
                }
                *node = count(cur, "an element's node tag")?;
            }
            if !cur.binary && !cur.at_line_end() {
                return Err(wrong_line(cur, mark, j));
            }
            read += 1;
            if dim > 0 {
                raw.elements.push(RawElement {
                    tag,
                    dim,
                    group,
                    nodes,
                    mark,
                });
            }
        }
        previous = Some((block_mark, n));
    }
    if read != total {
        return Err(cur.error(format!(
            "the element blocks hold {read} elements, the header says {total}"
        )));
    }
    Ok(())
}
