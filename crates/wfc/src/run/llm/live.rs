//! A stage's `response.md` written as the answer streams in: each piece
//! appended and flushed, so `tail -f` (or another process) sees the answer
//! grow. When the stage ends, the engine replaces the file atomically with
//! the whole answer (temporary file, fsync, rename), so the final file
//! always equals the text the stage settled on.

use std::fs::File;
use std::io::Write;
use std::path::PathBuf;

use wf_llm::Chunk;

/// The live `response.md` of one stage.
pub struct LiveResponse {
    path: PathBuf,
    file: Option<File>,
    /// The first write error: streaming to the file is a convenience, so
    /// it stops there, and the stage's own atomic write reports a real
    /// problem with the directory.
    failed: bool,
}

impl LiveResponse {
    /// The file at `path` (created at the first attempt).
    pub fn new(path: PathBuf) -> Self {
        LiveResponse {
            path,
            file: None,
            failed: false,
        }
    }

    /// Takes one report of the call: a new attempt empties the file, text
    /// is appended and flushed at once.
    pub fn on(&mut self, chunk: Chunk<'_>) {
        if self.failed {
            return;
        }
        let result = match chunk {
            // An earlier attempt's partial text is void.
            Chunk::Attempt(_) => File::create(&self.path).map(|f| self.file = Some(f)),
            Chunk::Text(text) => match self.file.as_mut() {
                Some(f) => f.write_all(text.as_bytes()).and_then(|()| f.flush()),
                None => Ok(()),
            },
        };
        if result.is_err() {
            self.failed = true;
            self.file = None;
        }
    }
}
