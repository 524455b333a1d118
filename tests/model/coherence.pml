/*
 * coherence.pml -- SPIN model of dstd's v1 coherence protocol:
 * home-based release consistency at page granularity (docs/DESIGN.md s.4).
 * tests/model/README.md explains how to run it; run_spin.sh does.
 *
 * What is modelled
 * ----------------
 * 3 nodes, 2 pages of 3 bytes.  The home of page p is node p:
 *     node 0: home of page 0, caches page 1
 *     node 1: home of page 1, caches page 0
 *     node 2: home of nothing, caches both pages.
 * A home accesses its own page directly in the master copy (never faults,
 * never tracks).  Every other node accesses its cache frame of the page,
 * which is INVALID, READ_ONLY (a copy fetched from the home) or DIRTY
 * (writable, with a twin taken at the first write after the last
 * fetch/flush).
 *
 * The program the nodes run is data-race free:
 *   - "L" bytes are only touched inside critical sections of one mutex;
 *   - every other byte is owned by one node, the only node that ever
 *     touches it: writes to it are false sharing with the other bytes of
 *     its page, done outside the lock, concurrently with everything else.
 * Byte layout (byte i is offset i%3 of page i/3):
 *     page 0 (home 0):  0 = L        1 = node 1's   2 = node 2's
 *     page 1 (home 1):  3 = node 0's 4 = L          5 = node 2's
 * So each page holds one lock-protected byte, accessed directly by its
 * home and through cache frames by the two other nodes, and two bytes that
 * those two other nodes write concurrently, outside the lock, each with its
 * own twin; their diffs must merge at the home.
 *
 * Each node runs, by default, NFS = NCS = 2 rounds of
 *     own-byte write (outside the lock);  critical section
 * then exits.  A critical section is: lock; one read or one write of one
 * of the L bytes (nondeterministic); unlock.  Thread exit is a release.
 *
 * Runtime functions mirrored (runtime/coherence/)
 *   fault_read, fault_write  -> fault_fetch + do_read / do_write
 *                               (INVALID: fetch; READ_ONLY + write: twin,
 *                               DIRTY)
 *   fetch (one-sided read of the whole page from its home) -> fetch
 *   release_flush            -> flush_send + flush_wait (diff against the
 *                               twin, send the changed bytes to the home,
 *                               drop the twin, READ_ONLY; wait for the acks)
 *   acquire_invalidate       -> release_flush, then invalidate (READ_ONLY
 *                               -> INVALID)
 *   home_apply_diff          -> proctype home_server (the home's handler
 *                               of diff messages: apply the masked bytes,
 *                               ack)
 *   mutex lock / unlock      -> the global bit `lock` (test-and-set),
 *                               followed by an acquire / preceded by a
 *                               release
 *
 * Properties
 *   P1  DRF correctness: a read of an L byte in a critical section returns
 *       the last value written to it (ghost last[]: the lock orders all
 *       critical sections, so "last in lock order" is "the last write that
 *       happens-before the read").  Assertion `v == last[i]`.
 *   P1' read-own-writes (with OWN_READS): a node reading its own byte
 *       outside the lock sees its own last write.  Assertion `v == mine[i]`.
 *   P2  no lost diffs: once every node has exited (so released) and no
 *       diff is in flight, every master byte holds the last value written
 *       to it.  Assertion `master[k] == last[k]` in final_check.
 *   P3  no deadlock: pan's invalid-end-state check (home servers may wait
 *       for messages forever: label end_wait).
 *
 * Options (spin -DNAME): program shape
 *   NCS=n, NFS=n             critical sections / own-byte accesses per node
 *   NCS0=n .. NCS2=n,        the same for one node (default NCS, NFS); 0
 *   NFS0=n .. NFS2=n         and 0: the node only exits (a release)
 *   FREE_ORDER               a node does its NCS critical sections, NFS
 *                            own-byte accesses and NREL releases in any
 *                            order (default: alternate, own byte first)
 *   CS_FIRST=n               node n alternates critical section first (so
 *                            its last own-byte write is flushed by its
 *                            exit, outside the lock)
 *   NREL=n                   stand-alone releases (release-store, thread
 *                            start, channel send) at any point (default 0)
 *   NACQ2=n                  node 2 runs n stand-alone acquires (a
 *                            load-acquire, a channel receive, a join) at
 *                            any point (default 0): acquires that can run
 *                            while another node's critical section is being
 *                            flushed, which a lock's acquire never does
 *   OWN_READS                an own-byte access may be a read (checks P1')
 *   NONDET_VALUES            a write stores 1 or VALS, chosen freely
 *                            (default: a value that differs from the
 *                            byte's current one, so that every write is
 *                            visible; this option adds writes of the value
 *                            already there, which leave no trace in a diff)
 * Options: weaker atomicity (the protocol must stay correct)
 *   FETCH_BYTEWISE           a fetch copies the page one byte per step (an
 *                            RDMA read of a page is not atomic), so it can
 *                            see a half-applied diff or a home write
 *   HOME_APPLY_BYTEWISE      the home applies a diff one byte per step
 * Options: deliberately broken protocols (SPIN must find an error)
 *   BUG_NO_INVALIDATE        acquire flushes but does not invalidate
 *   BUG_INVALIDATE_BEFORE_FLUSH  acquire invalidates the READ_ONLY pages,
 *                            then flushes the DIRTY ones (which stay
 *                            READ_ONLY with stale bytes of other nodes)
 *   BUG_ACQUIRE_DROPS_DIRTY  acquire invalidates DIRTY pages too, without
 *                            flushing them first
 *   BUG_FULL_PAGE_WRITEBACK  release sends the whole page, not the diff
 *   BUG_WORD_DIFF            the diff is per 2-byte "word" (bytes 0-1 of a
 *                            page): a changed word is sent whole, with the
 *                            byte this node did not write
 *   BUG_NO_ACK_WAIT          release does not wait for the homes' acks
 *                            (the unlock can overtake the diff)
 *   BUG_KEEP_TWIN            release leaves the page DIRTY with its old
 *                            twin, so a later flush resends old bytes
 *
 * V2: invalidate only what changed (docs/DESIGN.md s.4, "Versions and
 * notices")
 * ------------------------------------------------------------------------
 * With -DV2 the model follows the v2 acquire of coherence.cpp and
 * page_versions.cpp, with the homes' change notices:
 *   ver[p]        the home's version of page p;
 *   notices[h]    home h's published notice count (the summary's first
 *                 word): the notices written up to its last applied batch;
 *   ring[h*CAP+i] home h's notice ring, CAP slots (-DCAP=n, default 1, so
 *                 that falling behind and overwriting are reachable):
 *                 notice number k goes to slot k % CAP and holds the index
 *                 of the page changed;
 *   reserved[h]   home h's reserve count;
 *   written       home h's notices written (home_server's local: written_);
 *   wepoch[h]     home h's write epoch, bumped by every release of home h
 *                 once some node has cached from it (exported[h]): the
 *                 home's own writes are not tracked page by page;
 *   exported[h]   set by a node (one-sided, waited for) before its first
 *                 fetch from h.
 * A diff message of the model is one batch (one page).  Batches apply one
 * at a time (home_apply.cpp, under the home's apply lock; by the home's
 * diff handler, or by the releaser between its send and its wait: on shm
 * with loads and stores, in the delayed mode posted one-sided, in order):
 * the bytes, then (page_done) ver[p]++, reserved = written + 1, ring slot
 * written % CAP = p, written++; then (finish) notices = written, and the
 * ack carries
 * {before, after}, the published count before and after the batch.  A
 * node keeps per page the version it fetched (cver) and per home the
 * counters it last saw (seen_n, seen_w).  On an ack (note_applied) with
 * before == seen_n, only its own diff came since: seen_n = after and cver
 * = cver + 1; otherwise nothing.  The model asserts the invariant that
 * makes this right ("seen_n == notices implies cver == ver for every
 * cached page"): the ack also carries, as a ghost, the page's version
 * after the batch, which must then be cver + 1.
 * A fetch reads the version, then the bytes.  An acquire flushes, then
 * (drop_changed_pages) per home it has exported (read_summaries' homes)
 * reads the summary (write epoch and notice count, one read):
 *   - write epoch moved: the counters again, whole (read_all_notices'
 *     read_counter: the notice count, then the write epoch, one step
 *     each); the page is dropped;
 *   - else the notice count moved: the count again, whole, is `now';
 *       now - seen_n > CAP: the version comparison (one read; the page is
 *       dropped if the home's version is not cver: the first v2 rule);
 *       else (read_notices) the entries seen_n .. now-1, one read each,
 *       then the reserve count: reserved - seen_n > CAP (unsigned: an
 *       entry may have been overwritten while read) means the version
 *       comparison; else the page is dropped if an entry names it, and
 *       kept without looking at it if none does;
 *   - nothing moved: keep;
 *   then seen_w, seen_n = the counters read.  While nothing is cached from
 *   the home the model skips the entry, reserve and version reads (they
 *   decide nothing then; the counters are still read and kept).  The
 *   runtime reads every home's summary first, all in flight, and goes on
 *   home by home; the model does one home after the other: what it decides
 *   for a home depends only on that home's words, read in the runtime's
 *   order.
 * Wrong entries.  Each home has one modelled page, so every notice a
 * modelled diff writes names the one page a node may cache from that
 * home: read at any time, a slot would name the right page.  In the
 * runtime a slot that no longer (or not yet) holds notice k holds another
 * notice, and that names whatever page the home changed then, any of its
 * pages.  So the model keeps with each slot, as a ghost, the number of the
 * notice in it (ringno, NONE before the first), and a read of notice k
 * from a slot that holds another one may return either the slot's page or
 * OTHER, a page of that home no modelled node caches.  A torn read (the
 * slot's store in flight) is the same as a read after the store: the
 * reserve count was raised before either.  Without the reserve check, a
 * notice overwritten while a node reads it makes the node keep the page it
 * named, stale, which P1 catches (BUG_V2_NO_RESERVE_CHECK, with CS_FIRST so
 * that a diff can reach the home outside the lock, during a critical
 * section's acquire).
 * Notices of other pages.  With -DNOTHER=n (default 0) home 1 also applies
 * n diffs, at any time while some node runs, to another of its pages,
 * written by nodes outside the model and cached by no modelled node: the
 * reserve, entry (OTHER) and count steps, no bytes, no version.  They move
 * the count without naming page 1: an acquire then keeps page 1 after
 * reading the notices (the path the notices are for), an ack shows that
 * another diff came between, and the entry a node reads can be overwritten
 * by one of them.
 * Every shared access of V2 (the mark, a version, the summary, a counter,
 * an entry or the reserve count read; the home's version bump, reserve
 * store, entry store, count publication) is its own step, and so is the
 * fetch; local work joins the step before it, and the ack (a send) the
 * count's publication.
 * Broken variants (must be caught): BUG_V2_NO_HOME_BUMP (a home's release
 * does not bump its write epoch), BUG_V2_VERSION_AFTER_DATA (a fetch reads
 * the version after the bytes), BUG_V2_TRUST_OWN_DIFF (an ack always moves
 * seen_n on and bumps the cached version, even when another node's diff
 * came between), BUG_V2_NO_RESERVE_CHECK (the acquire trusts the entries
 * it read without reading the reserve count; needs a diff outside the
 * lock: CS_FIRST), BUG_V2_PUBLISH_FIRST (the home publishes the count
 * after the version and the reserve count but before the entry; needs an
 * acquire that runs while a critical section's diff is applied: NACQ2),
 * BUG_V2_NOTICE_BEFORE_DATA (the version, the notice and the count before
 * the bytes).
 *
 * SCAN (with V2): a home's own writes noticed on demand (docs/DESIGN.md
 * s.4, "A home's own writes"; runtime/coherence/own_writes.hpp and
 * home_apply.cpp's notice_own_writes)
 * ------------------------------------------------------------------------
 *   owrit[h]      the kernel's record that home h's page was written since
 *                 its last scan (either at the start: a page never
 *                 scanned counts as written).  A home's write to its own page sets
 *                 it in the same step: the kernel marks the page before
 *                 the store completes, and a store that slips past a
 *                 scan's re-protection (a stale TLB entry) lands before
 *                 the scan returns, on a page that scan reports;
 *   scanq[h]      requests to home h to publish its own writes.
 * An acquire whose summary says the write epoch moved may, instead of
 * dropping the page (the runtime asks when it caches many pages: here
 * either choice), ask the home and wait for the reply.  The home's handler,
 * under the apply lock (home_server's steps): reads its write epoch, then
 * scans (tests and clears owrit[h]: PAGEMAP_SCAN's written bit and
 * re-protection, one step per page), for a written page bumps its version
 * and writes a notice as a diff's page_done does, publishes the count and
 * replies with the epoch it read.  The acquirer takes that epoch as seen
 * and goes on as for a moved notice count (the count again, whole, the
 * notices, the reserve count; or the version comparison).
 * Broken variants (must be caught): BUG_SCAN_EPOCH_AFTER (the handler
 * reads the epoch after its scan: a release between the two is taken as
 * covered though its writes were not scanned), BUG_SCAN_NO_NOTICE (the
 * scan bumps the version of a written page but writes no notice).
 */

