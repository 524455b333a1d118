#!/usr/bin/python3
"""dstdrun's --rsh between two Soft-RoCE guests, which have no ssh.

The guests (scripts/rxe-vm.sh, RXE_VM_NETDEV=nic) are joined by one
network link. In the second guest `guest_rsh.py serve` listens on it; in the
first, dstdrun runs `guest_rsh.py HOST COMMAND` for each remote node, as it
would run `ssh HOST COMMAND`: the command runs there under sh, its stdout and
stderr come back on ours, and we end as it ended (the same exit status, or
killed by the same signal), so dstdrun's judgement of a remote node is the
one it makes over ssh. Killed (SIGTERM, SIGHUP, SIGINT), we close the
connection and the server kills the command, as sshd does when its
connection drops.

usage: guest_rsh.py serve [SECONDS]   serve until `guest_rsh.py stop HOST`
                                      or SECONDS (default 1800) have passed
       guest_rsh.py stop HOST
       guest_rsh.py HOST COMMAND      connects for up to 120 s (the other
                                      guest boots on its own)

Frames, both ways: 1 byte kind, 4 bytes big-endian length, data. Client to
server: 'c' command (or 's': stop serving). Server to client: 'o' stdout,
'e' stderr, 'x' the end (exit status, or minus the signal number).
"""
import os
import signal
import socket
import struct
import subprocess
import sys
import threading
import time

PORT = 7077


def send_frame(sock, lock, kind, data):
    with lock:
        sock.sendall(kind + struct.pack(">I", len(data)) + data)


def read_exact(sock, n):
    data = b""
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            return None
        data += chunk
    return data


def read_frame(sock):
    head = read_exact(sock, 5)
    if head is None:
        return None, None
    body = read_exact(sock, struct.unpack(">I", head[1:])[0])
    return (head[:1], body) if body is not None else (None, None)


def serve_one(conn, stop):
    kind, command = read_frame(conn)
    if kind == b"s":
        stop.set()
        conn.close()
        return
    if kind != b"c":
        conn.close()
        return
    lock = threading.Lock()
    child = subprocess.Popen(["sh", "-c", command.decode()], stdin=subprocess.DEVNULL,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             start_new_session=True)

    def pump(stream, tag):
        for chunk in iter(lambda: os.read(stream.fileno(), 65536), b""):
            try:
                send_frame(conn, lock, tag, chunk)
            except OSError:
                return

    def watch_client():  # the client gone: kill the command, as sshd would
        while True:
            try:
                if not conn.recv(1):
                    break
            except OSError:
                break
        if child.poll() is None:
            try:
                os.killpg(child.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

    pumps = [threading.Thread(target=pump, args=(child.stdout, b"o")),
             threading.Thread(target=pump, args=(child.stderr, b"e"))]
    for t in pumps:
        t.start()
    threading.Thread(target=watch_client, daemon=True).start()
    status = child.wait()
    for t in pumps:
        t.join()
    try:
        send_frame(conn, lock, b"x", struct.pack(">i", status))
    except OSError:
        pass
    conn.close()


def serve(seconds):
    stop = threading.Event()
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("0.0.0.0", PORT))
    listener.listen(64)
    listener.settimeout(0.5)
    deadline = time.monotonic() + seconds
    print(f"guest_rsh: serving on port {PORT}", flush=True)
    while not stop.is_set():
        if time.monotonic() > deadline:
            print(f"guest_rsh: no stop after {seconds} s, leaving", file=sys.stderr)
            return 1
        try:
            conn, _ = listener.accept()
        except socket.timeout:
            continue
        conn.settimeout(None)
        threading.Thread(target=serve_one, args=(conn, stop), daemon=True).start()
    return 0


def connect(host):
    deadline = time.monotonic() + 120
    while True:
        try:
            return socket.create_connection((host, PORT), timeout=5)
        except OSError as e:
            if time.monotonic() > deadline:
                print(f"guest_rsh: cannot reach {host}:{PORT}: {e}", file=sys.stderr)
                sys.exit(255)  # what ssh says when it cannot connect
            time.sleep(0.5)


def run(host, command):
    sock = connect(host)
    sock.settimeout(None)

    def leave(signum, frame):
        sock.close()  # the server kills the command
        os._exit(128 + signum)

    for s in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
        signal.signal(s, leave)
    send_frame(sock, threading.Lock(), b"c", command.encode())
    while True:
        kind, data = read_frame(sock)
        if kind is None:
            print(f"guest_rsh: lost the connection to {host}", file=sys.stderr)
            return 255
        if kind in (b"o", b"e"):
            os.write(1 if kind == b"o" else 2, data)
        elif kind == b"x":
            status = struct.unpack(">i", data)[0]
            if status < 0:  # end as the command did: killed by its signal
                if -status not in (signal.SIGKILL, signal.SIGSTOP):
                    signal.signal(-status, signal.SIG_DFL)
                os.kill(os.getpid(), -status)
                time.sleep(1)
                return 128 - status
            return status


def main(argv):
    if len(argv) >= 2 and argv[1] == "serve":
        return serve(float(argv[2]) if len(argv) > 2 else 1800)
    if len(argv) == 3 and argv[1] == "stop":
        sock = connect(argv[2])
        send_frame(sock, threading.Lock(), b"s", b"")
        sock.close()
        return 0
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    return run(argv[1], " ".join(argv[2:]))


if __name__ == "__main__":
    sys.exit(main(sys.argv))
