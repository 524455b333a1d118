/*
 * coherence_mt.pml -- the coherence protocol of runtime/coherence/
 * coherence.cpp with two threads on one node, step by step as the code
 * runs them (docs/DESIGN.md s.4; tests/model/README.md says how to run it).
 *
 * coherence.pml checks the protocol with one thread per node.  Here node 2
 * runs two worker threads, A and B, that share its cache frames, its page
 * directory and its sync_mutex; their faults, releases and acquires
 * interleave at the granularity of the code, so that races between one
 * thread's fault and the other's acquire or release can be seen.  (The
 * model this file replaces locked every cached page at once in an
 * acquire, which the code never did, and so missed issue 10.)  With GROUP
 * and PREFETCH it also runs the fetches that lock several pages at once:
 * a fault's fetch of a tbox group, and prefetch after an acquire; with
 * WRITE_AHEAD, a write fault that makes the next page writable too.
 *
 * Layout (as coherence.pml): 3 nodes, 2 pages of 3 bytes, home of page p =
 * node p; a home reads and writes its page in place (master[]):
 *     page 0 (home 0):  0 = L        1 = (unused)   2 = B's
 *     page 1 (home 1):  3 = (unused) 4 = L          5 = B's
 * L bytes are only accessed under the mutex (or, with MP, published by an
 * atomic flag); bytes 2 and 5 belong to thread B, which accesses them
 * outside any lock while A and the other nodes access the L byte of the
 * same page (false sharing; legal C++).  Threads:
 *     tid 0: node 0      NCS0 critical sections: lock; read or write an L
 *     tid 1: node 1      NCS1 critical sections     byte; unlock
 *     tid 2: node 2, A   NCS2 critical sections
 *     tid 3: node 2, B   NFS2 reads or writes of byte 2 or 5, each maybe
 *                        followed by a release (B_ACQUIRES: or an acquire)
 * and every thread ends with a release (thread exit).  A write stores a
 * value that differs from the byte's current one (1 or 2).
 * With MP (message passing through an atomic, instead of the mutex):
 * node 1 writes byte 0, then flag[1].store(release) (release(), then the
 * store at the flag's home); with MP=2 node 0 likewise writes byte 4 and
 * stores flag[0].  A runs flag[1].load(acquire) (the load at the home,
 * then acquire()) and, if it saw 1, reads byte 0; with MP=2 then the same
 * with flag[0] and byte 4.  B as above.
 *
 * State per node (typedef Node), as in page_directory.hpp / coherence.cpp:
 *     c[]     the cache frames (the alias view)
 *     tw[]    the twins
 *     st[p]   the directory's page_state: INVALID / READ_ONLY / DIRTY
 *     pr[p]   the application view's protection (PROT_NONE / READ / RW):
 *             the MMU lets a load through unless NONE, a store only on RW
 *     pl[p]   the page's lock bit (0 free, else holder tid + 1)
 *     cached, dirty   directory.cached / directory.dirty as sets (bit p):
 *             the code guarantees a page is on a list at most once (P4)
 *     smx     sync_mutex (holder tid + 1)
 *     gw, gm  sync_generation as nothing_to_sync sees it (below)
 *     fl[p]   KEEP_WRITABLE: page_directory::flushed_ (0 .. KEEP_UNWRITTEN + 1)
 * Diffs travel in apply_diffs messages (homeq[home], FIFO) to the home's
 * handler (proctype home_server), which applies the masked bytes and acks;
 * tfl[t] counts the diffs thread t sent and the home has not yet applied.
 *
 * Steps of the code, in order (a step = one atomic block here):
 *   access (inline access): a load or store runs when pr[] lets it; else
 *     the fault handler, handle_fault():
 *       F1 directory.lock(index) (waits until free); INVALID ->
 *          directory.cached.push(index)         (issue 10's fix, with the
 *          seq_cst fence; BUG_PUSH_CACHED_AFTER_FETCH: see F3)
 *       F2 fetch(index, a)                      (one step, or one per byte
 *          with FETCH_BYTEWISE)
 *       F3 protect(a, PROT_READ), st = read_only; on a read, unlock
 *          (BUG_PUSH_CACHED_AFTER_FETCH: the push is here, the code before
 *          the fix)
 *       F4 on a write (after F3, or in F1 when the page is read_only):
 *          twin (take + memcpy + set_twin), directory.dirty.push(index)
 *          (issue 10's second fix, with the fence), protect(a, PROT_READ |
 *          PROT_WRITE), unlock(dirty).  BUG_PUSH_DIRTY_AFTER_PROTECT, the
 *          code before the fix: push after the protect, F4 two steps.
 *     then the instruction is retried (next loop iteration).
 *   GROUP, a fault of node 2 on an INVALID page (fetch_for_fault of a page
 *     in a tbox group: here the 2 pages are one group.  In the code a
 *     group's pages share one home; here they keep homes 0 and 1, and
 *     node 2 homes neither.  The homes do not matter to the locking and
 *     listing, only to how many reads fetch_pages posts, and those reads
 *     run in any order anyway):
 *       G1 F1's lock, then lock_invalid_pages: try_lock_in(other page,
 *          invalid), a CAS that takes the lock only if the page is unlocked
 *          AND invalid (lk = the pages locked)
 *       G2 list_and_fetch: directory.cached.push of each page of lk in
 *          index order, one step each; the fence; fetch_pages' reads, all
 *          in flight at once: one step per page (or per byte with
 *          FETCH_BYTEWISE), in any order
 *       G3 fetch_pages' protect_runs(PROT_READ); unlock(read_only) of the
 *          neighbour; on a read the faulting page's unlock too
 *       then F4 on a write, as above.
 *   PREFETCH, coherence::prefetch(both pages), which a worker of node 2
 *     may call right after an acquire (A after locking the mutex or
 *     loading a flag, B with B_ACQUIRES after its acquires; in the code:
 *     after a channel receive): P1 try_lock_in(page 0, invalid), P2 the
 *     same for page 1 (lock_invalid_pages, one CAS per step); none ->
 *     return; else G2 (list_and_fetch), and G3 unlocking every page.
 *   WRITE_AHEAD, a write fault of node 2 that continues a write stream
 *     (handle_fault's write branch with take_writable_ahead; whether the
 *     stream table says so is a free choice here: it is racy in the code):
 *       W1 F4's twin and dirty.push of the faulting page p (in the fault
 *          step, or in the step after F3), p stays locked and read-only
 *       W2 try_lock_in(1-p, read_only) (one CAS); taken -> W5
 *       W3 try_lock_in(1-p, invalid) (one CAS); not taken (locked, dirty,
 *          or read-only by now) -> protect_runs(p, READ|WRITE), unlock(p,
 *          dirty) in the same step, done
 *       W4 list_and_fetch(1-p) (G2's steps), then fetch_pages'
 *          protect(PROT_READ): 1-p read_only, still locked
 *       W5 twin_and_list_dirty(1-p), the fence, protect_runs(p and 1-p,
 *          READ|WRITE), unlock(1-p, dirty), unlock(p, dirty).
 *     "The page after p" is 1-p in either direction (the model has no
 *     address order; both are covered).  Nodes 0 and 1 do no write-ahead
 *     (their other page is homed there: take_writable_ahead stops).
 *   release(): nothing_to_sync(false): R0 load sync_generation (odd:
 *     go on below); R1 load dirty.empty(); if true, R2 load the generation
 *     again; if it did not move, return.  Otherwise synchronized(): R3
 *     lock sync_mutex, bump the generation (odd); flush_dirty_pages(); R4
 *     send_and_wait()'s wait for the acks, bump the generation (even),
 *     unlock sync_mutex.  The generation is modelled as what the fast
 *     path sees of it: odd <=> smx held (the bumps are in the steps that
 *     take and free it: lock R, bump N; bump N, unlock L), and each bump
 *     marks every thread between its two loads (gw) as having seen it
 *     move (gm): no count, so no wrap-around either.
 *   flush_dirty_pages(): D1 dirty.take_all(); empty -> done.  Per page
 *     taken, in index order (take_and_lock sorts): D2 lock it; if DIRTY:
 *     protect_runs(PROT_READ), diff against the twin (batcher.add), drop
 *     the twin, unlock(read_only); else unlock.  Then D1 again.
 *     KEEP_WRITABLE (pages written in every interval stay writable): a
 *     DIRTY page some flush write-protected before (fl != 0) is diffed
 *     while writable, K1 (with D2's lock) K2 K3 one byte load per step
 *     (the other worker may store between them); K3 also sends the bytes
 *     loaded, sets the twin's bytes to them (twin_update) and asks
 *     keep_writable: written (a byte sent), or fl == 1 (not yet kept
 *     through an empty flush) -> kept: fl = 1 if written, else 2; stays
 *     locked, writable and off dirty; else fl = 1 and K4 flushes it
 *     write-protected as D2 does.  A D2 flush sets fl = 1.  After the
 *     last D1: K5 per kept page, push it on dirty and unlock it (dirty).
 *   acquire(): nothing_to_sync(true): A0 sync_generation, A1
 *     dirty.empty(), A2 cached.empty(), A3 the generation again (each
 *     only if the previous passed); else synchronized(): lock, bump,
 *     flush_dirty_pages(), A4 the wait for its acks,
 *     invalidate_cached_pages(), A5 bump, unlock.
 *   invalidate_cached_pages(): I1 cached.take_all(); empty -> go on to
 *     the refreshes.  Per page taken: I2 lock it (waits, e.g. for a fault
 *     whose fetch is in flight); READ_ONLY -> protect_runs(PROT_NONE),
 *     unlock(invalid); DIRTY -> stays locked (still_cached); else unlock.
 *     Then I1 again.  Per page in still_cached, refresh_dirty_pages(),
 *     the page writable throughout: I3 read the home's page (one step,
 *     or one per byte with FETCH_BYTEWISE); I4 per byte, load the frame's
 *     byte and compare (one step), store the home's value if the home
 *     changed it (home != twin) and this node did not (frame == twin)
 *     (another step: the other worker may store in between); the home's
 *     page becomes the twin; I5 cached.push, unlock(dirty).
 *     (The code does each of these for all its pages at once: all read,
 *     then merged, then each listed and unlocked; all stay locked
 *     throughout, so only the frame's bytes are seen by other threads,
 *     and doing it page by page is the same interleavings.)
 *   The mutex: lock = the lock word taken at its home, then acquire();
 *   unlock = release(), then the word freed.  The atomic flag (MP): store
 *   = release(), then the store at its home; load = the load at its home,
 *   then acquire().
 * Not modelled: the chunking of take_all (4096 pages), the static
 * region's per-node bytes and its single-page fetch (fetch_static_page;
 * lock_invalid_pages skips that region), prefetch's range arithmetic
 * (widening to whole groups, max_prefetch_bytes), the twin pool,
 * counters, weak memory orders
 * (the model is sequentially consistent: the code's seq_cst fences after
 * the list pushes and at the start of nothing_to_sync, and its seq_cst
 * sync_generation accesses, are what make that valid), the chaos delays
 * (DSTD_CHAOS: the model has every interleaving), faults on the service
 * thread, full rings.
 *
 * Step granularity (Lipton reduction, as in coherence.pml).  A step may
 * be atomic here if it has the shape  R* [N] L*  where R are right movers
 * (acquiring a lock: a page lock, sync_mutex, the mutex's word; receiving
 * acks), L left movers (releasing those locks; sending a diff to a home's
 * queue) and N at most one other access to shared state (a read of
 * master[], a home's write, a list push or take_all, a load of a list's
 * emptiness or of sync_generation, a bump of sync_generation, the
 * flag's load or store, or an application load or store).  Protection
 * changes count as follows: they only enable or disable other threads'
 * loads and stores of that page, and every protection change is made by
 * a thread holding the page's lock, so no other thread can change it back.
 * Removing rights (protect_runs(PROT_NONE/READ)) is
 * a right mover: an access that ran after it was also enabled before it.
 * Adding rights (F3, F4's PROT_READ|WRITE) is a left mover: whatever
 * ran before it was enabled after it too.  So, e.g., F4 = [lock (R)]
 * twin, push (N), protect (L), unlock (L); D2 = lock (R), protect (R),
 * diff, send (L), unlock (L); I3 = read master (N); I4 = per byte a load
 * of the frame (N), then a store to it (N): two steps.  An
 * access enabled by an added right can start right after it (and the
 * thread go on to a release): so no step adds a right and then does an
 * N -- F3 and F4 are separate steps.
 *   Further simplifications, each with a reason:
 *   - D2 / I2 lock one page per step where the code locks all pages
 *     taken, then protects them, then diffs / unlocks them one by one:
 *     since no other thread waits for a page lock while it holds one
 *     (only the sync_mutex holder does; a fault's further locks and a
 *     prefetch's are try-locks), the code's order is one atomic step by
 *     Lipton; one step per page allows more interleavings, not fewer.
 *     A try_lock_in that fails on a page the sync_mutex holder has locked
 *     would have failed on its state too: the lists hold only read_only
 *     and dirty pages (a page is invalid on a list only while the fault
 *     that listed it holds it), so the model's unlocking of each page
 *     before the next is locked loses no failed try-lock.
 *   - G1 takes the try-lock in the fault's step (R, then the CAS as the
 *     step's N); G3's protect and unlocks only add rights and unlock.
 *   - WRITE_AHEAD: W1 = [lock (R)] twin, push (N) -- the twin reads a
 *     frame no one can write (read-only, locked); each try_lock_in CAS is
 *     an N of its own step (W2, W3), as G1's; W3's failure branch adds
 *     the protect and the unlock (L L); W4 is G2 plus the protect (the
 *     read's step N, protect L: make_readable is its own step, which only
 *     adds interleavings); W5 = twin, push (N), then protect, unlocks (L).
 *     W4's protect adds a right and W5 starts with an N: separate steps.
 *   - A diff is sent at D2 rather than at send_and_wait: sending earlier
 *     only lets the home apply it earlier, which it may also not do.
 *   - Contents of INVALID frames are zeroed (fewer states; nobody reads
 *     them before a fetch overwrites them).
 *   - Nodes 0 and 1 run one thread each, so their frames and lists are
 *     local state: their accesses, acquires and releases run in atomic
 *     blocks, broken only where they wait for acks (coherence.pml checks
 *     that case step by step, including byte-wise fetches).
 *   - The fault lock is taken in the step that finds the access not
 *     allowed (an access that faults and then finds nothing to do under
 *     the lock is the same as one that waited for the lock, then ran).
 *
 * Properties
 *   P1  a read of an L byte returns the last value written to it (under
 *       the mutex, or, with MP, the writer's value once the flag is seen)
 *   P1' B reading its own byte sees its own last write
 *   P2  when every thread has exited and every diff is applied, every
 *       master byte holds the last value written to it (final_check)
 *   P3  no deadlock (pan's invalid end states; home servers may wait)
 *   P4  a page is pushed on a list only when it is not on it (the lists
 *       are sized for one entry per page; a duplicate would also make
 *       take_and_lock lock a page twice)
 *   P5  a thread faults only on an unlocked page whose protection matches
 *       its state (the else branch of the fault step)
 *
 * Options
 *   NCS0, NCS1, NCS2, NFS2   program sizes (above); B_ACQUIRES; MP=1|2
 *   FETCH_BYTEWISE           fetches and refreshes read the home one byte
 *                            per step (a one-sided read is not atomic)
 *   GROUP                    node 2's faults fetch the group (G1-G3)
 *   PREFETCH                 node 2's workers may prefetch after acquires
 *   WRITE_AHEAD              node 2's write faults may take the other page
 *                            writable too (W1-W5; with or without GROUP)
 *   V2                       the v2 acquire, versions and notices (below;
 *                            not with GROUP, PREFETCH, WRITE_AHEAD)
 *   NOTHER=n (V2)            home NOTHER_HOME (default 1) applies n batches
 *                            to a page no modelled node caches (count and
 *                            ring only)
 *   CAP=n (V2)               notice ring slots per home (default 1)
 *   NO_P6, NO_P7 (V2)        leave out the monitor's invariants (to see
 *                            what the data assertions alone catch)
 *   KEEP_WRITABLE            flushes keep pages flushed before writable
 *                            (K1-K5; not with BUG_NO_WRITE_PROTECT)
 *   KEEP_UNWRITTEN=n         (KEEP_WRITABLE) empty flushes in a row a page
 *                            is kept through (default 4, as
 *                            page_directory::unwritten_flushes_kept)
 * Broken protocols (SPIN must find an error)
 *   BUG_PUSH_CACHED_AFTER_FETCH   issue 10: F1 does not push, F3 does.
 *       B's fetch is in flight; an acquire on A finds the lists empty (or
 *       takes the cached list without the page), returns or drops other
 *       pages; then B installs bytes older than the release that A's
 *       acquire synchronized with, and A reads them (P1).  (F3 is then
 *       protect, push, unlock in one step, coarser than the code: fewer
 *       interleavings, and SPIN finds the error anyway.)
 *   BUG_PUSH_DIRTY_AFTER_PROTECT  issue 10's second race: F4 maps the
 *       page read-write, then pushes it on dirty (the code before the
 *       fix): A stores into the writable page in between, its release
 *       finds the dirty list empty and returns, and the next owner of the
 *       mutex reads the old value at the home (P1).
 *   BUG_WAIT_OWN_ACKS_ONLY   release's fast path ignores sync_generation
 *       (the runtime's first version; the check was sync_in_progress
 *       then): B's release takes the dirty page holding A's write; A's
 *       release finds the list empty, returns and unlocks before B's diff
 *       is applied (P1).
 *   BUG_ACQUIRE_IGNORES_GENERATION  acquire's fast path ignores sync_generation
 *       (named after sync_in_progress, which it replaced; run with
 *       B_ACQUIRES): B's acquire has taken the cached list but not yet
 *       invalidated; A's acquire finds both lists empty and reads a stale
 *       page (P1).
 *   BUG_INVALIDATE_SKIPS_DIRTY    the invalidation leaves a page found
 *       DIRTY as it is (I3, I4 skipped; back on cached): bytes fetched
 *       before the acquire stay, A reads one (P1).
 *   BUG_REFRESH_ANY_UNCHANGED_BYTE  the refresh's merge stores the home's
 *       value into every byte this node did not change (frame == twin),
 *       not only those the home changed, while the page stays writable: B
 *       stores its byte between the merge's load and store of it, and the
 *       store puts the old value back (a lost write: P2).
 *   BUG_INVALIDATE_BEFORE_ACK     acquire invalidates before its flush's
 *       diffs are applied: B refetches its page without its own write
 *       (P1').
 *   BUG_FETCH_UNLOCKED       the fault unlocks the page during the fetch
 *       (into a buffer), relocks to install it: A's acquire takes the page,
 *       finds it INVALID and moves on; B then installs bytes fetched before
 *       (P1).  (P4 is not checked in this variant: two faults of one page
 *       both push it.)
 *   BUG_NO_WRITE_PROTECT     D2 diffs while the page is still writable and
 *       write-protects it (dropping the twin) in a later step: B's store in
 *       between is in neither this diff nor the next twin (a lost write:
 *       P1, P1' or P2).
 *   BUG_TRY_LOCK_ANY_STATE   (with GROUP; PREFETCH's try-locks too)
 *       try_lock_in takes any unlocked page: a group fault locks a
 *       read-only neighbour that is already listed and pushes it again
 *       (P4), or fetches the home's copy over a dirty neighbour, losing
 *       the node's writes (P1', P2).
 *   BUG_LIST_AFTER_FETCH     (with GROUP or PREFETCH) list_and_fetch
 *       pushes the pages after fetch_pages (in G3, with the protect, a
 *       step coarser than such code): issue 10 on these paths (P1).
 *   BUG_WRITE_AHEAD_TWIN_AFTER_PROTECT  (with WRITE_AHEAD) W5 lists the
 *       page ahead dirty and maps both pages read-write, and twins the
 *       page ahead in a later step: a store by the other thread in
 *       between is copied into the twin, so no diff carries it: the
 *       next owner of the mutex reads the old value at the home (P1), or
 *       the write never reaches the home (P2).
 *   BUG_KEEP_WRITABLE_NO_GENERATION  (with KEEP_WRITABLE) nothing_to_sync
 *       loads dirty.empty() and then only checks that no flush is under
 *       way (sync_in_progress, the prototype's code): B's exit flush has
 *       taken page 0 (kept: off dirty, writable) and loaded byte 0; A
 *       stores byte 0 and releases: dirty looks empty; B's flush relists
 *       the page and ends; A sees no flush, returns and unlocks; node 0
 *       reads the old byte 0 at the home (P1).
 *   BUG_KEEP_WRITABLE_TWIN_NOT_ADVANCED  (with KEEP_WRITABLE) a kept
 *       page's twin keeps its old bytes: the next diff sends a byte again
 *       with this node's old value, over another node's later write (P2).
 *   BUG_KEEP_WRITABLE_TWIN_FROM_PAGE  (with KEEP_WRITABLE) a kept page's
 *       twin is copied from the frame after the diff: a store between the
 *       diff's load and the copy is in the twin, so in no diff (P1).
 * Not an error (no test; run it by hand):
 *   BUG_WRITE_AHEAD_PROTECT_BEFORE_PUSH  (with WRITE_AHEAD) W5 twins and
 *       maps both pages read-write, and pushes the page ahead on dirty in
 *       a later step (with the unlocks).  SPIN finds no error (3.7 M
 *       states with NFS2=1), although the window is reachable (the other
 *       thread stores into the page ahead while it is writable and not
 *       listed: checked once with an assertion): the faulting page p is
 *       on dirty since W1 and stays locked until after the push, so a
 *       release that follows such a store finds dirty non-empty (or
 *       sync_generation odd, if a flush took p), goes to sync_mutex,
 *       and the flush that takes p waits for p's lock and then takes the
 *       list again, with the page ahead on it.  What the code relies on is
 *       p's push before the protect and p's unlock after the pushes of
 *       the pages ahead; the pages ahead could even be listed after the
 *       protect.  (Issue 10's second race needs the faulting page itself
 *       unlisted, BUG_PUSH_DIRTY_AFTER_PROTECT.)
 *
 * V2: the acquire that keeps what did not change (-DV2)
 * ------------------------------------------------------
 * docs/DESIGN.md s.4 "Versions and notices"; coherence.pml -DV2 checks the
 * same protocol with one thread per node, coarsely.  Here node 2's acquire
 * is drop_changed_pages step by step, with B's faults, writes and
 * releases interleaved.  State (coherence.pml -DV2's encoding): per home h
 * (= page h) ver[h], notices[h], reserved[h], wepoch[h], exported[h], a
 * ring of CAP slots with ghost notice numbers (ringno; a slot holding
 * another notice reads as its page or OTHER, a page of that home no
 * modelled node caches); per node cv[p] (directory.version), sn[h] and
 * sw[h] (homes[h].seen), mk (homes[h].exported), ls (the listed flags of
 * page_directory::list_cached).  Steps, with the code they follow:
 *   fault (F2) = fetch_pages: read_versions: export_from(home) -- if the
 *     node's flag is clear, the one-sided write of exported[h], then the
 *     flag (two steps) --, the version read into cv (one step), then the
 *     bytes (F2 as before).  F1's push is list_cached (no push while the
 *     listed flag is set: a page dropped by notices stays on the list).
 *   release: a home's release (nodes 0, 1) bumps its write epoch if
 *     exported (note_release; their releases are atomic: node 2 homes
 *     nothing).  send_and_wait's note_applied, in the step of the wait for
 *     the acks: per home a batch went to, if the reply's count before is
 *     sn[h], sn[h] = the count after and cv[page]++ (asserting the page's
 *     version after the batch is cv + 1); else nothing.
 *   home_server = batch_applier, one batch at a time per home: the bytes;
 *     the version; the reserve count; the ring entry; the count published
 *     with the reply (five steps).  NOTHER: batches to an unmodelled page
 *     (reserve, entry, count).
 *   acquire: the flush and its wait as before, then drop_changed_pages in
 *     steps V1-V7 (see the inline): the summaries (nothing moved: return,
 *     no list taken, no page locked); the counts whole and the notices and
 *     reserve count; the walk (take_all of cached, lock each page, drop /
 *     keep-and-relist-before-unlock / refresh by home, still_current's
 *     version reads then verdicts) when a home is DIFFS or WROTE; the
 *     noticed pages locked and judged (they stay listed); the drops; the
 *     refreshes (version, bytes, merge, list_cached, unlock); seen.
 * With GROUP, PREFETCH or WRITE_AHEAD, list_and_fetch reads the versions
 * of every page it locked before any byte (read_versions_of_lk), as
 * read_into_frames does for all of them.
 * Not modelled in V2: one page per home (a fetch of another page of a
 * home while a batch to it is applied), the summaries' and notices' reads
 * of several homes in flight at once (one home after the other here).
 * Properties added: P6 (the list invariant of DESIGN s.4.1: a read-only
 * or dirty page of node 2 that is unlocked is on cached, or taken from it
 * by an acquire that has not locked it yet) and P7 (the own-diff
 * invariant: while home h is between batches and notices[h] == sn[h] of a
 * node, a page that node caches from h has cv == ver), checked by a
 * monitor process at every state; and note_applied's assertion.
 * Broken variants (SPIN must find an error; README.md gives the runs):
 *   BUG_V2_NOTICED_NO_WAIT   judge_noticed_pages looks at the page's state
 *       before waiting for its lock and skips an invalid page: B's fetch
 *       of page 1 is in flight (version and bytes read before node 0's
 *       diff); A's acquire reads the notice naming page 1, skips it; B
 *       installs the old bytes, A's seen catches up (P7), A reads byte 4
 *       (P1).
 *   BUG_V2_NOTICED_UNLISTED  a page dropped by notices is also taken off
 *       cached while its listed flag stays set: B's next fault does not
 *       list it, so it is cached and on no list (P6); a later walk would
 *       keep it whatever its home did.
 *   BUG_V2_KEEP_WITHOUT_RELIST  (with B_ACQUIRES) the walk unlocks a page
 *       it keeps and relists it after the walk (still under sync_mutex):
 *       caught by P6 only; the data assertions see nothing, since every
 *       thread that could depend on the list waits for sync_mutex or sees
 *       the generation odd or moved (README.md).
 *   BUG_V2_REFRESH_NO_LIST   a page the walk took and refreshed is unlocked
 *       without list_cached: dirty and on no list (P6).
 *   REFETCH_READ_ONLY (not a bug: recent_pages.hpp) a changed read-only
 *       page may be read again instead of dropped (V6b: version, bytes into
 *       the frame that stays readable, list_cached, unlock);
 *       BUG_REFETCH_NO_LIST unlocks it without list_cached (P6).
 *   BUG_V2_TRUST_OWN_DIFF    note_applied moves seen on and bumps cv on
 *       every reply, even when another node's diff came between (the
 *       reply's assertion is then not checked): P7.
 *   BUG_V2_VERSION_AFTER_DATA  (with NOTHER) a fault reads the version
 *       after the bytes: a diff between makes old bytes look current to
 *       still_current when the ring passed (P1).
 *   BUG_V2_MULTI_VERSION_AFTER_DATA  (with GROUP, or PREFETCH and
 *       B_ACQUIRES) list_and_fetch reads the versions after the bytes:
 *       the same, through a group fault or B's prefetch (P1).
 *   BUG_V2_EXPORT_AFTER_FETCH  the exported word is written after the
 *       fetch: the home's release in between does not bump its write
 *       epoch, and the acquire keeps the old bytes (P1).
 *   BUG_V2_NO_HOME_BUMP      a home's release does not bump its write
 *       epoch (P1).
 */

