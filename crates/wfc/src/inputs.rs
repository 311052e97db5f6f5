//! Turning command-line paths into source files.

use std::io::Read;
use std::path::{Path, PathBuf};

use wf_diagnostics::Sources;

/// A problem reading inputs: reported on stderr, makes the exit status 2.
#[derive(Debug)]
pub struct InputError(pub String);

/// Extensions `wfc check` picks up when walking a directory.
const SOURCE_EXTENSIONS: &[&str] = &["wf"];

/// Expands paths into the list of files to check: files are taken as given,
/// directories are walked recursively (honouring `.gitignore`) for `.wf`
/// files, sorted so output is deterministic.
pub fn collect_paths(paths: &[PathBuf], errors: &mut Vec<InputError>) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for path in paths {
        if path.is_dir() {
            let mut found = Vec::new();
            for entry in ignore::WalkBuilder::new(path)
                .sort_by_file_name(|a, b| a.cmp(b))
                .build()
            {
                match entry {
                    Ok(entry) => {
                        let p = entry.path();
                        if entry.file_type().is_some_and(|t| t.is_file()) && has_source_extension(p)
                        {
                            found.push(p.to_path_buf());
                        }
                    }
                    Err(err) => errors.push(InputError(format!(
                        "cannot walk `{}`: {err}",
                        path.display()
                    ))),
                }
            }
            if found.is_empty() {
                errors.push(InputError(format!(
                    "no workflow files (*.wf) found in directory `{}`",
                    path.display()
                )));
            }
            files.extend(found);
        } else if path.exists() {
            files.push(path.clone());
        } else {
            errors.push(InputError(format!(
                "`{}`: no such file or directory",
                path.display()
            )));
        }
    }
    files
}

fn has_source_extension(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| SOURCE_EXTENSIONS.contains(&e))
}

/// Reads each file into `sources`; unreadable and non-UTF-8 files become
/// input errors and are skipped, so the other files are still checked.
pub fn read_files(files: &[PathBuf], sources: &mut Sources, errors: &mut Vec<InputError>) {
    for path in files {
        match std::fs::read(path) {
            Ok(bytes) => match decode(&path.display().to_string(), bytes) {
                Ok(text) => {
                    sources.add(display_path(path), text);
                }
                Err(err) => errors.push(err),
            },
            Err(err) => errors.push(InputError(format!(
                "cannot read `{}`: {}",
                path.display(),
                io_reason(&err)
            ))),
        }
    }
}

/// Reads standard input as one source named `name`.
pub fn read_stdin(name: &str, sources: &mut Sources, errors: &mut Vec<InputError>) {
    let mut bytes = Vec::new();
    match std::io::stdin().lock().read_to_end(&mut bytes) {
        Ok(_) => match decode(name, bytes) {
            Ok(text) => {
                sources.add(name, text);
            }
            Err(err) => errors.push(err),
        },
        Err(err) => errors.push(InputError(format!(
            "cannot read standard input: {}",
            io_reason(&err)
        ))),
    }
}

/// UTF-8 decoding with the position of the first bad byte, so the user can
/// find it; a leading byte-order mark is dropped.
fn decode(name: &str, bytes: Vec<u8>) -> Result<String, InputError> {
    match String::from_utf8(bytes) {
        Ok(mut text) => {
            if text.starts_with('\u{feff}') {
                text.drain(..3);
            }
            Ok(text)
        }
        Err(err) => {
            let valid = err.utf8_error().valid_up_to();
            let bytes = err.as_bytes();
            let line = bytes[..valid].iter().filter(|&&b| b == b'\n').count() + 1;
            let line_start = bytes[..valid]
                .iter()
                .rposition(|&b| b == b'\n')
                .map_or(0, |i| i + 1);
            let column = String::from_utf8_lossy(&bytes[line_start..valid])
                .chars()
                .count()
                + 1;
            Err(InputError(format!(
                "`{name}` is not valid UTF-8 (invalid byte 0x{:02x} at line {line}, column {column}); \
                 wfc reads UTF-8 source files only: re-encode the file as UTF-8",
                bytes[valid]
            )))
        }
    }
}

/// Paths are shown as the user wrote them, with `./` dropped.
fn display_path(path: &Path) -> String {
    let shown = path.strip_prefix(".").unwrap_or(path);
    shown.display().to_string()
}

/// The OS error without Rust's "(os error N)" suffix.
fn io_reason(err: &std::io::Error) -> String {
    let text = err.to_string();
    match text.find(" (os error") {
        Some(i) => text[..i].to_string(),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decode_reports_position_of_bad_byte() {
        let err = decode("x.wf", b"ab\ncd\xffz".to_vec()).unwrap_err();
        assert!(err.0.contains("line 2, column 3"), "{}", err.0);
        assert!(err.0.contains("0xff"));
    }

    #[test]
    fn decode_drops_bom() {
        assert_eq!(decode("x", b"\xef\xbb\xbfhi".to_vec()).unwrap(), "hi");
    }
}
