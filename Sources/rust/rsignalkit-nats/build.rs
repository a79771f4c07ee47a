//! Finds libsignalkit-nats and libnats and links them, by the rules of
//! rsignalkit-sys's build script (rsignalkit's guide, "Building against the
//! library"):
//!
//! 1. `SIGNALKIT_NATS_LIB_DIR`, when set, names the folder that holds
//!    `libsignalkit-nats.so` (a staged or installed `lib`); libnats is then
//!    found in `NATS_LIB_DIR` when it is set (the folder of `libnats.so`),
//!    else through `pkg-config libnats`.
//! 2. Otherwise `pkg-config signalkit-nats`, whose `Requires` bring
//!    libsignalkit and libnats. It honours `PKG_CONFIG_PATH`,
//!    `PKG_CONFIG_LIBDIR` and `PKG_CONFIG_SYSROOT_DIR`; `PKG_CONFIG` names
//!    another pkg-config.
//!
//! The bridge must be of this crate's major and minor version, at least its
//! patch version (the versioning policy of rsignalkit-sys). libsignalkit
//! itself is rsignalkit-sys's to find and check.
//!
//! Under docs.rs (`DOCS_RS` set) it finds and links nothing.
//!
//! std only; written for Rust 1.63.
use std::env;
use std::path::Path;
use std::process::{exit, Command};

/// Stops the build with `message`.
fn fail(message: &str) -> ! {
    eprintln!("error: rsignalkit-nats cannot link libsignalkit-nats: {}", message);
    exit(1);
}

/// (major, minor, patch) of "X.Y.Z".
fn parse_version(text: &str) -> Option<(u32, u32, u32)> {
    let mut parts = text.trim().split('.').map(|part| part.parse::<u32>().ok());
    match (parts.next(), parts.next(), parts.next(), parts.next()) {
        (Some(Some(major)), Some(Some(minor)), Some(Some(patch)), None) => Some((major, minor, patch)),
        _ => None,
    }
}

/// Fails unless a bridge of version `found` (from `source`) serves this
/// crate.
fn check_version(found: &str, source: &str) {
    let wanted = env::var("CARGO_PKG_VERSION").unwrap_or_default();
    let (crate_version, library) = match (parse_version(&wanted), parse_version(found)) {
        (Some(c), Some(l)) => (c, l),
        _ => fail(&format!("{} gives the version {:?}, which is not MAJOR.MINOR.PATCH", source, found)),
    };
    let (major, minor, _) = crate_version;
    let serves = library.0 == major && library >= crate_version && (major > 0 || library.1 == minor);
    if !serves {
        let range = if major == 0 { format!("{}.{}.x", major, minor) } else { format!("{}.x", major) };
        fail(&format!(
            "{} is libsignalkit-nats {}, and rsignalkit-nats {} needs {} or a later {}: install such a version, \
             or point PKG_CONFIG_PATH or SIGNALKIT_NATS_LIB_DIR at one",
            source, found, wanted, wanted, range
        ));
    }
}

/// Runs pkg-config with `args`: its standard output, or what it said.
fn pkg_config(args: &[&str]) -> Result<String, String> {
    let program = env::var("PKG_CONFIG").unwrap_or_else(|_| String::from("pkg-config"));
    let output = match Command::new(&program).args(args).output() {
        Ok(output) => output,
        Err(error) => fail(&format!(
            "cannot run {:?} ({}): install pkg-config (Debian: pkgconf), name another with PKG_CONFIG, or set \
             SIGNALKIT_NATS_LIB_DIR to the folder that holds libsignalkit-nats.so",
            program, error
        )),
    };
    if output.status.success() {
        Ok(String::from_utf8_lossy(&output.stdout).into_owned())
    } else {
        Err(String::from_utf8_lossy(&output.stderr).split_whitespace().collect::<Vec<_>>().join(" "))
    }
}

/// Passes pkg-config's `--libs` flags on to cargo.
fn link_flags(flags: &str) {
    for flag in flags.split_whitespace() {
        if let Some(dir) = flag.strip_prefix("-L") {
            println!("cargo:rustc-link-search=native={}", dir);
        } else if let Some(lib) = flag.strip_prefix("-l") {
            println!("cargo:rustc-link-lib=dylib={}", lib);
        }
    }
}

