//! The Rust runner of the shared marble table (Tests/marbles/*.marbles,
//! format in Tests/marbles/README.md): every case of every file, played on
//! the crate's virtual time (rsignalkit::testing). A file added there is
//! picked up without a change here; a line this runner cannot read, or an
//! operator or a function it does not know, fails its case, naming the
//! file and line.
//!
//! A callback the case makes fail (`!`, the README's "Functions") panics
//! with "marble callback failed...": the runner checks that the case's
//! error is `"panicked: "` and that message, and that a side effect's panic
//! went to the failure hook instead (docs/misuse.md's "A callback that
//! fails"). The hook is the process's: each test holds `common::serial()`.
//!
//! A bounded operator (its `_with` form) is given an `on_drop` that records
//! each value with its frame, compared with the case's `dropped` line.
//! Where the policy ends the stream (error, block), the error received
//! must be the operator's overflow error.
#[path = "../rsignalkit/tests/common/mod.rs"]
mod common;

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use rsignalkit::testing::{SubscriptionLog, TestScheduler};
use rsignalkit::{set_failure_hook, AnyValue, Observer, Overflow, Signal, Subscription, TakeAction};

// marble_operator!: the operators of the table, made from it and the
// shapes (`make api-update`).
include!("generated/marble_operators.rs");

fn marbles_dir() -> PathBuf {
    match std::env::var_os("SIGNALKIT_MARBLES") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../Tests/marbles"),
    }
}

/// A subscription's frames: from, and to (None: never disposed).
type Span = (u32, Option<u32>);
/// A subscription made during the case, disposed at its end.
type Slot = Arc<Mutex<Option<Subscription>>>;

#[derive(Default, Clone)]
struct Case {
    name: String,
    at: String,
    inputs: Vec<(String, bool, String)>, // name, hot, diagram
    values: HashMap<char, AnyValue>,
    ops: Vec<(Vec<String>, String)>,
    out: Option<String>,
    subs: Vec<(String, Option<Vec<Span>>)>,
    dispose: Option<u32>,
    also: Vec<(u32, Option<u32>, String)>,
    dropped: Option<String>,
    /// `during C XYZ`: the trigger's character and the characters put.
    during: Option<(char, String)>,
    /// `fails C`: the character at whose value the subscriber's next
    /// closure panics.
    fails: Option<char>,
    problem: Option<String>,
}

/// The case's bounded operator: what its `on_drop` received, with frames,
/// the words of the error its policy ends the stream with, and the host
/// queues it delivers on.
#[derive(Default)]
struct Bounded {
    used: bool,
    drops: Arc<Mutex<Vec<Event>>>,
    expect: Option<&'static str>,
    hosts: Vec<rsignalkit::Queue>,
}

fn value_of(text: &str) -> Result<AnyValue, String> {
    if let Ok(n) = text.parse::<i64>() {
        return Ok(AnyValue::Int(n));
    }
    if text.starts_with('[') && text.ends_with(']') {
        let inner = &text[1..text.len() - 1];
        if inner.is_empty() {
            return Ok(AnyValue::Array(vec![]));
        }
        return inner
            .split(',')
            .map(|n| n.parse::<i64>().map(AnyValue::Int).map_err(|_| format!("not an integer: {:?}", n)))
            .collect::<Result<Vec<_>, _>>()
            .map(AnyValue::Array);
    }
    Err(format!("not an integer or a list of integers: {:?}", text))
}

