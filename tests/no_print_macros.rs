//! No print macro in a library crate's code (issue 38): what a command says goes through its
//! `Console` (`oltpgen_vocab::console`), which the binary prints and a test may keep, so every word
//! reaches the user by one road. Test code may print; the binary (`src/`) prints by design.

use std::path::{Path, PathBuf};

/// The print macros a library crate must not call, found as `name!(` after a non-identifier character.
const MACROS: [&str; 4] = ["println", "eprintln", "print", "eprint"];

/// Where a print macro may stay, and how many it may hold there.
const ALLOWED: [(&str, usize, &str); 2] = [
    (
        "crates/vocab/src/stop.rs",
        1,
        "the second signal's line: the process ends on the next line, and no console reaches the \
         signal task, which listens from before any command starts",
    ),
    (
        "crates/datagen/src/pgbench/eval.rs",
        1,
        "pgbench's debug(x) in a user's script: pgbench prints the value to stderr as the script runs, \
         from inside an expression no console reaches",
    ),
];

#[test]
fn no_library_crate_calls_a_print_macro() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut found = Vec::new();
    for krate in std::fs::read_dir(root.join("crates")).expect("crates/").flatten() {
        let mut files = Vec::new();
        rust_files(&krate.path().join("src"), &mut files);
        for file in files {
            let rel = file.strip_prefix(root).unwrap().to_string_lossy().into_owned();
            let text = std::fs::read_to_string(&file).unwrap();
            let hits = print_calls(&text);
            let allowed = ALLOWED.iter().find(|(path, _, _)| *path == rel).map_or(0, |(_, n, _)| *n);
            if hits.len() > allowed {
                found.extend(hits.iter().map(|(line, text)| format!("{rel}:{line}: {text}")));
            }
        }
    }
    assert!(
        found.is_empty(),
        "print macros in library code (say it through the command's Console or ErrLines):\n{}",
        found.join("\n")
    );
}

#[test]
fn a_print_macro_is_found_in_code_but_not_in_comments_or_tests() {
    let code = "fn f() {\n    // println!(\"a comment\")\n    eprintln!(\"x\");\n    say_print!(1);\n}\n\
                #[cfg(test)]\nmod tests {\n    fn t() { println!(\"in a test\"); }\n}\n";
    assert_eq!(print_calls(code), [(3, "eprintln!(\"x\");".to_string())]);
}

/// The `.rs` files under `dir`, except the test-only ones: a `tests.rs`, or a module its parent declares
/// under `#[cfg(test)]`.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut test_only = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let text = std::fs::read_to_string(entry.path()).unwrap_or_default();
        let mut lines = text.lines().map(str::trim);
        while let Some(line) = lines.next() {
            if line == "#[cfg(test)]" {
                let next = lines.next().unwrap_or("");
                if let Some(name) = next.strip_prefix("mod ").and_then(|m| m.strip_suffix(';')) {
                    test_only.push(name.to_string());
                }
            }
        }
    }
    for entry in entries.flatten() {
        let path = entry.path();
        let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("").to_string();
        if stem == "tests" || test_only.contains(&stem) {
            continue;
        }
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Each line (numbered from 1) of `text` that calls a print macro, outside comments and the file's
/// `#[cfg(test)] mod tests { … }` (which ends the file, as the crates keep it).
fn print_calls(text: &str) -> Vec<(usize, String)> {
    let mut hits = Vec::new();
    let mut lines = text.lines().enumerate().peekable();
    while let Some((i, line)) = lines.next() {
        let code = line.trim();
        if code == "#[cfg(test)]"
            && lines.peek().is_some_and(|(_, next)| next.trim().starts_with("mod tests"))
        {
            break;
        }
        let code = code.split("//").next().unwrap_or("");
        let calls = MACROS.iter().any(|m| {
            code.match_indices(&format!("{m}!(")).any(|(at, _)| {
                !code[..at].chars().next_back().is_some_and(|c| c.is_alphanumeric() || c == '_')
            })
        });
        if calls {
            hits.push((i + 1, line.trim().to_string()));
        }
    }
    hits
}
