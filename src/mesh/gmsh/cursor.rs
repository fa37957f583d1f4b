//! A reading position in a Gmsh file, for its text and its binary parts, whose errors say where.
//!
//! Positions are byte offsets ([`Mark`]); the line number an error names is counted from the start
//! of the file only when the error is made, so that reading stays linear in the file's size.

use crate::mesh::{Location, MeshError};
use std::path::Path;
use std::str::FromStr;

/// A place in the file: a byte offset, and whether it lies in a binary section (then errors name
/// the byte) or in text (then they name the line).
#[derive(Debug, Clone, Copy)]
pub(super) struct Mark {
    offset: usize,
    binary: bool,
}

impl Mark {
    /// The line (1-based) of a text position or the byte offset of a binary one: `O(offset)`, for
    /// error messages only.
    pub fn locate(self, data: &[u8]) -> Location {
        if self.binary {
            Location::Byte(self.offset)
        } else {
            let end = self.offset.min(data.len());
            Location::Line(1 + data[..end].iter().filter(|&&b| b == b'\n').count())
        }
    }
}

pub(super) struct Cursor<'a> {
    data: &'a [u8],
    pos: usize,
    path: &'a Path,
    /// Whether errors are located by byte offset (binary sections) rather than by line.
    pub binary: bool,
}

impl<'a> Cursor<'a> {
    pub fn new(data: &'a [u8], path: &'a Path) -> Self {
        Cursor {
            data,
            pos: 0,
            path,
            binary: false,
        }
    }

    /// An error at the current position.
    pub fn error(&self, message: impl Into<String>) -> MeshError {
        self.error_at(self.here(), message)
    }

    pub fn error_at(&self, mark: Mark, message: impl Into<String>) -> MeshError {
        MeshError::Parse {
            path: self.path.to_path_buf(),
            location: mark.locate(self.data),
            message: message.into(),
        }
    }

    /// The place of what comes next: the next token (whitespace skipped) in text, the next byte in
    /// binary sections.
    pub fn mark(&mut self) -> Mark {
        if !self.binary {
            self.skip_whitespace();
        }
        self.here()
    }

    /// Where `mark` is, as errors name it.
    pub fn locate(&self, mark: Mark) -> Location {
        mark.locate(self.data)
    }

    /// The next byte.
    pub fn peek(&self) -> Option<u8> {
        self.data.get(self.pos).copied()
    }

    /// Whether only spaces are left on the current line (in text).
    pub fn at_line_end(&mut self) -> bool {
        while matches!(self.data.get(self.pos), Some(b' ' | b'\t' | b'\r')) {
            self.pos += 1;
        }
        matches!(self.data.get(self.pos), None | Some(b'\n'))
    }

    fn here(&self) -> Mark {
        Mark {
            offset: self.pos,
            binary: self.binary,
        }
    }

    pub fn at_end(&mut self) -> bool {
        self.skip_whitespace();
        self.pos >= self.data.len()
    }

    pub fn remaining(&self) -> usize {
        self.data.len().saturating_sub(self.pos)
    }

    fn skip_whitespace(&mut self) {
        while self.pos < self.data.len() && self.data[self.pos].is_ascii_whitespace() {
            self.pos += 1;
        }
    }

    /// The next non-empty line, trimmed.
    pub fn line_text(&mut self, what: &str) -> Result<&'a str, MeshError> {
        self.skip_whitespace();
        if self.pos >= self.data.len() {
            return Err(self.error(format!("the file ends where {what} was expected")));
        }
        let start = self.pos;
        while self.pos < self.data.len() && self.data[self.pos] != b'\n' {
            self.pos += 1;
        }
        let text = std::str::from_utf8(&self.data[start..self.pos])
            .map_err(|_| self.error(format!("expected {what}, found bytes that are not text")))?;
        Ok(text.trim())
    }

    /// The next whitespace-separated token.
    pub fn token(&mut self, what: &str) -> Result<&'a str, MeshError> {
        self.skip_whitespace();
        let start = self.pos;
        while self.pos < self.data.len() && !self.data[self.pos].is_ascii_whitespace() {
            self.pos += 1;
        }
        if start == self.pos {
            return Err(self.error(format!("the file ends where {what} was expected")));
        }
        std::str::from_utf8(&self.data[start..self.pos])
            .map_err(|_| self.error(format!("expected {what}, found bytes that are not text")))
    }

    /// The next token parsed as `T`.
    pub fn parse<T: FromStr>(&mut self, what: &str) -> Result<T, MeshError> {
        let token = self.token(what)?;
        token
            .parse()
            .map_err(|_| self.error(format!("expected {what}, found '{}'", truncate(token))))
    }

    /// A count read from the file, checked against the bytes left (each item needs at least
    /// `min_bytes`), so that a corrupted count cannot ask for a huge allocation.
    pub fn check_count(&self, count: u64, min_bytes: usize, what: &str) -> Result<usize, MeshError> {
        let max = (self.remaining() / min_bytes.max(1)) as u64;
        if count > max {
            return Err(self.error(format!(
                "{count} {what} cannot fit in the {} bytes left in the file",
                self.remaining()
            )));
        }
        Ok(count as usize)
    }

    /// Skips to the line after `$End<name>`.
    pub fn skip_section(&mut self, name: &str) -> Result<(), MeshError> {
        let end = format!("$End{name}");
        let rest = &self.data[self.pos..];
        match rest.windows(end.len()).position(|w| w == end.as_bytes()) {
            Some(i) => {
                self.pos += i + end.len();
                Ok(())
            }
            None => Err(self.error(format!("section ${name} has no {end}"))),
        }
    }

    /// Expects the line `$End<name>`.
    pub fn expect_end(&mut self, name: &str) -> Result<(), MeshError> {
        self.binary = false;
        let line = self.line_text(&format!("$End{name}"))?;
        if line != format!("$End{name}") {
            return Err(self.error(format!("expected $End{name}, found '{}'", truncate(line))));
        }
        Ok(())
    }

    /// Skips the single newline that ends a text line before binary data.
    pub fn skip_newline(&mut self) {
        if self.data.get(self.pos) == Some(&b'\r') {
            self.pos += 1;
        }
        if self.data.get(self.pos) == Some(&b'\n') {
            self.pos += 1;
        }
    }

    fn bytes<const N: usize>(&mut self, what: &str) -> Result<[u8; N], MeshError> {
        let end = self.pos.checked_add(N).filter(|&e| e <= self.data.len());
        match end {
            Some(end) => {
                let out = self.data[self.pos..end].try_into().expect("slice of length N");
                self.pos = end;
                Ok(out)
            }
            None => Err(self.error(format!("the file ends where {what} was expected"))),
        }
    }

    pub fn bin_i32(&mut self, what: &str) -> Result<i32, MeshError> {
        Ok(i32::from_le_bytes(self.bytes::<4>(what)?))
    }
    pub fn bin_u64(&mut self, what: &str) -> Result<u64, MeshError> {
        Ok(u64::from_le_bytes(self.bytes::<8>(what)?))
    }
    pub fn bin_f64(&mut self, what: &str) -> Result<f64, MeshError> {
        Ok(f64::from_le_bytes(self.bytes::<8>(what)?))
    }
}

/// A token cut to a printable length for error messages.
pub(super) fn truncate(s: &str) -> String {
    if s.chars().count() > 40 {
        format!("{}…", s.chars().take(40).collect::<String>())
    } else {
        s.to_string()
    }
}
