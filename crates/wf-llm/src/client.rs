//! Calls over HTTP: timeouts, retries with backoff, the concurrency cap and
//! the bound on an answer's size.

use std::collections::HashMap;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::config::ProviderSettings;
use crate::provider::{self, Request, Response};
use crate::redact;
use crate::stream;

/// The largest answer body read, in bytes: a model's answer is at most a
/// few hundred kilobytes; anything far bigger is a broken server.
pub const MAX_BODY_BYTES: u64 = 8 * 1024 * 1024;

/// The longest wait a `Retry-After` header may ask for; a longer one is a
/// failure rather than a silent stall.
pub const MAX_RETRY_AFTER: Duration = Duration::from_secs(120);

/// What kind of failure a call met.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The server answered with this HTTP status.
    Status(u16),
    /// No answer within the timeout.
    Timeout,
    /// Connecting, sending or reading failed.
    Network,
    /// The body exceeded [`MAX_BODY_BYTES`].
    TooLarge,
    /// The body is not the JSON the API documents.
    Malformed,
    /// A streamed answer was cut short or held an event that is not the
    /// API's: retried, like a dropped connection.
    Stream,
}

/// What a streamed call reports as it goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Chunk<'a> {
    /// Attempt `n` starts (from 1): text of an earlier attempt is void.
    Attempt(u32),
    /// More of the answer's text.
    Text(&'a str),
}

/// A failed call, with a message that never holds the key.
#[derive(Debug, Clone, PartialEq)]
pub struct Error {
    /// The kind.
    pub kind: ErrorKind,
    /// What happened, for people.
    pub message: String,
    /// How long the server asked to wait (`Retry-After`).
    pub retry_after: Option<Duration>,
}

