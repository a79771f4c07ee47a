//! The README's Rust quick start: a pipe, a map, a filter, a subscription.
use rsignalkit::Pipe;

fn main() -> Result<(), rsignalkit::Error> {
    let pipe = Pipe::<i64>::new()?;
    let subscription = pipe
        .signal()
        .map(|n| n * 10)
        .filter(|n| *n > 10)
        .subscribe(|n| println!("{}", n))?;
    for n in 1..=3 {
        pipe.put(n)?; // prints 20, then 30
    }
    drop(subscription); // disposes: nothing more is delivered
    Ok(())
}