/* ---------------------------------------------------------------- bounds */
#ifndef NCS
#define NCS  2          /* critical sections per node                     */
#endif
#ifndef NFS
#define NFS  2          /* own-byte (false-sharing) accesses per node      */
#endif
#ifndef NREL
#define NREL 0          /* stand-alone releases per node                   */
#endif
#ifndef VALS
#define VALS 2          /* written values are 1..VALS; memory starts at 0  */
#endif
/* Per node (NCS0=n ... NFS2=n), by default NCS and NFS. */
#ifndef NCS0
#define NCS0 NCS
#endif
#ifndef NCS1
#define NCS1 NCS
#endif
#ifndef NCS2
#define NCS2 NCS
#endif
#ifndef NFS0
#define NFS0 NFS
#endif
#ifndef NFS1
#define NFS1 NFS
#endif
#ifndef NFS2
#define NFS2 NFS
#endif
#define MY_NCS (n == 0 -> NCS0 : (n == 1 -> NCS1 : NCS2))
#define MY_NFS (n == 0 -> NFS0 : (n == 1 -> NFS1 : NFS2))
#ifndef NACQ2
#define NACQ2 0         /* stand-alone acquires of node 2                  */
#endif

/* Program order of a node's steps (see FREE_ORDER, CS_FIRST above). */
#ifdef FREE_ORDER
#define MAY_CS true
#define MAY_FS true
#else
#ifdef CS_FIRST
#define CSF (n == CS_FIRST)
#else
#define CSF false
#endif
#define MAY_CS (ncs < nfs || (CSF && ncs == nfs) || nfs == MY_NFS)
#define MAY_FS (nfs < ncs || (!CSF && nfs == ncs) || ncs == MY_NCS)
#endif