impl Error {
    /// Whether trying again may help: 429, 5xx, timeouts and network
    /// errors (the seed's `should_retry`); other 4xx answers will not
    /// change.
    pub fn retryable(&self) -> bool {
        match self.kind {
            ErrorKind::Status(s) => s == 429 || (500..600).contains(&s),
            ErrorKind::Timeout | ErrorKind::Network | ErrorKind::Stream => true,
            ErrorKind::TooLarge | ErrorKind::Malformed => false,
        }
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

/// A successful call: the answer, how long it took, and how many attempts.
#[derive(Debug, Clone, PartialEq)]
pub struct Called {
    /// The answer.
    pub response: Response,
    /// Wall time of the successful attempt.
    pub latency: Duration,
    /// Attempts made (1 when the first succeeded).
    pub attempts: u32,
}

/// Makes calls, one HTTP agent and one concurrency cap per provider.
#[derive(Clone, Default)]
pub struct Backend {
    caps: Arc<Mutex<HashMap<String, Arc<Cap>>>>,
}

/// A counting semaphore: at most `limit` calls at once.
struct Cap {
    limit: usize,
    busy: Mutex<usize>,
    freed: Condvar,
}

impl Cap {
    fn acquire(self: &Arc<Self>) -> CapGuard {
        let mut busy = self.busy.lock().unwrap_or_else(|e| e.into_inner());
        while *busy >= self.limit {
            busy = self.freed.wait(busy).unwrap_or_else(|e| e.into_inner());
        }
        *busy += 1;
        CapGuard(self.clone())
    }
}

struct CapGuard(Arc<Cap>);

impl Drop for CapGuard {
    fn drop(&mut self) {
        let mut busy = self.0.busy.lock().unwrap_or_else(|e| e.into_inner());
        *busy -= 1;
        self.0.freed.notify_one();
    }
}

impl Backend {
    /// A backend with no call made yet.
    pub fn new() -> Self {
        Self::default()
    }

    fn cap(&self, settings: &ProviderSettings) -> Arc<Cap> {
        let mut caps = self.caps.lock().unwrap_or_else(|e| e.into_inner());
        caps.entry(settings.name.clone())
            .or_insert_with(|| {
                Arc::new(Cap {
                    limit: settings.concurrency.max(1),
                    busy: Mutex::new(0),
                    freed: Condvar::new(),
                })
            })
            .clone()
    }

    /// Calls the model, retrying what [`Error::retryable`] allows up to
    /// `settings.retries` more times with exponential backoff and jitter
    /// (or the server's `Retry-After`). `timeout` bounds each attempt.
    pub fn call(
        &self,
        settings: &ProviderSettings,
        request: &Request,
        timeout: Duration,
    ) -> Result<Called, Error> {
        self.call_until(settings, request, timeout, None)
    }

    /// [`Backend::call`], with every attempt and wait ending by `deadline`
    /// (the stage's whole time): no retry starts that could not finish.
    pub fn call_until(
        &self,
        settings: &ProviderSettings,
        request: &Request,
        timeout: Duration,
        deadline: Option<Instant>,
    ) -> Result<Called, Error> {
        self.call_with(settings, request, timeout, deadline, &mut |_| {})
    }

    /// [`Backend::call_until`], telling `on` of each attempt and, when
    /// `request.stream` is set, of each piece of text as it arrives.
    pub fn call_with(
        &self,
        settings: &ProviderSettings,
        request: &Request,
        timeout: Duration,
        deadline: Option<Instant>,
        on: &mut dyn FnMut(Chunk<'_>),
    ) -> Result<Called, Error> {
        let cap = self.cap(settings);
        let left = || deadline.map(|d| d.saturating_duration_since(Instant::now()));
        let mut attempt = 0u32;
        loop {
            attempt += 1;
            let started = Instant::now();
            let result = {
                let _slot = cap.acquire();
                let timeout = left().map_or(timeout, |l| l.min(timeout));
                on(Chunk::Attempt(attempt));
                once(settings, request, timeout, on)
            };
            match result {
                Ok(response) => {
                    return Ok(Called {
                        response,
                        latency: started.elapsed(),
                        attempts: attempt,
                    });
                }
                Err(e) if e.retryable() && attempt <= settings.retries => {
                    let wait = match e.retry_after {
                        Some(w) if w > MAX_RETRY_AFTER => return Err(e),
                        Some(w) => w,
                        None => backoff(settings.retry_delay, attempt),
                    };
                    if left().is_some_and(|l| l <= wait) {
                        let mut e = e;
                        e.message = format!(
                            "{} (no time left in the stage's timeout to retry after {attempt} attempt{})",
                            e.message,
                            if attempt == 1 { "" } else { "s" }
                        );
                        return Err(e);
                    }
                    std::thread::sleep(wait);
                }
                Err(mut e) => {
                    if attempt > 1 {
                        e.message = format!("{} (after {attempt} attempts)", e.message);
                    }
                    return Err(e);
                }
            }
        }
    }
}

/// The wait before attempt `attempt + 1`: `base * 2^(attempt-1)`, capped at
/// 60 s, with up to a quarter of it added as jitter so that parallel
/// stages do not retry in step.
pub fn backoff(base: Duration, attempt: u32) -> Duration {
    let exp = base.saturating_mul(1u32 << (attempt - 1).min(16));
    let exp = exp.min(Duration::from_secs(60));
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let jitter = exp.mul_f64(f64::from(nanos % 1000) / 4000.0);
    exp + jitter
}

/// One attempt.
fn once(
    settings: &ProviderSettings,
    request: &Request,
    timeout: Duration,
    on: &mut dyn FnMut(Chunk<'_>),
) -> Result<Response, Error> {
    let api = settings.api;
    let key = settings.key.expose();
    let url = provider::url(api, &settings.base_url, &request.model, request.stream);
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_global(Some(timeout))
        .http_status_as_error(false)
        .build()
        .into();
    let mut call = agent.post(&url);
    for (name, value) in provider::headers(api, key) {
        call = call.header(name, value);
    }
    let body = provider::body(api, request).to_string();
    let clean = |text: String| redact(&text, key);
    let fail = |kind, message: String| Error {
        kind,
        message: clean(message),
        retry_after: None,
    };
    let mut response = call
        .send(body.as_str())
        .map_err(|e| transport(e, &url, timeout, &clean))?;
    let status = response.status().as_u16();
    let retry_after = response
        .headers()
        .get("retry-after")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok())
        .map(Duration::from_secs);
    let sse = response
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/event-stream"));
    if sse && (200..300).contains(&status) {
        return read_stream(settings, response.body_mut(), &url, timeout, &clean, on);
    }
    let text = response
        .body_mut()
        .with_config()
        .limit(MAX_BODY_BYTES)
        .read_to_string()
        .map_err(|e| transport(e, &url, timeout, &clean))?;
    let doc: Result<Value, _> = serde_json::from_str(&text);
    if !(200..300).contains(&status) {
        let detail = doc
            .ok()
            .as_ref()
            .and_then(provider::error_message)
            .unwrap_or_else(|| snippet(&text));
        let mut message = format!("{} answered HTTP {status}: {detail}", settings.name);
        if matches!(status, 400 | 422) && crate::structured::applies(api, request) {
            // A compatible server may not take the schema: say how to stop
            // sending it.
            message.push_str(&format!(
                " (the request asked for the routing answer as structured output; if the server \
                 does not support it, set `structured_output = false` under [llm.providers.{}] in wf.toml)",
                settings.name
            ));
        }
        let mut e = fail(ErrorKind::Status(status), message);
        e.retry_after = retry_after;
        return Err(e);
    }
    let doc = doc.map_err(|e| {
        fail(
            ErrorKind::Malformed,
            format!(
                "{} answered with a body that is not JSON ({e}): {}",
                settings.name,
                snippet(&text)
            ),
        )
    })?;
    provider::parse(api, &doc).map_err(|what| {
        fail(
            ErrorKind::Malformed,
            format!(
                "{} answered with JSON the {} API does not send: {what}",
                settings.name,
                api.name()
            ),
        )
    })
}

/// Reads a streamed answer line by line, reporting its text as it comes.
fn read_stream(
    settings: &ProviderSettings,
    body: &mut ureq::Body,
    url: &str,
    timeout: Duration,
    clean: &dyn Fn(String) -> String,
    on: &mut dyn FnMut(Chunk<'_>),
) -> Result<Response, Error> {
    use std::io::BufRead;
    let fail = |message: String| Error {
        kind: ErrorKind::Stream,
        message: clean(format!(
            "{} streamed a broken answer: {message}",
            settings.name
        )),
        retry_after: None,
    };
    let reader = body.with_config().limit(MAX_BODY_BYTES).reader();
    let mut reader = std::io::BufReader::new(reader);
    let mut decoder = stream::Decoder::default();
    let mut acc = stream::Accumulator::new(settings.api);
    let mut line = Vec::new();
    loop {
        line.clear();
        let n = reader.read_until(b'\n', &mut line).map_err(|e| {
            // ureq reports its own errors (timeout, size) inside io::Error.
            match e.downcast::<ureq::Error>() {
                Ok(e) => transport(e, url, timeout, clean),
                Err(e) => fail(format!("the connection failed mid-answer: {e}")),
            }
        })?;
        let event = if n == 0 {
            decoder.flush()
        } else {
            let text =
                std::str::from_utf8(&line).map_err(|_| fail("a line is not UTF-8".into()))?;
            decoder.line(text.trim_end_matches('\n'))
        };
        if let Some(event) = event {
            let delta = acc.feed(&event).map_err(&fail)?;
            if !delta.is_empty() {
                on(Chunk::Text(&delta));
            }
        }
        if n == 0 {
            break;
        }
    }
    acc.finish().map_err(fail)
}

/// A transport error as an [`Error`].
fn transport(
    e: ureq::Error,
    url: &str,
    timeout: Duration,
    clean: &dyn Fn(String) -> String,
) -> Error {
    let (kind, message) = match e {
        ureq::Error::Timeout(_) => (
            ErrorKind::Timeout,
            format!("no answer from {url} within {} s", timeout.as_secs_f64()),
        ),
        ureq::Error::BodyExceedsLimit(n) => (
            ErrorKind::TooLarge,
            format!("the answer from {url} is larger than {n} bytes; refusing to read it"),
        ),
        other => (ErrorKind::Network, format!("cannot reach {url}: {other}")),
    };
    Error {
        kind,
        message: clean(message),
        retry_after: None,
    }
}

/// The start of a body, for an error message.
fn snippet(text: &str) -> String {
    let cut: String = text.chars().take(200).collect();
    if cut.len() < text.len() {
        format!("{cut}…")
    } else {
        cut
    }
}
