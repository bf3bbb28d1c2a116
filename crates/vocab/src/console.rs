//! Where a command's words go ([`Console`]), down here at the bottom of the floors so that every crate
//! that speaks (the engines, the built-in server, the driver's commands) is handed the command's console
//! instead of printing: the binary prints, a test may keep the words. Work that outlives the command's
//! borrow of its console (a task, a thread, a guard that speaks as it drops) holds an [`ErrLines`], a
//! cheap handle on the same standard error; work the command does not call itself (the study's sampler
//! and planned fault) finds the one the command scoped around it ([`ErrLines::scope`]).

use std::sync::Arc;

/// Where a command's words go: the binary prints them to stdout and stderr; a test may keep them.
pub trait Console {
    /// Text for standard output, exactly as given (each line ends with its own `\n`).
    fn out(&mut self, text: &str);

    /// One line for standard error (a warning, a gate's verdict), without its `\n`.
    fn err_line(&mut self, line: &str);

    /// A handle on this console's standard error for what speaks later than the command's borrow of
    /// the console lasts: a background task, a thread, a guard's drop.
    fn err_lines(&self) -> ErrLines;

    /// One line for standard output, without its `\n`.
    fn line(&mut self, line: &str) {
        self.out(line);
        self.out("\n");
    }

    /// Notes on what the user may not expect of `flag`'s value (a range stopping short of its end, more
    /// users than the spec has), on standard output before the work, so that standard error keeps to
    /// errors.
    fn notes(&mut self, flag: &str, notes: &[String]) {
        for note in notes {
            self.line(&format!("note: {flag} {note}"));
        }
    }
}

/// A console's standard error as a handle that is cheap to clone into tasks and threads: each
/// [`ErrLines::line`] is one line there, as [`Console::err_line`] writes it.
#[derive(Clone)]
pub struct ErrLines(Arc<dyn Fn(&str) + Send + Sync>);

impl ErrLines {
    /// The handle whose lines `write` writes (one call per line, without its `\n`).
    pub fn new(write: impl Fn(&str) + Send + Sync + 'static) -> Self {
        ErrLines(Arc::new(write))
    }

    /// Says `line` (without its `\n`).
    pub fn line(&self, line: &str) {
        (self.0)(line);
    }

    /// A handle whose lines are kept in the returned list, for tests of what a piece of work says.
    pub fn kept() -> (Self, Arc<std::sync::Mutex<Vec<String>>>) {
        let lines = Arc::new(std::sync::Mutex::new(Vec::new()));
        let keep = lines.clone();
        let handle =
            ErrLines::new(move |l| keep.lock().unwrap_or_else(|e| e.into_inner()).push(l.to_string()));
        (handle, lines)
    }

    /// Runs `work` with this handle as the one [`ErrLines::current`] finds: for what the command's
    /// work starts without the command calling it (the study's sampler, its planned fault), which
    /// take it when they start.
    pub async fn scope<T>(self, work: impl Future<Output = T>) -> T {
        SCOPED.scope(self, work).await
    }

    /// Runs `work`, on a thread of its own (a blocking task), with this handle as the one
    /// [`ErrLines::current`] finds, as [`ErrLines::scope`] does for a future.
    pub fn sync_scope<T>(self, work: impl FnOnce() -> T) -> T {
        SCOPED.sync_scope(self, work)
    }

    /// The handle the command scoped around the work under way ([`ErrLines::scope`]). Outside any
    /// scope (a unit test of the piece alone) the lines are kept nowhere: nothing there is a command's
    /// user to tell.
    pub fn current() -> Self {
        SCOPED.try_with(ErrLines::clone).unwrap_or_else(|_| ErrLines::new(|_| {}))
    }
}

impl std::fmt::Debug for ErrLines {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ErrLines")
    }
}

tokio::task_local! {
    /// The handle [`ErrLines::scope`] set for the work it runs.
    static SCOPED: ErrLines;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_scoped_handle_is_the_one_work_inside_finds() {
        let (handle, kept) = ErrLines::kept();
        handle.scope(async { ErrLines::current().line("inside") }).await;
        ErrLines::current().line("outside: nowhere");
        assert_eq!(*kept.lock().unwrap(), ["inside"]);
    }
}
