//! Reading a large module's runs of items ([`crate::stream`]) on several threads, in file
//! order.
//!
//! [`cut_points`] cuts the text into stretches of about a given size where a top-level item
//! most likely ends: after a `}` at the start of a line (how every PTX writer closes a function
//! body), past the `;` of an initializer and the comments and whitespace after it, at the next
//! token. This is a guess that costs one `memmem` per stretch; it is not trusted. Each stretch
//! is read by [`ItemReader::range`], whose lexer runs on the whole text from the stretch's start
//! and checks that a run ends exactly at the stretch's end. By induction from the first
//! stretch (which starts at 0), every stretch then starts where a run of the whole-text reader
//! starts, and its runs are that reader's runs. Where a guess was wrong (a `}` closing a nested
//! block, inside a comment, …), [`RunError::Boundary`] names the start of the run that crosses
//! the cut and `OrderedRuns` reads the rest of the text from there on one thread. The runs
//! the consumer sees are therefore the one-thread reader's, for every thread count.
//!
//! [`with_runs`] reads the stretches on `threads - 1` worker threads and the calling thread:
//! the caller consumes the runs in order ([`Runs`]) and, while the next stretch is not ready,
//! reads one itself. Workers read at most [`WINDOW`] stretches ahead of the consumer, so
//! memory holds a bounded number of syntax trees whatever the file's size. The consumer hands
//! each run back when it is done with it ([`Runs::done_with`]), and the thread that read the
//! run frees it ([`FREE_LAG`] runs later): freeing another thread's blocks costs the allocator
//! (mimalloc) an atomic hand-over per block and the freeing core a cache miss per node (the
//! checker freeing the workers' trees took 141 ms of CPU against 126 ms on the 7.6 MB bench
//! module, in one alternated series).

use crate::ast::Item;
use crate::stream::{ItemReader, RunError};
use std::sync::{Condvar, Mutex, MutexGuard};

/// How many runs handed back a worker keeps before it frees the oldest. Freeing writes into
/// every block of a tree the checker has just read, which the checker's core still holds in
/// its cache; a few runs later most of those lines have left it, and the writes (and the
/// next tree's, into the same blocks) cost no cross-core invalidation. Measured on the
/// 7.6 MB bench module (`chrt -f 1`, 20 alternated runs): 0 runs 88 ms CPU, 49.7 ms wall; 3
/// runs 82.5 ms, 46.0 ms, at the same peak RSS (4 runs: +2 MB).
pub const FREE_LAG: usize = 3;

/// One run of items, as [`ItemReader::next_items`] gives it.
pub type Run = Result<Vec<Item>, RunError>;

/// How many stretches past the one being consumed may be read (or being read) at once.
pub const WINDOW: usize = 4;

/// The offsets where stretches of at least `size` bytes begin, then `text.len()`: `[0, c1,
/// …, text.len()]`. Each cut is at a token after a `}` that begins a line (and the `;` after
/// it, if any); see the module docs for why a wrong guess does no harm.
pub fn cut_points(text: &str, size: usize) -> Vec<usize> {
    let bytes = text.as_bytes();
    let finder = memchr::memmem::Finder::new(b"\n}");
    let mut cuts = vec![0];
    let mut from = size.max(1);
    while from < bytes.len() {
        let Some(at) = finder.find(&bytes[from..]) else {
            break;
        };
        let mut cut = skip_blank(bytes, from + at + 2);
        if bytes.get(cut) == Some(&b';') {
            cut = skip_blank(bytes, cut + 1);
        }
        if cut >= bytes.len() {
            break;
        }
        cuts.push(cut);
        from = cut + size.max(1);
    }
    cuts.push(bytes.len());
    cuts
}

/// The first offset from `at` on that is not whitespace or inside a comment (the lexer's skip
/// rules); `bytes.len()` if there is none.
fn skip_blank(bytes: &[u8], mut at: usize) -> usize {
    loop {
        match bytes.get(at..) {
            Some([b' ' | b'\t' | b'\r' | b'\n' | b'\x0c', ..]) => at += 1,
            Some([b'/', b'/', ..]) => match memchr::memchr(b'\n', &bytes[at..]) {
                Some(n) => at += n,
                None => return bytes.len(),
            },
            Some([b'/', b'*', ..]) => match memchr::memmem::find(&bytes[at + 2..], b"*/") {
                Some(n) => at += n + 4,
                None => return bytes.len(),
            },
            _ => return at.min(bytes.len()),
        }
    }
}