#if defined(GROUP) && \
    (defined(BUG_PUSH_CACHED_AFTER_FETCH) || defined(BUG_FETCH_UNLOCKED))
#error "GROUP replaces the single-page fault these BUG_ variants change"
#endif
#if defined(WRITE_AHEAD) && defined(BUG_PUSH_DIRTY_AFTER_PROTECT)
#error "WRITE_AHEAD is the fixed write fault; BUG_PUSH_DIRTY_AFTER_PROTECT the old one"
#endif
#if !defined(WRITE_AHEAD) && \
    (defined(BUG_WRITE_AHEAD_PROTECT_BEFORE_PUSH) || defined(BUG_WRITE_AHEAD_TWIN_AFTER_PROTECT))
#error "the BUG_WRITE_AHEAD_ variants need WRITE_AHEAD"
#endif

#if defined(KEEP_WRITABLE) && defined(BUG_NO_WRITE_PROTECT)
#error "KEEP_WRITABLE replaces the flush BUG_NO_WRITE_PROTECT changes"
#endif
#if !defined(KEEP_WRITABLE) && (defined(BUG_KEEP_WRITABLE_NO_GENERATION) || \
    defined(BUG_KEEP_WRITABLE_TWIN_NOT_ADVANCED) || defined(BUG_KEEP_WRITABLE_TWIN_FROM_PAGE))
