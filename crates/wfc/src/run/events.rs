//! The `--events` file and the progress printer: the event sinks of a run.

use std::fs::File;
use std::io::{BufWriter, IsTerminal, Write};
use std::path::{Path, PathBuf};

use wf_vm::{EventSink, JsonLinesSink, RunDir};

use super::output::Progress;
use super::{ProgressChoice, RunArgs};

/// The `--events` sink and the progress printer, as asked. Resuming
/// (`resumed`), the event file is first rewritten from the run's log.
pub fn event_sinks(
    args: &RunArgs,
    resumed: Option<&RunDir>,
) -> Result<Vec<Box<dyn EventSink>>, String> {
    let mut sinks: Vec<Box<dyn EventSink>> = Vec::new();
    match args.events.as_deref() {
        Some(p) if p == Path::new("-") => {
            sinks.push(Box::new(JsonLinesSink::new(std::io::stdout())));
        }
        Some(path) => {
            let file = open_events(path, resumed).map_err(|e| {
                format!(
                    "error: cannot write the event file `{}`: {e}",
                    path.display()
                )
            })?;
            sinks.push(Box::new(EventFile {
                path: path.to_path_buf(),
                sink: JsonLinesSink::new(BufWriter::new(file)),
            }));
        }
        None => {}
    }
    let progress = match args.progress {
        ProgressChoice::Always => true,
        ProgressChoice::Never => false,
        ProgressChoice::Auto => std::io::stderr().is_terminal(),
    };
    if progress {
        sinks.push(Box::new(Progress::new()));
    }
    Ok(sinks)
}

/// Creates the event file; resuming, it starts with the events of every
/// step the run's log committed (derived from the log, so that a step the
/// killed process was in is neither doubled nor lost).
fn open_events(path: &Path, resumed: Option<&RunDir>) -> Result<File, String> {
    let io = |e: std::io::Error| crate::inputs::io_reason(&e);
    let mut file = File::create(path).map_err(io)?;
    if let Some(dir) = resumed {
        let events = dir.logged_events().map_err(|e| e.to_string())?;
        file.write_all(&events).map_err(io)?;
    }
    Ok(file)
}

/// The `--events FILE` sink: its failure names the file.
struct EventFile {
    path: PathBuf,
    sink: JsonLinesSink<BufWriter<File>>,
}

impl EventSink for EventFile {
    fn emit(&mut self, event: &wf_vm::Event<'_>) {
        self.sink.emit(event);
    }

    fn emit_stamped(&mut self, event: &wf_vm::Event<'_>, stamp: &wf_vm::stamp::Stamp<'_>) {
        self.sink.emit_stamped(event, stamp);
    }

    fn wants_json(&self) -> bool {
        self.sink.wants_json()
    }

    fn emit_json(
        &mut self,
        event: &wf_vm::Event<'_>,
        stamp: &wf_vm::stamp::Stamp<'_>,
        json: &[u8],
    ) {
        self.sink.emit_json(event, stamp, json);
    }

    fn failure(&self) -> Option<String> {
        self.sink.error().map(|e| {
            format!(
                "could not write the event file `{}`: {}",
                self.path.display(),
                crate::inputs::io_reason(e)
            )
        })
    }
}

/// The error of events lost in a run's last step (after the engine's last
/// look at its sinks, so the run could not end on it): typed as the store
/// failure it is, like a sink failure during the run.
pub fn lost_events_error(reason: &str) -> String {
    let kind = wf_vm::FailureKind::Store;
    format!(
        "error[{code}]: {reason}\n  \
         note: the run itself ended as said above; its event file lacks the last events (kind: {kind}, {code} {name})\n  \
         help: free the space or choose another `--events` file; see `wfc explain {code}`",
        code = kind.code(),
        kind = kind.as_str(),
        name = kind.name(),
    )
}

/// The `--events FILE` sink of `wfc cancel`: as a resumed run's, the file
/// starts with the events of every step the log of `dir` committed.
pub fn resumed_file(path: &Path, dir: &RunDir) -> Result<Box<dyn EventSink>, String> {
    let file = open_events(path, Some(dir)).map_err(|e| {
        format!(
            "error: cannot write the event file `{}`: {e}",
            path.display()
        )
    })?;
    Ok(Box::new(EventFile {
        path: path.to_path_buf(),
        sink: JsonLinesSink::new(BufWriter::new(file)),
    }))
}
