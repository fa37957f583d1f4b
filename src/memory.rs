//! The memory a run may take, checked before each large allocation (a lattice, a mesh, a
//! factorisation) so that a request beyond it is an error saying how much it would need, not an
//! abort of the process halfway through allocating.
//!
//! The budget is `TUMBLE_MEMORY_LIMIT` when it is set (bytes, or a number with a suffix `K`, `M`,
//! `G` or `T`, powers of 1024: `8G`) less what the process holds already, otherwise the memory the system has available now
//! (`MemAvailable` in `/proc/meminfo`, so what earlier allocations took is already counted),
//! otherwise unlimited (a system without `/proc`). Estimates are measured peaks per unit (bytes
//! per lattice node, per factor entry), so they are close to, not bounds of, the real use.

use std::fmt;

/// The environment variable that caps the memory a run may take.
pub const LIMIT_VARIABLE: &str = "TUMBLE_MEMORY_LIMIT";

/// A request beyond the budget, or a budget that cannot be read.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum MemoryError {
    /// What was asked, how much it would need, and how much there is.
    #[error("{what} would need about {need} of memory, more than the {available} available ({origin})",
        need = Bytes(*need), available = Bytes(*available))]
    TooLarge {
        /// The structure, with its size (`"a lattice of 1001 × 1001 nodes"`).
        what: String,
        /// Estimated bytes.
        need: f64,
        /// Bytes the budget allows.
        available: f64,
        /// Where the budget comes from.
        origin: String,
    },
    /// `TUMBLE_MEMORY_LIMIT` is not a size.
    #[error("{LIMIT_VARIABLE} = '{0}' is not a size: expected bytes or a number with K, M, G or T (8G, say)")]
    BadLimit(String),
}

/// The budget in bytes and where it comes from, or `None` when nothing limits it.
pub fn budget() -> Result<Option<(f64, String)>, MemoryError> {
    if let Ok(text) = std::env::var(LIMIT_VARIABLE) {
        let limit = parse_size(&text).ok_or(MemoryError::BadLimit(text.clone()))?;
        let used = resident().unwrap_or(0.0);
        return Ok(Some((
            (limit - used).max(0.0),
            format!("{LIMIT_VARIABLE} = {} less the {} in use", text.trim(), Bytes(used)),
        )));
    }
    Ok(available_on_system().map(|b| (b, "MemAvailable in /proc/meminfo".to_string())))
}

/// Checks that `need` bytes fit the [`budget`]; `what` (called only on failure) names the
/// structure and its size.
pub fn reserve(need: f64, what: impl FnOnce() -> String) -> Result<(), MemoryError> {
    match budget()? {
        Some((available, source)) if need > available || need.is_nan() => Err(MemoryError::TooLarge {
            what: what(),
            need,
            available,
            origin: source,
        }),
        _ => Ok(()),
    }
}

/// `12`, `512K`, `8G`, `1.5T` (powers of 1024; a trailing `B` or `iB` is allowed).
fn parse_size(text: &str) -> Option<f64> {
    let t = text.trim().trim_end_matches("iB").trim_end_matches(['B', 'b']);
    let (number, scale) = match t.char_indices().last()? {
        (k, c) if c.is_ascii_alphabetic() => {
            let power = "KMGT".find(c.to_ascii_uppercase())? as i32 + 1;
            (&t[..k], 1024f64.powi(power))
        }
        _ => (t, 1.0),
    };
    let x: f64 = number.trim().parse().ok()?;
    (x.is_finite() && x >= 0.0).then_some(x * scale)
}

/// The process's resident memory (`/proc/self/statm`, pages of 4 KB), in bytes.
fn resident() -> Option<f64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: f64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * 4096.0)
}

/// The process's peak resident memory (`VmHWM` in `/proc/self/status`), in bytes.
pub fn peak_resident() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024.0)
}

/// `MemAvailable` from `/proc/meminfo`, in bytes.
fn available_on_system() -> Option<f64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024.0)
}

/// A byte count printed with a binary prefix: `1.5 GB` (1024-based, as `free` and `top` show).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bytes(pub f64);

impl fmt::Display for Bytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const UNITS: [&str; 7] = ["bytes", "KB", "MB", "GB", "TB", "PB", "EB"];
        let mut x = self.0;
        let mut unit = 0;
        while x >= 1024.0 && unit + 1 < UNITS.len() {
            x /= 1024.0;
            unit += 1;
        }
        match unit {
            0 => write!(f, "{x:.0} {}", UNITS[0]),
            _ if x >= 1e5 => write!(f, "{x:.1e} {}", UNITS[unit]),
            _ => write!(f, "{x:.1} {}", UNITS[unit]),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_with_binary_suffixes() {
        assert_eq!(parse_size("4096"), Some(4096.0));
        assert_eq!(parse_size("8G"), Some(8.0 * 1024f64.powi(3)));
        assert_eq!(parse_size("1.5 TiB"), Some(1.5 * 1024f64.powi(4)));
        assert_eq!(parse_size("512kb"), Some(512.0 * 1024.0));
        assert_eq!(parse_size("lots"), None);
        assert_eq!(parse_size("-1G"), None);
        assert_eq!(parse_size("8Q"), None);
    }

    #[test]
    fn bytes_print_with_a_prefix() {
        assert_eq!(Bytes(512.0).to_string(), "512 bytes");
        assert_eq!(Bytes(1536.0).to_string(), "1.5 KB");
        assert_eq!(Bytes(13.4e9).to_string(), "12.5 GB");
        assert_eq!(Bytes(1e30).to_string(), "8.7e11 EB");
    }
}