#error "the BUG_KEEP_WRITABLE_ variants need KEEP_WRITABLE"
#endif

#if defined(V2) && (defined(BUG_PUSH_CACHED_AFTER_FETCH) || defined(BUG_FETCH_UNLOCKED) || \
    defined(BUG_INVALIDATE_SKIPS_DIRTY) || defined(BUG_INVALIDATE_BEFORE_ACK))
#error "these BUG_ variants change the v1 fault or acquire"
#endif
#if defined(BUG_V2_MULTI_VERSION_AFTER_DATA) && \
    !(defined(V2) && (defined(GROUP) || defined(PREFETCH) || defined(WRITE_AHEAD)))
#error "BUG_V2_MULTI_VERSION_AFTER_DATA changes V2's multi-page fetches"
#endif
#if !defined(V2) && (defined(BUG_V2_NOTICED_NO_WAIT) || defined(BUG_V2_NOTICED_UNLISTED) || \
    defined(BUG_V2_KEEP_WITHOUT_RELIST) || defined(BUG_V2_TRUST_OWN_DIFF) || \
    defined(BUG_V2_VERSION_AFTER_DATA) || defined(BUG_V2_EXPORT_AFTER_FETCH) || \
    defined(BUG_V2_NO_HOME_BUMP) || defined(BUG_V2_REFRESH_NO_LIST))
#error "the BUG_V2_ variants need V2"
#endif

/* ---------------------------------------------------------------- bounds */
#ifndef KEEP_UNWRITTEN
#define KEEP_UNWRITTEN 4
#endif
#ifndef NCS0
#define NCS0  1         /* critical sections of node 0                    */
#endif
#ifndef NCS1
#define NCS1  0         /* critical sections of node 1                    */
#endif
#ifndef NCS2
#define NCS2  1         /* critical sections of node 2's thread A         */
#endif
#ifndef NFS2
#define NFS2  2         /* own-byte accesses of node 2's thread B         */
#endif
#define VALS  2

#define NN 3            /* nodes                                           */
#define NT 4            /* threads                                         */
#define NP 2            /* pages; the home of page p is node p             */
#define PS 3            /* bytes per page                                  */
#define NB 6
#define HOME(p) (p)
#define IS_L(i) ((i) == 0 || (i) == 4)
#define OWNS(t, i) ((t) == 3 && ((i) == 2 || (i) == 5))

/* page_state (directory state) */
#define INVALID   0
#define READ_ONLY 1
#define DIRTY     2
/* protection of the application's view of a cache frame (mprotect) */
#define P_NONE    0
#define P_READ    1
#define P_RW      2

/* ----------------------------------------------------------------- state */
byte master[NB];        /* the homes' pages                                */
bit  lock;              /* the mutex's lock word (at its home)             */
bit  flag[2];           /* MP: flag[w] = the atomic writer w stores        */

typedef Node {          /* one node's coherence state, shared by its threads */
  byte c[NB];           /* cache frames (the alias view)                   */
  byte tw[NB];          /* twins                                           */
  byte st[NP];          /* page_directory state                            */
  byte pr[NP];          /* protection of the application view              */
  byte pl[NP];          /* page lock: 0 free, else holder tid + 1          */
  byte cached;          /* directory.cached as a set: bit p = page p on it */
  byte dirty;           /* directory.dirty as a set                        */
  byte smx;             /* sync_mutex: 0 free, else holder tid + 1         */
  byte gw;              /* sync_generation, as what nothing_to_sync sees of
                         * it: the threads (bit t) between its first load
                         * and its second, watching (GEN_FIRST) ...        */
  byte gm;              /* ... and those of them that saw it move: a bump
                         * since their first load (GEN_START, GEN_END).
                         * It is odd exactly while smx is held.            */
#ifdef KEEP_WRITABLE
  byte fl[NP];          /* page_directory::flushed_: 0 never write-protected
                         * by a flush; else 1 + the empty flushes in a row
                         * it was kept through (kept while written, and
                         * through KEEP_UNWRITTEN empty ones)              */
#endif
#ifdef V2
  byte cv[NP];          /* directory.version: the version read before the
                         * page's bytes (meaningful while not INVALID)     */
  byte sn[NP];          /* homes[h].seen.notices: the count caught up with */
  byte sw[NP];          /* homes[h].seen.write_epoch                       */
  byte mk;              /* homes[h].exported (bit h): exported[h] written  */
  byte ls;              /* the listed flags (bit p): on cached, or taken
                         * from it by an acquire that has not let it go    */
  byte tk;              /* ghost: taken from cached by the acquire and not
                         * yet locked (P6)                                  */
#endif
};
Node nd[NN];

/* apply_diffs messages: sender thread, page, byte mask, 3 values. */
chan homeq[NP] = [NT] of { byte, byte, byte, byte, byte, byte };
byte tfl[NT];           /* diffs thread t sent, not yet applied (its acks) */

#ifdef V2
/* Versions and notices (page_versions.hpp, home_apply.cpp), home h = page
 * h: coherence.pml -DV2's encoding. */
