//! Every handle released in every order while work is pending: each
//! closure and each value is dropped exactly once, and the library's live
//! objects come back to 0.
mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use common::Counted;
use rsignalkit::{live_objects, Observer, Pipe, Queue};

/// One of the handles, held until its turn to be dropped.
type Held = Box<dyn Send>;

fn permutations(n: usize) -> Vec<Vec<usize>> {
    if n == 0 {
        return vec![vec![]];
    }
    let mut all = Vec::new();
    for rest in permutations(n - 1) {
        for at in 0..=rest.len() {
            let mut order = rest.clone();
            order.insert(at, n - 1);
            all.push(order);
        }
    }
    all
}

#[test]
fn every_release_order_with_work_pending_leaves_nothing_alive() {
    let _serial = common::serial();
    let orders = permutations(4);
    assert_eq!(orders.len(), 24);
    for order in orders {
        let closures = Arc::new(AtomicUsize::new(0));
        let values = Arc::new(AtomicUsize::new(0));
        let delivered = Arc::new(AtomicUsize::new(0));
        let queue = Queue::host("abandon").unwrap();
        let pipe = Pipe::<Arc<Counted>>::new().unwrap();
        let in_map = Counted(closures.clone());
        let signal = pipe
            .signal()
            .map(move |v| {
                let _keep = &in_map;
                v
            })
            .deliver_on(&queue);
        let (in_next, count) = (Counted(closures.clone()), delivered.clone());
        let subscription = signal
            .start(Observer::new().next(move |_v| {
                let _keep = &in_next;
                count.fetch_add(1, Ordering::SeqCst);
            }))
            .unwrap();
        let in_work = Counted(closures.clone());
        queue
            .run(move || {
                let _keep = in_work;
            })
            .unwrap();
        pipe.put(Arc::new(Counted(values.clone()))).unwrap();
        pipe.put(Arc::new(Counted(values.clone()))).unwrap();
        assert!(live_objects() > 0);
        let mut held: Vec<Option<Held>> =
            vec![Some(Box::new(pipe)), Some(Box::new(signal)), Some(Box::new(subscription)), Some(Box::new(queue))];
        for &index in &order {
            held[index].take();
        }
        assert_eq!(delivered.load(Ordering::SeqCst), 0, "order {:?}: nothing was drained", order);
        assert_eq!(values.load(Ordering::SeqCst), 2, "order {:?}: each pending value dropped once", order);
        assert_eq!(closures.load(Ordering::SeqCst), 3, "order {:?}: each closure dropped once", order);
        assert_eq!(live_objects(), 0, "order {:?}", order);
    }
}

#[test]
fn a_drained_host_queue_delivers_then_everything_goes() {
    let _serial = common::serial();
    let queue = Queue::host("drained").unwrap();
    let pipe = Pipe::<i64>::new().unwrap();
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let into = seen.clone();
    let subscription = pipe.signal().deliver_on(&queue).subscribe(move |v| into.lock().unwrap().push(v)).unwrap();
    pipe.put(1).unwrap();
    pipe.put(2).unwrap();
    assert!(seen.lock().unwrap().is_empty(), "delivered only by a drain");
    let fd = queue.fd().unwrap();
    assert!(fd >= 0);
    assert!(queue.drain(0).unwrap() >= 1, "the deliveries ran in the drain");
    assert_eq!(*seen.lock().unwrap(), vec![1, 2]);
    drop((subscription, pipe, queue));
    assert_eq!(live_objects(), 0);
}