fn read_cases() -> Vec<Case> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(marbles_dir())
        .unwrap_or_else(|e| panic!("no marble table at {:?} ({}): set SIGNALKIT_MARBLES", marbles_dir(), e))
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().map_or(false, |e| e == "marbles"))
        .collect();
    paths.sort();
    assert!(!paths.is_empty(), "no *.marbles file in {:?}", marbles_dir());
    let mut cases: Vec<Case> = Vec::new();
    let mut names = std::collections::HashSet::new();
    for path in paths {
        let file = path.file_name().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(&path).unwrap();
        let mut open = false;
        for (number, raw) in text.lines().enumerate() {
            let line = raw.trim();
            let at = format!("{}:{}", file, number + 1);
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let words: Vec<&str> = line.split_whitespace().collect();
            if words[0] == "case" {
                let mut case = Case { name: words.get(1).unwrap_or(&"unnamed").to_string(), at: at.clone(), ..Case::default() };
                if words.len() != 2 || !names.insert(case.name.clone()) {
                    case.problem = Some(format!("{}: a case needs one name, unique across the files", at));
                }
                cases.push(case);
                open = true;
                continue;
            }
            if !open {
                cases.push(Case { name: format!("outside-a-case@{}", at), problem: Some(format!("{}: {} outside a case", at, words[0])), ..Case::default() });
                continue;
            }
            let case = cases.last_mut().unwrap();
            let rest = |n: usize| line.splitn(n + 1, char::is_whitespace).nth(n).unwrap_or("").trim().to_string();
            let result: Result<(), String> = (|| {
                match words[0] {
                    "in" | "hot" => case.inputs.push((words.get(1).ok_or("a name")?.to_string(), words[0] == "hot", rest(2))),
                    "value" => {
                        if words.len() != 3 || words[1].chars().count() != 1 {
                            return Err("value C V".into());
                        }
                        case.values.insert(words[1].chars().next().unwrap(), value_of(words[2])?);
                    }
                    "op" => case.ops.push((words[1..].iter().map(|w| w.to_string()).collect(), at.clone())),
                    "out" => case.out = Some(rest(1)),
                    "sub" => {
                        let name = words.get(1).ok_or("sub NAME")?.to_string();
                        if words.get(2) == Some(&"never") {
                            case.subs.push((name, None));
                        } else {
                            let from = words.get(2).ok_or("sub NAME FROM TO")?.parse::<u32>().map_err(|e| e.to_string())?;
                            let to = match *words.get(3).ok_or("sub NAME FROM TO")? {
                                "-" => None,
                                n => Some(n.parse::<u32>().map_err(|e| e.to_string())?),
                            };
                            match case.subs.iter_mut().find(|(n, _)| *n == name) {
                                Some((_, Some(list))) => list.push((from, to)),
                                _ => case.subs.push((name, Some(vec![(from, to)]))),
                            }
                        }
                    }
                    "dispose" => case.dispose = Some(words.get(1).ok_or("dispose FRAME")?.parse::<u32>().map_err(|e| e.to_string())?),
                    "dropped" => case.dropped = Some(rest(1)),
                    "during" => {
                        if words.len() != 3 || words[1].chars().count() != 1 {
                            return Err("during C XYZ".into());
                        }
                        case.during = Some((words[1].chars().next().unwrap(), words[2].to_string()));
                    }
                    "fails" => {
                        if words.len() != 2 || words[1].chars().count() != 1 {
                            return Err("fails C".into());
                        }
                        case.fails = Some(words[1].chars().next().unwrap());
                    }
                    "also" => {
                        let from = words.get(1).ok_or("also FROM TO D")?.parse::<u32>().map_err(|e| e.to_string())?;
                        let to = match *words.get(2).ok_or("also FROM TO D")? {
                            "-" => None,
                            n => Some(n.parse::<u32>().map_err(|e| e.to_string())?),
                        };
                        case.also.push((from, to, rest(3)));
                    }
                    "end" => open = false,
                    other => return Err(format!("unknown line {:?}", other)),
                }
                Ok(())
            })();
            if let Err(e) = result {
                if case.problem.is_none() {
                    case.problem = Some(format!("{}: cannot read {:?}: {}", at, line, e));
                }
            }
        }
    }
    cases
}