#ifndef CAP
#define CAP 1           /* notice ring slots per home                      */
#endif
#define OTHER NP        /* an entry naming a page of the home that no
                         * modelled node caches                            */
#ifndef NOTHER
#define NOTHER 0        /* batches to an unmodelled page of home NOTHER_HOME */
#endif
#ifndef NOTHER_HOME
#define NOTHER_HOME 1
#endif
#define NONE 255
byte ver[NP];           /* home: version of page p                          */
byte notices[NP];       /* home h: notice count published                   */
byte reserved[NP];      /* home h: reserve count                            */
byte ring[NP*CAP];      /* home h's notices at h*CAP..: page indices        */
byte ringno[NP*CAP];    /* ghost: the number of the notice in each slot     */
byte wepoch[NP];        /* home h: releases since it was first exported     */
bit  exported[NP];      /* home h: some node has fetched from it            */
bit  applying[NP];      /* ghost: home h is inside a batch (P7)             */
/* The reply to thread t's batch for home h (notice_span), at t*NP+h:
 * count before, after, and (ghost) the page's version after the batch. */
byte ackb[NT*NP];
byte acka[NT*NP];
byte ackv[NT*NP];
#endif

byte last[NB];          /* ghost: last value written                       */
byte ndone;             /* threads that have exited                        */
byte inflight;          /* diffs not yet applied                           */

#define F nd[n]
#define ME (t + 1)
#define BIT(p) (1 << (p))
/* The MMU: does the access op to page p go through without a fault? */
#define ALLOWED(p) (HOME(p) == n || op == 0 && F.pr[p] != P_NONE || \
                    op == 1 && F.pr[p] == P_RW)

/* ------------------------------------------------------------ page lists */

/* page_list::push; P4: a page is on a list at most once. */
inline push_cached(p)
{
#ifndef BUG_FETCH_UNLOCKED      /* there two faults of a page both push it */
  assert((F.cached & BIT(p)) == 0);
#endif
  F.cached = F.cached | BIT(p)
}

inline push_dirty(p)
{
  assert((F.dirty & BIT(p)) == 0);
  F.dirty = F.dirty | BIT(p)
}

/* The fault's push (F1) and the refresh's (I5): v1 pushes (the page is on
 * no list); V2's directory.list_cached pushes only a page whose listed
 * flag is clear (a page the notices dropped stays listed). */
inline list_cached(p)
{
#ifdef V2
  if
  :: (F.ls & BIT(p)) == 0 -> F.ls = F.ls | BIT(p); push_cached(p)
  :: else
  fi
#else
  push_cached(p)
#endif
}

/* ----------------------------------------------------------------- fault */

/* handle_fault's write branch, on a locked read_only page: twin, push on
 * dirty, map read-write, unlock (F4).  BUG_PUSH_DIRTY_AFTER_PROTECT (the
 * code before issue 10's fix): the push comes after the protect, and the
 * push and the unlock are a later step, write_fault_end.  WRITE_AHEAD, a
 * write fault of node 2: the fault may continue a write stream (either
 * way: the stream table is racy, any answer is possible); if it does, F4
 * stops after the push (W1) and write_fault_end runs take_writable_ahead
 * and the protect and unlocks (write_ahead). */
inline write_fault(p)
{
  F.tw[p*PS+0] = F.c[p*PS+0];
  F.tw[p*PS+1] = F.c[p*PS+1];
  F.tw[p*PS+2] = F.c[p*PS+2];
  F.st[p] = DIRTY;
#ifdef BUG_PUSH_DIRTY_AFTER_PROTECT
  F.pr[p] = P_RW;                               /* protect(READ|WRITE)   */
  wf = 1
#else
  push_dirty(p);
#ifdef WRITE_AHEAD
  if
  :: n == 2 -> wa = 1                           /* a write stream: W2... */
  :: true ->
#endif
     F.pr[p] = P_RW;                            /* protect(READ|WRITE)   */
     F.pl[p] = 0                                /* unlock                */
#ifdef WRITE_AHEAD
  fi
#endif
#endif
}

#ifdef WRITE_AHEAD
/* Twin and list dirty the page ahead (locked, read_only). */
inline twin_ahead(a)
{
  F.tw[(a)*PS+0] = F.c[(a)*PS+0];
  F.tw[(a)*PS+1] = F.c[(a)*PS+1];
  F.tw[(a)*PS+2] = F.c[(a)*PS+2];
  F.st[a] = DIRTY;
  push_dirty(a)
}

/* take_writable_ahead(p), then the fence, protect_runs(READ|WRITE) of p
 * and the page taken, unlock(dirty) of that page, unlock(dirty) of p.  The
 * page after p is the other page, 1 - p (the model has two; its pages are
 * not in one address order, so both directions are covered).  Steps:
 *   W2 try_lock_in(1-p, read_only): one CAS (the step's N, as G1's);
 *      taken -> W5
 *   W3 try_lock_in(1-p, invalid): one CAS; taken -> W4; not taken
 *      (locked, dirty, or read-only by now) -> nothing taken: protect p
 *      read-write, unlock p (both left movers: in W3's step)
 *   W4 list_and_fetch: the push on cached, the fence, the read (the steps
 *      of list_and_fetch above), fetch_pages' protect(PROT_READ), the page
 *      read_only and still locked (make_readable, keeping it)
 *   W5 twin_and_list_dirty(1-p) (the N), then the fence, protect_runs of
 *      both pages (adds rights: L) and the unlocks (L), one step.
 * W4's protect adds a right, W5 starts with an N: separate steps (a
 * thread may read the page between them, as in the code).
 * BUG_WRITE_AHEAD_PROTECT_BEFORE_PUSH: W5 twins and maps both pages
 * read-write, then (a later step) pushes 1-p on dirty and unlocks.
 * BUG_WRITE_AHEAD_TWIN_AFTER_PROTECT: W5 pushes and maps both pages
 * read-write, then (a later step) twins 1-p and unlocks. */
inline write_ahead(p)
{
  atomic {                                      /* W2                    */
    if
    :: F.pl[1-p] == 0 && F.st[1-p] == READ_ONLY -> F.pl[1-p] = ME; lk = BIT(1-p)
    :: else
    fi
  };
  if
  :: lk == 0 ->
     atomic {                                   /* W3                    */
       if
       :: F.pl[1-p] == 0 && F.st[1-p] == INVALID -> F.pl[1-p] = ME; lk = BIT(1-p)
       :: else ->                               /* nothing taken         */
          F.pr[p] = P_RW;                       /* protect_runs(RW)      */
          F.pl[p] = 0                           /* unlock(p, dirty)      */
       fi
     };
     if
     :: lk != 0 ->                              /* W4                    */
        list_and_fetch();
        make_readable(1-p)
     :: else
     fi
  :: else
  fi;
  if
  :: lk != 0 ->                                 /* W5                    */
#if defined(BUG_WRITE_AHEAD_PROTECT_BEFORE_PUSH)
     atomic {
       F.tw[(1-p)*PS+0] = F.c[(1-p)*PS+0];
       F.tw[(1-p)*PS+1] = F.c[(1-p)*PS+1];
       F.tw[(1-p)*PS+2] = F.c[(1-p)*PS+2];
       F.st[1-p] = DIRTY;
       F.pr[p] = P_RW; F.pr[1-p] = P_RW         /* writable, not listed  */
     };
     atomic { push_dirty(1-p); F.pl[1-p] = 0; F.pl[p] = 0 }
#elif defined(BUG_WRITE_AHEAD_TWIN_AFTER_PROTECT)
     atomic {
       F.st[1-p] = DIRTY;
       push_dirty(1-p);
       F.pr[p] = P_RW; F.pr[1-p] = P_RW         /* writable, no twin yet */
     };
     atomic {
       F.tw[(1-p)*PS+0] = F.c[(1-p)*PS+0];
       F.tw[(1-p)*PS+1] = F.c[(1-p)*PS+1];
       F.tw[(1-p)*PS+2] = F.c[(1-p)*PS+2];
       F.pl[1-p] = 0; F.pl[p] = 0
     }
#else
     atomic {
       twin_ahead(1-p);                         /* twin_and_list_dirty   */
       F.pr[p] = P_RW; F.pr[1-p] = P_RW;        /* fence, protect_runs   */
       F.pl[1-p] = 0;                           /* unlock(ahead, dirty)  */
       F.pl[p] = 0                              /* unlock(p, dirty)      */
     }
#endif
  :: else
  fi;
  lk = 0; wa = 0
}
#endif

inline write_fault_end(p)
{
#ifdef BUG_PUSH_DIRTY_AFTER_PROTECT
  if
  :: wf -> atomic { push_dirty(p); F.pl[p] = 0; wf = 0 }
  :: else
  fi
#elif defined(WRITE_AHEAD)
  if
  :: wa -> write_ahead(p)
  :: else
  fi
#else
  skip
#endif
}

/* fetch(): one-sided read of page p from its home into the frame. */
inline fetch(p)
{
#ifdef FETCH_BYTEWISE
  atomic { F.c[p*PS+0] = master[p*PS+0] };
  atomic { F.c[p*PS+1] = master[p*PS+1] };
  atomic { F.c[p*PS+2] = master[p*PS+2] }
#else
  atomic {
    F.c[p*PS+0] = master[p*PS+0];
    F.c[p*PS+1] = master[p*PS+1];
    F.c[p*PS+2] = master[p*PS+2]
  }
#endif
}

/* V2: export_from(home): before this node's first fetch from the home,
 * the one-sided write of its exported word (waited for), then the node's
 * own flag (homes[h].exported) -- two steps.  The flag's load joins the
 * write's step: it only goes 0 -> 1, and a write after another thread set
 * it writes a 1 that is there already. */
inline export_from(h)
{
#ifdef V2
  atomic {
    if
    :: (F.mk & BIT(h)) == 0 -> exported[h] = 1; ex = 1
    :: else
    fi
  };
  if
  :: ex -> atomic { F.mk = F.mk | BIT(h); ex = 0 }
  :: else
  fi
#endif
}

/* A fault's fetch (fetch_pages): V2 first read_versions (export_from, the
 * fence, the version read into the directory), then the bytes.
 * BUG_V2_VERSION_AFTER_DATA: the version is read after the bytes;
 * BUG_V2_EXPORT_AFTER_FETCH: the exported word is written after them. */
inline fetch_versioned(p)
{
#ifdef V2
#ifndef BUG_V2_EXPORT_AFTER_FETCH
  export_from(HOME(p));
#endif
#ifndef BUG_V2_VERSION_AFTER_DATA
  atomic { F.cv[p] = ver[p] };                  /* read_versions         */
#endif
#endif
  fetch(p);
#ifdef V2
#ifdef BUG_V2_VERSION_AFTER_DATA
  atomic { F.cv[p] = ver[p] };
#endif
#ifdef BUG_V2_EXPORT_AFTER_FETCH
  export_from(HOME(p));
#endif
#endif
}

/* ------------------------------------------------- multi-page fetches */

/* page_directory::try_lock_in(p, invalid), as lock_invalid_pages calls it:
 * one CAS that takes the lock only if the page is unlocked and invalid;
 * pages homed here are skipped.  The page joins lk, the pages this thread
 * locked for one fetch.  BUG_TRY_LOCK_ANY_STATE: the CAS looks at the
 * lock bit only. */
