// The crate against a real nats-server that each test starts (skipped, with
// the reason printed, where none is installed): order, publish, request and
// reply, JetStream publish and consume with acknowledgements (after next and
// explicit), errors in the client's words, nothing alive after a dispose.
mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use common::{eventually, index_bytes, index_of, serial, Collected, Server};
use rsignalkit::{AnyValue, Disposable, Observer, Overflow, Queue, Signal};
use rsignalkit_nats::{AckKind, Connection, JsMessage, Message};

const SECOND: Duration = Duration::from_secs(1);
const FLUSH: Duration = Duration::from_secs(10);

/// A signal of `count` 8-byte indexes from `first`, emitted on the
/// starting thread, then the completion.
fn indexes(first: u64, count: u64) -> Signal<Vec<u8>> {
    Signal::create(move |subscriber| {
        for i in first..first + count {
            if subscriber.put_next(&index_bytes(i)).is_err() {
                break;
            }
        }
        let _ = subscriber.put_completion();
        None::<Disposable>
    })
}

/// Starts `signal` and waits for its end: its values, or its error.
fn run<T: rsignalkit::Value>(signal: &Signal<T>) -> Result<Vec<T>, AnyValue> {
    let mut got = Vec::new();
    signal.for_each_blocking(|v| got.push(v))?;
    Ok(got)
}

/// The text of an error event.
fn error_text(error: AnyValue) -> String {
    match error {
        AnyValue::String(text) => text,
        other => panic!("expected a string error, got {:?}", other),
    }
}

/// A JetStream API request and its JSON reply (which must not be an error).
fn js_api(connection: &Connection, subject: &str, body: &str) -> String {
    let reply = run(&connection.request::<Vec<u8>>(subject, body.as_bytes(), FLUSH).unwrap()).unwrap();
    let text = String::from_utf8(reply[0].clone()).unwrap();
    assert!(!text.contains("\"error\""), "{}: {}", subject, text);
    text
}

/// A number field of a JSON reply ("name":N).
fn json_number(json: &str, name: &str) -> u64 {
    let key = format!("\"{}\":", name);
    let at = json.find(&key).unwrap_or_else(|| panic!("no {} in {}", name, json)) + key.len();
    json[at..].trim_start().chars().take_while(|c| c.is_ascii_digit()).collect::<String>().parse().unwrap()
}

#[test]
fn every_message_arrives_in_order() {
    let _serial = serial();
    let server = match Server::start("every_message_arrives_in_order") {
        Some(s) => s,
        None => return,
    };
    let connection = Connection::connect(&server.url).unwrap();
    const COUNT: u64 = 20_000;
    let received = Arc::new(Collected::new());
    let into = Arc::clone(&received);
    let subject = connection.subject::<Vec<u8>>("order.x", None).unwrap();
    let subscription = subject.subscribe(move |payload| into.push(index_of(&payload))).unwrap();
    connection.flush(FLUSH).unwrap();
    let published = run(&connection.publish(&indexes(0, COUNT), "order.x", FLUSH).unwrap()).unwrap();
    assert_eq!(published.len() as u64, COUNT);
    let got = received.wait(COUNT as usize);
    assert_eq!(got, (0..COUNT).collect::<Vec<_>>());
    drop(subscription);
}

#[test]
fn a_published_signal_reaches_subscribers_as_messages() {
    let _serial = serial();
    let server = match Server::start("a_published_signal_reaches_subscribers_as_messages") {
        Some(s) => s,
        None => return,
    };
    let connection = Connection::connect(&server.url).unwrap();
    let received = Arc::new(Collected::new());
    let into = Arc::clone(&received);
    let _subscription =
        connection.subject::<Message>("publish.>", None).unwrap().subscribe(move |m| into.push(m)).unwrap();
    connection.flush(FLUSH).unwrap();
    let words = Signal::concat(&[Signal::single("one".to_owned()), Signal::single("two".to_owned())]);
    let passed = run(&connection.publish(&words, "publish.words", FLUSH).unwrap()).unwrap();
    assert_eq!(passed, vec!["one".to_owned(), "two".to_owned()]);
    let got = received.wait(2);
    assert_eq!(got[0].payload, b"one");
    assert_eq!(got[1].payload, b"two");
    assert_eq!(got[0].subject, "publish.words");
    assert_eq!(got[0].reply, None);
    assert!(got[0].headers.is_empty());
    // A value that is neither a string nor bytes: the bridge's error.
    let error = run(&connection.publish(&Signal::single(7i64), "publish.int", FLUSH).unwrap()).unwrap_err();
    let text = error_text(error);
    assert!(text.starts_with("sk_nats_publish: cannot publish a value of kind int64"), "{}", text);
}

