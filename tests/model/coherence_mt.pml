/*
 * coherence_mt.pml -- the coherence protocol with two threads on one node.
 *
 * coherence.pml checks the protocol with one thread per node, so a node's
 * own flushes, invalidations and fetches never race its own accesses.  In
 * dstd a node runs several fibers on several worker threads (DESIGN s.4:
 * "page state changes take a per-page lock, and a write that races a flush
 * faults and waits; no write is ever lost").  This model checks that rule.
 *
 * Same layout as coherence.pml: 3 nodes, 2 pages of 3 bytes, home of page
 * p = node p, bytes
 *     page 0 (home 0):  0 = L        1 = node 1's   2 = node 2's
 *     page 1 (home 1):  3 = node 0's 4 = L          5 = node 2's
 * Threads:
 *     tid 0: node 0      NCS01 critical sections (read or write an L byte;
 *     tid 1: node 1      with OWN01, each after a write of its own byte)
 *     tid 2: node 2, A   NCS2 critical sections
 *     tid 3: node 2, B   NFS2 reads or writes of node 2's own bytes
 *                        (outside the lock), each maybe followed by a
 *                        release (a channel send, say)
 * Threads A and B share node 2's cache frames.  B's accesses and releases
 * race A's acquires and releases on the same pages: that is legal C++
 * (different bytes), and exactly what the per-page lock must handle.
 *
 * A node's frames, per page: st (INVALID / READ_ONLY / DIRTY; a store
 * succeeds without a fault only on a DIRTY = writable frame), the cache
 * bytes, the twin, and pl, the page lock (0 = free, else the holder's
 * tid + 1).  Acks are counted per node (nfl[n]: diffs of node n not yet
 * applied) and per thread (tfl[t]).
 *
 * The protocol as this model requires it (the correct variant):
 *   fault (read on INVALID; write on INVALID or READ_ONLY): under the page
 *       lock, held for the whole fault including the fetch: fetch if
 *       INVALID; twin + DIRTY if writing; then the access
 *   release (flush): for each DIRTY page, under its page lock:
 *       write-protect, diff, send, drop twin, READ_ONLY; then wait until
 *       every diff the NODE has sent is applied -- not only this thread's:
 *       another thread may already have flushed (and so sent) a page this
 *       thread wrote, and then this thread finds nothing dirty
 *   acquire: lock ALL cached pages; flush the DIRTY ones; wait as above;
 *       invalidate them all; unlock
 * Variants that SPIN must reject:
 *   BUG_WAIT_OWN_ACKS_ONLY   a release (or acquire) waits only for the
 *       diffs its own thread sent: B's release sends the page holding A's
 *       critical-section write; A's unlock finds the page clean and frees
 *       the mutex before the home has applied B's diff -> the next owner
 *       of the mutex reads the old value
 *   BUG_TWO_PASS_ACQUIRE     acquire = a release-style flush, then a
 *       separate pass that invalidates the READ_ONLY pages: a page B
 *       dirties in between is skipped and keeps bytes fetched before the
 *       acquire -> A reads a stale L byte
 *   BUG_INVALIDATE_BEFORE_ACK acquire invalidates and unlocks the pages
 *       before the homes have applied its flush: B refetches a page before
 *       its own write (flushed by A) reached the home -> B reads its own
 *       byte stale
 *   BUG_FETCH_UNLOCKED       a fault drops the page lock while the fetch
 *       is in flight: A's acquire can run in between (nothing to
 *       invalidate yet), then B installs a copy fetched before A's acquire
 *   BUG_NO_WRITE_PROTECT     flush diffs and sends, and only later maps the
 *       page READ_ONLY and drops the twin: a store of B in between is in
 *       neither the diff nor the next twin -> lost
 * Properties: as in coherence.pml (P1 L reads under the lock, P1' own-byte
 * reads, P2 master == last writes at the end, no invalid end state).
 * Step granularity: same Lipton argument as in coherence.pml; the page
 * lock is a lock (acquire right mover, release left mover).
 */

#ifndef NCS01
#define NCS01 1         /* rounds of node 0 and node 1                    */
#endif
#ifndef NCS2
#define NCS2  2         /* critical sections of node 2's thread A         */
#endif
#ifndef NFS2
#define NFS2  2         /* own-byte accesses of node 2's thread B         */
#endif
#define VALS  2