/// Calls `consume` with the runs of `text` in file order, read on `threads` threads (the
/// caller's included) from stretches of about `size` bytes. With one thread, or a text of one
/// stretch, this is [`ItemReader::new`]'s sequence on the calling thread alone.
pub fn with_runs<R>(
    text: &str,
    threads: usize,
    size: usize,
    consume: impl FnOnce(&mut Runs<'_, '_>) -> R,
) -> R {
    let cuts = if threads > 1 && text.len() < u32::MAX as usize {
        cut_points(text, size)
    } else {
        vec![0, text.len()]
    };
    if cuts.len() <= 2 {
        return consume(&mut Runs(Source::Reader(ItemReader::new(text))));
    }
    let workers = threads.min(cuts.len() - 1) - 1;
    let shared = Shared {
        text,
        ready: Condvar::new(),
        state: Mutex::new(State {
            claimed: 0,
            consuming: 0,
            stop: false,
            read: (1..cuts.len()).map(|_| None).collect(),
            freeing: (0..workers).map(|_| Vec::new()).collect(),
            orphaned: Vec::new(),
        }),
        cuts,
    };
    std::thread::scope(|scope| {
        for id in 0..workers {
            let shared = &shared;
            let spawned = std::thread::Builder::new()
                .name(format!("ptx-reader-{id}"))
                .spawn_scoped(scope, move || shared.work(id));
            // Without the thread (out of threads or memory), its share is read by the others.
            drop(spawned);
        }
        let mut runs = Runs(Source::Stretches(OrderedRuns {
            shared: &shared,
            next: 0,
            current: Vec::new().into_iter(),
            current_reader: Reader::Consumer,
            consumed: Vec::new(),
            rest: None,
            finished: false,
        }));
        consume(&mut runs)
        // `runs` is dropped here, which stops the workers before the scope joins them.
    })
}

/// The runs of a module in file order (an iterator), read on one thread or several.
pub struct Runs<'a, 's>(Source<'a, 's>);

enum Source<'a, 's> {
    Reader(ItemReader<'s>),
    Stretches(OrderedRuns<'a, 's>),
}

impl Runs<'_, '_> {
    /// Hands back the items of the last run [`Iterator::next`] gave, once the caller is done
    /// with them (and before it asks for the next run), for the thread that read them to free.
    pub fn done_with(&mut self, items: Vec<Item>) {
        match &mut self.0 {
            Source::Stretches(runs) if runs.current_reader != Reader::Consumer => {
                runs.consumed.push(items)
            }
            _ => drop(items),
        }
    }
}

impl Iterator for Runs<'_, '_> {
    type Item = Run;

    fn next(&mut self) -> Option<Run> {
        match &mut self.0 {
            Source::Reader(reader) => reader.next_items(),
            Source::Stretches(runs) => runs.next(),
        }
    }
}

/// Which thread read a stretch.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Reader {
    Consumer,
    Worker(usize),
}

/// What the workers and the consumer share.
struct Shared<'s> {
    text: &'s str,
    /// The stretches' starts, then the text's end.
    cuts: Vec<usize>,
    state: Mutex<State>,
    /// Signalled when a stretch has been read, when the consumer moves on, and on stop.
    ready: Condvar,
}

struct State {
    /// Stretches handed out so far (the next one to read is this index).
    claimed: usize,
    /// The stretch the consumer reads runs from.
    consuming: usize,
    /// The consumer is done (or read on alone): read nothing more.
    stop: bool,
    /// Each stretch's runs and who read them, once read and until consumed.
    read: Vec<Option<(Reader, Vec<Run>)>>,
    /// Per worker: the trees it read that the consumer is done with, for it to free.
    freeing: Vec<Vec<Vec<Item>>>,
    /// Stretches whose worker panicked while reading them: the consumer reads them itself
    /// (and meets the same panic, as one thread would) instead of waiting for ever.
    orphaned: Vec<usize>,
}

/// A worker's claim on a stretch: dropped unfinished (a panic in the parser), it hands the
/// stretch back as orphaned.
struct Claim<'a, 's> {
    shared: &'a Shared<'s>,
    stretch: usize,
}