#[test]
fn a_request_gets_the_reply_of_a_service() {
    let _serial = serial();
    let server = match Server::start("a_request_gets_the_reply_of_a_service") {
        Some(s) => s,
        None => return,
    };
    let connection = Connection::connect(&server.url).unwrap();
    let replier = connection.clone();
    let service = connection
        .subject::<Message>("service.upper", None)
        .unwrap()
        .subscribe(move |request| {
            let reply = request.reply.expect("a request has a reply subject");
            let answer = Signal::single(request.payload.to_ascii_uppercase());
            replier.publish(&answer, &reply, FLUSH).unwrap().for_each_blocking(|_| ()).unwrap();
        })
        .unwrap();
    connection.flush(FLUSH).unwrap();
    let reply = run(&connection.request::<Message>("service.upper", b"hello", FLUSH).unwrap()).unwrap();
    assert_eq!(reply.len(), 1);
    assert_eq!(reply[0].payload, b"HELLO");
    drop(service);
    // No one listens any more.
    connection.flush(FLUSH).unwrap();
    let error = run(&connection.request::<Vec<u8>>("service.none", b"?", SECOND).unwrap()).unwrap_err();
    let text = error_text(error);
    assert!(text.starts_with("sk_nats_request: no responders for 'service.none'"), "{}", text);
}

#[test]
fn jetstream_publish_then_consume_with_acknowledgements() {
    let _serial = serial();
    let server = match Server::start("jetstream_publish_then_consume_with_acknowledgements") {
        Some(s) => s,
        None => return,
    };
    let connection = Connection::connect(&server.url).unwrap();
    js_api(&connection, "$JS.API.STREAM.CREATE.S", r#"{"name":"S","subjects":["js.>"],"storage":"file"}"#);
    const COUNT: u64 = 500;
    // Published with awaited acknowledgements: the stream's sequences.
    let sequences = run(&connection
        .js_publish(&indexes(0, COUNT), "js.after", Some("rust-test"), 64, Duration::from_secs(5), 3)
        .unwrap())
    .unwrap();
    let mut sorted = sequences.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, (1..=COUNT as i64).collect::<Vec<_>>());

    // Acknowledged after next.
    let received = Arc::new(Collected::new());
    let into = Arc::clone(&received);
    let consumer = connection.js_consume::<Vec<u8>>(Some("S"), "after", "js.after", None, 64).unwrap();
    let subscription = consumer.subscribe(move |payload| into.push(index_of(&payload))).unwrap();
    assert_eq!(received.wait(COUNT as usize), (0..COUNT).collect::<Vec<_>>());
    eventually("every message of 'after' acknowledged", || {
        let info = js_api(&connection, "$JS.API.CONSUMER.INFO.S.after", "");
        json_number(&info, "num_ack_pending") == 0 && json_number(&info, "num_pending") == 0
    });
    drop(subscription);

    // Acknowledged by the observer.
    run(&connection.js_publish(&indexes(1000, 10), "js.explicit", None, 8, Duration::from_secs(5), 3).unwrap()).unwrap();
    let messages: Arc<Collected<JsMessage>> = Arc::new(Collected::new());
    let into = Arc::clone(&messages);
    let consumer = connection.js_consume_explicit(Some("S"), "explicit", "js.explicit", None, 4).unwrap();
    let subscription = consumer
        .subscribe(move |message| {
            message.ack(AckKind::Ack).unwrap();
            into.push(message);
        })
        .unwrap();
    let got = messages.wait(10);
    let indexes: Vec<u64> = got.iter().map(|m| index_of(&m.message().payload)).collect();
    assert_eq!(indexes, (1000..1010).collect::<Vec<_>>());
    assert_eq!(got[0].message().subject, "js.explicit");
    assert!(got[0].message().reply.as_deref().unwrap_or("").starts_with("$JS.ACK."), "{:?}", got[0]);
    // A second acknowledgement does nothing.
    got[0].ack(AckKind::Ack).unwrap();
    eventually("every message of 'explicit' acknowledged", || {
        let info = js_api(&connection, "$JS.API.CONSUMER.INFO.S.explicit", "");
        json_number(&info, "num_ack_pending") == 0 && json_number(&info, "num_pending") == 0
    });
    drop(subscription);
}