#define NN 3            /* nodes                                           */
#define NP 2            /* pages; the home of page p is node p             */
#define PS 3            /* bytes per page (a diff message has PS values)   */
#define NB 6            /* NP*PS bytes; byte i is offset i%PS of page i/PS */
#define HOME(p) (p)

/* Which bytes are lock-protected, and which node owns each other byte. */
#define IS_L(i)    ((i) == 0 || (i) == 4)
#define OWNS(n, i) (((n) == 0 && (i) == 3) || ((n) == 1 && (i) == 1) || \
                    ((n) == 2 && ((i) == 2 || (i) == 5)))

/* Cache frame states. */
#define INVALID   0
#define READ_ONLY 1
#define DIRTY     2

/* ----------------------------------------------------------------- state */
byte master[NB];        /* the homes' master copies (page p at p*PS..)     */

bit  lock;              /* the one mutex (test-and-set at its home)        */

/* Diff messages to a home: sender, page, byte mask, then the values of the
 * page's 3 bytes (those outside the mask are sent as 0 and ignored).  Acks
 * back to the sender carry the page.  Buffered: a releaser sends its diffs
 * to every home, then waits for all the acks (one batch per release). */
chan homeq[NP] = [NN] of { byte, byte, byte, byte, byte, byte };
#ifdef V2
/* V2's ack: page, notice count before and after the batch, and a ghost
 * (only for the assertion in flush_wait): the page's version after it. */