impl Drop for Claim<'_, '_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.shared.lock().orphaned.push(self.stretch);
            self.shared.ready.notify_all();
        }
    }
}

impl Shared<'_> {
    fn stretches(&self) -> usize {
        self.cuts.len() - 1
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // The parser runs outside the lock, so the lock is never poisoned by a parser panic;
        // the state is only changed under it by code that does not panic.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The next stretch to read, if one is within the window.
    fn claim(&self, state: &mut State) -> Option<usize> {
        let i = state.claimed;
        (!state.stop && i < self.stretches() && i < state.consuming + WINDOW).then(|| {
            state.claimed += 1;
            i
        })
    }

    /// Every run of stretch `i` (ending at the first error, as the reader does).
    fn read_stretch(&self, i: usize) -> Vec<Run> {
        let mut reader = ItemReader::range(self.text, self.cuts[i], self.cuts[i + 1]);
        std::iter::from_fn(|| reader.next_items()).collect()
    }

    /// A worker: reads stretches until there are none left or the consumer stops, and frees
    /// the trees it read once the consumer hands them back.
    fn work(&self, id: usize) {
        let mut backlog = std::collections::VecDeque::new();
        let mut state = self.lock();
        loop {
            let done = std::mem::take(&mut state.freeing[id]);
            if !done.is_empty() {
                drop(state);
                backlog.extend(done);
                while backlog.len() > FREE_LAG {
                    drop(backlog.pop_front());
                }
                state = self.lock();
                continue;
            }
            if state.stop || state.claimed >= self.stretches() {
                return;
            }
            let Some(i) = self.claim(&mut state) else {
                state = self.ready.wait(state).unwrap_or_else(|e| e.into_inner());
                continue;
            };
            drop(state);
            let claim = Claim {
                shared: self,
                stretch: i,
            };
            let runs = self.read_stretch(i);
            drop(claim);
            state = self.lock();
            if !state.stop {
                state.read[i] = Some((Reader::Worker(id), runs));
            }
            self.ready.notify_all();
        }
    }

    /// Stretch `i`'s runs and who read them, read by a worker or, while none has them ready,
    /// by this thread. `consumed` are the trees of the stretch before, which `reader` read.
    fn take(&self, i: usize, reader: Reader, consumed: Vec<Vec<Item>>) -> (Reader, Vec<Run>) {
        let mut state = self.lock();
        state.consuming = i;
        if let Reader::Worker(id) = reader {
            state.freeing[id].extend(consumed);
        }
        self.ready.notify_all();
        loop {
            if let Some(read) = state.read[i].take() {
                return read;
            }
            if let Some(k) = state.orphaned.iter().position(|&o| o == i) {
                state.orphaned.swap_remove(k);
                drop(state);
                return (Reader::Consumer, self.read_stretch(i));
            }
            if let Some(j) = self.claim(&mut state) {
                drop(state);
                let runs = self.read_stretch(j);
                state = self.lock();
                state.read[j] = Some((Reader::Consumer, runs));
                self.ready.notify_all();
                continue;
            }
            state = self.ready.wait(state).unwrap_or_else(|e| e.into_inner());
        }
    }

    fn stop(&self) {
        let mut state = self.lock();
        state.stop = true;
        // What was read ahead is not needed; free it now rather than at the scope's end.
        state.read.iter_mut().for_each(|r| *r = None);
        state.freeing.iter_mut().for_each(Vec::clear);
        self.ready.notify_all();
    }
}

/// The consumer's side: the stretches' runs in order, then (after a wrong cut) the rest of
/// the text read on this thread.
struct OrderedRuns<'a, 's> {
    shared: &'a Shared<'s>,
    /// The next stretch to take.
    next: usize,
    current: std::vec::IntoIter<Run>,
    /// Who read `current`.
    current_reader: Reader,
    /// The trees of `current` the consumer is done with.
    consumed: Vec<Vec<Item>>,
    /// After a wrong cut: the reader of the rest of the text.
    rest: Option<ItemReader<'s>>,
    /// A run failed: like the reader, give nothing more.
    finished: bool,
}

impl Iterator for OrderedRuns<'_, '_> {
    type Item = Run;

