"""The NATS demonstration's runner (`make demo-nats`): a nats-server on
127.0.0.1 (a free port, JetStream in a temporary folder), the consumer and
the producer (built from consumer.c and producer.c) started at once as two
processes, the consumer's total checked against N (N + 1) / 2, the server
stopped.

Usage: python3 run_demo.py BUILD_FOLDER N WINDOW
(nats-server: /usr/sbin/nats-server, the PATH's, or NATS_SERVER)."""
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

WAIT_SECONDS = 10.0
RUN_SECONDS = 120.0


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_ready(server, port):
    """Polls until the server greets a connection (its INFO line), with a
    deadline; between attempts waits 5 ms for the server's death."""
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1.0) as s:
                if s.recv(5) == b"INFO ":
                    return
        except OSError:
            pass
        try:
            status = server.wait(timeout=0.005)
            sys.exit(f"demo-nats: nats-server exited ({status}) before accepting connections")
        except subprocess.TimeoutExpired:
            pass
        if time.monotonic() > deadline:
            sys.exit(f"demo-nats: nats-server did not accept a connection within {WAIT_SECONDS} s")


def main():
    build, count, window = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    program = os.environ.get("NATS_SERVER") or (
        "/usr/sbin/nats-server" if os.access("/usr/sbin/nats-server", os.X_OK) else shutil.which("nats-server"))
    if not program:
        sys.exit("demo-nats: no nats-server (Debian: apt-get install nats-server; make deps)")
    folder = tempfile.mkdtemp(prefix="signalkit-nats-demo-")
    port = free_port()
    url = f"nats://127.0.0.1:{port}"
    server = subprocess.Popen([program, "-a", "127.0.0.1", "-p", str(port), "-js", "-sd", os.path.join(folder, "js"),
                               "-l", os.path.join(folder, "server.log")], stdin=subprocess.DEVNULL,
                              stdout=subprocess.DEVNULL)
    try:
        wait_ready(server, port)
        print(f"demo-nats: nats-server on {url}, JetStream in {folder}; {count} readings, windows of {window}",
              flush=True)
        consumer = subprocess.Popen([os.path.join(build, "consumer"), url, str(count), str(window)],
                                    stdout=subprocess.PIPE, text=True)
        producer = subprocess.Popen([os.path.join(build, "producer"), url, str(count)], stdout=subprocess.PIPE,
                                    text=True)
        produced, _ = producer.communicate(timeout=RUN_SECONDS)
        consumed, _ = consumer.communicate(timeout=RUN_SECONDS)
        sys.stdout.write(produced + consumed)
        if producer.returncode or consumer.returncode:
            sys.exit(f"demo-nats: producer exited {producer.returncode}, consumer {consumer.returncode}")
        expected = count * (count + 1) // 2
        last = consumed.strip().splitlines()[-1] if consumed.strip() else ""
        if not last.endswith(f" total {expected}"):
            sys.exit(f"demo-nats: the consumer's total is not {expected}: {last!r}")
        print(f"demo-nats: the consumer's total is {expected} = {count} * {count + 1} / 2, as expected")
    finally:
        server.terminate()
        server.wait(timeout=WAIT_SECONDS)
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
