//! Finds libsignalkit and links it (with the feature `ffi`,
//! libsignalkit-ffi too), by the rules of rsignalkit's guide, "Building
//! against the library":
//!
//! 1. `SIGNALKIT_LIB_DIR`, when set, names the folder that holds
//!    `libsignalkit.so` (a staged or unpacked `lib`); pkg-config is not
//!    asked.
//! 2. Otherwise `pkg-config signalkit` (`signalkit-ffi` with `ffi`), run
//!    here by hand: no crate is reachable to do it, and the crate depends
//!    on nothing. It honours `PKG_CONFIG_PATH`, `PKG_CONFIG_LIBDIR` and
//!    `PKG_CONFIG_SYSROOT_DIR`; `PKG_CONFIG` names another program.
//!
//! With pkg-config, libsignalkit.so must also be where its flags or the
//! linker's own folders lead (a staged install's signalkit.pc without
//! `PKG_CONFIG_SYSROOT_DIR` names `/usr/lib`).
//!
//! Either way the library must be of this crate's major version and at
//! least of its version, and in 0.x of its minor version too, since a 0.x
//! minor version may change the API (SignalKit's versioning policy,
//! docs/maintainers/releasing.md of its source). When it finds no library,
//! or another version, the build stops with a message that says what was
//! asked, what was found and what to install or set.
//!
//! Under docs.rs (`DOCS_RS` set), which builds the documentation alone on
//! a machine without libsignalkit, it finds and links nothing: rustdoc
//! needs no library, and the build goes on (the usual `-sys` convention).
//!
//! No rpath: cargo gives a build script's link arguments
//! (`cargo:rustc-link-arg`) only to its own package's targets, never to the
//! program of a crate that depends on this one, and rustc's `-l link-arg=`,
//! which would reach it, is unstable. A program linked against a library
//! outside the loader's folders finds it as the guide says (an rpath from
//! the program's own build, or `LD_LIBRARY_PATH`).
//!
//! std only; written for Rust 1.63.
use std::env;
use std::path::{Path, PathBuf};
use std::process::{exit, Command};

/// Stops the build with `message`, which cargo shows under the script's
/// standard error.
fn fail(message: &str) -> ! {
    eprintln!("error: rsignalkit-sys cannot link libsignalkit: {}", message);
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

/// Fails unless a library of version `found` (from `source`) serves this
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
            "{} is libsignalkit {}, and rsignalkit-sys {} needs {} or a later {}: install such a version, or point \
             PKG_CONFIG_PATH or SIGNALKIT_LIB_DIR at one",
            source, found, wanted, wanted, range
        ));
    }
}

/// The version of the library that `dir`/libsignalkit.so is: the name
/// its links lead to, libsignalkit.so.X.Y.Z.
fn version_in(dir: &Path) -> Option<String> {
    let real: PathBuf = std::fs::canonicalize(dir.join("libsignalkit.so")).ok()?;
    let name = real.file_name()?.to_str()?;
    name.strip_prefix("libsignalkit.so.").map(String::from)
}

fn from_lib_dir(dir: &str, ffi: bool) {
    let folder = Path::new(dir);
    let mut names = vec!["libsignalkit.so"];
    if ffi {
        names.push("libsignalkit-ffi.so");
    }
    for name in &names {
        if !folder.join(name).exists() {
            fail(&format!(
                "SIGNALKIT_LIB_DIR is {:?}, which holds no {}: name the folder that holds it (the lib folder of \
                 an installed, staged or unpacked libsignalkit), or unset it to ask pkg-config",
                dir, name
            ));
        }
    }
    match version_in(folder) {
        Some(version) => check_version(&version, &format!("SIGNALKIT_LIB_DIR's {:?}", folder.join("libsignalkit.so"))),
        None => fail(&format!(
            "{:?} does not lead to a libsignalkit.so.X.Y.Z, which says its version",
            folder.join("libsignalkit.so")
        )),
    }
    println!("cargo:rustc-link-search=native={}", dir);
    println!("cargo:rustc-link-lib=dylib=signalkit");
    if ffi {
        println!("cargo:rustc-link-lib=dylib=signalkit-ffi");
    }
}

/// Runs pkg-config with `args`; its standard output, or the failure's
/// message.
fn pkg_config(program: &str, args: &[&str]) -> Result<String, String> {
    let output = match Command::new(program).args(args).output() {
        Ok(output) => output,
        Err(error) => fail(&format!(
            "cannot run {:?} ({}): install pkg-config (Debian: pkgconf), name another with PKG_CONFIG, or set \
             SIGNALKIT_LIB_DIR to the folder that holds libsignalkit.so",
            program, error
        )),
    };
    if output.status.success() {
        Ok(String::from_utf8_lossy(&output.stdout).into_owned())
    } else {
        Err(String::from_utf8_lossy(&output.stderr).split_whitespace().collect::<Vec<_>>().join(" "))
    }
}