    fn next(&mut self) -> Option<Run> {
        loop {
            if self.finished {
                return None;
            }
            if let Some(reader) = &mut self.rest {
                return reader.next_items();
            }
            match self.current.next() {
                Some(Err(RunError::Boundary { resume })) => {
                    self.shared.stop();
                    self.current_reader = Reader::Consumer;
                    self.consumed.clear();
                    self.rest = Some(ItemReader::range(
                        self.shared.text,
                        resume as usize,
                        self.shared.text.len(),
                    ));
                }
                Some(run) => {
                    self.finished = run.is_err();
                    return Some(run);
                }
                None if self.next == self.shared.stretches() => return None,
                None => {
                    let consumed = std::mem::take(&mut self.consumed);
                    let (reader, runs) = self.shared.take(self.next, self.current_reader, consumed);
                    self.current = runs.into_iter();
                    self.current_reader = reader;
                    self.next += 1;
                }
            }
        }
    }
}

impl Drop for OrderedRuns<'_, '_> {
    fn drop(&mut self) {
        self.shared.stop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all_runs(text: &str, threads: usize, size: usize) -> Vec<String> {
        with_runs(text, threads, size, |runs| {
            let mut out = Vec::new();
            while let Some(run) = runs.next() {
                out.push(match run {
                    Ok(items) => {
                        let text = format!("{items:?}");
                        runs.done_with(items);
                        text
                    }
                    Err(e) => format!("error {e:?}"),
                });
            }
            out
        })
    }

    const MODULE: &str = ".version 8.0\n.target sm_80\n.address_size 64\n\
        .global .b32 a[2] = {1, 2\n};\n\
        .visible .entry k(.param .u64 p)\n{\n  {\n  ret;\n}\n ret;\n}\n// done\n\
        .func f() { /* c */ ret;\n}\n;  /* x\n}\n */ .global .b32 b;\n\
        .func g() {\n ret;\n}\n";

    #[test]
    fn cuts_fall_after_closing_braces_at_line_starts() {
        let cuts = cut_points(MODULE, 1);
        assert_eq!(cuts[0], 0);
        assert_eq!(*cuts.last().unwrap(), MODULE.len());
        assert!(cuts.windows(2).all(|w| w[0] < w[1]), "{cuts:?}");
        let starts: Vec<&str> = cuts[1..cuts.len() - 1]
            .iter()
            .map(|&c| MODULE[c..].split_whitespace().next().unwrap())
            .collect();
        // After the initializer's `};`, the nested block's `}` (a wrong guess), the kernel
        // (past the comment), and the function `f` (past its `;` and the comment after it).
        assert_eq!(starts, [".visible", "ret;", ".func", ".global"]);
    }

    #[test]
    fn every_thread_count_and_size_gives_the_one_thread_runs() {
        let one = all_runs(MODULE, 1, 1);
        assert_eq!(one.len(), 5, "{one:?}");
        for threads in 2..=4 {
            for size in [1, 8, 40, 100, 1000] {
                assert_eq!(all_runs(MODULE, threads, size), one, "{threads} {size}");
            }
        }
    }

    #[test]
    fn a_syntax_error_ends_the_runs_in_the_same_place() {
        let text = MODULE.replace(" ret;\n}\n// done", " @ ;\n}\n// done");
        let one = all_runs(&text, 1, 1);
        assert!(one.last().unwrap().starts_with("error Syntax"), "{one:?}");
        for threads in 2..=3 {
            assert_eq!(all_runs(&text, threads, 1), one);
        }
    }

    #[test]
    fn a_stretch_that_ends_inside_a_run_is_reported() {
        // The cut guess for `}` inside the nested block.
        let start = MODULE.find(".visible").unwrap();
        let nested = MODULE.find("}\n ret;").unwrap() + 2;
        let mut r = ItemReader::range(MODULE, start, nested);
        assert!(matches!(
            r.next_items(),
            Some(Err(RunError::Boundary { resume })) if resume as usize == start
        ));
        // Inside the comment: no token starts at the cut.
        let in_comment = MODULE.find("}\n */").unwrap() + 2;
        let start = MODULE.find(".func f").unwrap();
        let mut r = ItemReader::range(MODULE, start, in_comment);
        assert!(matches!(
            r.next_items(),
            Some(Err(RunError::Boundary { resume })) if resume as usize == start
        ));
        assert!(r.next_items().is_none());
    }
}
