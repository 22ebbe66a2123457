//! The input thread: owns stdin for the whole process. It reads lines, parses them into
//! commands and forwards them to the controller; it raises the stop flag itself on `stop` and
//! `quit` (and at the end of input), so a search reacts at once, without waiting for the
//! controller to read the command.

use std::io::BufRead;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::thread;

use crossbeam_channel::{Receiver, Sender, unbounded};

use crate::search::SharedFlags;
use crate::uci::{self, Command};

/// Starts the input thread; the commands it reads arrive on the returned channel, which ends
/// after `quit` (sent also at the end of input).
pub(super) fn spawn(flags: Arc<SharedFlags>) -> Receiver<Command> {
    let (commands, received) = unbounded::<Command>();
    thread::Builder::new()
        .name("stdin".into())
        .spawn(move || read_stdin(commands, flags))
        .expect("cannot start the input thread");
    received
}

/// The input thread's loop.
fn read_stdin(commands: Sender<Command>, flags: Arc<SharedFlags>) {
    let stdin = std::io::stdin();
    let mut lock = stdin.lock();
    let mut buf = Vec::new();
    loop {
        buf.clear();
        match lock.read_until(b'\n', &mut buf) {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        // Invalid UTF-8 is replaced rather than rejected: the line is still parsed.
        let line = String::from_utf8_lossy(&buf);
        let cmd = uci::parse(&line);
        match cmd {
            Command::Stop => flags.stop.store(true, Ordering::SeqCst),
            Command::Quit => {
                flags.halt();
            }
            _ => {}
        }
        let quit = cmd == Command::Quit;
        if commands.send(cmd).is_err() || quit {
            return;
        }
    }
    // End of input: quit.
    flags.stop.store(true, Ordering::SeqCst);
    let _ = commands.send(Command::Quit);
}