type Event = (u64, &'static str, Option<AnyValue>);

fn expected_events(diagram: &str, table: &HashMap<char, AnyValue>) -> Vec<Event> {
    let (mut events, mut frame, mut group) = (Vec::new(), 0u64, false);
    for ch in diagram.chars() {
        match ch {
            ' ' | '^' => continue,
            '(' => {
                group = true;
                continue;
            }
            ')' => {
                group = false;
                frame += 1;
                continue;
            }
            '|' => events.push((frame, "completed", None)),
            '#' => events.push((frame, "error", None)),
            '-' => {}
            c => events.push((frame, "next", Some(table.get(&c).cloned().unwrap_or_else(|| AnyValue::String(c.to_string()))))),
        }
        if !group {
            frame += 1;
        }
    }
    events
}

fn int(v: &AnyValue) -> i64 {
    match v {
        AnyValue::Int(n) => *n,
        other => panic!("the table's functions take integers, not {:?}", other),
    }
}

/// A failing callback's panic: its message, and whether a side effect's.
type Failure = (String, bool);

thread_local! {
    /// The panics of the case's failing callbacks, on the thread that
    /// plays it (the virtual clock's events run there).
    static FAILURES: RefCell<Vec<Failure>> = const { RefCell::new(Vec::new()) };
    /// The errors the failing subscriber of a `fails` case received itself
    /// (what it forwards, put into a subscriber, arrives as a string).
    static SUBSCRIBER_ERRORS: RefCell<Vec<AnyValue>> = const { RefCell::new(Vec::new()) };
}

/// A failing callback's panic, called with `at` (empty: no value).
fn fail(at: String) -> ! {
    fail_as(at, false)
}

fn fail_as(at: String, side_effect: bool) -> ! {
    let message = if at.is_empty() { "marble callback failed".to_string() } else { format!("marble callback failed at {}", at) };
    FAILURES.with(|failures| failures.borrow_mut().push((message.clone(), side_effect)));
    panic!("{}", message)
}

/// A function's text (`times:3!2`) without its failure mark, and the value
/// it fails at.
fn failure_mark(spec: &str, at: &str) -> Result<(String, Option<i64>), String> {
    match spec.split_once('!') {
        Some((name, k)) => Ok((name.to_string(), Some(k.parse::<i64>().map_err(|_| format!("{}: the value after `!` is not an integer in {:?}", at, spec))?))),
        None => Ok((spec.to_string(), None)),
    }
}

type Unary = Arc<dyn Fn(i64) -> i64 + Send + Sync>;
type Predicate = Arc<dyn Fn(i64) -> bool + Send + Sync>;
type Binary = Arc<dyn Fn(i64, i64) -> i64 + Send + Sync>;

enum Function {
    Unary(Unary),
    Predicate(Predicate),
    Binary(Binary),
}

fn function(written: &str, at: &str) -> Result<Function, String> {
    let (spec, fails_at) = failure_mark(written, at)?;
    let made = plain_function(&spec, at)?;
    let k = match fails_at {
        Some(k) => k,
        None => return Ok(made),
    };
    // Fails when the value (a fold's, not its accumulator) is k.
    let check = move |x: i64| {
        if x == k {
            fail(x.to_string())
        }
    };
    Ok(match made {
        Function::Unary(f) => Function::Unary(Arc::new(move |x| {
            check(x);
            f(x)
        })),
        Function::Predicate(f) => Function::Predicate(Arc::new(move |x| {
            check(x);
            f(x)
        })),
        Function::Binary(f) => Function::Binary(Arc::new(move |a, x| {
            check(x);
            f(a, x)
        })),
    })
}

fn plain_function(spec: &str, at: &str) -> Result<Function, String> {
    let (name, argument) = match spec.split_once(':') {
        Some((n, a)) => (n, Some(a.parse::<i64>().map_err(|_| format!("{}: bad argument in {:?}", at, spec))?)),
        None => (spec, None),
    };
    let needs = matches!(name, "times" | "plus" | "mod" | "lt" | "gt" | "eq" | "ne");
    if needs != argument.is_some() {
        return Err(format!("{}: the Rust runner does not know the function {:?}", at, spec));
    }
    let k = argument.unwrap_or(0);
    Ok(match name {
        "identity" => Function::Unary(Arc::new(|x| x)),
        "negate" => Function::Unary(Arc::new(|x: i64| -x)),
        "times" => Function::Unary(Arc::new(move |x| x * k)),
        "plus" => Function::Unary(Arc::new(move |x| x + k)),
        "mod" => Function::Unary(Arc::new(move |x| if k == 0 { 0 } else { x % k })),
        "is_even" => Function::Predicate(Arc::new(|x| x % 2 == 0)),
        "is_odd" => Function::Predicate(Arc::new(|x| x % 2 != 0)),
        "always" => Function::Predicate(Arc::new(|_| true)),
        "never" => Function::Predicate(Arc::new(|_| false)),
        "lt" => Function::Predicate(Arc::new(move |x| x < k)),
        "gt" => Function::Predicate(Arc::new(move |x| x > k)),
        "eq" => Function::Predicate(Arc::new(move |x| x == k)),
        "ne" => Function::Predicate(Arc::new(move |x| x != k)),
        "add" => Function::Binary(Arc::new(|a, x| a + x)),
        "sub" => Function::Binary(Arc::new(|a, x| a - x)),
        "mul" => Function::Binary(Arc::new(|a, x| a * x)),
        "max" => Function::Binary(Arc::new(|a: i64, x: i64| a.max(x))),
        _ => return Err(format!("{}: the Rust runner does not know the function {:?}", at, spec)),
    })
}

fn unary(spec: &str, at: &str) -> Result<Unary, String> {
    match function(spec, at)? {
        Function::Unary(f) => Ok(f),
        _ => Err(format!("{}: {:?} is not a function of one value", at, spec)),
    }
}

fn predicate(spec: &str, at: &str) -> Result<Predicate, String> {
    match function(spec, at)? {
        Function::Predicate(f) => Ok(f),
        _ => Err(format!("{}: {:?} is not a predicate", at, spec)),
    }
}

fn binary(spec: &str, at: &str) -> Result<Binary, String> {
    match function(spec, at)? {
        Function::Binary(f) => Ok(f),
        _ => Err(format!("{}: {:?} is not a function of two values", at, spec)),
    }
}

/// An `op` line's argument reader (`arg` in `apply`).
type Arguments<'a> = &'a dyn Fn(usize) -> Result<String, String>;
type Look = Arc<dyn Fn(&AnyValue) + Send + Sync>;
type Work = Arc<dyn Fn() + Send + Sync>;

/// A side effect's function, which does nothing, or, written `!K`, panics
/// when its value is K.
fn look(arg: Arguments, at: &str) -> Result<Look, String> {
    if arg(1).is_ok() {
        return Err(format!("{}: a side effect takes at most one argument", at));
    }
    match arg(0) {
        Err(_) => Ok(Arc::new(|_: &AnyValue| {})),
        Ok(mark) => match failure_mark(&mark, at)? {
            (name, Some(k)) if name.is_empty() => Ok(Arc::new(move |v: &AnyValue| {
                if int(v) == k {
                    fail_as(k.to_string(), true)
                }
            })),
            _ => Err(format!("{}: a side effect takes no argument or `!K`, not {:?}", at, mark)),
        },
    }
}

/// A side effect's function of no value: nothing, or, written `!`, a panic.
fn work(arg: Arguments, at: &str) -> Result<Work, String> {
    if arg(1).is_ok() {
        return Err(format!("{}: a side effect takes at most one argument", at));
    }
    match arg(0) {
        Err(_) => Ok(Arc::new(|| {})),
        Ok(mark) if mark == "!" => Ok(Arc::new(|| fail_as(String::new(), true))),
        Ok(mark) => Err(format!("{}: a side effect of no value takes no argument or `!`, not {:?}", at, mark)),
    }
}

type S = Signal<AnyValue>;

/// A bounded operator's policy by the table's name; the error it ends the
/// stream with is expected (error: the overflow; block, which cannot wait
/// on the virtual clock's one thread: its refusal).
fn policy(bounded: &mut Bounded, name: &str) -> Result<Overflow, String> {
    let (overflow, expect) = match name {
        "dropNewest" => (Overflow::DropNewest, None),
        "dropOldest" => (Overflow::DropOldest, None),
        "latest" => (Overflow::Latest, None),
        "error" => (Overflow::Error, Some(": overflow: ")),
        "block" => (Overflow::Block, Some(": cannot block: ")),
        other => return Err(format!("`{}` is no policy (dropNewest, dropOldest, latest, error, block)", other)),
    };
    bounded.used = true;
    bounded.expect = expect;
    Ok(overflow)
}

/// An `op` line's words, read as the kinds of argument of its operator's
/// shape (generated/marble_operators.rs, written by `make api-update` from
/// the operator table and tools/api/shapes.py, says which word, 1 the first
/// after the name, is which): a count (negative: one past any; a capacity
/// or a number of retries: 0), a function of the vocabulary, a value, an
/// input's name, inputs' names (`!` where a signal function fails), frames
/// on the case's queue, a policy.
struct Line<'a> {
    words: &'a [String],
    at: &'a str,
    signal: &'a S,
    inputs: &'a HashMap<String, S>,
    scheduler: &'a TestScheduler,
    bounded: RefCell<&'a mut Bounded>,
}