inline try_lock_invalid(p)
{
  if
#ifdef BUG_TRY_LOCK_ANY_STATE
  :: HOME(p) != n && F.pl[p] == 0 ->
#else
  :: HOME(p) != n && F.pl[p] == 0 && F.st[p] == INVALID ->
#endif
     F.pl[p] = ME;
     lk = lk | BIT(p)
  :: else -> skip
  fi
}

/* One step of fetch_pages' read of page p (got: its bytes read so far):
 * the whole page, or with FETCH_BYTEWISE one byte. */
inline read_more(p, got)
{
#ifdef FETCH_BYTEWISE
  F.c[p*PS+got] = master[p*PS+got];
  got++
#else
  F.c[p*PS+0] = master[p*PS+0];
  F.c[p*PS+1] = master[p*PS+1];
  F.c[p*PS+2] = master[p*PS+2];
  got = PS
#endif
}

#ifdef V2
/* V2: read_into_frames' read_versions of lk: export_from each page's home
 * (in index order, each two steps), then the version reads, all in flight
 * at once: one step per page, in any order (vr: the pages read so far).
 * Every version read completes before the first byte is read. */
inline read_versions_of_lk()
{
  if :: lk & BIT(0) -> export_from(HOME(0)) :: else -> skip fi;
  if :: lk & BIT(1) -> export_from(HOME(1)) :: else -> skip fi;
  do
  :: atomic { lk & BIT(0) && (vr & BIT(0)) == 0 -> F.cv[0] = ver[0]; vr = vr | BIT(0) }
  :: atomic { lk & BIT(1) && (vr & BIT(1)) == 0 -> F.cv[1] = ver[1]; vr = vr | BIT(1) }
  :: else -> break
  od;
  vr = 0
}
#endif

/* list_and_fetch(lk): list each page on cached (list_cached), in index
 * order, one step each (the fence after them is the model's sequential
 * consistency); V2: read_versions_of_lk; then fetch_pages' reads, all in
 * flight at once, so in any order: one step per page, or with
 * FETCH_BYTEWISE one per byte, the two pages' bytes interleaved in any
 * way.  BUG_LIST_AFTER_FETCH: the pushes come after the
 * reads (and after the protect: in make_readable). */
inline list_and_fetch()
{
#ifndef BUG_LIST_AFTER_FETCH
  if :: lk & BIT(0) -> atomic { list_cached(0) } :: else -> skip fi;
  if :: lk & BIT(1) -> atomic { list_cached(1) } :: else -> skip fi;
#endif
#if defined(V2) && !defined(BUG_V2_MULTI_VERSION_AFTER_DATA)
  read_versions_of_lk();
#endif
  do
  :: atomic { lk & BIT(0) && got0 < PS -> read_more(0, got0) }
  :: atomic { lk & BIT(1) && got1 < PS -> read_more(1, got1) }
  :: else -> break
  od;
#ifdef BUG_V2_MULTI_VERSION_AFTER_DATA
  read_versions_of_lk();
#endif
  got0 = 0; got1 = 0
}

/* fetch_pages' protect_runs(PROT_READ) of lk, then unlock(read_only) of
 * every page of lk but, on a write (op 1), KEEP: the faulting page, which
 * goes on to its twin (NP: none).  One step: every part adds rights or
 * unlocks. */
inline make_readable(KEEP)
{
  atomic {
    q = 0;
    do
    :: q < NP ->
       if
       :: lk & BIT(q) ->
#ifdef BUG_LIST_AFTER_FETCH
          list_cached(q);
#endif
          F.pr[q] = P_READ;
          F.st[q] = READ_ONLY;
          if :: q != KEEP || op == 0 -> F.pl[q] = 0 :: else -> skip fi
       :: else -> skip
       fi;
       q++
    :: else -> break
    od;
    q = 0
  }
}

/* coherence::prefetch(both pages), by a thread that holds no page lock:
 * lock_invalid_pages over the range (try-locks, in address order, one
 * step each), nothing locked -> return; else list_and_fetch, then
 * protect and unlock every page as read_only. */
inline prefetch()
{
  atomic { try_lock_invalid(0) };
  atomic { try_lock_invalid(1) };
  if
  :: lk != 0 ->
     list_and_fetch();
     make_readable(NP);
     lk = 0
  :: else -> skip
  fi
}

/* PREFETCH: after an acquire (a lock, a flag's load: a channel receive
 * in the code), a worker of node 2 may prefetch both pages. */
inline maybe_prefetch()
{
#ifdef PREFETCH
  if
  :: skip
  :: prefetch()
  fi
#else
  skip
#endif
}

/* The load or store itself, and the checks (P1, P1'). */
inline do_access(i)
{
  if
  :: op == 0 ->
     v = (HOME(pg) == n -> master[i] : F.c[i]);
     if
     :: IS_L(i) -> assert(v == last[i])         /* P1                    */
     :: else    -> assert(v == mine[i])         /* P1'                   */
     fi
  :: else ->
     v = (IS_L(i) -> last[i] : mine[i]) % VALS + 1;
     if
     :: HOME(pg) == n -> master[i] = v
     :: else -> F.c[i] = v
     fi;
     if :: IS_L(i) -> last[i] = v :: else -> mine[i] = v fi
  fi
}

/* One access (op 0 load, 1 store) to byte i, faults included: the
 * instruction is retried until the protection lets it through.  CH 1 / 2:
 * first choose an L byte / one of B's bytes, and the op; 0: i and op are
 * set. */
inline access(i, CH)
{
  do
  :: atomic {
       if                                       /* which access          */
       :: CH == 1 && !rt -> if :: i = 0 :: i = 4 fi; if :: op = 0 :: op = 1 fi
       :: CH == 2 && !rt -> if :: i = 2 :: i = 5 fi; if :: op = 0 :: op = 1 fi
       :: else
       fi;
       rt = 1;
       pg = i / PS;
       if
       :: ALLOWED(pg) -> do_access(i); break
       :: !ALLOWED(pg) && F.pl[pg] == 0 ->      /* fault: page lock      */
          F.pl[pg] = ME;
          if
          :: F.st[pg] == INVALID ->
#if defined(GROUP)
             lk = BIT(pg);                      /* fetch_for_fault: the  */
             try_lock_invalid(1 - pg);          /* group's other page    */
#elif !defined(BUG_PUSH_CACHED_AFTER_FETCH)
             list_cached(pg);                   /* issue 10's fix        */
#endif
#ifdef BUG_FETCH_UNLOCKED
             F.pl[pg] = 0;                      /* unlocked during fetch */
#endif
             flt = 1
          :: F.st[pg] == READ_ONLY && op == 1 ->
             write_fault(pg)
          :: else -> assert(0)     /* P5: unlocked => protection matches state */
          fi
       fi
     };
     write_fault_end(pg);
     if
     :: flt ->
#ifdef BUG_FETCH_UNLOCKED
        atomic {                                /* into a buffer         */
          b0 = master[pg*PS+0]; b1 = master[pg*PS+1]; b2 = master[pg*PS+2]
        };
        atomic {
          F.pl[pg] == 0 -> F.pl[pg] = ME;       /* relock to install     */
          if
          :: F.st[pg] == INVALID ->
             F.c[pg*PS+0] = b0; F.c[pg*PS+1] = b1; F.c[pg*PS+2] = b2;
             F.pr[pg] = P_READ; F.st[pg] = READ_ONLY;
             if :: op == 0 -> F.pl[pg] = 0 :: else fi
          :: else -> F.pl[pg] = 0; flt = 0      /* installed meanwhile   */
          fi;
          b0 = 0; b1 = 0; b2 = 0
        };
#elif defined(GROUP)
        list_and_fetch();                       /* pushes, fence, reads  */
        make_readable(pg);                      /* protect, unlock       */
        lk = 0;
#else
        fetch_versioned(pg);
        atomic {
          F.pr[pg] = P_READ;                    /* protect(PROT_READ)    */
          F.st[pg] = READ_ONLY;
#ifdef BUG_PUSH_CACHED_AFTER_FETCH
          push_cached(pg);                      /* issue 10's bug        */
#endif
          if :: op == 0 -> F.pl[pg] = 0 :: else fi   /* read: unlock     */
        };
#endif
        if
        :: flt && op == 1 -> atomic { write_fault(pg) }; write_fault_end(pg)
        :: else
        fi;
        flt = 0
     :: else
     fi
  od;
  i = 0; op = 0; v = 0; pg = 0; rt = 0
}

/* ------------------------------------------------------ release, acquire */

/* What the caller does right after the release, in the same step
 * (POST): 0 nothing, 1 unlock the mutex, 2 store flag[t]. */
inline post_release(POST)
{
  if
  :: POST == 1 -> lock = 0
  :: POST == 2 -> flag[t] = 1
  :: else
  fi
}

/* Diff of page p against its twin, sent to the home if not empty. */
inline diff_send(p)
{
  m = 0;
  if :: F.c[p*PS+0] != F.tw[p*PS+0] -> m = m | 1 :: else fi;
  if :: F.c[p*PS+1] != F.tw[p*PS+1] -> m = m | 2 :: else fi;
  if :: F.c[p*PS+2] != F.tw[p*PS+2] -> m = m | 4 :: else fi;
  if
  :: m != 0 ->
     homeq[HOME(p)] ! t, p, m, (m & 1 -> F.c[p*PS+0] : 0),
           (m & 2 -> F.c[p*PS+1] : 0), (m & 4 -> F.c[p*PS+2] : 0);
     inflight++;
#ifdef V2
     sent = sent | BIT(HOME(p));                /* its batch for the home */
#endif
     tfl[t]++
  :: else
  fi;
  m = 0
}

inline drop_twin(p)
{
  F.tw[p*PS+0] = 0; F.tw[p*PS+1] = 0; F.tw[p*PS+2] = 0
}

/* The write-protected flush of locked dirty page p: protect_runs, diff,
 * send, drop the twin, read_only, (KEEP_WRITABLE) note_flushed, unlock. */
inline flush_protected(p)
{
  F.pr[p] = P_READ;                             /* protect_runs          */
  diff_send(p);
  drop_twin(p);
  F.st[p] = READ_ONLY;
#ifdef KEEP_WRITABLE
  F.fl[p] = 1;                                  /* note_flushed          */
#endif
  F.pl[p] = 0                                   /* unlock                */
}

#ifdef KEEP_WRITABLE
/* One byte of a kept page's diff (page_changes, put_runs): the frame is
 * writable, so each load is a step of its own.  The code loads each byte
 * twice, for the mask and for the value; a store between the two makes
 * the diff carry the newer value, which is a load of it once, later; a
 * store after the mask's load is for the next diff either way.  The value
 * goes in b0-b2, the mask in m. */
#define KEPT_BYTE(p, k, b) \
  if :: F.c[p*PS+k] != F.tw[p*PS+k] -> m = m | (1 << k); b = F.c[p*PS+k] :: else fi

/* A kept page's diff sent (the values loaded, not the frame's), and its
 * twin advanced to exactly the bytes sent (append_diff with
 * twin_update::to_sent_bytes).
 * BUG_KEEP_WRITABLE_TWIN_NOT_ADVANCED leaves the twin as it was;
 * BUG_KEEP_WRITABLE_TWIN_FROM_PAGE copies the frame into it in the next
 * step (flush_kept). */
