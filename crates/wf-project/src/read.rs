//! Reading a project: paths into source files (directories walked by
//! the rules of the crate's documentation), files into text, and the
//! database of the files read with their imports.

use std::io::Read;
use std::path::{Path, PathBuf};

use wf_analysis::db::{Early, lower_early};
use wf_analysis::imports::{self, LoadFailure};
use wf_diagnostics::{FileId, Sources};
use wf_model::{Walked, extension_of};

use crate::walk;

/// A problem reading inputs: `wfc` reports it on stderr and exits with
/// status 2; the language server logs it.
#[derive(Debug)]
pub struct InputError(pub String);

/// Expands paths into the list of files to read: files are taken as given,
/// directories are walked recursively for the extensions
/// [`wf_model::EXTENSIONS`] collects (`.wf`, `.dot` and `.fabro`, and the
/// `.json` files that are Reflex workflows: a top-level object with
/// `entry` and `nodes`; other JSON, such as package manifests or IR files,
/// is skipped), sorted so output is deterministic. Hidden and ignored
/// files are skipped (see the crate's documentation).
pub fn collect_paths(paths: &[PathBuf], errors: &mut Vec<InputError>) -> Vec<PathBuf> {
    walk::expand(paths, errors, is_candidate, |_, path| {
        match extension_of(path)?.walked {
            Walked::Yes => Some(()),
            Walked::IfReflex => reflex_text(path).map(drop),
            Walked::No => None,
        }
    })
    .into_iter()
    .map(|(path, _)| path)
    .collect()
}

/// The files `wfc check DIR` reads for the directory `dir`, read: what the
/// language server loads for a workspace folder.
#[derive(Debug, Default)]
pub struct Tree {
    /// Each file found and its text, sorted by path.
    pub files: Vec<(PathBuf, String)>,
    /// Files that could not be read or decoded, and walk problems.
    pub errors: Vec<InputError>,
    /// Whether the walk stopped at the limit it was given.
    pub truncated: bool,
}

/// Walks and reads the directory `dir` as [`read_paths`] does, stopping
/// after `limit` candidate files (a folder such as a home directory must
/// not stall an editor). An empty directory is no error here.
pub fn read_tree(dir: &Path, limit: usize) -> Tree {
    let (found, walk_errors, truncated) =
        walk::walk(dir, 0, limit, &is_candidate, &|_, path| read_found(path));
    let mut tree = Tree {
        truncated,
        ..Tree::default()
    };
    tree.errors.extend(
        walk_errors
            .into_iter()
            .map(|err| InputError(format!("cannot walk `{}`: {err}", dir.display()))),
    );
    for (path, read) in found {
        match read {
            Ok(text) => tree.files.push((path, text)),
            Err(err) => tree.errors.push(err),
        }
    }
    tree
}

/// Whether a walk of the directory `root` collects the file at `path`: the
/// walk reaches it (not hidden, not ignored) and its extension and text
/// are what a walk keeps. For a file created after the walk.
pub fn walk_collects(root: &Path, path: &Path) -> bool {
    let member = match extension_of(path).map(|e| e.walked) {
        Some(Walked::Yes) => true,
        Some(Walked::IfReflex) => reflex_text(path).is_some(),
        Some(Walked::No) | None => false,
    };
    member && walk::reaches(root, path)
}

/// DOT and Reflex files lowered while the walk was still finding and
/// reading files (see [`read_paths`]), for [`load_database`].
#[derive(Debug, Default)]
pub struct EarlyLowered {
    /// The index in the sources of the first entry of `files`.
    first: usize,
    /// Per source from `first` on, in order.
    files: Vec<Option<Early>>,
}

/// [`collect_paths`] and then [`read_files`], in one pass: each file a
/// directory walk finds is read, and a DOT or Reflex file also lowered, on
/// another thread while the walk goes on (and a Reflex candidate is read
/// once, not twice). The sources, their order and the errors (the walk's
/// first, then the reads') are the same. The lowered files go to
/// [`load_database`], so that the database does not lower them again.
pub fn read_paths(
    paths: &[PathBuf],
    sources: &mut Sources,
    errors: &mut Vec<InputError>,
) -> EarlyLowered {
    let first = sources.len();
    let found = walk::expand(paths, errors, is_candidate, |position, path| {
        let text = read_found(path)?;
        // The id the file gets if every file before it is read.
        let id = FileId((first + position) as u32);
        let early = text.as_ref().ok().and_then(|t| lower_early(path, id, t));
        Some(Some((text, early)))
    });
    // Files named on the command line are read afterwards, all at once.
    let named: Vec<PathBuf> = found
        .iter()
        .filter(|(_, read)| read.is_none())
        .map(|(path, _)| path.clone())
        .collect();
    let mut named_reads = read_all(&named).into_iter();
    let mut early = EarlyLowered {
        first,
        files: Vec::new(),
    };
    for (path, read) in found {
        let (result, lowered) = match read {
            Some(read) => read,
            None => (
                named_reads
                    .next()
                    .expect("one read per file named on the command line"),
                None,
            ),
        };
        if result.is_ok() {
            early.files.push(lowered);
        }
        add_source(&path, result, sources, errors);
    }
    early
}

