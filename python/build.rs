//! Links the extension so that its wheel installs on Linux systems as old
//! as glibc 2.28 (manylinux_2_28), whatever glibc and libstdc++ the build
//! machine has.
//!
//! - **libstdc++, statically.** LLVM and MLIR are linked statically
//!   (mlir-sys), and mlir-sys asks for `-lstdc++`, which would make the wheel
//!   require the build machine's libstdc++ (GLIBCXX_3.4.30 on Debian 12). A
//!   directory holding only GCC's `libstdc++.a`, searched before the
//!   compiler's own, makes that `-lstdc++` static; the cdylib's version
//!   script keeps its symbols private.
//! - **glibc symbol versions no newer than 2.28.** What links against a
//!   newer glibc binds to its newest symbol versions. `glibc/compat.c`
//!   replaces the few functions newer than 2.28 that Rust's standard library,
//!   LLVM and libstdc++ call (`ld --wrap`, listed in [`WRAPPED`]), and two
//!   stub libraries named as glibc 2.28's `libpthread.so.0` and `libdl.so.2`,
//!   found by the link's `-lpthread` and `-ldl` before the real ones, bind
//!   the functions that glibc 2.32 and 2.34 moved into libc ([`PTHREAD`],
//!   [`DL`]) to their old versions in those libraries, where glibc 2.28
//!   defines them and every later glibc still does.
//!
//! On x86-64 Linux with glibc only; `ZKDV_PORTABLE_LINK=0` links against the
//! build machine's libraries as they are. `scripts/test` checks the wheel's
//! tag, so a new symbol that needs handling here shows up there.

use std::{
    env, fs,
    path::{Path, PathBuf},
};

/// Functions (and one variable) that `glibc/compat.c` replaces.
const WRAPPED: &[&str] = &[
    "stat",
    "stat64",
    "lstat",
    "lstat64",
    "fstat",
    "fstat64",
    "exp",
    "log",
    "log2",
    "pow",
    "gettid",
    "mallinfo2",
    "arc4random",
    "__libc_single_threaded",
];

/// Functions of glibc 2.28's libpthread.so.0 (each with its version there)
/// that newer glibc versions define in libc.
const PTHREAD: &[(&str, &str)] = &[
    ("pthread_attr_getguardsize", "GLIBC_2.2.5"),
    ("pthread_attr_getstack", "GLIBC_2.2.5"),
    ("pthread_attr_setstacksize", "GLIBC_2.2.5"),
    ("pthread_create", "GLIBC_2.2.5"),
    ("pthread_detach", "GLIBC_2.2.5"),
    ("pthread_getattr_np", "GLIBC_2.2.5"),
    ("pthread_join", "GLIBC_2.2.5"),
    ("pthread_key_create", "GLIBC_2.2.5"),
    ("pthread_key_delete", "GLIBC_2.2.5"),
    ("pthread_once", "GLIBC_2.2.5"),
    ("pthread_rwlock_rdlock", "GLIBC_2.2.5"),
    ("pthread_rwlock_unlock", "GLIBC_2.2.5"),
    ("pthread_rwlock_wrlock", "GLIBC_2.2.5"),
    ("pthread_setname_np", "GLIBC_2.12"),
    ("pthread_setspecific", "GLIBC_2.2.5"),
    ("pthread_sigmask", "GLIBC_2.2.5"),
];