inline send_kept(p)
{
  if
  :: m != 0 ->
     homeq[HOME(p)] ! t, p, m, b0, b1, b2;
     inflight++;
#ifdef V2
     sent = sent | BIT(HOME(p));
#endif
     tfl[t]++
  :: else
  fi;
#if !defined(BUG_KEEP_WRITABLE_TWIN_NOT_ADVANCED) && !defined(BUG_KEEP_WRITABLE_TWIN_FROM_PAGE)
  if :: m & 1 -> F.tw[p*PS+0] = b0 :: else fi;
  if :: m & 2 -> F.tw[p*PS+1] = b1 :: else fi;
  if :: m & 4 -> F.tw[p*PS+2] = b2 :: else fi;
#endif
  b0 = 0; b1 = 0; b2 = 0
}

/* flush_dirty_pages' branch for a page a flush write-protected before
 * (locked, dirty, still writable): K1 K2 K3 its diff, a byte per step,
 * K3 also sends it and asks keep_writable: written, or flushed before and
 * not yet kept through an empty flush -> kept (stays locked, off the
 * dirty list, writable; relisted by flush_kept_end); else K4 the
 * write-protected flush, as a page never flushed. */
inline flush_kept(p)
{
  atomic { KEPT_BYTE(p, 1, b1) };
  atomic {
    KEPT_BYTE(p, 2, b2);
    send_kept(p);
    if
    :: m != 0 || F.fl[p] <= KEEP_UNWRITTEN ->   /* keep_writable         */
       F.fl[p] = (m != 0 -> 1 : F.fl[p] + 1);
       kept = kept | BIT(p)
    :: else -> F.fl[p] = 1
    fi;
    m = 0
  };
#ifdef BUG_KEEP_WRITABLE_TWIN_FROM_PAGE
  atomic {
    F.tw[p*PS+0] = F.c[p*PS+0]; F.tw[p*PS+1] = F.c[p*PS+1]; F.tw[p*PS+2] = F.c[p*PS+2]
  };
#endif
  if
  :: kept & BIT(p) -> skip
  :: else -> atomic { flush_protected(p) }      /* K4                    */
  fi
}

/* After the flush has taken the whole list: each kept page pushed on dirty
 * and unlocked (dirty, writable), one step each. */
inline flush_kept_end()
{
  q = 0;
  do
  :: q < NP ->
     if
     :: kept & BIT(q) -> atomic { push_dirty(q); F.pl[q] = 0 }
     :: else
     fi;
     q++
  :: else -> break
  od;
  q = 0; kept = 0
}
#endif

/* flush_dirty_pages, up to send_and_wait's wait: take_all(dirty) until it
 * comes back empty; each page taken: lock, if still dirty write-protect,
 * diff, send, drop the twin, read_only; unlock.  KEEP_WRITABLE: a page
 * flushed before goes through flush_kept instead (its K1 is the lock's
 * step), and the kept pages are relisted at the end. */
inline flush_dirty_pages()
{
  do
  :: atomic { taken = F.dirty; F.dirty = 0 };  /* take_all              */
     if
     :: taken == 0 -> break
     :: else
     fi;
     q = 0;
     do
     :: q < NP ->
        if
        :: taken & BIT(q) ->
#if defined(KEEP_WRITABLE)
           atomic {
             F.pl[q] == 0 -> F.pl[q] = ME;      /* lock                  */
             if
             :: F.st[q] == DIRTY && F.fl[q] != 0 ->
                kw = 1; KEPT_BYTE(q, 0, b0)     /* K1                    */
             :: F.st[q] == DIRTY && F.fl[q] == 0 -> flush_protected(q)
             :: else -> F.pl[q] = 0
             fi
           };
           if :: kw -> kw = 0; flush_kept(q) :: else fi
#elif !defined(BUG_NO_WRITE_PROTECT)
           atomic {
             F.pl[q] == 0 -> F.pl[q] = ME;      /* lock                  */
             if
             :: F.st[q] == DIRTY -> flush_protected(q)
             :: else -> F.pl[q] = 0             /* unlock                */
             fi
           }
#else
           atomic {
             F.pl[q] == 0 -> F.pl[q] = ME;
             if
             :: F.st[q] == DIRTY -> diff_send(q) /* still writable        */
             :: else -> F.pl[q] = 0
             fi
           };
           atomic {
             if
             :: F.pl[q] == ME ->
                F.pr[q] = P_READ;               /* protected too late    */
                drop_twin(q);
                F.st[q] = READ_ONLY;
                F.pl[q] = 0
             :: else
             fi
           }
#endif
        :: else
        fi;
        q++
     :: else -> break
     od;
     q = 0
  od;
#ifdef KEEP_WRITABLE
  flush_kept_end()
#endif
}

/* refresh_dirty_pages' merge of byte k, whose home value is hv: the
 * byte's load and its store are separate steps, as in the code (another
 * worker's store may come between them).  The code stores only where the
 * home changed the byte (hv != twin) and this node did not (frame ==
 * twin); BUG_REFRESH_ANY_UNCHANGED_BYTE stores wherever frame == twin (the
 * rule while the page was write-protected around the merge). */
inline merge_byte(k, hv)
{
#ifdef BUG_REFRESH_ANY_UNCHANGED_BYTE
  atomic { mg = (F.c[k] == F.tw[k]) };
#else
  atomic { mg = (hv != F.tw[k] && F.c[k] == F.tw[k]) };
#endif
  atomic { if :: mg -> F.c[k] = hv :: else fi; mg = 0 }
}

/* refresh_dirty_page + cached.push + unlock, for page p (locked). */
inline refresh(p)
{
#ifdef BUG_INVALIDATE_SKIPS_DIRTY
  atomic { push_cached(p); F.pl[p] = 0 }        /* left as it is         */
#else
  /* The page stays writable (the other worker may store into it
   * throughout); read_versions, then the bytes (one step, or one per
   * byte with FETCH_BYTEWISE), then the merge a byte at a time. */
#ifdef V2                                       /* read_versions         */
  atomic { F.cv[p] = ver[p] };                  /* (exported already)    */
#endif
#ifdef FETCH_BYTEWISE
  atomic { b0 = master[p*PS+0] };
  atomic { b1 = master[p*PS+1] };
  atomic { b2 = master[p*PS+2] };
#else
  atomic { b0 = master[p*PS+0]; b1 = master[p*PS+1]; b2 = master[p*PS+2] };
#endif
  merge_byte(p*PS+0, b0);
  merge_byte(p*PS+1, b1);
  merge_byte(p*PS+2, b2);
  atomic {                                      /* the home's copy is    */
    F.tw[p*PS+0] = b0; F.tw[p*PS+1] = b1; F.tw[p*PS+2] = b2;
    b0 = 0; b1 = 0; b2 = 0                      /* the new twin (read    */
  };                                            /* under the page lock)  */
#ifdef BUG_V2_REFRESH_NO_LIST
  atomic { F.pl[p] = 0 }                        /* not listed again      */
#else
  atomic { list_cached(p); F.pl[p] = 0 }        /* push, unlock(dirty)   */
#endif
#endif
}

/* invalidate_cached_pages: take_all(cached) until it comes back empty;
 * each page taken: lock; read_only -> PROT_NONE, invalid, unlock; dirty
 * -> stays locked for the refresh after the loop. */
inline invalidate_cached_pages()
{
  do
  :: atomic { taken = F.cached; F.cached = 0 }; /* take_all              */
     if
     :: taken == 0 -> break
     :: else
     fi;
     q = 0;
     do
     :: q < NP ->
        if
        :: taken & BIT(q) ->
           atomic {
             F.pl[q] == 0 -> F.pl[q] = ME;      /* lock                  */
             if
             :: F.st[q] == READ_ONLY ->
                F.pr[q] = P_NONE;               /* protect_runs          */
                F.st[q] = INVALID;
                F.c[q*PS+0] = 0; F.c[q*PS+1] = 0; F.c[q*PS+2] = 0;
                F.pl[q] = 0                     /* unlock(invalid)       */
             :: F.st[q] == DIRTY ->
                still = still | BIT(q)          /* stays locked          */
             :: else ->
                F.pl[q] = 0
             fi
           }
        :: else
        fi;
        q++
     :: else -> break
     od;
     q = 0
  od;
  q = 0;
  do
  :: q < NP ->
     if
     :: still & BIT(q) -> refresh(q)
     :: else
     fi;
     q++
  :: else -> break
  od;
  q = 0; still = 0
}

#ifdef V2
/* V2: send_and_wait's note_applied, for each home this thread's flush sent
 * a batch to (one page per home: the batch is page q): when the count
 * before the batch is the one the node last caught up with, the count
 * moves on to the count after it and the cached version goes up by one;
 * else nothing.  The ghost ackv checks that the page's version after the
 * batch is then cv + 1 (seen == notices implied cv == ver).
 * BUG_V2_TRUST_OWN_DIFF: every reply moves them on.  In the step of the
 * wait for the acks (receiving acks: right movers; sn and cv are the
 * sync_mutex holder's: the batch's pages cannot be dropped or fetched
 * before it lets go). */
inline note_applied()
{
  q = 0;
  do
  :: q < NP ->
     if
     :: sent & BIT(q) ->
        if
#ifndef BUG_V2_TRUST_OWN_DIFF
        :: ackb[t*NP+q] == F.sn[q] ->
           assert(ackv[t*NP+q] == F.cv[q] + 1);
#else
        :: true ->
#endif
           F.sn[q] = acka[t*NP+q];
           F.cv[q] = F.cv[q] + 1
        :: else
        fi;
        ackb[t*NP+q] = 0; acka[t*NP+q] = 0; ackv[t*NP+q] = 0
     :: else
     fi;
     q++
  :: else -> break
  od;
  q = 0; sent = 0
}

/* What the summary of home q said (chg[q]). */
#define KEEP    0       /* not looked at, or nothing moved: keep            */
#define DIFFS   1       /* only the count moved, the notices cannot say
                         * which pages: compare versions (still_current)   */
#define NOTICED 2       /* only the count moved, the notices say which      */
#define WROTE   3       /* the write epoch moved: drop every page           */

/* A page locked by the acquire that its home changed: dropped if read-only,
 * refreshed if dirty (page_verdicts::changed).  REFETCH_READ_ONLY: a
 * read-only page may instead be read again (recent_pages::take_recent
 * picks the pages read lately: any of them, as far as the protocol goes). */
inline verdict(p)
{
  if
  :: F.st[p] == DIRTY -> rfs = rfs | BIT(p)
#ifdef REFETCH_READ_ONLY
  :: F.st[p] != DIRTY -> rro = rro | BIT(p)
#endif
  :: F.st[p] != DIRTY -> drp = drp | BIT(p)
  fi
}

#ifdef REFETCH_READ_ONLY
/* refetch_read_only_pages, for page p (locked, read-only): read_versions,
 * then the bytes into the frame, which stays readable (the other worker may
 * read it meanwhile), then list_cached and unlock(read_only).
 *   BUG_REFETCH_NO_LIST: unlocked without list_cached. */
inline refetch_ro(p)
{
  atomic { F.cv[p] = ver[p] };                  /* read_versions         */
#ifdef FETCH_BYTEWISE
  atomic { F.c[p*PS+0] = master[p*PS+0] };
  atomic { F.c[p*PS+1] = master[p*PS+1] };
  atomic { F.c[p*PS+2] = master[p*PS+2] };
#else
  atomic {                                      /* post_read into alias  */
    F.c[p*PS+0] = master[p*PS+0]; F.c[p*PS+1] = master[p*PS+1];
    F.c[p*PS+2] = master[p*PS+2]
  };
#endif
#ifdef BUG_REFETCH_NO_LIST
  atomic { F.pl[p] = 0 }
#else
  atomic { list_cached(p); F.pl[p] = 0 }        /* push, unlock(ro)      */
#endif
}
#endif