impl Line<'_> {
    fn has(&self, i: usize) -> bool {
        self.words.len() > i
    }

    fn word(&self, i: usize) -> Result<String, String> {
        self.words.get(i).cloned().ok_or_else(|| format!("{}: {} needs more arguments", self.at, self.words[0]))
    }

    /// The line has exactly `n` arguments.
    fn arguments(&self, n: usize) -> Result<(), String> {
        if self.words.len() != n + 1 {
            return Err(format!("{}: {} takes {} argument(s), got {}", self.at, self.words[0], n, self.words.len() - 1));
        }
        Ok(())
    }

    fn integer(&self, i: usize) -> Result<i64, String> {
        let word = self.word(i)?;
        word.parse::<i64>().map_err(|_| format!("{}: not an integer: {:?}", self.at, word))
    }

    fn count(&self, i: usize) -> Result<usize, String> {
        Ok(usize::try_from(self.integer(i)?).unwrap_or(usize::MAX))
    }

    fn count_or_zero(&self, i: usize) -> Result<usize, String> {
        Ok(usize::try_from(self.integer(i)?).unwrap_or(0))
    }

    fn overflow(&self, i: usize) -> Result<Overflow, String> {
        policy(&mut self.bounded.borrow_mut(), &self.word(i)?).map_err(|e| format!("{}: {}", self.at, e))
    }

    fn predicate(&self, i: usize) -> Result<Predicate, String> {
        predicate(&self.word(i)?, self.at)
    }

    fn unary(&self, i: usize) -> Result<Unary, String> {
        unary(&self.word(i)?, self.at)
    }

    fn binary(&self, i: usize) -> Result<Binary, String> {
        binary(&self.word(i)?, self.at)
    }

    fn value(&self, i: usize) -> Result<AnyValue, String> {
        value_of(&self.word(i)?)
    }

    fn named(&self, name: &str) -> Result<S, String> {
        self.inputs.get(name).cloned().ok_or_else(|| format!("{}: no input named {:?}", self.at, name))
    }

    fn input(&self, i: usize) -> Result<S, String> {
        self.named(&self.word(i)?)
    }

    fn inputs(&self, i: usize) -> Result<Vec<S>, String> {
        self.words.get(i..).unwrap_or(&[]).iter().map(|n| self.named(n)).collect()
    }

    fn frames(&self, i: usize) -> Result<std::time::Duration, String> {
        Ok(self.scheduler.frames(self.integer(i)? as u32))
    }

    fn queue(&self) -> &rsignalkit::Queue {
        self.scheduler.queue()
    }

    /// A bounded operator's `on_drop`: each value recorded with its frame
    /// (README.md's `dropped`).
    fn on_drop(&self) -> impl Fn(&AnyValue, u64) + Send + Sync + 'static {
        let drops = Arc::clone(&self.bounded.borrow().drops);
        let clock = self.scheduler.clone();
        move |v: &AnyValue, _: u64| drops.lock().unwrap().push((clock.frame_now(), "next", Some(v.clone())))
    }

    /// The `on_drop` of a bounded operator of a signal of signals: a
    /// dropped signal recorded as its place among the inputs named from
    /// word `i` (the upstream's value that named it).
    fn dropped_signal(&self, i: usize) -> Result<impl Fn(&S, u64) + Send + Sync + 'static, String> {
        let names = self.inputs(i)?;
        let drops = Arc::clone(&self.bounded.borrow().drops);
        let clock = self.scheduler.clone();
        Ok(move |dropped: &S, _: u64| {
            let place = names.iter().position(|s| s == dropped).map_or(-1, |p| p as i64);
            drops.lock().unwrap().push((clock.frame_now(), "next", Some(AnyValue::Int(place))));
        })
    }

    /// A bounded operator's queue: the case's, or with `host F...` from
    /// word `i` a host queue that the case drains at the frames F.
    fn host_queue(&self, i: usize) -> Result<rsignalkit::Queue, String> {
        if !self.has(i) {
            return Ok(self.queue().clone());
        }
        if self.words[i] != "host" || !self.has(i + 1) {
            return Err(format!("{}: {} is followed by nothing or by host and frames", self.at, self.words[0]));
        }
        let host = rsignalkit::Queue::host("marble host").map_err(|e| format!("{}: no host queue: {}", self.at, e))?;
        for k in i + 1..self.words.len() {
            let drained = host.clone();
            self.scheduler
                .schedule(self.integer(k)? as u32, move || {
                    drained.drain(0).unwrap();
                })
                .unwrap();
        }
        self.bounded.borrow_mut().hosts.push(host.clone());
        Ok(host)
    }

    /// A side effect's function, from word `i` on: nothing, or `!K`.
    fn look(&self, i: usize) -> Result<Look, String> {
        look(&|n| self.word(i + n), self.at)
    }

    fn work(&self, i: usize) -> Result<Work, String> {
        work(&|n| self.word(i + n), self.at)
    }

    /// The inputs named from word `i` (`!`: None, where the function fails).
    fn failing_or_named(&self, names: &[String]) -> Result<Vec<Option<S>>, String> {
        names.iter().map(|n| if n == "!" { Ok(None) } else { self.named(n).map(Some) }).collect()
    }

    /// A signal function over the inputs named from word `i`: the value
    /// `k`'s (the first for a value that is no integer: catch's error).
    fn inner(&self, i: usize) -> Result<impl Fn(AnyValue) -> S + Send + Sync + 'static, String> {
        let names = self.failing_or_named(self.words.get(i..).unwrap_or(&[]))?;
        Ok(move |v: AnyValue| {
            let k = match v {
                AnyValue::Int(n) => n,
                _ => 0,
            };
            names[k as usize].clone().unwrap_or_else(|| fail(k.to_string()))
        })
    }

    /// deferred's: the input of word `i` at each start.
    fn make(&self, i: usize) -> Result<impl Fn() -> S + Send + Sync + 'static, String> {
        let made = self.failing_or_named(&[self.word(i)?])?.remove(0);
        Ok(move || made.clone().unwrap_or_else(|| fail(String::new())))
    }

    /// take_until's: pass a value when the predicate of word `i` holds,
    /// complete after it when the next one does.
    fn action(&self, i: usize) -> Result<impl Fn(&AnyValue) -> TakeAction + Send + Sync + 'static, String> {
        let pass = self.predicate(i)?;
        let complete = self.predicate(i + 1)?;
        Ok(move |v: &AnyValue| TakeAction::new(pass(int(v)), complete(int(v))))
    }

    fn source(&self) -> S {
        self.signal.clone()
    }

    /// The upstream of an operator of a signal of signals: the value `k` the
    /// `k`-th input named from word `i`.
    fn upstream(&self, i: usize) -> Result<Signal<S>, String> {
        let names = self.inputs(i)?;
        Ok(self.signal.map(move |v: AnyValue| names[int(&v) as usize].clone()))
    }

    /// groupBy's groups merged, each value as [key, value].
    fn groups(&self, grouped: Signal<(AnyValue, S)>) -> S {
        grouped.merge_map(usize::MAX, |(key, group): (AnyValue, S)| group.map(move |v| AnyValue::Array(vec![key.clone(), v])))
    }
}

