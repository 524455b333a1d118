# hang_state.py - for diagnosing, not a test: a gdb script (gdb -batch -p
# PID -x hang_state.py) that prints, from a stopped dstd node and without
# calling into it, every waiter of the node (park state, wake mark, and for
# a parked fiber the code addresses found on its saved stack: a rough
# backtrace, since gdb does not see fibers), the contended lines of
# home_mutex, and on verbs the transport's work in flight per peer. Needs a
# build with debug information (RelWithDebInfo); hunt_hang.sh runs it.
# Found the Soft-RoCE fence stall (verbs_transport.cpp's may_post): 45
# posted requests on node 0 never completed while both queue pairs were
# idle.
import gdb

def sym(addr):
    try:
        s = gdb.execute("info symbol %#x" % addr, to_string=True).strip()
    except gdb.error:
        return None
    if s.startswith("No symbol"):
        return None
    return s

def static(mangled, typename):
    addr = int(gdb.parse_and_eval("(unsigned long)&'%s'" % mangled))
    ptr = gdb.Value(addr).cast(gdb.lookup_type("unsigned long").pointer()).dereference()
    return gdb.Value(int(ptr)).cast(gdb.lookup_type(typename).pointer()).dereference()

def dump():
    gdb.execute("set print pretty off")
    try:
        reg = static("_ZZN4dstd2rt5sched12_GLOBAL__N_15tableEvE1r",
                     "dstd::rt::sched::(anonymous namespace)::registry")
    except gdb.error as e:
        print("no registry:", e); reg = None
    if reg is not None:
        count = int(reg["count"]["_M_i"])
        chunk = reg["chunks"][0]["_M_b"]["_M_p"]
        print("waiters:", count)
        for i in range(1, count + 1):
            f = chunk[i - 1]
            fo = f.dereference()
            state = int(fo["state"]["_M_i"])
            mark = int(fo["mark"]["_M_i"])
            osth = bool(fo["os_thread"])
            print("waiter %d state %d mark %d os_thread %s home_worker %d" % (i, state, mark, osth, int(fo["home_worker"])))
            if state in (1, 2) and not osth:
                try:
                    sp = int(fo["context"]["fctx_"])
                    top = int(fo["stack"]["top"])
                    inf = gdb.selected_inferior()
                    n = min((top - sp) // 8, 4096)
                    mem = inf.read_memory(sp, n * 8).tobytes()
                except (gdb.error, gdb.MemoryError) as e:
                    print("  no stack:", e); continue
                seen = 0
                for k in range(n):
                    w = int.from_bytes(mem[k*8:k*8+8], "little")
                    if w < 0x400000 or w > 0x7fffffffffff: continue
                    s = sym(w)
                    if s and " in section .text" in s:
                        print("   ", s.split(" in section")[0])
                        seen += 1
                        if seen > 40: break
    try:
        t = static("_ZZN4dstd2rt10home_mutex12_GLOBAL__N_15tableEvE1t",
                   "dstd::rt::home_mutex::(anonymous namespace)::lock_table")
        print("home_mutex lines:", t["lines"])
    except gdb.error as e:
        print("no lock table:", e)
dump()

def verbs_state():
    try:
        addr = int(gdb.parse_and_eval("(unsigned long)&'_ZN4dstd2rt12_GLOBAL__N_114node_transportE'"))
        ptr = int(gdb.Value(addr).cast(gdb.lookup_type("unsigned long").pointer()).dereference())
        base = gdb.Value(ptr).cast(gdb.lookup_type("dstd::rt::transport").pointer())
        if "verbs" not in str(base.dynamic_type):
            return
        t = base.cast(gdb.lookup_type("dstd::rt::verbs::(anonymous namespace)::verbs_transport").pointer()).dereference()
        print("verbs outstanding", t["outstanding_"], "progressing", t["progressing_"])
        peer_type = gdb.lookup_type("dstd::rt::verbs::(anonymous namespace)::peer_state")
        peers = t["peers_"].address.cast(peer_type.pointer().pointer()).dereference()
        for i in range(int(t["launch_"]["nodes"])):
            p = peers[i]
            print("peer %d: in_flight %s reads %s writes %s backlog %s atomics_at_home %s" % (
                i, p["in_flight"], p["reads_in_flight"], p["writes_in_flight"], p["backlog"], p["atomics_at_home"]))
        print("inbox", t["inbox_"])
    except Exception as e:
        print("no verbs state:", e)
verbs_state()
