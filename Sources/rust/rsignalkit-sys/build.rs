//! Finds libsignalkit: the directory named by SIGNALKIT_LIB_DIR (a staged
//! or installed lib folder), else `pkg-config signalkit` (which honours
//! PKG_CONFIG_PATH and PKG_CONFIG_SYSROOT_DIR, as the C tests use it).
//! std only: no build dependency.
use std::env;
use std::process::Command;

fn main() {
    for var in ["SIGNALKIT_LIB_DIR", "PKG_CONFIG_PATH", "PKG_CONFIG_SYSROOT_DIR", "PKG_CONFIG_LIBDIR"] {
        println!("cargo:rerun-if-env-changed={}", var);
    }
    println!("cargo:rerun-if-changed=build.rs");
    let ffi = env::var_os("CARGO_FEATURE_FFI").is_some();
    if let Some(dir) = env::var_os("SIGNALKIT_LIB_DIR") {
        let dir = dir.to_string_lossy().into_owned();
        if !std::path::Path::new(&dir).join("libsignalkit.so").exists() {
            panic!(
                "SIGNALKIT_LIB_DIR is {:?}, which holds no libsignalkit.so: name the folder of the staged or \
                 installed library (`make stage` puts it in .build-c/stage/usr/lib)",
                dir
            );
        }
        println!("cargo:rustc-link-search=native={}", dir);
        println!("cargo:rustc-link-lib=dylib=signalkit");
        if ffi {
            println!("cargo:rustc-link-lib=dylib=signalkit-ffi");
        }
        return;
    }
    let mut packages = vec!["signalkit"];
    if ffi {
        packages.push("signalkit-ffi");
    }
    let output = Command::new("pkg-config").arg("--libs").args(&packages).output();
    let output = match output {
        Ok(output) => output,
        Err(error) => panic!(
            "cannot run pkg-config ({}): install it, or set SIGNALKIT_LIB_DIR to the folder holding libsignalkit.so",
            error
        ),
    };
    if !output.status.success() {
        panic!(
            "pkg-config --libs {} failed: {}Install libsignalkit (make install), point PKG_CONFIG_PATH at its \
             .pc file, or set SIGNALKIT_LIB_DIR to the folder holding libsignalkit.so",
            packages.join(" "),
            String::from_utf8_lossy(&output.stderr)
        );
    }
    let flags = String::from_utf8_lossy(&output.stdout).into_owned();
    for flag in flags.split_whitespace() {
        if let Some(dir) = flag.strip_prefix("-L") {
            println!("cargo:rustc-link-search=native={}", dir);
        } else if let Some(lib) = flag.strip_prefix("-l") {
            println!("cargo:rustc-link-lib=dylib={}", lib);
        }
    }
}