fn apply(words: &[String], at: &str, signal: &S, inputs: &HashMap<String, S>, scheduler: &TestScheduler, bounded: &mut Bounded) -> Result<S, String> {
    let line = Line { words, at, signal, inputs, scheduler, bounded: RefCell::new(bounded) };
    // The operators of the table: generated/marble_operators.rs.
    if let Some(made) = marble_operator!(words[0].as_str(), line) {
        return Ok(made);
    }
    match words[0].as_str() {
        // mapToQueue, which the crate has not: queue over the values mapped
        // to signals.
        "concatMap" => {
            let names = line.failing_or_named(&words[1..])?;
            Ok(signal.map(move |v: AnyValue| names[int(&v) as usize].clone().unwrap_or_else(|| fail(int(&v).to_string()))).queue())
        }
        name => Err(format!("{}: the Rust runner does not know the operator {:?}", at, name)),
    }
}

fn diagram_length(diagram: &str) -> u32 {
    diagram.chars().filter(|c| *c != ' ').count() as u32
}

fn play(case: &Case) -> Vec<String> {
    if let Some(problem) = &case.problem {
        return vec![problem.clone()];
    }
    let out = match (&case.out, case.inputs.is_empty()) {
        (Some(out), false) => out.clone(),
        _ => return vec![format!("{}: a case needs an input and an out line", case.at)],
    };
    let mut table: HashMap<char, AnyValue> = ('0'..='9').map(|d| (d, AnyValue::Int(d.to_digit(10).unwrap() as i64))).collect();
    table.extend(case.values.clone());
    let scheduler = TestScheduler::new().unwrap();
    let error = AnyValue::String("#".into());
    // Where a callback fails (`!`): the panics' messages, the errors the
    // subscribers receive, what the failure hook hears.
    let failing = case.fails.is_some() || case.ops.iter().any(|(words, _)| words.iter().any(|w| w.contains('!')));
    FAILURES.with(|failures| failures.borrow_mut().clear());
    SUBSCRIBER_ERRORS.with(|errors| errors.borrow_mut().clear());
    let errors: Arc<Mutex<Vec<AnyValue>>> = Arc::new(Mutex::new(Vec::new()));
    let reports: Arc<Mutex<Vec<(String, String)>>> = Arc::new(Mutex::new(Vec::new()));
    if failing {
        let into = Arc::clone(&reports);
        set_failure_hook(Some(Box::new(move |place, message| into.lock().unwrap().push((place.to_string(), message.to_string())))));
    }
    let mut bounded = Bounded::default();
    let problems = play_on(case, &out, &table, &scheduler, &error, &errors, &mut bounded);
    if failing {
        set_failure_hook(None);
    }
    let mut problems = match problems {
        Ok(problems) => problems,
        Err(problem) => return vec![problem],
    };
    if bounded.used {
        let want = expected_events(case.dropped.as_deref().unwrap_or(""), &table);
        let got = bounded.drops.lock().unwrap().clone();
        if got != want {
            problems.push(format!("{} {}: dropped {:?}: expected {:?}, on_drop received {:?}", case.at, case.name, case.dropped, want, got));
        }
        if let Some(expect) = bounded.expect {
            let errors = errors.lock().unwrap().clone();
            let overflowed = matches!(errors.as_slice(), [AnyValue::String(message)] if message.contains(expect));
            if out.contains('#') && !overflowed {
                problems.push(format!("{} {}: the errors received are {:?}, expected the overflow error with {:?}", case.at, case.name, errors, expect));
            }
        }
    }
    if failing {
        let raised = FAILURES.with(|failures| failures.take());
        let reports = reports.lock().unwrap().clone();
        let errors = errors.lock().unwrap().clone();
        problems.extend(check_failures(case, &out, &raised, &reports, &errors));
    }
    problems
}