/* drop_changed_pages (the acquire's second half; the caller holds
 * sync_mutex and has flushed), one shared access per step:
 *   V1 read_summaries, per home q other than this node: the node's
 *      exported flag (homes[q].exported), then, if set, the summary (write
 *      epoch and count, one read): WROTE / DIFFS / KEEP.  Nothing moved
 *      anywhere -> return: no list taken, no page locked, seen unchanged.
 *   V2 read_all_notices, per home that moved: the count again, whole; for
 *      WROTE the write epoch again, whole; for DIFFS, if the ring holds
 *      them (now - seen <= CAP), read_notices: the entries seen .. now-1,
 *      one read each (a slot holding another notice: its page or OTHER),
 *      then the reserve count: reserved - seen > CAP (unsigned) -> stays
 *      DIFFS; else NOTICED, the pages named join `noticed'.
 *   V3 walk_cached_pages, if some home is DIFFS or WROTE: take_all(cached)
 *      (one step; the chunking is not modelled); per page taken, in index
 *      order: lock it (waits); invalid -> let go (listed flag cleared),
 *      unlock; else by its home: KEEP / NOTICED -> relist, unlock
 *      (keep_taken_page); DIFFS -> stays locked for still_current;
 *      WROTE -> let go, verdict (stays locked).  still_current: each
 *      DIFFS page's version at the home read (one step each, all before
 *      any decision), then per page: the cached version -> relist,
 *      unlock; else let go, verdict.
 *      BUG_V2_KEEP_WITHOUT_RELIST: a kept page is unlocked at once and
 *      relisted after the walk.
 *   V4 judge_noticed_pages: per noticed page, lock it (waits); invalid ->
 *      unlock (it stays listed); else verdict (stays locked).
 *      BUG_V2_NOTICED_NO_WAIT: the page's state is looked at before its
 *      lock is waited for, and an invalid one is skipped.
 *   V5 protect_runs(PROT_NONE) of the pages to drop and their unlock as
 *      invalid, one step (removing rights, unlocks); the noticed ones stay
 *      listed.  BUG_V2_NOTICED_UNLISTED: a noticed page dropped is also
 *      taken off the list (its listed flag stays).
 *   V6 per page to refresh: refresh() (I3-I5: version, bytes, merge,
 *      list_cached, unlock).
 *   V7 seen = the counts read, for each home looked at.
 */
inline drop_changed_pages()
{
  q = 0;                                        /* V1                    */
  do
  :: q < NP ->
     if
     :: q != n ->
        atomic { if :: F.mk & BIT(q) -> lkd = lkd | BIT(q) :: else fi };
        if
        :: lkd & BIT(q) ->
           atomic {                             /* the summary           */
             nw[q] = wepoch[q]; nn[q] = notices[q];
             if
             :: nw[q] != F.sw[q] -> chg[q] = WROTE
             :: nw[q] == F.sw[q] && nn[q] != F.sn[q] -> chg[q] = DIFFS
             :: else
             fi
           }
        :: else
        fi
     :: else
     fi;
     q++
  :: else -> break
  od;
  q = 0;
  if
  :: chg[0] == KEEP && chg[1] == KEEP -> skip   /* !changes.any          */
  :: else ->
     do                                         /* V2                    */
     :: q < NP ->
        if
        :: chg[q] == DIFFS || chg[q] == WROTE ->
           atomic { nn[q] = notices[q] };       /* read_counter          */
           if
           :: chg[q] == WROTE -> atomic { nw[q] = wepoch[q] }
           :: else ->
              if
              :: nn[q] - F.sn[q] <= CAP ->      /* read_notices          */
                 k2 = F.sn[q];
                 do
                 :: k2 < nn[q] ->
                    atomic {                    /* notice k2             */
                      e = ring[q*CAP + k2 % CAP];
                      if
                      :: ringno[q*CAP + k2 % CAP] != k2 ->
                         if :: skip :: e = OTHER fi   /* another notice  */
                      :: else
                      fi;
                      if :: e == q -> hit = 1 :: else fi;   /* page q    */
                      k2++; e = 0
                    }
                 :: else -> break
                 od;
                 atomic {                       /* the reserve count     */
                   e = reserved[q];
                   if
                   :: e < F.sn[q] || e - F.sn[q] > CAP -> skip   /* DIFFS */
                   :: else ->
                      chg[q] = NOTICED;
                      if :: hit -> noticed = noticed | BIT(q) :: else fi
                   fi;
                   e = 0; hit = 0; k2 = 0
                 }
              :: else                           /* the ring passed       */
              fi
           fi
        :: else
        fi;
        q++
     :: else -> break
     od;
     q = 0;
     if                                         /* V3                    */
     :: chg[0] == DIFFS || chg[0] == WROTE || chg[1] == DIFFS || chg[1] == WROTE ->
        atomic { taken = F.cached; F.cached = 0; F.tk = taken };
        do
        :: q < NP ->
           if
           :: taken & BIT(q) ->
              atomic {
                F.pl[q] == 0 -> F.pl[q] = ME;   /* lock                  */
                F.tk = F.tk & ~BIT(q);
                if
                :: F.st[q] == INVALID ->
                   F.ls = F.ls & ~BIT(q);       /* let_go_taken          */
                   F.pl[q] = 0
                :: else ->
                   if
                   :: chg[HOME(q)] == DIFFS -> tochk = tochk | BIT(q)
                   :: chg[HOME(q)] == WROTE ->
                      F.ls = F.ls & ~BIT(q);    /* let_go_taken          */
                      verdict(q)
                   :: else ->                   /* keep_taken_page       */
#ifndef BUG_V2_KEEP_WITHOUT_RELIST
                      push_cached(q);           /* relist_taken          */
#else
                      kp = kp | BIT(q);
#endif
                      F.pl[q] = 0
                   fi
                fi
              }
           :: else
           fi;
           q++
        :: else -> break
        od;
        q = 0;
#ifdef BUG_V2_KEEP_WITHOUT_RELIST
        if
        :: kp != 0 -> atomic { F.cached = F.cached | kp; kp = 0 }
        :: else
        fi;
#endif
        do                                      /* still_current: reads  */
        :: q < NP ->
           if
           :: tochk & BIT(q) ->
              atomic { if :: ver[q] == F.cv[q] -> cur = cur | BIT(q) :: else fi }
           :: else
           fi;
           q++
        :: else -> break
        od;
        q = 0;
        do                                      /* ... then verdicts     */
        :: q < NP ->
           if
           :: tochk & BIT(q) ->
              atomic {
                if
                :: cur & BIT(q) -> push_cached(q); F.pl[q] = 0
                :: else -> F.ls = F.ls & ~BIT(q); verdict(q)
                fi
              }
           :: else
           fi;
           q++
        :: else -> break
        od;
        q = 0; tochk = 0; cur = 0; taken = 0
     :: else
     fi;
     do                                         /* V4                    */
     :: q < NP ->
        if
        :: noticed & BIT(q) ->
           atomic {
#ifdef BUG_V2_NOTICED_NO_WAIT
             if
             :: F.st[q] == INVALID -> skip      /* not waited for        */
             :: else ->
#endif
                F.pl[q] == 0 -> F.pl[q] = ME;   /* lock                  */
                if
                :: F.st[q] == INVALID -> F.pl[q] = 0
                :: else -> verdict(q)
                fi
#ifdef BUG_V2_NOTICED_NO_WAIT
             fi
#endif
           }
        :: else
        fi;
        q++
     :: else -> break
     od;
     q = 0;
     if                                         /* V5                    */
     :: drp != 0 ->
        atomic {
          do
          :: q < NP ->
             if
             :: drp & BIT(q) ->
                F.pr[q] = P_NONE;               /* protect_runs          */
                F.st[q] = INVALID;
                F.c[q*PS+0] = 0; F.c[q*PS+1] = 0; F.c[q*PS+2] = 0;
                F.cv[q] = 0;
#ifdef BUG_V2_NOTICED_UNLISTED
                if
                :: noticed & BIT(q) -> F.cached = F.cached & ~BIT(q)
                :: else
                fi;
#endif
                F.pl[q] = 0                     /* unlock(invalid)       */
             :: else
             fi;
             q++
          :: else -> break
          od;
          q = 0
        }
     :: else
     fi;
     do                                         /* V6                    */
     :: q < NP ->
        if
        :: rfs & BIT(q) -> refresh(q)
        :: else
        fi;
        q++
     :: else -> break
     od;
     q = 0;
#ifdef REFETCH_READ_ONLY
     do                                         /* V6b: refetches        */
     :: q < NP ->
        if
        :: rro & BIT(q) -> refetch_ro(q)
        :: else
        fi;
        q++
     :: else -> break
     od;
     q = 0;
#endif
     atomic {                                   /* V7                    */
       if :: lkd & BIT(0) -> F.sn[0] = nn[0]; F.sw[0] = nw[0] :: else fi;
       if :: lkd & BIT(1) -> F.sn[1] = nn[1]; F.sw[1] = nw[1] :: else fi
     }
  fi;
  atomic {
    lkd = 0; noticed = 0; drp = 0; rfs = 0; rro = 0;
    chg[0] = 0; chg[1] = 0; nn[0] = 0; nn[1] = 0; nw[0] = 0; nw[1] = 0
  }
}
#define INVALIDATE() drop_changed_pages()
#define NOTE_APPLIED() note_applied()
/* A home's release (note_release): after nothing_to_sync's loads, once
 * some node has exported the home, the write epoch goes up. */
#ifndef BUG_V2_NO_HOME_BUMP
#define HOME_BUMP() if :: n < NP && exported[n] -> wepoch[n]++ :: else fi
#else
#define HOME_BUMP() skip
#endif
#else
#define INVALIDATE() invalidate_cached_pages()
#define NOTE_APPLIED() skip
#define HOME_BUMP() skip
#endif

/* synchronized()'s start and end: sync_mutex taken and sync_generation
 * bumped (odd), then bumped (even) and sync_mutex let go.  A bump is seen
 * by every thread watching (gm); the model keeps no count, so no two
 * bumps can look like none (the code's count is 64 bits). */
#define GEN_START atomic { F.smx == 0 -> F.smx = ME; F.gm = F.gm | F.gw }
#define GEN_END   F.gm = F.gm | F.gw; F.smx = 0

/* nothing_to_sync's loads of sync_generation: GEN_FIRST the first (odd:
 * refuse; else watch), GEN_LAST the second (moved: refuse), and the watch
 * ends (GEN_UNWATCH) in the step that ends the fast path.
 * BUG_WAIT_OWN_ACKS_ONLY (release) and BUG_ACQUIRE_IGNORES_GENERATION (acquire)
 * do not look at it; BUG_KEEP_WRITABLE_NO_GENERATION only checks, last,
 * that it is even: the code before the generation, whose
 * sync_in_progress was true exactly while sync_mutex was held. */
#define GEN_UNWATCH F.gw = F.gw & ~BIT(t); F.gm = F.gm & ~BIT(t)
#if defined(BUG_KEEP_WRITABLE_NO_GENERATION)
#define GEN_FIRST(use) fast = 1
#define GEN_LAST(use)  fast = (F.smx == 0)
#else
#define GEN_FIRST(use) \
  if \
  :: use -> fast = (F.smx == 0); if :: fast -> F.gw = F.gw | BIT(t) :: else fi \
  :: else -> fast = 1 \
  fi
