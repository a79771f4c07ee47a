// What the tests share: a nats-server of each test's own (127.0.0.1, free
// ports, JetStream in a temporary folder), stopped when dropped; a lock
// that runs the tests one at a time (one reads the library's global count
// of live objects); waits with a deadline on a condition variable.
#![allow(dead_code)]
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// How long any wait of these tests may take before it fails.
pub const WAIT: Duration = Duration::from_secs(60);

static SERIAL: Mutex<()> = Mutex::new(());

/// Holds the tests to one at a time.
pub fn serial() -> MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

/// The nats-server program: $NATS_SERVER, /usr/sbin/nats-server, or one on
/// the PATH; None when there is none.
fn program() -> Option<PathBuf> {
    if let Some(named) = std::env::var_os("NATS_SERVER").filter(|n| !n.is_empty()) {
        return Some(PathBuf::from(named)).filter(|p| p.exists());
    }
    let debian = Path::new("/usr/sbin/nats-server");
    if debian.exists() {
        return Some(debian.to_path_buf());
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|dir| dir.join("nats-server")).find(|p| p.exists())
}

/// A running nats-server.
pub struct Server {
    child: Child,
    pub url: String,
    pub monitor_port: u16,
    dir: PathBuf,
}

impl Server {
    /// Starts one and waits until it accepts connections; None (with the
    /// reason printed) when no nats-server is installed.
    pub fn start(test: &str) -> Option<Server> {
        let program = match program() {
            Some(p) => p,
            None => {
                println!("{}: skipped: no nats-server (Debian's nats-server; NATS_SERVER names another)", test);
                return None;
            }
        };
        static COUNT: AtomicUsize = AtomicUsize::new(0);
        let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.subsec_nanos()).unwrap_or(0);
        let dir = std::env::temp_dir().join(format!(
            "rsignalkit-nats-{}-{}-{}",
            std::process::id(),
            COUNT.fetch_add(1, Ordering::SeqCst),
            nanos
        ));
        std::fs::create_dir_all(&dir).unwrap();
        // Two listeners held at once, so that the ports differ.
        let (a, b) = (TcpListener::bind("127.0.0.1:0").unwrap(), TcpListener::bind("127.0.0.1:0").unwrap());
        let (port, monitor_port) = (a.local_addr().unwrap().port(), b.local_addr().unwrap().port());
        drop((a, b));
        let child = Command::new(&program)
            .args(["-a", "127.0.0.1", "-p", &port.to_string(), "-m", &monitor_port.to_string(), "-js", "-sd"])
            .arg(dir.join("js"))
            .arg("-l")
            .arg(dir.join("server.log"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {:?}: {}", program, e));
        let server = Server { child, url: format!("nats://127.0.0.1:{}", port), monitor_port, dir };
        let deadline = Instant::now() + WAIT;
        while TcpStream::connect(("127.0.0.1", port)).is_err() || TcpStream::connect(("127.0.0.1", monitor_port)).is_err() {
            assert!(Instant::now() < deadline, "nats-server did not listen on {} within {:?}", server.url, WAIT);
            std::thread::sleep(Duration::from_millis(5)); // a poll interval; the deadline bounds it
        }
        Some(server)
    }

    /// GET `path` of the monitoring port: the body.
    pub fn monitor(&self, path: &str) -> String {
        let mut stream = TcpStream::connect(("127.0.0.1", self.monitor_port)).unwrap();
        stream.set_read_timeout(Some(WAIT)).unwrap();
        write!(stream, "GET {} HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n", path).unwrap();
        let mut response = String::new();
        stream.read_to_string(&mut response).unwrap();
        assert!(response.starts_with("HTTP/1.") && response.contains(" 200 "), "GET {}: {}", path, response);
        response.split_once("\r\n\r\n").map(|(_, body)| body.to_owned()).unwrap_or_default()
    }

    /// How many subscriptions to exactly `subject` the server lists.
    pub fn subscriptions(&self, subject: &str) -> usize {
        let body = self.monitor("/subsz?subs=1&limit=100000");
        assert!(body.contains("\"num_subscriptions\""), "/subsz said: {}", body);
        body.matches(&format!("\"subject\": \"{}\"", subject)).count()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Values collected by callbacks on other threads, waited on with a deadline.
pub struct Collected<T> {
    items: Mutex<Vec<T>>,
    changed: Condvar,
}

impl<T: Clone> Collected<T> {
    pub fn new() -> Collected<T> {
        Collected { items: Mutex::new(Vec::new()), changed: Condvar::new() }
    }

    pub fn push(&self, item: T) {
        self.items.lock().unwrap().push(item);
        self.changed.notify_all();
    }

    /// Waits until `count` items are there (fails the test after WAIT).
    pub fn wait(&self, count: usize) -> Vec<T> {
        let deadline = Instant::now() + WAIT;
        let mut items = self.items.lock().unwrap();
        while items.len() < count {
            let now = Instant::now();
            assert!(now < deadline, "{} of {} items within {:?}", items.len(), count, WAIT);
            items = self.changed.wait_timeout(items, deadline - now).unwrap().0;
        }
        items.clone()
    }

    pub fn len(&self) -> usize {
        self.items.lock().unwrap().len()
    }
}

/// Waits until `condition` holds, looking every 10 ms (for state the
/// library changes without telling: its count of live objects, the
/// server's lists), failing after WAIT.
pub fn eventually(what: &str, mut condition: impl FnMut() -> bool) {
    let deadline = Instant::now() + WAIT;
    while !condition() {
        assert!(Instant::now() < deadline, "{} did not happen within {:?}", what, WAIT);
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// An 8-byte big-endian index.
pub fn index_bytes(index: u64) -> Vec<u8> {
    index.to_be_bytes().to_vec()
}

/// The index of an 8-byte payload.
pub fn index_of(payload: &[u8]) -> u64 {
    let mut bytes = [0u8; 8];
    bytes.copy_from_slice(&payload[..8]);
    u64::from_be_bytes(bytes)
}
