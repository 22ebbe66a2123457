//! Writing to stdout: the one way the controller and its threads print. Each line is written
//! whole under the stdout lock and flushed at once, so lines from the controller and the
//! search worker never interleave and a GUI reads each as soon as it is printed.

use std::io::Write;

/// Writes one line to stdout and flushes it.
pub(super) fn emit(line: &str) {
    let stdout = std::io::stdout();
    let mut lock = stdout.lock();
    let _ = writeln!(lock, "{line}");
    let _ = lock.flush();
}