#[test]
fn a_bad_subject_fails_in_the_clients_words() {
    let _serial = serial();
    let server = match Server::start("a_bad_subject_fails_in_the_clients_words") {
        Some(s) => s,
        None => return,
    };
    let connection = Connection::connect(&server.url).unwrap();
    let error = run(&connection.subject::<Vec<u8>>("a b", None).unwrap()).unwrap_err();
    assert_eq!(error_text(error), "sk_nats_subject: cannot subscribe to 'a b' (nats: Invalid Subject)");
    // Refused before the bridge: a NUL byte.
    let refused = connection.subject::<Vec<u8>>("a\0b", None).unwrap_err();
    assert!(refused.message().contains("NUL"), "{}", refused);
    // Refused by the bridge, with its message: a capacity of 0.
    let refused = connection
        .subject_bounded::<Vec<u8>, _>("x", None, None, 0, rsignalkit::Overflow::DropNewest, |_, _| ())
        .unwrap_err();
    assert!(refused.message().starts_with("sk_nats_subject_bounded:"), "{}", refused);
    // A closed connection.
    connection.close();
    let error = run(&connection.request::<Vec<u8>>("x", b"", SECOND).unwrap()).unwrap_err();
    let text = error_text(error);
    assert!(text.starts_with("sk_nats_request:") && text.contains("Connection Closed"), "{}", text);
    // Connecting where no server listens.
    drop(server);
    let refused = Connection::connect("nats://127.0.0.1:1").unwrap_err();
    assert!(refused.message().starts_with("Connection::connect: cannot connect to 'nats://127.0.0.1:1' (nats: "), "{}", refused);
    // The message never carries a password or a token of the URL.
    let refused = Connection::connect("nats://alice:s3cret@127.0.0.1:1,t0ken@127.0.0.1:2/x@y").unwrap_err();
    assert!(
        refused
            .message()
            .starts_with("Connection::connect: cannot connect to 'nats://alice:***@127.0.0.1:1,***@127.0.0.1:2/x@y' (nats: "),
        "{}",
        refused
    );
    assert!(!refused.message().contains("s3cret") && !refused.message().contains("t0ken"), "{}", refused);
}

#[test]
fn nothing_alive_after_a_dispose() {
    let _serial = serial();
    let server = match Server::start("nothing_alive_after_a_dispose") {
        Some(s) => s,
        None => return,
    };
    let connection = Connection::connect(&server.url).unwrap();
    let before = rsignalkit::live_objects();
    let received = Arc::new(Collected::new());
    let (into, ended) = (Arc::clone(&received), Arc::new(Collected::new()));
    let end = Arc::clone(&ended);
    let signal = connection
        .subject_bounded::<Message, _>("dispose.x", None, None, 16, rsignalkit::Overflow::DropOldest, |_, _| ())
        .unwrap();
    let subscription = signal
        .start(Observer::new().next(move |m: Message| into.push(m.payload)).error(move |e| end.push(e)))
        .unwrap();
    connection.flush(FLUSH).unwrap();
    assert_eq!(server.subscriptions("dispose.x"), 1);
    // Messages arrive on other threads while the subscription is disposed.
    let publisher = connection.clone();
    let flood = std::thread::spawn(move || run(&publisher.publish(&indexes(0, 50_000), "dispose.x", FLUSH).unwrap()));
    received.wait(1);
    drop(subscription);
    let seen = received.len();
    flood.join().unwrap().unwrap();
    connection.flush(FLUSH).unwrap();
    drop(signal);
    eventually("the subscription gone from the server", || server.subscriptions("dispose.x") == 0);
    eventually("nothing alive", || rsignalkit::live_objects() == before);
    // At most the values in flight when the dispose began came after it;
    // no error.
    assert!(received.len() <= seen + 16, "{} after {}", received.len(), seen);
    assert_eq!(ended.len(), 0);
}

/// The value of the header `key` of a reply, if it has one.
fn header<'a>(message: &'a Message, key: &str) -> Option<&'a str> {
    message.headers.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
}