/// A file a directory walk passes on to [`read_found`]: an extension the
/// walk collects (`.json` is read to see whether it is a Reflex workflow).
fn is_candidate(path: &Path) -> bool {
    extension_of(path).is_some_and(|e| e.walked != Walked::No)
}

/// A file a directory walk found, read: `None` when it is not part of the
/// project (JSON that is not a Reflex workflow, or cannot be read to
/// tell), else its text or why it cannot be read.
fn read_found(path: &Path) -> Option<Result<String, InputError>> {
    match extension_of(path)?.walked {
        Walked::Yes => Some(read_one(path)),
        Walked::IfReflex => {
            let text = reflex_text(path)?;
            // Decoded as any source is (a byte-order mark dropped).
            Some(decode(&path.display().to_string(), text.into_bytes()))
        }
        Walked::No => None,
    }
}

/// The text of a `.json` file that reads as a Reflex workflow; `None` for
/// other JSON and unreadable files.
fn reflex_text(path: &Path) -> Option<String> {
    let text = std::fs::read_to_string(path).ok()?;
    wf_reflex::looks_like_reflex(&text).then_some(text)
}

/// Reads each file into `sources`; unreadable and non-UTF-8 files become
/// input errors and are skipped, so the other files are still checked.
/// Files are read on all cores (for a large project, reading one after the
/// other was a tenth of a check) and added in the order given.
pub fn read_files(files: &[PathBuf], sources: &mut Sources, errors: &mut Vec<InputError>) {
    for (path, result) in files.iter().zip(read_all(files)) {
        add_source(path, result, sources, errors);
    }
}

/// A file read: its text into `sources` under the path shown, or its error.
fn add_source(
    path: &Path,
    result: Result<String, InputError>,
    sources: &mut Sources,
    errors: &mut Vec<InputError>,
) {
    match result {
        Ok(text) => {
            sources.add(display_path(path), text);
        }
        Err(err) => errors.push(err),
    }
}

/// Reads and decodes one file.
fn read_one(path: &Path) -> Result<String, InputError> {
    match std::fs::read(path) {
        Ok(bytes) => decode(&path.display().to_string(), bytes),
        Err(err) => Err(InputError(format!(
            "cannot read `{}`: {}",
            path.display(),
            io_reason(&err)
        ))),
    }
}

