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

    /// Continues the file `path` (or its `.part`, from a run that did not finish) from its first
    /// `bytes` bytes, which an earlier run wrote: what follows them (rows of steps a restarted run
    /// will compute again) is cut off, and lines are appended after them as `<path>.part`. An
    /// error if neither file exists or holds fewer bytes.
    pub fn resume(path: &Path, bytes: u64) -> Result<PartFile, OutputError> {
        let mut name = path.file_name().unwrap_or_default().to_os_string();
        name.push(".part");
        let part = path.with_file_name(name);
        let io = |path: &Path| {
            let path = path.to_path_buf();
            move |cause| OutputError::Io { path, cause }
        };
        if !part.exists() {
            std::fs::rename(path, &part).map_err(io(path))?;
        }
        let file = std::fs::OpenOptions::new().write(true).open(&part).map_err(io(&part))?;
        let length = file.metadata().map_err(io(&part))?.len();
        if length < bytes {
            return Err(OutputError::Refused {
                path: part,
                message: format!(
                    "holds {length} bytes, fewer than the {bytes} the checkpoint was written after: it was changed since"
                ),
            });
        }
        file.set_len(bytes).map_err(io(&part))?;
        let mut file = file;
        std::io::Seek::seek(&mut file, std::io::SeekFrom::End(0)).map_err(io(&part))?;
        // The target, if any, is an older copy: the `.part` file is the one continued.
        let _ = std::fs::remove_file(path);
        Ok(PartFile {
            file,
            buffer: Vec::with_capacity(PART_BUFFER),
            part,
            target: path.to_path_buf(),
        })
    }

    /// Bytes written out so far (after a [`flush`](Self::flush): all of them).
    pub fn written(&mut self) -> Result<u64, OutputError> {
        std::io::Seek::stream_position(&mut self.file).map_err(|cause| OutputError::Io {
            path: self.part.clone(),
            cause,
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