fn search_text() -> String {
    env::var("PKG_CONFIG_PATH")
        .map(|p| format!("PKG_CONFIG_PATH={}", p))
        .unwrap_or_else(|_| String::from("PKG_CONFIG_PATH is unset: the system's folders only"))
}

fn from_lib_dir(dir: &str) {
    let folder = Path::new(dir);
    let library = folder.join("libsignalkit-nats.so");
    if !library.exists() {
        fail(&format!(
            "SIGNALKIT_NATS_LIB_DIR is {:?}, which holds no libsignalkit-nats.so: name the folder that holds it \
             (the lib folder of an installed or staged bridge: make nats-stage), or unset it to ask pkg-config",
            dir
        ));
    }
    let version = std::fs::canonicalize(&library)
        .ok()
        .and_then(|real| real.file_name().and_then(|name| name.to_str()).map(String::from))
        .and_then(|name| name.strip_prefix("libsignalkit-nats.so.").map(String::from));
    match version {
        Some(version) => check_version(&version, &format!("SIGNALKIT_NATS_LIB_DIR's {:?}", library)),
        None => fail(&format!("{:?} does not lead to a libsignalkit-nats.so.X.Y.Z, which says its version", library)),
    }
    println!("cargo:rustc-link-search=native={}", dir);
    println!("cargo:rustc-link-lib=dylib=signalkit-nats");
    match env::var("NATS_LIB_DIR") {
        Ok(nats) => {
            if !Path::new(&nats).join("libnats.so").exists() {
                fail(&format!("NATS_LIB_DIR is {:?}, which holds no libnats.so", nats));
            }
            println!("cargo:rustc-link-search=native={}", nats);
            println!("cargo:rustc-link-lib=dylib=nats");
        }
        Err(_) => {
            let flags = pkg_config(&["--libs", "libnats"]).unwrap_or_else(|problem| {
                fail(&format!(
                    "pkg-config finds no libnats.pc ({}; it said: {}): install Debian's libnats-dev, or set \
                     NATS_LIB_DIR to the folder that holds libnats.so",
                    search_text(),
                    problem
                ))
            });
            link_flags(&flags);
        }
    }
}

fn from_pkg_config() {
    let version = pkg_config(&["--modversion", "signalkit-nats"]).unwrap_or_else(|problem| {
        fail(&format!(
            "pkg-config finds no signalkit-nats.pc, or not what it requires ({}; it said: {}). Install \
             libsignalkit-nats (make nats-install, beside libsignalkit) and Debian's libnats-dev, point \
             PKG_CONFIG_PATH at the folder of signalkit-nats.pc, or set SIGNALKIT_NATS_LIB_DIR to the folder \
             that holds libsignalkit-nats.so",
            search_text(),
            problem
        ))
    });
    check_version(version.trim(), &format!("the signalkit-nats.pc that pkg-config finds ({})", search_text()));
    let flags = pkg_config(&["--libs", "signalkit-nats"])
        .unwrap_or_else(|problem| fail(&format!("pkg-config --libs signalkit-nats failed ({}): {}", search_text(), problem)));
    link_flags(&flags);
}

fn main() {
    let read = [
        "SIGNALKIT_NATS_LIB_DIR",
        "NATS_LIB_DIR",
        "PKG_CONFIG",
        "PKG_CONFIG_PATH",
        "PKG_CONFIG_LIBDIR",
        "PKG_CONFIG_SYSROOT_DIR",
        "DOCS_RS",
    ];
    for var in read {
        println!("cargo:rerun-if-env-changed={}", var);
    }
    println!("cargo:rerun-if-changed=build.rs");
    if env::var_os("DOCS_RS").is_some() {
        return;
    }
    match env::var("SIGNALKIT_NATS_LIB_DIR") {
        Ok(dir) => from_lib_dir(&dir),
        Err(_) => from_pkg_config(),
    }
}
