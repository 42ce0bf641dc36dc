//! A test of the crate's own shape: the application context sits below every operation.
//!
//! `context.rs` (the context), `clock.rs` and `cfdi/state.rs` (what the context holds) name
//! only state; [`crate::wiring`] builds the context. If a file the context reaches, through
//! `use` lines or paths, itself named `AppContext`, the modules would import each other in a
//! circle through the context again (as they once did through 48 files), and a change to any
//! operation would ripple through all of them. This reads the sources as text, as a reader
//! would: `cargo test -p timbra-services --lib layers`.

#[cfg(test)]
mod tests {
    use std::collections::{BTreeSet, VecDeque};
    use std::path::{Path, PathBuf};

    /// The crate's `src/`.
    fn src() -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src")
    }

    /// The module path of a source file (`cfdi/pipeline/mod.rs` → `["cfdi", "pipeline"]`).
    fn module_of(file: &Path) -> Vec<String> {
        let relative = file.strip_prefix(src()).unwrap_or(file).with_extension("");
        let mut parts: Vec<String> = relative.iter().map(|part| part.to_string_lossy().into_owned()).collect();
        if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
            parts.pop();
        }
        parts
    }

    /// The file that defines the longest prefix of `path` that is a module of this crate.
    fn file_of(path: &[String]) -> Option<PathBuf> {
        (1..=path.len()).rev().find_map(|len| {
            let base = path[..len].iter().fold(src(), |dir, part| dir.join(part));
            [base.with_extension("rs"), base.join("mod.rs")].into_iter().find(|file| file.is_file())
        })
    }

    /// A source file without its comment lines (a doc comment may name anything).
    fn code_of(file: &Path) -> String {
        let text = std::fs::read_to_string(file).unwrap_or_default();
        text.lines().filter(|line| !line.trim_start().starts_with("//")).collect::<Vec<_>>().join("\n")
    }

    /// Expands one `use` tree (`crate::{a, b::{c, d}}`) into its paths.
    fn expand(tree: &str) -> Vec<String> {
        let tree = tree.trim();
        let Some(open) = tree.find('{') else { return vec![tree.to_owned()] };
        let prefix = &tree[..open];
        let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
        let (mut parts, mut depth, mut start) = (Vec::new(), 0, 0);
        for (i, c) in inner.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    parts.push(&inner[start..i]);
                    start = i + 1;
                }
                _ => {}
            }
        }
        parts.push(&inner[start..]);
        parts
            .into_iter()
            .filter(|part| !part.trim().is_empty())
            .flat_map(|part| expand(&format!("{prefix}{}", part.trim())))
            .collect()
    }

    /// The crate-local module paths a file names: its `use` trees and the `crate::`/`super::`
    /// paths in its code (comments left out), made absolute.
    fn named_modules(file: &Path) -> Vec<Vec<String>> {
        let code = code_of(file);
        let mut paths: Vec<String> = Vec::new();
        for statement in code.split(';') {
            if let Some(at) = statement.find("use ") {
                let tree = statement[at + 4..].trim();
                if tree.starts_with("crate::") || tree.starts_with("super::") || tree.starts_with("self::") {
                    paths.extend(expand(tree));
                }
            }
        }
        let mut rest = code.as_str();
        while let Some(at) = rest.find(['c', 's']) {
            let tail = &rest[at..];
            let boundary = rest[..at].chars().last().is_none_or(|c| !(c.is_alphanumeric() || c == '_' || c == ':'));
            if boundary && (tail.starts_with("crate::") || tail.starts_with("super::")) {
                let end = tail.find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':')).unwrap_or(tail.len());
                paths.push(tail[..end].to_owned());
                rest = &tail[end..];
            } else {
                rest = &tail[1..];
            }
        }
        let here = module_of(file);
        paths
            .into_iter()
            .filter_map(|path| {
                let mut segments: Vec<&str> = path.split("::").map(str::trim).filter(|s| !s.is_empty()).collect();
                let mut base: Vec<String> = match segments.first() {
                    Some(&"crate") => Vec::new(),
                    // `super` of `a/b.rs` and of `a/b/mod.rs` (module `a::b`) is `a`.
                    Some(&"super") => here[..here.len().saturating_sub(1)].to_vec(),
                    Some(&"self") => here.clone(),
                    _ => return None,
                };
                segments.remove(0);
                while segments.first() == Some(&"super") {
                    base.pop();
                    segments.remove(0);
                }
                base.extend(segments.into_iter().map(str::to_owned));
                Some(base)
            })
            .collect()
    }

    #[test]
    fn the_context_reaches_no_file_that_names_it() {
        let roots = ["context.rs", "clock.rs", "cfdi/state.rs"].map(|file| src().join(file));
        let mut seen: BTreeSet<PathBuf> = roots.iter().cloned().collect();
        let mut queue: VecDeque<(PathBuf, Vec<PathBuf>)> =
            roots.iter().map(|root| (root.clone(), vec![root.clone()])).collect();
        let mut offenders = Vec::new();
        while let Some((file, via)) = queue.pop_front() {
            for module in named_modules(&file) {
                let Some(target) = file_of(&module) else { continue };
                if target.ends_with("lib.rs") || !seen.insert(target.clone()) {
                    continue;
                }
                let mut path = via.clone();
                path.push(target.clone());
                if !target.ends_with("context.rs") && code_of(&target).contains("AppContext") {
                    offenders.push(
                        path.iter()
                            .map(|p| p.strip_prefix(src()).unwrap_or(p).display().to_string())
                            .collect::<Vec<_>>()
                            .join(" -> "),
                    );
                }
                queue.push_back((target, path));
            }
        }
        assert!(seen.len() > 10, "the walk found only {seen:?}: is the path resolution broken?");
        assert!(offenders.is_empty(), "the context reaches files that name it (a circle):\n{}", offenders.join("\n"));
    }

    #[test]
    fn the_reader_resolves_paths_like_the_compiler() {
        let pipeline = src().join("cfdi/pipeline/mod.rs");
        let named = named_modules(&pipeline);
        assert!(named.contains(&vec!["cfdi".to_owned(), "documento".to_owned(), "Timbrado".to_owned()]), "{named:?}");
        assert_eq!(
            file_of(&["cfdi".into(), "pipeline".into(), "registro".into(), "Fila".into()]),
            Some(src().join("cfdi/pipeline/registro.rs"))
        );
        assert_eq!(expand("crate::{a, b::{c, d}}"), ["crate::a", "crate::b::c", "crate::b::d"]);
    }
}