chan ackq[NN]  = [NP] of { byte, byte, byte, byte };
#else
chan ackq[NN]  = [NP] of { byte, byte, byte };   /* page, unused, unused */
#endif

#ifdef V2
#ifndef CAP
#define CAP 1           /* notice ring slots per home                      */
#endif
#ifndef NOTHER
#define NOTHER 0        /* diffs to home 1's unmodelled page               */
#endif
#define OTHER NP        /* an entry naming a page of the home that no
                         * modelled node caches (see the header)           */
byte ver[NP];           /* home: version of page p                          */
byte notices[NP];       /* home h (= page h): notice count published        */
byte reserved[NP];      /* home h: reserve count                            */
byte ring[NP*CAP];      /* home h's notices at h*CAP..: page indices        */
byte ringno[NP*CAP];    /* ghost: the number of the notice in each slot
                         * (NONE: never written)                           */
#define NONE 255
byte wepoch[NP];        /* home h: releases since it was first exported     */
bit  exported[NP];      /* home h: some node has fetched from it            */
#ifdef SCAN
bit  owrit[NP];         /* home h's page written since its last scan        */
chan scanq[NP] = [NN] of { byte };   /* scan requests: the asking node     */
#endif
#define FETCH_SPLIT     /* every fetch is outside atomic blocks            */
#endif
#ifdef FETCH_BYTEWISE
#define FETCH_SPLIT
#endif

/* Ghost state, only for the assertions. */
byte last[NB];          /* last value written to each byte: L bytes kept up
                         * to date under the lock; owned bytes published
                         * by their owner when it exits                    */
byte ndone;             /* nodes that have exited                          */
byte inflight;          /* diffs sent and not yet applied                  */

/*
 * A node's cache frames (cache[], twin[], st[]) and its record of its own
 * writes (mine[]) are local variables of the node process: nobody else
 * touches them.  The inlines below are expanded inside proctype node and
 * use its locals.
 *
 * Step granularity.  Another process can only observe steps that touch
 * shared state: reading or writing master[] (with V2 also a home's
 * versions, counters, ring and exported flag), the lock, a send to a home,
 * the receipt of an ack.  Ghost variables (last[], inflight, ndone, the
 * ack's version, ringno[]) are not state of the runtime.  Each atomic
 * block below has the shape
 *     [ack receipts / lock acquire] [at most one access to shared memory:
 *     a fetch, a home's direct read or write, a diff application, with V2
 *     one read or write of a version, a counter (the summary: one read of
 *     its two words), a ring entry, an exported flag] [sends / lock
 *     release]
 * with any purely local steps in between.  By Lipton's reduction
 * (receipts and lock acquires commute to the right, sends and lock
 * releases to the left, local steps both ways) running such a block
 * atomically hides no behaviour of the real, finer-grained runtime.
 * A flush_wait inside an atomic block always blocks when anything was sent
 * (the acks can only come after the homes run), and atomicity is lost
 * there, so a block with flush_waits really runs as the pieces between
 * them, and each piece has the shape above.  Every fetch and every diff
 * application is its own step; with FETCH_BYTEWISE / HOME_APPLY_BYTEWISE
 * every byte of them is.  One exception, home_bump (V2): it reads the
 * exported flag and bumps the write epoch in one step.  The flag only goes
 * from 0 to 1, so the runtime's bump after reading 1 is the model's step at
 * the bump, and its skip after reading 0 the model's step at the read.
 */

/* --------------------------------------------------------------- actions */

/* fetch: one-sided read of page pg from its home into this node's frame,
 * then the frame is READ_ONLY.  Default: an atomic snapshot of the master
 * page.  With FETCH_BYTEWISE it must be used outside any atomic block. */
inline fetch(pg)
{
#ifdef V2
  if
  :: !marked[HOME(pg)] -> atomic { exported[HOME(pg)] = 1; marked[HOME(pg)] = 1 }
  :: else
  fi;
#ifndef BUG_V2_VERSION_AFTER_DATA
  atomic { cver[pg] = ver[pg] };
#endif
#endif
#ifdef FETCH_BYTEWISE
  cache[pg*PS+0] = master[pg*PS+0];
  cache[pg*PS+1] = master[pg*PS+1];
  atomic { cache[pg*PS+2] = master[pg*PS+2]; st[pg] = READ_ONLY }
#else
  atomic {
    cache[pg*PS+0] = master[pg*PS+0];
    cache[pg*PS+1] = master[pg*PS+1];
    cache[pg*PS+2] = master[pg*PS+2];
    st[pg] = READ_ONLY
  }
#endif
#if defined(V2) && defined(BUG_V2_VERSION_AFTER_DATA)
  atomic { cver[pg] = ver[pg] };
#endif
}