/// What the case's failing callbacks did not do as the table says: panic,
/// and end the stream with `"panicked: MESSAGE"` (an operator's callback),
/// or go to the failure hook under the side effect's name.
fn check_failures(case: &Case, out: &str, raised: &[Failure], reports: &[(String, String)], errors: &[AnyValue]) -> Vec<String> {
    let at = format!("{} {}", case.at, case.name);
    let first = match raised.first() {
        Some((first, _)) => first,
        None => return vec![format!("{}: no callback failed: the `!` was never reached", at)],
    };
    let panicked = |message: &String| format!("panicked: {}", message);
    // A side effect's panic is heard under its operator's name: one of the
    // case's, in snake case (beforeNext: "before_next").
    let places: Vec<String> = case
        .ops
        .iter()
        .map(|(words, _)| {
            words[0].chars().fold(String::new(), |mut snake, c| {
                if c.is_ascii_uppercase() {
                    snake.push('_');
                }
                snake.push(c.to_ascii_lowercase());
                snake
            })
        })
        .collect();
    let want: Vec<String> = raised.iter().filter(|(_, side_effect)| *side_effect).map(|(m, _)| panicked(m)).collect();
    let heard: Vec<String> = reports.iter().map(|(_, message)| message.clone()).collect();
    let mut problems = Vec::new();
    if heard != want || reports.iter().any(|(place, _)| !places.contains(place)) {
        problems.push(format!("{}: the failure hook heard {:?}, expected {:?} under one of {:?}", at, reports, want, places));
    }
    // A subscriber's panic (`fails`) reaches its own error closure as a
    // failure of the subscription (Signal::start's doc); forwarded, as any
    // error, it reaches the recorder as a string.
    let own = SUBSCRIBER_ERRORS.with(|errors| errors.take());
    if case.fails.is_some() && out.contains('#') && own != [AnyValue::Failure(panicked(first))] {
        problems.push(format!("{}: the failing subscriber's error closure received {:?}, expected [Failure({:?})]", at, own, panicked(first)));
    }
    let expected = AnyValue::String(panicked(first));
    if out.contains('#') && errors != [expected.clone()] {
        problems.push(format!("{}: the errors received are {:?}, expected [{:?}]", at, errors, expected));
    }
    problems
}