#[test]
fn a_service_answers_requests_and_failures() {
    let _serial = serial();
    let server = match Server::start("a_service_answers_requests_and_failures") {
        Some(s) => s,
        None => return,
    };
    let connection = Connection::connect(&server.url).unwrap();
    let queue = Queue::concurrent_default().unwrap();
    // The handlers' signals running at once, and the most seen.
    let (running, most) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let (now, top) = (Arc::clone(&running), Arc::clone(&most));
    let service = connection
        .serve("service.rust", Some("workers"), 2, 64, Overflow::Block, move |request: Message| {
            match &request.payload[..] {
                b"bad" => Signal::<String>::fail("not a number: 'bad'".to_owned()),
                b"empty" => Signal::complete(),
                b"boom" => panic!("boom"),
                payload => {
                    top.fetch_max(now.fetch_add(1, Ordering::SeqCst) + 1, Ordering::SeqCst);
                    let (answer, done) = (format!("ok {}", String::from_utf8_lossy(payload)), Arc::clone(&now));
                    Signal::single(answer).deliver_on(&queue).map(move |text| {
                        done.fetch_sub(1, Ordering::SeqCst);
                        text
                    })
                }
            }
        })
        .unwrap();
    let (answered, ended) = (Arc::new(Collected::new()), Arc::new(Collected::new()));
    let (into, end) = (Arc::clone(&answered), Arc::clone(&ended));
    let subscription = service
        .start(Observer::new().next(move |m: Message| into.push(m.payload)).error(move |e| end.push(e)))
        .unwrap();
    connection.flush(FLUSH).unwrap();
    assert_eq!(server.subscriptions("service.rust"), 1);

    // Concurrent requests, each answered with its own reply.
    let askers: Vec<_> = (0..4)
        .map(|t| {
            let asking = connection.clone();
            std::thread::spawn(move || {
                for i in 0..25 {
                    let payload = format!("{}.{}", t, i);
                    let reply = run(&asking.request::<Vec<u8>>("service.rust", payload.as_bytes(), FLUSH).unwrap()).unwrap();
                    assert_eq!(reply, vec![format!("ok {}", payload).into_bytes()]);
                }
            })
        })
        .collect();
    for asker in askers {
        asker.join().unwrap();
    }
    assert_eq!(answered.wait(100).len(), 100);
    let seen = most.load(Ordering::SeqCst);
    assert!((1..=2).contains(&seen), "{} handlers' signals at once, at most 2 allowed", seen);

    // A failing signal, an empty one: the service error headers.
    let bad = run(&connection.request::<Message>("service.rust", b"bad", FLUSH).unwrap()).unwrap();
    assert_eq!(bad[0].payload, b"");
    assert_eq!(header(&bad[0], "Nats-Service-Error"), Some("not a number: 'bad'"));
    assert_eq!(header(&bad[0], "Nats-Service-Error-Code"), Some("500"));
    let empty = run(&connection.request::<Message>("service.rust", b"empty", FLUSH).unwrap()).unwrap();
    assert_eq!(header(&empty[0], "Nats-Service-Error"),
               Some("sk_nats_serve: the handler's signal completed without a value"));
    // The service goes on.
    let reply = run(&connection.request::<Vec<u8>>("service.rust", b"after", FLUSH).unwrap()).unwrap();
    assert_eq!(reply, vec![b"ok after".to_vec()]);
    assert_eq!(answered.wait(103).len(), 103);
    assert_eq!(ended.len(), 0);

    // A panic in the handler ends the service with it (the panic hook,
    // which would print it, set aside meanwhile).
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| ()));
    run(&connection.publish(&Signal::single("boom".to_owned()), "service.rust", FLUSH).unwrap()).unwrap();
    let error = ended.wait(1)[0].clone();
    std::panic::set_hook(hook);
    assert_eq!(error_text(error), "panicked: boom");
    drop(subscription);
    drop(service);
    eventually("the service's subscription gone from the server", || server.subscriptions("service.rust") == 0);
}