/* The fault part of an access to byte i (fault_read / fault_write on an
 * INVALID frame): fetch the page first.  Homes never fault. */
inline fault_fetch(i)
{
  if
  :: HOME(i/PS) != n && st[i/PS] == INVALID -> fetch(i/PS)
  :: else
  fi
}

/* The rest of a read of byte i (after fault_fetch), and its check. */
inline do_read(i)
{
  if
  :: HOME(i/PS) == n -> v = master[i]               /* home: direct      */
  :: else -> v = cache[i]                           /* cache frame       */
  fi;
  if
  :: IS_L(i) -> assert(v == last[i])                /* P1                */
  :: else    -> assert(v == mine[i])                /* P1'               */
  fi
}

/* The rest of a write to byte i (after fault_fetch): fault_write on a
 * READ_ONLY frame makes the twin and maps the frame DIRTY.  Also records
 * the write in the ghost state.  The value: see NONDET_VALUES. */
inline do_write(i)
{
#ifdef NONDET_VALUES
  if
  :: v = 1
  :: v = VALS
  fi;
#else
  if
  :: IS_L(i) -> v = last[i] % VALS + 1
  :: else    -> v = mine[i] % VALS + 1
  fi;
#endif
  if
#ifdef SCAN
  :: HOME(i/PS) == n -> master[i] = v; owrit[n] = 1 /* home: direct,     */
#else                                               /* tracked by the    */
  :: HOME(i/PS) == n -> master[i] = v               /* kernel with SCAN  */
#endif
  :: else ->
     if
     :: st[i/PS] == READ_ONLY ->                    /* fault_write: twin */
        twin[i/PS*PS+0] = cache[i/PS*PS+0];
        twin[i/PS*PS+1] = cache[i/PS*PS+1];
        twin[i/PS*PS+2] = cache[i/PS*PS+2];
        st[i/PS] = DIRTY
     :: else
     fi;
     cache[i] = v
  fi;
  if :: IS_L(i) -> last[i] = v :: else -> mine[i] = v fi
}

/* One access to byte i: read (op 0) or write (op 1), after fault_fetch.
 * Clears the access's locals afterwards (fewer states). */
inline access(i)
{
  if
  :: op == 0 -> do_read(i)
  :: else    -> do_write(i)
  fi;
  i = 0; op = 0; v = 0
}

/* release_flush, first half: for every DIRTY page, diff it against its
 * twin, send the changed bytes to the page's home, drop the twin and map
 * the frame READ_ONLY (it stays valid for this node: its own writes plus
 * what it fetched).  Dropping the twin when sending rather than when the
 * ack comes is equivalent here: with one thread per node nothing touches
 * the frame in between, and acks carry no data. */
inline flush_send()
{
  pg = 0;
  do
  :: pg < NP ->
     if
     :: HOME(pg) != n && st[pg] == DIRTY ->
        m = 0;                  /* the diff: bytes where page != twin */
#if defined(BUG_FULL_PAGE_WRITEBACK)
        m = 7;
#elif defined(BUG_WORD_DIFF)
        if
        :: cache[pg*PS+0] != twin[pg*PS+0] || cache[pg*PS+1] != twin[pg*PS+1] -> m = 3
        :: else
        fi;
        if :: cache[pg*PS+2] != twin[pg*PS+2] -> m = m | 4 :: else fi;
#else
        if :: cache[pg*PS+0] != twin[pg*PS+0] -> m = m | 1 :: else fi;
        if :: cache[pg*PS+1] != twin[pg*PS+1] -> m = m | 2 :: else fi;
        if :: cache[pg*PS+2] != twin[pg*PS+2] -> m = m | 4 :: else fi;
#endif
        if
        :: m != 0 ->            /* an empty diff is not sent */
           homeq[HOME(pg)] ! n, pg, m, (m & 1 -> cache[pg*PS+0] : 0),
                 (m & 2 -> cache[pg*PS+1] : 0), (m & 4 -> cache[pg*PS+2] : 0);
           inflight++;
           pending++
        :: else
        fi;
#ifndef BUG_KEEP_TWIN
        twin[pg*PS+0] = 0; twin[pg*PS+1] = 0; twin[pg*PS+2] = 0;  /* drop */
        st[pg] = READ_ONLY;
#endif
        m = 0
     :: else
     fi;
     pg++
  :: else -> break
  od;
  pg = 0
}

/* release_flush, second half: wait until every home has applied the diffs
 * sent to it (one ack per diff). */
inline flush_wait()
{
#ifndef BUG_NO_ACK_WAIT
  do
  :: pending > 0 ->
#ifdef V2
     ack ? pg, d, e, x;         /* page, count before, after; ghost version */
     pending--;
     if                         /* note_applied */
#ifndef BUG_V2_TRUST_OWN_DIFF
     :: d == seen_n[HOME(pg)] ->
        assert(x == cver[pg] + 1);  /* seen_n == notices: cver was ver */
#else
     :: true ->
#endif
        seen_n[HOME(pg)] = e;
        cver[pg] = cver[pg] + 1
     :: else
     fi;
     e = 0;
#else
     ack ? pg, d, x;
     pending--;
#endif
     pg = 0; d = 0; x = 0
  :: else -> break
  od
#else
  pending = 0                   /* the homes do not ack in this variant */
#endif
}