/// Plays `case` after its inputs are made: what did not hold, or why it
/// could not be played.
fn play_on(
    case: &Case,
    out: &str,
    table: &HashMap<char, AnyValue>,
    scheduler: &TestScheduler,
    error: &AnyValue,
    errors: &Arc<Mutex<Vec<AnyValue>>>,
    bounded: &mut Bounded,
) -> Result<Vec<String>, String> {
    let table_list: Vec<(char, AnyValue)> = table.iter().map(|(c, v)| (*c, v.clone())).collect();
    let table_list = table_list.as_slice();
    let mut inputs: HashMap<String, S> = HashMap::new();
    let mut logs: HashMap<String, SubscriptionLog> = HashMap::new();
    for (name, hot, diagram) in &case.inputs {
        let made = if *hot { scheduler.hot(diagram, table_list, error) } else { scheduler.cold(diagram, table_list, error) };
        match made {
            Ok((signal, log)) => {
                inputs.insert(name.clone(), signal);
                logs.insert(name.clone(), log);
            }
            Err(e) => return Err(format!("{}: input {}: {}", case.at, name, e)),
        }
    }
    let mut signal = inputs[&case.inputs[0].0].clone();
    // `during`: the first input, whose latest subscriber the subscriber's
    // first call with the trigger's value puts the values into.
    let latest: Arc<Mutex<Option<rsignalkit::Subscriber<AnyValue>>>> = Arc::new(Mutex::new(None));
    if case.during.is_some() {
        let (upstream, keep) = (signal.clone(), Arc::clone(&latest));
        signal = Signal::create(move |subscriber: rsignalkit::Subscriber<AnyValue>| {
            *keep.lock().unwrap() = Some(subscriber.clone());
            let (a, b, c) = (subscriber.clone(), subscriber.clone(), subscriber);
            upstream
                .start(
                    Observer::new()
                        .next(move |v| a.put_next(&v).unwrap())
                        .error(move |e| b.put_error(&e).unwrap())
                        .completed(move || c.put_completion().unwrap()),
                )
                .unwrap()
                .into_disposable()
        });
    }
    for (words, at) in &case.ops {
        signal = apply(words, at, &signal, &inputs, scheduler, bounded)?;
    }
    if let Some((trigger, puts)) = &case.during {
        let on = table.get(trigger).cloned().ok_or_else(|| format!("{}: `during`: `{}` stands for no value", case.at, trigger))?;
        let puts = puts
            .chars()
            .map(|c| table.get(&c).cloned().ok_or_else(|| format!("{}: `during`: `{}` stands for no value", case.at, c)))
            .collect::<Result<Vec<AnyValue>, String>>()?;
        let done = std::sync::atomic::AtomicBool::new(false);
        let feed = Arc::clone(&latest);
        signal = signal.after_next(move |v: &AnyValue| {
            if *v == on && !done.swap(true, std::sync::atomic::Ordering::SeqCst) {
                let subscriber = feed.lock().unwrap().clone();
                for put in &puts {
                    subscriber.as_ref().unwrap().put_next(put).unwrap();
                }
            }
        });
    }
    if let Some(trigger) = case.fails {
        // The subscriber (a subscription's next closure, which may panic)
        // forwards to the recorder's, then panics at the trigger's value.
        let on = table.get(&trigger).cloned().ok_or_else(|| format!("{}: `fails`: `{}` stands for no value", case.at, trigger))?;
        let upstream = signal.clone();
        signal = Signal::create(move |subscriber: rsignalkit::Subscriber<AnyValue>| {
            let (a, b, c) = (subscriber.clone(), subscriber.clone(), subscriber);
            let on = on.clone();
            upstream
                .start(
                    Observer::new()
                        .next(move |v| {
                            a.put_next(&v).unwrap();
                            if v == on {
                                fail(trigger.to_string());
                            }
                        })
                        .error(move |e| {
                            SUBSCRIBER_ERRORS.with(|errors| errors.borrow_mut().push(e.clone()));
                            b.put_error(&e).unwrap()
                        })
                        .completed(move || c.put_completion().unwrap()),
                )
                .unwrap()
                .into_disposable()
        });
    }
    if case.dropped.is_some() && !bounded.used {
        return Err(format!("{}: `dropped` in a case without a bounded operator", case.at));
    }
    let subscriptions: Arc<Mutex<Vec<Slot>>> = Arc::new(Mutex::new(Vec::new()));
    let record = {
        let scheduler = scheduler.clone();
        let signal = signal.clone();
        let errors = Arc::clone(errors);
        move |into: Arc<Mutex<Vec<Event>>>| -> Subscription {
            let (a, b, c) = (into.clone(), into.clone(), into);
            let (s1, s2, s3) = (scheduler.clone(), scheduler.clone(), scheduler.clone());
            let errors = Arc::clone(&errors);
            signal
                .start(
                    Observer::new()
                        .next(move |v| a.lock().unwrap().push((s1.frame_now(), "next", Some(v))))
                        .error(move |e| {
                            b.lock().unwrap().push((s2.frame_now(), "error", None));
                            errors.lock().unwrap().push(e);
                        })
                        .completed(move || c.lock().unwrap().push((s3.frame_now(), "completed", None))),
                )
                .unwrap()
        }
    };
    let main = Arc::new(Mutex::new(Vec::new()));
    let main_slot = Arc::new(Mutex::new(Some(record(main.clone()))));
    subscriptions.lock().unwrap().push(main_slot.clone());
    if let Some(frame) = case.dispose {
        let slot = main_slot.clone();
        scheduler.schedule(frame, move || {
            if let Some(s) = slot.lock().unwrap().as_ref() {
                s.dispose()
            }
        })
        .unwrap();
    }
    let mut others = Vec::new();
    for (start, stop, _) in &case.also {
        let events = Arc::new(Mutex::new(Vec::new()));
        others.push(events.clone());
        let slot = Arc::new(Mutex::new(None));
        subscriptions.lock().unwrap().push(slot.clone());
        let (record, fill) = (record.clone(), slot.clone());
        scheduler.schedule(*start, move || *fill.lock().unwrap() = Some(record(events))).unwrap();
        if let Some(stop) = stop {
            scheduler
                .schedule(*stop, move || {
                    if let Some(s) = slot.lock().unwrap().as_ref() {
                        s.dispose()
                    }
                })
                .unwrap();
        }
    }
    let longest = case
        .inputs
        .iter()
        .map(|(_, _, d)| diagram_length(d))
        .chain(std::iter::once(diagram_length(out)))
        .chain(case.also.iter().flat_map(|(f, t, _)| vec![*f, t.unwrap_or(0)]))
        .chain(std::iter::once(case.dispose.unwrap_or(0)))
        .max()
        .unwrap_or(0);
    scheduler.advance_to_frame(2 * longest + 20).unwrap();
    let mut problems = Vec::new();
    let want = expected_events(out, table);
    let got = main.lock().unwrap().clone();
    if got != want {
        problems.push(format!("{} {}: out {:?}: expected {:?}, received {:?}", case.at, case.name, out, want, got));
    }
    for ((start, stop, diagram), events) in case.also.iter().zip(&others) {
        let want = expected_events(diagram, table);
        let got = events.lock().unwrap().clone();
        if got != want {
            problems.push(format!("{} {}: also {} {:?}: expected {:?}, received {:?}", case.at, case.name, start, stop, want, got));
        }
    }
    for (name, subs) in &case.subs {
        let text = match subs {
            None => String::new(),
            Some(list) => list
                .iter()
                .map(|(a, b)| match b {
                    Some(b) => format!("^{} !{}", a, b),
                    None => format!("^{}", a),
                })
                .collect::<Vec<_>>()
                .join(" "),
        };
        match logs.get(name) {
            Some(log) => {
                let got = log.text().unwrap();
                if got != text {
                    problems.push(format!("{} {}: input {}: subscriptions {:?}, expected {:?}", case.at, case.name, name, got, text));
                }
            }
            None => problems.push(format!("{} {}: sub names no input {:?}", case.at, case.name, name)),
        }
    }
    for slot in subscriptions.lock().unwrap().iter() {
        slot.lock().unwrap().take();
    }
    Ok(problems)
}

