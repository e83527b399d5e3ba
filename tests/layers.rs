//! The module layers of `src/lib.rs` hold in the code: no file under `src/<module>/`
//! names a module listed after its own in `gpufleet::LAYERS` (comments aside).

use std::path::Path;

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The modules `text` names as `crate::<module>` outside comments.
fn used_modules(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.lines() {
        let code = line.split("//").next().unwrap_or("");
        let mut rest = code;
        while let Some(i) = rest.find("crate::") {
            rest = &rest[i + "crate::".len()..];
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_lowercase() || *c == '_')
                .collect();
            out.push(name);
        }
    }
    out
}

#[test]
fn no_module_imports_against_the_layers() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let layers = gpufleet::LAYERS;
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut wrong = Vec::new();
    let mut seen = 0;
    for f in &files {
        let rel = f.strip_prefix(&src).unwrap();
        let first = rel
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy();
        let module = first.trim_end_matches(".rs");
        let Some(mine) = layers.iter().position(|m| *m == module) else {
            continue;
        };
        seen += 1;
        let text = std::fs::read_to_string(f).unwrap();
        for used in used_modules(&text) {
            if let Some(theirs) = layers.iter().position(|m| *m == used) {
                if theirs > mine {
                    wrong.push(format!("{} uses crate::{used}", rel.display()));
                }
            }
        }
    }
    assert!(seen > 50, "only {seen} files checked");
    wrong.sort();
    wrong.dedup();
    assert!(
        wrong.is_empty(),
        "imports against the layers:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn every_module_is_in_a_layer() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    for e in std::fs::read_dir(&src).unwrap().flatten() {
        let name = e
            .file_name()
            .to_string_lossy()
            .trim_end_matches(".rs")
            .to_string();
        if name == "lib" || name == "main" {
            continue;
        }
        assert!(
            gpufleet::LAYERS.contains(&name.as_str()),
            "src/{name} is in no layer of gpufleet::LAYERS"
        );
    }
}

#[test]
fn the_checker_sees_an_upward_import() {
    // The checker itself: a line naming a later module is found, a comment is not.
    let found = used_modules("use crate::sweep::run_sweep; // crate::cli");
    assert_eq!(found, vec!["sweep".to_string()]);
}
