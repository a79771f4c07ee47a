//! W1, W2, W2b and W3 of SignalKit's benchmarks (Benchmarks/README.md of
//! its source tree) through this crate: the same pipelines, sizes and
//! checksums as its bench_capi.c, closures for every callback, RAII
//! handles; JSON lines of impl "rust". Each workload runs once for its
//! checksum, then `--reps` times timed: at `--reps 1`, twice (what
//! instructions.py divides by).
//!
//!   bench_rust [--reps N] [--divide N] [--workloads W1,W3]
//!   cargo bench --bench bench_rust -- --reps 3     (cargo adds --bench: ignored)
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;
use std::time::Instant;

use rsignalkit::{Disposable, Pipe, Signal, Subscriber};

fn range(n: i64) -> Signal<i64> {
    Signal::create(move |s: Subscriber<i64>| {
        for i in 0..n {
            s.put_next(&i).unwrap();
        }
        s.put_completion().unwrap();
        None::<Disposable>
    })
}

/// A sink summing with wrapping addition into its own state, published
/// with a plain store (as bench_capi's sink adds into a variable).
fn sink(out: &Arc<AtomicI64>) -> impl FnMut(i64) + Send + 'static {
    let out = Arc::clone(out);
    let mut sum = 0i64;
    move |x| {
        sum = sum.wrapping_add(x);
        out.store(sum, Ordering::Relaxed);
    }
}

fn w1(n: i64) -> i64 {
    let sum = Arc::new(AtomicI64::new(0));
    {
        let chain = range(n).map(|x| x + 1).filter(|x| x % 2 == 0).map(|x| x * 2);
        let _subscription = chain.subscribe(sink(&sum)).unwrap();
    }
    sum.load(Ordering::Relaxed)
}

/// W2: the mapped pipe signal built once; per cycle a subscription, maybe
/// a put, the dispose.
fn w2(cycles: i64, every: i64) -> i64 {
    let total = Arc::new(AtomicI64::new(0));
    let pipe = Pipe::<i64>::new().unwrap();
    let mapped = pipe.signal().map(|x| x + 1);
    for i in 0..cycles {
        let t = Arc::clone(&total);
        let subscription = mapped
            .subscribe(move |x| {
                t.fetch_add(x, Ordering::Relaxed);
            })
            .unwrap();
        if i % every == 0 {
            pipe.put(i).unwrap();
        }
        drop(subscription);
    }
    pipe.put(1_000_000_000).unwrap();
    total.load(Ordering::Relaxed)
}

/// W2b: W2 with the pipeline built per cycle.
fn w2b(cycles: i64, every: i64) -> i64 {
    // Each cycle's sink adds into the total (an atomic: the sinks of the
    // cycles are different closures).
    let total = Arc::new(AtomicI64::new(0));
    let pipe = Pipe::<i64>::new().unwrap();
    for i in 0..cycles {
        let t = Arc::clone(&total);
        let subscription = pipe
            .signal()
            .map(|x| x + 1)
            .subscribe(move |x| {
                t.fetch_add(x, Ordering::Relaxed);
            })
            .unwrap();
        if i % every == 0 {
            pipe.put(i).unwrap();
        }
        drop(subscription);
    }
    pipe.put(1_000_000_000).unwrap();
    total.load(Ordering::Relaxed)
}

fn w3(sinks: i64, puts: i64, timed: &mut f64) -> i64 {
    let pipe = Pipe::<i64>::new().unwrap();
    let signal = pipe.signal();
    let sums: Vec<Arc<AtomicI64>> = (0..sinks).map(|_| Arc::new(AtomicI64::new(0))).collect();
    let subscriptions: Vec<_> = sums.iter().map(|s| signal.subscribe(sink(s)).unwrap()).collect();
    let start = Instant::now();
    for i in 0..puts {
        pipe.put(i).unwrap();
    }
    *timed = start.elapsed().as_nanos() as f64;
    drop(subscriptions);
    sums.iter().fold(0i64, |a, s| a.wrapping_add(s.load(Ordering::Relaxed)))
}

