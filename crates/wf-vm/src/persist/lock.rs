//! The run directory's lock: an exclusive `flock` on `run.lock`, which
//! records the holder's pid on its first line and its host name on the
//! second (`wfc cancel` signals the holder only on its own host).

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read as _, Seek as _, Write as _};
use std::path::Path;
use std::sync::Arc;

use super::{LOCK_FILE, PersistError, io_err};

/// Takes the exclusive lock of directory `dir` (creating its lock file)
/// and records this process's pid in it.
pub(super) fn lock(dir: &Path) -> Result<Arc<File>, PersistError> {
    let path = dir.join(LOCK_FILE);
    let mut file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .map_err(io_err(&path, "open the lock file"))?;
    match file.try_lock() {
        Ok(()) => {}
        Err(TryLockError::WouldBlock) => {
            let mut text = String::new();
            let pid = file
                .read_to_string(&mut text)
                .ok()
                .and_then(|_| first_line_pid(&text));
            return Err(PersistError::InUse {
                path: dir.to_owned(),
                pid,
            });
        }
        Err(TryLockError::Error(e)) => return Err(io_err(&path, "lock")(e)),
    }
    let pid = format!(
        "{}\n{}\n",
        std::process::id(),
        host_name().unwrap_or_default()
    );
    file.set_len(0)
        .and_then(|()| file.rewind())
        .and_then(|()| file.write_all(pid.as_bytes()))
        .map_err(io_err(&path, "write the lock file"))?;
    Ok(Arc::new(file))
}

/// Who holds the lock of directory `dir`, without taking it for writing:
/// a shared lock is tried and dropped at once. `None`: nobody (or no lock
/// file); `Some(pid)`: a process holds it (its pid when the file says).
pub(super) fn holder(dir: &Path) -> Result<Option<Option<u32>>, PersistError> {
    let path = dir.join(LOCK_FILE);
    let mut file = match File::open(&path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io_err(&path, "open the lock file")(e)),
    };
    match file.try_lock_shared() {
        Ok(()) => Ok(None),
        Err(TryLockError::WouldBlock) => {
            let mut text = String::new();
            let pid = file
                .read_to_string(&mut text)
                .ok()
                .and_then(|_| first_line_pid(&text));
            Ok(Some(pid))
        }
        Err(TryLockError::Error(e)) => Err(io_err(&path, "probe the lock")(e)),
    }
}

/// The pid on the lock file's first line (a file written before it named
/// the host holds the pid alone).
fn first_line_pid(text: &str) -> Option<u32> {
    text.lines().next()?.trim().parse().ok()
}

/// The host name the lock file of directory `dir` records (its second
/// line), if any: read without locking.
pub(super) fn holder_host(dir: &Path) -> Option<String> {
    let text = std::fs::read_to_string(dir.join(LOCK_FILE)).ok()?;
    let host = text.lines().nth(1)?.trim();
    (!host.is_empty()).then(|| host.to_owned())
}

/// This machine's host name (unix; `None` elsewhere or when unknown).
pub fn host_name() -> Option<String> {
    #[cfg(unix)]
    {
        let mut buf = [0u8; 256];
        // SAFETY: gethostname(2) writes at most `buf.len()` bytes into the
        // buffer it is given.
        let rc = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) };
        if rc != 0 {
            return None;
        }
        let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
        let name = String::from_utf8_lossy(&buf[..end]).trim().to_owned();
        (!name.is_empty()).then_some(name)
    }
    #[cfg(not(unix))]
    {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::first_line_pid;

    /// The pid is the first line, whether the file names the host (since
    /// `wfc cancel`) or not (before).
    #[test]
    fn the_pid_is_the_first_line() {
        assert_eq!(first_line_pid("12\n"), Some(12));
        assert_eq!(first_line_pid("12\nbuild-host\n"), Some(12));
        assert_eq!(first_line_pid(" 7 \n"), Some(7));
        assert_eq!(first_line_pid(""), None);
        assert_eq!(first_line_pid("host\n12\n"), None);
    }
}