/* acquire_invalidate's second half: every READ_ONLY cached page ->
 * INVALID, so the next access refetches.  Contents zeroed (fewer states). */
inline drop(pg)
{
  st[pg] = INVALID;
  cache[pg*PS+0] = 0; cache[pg*PS+1] = 0; cache[pg*PS+2] = 0;
  twin[pg*PS+0] = 0;  twin[pg*PS+1] = 0;  twin[pg*PS+2] = 0
}

#ifdef V2
/* A home's release (unlock, exit, stand-alone release): once some node
 * caches from it, it bumps its write epoch, since its own writes are not
 * tracked.  Its own step: it reads exported[] (see "Step granularity"). */
inline home_bump()
{
#ifndef BUG_V2_NO_HOME_BUMP
  if
  :: n < NP ->
     atomic {
       if
       :: exported[n] -> wepoch[n]++
       :: else
       fi
     }
  :: else
  fi
#else
  skip
#endif
}

/* drop_changed_pages, per home h = HOME(pg) this node has exported (the
 * homes read_summaries looks at); pg is the one page the node may cache
 * from h.  What the summary said (how): */
#define KEEP  0         /* nothing moved: keep                             */
#define DIFFS 1         /* only the notice count moved: read the notices   */
#define WALK  2         /* too far behind, or an entry overwritten: compare
                         * the version (walk_cached_pages, still_current)  */
#define WROTE 3         /* the write epoch moved: drop                     */
#define CACHED (st[pg] == READ_ONLY)   /* no DIRTY page after the flush    */

inline invalidate()
{
  pg = 0;
  do
  :: pg < NP ->
     if
     :: HOME(pg) != n && marked[HOME(pg)] ->
        atomic {                        /* the summary, one read           */
          w = wepoch[HOME(pg)];
          d = notices[HOME(pg)];
          if
          :: w != seen_w[HOME(pg)] -> how = WROTE
          :: w == seen_w[HOME(pg)] && d != seen_n[HOME(pg)] -> how = DIFFS
          :: else -> how = KEEP
          fi
        };
#ifdef SCAN
        if                              /* ask the home to notice its own */
        :: how == WROTE ->              /* writes, or drop the page       */
           if
           :: skip
           :: scanq[HOME(pg)] ! n;
              ack ? e, w, d, x;         /* the reply: the epoch it read   */
              how = DIFFS; e = 0; d = 0; x = 0
           fi
        :: else
        fi;
#endif
        if
        :: how == WROTE ->              /* read_all_notices: the counters */
           atomic { d = notices[HOME(pg)] };   /* again, whole, one by one */
           atomic {
             w = wepoch[HOME(pg)];
             if :: CACHED -> drop(pg) :: else fi
           }
        :: how == DIFFS ->
           atomic {                     /* the count again, whole: now    */
             d = notices[HOME(pg)];
             if
             :: d - seen_n[HOME(pg)] > CAP -> how = WALK   /* ring passed */
             :: else
             fi
           };
           k = seen_n[HOME(pg)];        /* read_notices: seen .. now-1    */
           do
           :: how == DIFFS && CACHED && k < d ->
              atomic {                  /* notice k                       */
                e = ring[HOME(pg)*CAP + k % CAP];
                if                      /* the slot holds another notice: */
                :: ringno[HOME(pg)*CAP + k % CAP] != k -> /* any page     */
                   if :: skip :: e = OTHER fi
                :: else
                fi;
                if :: e == pg -> hit = 1 :: else fi;
                k++; e = 0
              }
           :: else -> break
           od;
#ifndef BUG_V2_NO_RESERVE_CHECK
           if
           :: how == DIFFS && CACHED ->
              atomic {                  /* then the reserve count         */
                e = reserved[HOME(pg)];
                if                      /* (unsigned: below seen wraps)   */
                :: e < seen_n[HOME(pg)] || e - seen_n[HOME(pg)] > CAP ->
                   how = WALK           /* an entry may be overwritten    */
                :: else
                fi;
                e = 0
              }
           :: else
           fi;
#endif
           if
           :: how == WALK && CACHED ->
              atomic {                  /* the version, after the summary */
                x = ver[pg];
                if :: x != cver[pg] -> drop(pg) :: else fi
              }
           :: how == DIFFS && CACHED && hit -> drop(pg)   /* noticed        */
           :: else
           fi
        :: else                         /* KEEP                           */
        fi;
        atomic {
          seen_w[HOME(pg)] = w; seen_n[HOME(pg)] = d;
          w = 0; d = 0; x = 0; k = 0; how = KEEP; hit = 0
        }
     :: else                            /* never fetched from h           */
     fi;
     pg++
  :: else -> break
  od;
  pg = 0
}
#else
inline home_bump()
{
  skip
}

inline invalidate()
{
#ifndef BUG_NO_INVALIDATE
  pg = 0;
  do
  :: pg < NP ->
     if
     :: HOME(pg) != n && st[pg] == READ_ONLY -> drop(pg)
     :: else
     fi;
     pg++
  :: else -> break
  od;
  pg = 0
#else
  skip
#endif
}
#endif