fn from_pkg_config(ffi: bool) {
    let program = env::var("PKG_CONFIG").unwrap_or_else(|_| String::from("pkg-config"));
    let mut packages = vec!["signalkit"];
    if ffi {
        packages.push("signalkit-ffi");
    }
    let search = env::var("PKG_CONFIG_PATH").map(|p| format!("PKG_CONFIG_PATH={}", p)).unwrap_or_else(|_| {
        String::from("PKG_CONFIG_PATH is unset: the system's folders only")
    });
    let version = pkg_config(&program, &["--modversion", "signalkit"]).unwrap_or_else(|problem| {
        fail(&format!(
            "{} finds no signalkit.pc ({}; it said: {}). Install libsignalkit (SignalKit's libsignalkit-dev \
             package, or `make install` from its source), point PKG_CONFIG_PATH at the folder of its signalkit.pc \
             (an unpacked binary tarball's lib/pkgconfig), or set SIGNALKIT_LIB_DIR to the folder that holds \
             libsignalkit.so",
            program, search, problem
        ))
    });
    check_version(version.trim(), &format!("the signalkit.pc that {} finds ({})", program, search));
    let mut args = vec!["--libs"];
    args.extend(packages.iter().copied());
    let flags = pkg_config(&program, &args).unwrap_or_else(|problem| {
        fail(&format!("{} --libs {} failed ({}): {}", program, packages.join(" "), search, problem))
    });
    let mut dirs: Vec<String> = Vec::new();
    let mut libs: Vec<String> = Vec::new();
    for flag in flags.split_whitespace() {
        if let Some(dir) = flag.strip_prefix("-L") {
            dirs.push(String::from(dir));
        } else if let Some(lib) = flag.strip_prefix("-l") {
            libs.push(String::from(lib));
        }
    }
    check_found(&program, &search, &dirs);
    for dir in &dirs {
        println!("cargo:rustc-link-search=native={}", dir);
    }
    for lib in &libs {
        println!("cargo:rustc-link-lib=dylib={}", lib);
    }
}

/// Fails unless libsignalkit.so is where the flags of pkg-config (`dirs`,
/// its -L folders) or the linker's own folders would find it: a
/// signalkit.pc of a staged install (DESTDIR) says `/usr/lib`, which
/// pkg-config leaves out of its flags as a system folder, and without
/// PKG_CONFIG_SYSROOT_DIR the link failed later, with the linker's "unable
/// to find library -lsignalkit" and no word of what to set.
fn check_found(program: &str, search: &str, dirs: &[String]) {
    let mut folders: Vec<PathBuf> = dirs.iter().map(PathBuf::from).collect();
    for system in ["/usr/local/lib", "/usr/lib", "/lib", "/usr/lib64", "/lib64"] {
        folders.push(PathBuf::from(system));
    }
    // Debian's multiarch folders (/usr/lib/x86_64-linux-gnu, ...).
    for base in ["/usr/lib", "/lib", "/usr/local/lib"] {
        if let Ok(entries) = std::fs::read_dir(base) {
            for entry in entries.flatten() {
                if entry.file_name().to_string_lossy().contains("-linux-") {
                    folders.push(entry.path());
                }
            }
        }
    }
    if folders.iter().any(|folder| folder.join("libsignalkit.so").exists()) {
        return;
    }
    let libdir = pkg_config(program, &["--variable=libdir", "signalkit"]).unwrap_or_default();
    fail(&format!(
        "the signalkit.pc that {} finds ({}) puts libsignalkit.so in {:?}, which holds none, and its flags name no \
         other folder that does. For a staged install (make install DESTDIR=ROOT), set PKG_CONFIG_SYSROOT_DIR=ROOT \
         as well; or set SIGNALKIT_LIB_DIR to the folder that holds libsignalkit.so",
        program,
        search,
        libdir.trim()
    ));
}

fn main() {
    let read = [
        "SIGNALKIT_LIB_DIR",
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
    let ffi = env::var_os("CARGO_FEATURE_FFI").is_some();
    match env::var("SIGNALKIT_LIB_DIR") {
        Ok(dir) => from_lib_dir(&dir, ffi),
        Err(_) => from_pkg_config(ffi),
    }
}