#[test]
fn publish_with_an_encoder() {
    let _serial = serial();
    let server = match Server::start("publish_with_an_encoder") {
        Some(s) => s,
        None => return,
    };
    let connection = Connection::connect(&server.url).unwrap();
    let received = Arc::new(Collected::new());
    let into = Arc::clone(&received);
    let _subscription =
        connection.subject::<Vec<u8>>("encoded.x", None).unwrap().subscribe(move |payload| into.push(payload)).unwrap();
    connection.flush(FLUSH).unwrap();
    // int64s published as their decimal text, passed on as they are.
    let numbers = Signal::concat(&[Signal::single(1i64), Signal::single(20), Signal::single(300)]);
    let passed = run(&connection.publish_encoded(&numbers, "encoded.x", FLUSH, |n: &i64| n.to_string()).unwrap()).unwrap();
    assert_eq!(passed, vec![1, 20, 300]);
    assert_eq!(received.wait(3), vec![b"1".to_vec(), b"20".to_vec(), b"300".to_vec()]);
    // A panic at the third value ends the stream: nothing published for
    // it, the upstream disposed (the fourth never encoded).
    let calls = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&calls);
    let four = Signal::concat(&[Signal::single(1i64), Signal::single(2), Signal::single(3), Signal::single(4)]);
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| ()));
    let failed = run(&connection
        .publish_encoded(&four, "encoded.x", FLUSH, move |n: &i64| {
            counted.fetch_add(1, Ordering::SeqCst);
            assert!(*n != 3, "the encoder refused {}", n);
            format!("#{}", n).into_bytes()
        })
        .unwrap());
    std::panic::set_hook(hook);
    assert_eq!(error_text(failed.unwrap_err()), "panicked: the encoder refused 3");
    assert_eq!(calls.load(Ordering::SeqCst), 3);
    run(&connection.publish(&Signal::single("marker".to_owned()), "encoded.x", FLUSH).unwrap()).unwrap();
    let got = received.wait(6);
    assert_eq!(got[3..], [b"#1".to_vec(), b"#2".to_vec(), b"marker".to_vec()]);
    // A result of another kind: the bridge's words.
    let wrong = run(&connection.publish_encoded(&Signal::single(7i64), "encoded.x", FLUSH, |n: &i64| n * 2).unwrap());
    assert_eq!(error_text(wrong.unwrap_err()),
               "sk_nats_publish_encoded: the encoder gave a value of kind int64 for 'encoded.x': give a string or bytes");
}

#[test]
fn jetstream_publish_bounded_drops_what_lags() {
    let _serial = serial();
    let server = match Server::start("jetstream_publish_bounded_drops_what_lags") {
        Some(s) => s,
        None => return,
    };
    let connection = Connection::connect(&server.url).unwrap();
    js_api(&connection, "$JS.API.STREAM.CREATE.B", r#"{"name":"B","subjects":["bounded.>"],"storage":"file"}"#);
    const COUNT: u64 = 20_000;
    const HOLD: u64 = 100;
    // The queue is held until the producer has put HOLD values: nothing
    // leaves the place meanwhile, whatever the machine's speed.
    let queue = Queue::serial("js_publish_bounded").unwrap();
    let (go, held) = std::sync::mpsc::channel::<()>();
    queue.run(move || held.recv().unwrap()).unwrap();
    let pipe = rsignalkit::Pipe::<Vec<u8>>::new().unwrap();
    let dropped = Arc::new(Collected::new());
    let into = Arc::clone(&dropped);
    let counts_right = Arc::new(AtomicUsize::new(0));
    let right = Arc::clone(&counts_right);
    let published = connection
        .js_publish_bounded(&pipe.signal(), "bounded.x", None, 1, Duration::from_secs(5), 3, Some(&queue), 4,
                            Overflow::DropNewest, move |value, count| {
                                into.push(index_of(value.as_bytes().unwrap()));
                                if count as usize == into.len() {
                                    right.fetch_add(1, Ordering::SeqCst);
                                }
                            })
        .unwrap();
    let acknowledged = Arc::new(Collected::new());
    let (acks, end) = (Arc::clone(&acknowledged), Arc::new(Collected::new()));
    let ended = Arc::clone(&end);
    let _subscription = published
        .start(Observer::new().next(move |sequence: i64| acks.push(sequence)).completed(move || ended.push(())))
        .unwrap();
    for i in 0..COUNT {
        pipe.put(index_bytes(i)).unwrap();
        if i + 1 == HOLD {
            go.send(()).unwrap();
        }
    }
    pipe.complete().unwrap();
    end.wait(1);
    let sequences = acknowledged.wait(0);
    let drops = dropped.wait(0);
    assert!(drops.len() as u64 >= HOLD - 4, "{} dropped", drops.len());
    assert_eq!(counts_right.load(Ordering::SeqCst), drops.len(), "on_drop's count is the drops so far");
    assert_eq!(sequences, (1..=sequences.len() as i64).collect::<Vec<_>>());
    assert_eq!(sequences.len() + drops.len(), COUNT as usize);
    // What the stream stored: the values kept, in order, none dropped.
    let kept = run(&connection.js_consume::<Vec<u8>>(Some("B"), "check", "bounded.x", None, 100).unwrap().take(sequences.len()))
        .unwrap()
        .iter()
        .map(|payload| index_of(payload))
        .collect::<Vec<_>>();
    let mut all: Vec<u64> = kept.iter().chain(drops.iter()).copied().collect();
    all.sort_unstable();
    assert_eq!(all, (0..COUNT).collect::<Vec<_>>(), "each value acknowledged or dropped, never both");
    assert!(kept.windows(2).all(|w| w[0] < w[1]), "stored in order");
}