/* acquire_invalidate: flush own dirty pages, then invalidate. */
inline acquire()
{
#if defined(BUG_ACQUIRE_DROPS_DIRTY)
  st[0] = (st[0] == DIRTY -> READ_ONLY : st[0]);    /* the dirty data is */
  st[1] = (st[1] == DIRTY -> READ_ONLY : st[1]);    /* never sent        */
  invalidate()
#elif defined(BUG_INVALIDATE_BEFORE_FLUSH)
  invalidate();
  flush_send();
  flush_wait()
#elif defined(V2)
  atomic { flush_send(); flush_wait() };
  invalidate()
#else
  flush_send();
  flush_wait();
  invalidate()
#endif
}

/* ------------------------------------------------------------- processes */

/* home_apply_diff: the diff handler of one home.  Writes only the bytes in
 * the mask into the master copy, then acks.  Default: one step, atomic
 * with respect to fetches and to the home's own accesses. */
#ifndef V2
proctype home_server(chan in; byte h)
{
  byte s, pg, m, v0, v1, v2;
  xr in;                /* only this process receives on its queue */
end_wait:
  do
  :: atomic {
       in ? s, pg, m, v0, v1, v2;
       if :: m & 1 -> master[pg*PS+0] = v0 :: else fi;
#ifdef HOME_APPLY_BYTEWISE
     };
     atomic {
#endif
       if :: m & 2 -> master[pg*PS+1] = v1 :: else fi;
#ifdef HOME_APPLY_BYTEWISE
     };
     atomic {
#endif
       if :: m & 4 -> master[pg*PS+2] = v2 :: else fi;
       inflight--;
#ifndef BUG_NO_ACK_WAIT
       ackq[s] ! pg, 0, 0;
#endif
       s = 0; pg = 0; m = 0; v0 = 0; v1 = 0; v2 = 0
     }
  od
}
#else
/* V2: home_apply.cpp's batch_applier (the home's diff handler, or the
 * releaser itself, on shm, or its posted_batch_applier in the delayed mode,
 * whose one-sided operations take effect in post order; under the home's
 * apply lock: either way this process's steps), one batch (one page pg) at
 * a time: the bytes, then
 * page_done (the version, the reserve count, the entry: one step each),
 * then finish (the count; publish_notices here) with the reply.
 * note_notice is page_done after its version bump (a diff to the other page of home 1,
 * NOTHER, has no modelled version); with BUG_V2_PUBLISH_FIRST it also
 * publishes the count, between the reserve count and the entry. */
inline note_notice(page)
{
  atomic { reserved[h] = written + 1 };
#ifdef BUG_V2_PUBLISH_FIRST
  atomic { b = notices[h]; notices[h] = written + 1 };   /* before the entry */
#endif
  atomic {
    ring[h*CAP + written % CAP] = page;
    ringno[h*CAP + written % CAP] = written;     /* ghost */
    written++
  }
}

inline publish_notices()
{
#ifndef BUG_V2_PUBLISH_FIRST
  b = notices[h];
  notices[h] = written
#else
  skip
#endif
}

proctype home_server(chan in; byte h)
{
  byte s, pg, m, v0, v1, v2, b;
  byte written;         /* notices written (written_), home-local          */
  byte nother;          /* diffs to the other page applied (NOTHER)        */
#ifdef SCAN
  byte ep;              /* a scan's reply: the write epoch it read         */
  bit  sw;              /* a scan found the page written                   */
#endif
  xr in;                /* only this process receives on its queue */
end_wait:
  do
  :: atomic {
       in ? s, pg, m, v0, v1, v2;
#ifdef BUG_V2_NOTICE_BEFORE_DATA
       ver[pg]++                        /* the version and the notice ... */
     };
     note_notice(pg);
     atomic { publish_notices() };
     atomic {                           /* ... before the bytes           */
#endif
       if :: m & 1 -> master[pg*PS+0] = v0 :: else fi;
#ifdef HOME_APPLY_BYTEWISE
     };
     atomic {
#endif
       if :: m & 2 -> master[pg*PS+1] = v1 :: else fi;
#ifdef HOME_APPLY_BYTEWISE
     };
     atomic {
#endif
       if :: m & 4 -> master[pg*PS+2] = v2 :: else fi
#ifndef BUG_V2_NOTICE_BEFORE_DATA
     };
     atomic { ver[pg]++ };              /* the version, after the bytes   */
     note_notice(pg);
     atomic {
       publish_notices();               /* the count, after the entries   */
#else
       ;
#endif
       inflight--;
       ackq[s] ! pg, b, written, ver[pg];   /* the reply (ver: ghost)     */
       s = 0; pg = 0; m = 0; v0 = 0; v1 = 0; v2 = 0; b = 0
     }
#ifdef SCAN
  :: atomic {                           /* notice_own_writes:             */
       scanq[h] ? s;
#ifndef BUG_SCAN_EPOCH_AFTER
       ep = wepoch[h]                   /* the epoch, before the scan     */
#else
       skip
#endif
     };
     atomic {                           /* the scan: the written bit,     */
       if                               /* tested and cleared             */
       :: owrit[h] -> owrit[h] = 0; sw = 1
       :: else
       fi
     };
     if
     :: sw ->                           /* as a diff's page_done          */
        atomic { ver[h]++ };
#ifndef BUG_SCAN_NO_NOTICE
        note_notice(h)
#else
        skip
#endif
     :: else
     fi;
#ifdef BUG_SCAN_EPOCH_AFTER
     atomic { ep = wepoch[h] };
#endif
     atomic {
       publish_notices();
       ackq[s] ! h, ep, written, 0;
       s = 0; ep = 0; sw = 0; b = 0
     }
#endif
#if NOTHER > 0
  :: h == 1 && nother < NOTHER && ndone < NN ->  /* a diff from a node   */
     nother++;                          /* outside the model, to another  */
     note_notice(OTHER);                /* page (see the header)          */
     atomic { publish_notices(); b = 0 }
#endif
  od
}
#endif