#define GEN_LAST(use)  if :: use -> fast = ((F.gm & BIT(t)) == 0) :: else fi; GEN_UNWATCH
#endif

/* coherence::release(), then post_release(POST).  The fast path,
 * nothing_to_sync(false): loads sync_generation, dirty.empty(), the
 * generation again (&& short-circuits), one load per step. */
inline release(POST)
{
#ifdef BUG_WAIT_OWN_ACKS_ONLY
#define R_GEN 0
#else
#define R_GEN 1
#endif
  atomic {                                      /* V2: a home's release  */
    HOME_BUMP();                                /* bumps its write epoch */
    GEN_FIRST(R_GEN)                            /* (node 2 homes nothing; */
  };                                            /* nodes 0, 1 atomic)    */
  if
  :: atomic { fast -> fast = (F.dirty == 0); if :: !fast -> GEN_UNWATCH :: else fi }
  :: else
  fi;
  if
  :: atomic {
       fast -> GEN_LAST(R_GEN);
       if :: fast -> post_release(POST) :: else fi
     }
  :: else
  fi;
  if
  :: fast -> fast = 0                           /* nothing to sync       */
  :: else ->
     GEN_START;                                 /* synchronized()        */
     flush_dirty_pages();
     atomic {                                   /* send_and_wait's wait  */
       tfl[t] == 0;
       NOTE_APPLIED();
       GEN_END;
       post_release(POST)
     }
  fi
}

/* With PRE 1: lock the mutex.  Then coherence::acquire(): the fast path,
 * nothing_to_sync(true), loads sync_generation, dirty.empty(),
 * cached.empty(), the generation again, each only if the previous one
 * passed. */
inline acquire(PRE)
{
#ifdef BUG_ACQUIRE_IGNORES_GENERATION
#define A_GEN 0
#else
#define A_GEN 1
#endif
  atomic {
    (PRE != 1 || lock == 0);                    /* the mutex's lock      */
    if :: PRE == 1 -> lock = 1 :: else fi;
    GEN_FIRST(A_GEN)
  };
  if
  :: atomic { fast -> fast = (F.dirty == 0); if :: !fast -> GEN_UNWATCH :: else fi }
  :: else
  fi;
  if
  :: atomic { fast -> fast = (F.cached == 0); if :: !fast -> GEN_UNWATCH :: else fi }
  :: else
  fi;
  if
  :: atomic { fast -> GEN_LAST(A_GEN) }
  :: else
  fi;
  if
  :: fast -> fast = 0                           /* nothing to sync       */
  :: else ->
     GEN_START;                                 /* synchronized()        */
     flush_dirty_pages();
#ifdef BUG_INVALIDATE_BEFORE_ACK
     invalidate_cached_pages();
     atomic { tfl[t] == 0; GEN_END }
#else
     atomic { tfl[t] == 0; NOTE_APPLIED() };    /* send_and_wait's wait  */
     INVALIDATE();
     atomic { GEN_END }
#endif
  fi
}

/* ------------------------------------------------------------- processes */

/* The home's diff handler.  V2: home_apply.cpp's batch_applier (or its
 * posted_batch_applier: the same steps, posted in this order), one
 * batch (one page) at a time (one process per home: one applier at a
 * time): the bytes; page_done: the version, the reserve count, the ring
 * entry (one step each); finish: the count published, and the reply
 * (before, after) with the ack.  applying[h] (ghost) from the bytes to
 * the count. */
proctype home_server(chan in; byte h)
{
  byte s, p, mm, v0, v1, v2;
#ifdef V2
  byte written;         /* batch_applier's written_ (the reserve count)    */
  byte nother;          /* NOTHER: batches to the other page applied       */
#endif
  xr in;
end_wait:
  do
  :: atomic {
       in ? s, p, mm, v0, v1, v2;
       if :: mm & 1 -> master[p*PS+0] = v0 :: else fi;
       if :: mm & 2 -> master[p*PS+1] = v1 :: else fi;
       if :: mm & 4 -> master[p*PS+2] = v2 :: else fi;
#ifdef V2
       applying[h] = 1
     };
     atomic { ver[p]++ };                       /* the version           */
     atomic { reserved[h] = written + 1 };      /* the reserve count     */
     atomic {                                   /* the entry             */
       ring[h*CAP + written % CAP] = p;
       ringno[h*CAP + written % CAP] = written;
       written++
     };
     atomic {                                   /* finish: the count     */
       ackb[s*NP+h] = notices[h];
       notices[h] = written;
       acka[s*NP+h] = written;
       ackv[s*NP+h] = ver[p];
       applying[h] = 0;
#endif
       inflight--;
       tfl[s]--;                /* the ack */
       s = 0; p = 0; mm = 0; v0 = 0; v1 = 0; v2 = 0
     }
#if defined(V2) && NOTHER > 0
  :: h == NOTHER_HOME && nother < NOTHER && ndone < NT ->  /* a batch from a node */
     atomic { nother++; applying[h] = 1 };       /* outside the model, to */
     atomic { reserved[h] = written + 1 };       /* another page of home  */
     atomic {                                    /* 1 (its bytes and      */
       ring[h*CAP + written % CAP] = OTHER;      /* version unmodelled)   */
       ringno[h*CAP + written % CAP] = written;
       written++
     };
     atomic { notices[h] = written; applying[h] = 0 }
#endif
  od
}

/* Thread exit, after its release: publish the own bytes' last writes. */
inline exit_thread()
{
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

#ifdef V2
#define V2_LOCALS \
  bit  ex;              /* export_from: the flag store is next             */ \
  bit  hit;             /* read_notices: an entry named the home's page    */ \
  byte sent;            /* homes this flush sent a batch to                */ \
  byte chg[NP];         /* drop_changed_pages: what each summary said      */ \
  byte nn[NP], nw[NP];  /* ... the counts read (now)                       */ \
  byte lkd, noticed, tochk, cur, drp, rfs, rro, kp;  /* page / home sets   */ \
  byte k2, e;           /* next notice; an entry or the reserve count read */ \
  byte vr               /* read_versions_of_lk: the pages read so far      */
#else
#define V2_LOCALS bit ex
#endif

#define THREAD_LOCALS \
  byte mine[NB];        /* ghost: this thread's last writes to its bytes   */ \
  byte k;               /* loop counter                                    */ \
  byte i, op, v, pg, m, q; \
  byte taken, still;    /* pages taken from a list; kept locked (refresh)  */ \
  bit  fast;            /* nothing_to_sync's result so far                 */ \
  byte kept;            /* KEEP_WRITABLE: pages the flush keeps writable   */ \
  bit  kw;              /* KEEP_WRITABLE: flush_kept next                  */ \
  bit  flt;             /* a fault's fetch is next                         */ \
  bit  wf;              /* BUG_PUSH_DIRTY_AFTER_PROTECT: push + unlock next */ \
  bit  wa;              /* WRITE_AHEAD: write_ahead next                   */ \
  bit  fv;              /* MP: the flag's value                            */ \
  bit  rt;              /* access: retried after a fault (i, op chosen)    */ \
  byte b0, b1, b2;      /* fetched bytes (refresh; BUG_FETCH_UNLOCKED)     */ \
  bit  mg;              /* refresh: merge_byte will store                  */ \
  byte lk;              /* pages locked for one multi-page fetch (a set)   */ \
  byte got0, got1;      /* list_and_fetch: bytes of page 0 / 1 read so far */ \
  V2_LOCALS

/* Thread A or B of node 2: every step as the code runs it. */
proctype worker(byte n; byte t)
{
  THREAD_LOCALS;
  if
#ifdef MP
  :: t == 2 ->                  /* reader: flag[1], byte 0 (flag[0], 4)  */
     atomic { fv = flag[1] };   /* flag[1].load(acquire)                 */
     acquire(0);
     maybe_prefetch();
     if :: fv -> i = 0; op = 0; access(i, 0) :: else fi;
     fv = 0;
#if MP == 2
     atomic { fv = flag[0] };   /* flag[0].load(acquire)                 */
     acquire(0);
     maybe_prefetch();
     if :: fv -> i = 4; op = 0; access(i, 0) :: else fi;
     fv = 0;
#endif
#else
  :: t == 2 ->                  /* A: critical sections                  */
     do
     :: k < NCS2 ->
        acquire(1);             /* lock                                  */
        maybe_prefetch();
        access(i, 1);
        release(1);             /* unlock                                */
        k++
     :: else -> break
     od
#endif
  :: t == 3 ->                  /* B: own bytes, maybe a release/acquire */
     do
     :: k < NFS2 ->
        access(i, 2);
        if
        :: skip
        :: release(0)
#ifdef B_ACQUIRES
        :: acquire(0); maybe_prefetch()
#endif
        fi;
        k++
     :: else -> break
     od
  fi;
  k = 0;
  release(0);                   /* thread exit                           */
  exit_thread()
}

/* The one thread of node 0 or 1: its frames and lists are local state,
 * so each operation runs atomically, broken where it waits (the acks). */
proctype solo(byte n; byte t)
{
  THREAD_LOCALS;
#ifdef MP
  if
  :: t == 1 || MP == 2 ->       /* the byte, then flag[t].store(release) */
     atomic { i = (t == 1 -> 0 : 4); op = 1; access(i, 0) };
     atomic { release(2) }
  :: else
  fi;
#else
  do
  :: k < (t == 0 -> NCS0 : NCS1) ->
     atomic { acquire(1) };     /* lock                                  */
     atomic { access(i, 1) };
     atomic { release(1) };     /* unlock                                */
     k++
  :: else -> break
  od;
  k = 0;
#endif
  atomic { release(0) };        /* thread exit                           */
  exit_thread()
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

#ifdef V2
/* P6, the list invariant (DESIGN s.4.1): a page of node 2 that is
 * read-only or dirty and unlocked is on cached, or taken from it by an
 * acquire that has not locked it yet.  P7, the own-diff invariant: while
 * home h is between batches and its count is the one node n caught up
 * with, a page node n caches from h has the home's version. */
#define LISTED(p) (nd[2].st[p] == INVALID || nd[2].pl[p] != 0 || \
                   ((nd[2].cached | nd[2].tk) & BIT(p)) != 0)
#define CURRENT(m, h) (applying[h] || notices[h] != nd[m].sn[h] || \
                       nd[m].st[h] == INVALID || nd[m].cv[h] == ver[h])
#if !defined(NO_P6) || !defined(NO_P7)
proctype monitor()
{
end_watch:
  do
#ifndef NO_P6
  :: atomic { !(LISTED(0) && LISTED(1)) -> assert(false) }          /* P6 */
#endif
#ifndef NO_P7
  :: atomic { !(CURRENT(0, 1) && CURRENT(1, 0) && CURRENT(2, 0) &&
                CURRENT(2, 1)) -> assert(false) }                   /* P7 */
#endif
  od
}
#endif
#endif

init
{
  atomic {
#ifdef V2
    byte k;
    do                                          /* no notice in any slot */
    :: k < NP*CAP -> ringno[k] = NONE; k++
    :: else -> break
    od;
    k = 0;
#if !defined(NO_P6) || !defined(NO_P7)
    run monitor();
#endif
#endif
    run home_server(homeq[0], 0);
    run home_server(homeq[1], 1);
    run solo(0, 0);
    run solo(1, 1);
    run worker(2, 2);
    run worker(2, 3);
    run final_check()
  }
}