#define NN 3
#define NT 4            /* threads                                        */
#define NP 2
#define PS 3
#define NB 6
#define HOME(p) (p)
#define IS_L(i) ((i) == 0 || (i) == 4)
#define OWNS(t, i) (((t) == 0 && (i) == 3) || ((t) == 1 && (i) == 1) || \
                    ((t) == 3 && ((i) == 2 || (i) == 5)))

#define INVALID   0
#define READ_ONLY 1
#define DIRTY     2

byte master[NB];
bit  lock;

typedef Frames {        /* one node's cache frames, shared by its threads  */
  byte c[NB];           /* contents                                        */
  byte tw[NB];          /* twins                                           */
  byte st[NP];          /* INVALID / READ_ONLY / DIRTY                     */
  byte pl[NP];          /* page locks: 0 free, else holder tid + 1         */
};
Frames fr[NN];

/* Diff: sender thread, page, mask, 3 values. */
chan homeq[NP] = [NT] of { byte, byte, byte, byte, byte, byte };

/* The acks, as counts of diffs sent and not yet applied: per node
 * (nfl[n]) and per thread (tfl[t]).  The home's ack decrements both. */
byte nfl[NN];
byte tfl[NT];
#define NODE_OF(t) ((t) < 2 -> (t) : 2)

byte last[NB];          /* ghost: last value written (as in coherence.pml) */
byte ndone;             /* threads that have exited                        */
byte inflight;          /* diffs not yet applied                           */

#define F fr[n]
#define ME (t + 1)

/* Fetch page pg into the frame (atomic snapshot). */
inline fetch(pg)
{
  F.c[pg*PS+0] = master[pg*PS+0];
  F.c[pg*PS+1] = master[pg*PS+1];
  F.c[pg*PS+2] = master[pg*PS+2];
  F.st[pg] = READ_ONLY
}

/* Diff page pg against its twin and send it (if not empty). */
inline diff_send(pg)
{
  m = 0;
  if :: F.c[pg*PS+0] != F.tw[pg*PS+0] -> m = m | 1 :: else fi;
  if :: F.c[pg*PS+1] != F.tw[pg*PS+1] -> m = m | 2 :: else fi;
  if :: F.c[pg*PS+2] != F.tw[pg*PS+2] -> m = m | 4 :: else fi;
  if
  :: m != 0 ->
     homeq[HOME(pg)] ! t, pg, m, (m & 1 -> F.c[pg*PS+0] : 0),
           (m & 2 -> F.c[pg*PS+1] : 0), (m & 4 -> F.c[pg*PS+2] : 0);
     inflight++;
     nfl[n]++;
     tfl[t]++
  :: else
  fi;
  m = 0
}

inline drop_twin(pg)
{
  F.tw[pg*PS+0] = 0; F.tw[pg*PS+1] = 0; F.tw[pg*PS+2] = 0;
  F.st[pg] = READ_ONLY
}

/* Wait until the homes have applied the diffs this release must wait
 * for.  Correct: every diff the NODE has in flight (another thread may
 * have flushed, and so sent, a page this thread wrote; waiting for all of
 * them is more than needed -- the diffs sent before this release would
 * do, e.g. with per-home sequence numbers -- but the same for
 * correctness).  Buggy (BUG_WAIT_OWN_ACKS_ONLY): only the diffs this
 * thread sent itself. */
inline wait_acks()
{
#ifdef BUG_WAIT_OWN_ACKS_ONLY
  tfl[t] == 0
#else
  nfl[n] == 0
#endif
}

/* release_flush, first half: for each DIRTY page, under its page lock,
 * write-protect, diff, send, drop the twin, READ_ONLY.  One step for all
 * pages: a local access between two pages' flushes would commute with the
 * flush of the other page.  Used inside an atomic block. */
inline flush_sends()
{
  (HOME(0) == n || F.pl[0] == 0) && (HOME(1) == n || F.pl[1] == 0);
  pg = 0;
  do
  :: pg < NP ->
     if
     :: HOME(pg) != n && F.st[pg] == DIRTY ->
        diff_send(pg);
#ifdef BUG_NO_WRITE_PROTECT
        unprot = unprot | (1 << pg)             /* still writable ...    */
#else
        drop_twin(pg)
#endif
     :: else
     fi;
     pg++
  :: else -> break
  od;
  pg = 0
}