/* One node: its one application thread and its coherence runtime. */
proctype node(byte n)
{
  byte cache[NB];       /* cache frames (meaningless while INVALID)        */
  byte twin[NB];        /* twins (meaningful while DIRTY)                  */
  byte st[NP];          /* frame state: INVALID / READ_ONLY / DIRTY        */
  byte mine[NB];        /* ghost: last value this node wrote to its bytes  */
  byte ncs, nfs, nrel, nacq;  /* steps done                               */
  byte i, op, v;        /* current access: byte, read (0) or write (1),
                         * value read or written                           */
  byte pg, m, pending;  /* used by the flush                               */
  byte w, d, x;         /* a counter or version read, an ack's fields      */
#ifdef V2
  byte e, k, how;       /* acquire: an entry or the reserve count read, the
                         * next notice to read, what the summary said; an
                         * ack's count after                               */
  bit  hit;             /* acquire: an entry named the cached page         */
  byte cver[NP];        /* version of each cached page, as fetched          */
  byte seen_n[NP];      /* per home: the notice count last caught up with   */
  byte seen_w[NP];      /* per home: the write epoch last seen              */
  bit  marked[NP];      /* per home: exported[] set by this node            */
#endif
  chan ack = ackq[n];   /* this node's ack queue                           */
  xr ack;

  do
#ifdef V2
  :: ncs < MY_NCS && MAY_CS ->          /* a critical section, step by step */
     atomic { lock == 0 -> lock = 1 };
     acquire();
     atomic {
       if :: i = 0 :: i = 4 fi;
       if :: op = 0 :: op = 1 fi
     };
     fault_fetch(i);
     atomic { access(i); ncs++ };
     home_bump();                       /* the unlock's release */
     atomic { flush_send(); flush_wait(); lock = 0 }
#else
  :: ncs < MY_NCS && MAY_CS ->          /* a critical section:           */
     atomic {
       lock == 0 -> lock = 1;           /* mutex lock                    */
       acquire();                       /* ... is an acquire             */
       if                               /* one access to an L byte       */
       :: i = 0
       :: i = 4
       fi;
       if
       :: op = 0
       :: op = 1
       fi;
#ifdef FETCH_BYTEWISE
     };
     fault_fetch(i);
     atomic {
#else
       fault_fetch(i);
#endif
       access(i);
       ncs++;
       flush_send();                    /* mutex unlock is a release:    */
       flush_wait();                    /*   the diffs are applied ...   */
       lock = 0                         /*   ... then the lock is free   */
     }
#endif
  :: nfs < MY_NFS && MAY_FS ->          /* own byte, outside the lock    */
     atomic {
       if
       :: n == 0 -> i = 3
       :: n == 1 -> i = 1
       :: n == 2 -> i = 2
       :: n == 2 -> i = 5
       fi;
       op = 1;
#ifdef OWN_READS
       if
       :: op = 0
       :: skip
       fi;
#endif
#ifdef FETCH_SPLIT
     };
     fault_fetch(i);
     atomic {
#else
       fault_fetch(i);
#endif
       access(i);
       nfs++
     }
  :: nrel < NREL ->                     /* release-store, spawn, send    */
     home_bump();
     atomic { flush_send(); flush_wait(); nrel++ }
#if NACQ2 > 0
#ifdef V2
  :: n == 2 && nacq < NACQ2 ->          /* load-acquire, receive, join   */
     acquire();
     nacq++
#else
  :: n == 2 && nacq < NACQ2 ->
     atomic { acquire(); nacq++ }
#endif
#endif
  :: else -> break
  od;
  home_bump();                          /* thread exit: a release        */
  atomic {
    flush_send();                       /* thread exit: a release        */
    flush_wait();
    i = 0;                              /* publish the ghost, exit       */
    do
    :: i < NB -> if :: OWNS(n, i) -> last[i] = mine[i] :: else fi; i++
    :: else -> break
    od;
    i = 0;
    ndone++
  }
}

/* P2: once every node has exited and every diff is applied, the master
 * copies hold the last writes. */
proctype final_check()
{
  byte k;
  atomic {
    ndone == NN && inflight == 0;
    k = 0;
    do
    :: k < NB -> assert(master[k] == last[k]); k++
    :: else -> break
    od
  }
}

init
{
#ifdef V2
  byte k;
#endif
  atomic {
#ifdef V2
    do                                  /* no notice in any slot yet      */
    :: k < NP*CAP -> ringno[k] = NONE; k++
    :: else -> break
    od;
    k = 0;
#endif
#ifdef SCAN
    if                                  /* written since a scan before    */
    :: owrit[0] = 1 :: skip fi;         /* the run (or never scanned,     */
    if                                  /* which counts as written), or   */
    :: owrit[1] = 1 :: skip fi;         /* scanned since its last write   */
#endif
    run home_server(homeq[0], 0);
    run home_server(homeq[1], 1);
    run node(0);
    run node(1);
    run node(2);
    run final_check()
  }
}