fn expected_w1(n: i64) -> i64 {
    (0..n).filter(|i| (i + 1) % 2 == 0).fold(0i64, |s, i| s.wrapping_add((i + 1) * 2))
}

fn expected_w2(cycles: i64, every: i64) -> i64 {
    (0..cycles).filter(|i| i % every == 0).fold(0i64, |s, i| s.wrapping_add(i + 1))
}

fn report(workload: &str, unit: &str, units: f64, mut ns: Vec<f64>) {
    ns.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let per: Vec<f64> = ns.iter().map(|n| n / units).collect();
    println!(
        "{{\"impl\":\"rust\",\"workload\":\"{}\",\"unit\":\"{}\",\"units\":{:.0},\"reps\":{},\"ns_median\":{:.4},\"ns_min\":{:.4},\"checksum\":\"ok\"}}",
        workload, unit, units, per.len(), per[per.len() / 2], per[0]
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let value = |flag: &str| args.iter().position(|a| a == flag).and_then(|i| args.get(i + 1)).cloned();
    let reps: usize = value("--reps").and_then(|r| r.parse().ok()).unwrap_or(5).max(1);
    let divide: i64 = value("--divide").and_then(|d| d.parse().ok()).unwrap_or(1).max(1);
    let workloads = value("--workloads");
    let selected = |id: &str| workloads.as_ref().map_or(true, |w| w.split(',').any(|x| x == id));
    let (w1_events, w2_cycles, w2_every, w3_sinks, w3_puts) =
        ((5_000_000 / divide).max(1), (1_000_000 / divide).max(1), (100_000 / divide).max(1), 1000, (10_000 / divide).max(1));
    if selected("W1") {
        let expected = expected_w1(w1_events);
        assert_eq!(w1(w1_events), expected, "W1 checksum");
        let ns = (0..reps)
            .map(|_| {
                let start = Instant::now();
                let sum = w1(w1_events);
                let ns = start.elapsed().as_nanos() as f64;
                assert_eq!(sum, expected, "W1 checksum");
                ns
            })
            .collect();
        report("W1", "event", w1_events as f64, ns);
    }
    if selected("W2") {
        let expected = expected_w2(w2_cycles, w2_every);
        assert_eq!(w2(w2_cycles, w2_every), expected, "W2 checksum");
        let ns = (0..reps)
            .map(|_| {
                let start = Instant::now();
                let sum = w2(w2_cycles, w2_every);
                let ns = start.elapsed().as_nanos() as f64;
                assert_eq!(sum, expected, "W2 checksum");
                ns
            })
            .collect();
        report("W2", "cycle", w2_cycles as f64, ns);
    }
    if selected("W2b") {
        let expected = expected_w2(w2_cycles, w2_every);
        assert_eq!(w2b(w2_cycles, w2_every), expected, "W2b checksum");
        let ns = (0..reps)
            .map(|_| {
                let start = Instant::now();
                let sum = w2b(w2_cycles, w2_every);
                let ns = start.elapsed().as_nanos() as f64;
                assert_eq!(sum, expected, "W2b checksum");
                ns
            })
            .collect();
        report("W2b", "cycle", w2_cycles as f64, ns);
    }
    if selected("W3") {
        let expected = (0..w3_puts).fold(0i64, |s, i| s.wrapping_add(i)).wrapping_mul(w3_sinks);
        assert_eq!(w3(w3_sinks, w3_puts, &mut 0.0), expected, "W3 checksum");
        let ns = (0..reps)
            .map(|_| {
                let mut timed = 0.0;
                assert_eq!(w3(w3_sinks, w3_puts, &mut timed), expected, "W3 checksum");
                timed
            })
            .collect();
        report("W3", "delivery", (w3_sinks * w3_puts) as f64, ns);
    }
    assert_eq!(rsignalkit::live_objects(), 0, "live objects left");
}