#[test]
fn every_case_of_the_marble_table_passes() {
    let _serial = common::serial();
    let cases = read_cases();
    assert!(cases.len() > 50, "only {} cases read", cases.len());
    let problems: Vec<String> = cases.iter().flat_map(play).collect();
    eprintln!("marble table: {} cases, {} problems", cases.len(), problems.len());
    assert!(problems.is_empty(), "{} of {} cases failed:\n{}", problems.len(), cases.len(), problems.join("\n"));
}

#[test]
fn the_runner_fails_an_unknown_operator_and_function() {
    let _serial = common::serial();
    let mut case = Case { name: "unknown".into(), at: "t.marbles:1".into(), ..Case::default() };
    case.inputs = vec![("a".into(), false, "-1|".into())];
    case.out = Some("-1|".into());
    case.ops = vec![(vec!["frobnicate".into()], "t.marbles:3".into())];
    let problems = play(&case);
    assert!(problems[0].contains("does not know the operator \"frobnicate\""), "{:?}", problems);
    case.ops = vec![(vec!["map".into(), "cube".into()], "t.marbles:3".into())];
    let problems = play(&case);
    assert!(problems[0].contains("does not know the function \"cube\""), "{:?}", problems);
}

#[test]
fn the_runner_fails_a_wrong_expectation() {
    let _serial = common::serial();
    let mut case = Case { name: "wrong".into(), at: "t.marbles:1".into(), ..Case::default() };
    case.inputs = vec![("a".into(), false, "-1-2|".into())];
    case.ops = vec![(vec!["map".into(), "times:10".into()], "t.marbles:3".into())];
    case.values.insert('x', AnyValue::Int(10));
    case.values.insert('y', AnyValue::Int(20));
    case.out = Some("-x-y|".into());
    assert_eq!(play(&case), Vec::<String>::new());
    case.out = Some("-x-x|".into());
    assert_eq!(play(&case).len(), 1);
}

#[test]
fn the_runner_checks_drops_and_the_overflow_error() {
    let _serial = common::serial();
    let mut case = Case { name: "drops".into(), at: "t.marbles:1".into(), ..Case::default() };
    case.inputs = vec![("a".into(), false, "-1-----6|".into())];
    case.during = Some(('1', "2345".into()));
    case.ops = vec![(vec!["onBackpressureBuffer".into(), "2".into(), "dropNewest".into()], "t.marbles:3".into())];
    case.out = Some("-(123)-----6|".into());
    case.dropped = Some("-(45)".into());
    assert_eq!(play(&case), Vec::<String>::new());
    case.dropped = Some("-(44)".into());
    let problems = play(&case);
    assert!(problems.iter().any(|p| p.contains("on_drop received")), "{:?}", problems);
    case.ops[0].0[2] = "error".into();
    case.out = Some("-(123#)".into());
    case.dropped = Some("-(45)".into());
    assert_eq!(play(&case), Vec::<String>::new());
    // An error of the input is not the overflow error.
    case.during = None;
    case.inputs = vec![("a".into(), false, "-1-#".into())];
    case.out = Some("-1-#".into());
    case.dropped = None;
    let problems = play(&case);
    assert!(problems.iter().any(|p| p.contains("expected the overflow error")), "{:?}", problems);
}

#[test]
fn the_runner_checks_a_failing_callback() {
    let _serial = common::serial();
    let mut case = Case { name: "fails".into(), at: "t.marbles:1".into(), ..Case::default() };
    case.inputs = vec![("a".into(), false, "-1-2|".into())];
    case.ops = vec![(vec!["map".into(), "times:10!2".into()], "t.marbles:3".into())];
    case.values.insert('x', AnyValue::Int(10));
    case.out = Some("-x-#".into());
    assert_eq!(play(&case), Vec::<String>::new());
    case.ops = vec![(vec!["map".into(), "times:10!5".into()], "t.marbles:3".into())];
    case.values.insert('y', AnyValue::Int(20));
    case.out = Some("-x-y|".into());
    let problems = play(&case);
    assert!(problems.iter().any(|p| p.contains("the `!` was never reached")), "{:?}", problems);
}