/// Reads and decodes every file, in parallel, in the order given.
fn read_all(files: &[PathBuf]) -> Vec<Result<String, InputError>> {
    let read = |path: &PathBuf| read_one(path);
    // Asking for the core count reads cgroup files: not for one file.
    let threads = match files.len() {
        0 | 1 => 1,
        n => wf_threads::cores().min(n),
    };
    if threads <= 1 {
        return files.iter().map(read).collect();
    }
    // Contiguous chunks keep the order without sorting afterwards.
    let chunk = files.len().div_ceil(threads);
    std::thread::scope(|scope| {
        let mut parts = files.chunks(chunk);
        // This thread reads the first part: one thread fewer to start.
        let first = parts.next().unwrap_or_default();
        let workers: Vec<_> = parts
            .map(|part| {
                wf_threads::spawn_apart(scope, move || part.iter().map(read).collect::<Vec<_>>())
            })
            .collect();
        let mut all: Vec<_> = first.iter().map(read).collect();
        for worker in workers {
            all.extend(worker.join().expect("reading files does not panic"));
        }
        all
    })
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
/// find it; a leading byte-order mark is dropped. `name` is the file as
/// shown in the error.
pub fn decode(name: &str, bytes: Vec<u8>) -> Result<String, InputError> {
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

/// Builds the analysis database for the files read into `sources`, then
/// loads the files they import from disk, transitively (see
/// [`wf_analysis::Database::load_imports`]).
///
/// Files are identified by absolute, lexically normalised paths (based on
/// the canonical current directory) and shown as the user wrote them;
/// imported files are shown relative to the current directory when inside
/// it. The root that imports may not leave is `root` (the directory of
/// `wf.toml`) when given, else the deepest directory containing both the
/// current directory and every file checked.
pub fn load_database(
    sources: Sources,
    early: EarlyLowered,
    root: Option<&Path>,
) -> wf_analysis::Database {
    let cwd = std::env::current_dir()
        .and_then(|d| d.canonicalize())
        .unwrap_or_else(|_| PathBuf::from("/"));
    let identity = |shown: &str| imports::normalize(&cwd.join(shown));
    let paths: Vec<PathBuf> = sources.iter().map(|(_, f)| identity(&f.path)).collect();
    let root = match root {
        Some(root) => imports::normalize(root),
        None => imports::common_root(
            paths
                .iter()
                .map(PathBuf::as_path)
                .chain([cwd.join("-").as_path()]),
        ),
    };
    let canonical_root = root.canonicalize().unwrap_or_else(|_| root.clone());
    let mut db = wf_analysis::Database::new(&root);
    // The command line checks once and never edits.
    db.set_one_shot();
    // Sources before `early.first` and after its files were not lowered.
    let early = std::iter::repeat_with(|| None)
        .take(early.first)
        .chain(early.files)
        .chain(std::iter::repeat_with(|| None));
    // The texts move into the database: no copy of the project.
    db.set_files_early(
        sources
            .into_files()
            .zip(paths)
            .zip(early)
            .map(|((file, path), early)| (path, file.path, file.text, early)),
    );
    db.load_imports(|path| load_import(path, &cwd, &canonical_root));
    db
}

/// Reads one imported file, refusing directories and symbolic links that
/// lead outside the project root; shown relative to the current directory
/// when inside it.
fn load_import(path: &Path, cwd: &Path, root: &Path) -> Result<(String, String), LoadFailure> {
    let shown = path.strip_prefix(cwd).unwrap_or(path);
    let shown = imports::display(shown);
    let text = read_import(path, &[root], &shown)?;
    Ok((shown, text))
}

/// Reads a file an import names (at `path`, absolute), as `wfc check` and
/// the language server do: it must exist, be a file, and lie inside one of
/// the canonical `roots` once symbolic links are followed; the text is
/// decoded as any source ([`decode`], errors naming it `shown`).
pub fn read_import(path: &Path, roots: &[&Path], shown: &str) -> Result<String, LoadFailure> {
    let real = match path.canonicalize() {
        Ok(real) => real,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
            return Err(LoadFailure::NotFound);
        }
        Err(err) => return Err(LoadFailure::Unreadable(io_reason(&err))),
    };
    if !roots.iter().any(|root| real.starts_with(root)) {
        return Err(LoadFailure::OutsideRoot(real));
    }
    if real.is_dir() {
        return Err(LoadFailure::Directory);
    }
    let bytes = std::fs::read(&real).map_err(|err| LoadFailure::Unreadable(io_reason(&err)))?;
    decode(shown, bytes).map_err(|err| LoadFailure::Unreadable(err.0))
}

/// Paths are shown as the user wrote them, with `./` dropped.
fn display_path(path: &Path) -> String {
    let shown = path.strip_prefix(".").unwrap_or(path);
    shown.display().to_string()
}

/// The OS error without Rust's "(os error N)" suffix.
pub fn io_reason(err: &std::io::Error) -> String {
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

    fn codes(db: &wf_analysis::Database) -> Vec<&'static str> {
        db.diagnostics().iter().map(|d| d.code.code).collect()
    }

    #[test]
    fn release_example_loads_its_import_from_disk() {
        let release = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/release.wf");
        let release = release.canonicalize().unwrap();
        let mut sources = Sources::new();
        sources.add(
            release.display().to_string(),
            std::fs::read_to_string(&release).unwrap(),
        );
        let db = load_database(sources, EarlyLowered::default(), None);
        assert_eq!(db.file_count(), 2, "lib/review.wf is loaded");
        assert!(codes(&db).is_empty(), "{:?}", db.diagnostics());
    }

    /// A scratch project on disk, removed when dropped.
    struct Scratch(PathBuf);

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    #[test]
    fn directory_walks_take_reflex_json_and_skip_other_json() {
        let base = std::env::temp_dir().join(format!("wfc-walk-{}", std::process::id()));
        let scratch = Scratch(base.clone());
        std::fs::create_dir_all(&base).unwrap();
        std::fs::write(base.join("a.wf"), "workflow A { start -> done }").unwrap();
        std::fs::write(
            base.join("flow.json"),
            r#"{"id": "f", "entry": "S", "nodes": {"S": {"id": "S", "spec": {}}}, "edges": []}"#,
        )
        .unwrap();
        std::fs::write(
            base.join("package.json"),
            r#"{"name": "x", "version": "1.0.0"}"#,
        )
        .unwrap();
        std::fs::write(base.join("broken.json"), "{ not json").unwrap();
        let mut errors = Vec::new();
        let files = collect_paths(std::slice::from_ref(&base), &mut errors);
        let names: Vec<_> = files
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().to_string())
            .collect();
        assert_eq!(names, ["a.wf", "flow.json"]);
        assert!(errors.is_empty());
        // Named explicitly, any `.json` file is read (and reported if broken).
        let files = collect_paths(&[base.join("broken.json")], &mut errors);
        assert_eq!(files.len(), 1);
        drop(scratch);
    }

    #[cfg(unix)]
    #[test]
    fn loader_refuses_links_out_of_the_root_directories_and_bad_text() {
        let base = std::env::temp_dir().join(format!("wfc-imports-{}", std::process::id()));
        let scratch = Scratch(base.clone());
        let _ = std::fs::remove_dir_all(&base);
        let root = base.join("proj");
        std::fs::create_dir_all(root.join("lib/dir.wf")).unwrap();
        std::fs::create_dir_all(base.join("outside")).unwrap();
        std::fs::write(
            base.join("outside/out.wf"),
            "workflow Out { start -> done }",
        )
        .unwrap();
        std::os::unix::fs::symlink("../../outside/out.wf", root.join("lib/link.wf")).unwrap();
        std::fs::write(root.join("lib/bad.wf"), b"\xff").unwrap();
        std::fs::write(root.join("lib/ok.wf"), "workflow Ok { start -> done }").unwrap();
        let root = root.canonicalize().unwrap();
        let main = root.join("main.wf");
        let text = "import \"lib/link.wf\"\nimport \"lib/dir.wf\"\nimport \"lib/bad.wf\"\nimport \"lib/ok.wf\"\nworkflow Main {\n  call ok = Ok\n  start -> ok -> done\n}\n";
        let mut sources = Sources::new();
        sources.add(main.display().to_string(), text);
        let db = load_database(sources, EarlyLowered::default(), Some(&root));
        assert_eq!(codes(&db), ["WF0108", "WF0107", "WF0107"]);
        let diagnostics = db.diagnostics();
        assert!(diagnostics[0].notes[0].contains("outside/out.wf"));
        assert!(diagnostics[1].message.contains("names a directory"));
        assert!(diagnostics[2].message.contains("cannot be read"));
        drop(scratch);
    }

    #[test]
    fn trees_skip_hidden_and_ignored_files_and_later_files_follow_the_same_rules() {
        let base = std::env::temp_dir().join(format!("wfc-tree-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        let scratch = Scratch(base.clone());
        let stray = "workflow Stray { start -> done }";
        for (path, text) in [
            ("a.wf", "workflow A { start -> done }"),
            ("sub/b.dot", "digraph B { start -> exit }"),
            (
                "flow.json",
                r#"{"id": "f", "entry": "S", "nodes": {"S": {"id": "S", "spec": {}}}, "edges": []}"#,
            ),
            ("package.json", r#"{"name": "x"}"#),
            ("diagram.gv", "digraph D { a -> b }"),
            (".hidden/c.wf", stray),
            ("skipped/d.wf", stray),
            ("e.wf", stray),
            // `.ignore` files apply outside git repositories too.
            (".ignore", "skipped/\ne.wf\n"),
        ] {
            let path = base.join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        let tree = read_tree(&base, usize::MAX);
        let names: Vec<String> = tree
            .files
            .iter()
            .map(|(p, _)| p.strip_prefix(&base).unwrap().display().to_string())
            .collect();
        assert_eq!(names, ["a.wf", "flow.json", "sub/b.dot"]);
        assert!(tree.errors.is_empty() && !tree.truncated);
        for name in &names {
            assert!(walk_collects(&base, &base.join(name)), "{name}");
        }
        for name in [
            ".hidden/c.wf",
            "skipped/d.wf",
            "e.wf",
            "package.json",
            "diagram.gv",
            ".ignore",
        ] {
            assert!(!walk_collects(&base, &base.join(name)), "{name}");
        }
        assert!(!walk_collects(&base, Path::new("/elsewhere/a.wf")));
        let tree = read_tree(&base, 2);
        assert!(tree.truncated);
        assert_eq!(tree.files.len(), 2);
        drop(scratch);
    }
}
