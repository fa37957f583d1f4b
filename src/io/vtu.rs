//! VTK XML unstructured grids (`.vtu`), written with vtkio: points, cells and any number of point
//! and cell fields, binary (base64) inline data.

use super::{write_atomically, OutputError};
use crate::math::{Point, Vector};
use crate::SimplexMesh;
use std::path::Path;
use vtkio::model::{
    Attribute, Attributes, ByteOrder, CellType, Cells, DataArray, DataSet, ElementType, IOBuffer, Piece,
    UnstructuredGridPiece, Version, VertexNumbers, Vtk,
};

/// A named field of point or cell values for a `.vtu` file.
#[derive(Debug, Clone)]
pub struct Field {
    name: String,
    components: u32,
    data: IOBuffer,
}

impl Field {
    /// One `f64` per point or cell.
    pub fn scalar(name: &str, values: &[f64]) -> Self {
        Field {
            name: name.into(),
            components: 1,
            data: IOBuffer::F64(values.to_vec()),
        }
    }
    /// One `i32` per point or cell (markers, indices).
    pub fn integer(name: &str, values: &[i32]) -> Self {
        Field {
            name: name.into(),
            components: 1,
            data: IOBuffer::I32(values.to_vec()),
        }
    }
    /// One vector per point or cell; 2D vectors get a zero third component, as ParaView expects.
    pub fn vector<const D: usize>(name: &str, values: &[Vector<D>]) -> Self {
        let mut data = Vec::with_capacity(3 * values.len());
        for v in values {
            data.extend((0..3).map(|i| if i < D { v[i] } else { 0.0 }));
        }
        Field {
            name: name.into(),
            components: 3,
            data: IOBuffer::F64(data),
        }
    }
    fn into_attribute(self) -> Attribute {
        let elem = if self.components == 3 {
            ElementType::Vectors
        } else {
            ElementType::Scalars {
                num_comp: self.components,
                lookup_table: None,
            }
        };
        Attribute::DataArray(DataArray {
            name: self.name,
            elem,
            data: self.data,
        })
    }
    fn len(&self) -> usize {
        self.data.len() / self.components as usize
    }
}

/// Writes `mesh` to the `.vtu` file `path` (whole, via a temporary file), with the given point
/// fields (one value per node) and cell fields (one value per cell). 2D points get z = 0.
pub fn write_mesh_vtu<const D: usize>(
    path: &Path,
    mesh: &SimplexMesh<D>,
    point_fields: Vec<Field>,
    cell_fields: Vec<Field>,
) -> Result<(), OutputError> {
    write_simplices_vtu(path, mesh.points(), mesh.cells(), D + 1, point_fields, cell_fields)
}

/// Writes simplices of `nodes_per_cell` nodes (2: segments, 3: triangles, 4: tetrahedra), listed
/// flat in `cells`, on `points`, to the `.vtu` file `path` (whole, via a temporary file).
pub fn write_simplices_vtu<const D: usize>(
    path: &Path,
    points: &[Point<D>],
    cells: &[u32],
    nodes_per_cell: usize,
    point_fields: Vec<Field>,
    cell_fields: Vec<Field>,
) -> Result<(), OutputError> {
    let encode_err = |message: String| OutputError::Encode {
        path: path.to_path_buf(),
        message,
    };
    let cell_type = match nodes_per_cell {
        2 => CellType::Line,
        3 => CellType::Triangle,
        4 => CellType::Tetra,
        n => return Err(encode_err(format!("no VTK simplex has {n} nodes"))),
    };
    let n_cells = cells.len() / nodes_per_cell;
    for (fields, n, what) in [(&point_fields, points.len(), "node"), (&cell_fields, n_cells, "cell")] {
        if let Some(f) = fields.iter().find(|f| f.len() != n) {
            return Err(encode_err(format!(
                "field '{}' has {} values, expected one per {what} ({n})",
                f.name,
                f.len()
            )));
        }
    }
    let mut coords = Vec::with_capacity(3 * points.len());
    for p in points {
        coords.extend((0..3).map(|i| if i < D { p[i] } else { 0.0 }));
    }
    let piece = UnstructuredGridPiece {
        points: IOBuffer::F64(coords),
        cells: Cells {
            cell_verts: VertexNumbers::XML {
                connectivity: cells.iter().map(|&v| v as u64).collect(),
                offsets: (1..=n_cells).map(|c| (c * nodes_per_cell) as u64).collect(),
            },
            types: vec![cell_type; n_cells],
        },
        data: Attributes {
            point: point_fields.into_iter().map(Field::into_attribute).collect(),
            cell: cell_fields.into_iter().map(Field::into_attribute).collect(),
        },
    };
    let vtk = Vtk {
        version: Version::new_xml(1, 0),
        title: String::new(),
        byte_order: ByteOrder::LittleEndian,
        file_path: None,
        data: DataSet::UnstructuredGrid {
            meta: None,
            pieces: vec![Piece::Inline(Box::new(piece))],
        },
    };
    write_atomically(path, |out| {
        vtk.write_xml(Whole(out)).map_err(|e| encode_err(e.to_string()))
    })
}

/// A writer whose `write` writes the whole buffer. vtkio 0.7.0-rc2 writes each XML piece with one
/// `write` call and ignores the count it returns; a base64 array of 2 GiB or more is then cut at
/// the 2 147 479 552 bytes Linux writes at once, silently (the file still ends in `</VTKFile>`).
struct Whole<W>(W);

impl<W: std::io::Write> std::io::Write for Whole<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.write_all(buf)?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::Whole;
    use std::io::Write;

    /// A sink that takes at most 7 bytes per call, like a pipe or a huge `write` on Linux.
    struct Trickle(Vec<u8>);

    impl Write for Trickle {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            let n = buf.len().min(7);
            self.0.extend_from_slice(&buf[..n]);
            Ok(n)
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn every_byte_of_a_single_write_arrives() {
        let text: Vec<u8> = (0..1000u32).map(|i| (i % 251) as u8).collect();
        let mut whole = Whole(Trickle(Vec::new()));
        assert_eq!(whole.write(&text).unwrap(), text.len());
        assert_eq!(whole.0 .0, text);
    }
}
