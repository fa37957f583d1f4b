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

/// A file written line by line as `<name>.part` and renamed to its name by
/// [`finish`](Self::finish): a reader never takes a growing file for a finished one, and a run that
/// fails midway still renames what it wrote. Lines are buffered and written out whole (one
/// `write` of complete lines), so that even a process killed outright leaves a `.part` file
/// that ends on a complete line.
pub struct PartFile {
    file: File,
    buffer: Vec<u8>,
    part: std::path::PathBuf,
    target: std::path::PathBuf,
}

/// Bytes of lines kept before they are written out.
const PART_BUFFER: usize = 1 << 16;

impl PartFile {
    /// Creates `<path>.part`.
    pub fn create(path: &Path) -> Result<PartFile, OutputError> {
        let mut name = path.file_name().unwrap_or_default().to_os_string();
        name.push(".part");
        let part = path.with_file_name(name);
        let file = File::create(&part).map_err(|cause| OutputError::Io {
            path: part.clone(),
            cause,
        })?;
        Ok(PartFile {
            file,
            buffer: Vec::with_capacity(PART_BUFFER),
            part,
            target: path.to_path_buf(),
        })
    }

    /// Appends `text` and a newline.
    pub fn line(&mut self, text: &str) -> Result<(), OutputError> {
        self.buffer.extend_from_slice(text.as_bytes());
        self.buffer.push(b'\n');
        if self.buffer.len() >= PART_BUFFER {
            self.flush()?;
        }
        Ok(())
    }

    /// Writes out what is buffered (the `.part` file then holds every line so far).
    pub fn flush(&mut self) -> Result<(), OutputError> {
        let result = self.file.write_all(&self.buffer);
        self.buffer.clear();
        result.map_err(|cause| OutputError::Io {
            path: self.part.clone(),
            cause,
        })
    }

    /// Flushes and renames the file to its name.
    pub fn finish(mut self) -> Result<(), OutputError> {
        self.flush()?;
        std::fs::rename(&self.part, &self.target).map_err(|cause| OutputError::Io {
            path: self.target.clone(),
            cause,
        })
    }
}