/* BUG_NO_WRITE_PROTECT: the pages flushed by flush_sends are only now
 * write-protected, and their twins dropped. */
inline protect_late()
{
  if :: unprot & 1 -> drop_twin(0) :: else fi;
  if :: unprot & 2 -> drop_twin(1) :: else fi;
  unprot = 0
}

/* In BUG_NO_WRITE_PROTECT, a flush's sends and its write-protection are
 * two steps: other threads run in between. */
#ifdef BUG_NO_WRITE_PROTECT
#define LATE_PROTECT }; atomic { protect_late();
#else
#define LATE_PROTECT ;
#endif

/* A whole release (release-store, channel send, thread exit). */
inline release_flush()
{
  atomic { flush_sends() LATE_PROTECT wait_acks() }
}

inline invalidate_ro()
{
  pg = 0;
  do
  :: pg < NP ->
     if
     :: HOME(pg) != n && F.st[pg] == READ_ONLY ->
        F.st[pg] = INVALID;
        F.c[pg*PS+0] = 0; F.c[pg*PS+1] = 0; F.c[pg*PS+2] = 0
     :: else
     fi;
     pg++
  :: else -> break
  od;
  pg = 0
}

/* acquire_invalidate, inside the atomic block that took the mutex. */
inline acquire()
{
#if defined(BUG_TWO_PASS_ACQUIRE)
  flush_sends();                /* a release; the invalidation pass is a */
  wait_acks()                   /* separate step, see critical_section   */
#else
  /* lock every cached page, flush the dirty ones, wait, invalidate,
   * unlock (nobody else holds two page locks, so taking them together is
   * the same as taking them in page order) */
  (n == 0 || F.pl[0] == 0) && (n == 1 || F.pl[1] == 0);
  if :: n != 0 -> F.pl[0] = ME :: else fi;
  if :: n != 1 -> F.pl[1] = ME :: else fi;
  pg = 0;
  do
  :: pg < NP ->
     if
     :: HOME(pg) != n && F.st[pg] == DIRTY -> diff_send(pg); drop_twin(pg)
     :: else
     fi;
     pg++
  :: else -> break
  od;
  pg = 0;
#ifdef BUG_INVALIDATE_BEFORE_ACK
  invalidate_ro();
  if :: n != 0 -> F.pl[0] = 0 :: else fi;
  if :: n != 1 -> F.pl[1] = 0 :: else fi;
  wait_acks()
#else
  wait_acks();
  invalidate_ro();
  if :: n != 0 -> F.pl[0] = 0 :: else fi;
  if :: n != 1 -> F.pl[1] = 0 :: else fi
#endif
#endif
}

/* One access to byte i: op 0 read, 1 write.  A store succeeds without a
 * fault only on a DIRTY (= writable) frame, a load on a non-INVALID one;
 * otherwise the fault handler runs under the page lock (waits while
 * another thread holds it), then the access completes.  Doing fault and
 * access in one step hides nothing: a flush that came in between would
 * find nothing to send and make the store fault again. */
inline access(i)
{
  pg = i / PS;
#ifdef BUG_FETCH_UNLOCKED
  atomic {                                      /* fault on INVALID:     */
    if                                          /* the fetch is issued   */
    :: HOME(pg) != n && F.st[pg] == INVALID && F.pl[pg] == 0 ->
       b0 = master[pg*PS+0]; b1 = master[pg*PS+1]; b2 = master[pg*PS+2];
       inflt = 1
    :: else
    fi
  };
  atomic {                                      /* ... and its data      */
    if                                          /* installed later,      */
    :: inflt ->                                 /* without the page lock */
       F.c[pg*PS+0] = b0; F.c[pg*PS+1] = b1; F.c[pg*PS+2] = b2;
       F.st[pg] = READ_ONLY;
       b0 = 0; b1 = 0; b2 = 0; inflt = 0
    :: else
    fi
  };
#endif
  atomic {
    if
    :: HOME(pg) == n -> skip                    /* home: direct          */
    :: HOME(pg) != n && (op == 0 && F.st[pg] != INVALID ||
                         op == 1 && F.st[pg] == DIRTY) -> skip   /* no fault */
    :: HOME(pg) != n && (op == 0 && F.st[pg] == INVALID ||
                         op == 1 && F.st[pg] != DIRTY) && F.pl[pg] == 0 ->
       if                                       /* fault, page lock held */
       :: F.st[pg] == INVALID -> fetch(pg)      /* for the whole fault   */
       :: else
       fi;
       if
       :: op == 1 ->                            /* twin, writable        */
          F.tw[pg*PS+0] = F.c[pg*PS+0];
          F.tw[pg*PS+1] = F.c[pg*PS+1];
          F.tw[pg*PS+2] = F.c[pg*PS+2];
          F.st[pg] = DIRTY
       :: else
       fi
    fi;
    /* the load or store itself */
    if
    :: op == 0 ->
       v = (HOME(pg) == n -> master[i] : F.c[i]);
       if
       :: IS_L(i) -> assert(v == last[i])       /* P1                    */
       :: else    -> assert(v == mine[i])       /* P1'                   */
       fi
    :: else ->
       v = (IS_L(i) -> last[i] : mine[i]) % VALS + 1;
       if
       :: HOME(pg) == n -> master[i] = v
       :: else -> F.c[i] = v
       fi;
       if :: IS_L(i) -> last[i] = v :: else -> mine[i] = v fi
    fi;
    i = 0; op = 0; v = 0; pg = 0
  }
}