/// Functions of glibc 2.28's libdl.so.2 that glibc 2.34 defines in libc.
const DL: &[(&str, &str)] = &[
    ("dladdr", "GLIBC_2.2.5"),
    ("dlclose", "GLIBC_2.2.5"),
    ("dlerror", "GLIBC_2.2.5"),
    ("dlopen", "GLIBC_2.2.5"),
    ("dlsym", "GLIBC_2.2.5"),
];

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=glibc/compat.c");
    println!("cargo:rerun-if-env-changed=ZKDV_PORTABLE_LINK");
    let target = |key: &str| env::var(format!("CARGO_CFG_TARGET_{key}")).unwrap_or_default();
    if target("OS") != "linux" || target("ENV") != "gnu" || target("ARCH") != "x86_64" {
        return;
    }
    if env::var("ZKDV_PORTABLE_LINK").is_ok_and(|v| v == "0") {
        return;
    }
    let out = PathBuf::from(env::var("OUT_DIR").expect("OUT_DIR"));
    let libs = out.join("portable-libs");
    fs::create_dir_all(&libs).expect("create portable-libs");
    println!("cargo:rustc-link-search=native={}", libs.display());

    static_libstdcxx(&libs);

    for object in cc::Build::new()
        .file("glibc/compat.c")
        .warnings(true)
        .compile_intermediates()
    {
        println!("cargo:rustc-link-arg-cdylib={}", object.display());
    }
    for symbol in WRAPPED {
        println!("cargo:rustc-link-arg-cdylib=-Wl,--wrap={symbol}");
    }
    stub(&out, &libs, "libpthread.so.0", "pthread", PTHREAD);
    stub(&out, &libs, "libdl.so.2", "dl", DL);
    // The link line's own -lpthread and -ldl (Rust's standard library's)
    // find the stubs; these make sure they are there.
    println!("cargo:rustc-link-lib=dylib=pthread");
    println!("cargo:rustc-link-lib=dylib=dl");
}

/// Puts a link to GCC's `libstdc++.a` into `libs`.
fn static_libstdcxx(libs: &Path) {
    let compiler = cc::Build::new().cpp(true).get_compiler();
    let archive = compiler
        .to_command()
        .arg("-print-file-name=libstdc++.a")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| PathBuf::from(s.trim()));
    let Some(archive) = archive.filter(|p| p.is_absolute() && p.is_file()) else {
        panic!("libstdc++.a not found: install GCC's libstdc++ development files (Debian: libstdc++-12-dev), or set ZKDV_PORTABLE_LINK=0");
    };
    let link = libs.join("libstdc++.a");
    let _ = fs::remove_file(&link);
    std::os::unix::fs::symlink(&archive, &link).expect("link libstdc++.a");
}

/// Builds `libs/lib{name}.so`, a shared library named `soname` that defines
/// each function of `symbols` (empty) at its version, for the linker only.
/// Its file is never named `soname`, so that no run-time search finds it
/// (`maturin develop` adds the link's search paths to the extension's rpath).
fn stub(out: &Path, libs: &Path, soname: &str, name: &str, symbols: &[(&str, &str)]) {
    let mut source = String::new();
    let mut versions: Vec<&str> = Vec::new();
    for (symbol, version) in symbols {
        source.push_str(&format!("void {symbol}(void) {{}}\n"));
        if !versions.contains(version) {
            versions.push(version);
        }
    }
    let mut script = String::new();
    let mut previous: Option<&str> = None;
    for version in &versions {
        let names: Vec<String> = symbols
            .iter()
            .filter(|(_, v)| v == version)
            .map(|(s, _)| format!("{s};"))
            .collect();
        let local = if previous.is_none() { " local: *;" } else { "" };
        script.push_str(&format!(
            "{version} {{ global: {}{local} }}{};\n",
            names.join(" "),
            previous.map(|p| format!(" {p}")).unwrap_or_default()
        ));
        previous = Some(version);
    }
    let c = out.join(format!("{name}-stub.c"));
    let map = out.join(format!("{name}-stub.map"));
    fs::write(&c, source).expect("write stub source");
    fs::write(&map, script).expect("write stub version script");
    let library = libs.join(format!("lib{name}.so"));
    let status = cc::Build::new()
        .get_compiler()
        .to_command()
        .args(["-shared", "-nostdlib", "-fPIC", "-o"])
        .arg(&library)
        .arg(&c)
        .arg(format!("-Wl,-soname,{soname}"))
        .arg(format!("-Wl,--version-script={}", map.display()))
        .status()
        .expect("run the C compiler");
    assert!(status.success(), "building the {soname} stub failed");
}
