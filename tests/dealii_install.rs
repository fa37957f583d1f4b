//! `hosts/dealii/run.sh`'s install step as a fresh clone runs it: no `target/`, every package
//! missing, `apt-get` replaced by a stub that records its arguments (the real install pulls 2 GB
//! and needs root). The script must make its build directory before it writes apt's log there,
//! and a failed install must name a log that exists.
#![cfg(unix)]

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A fresh clone as far as the install step sees it: the script at its place, nothing else.
fn fresh_clone() -> tempfile::TempDir {
    let root = tempfile::tempdir().unwrap();
    let hosts = root.path().join("hosts/dealii");
    fs::create_dir_all(&hosts).unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("hosts/dealii/run.sh");
    fs::copy(script, hosts.join("run.sh")).unwrap();
    root
}

fn stub(dir: &Path, name: &str, body: &str) {
    let path = dir.join(name);
    fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).unwrap();
}

/// Runs the install step with `dpkg` saying every package is missing and `apt-get` answering
/// `install` with `install_rc`; returns the script's output and the calls apt-get received.
fn install(root: &Path, install_rc: i32) -> (Output, String) {
    let stubs = root.join("stubs");
    fs::create_dir_all(&stubs).unwrap();
    let calls = root.join("apt-calls");
    stub(&stubs, "dpkg", "exit 1");
    stub(&stubs, "sudo", "exec \"$@\"");
    stub(
        &stubs,
        "apt-get",
        &format!(
            "echo \"$*\" >> '{}'\necho \"the stub's output for: $*\"\n\
             [ \"$1\" = install ] && exit {install_rc}\nexit 0",
            calls.display()
        ),
    );
    let path = format!("{}:{}", stubs.display(), std::env::var("PATH").unwrap_or_default());
    let output = Command::new("bash")
        .arg(root.join("hosts/dealii/run.sh"))
        .env("PATH", path)
        .env("INSTALL_ONLY", "1")
        .env_remove("BUILD")
        .output()
        .unwrap();
    (output, fs::read_to_string(calls).unwrap_or_default())
}

fn apt_log(root: &Path) -> PathBuf {
    root.join("target/dealii/apt.log")
}

#[test]
fn a_fresh_clone_installs_the_missing_packages_and_keeps_apts_log() {
    let root = fresh_clone();
    let (output, calls) = install(root.path(), 0);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "run.sh failed: {stderr}");
    let calls: Vec<&str> = calls.lines().collect();
    assert_eq!(
        calls,
        [
            "update -qq",
            "install -y -qq libdeal.ii-dev cmake openmpi-bin pkg-config"
        ],
        "apt-get's calls"
    );
    let log = fs::read_to_string(apt_log(root.path())).unwrap();
    assert!(log.contains("the stub's output for: install"), "apt.log holds {log:?}");
}

#[test]
fn a_failed_install_names_a_log_that_exists() {
    let root = fresh_clone();
    let (output, _) = install(root.path(), 100);
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    let log = apt_log(root.path());
    assert!(
        stderr.contains(&format!("apt-get failed; its log: {}", log.display())),
        "stderr: {stderr}"
    );
    assert!(fs::read_to_string(&log)
        .unwrap()
        .contains("the stub's output for: install"));
}