inline critical_section()
{
  atomic {
    lock == 0 -> lock = 1;      /* mutex lock: an acquire                 */
    acquire();
    if :: i = 0 :: i = 4 fi;
    if :: op = 0 :: op = 1 fi
  };
#ifdef BUG_TWO_PASS_ACQUIRE
  atomic { invalidate_ro() };
#endif
  access(i);
  atomic {
    flush_sends()               /* mutex unlock: a release                */
    LATE_PROTECT
    wait_acks();
    lock = 0
  }
}

proctype home_server(chan in)
{
  byte s, pg, m, v0, v1, v2;
  xr in;
end_wait:
  do
  :: atomic {
       in ? s, pg, m, v0, v1, v2;
       if :: m & 1 -> master[pg*PS+0] = v0 :: else fi;
       if :: m & 2 -> master[pg*PS+1] = v1 :: else fi;
       if :: m & 4 -> master[pg*PS+2] = v2 :: else fi;
       inflight--;
       nfl[NODE_OF(s)]--;       /* the ack */
       tfl[s]--;
       s = 0; pg = 0; m = 0; v0 = 0; v1 = 0; v2 = 0
     }
  od
}

/* Thread t of node n. */
proctype thread(byte n; byte t)
{
  byte mine[NB];        /* ghost: this thread's last writes to its bytes   */
  byte k, i, op, v, pg, m;
  byte b0, b1, b2;      /* a fetch in flight (BUG_FETCH_UNLOCKED)          */
  bit  inflt;           /* BUG_FETCH_UNLOCKED: a fetch in flight            */
  byte unprot;          /* BUG_NO_WRITE_PROTECT: pages not yet protected   */

  if
  :: t <= 1 ->                                  /* node 0 / node 1       */
     k = 0;
     do
     :: k < NCS01 ->
#ifdef OWN01
        i = (t == 0 -> 3 : 1); op = 1;
        access(i);
#endif
        critical_section();
        k++
     :: else -> break
     od
  :: t == 2 ->                                  /* node 2, thread A      */
     k = 0;
     do
     :: k < NCS2 -> critical_section(); k++
     :: else -> break
     od
  :: t == 3 ->                                  /* node 2, thread B      */
     k = 0;
     do
     :: k < NFS2 ->
        if :: i = 2 :: i = 5 fi;
        if :: op = 0 :: op = 1 fi;
        access(i);
        if                                      /* maybe a release       */
        :: release_flush()                      /* (a channel send, ...) */
        :: skip
        fi;
        k++
     :: else -> break
     od
  fi;
  release_flush();                              /* thread exit           */
  atomic {
    k = 0;
    do
    :: k < NB -> if :: OWNS(t, k) -> last[k] = mine[k] :: else fi; k++
    :: else -> break
    od;
    k = 0;
    ndone++
  }
}

proctype final_check()
{
  byte k;
  atomic {
    ndone == NT && inflight == 0;
    k = 0;
    do
    :: k < NB -> assert(master[k] == last[k]); k++
    :: else -> break
    od
  }
}

init
{
  atomic {
    run home_server(homeq[0]);
    run home_server(homeq[1]);
    run thread(0, 0);
    run thread(1, 1);
    run thread(2, 2);
    run thread(2, 3);
    run final_check()
  }
}
