//! Writing a file whole: temporary file, then rename.

use super::OutputError;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

/// Writes `path` by calling `write` on a buffered temporary file next to it (`.<name>.tmp`) and
/// renaming it over `path` once everything is written and flushed. On error the temporary file is
/// removed and `path` is left as it was.
pub fn write_atomically<F>(path: &Path, write: F) -> Result<(), OutputError>
where
    F: FnOnce(&mut BufWriter<File>) -> Result<(), OutputError>,
{
    let io_err = |cause| OutputError::Io {
        path: path.to_path_buf(),
        cause,
    };
    let name = path.file_name().ok_or_else(|| OutputError::Encode {
        path: path.to_path_buf(),
        message: "not a file name".into(),
    })?;
    let tmp = path.with_file_name(format!(".{}.tmp", name.to_string_lossy()));
    let result = (|| {
        let mut out = BufWriter::new(File::create(&tmp).map_err(io_err)?);
        write(&mut out)?;
        out.flush().map_err(io_err)?;
        drop(out);
        std::fs::rename(&tmp, path).map_err(io_err)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// Writes `value` as pretty-printed JSON (with a final newline) to `path`, whole.
pub fn write_json<T: serde::Serialize>(path: &Path, value: &T) -> Result<(), OutputError> {
    write_atomically(path, |w| {
        serde_json::to_writer_pretty(&mut *w, value).map_err(|e| OutputError::Encode {
            path: path.to_path_buf(),
            message: e.to_string(),
        })?;
        writeln!(w).map_err(|cause| OutputError::Io {
            path: path.to_path_buf(),
            cause,
        })
    })
}
