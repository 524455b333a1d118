/*
 * futex.pml -- SPIN model of dstd's cluster futex (runtime/sync/
 * home_futex.cpp, docs/DESIGN.md s.5.3) with the one remote-unpark path it
 * wakes through (runtime/sched/remote_wake.cpp), the park/unpark handshake
 * and wake mark it blocks on (runtime/sched/scheduler.cpp, DESIGN s.5.1),
 * the completion a remote call parks on (runtime/transport/transport.cpp),
 * and the lock built beside it (include/dstd/bits/lock_word.hpp and
 * runtime/sync/home_lock.cpp, whose contended paths are
 * runtime/sync/home_mutex.cpp: the line of waiters at the word's home),
 * and the two types whose gate is that lock on two bits of a wider word
 * (include/dstd/bits/shared_mutex.hpp, semaphore.hpp).
 * tests/model/README.md explains how to run it; run_spin.sh does.
 *
 * What is modelled
 * ----------------
 * 3 nodes.  One futex word w, homed on node 0, with its wait queue (the
 * wait table's deque for w) at node 0.  Thread t (t = 0, 1, 2) runs on
 * node t: thread 0 is a waiter and waker on the home node (local path:
 * it takes the wait-table lock itself), threads 1 and 2 reach the home
 * through messages.  Every node has a service thread: node 0's runs the
 * futex_wait / futex_cancel / futex_wake handlers, nodes 1 and 2's run
 * wake_waiter and complete their threads' calls (a reply travels on the
 * same ring as the wake_waiter messages, so it is handled in the same
 * order).  Channels: one FIFO per ordered pair (node -> home, home ->
 * node), as the shm rings give; several threads of one node may post to
 * the same ring (node 0's thread 0 and its service thread both post
 * wake_waiter messages and replies to nodes 1 and 2).  Word operations
 * (CPU atomics at home, transport atomics elsewhere) are single atomic
 * steps; everything is sequentially consistent (DESIGN s.5.1: every
 * park-state access is seq_cst, and so are the mark's store and load).
 *
 * A waiter is named by (node, id); here thread t is waiter t of node t.
 * Each wait takes a ticket from its node's counter (next_ticket(): 1, 2,
 * ...; one thread per node, so tk[t] is both the counter and the current
 * wait's ticket).  Tickets of waits on different nodes collide (each
 * node's first wait has ticket 1), as in the runtime.  A queue entry is
 * (waiter, ticket); a wake leaves the ticket as the waiter's wake mark.
 *
 * Runtime functions mirrored
 *   enqueue_if_unchanged  -> one atomic step under the wait-table lock:
 *                            compare w with `expected`, push the entry
 *                            (home thread directly; service thread for
 *                            a futex_wait call, then the reply)
 *   dequeue               -> one atomic step: remove the entry whose
 *                            waiter and ticket are the caller's, if present
 *                            (futex_cancel call, or directly at home)
 *   wake_at_home          -> wake_pop (one step under the lock: pop up to
 *                            n entries into a local list), then
 *                            wake_deliver: sched::wake(who, ticket) for
 *                            each, in order
 *   sched::wake (remote_wake.cpp) -> wake_here if the waiter is on node 0,
 *                            else post wake_waiter (id, mark)
 *   wake_here / on_wake, unpark_with_mark
 *                         -> mark := ticket (one step), then unpark
 *   wait_impl             -> futex_wait: mine = (name, next_ticket()),
 *                            queue, then loop until wake_mark() == ticket:
 *                            park (untimed) or park_until, and on timeout
 *                            (mark not ours, now >= deadline) unqueue; if
 *                            a wake took the entry, park until the mark is
 *                            ours
 *   queue / unqueue       -> at home directly, else call_home
 *   call (typed_handler.hpp) with completion expect / wait / finish
 *                         -> call_home: post; a fiber parks until the
 *                            reply's finish (announce the parked bit,
 *                            park, re-check; finish: count 0, then unpark
 *                            if the bit was set); a thread that runs no
 *                            fiber blocks on the completion's word
 *   home_futex::wake      -> wake: wake_at_home at home, else post
 *                            futex_wake (no waiting)
 *   sched::park, unpark, the worker's half of park (worker_loop),
 *   park_until (timer registration, erase after), the timers
 *                         -> park, unpark, park_until, proctype timer
 *   park_thread (a waiter that runs no fiber: main before run_main_on_
 *   fiber, a plain std::thread) -> park with OS_THREADS
 *   lock_word take / take_until / give, home_lock lock / unlock (the
 *   same code: CAS 0->1, else home_mutex::lock; CAS 1->0, else
 *   home_mutex::unlock)
 *                         -> lock_take, lock_give
 *   lock_bits<Shift>::try_take / take / give (the gate: the state at bit
 *   Shift of a word whose other bits are the type's; CAS loops that keep
 *   them, one step each: a failed CAS only re-reads)
 *                         -> gate_try_take, gate_take, gate_give_cas,
 *                            gate_give_rest, gate_give (GST, GCHANGE)
 *   home_mutex's request_here, cancel_here, unlock_here (one step each
 *   under the table lock; unlock_here's wake after it; lock_state's
 *   change() and store() change only the word's two bits at the shift)
 *                         -> request_here, cancel_here, unlock_here; the
 *                            line is the queue lq/lqt (the lock table's,
 *                            apart from the futex's wait queue q/qt),
 *                            `cm`/`cmt` (the waiter woken without the
 *                            lock, coming back, and its mark), `heldfor`
 *                            and `passes`; GCHANGE (change) and GSTORE
 *                            (store) keep the word's other bits
 *   home_mutex::lock (request; park_until_marked, cancel on timeout; come
 *   back after a plain wake with a fresh mark)
 *                         -> mutex_lock (mark tk[t]: come back; tk[t]+1:
 *                            the lock is yours; tickets step by 2)
 *   latch count_down / wait (-DLATCH) -> latch_arrive_and_wait
 *   wait_for_change (sync_core.hpp: false at once if the deadline passed,
 *   else wait_while_equal(_until), whose result it drops) and wait_impl
 *   (atomic_runtime.cpp: load the word; if unchanged, home_futex::wait
 *   (_until) with it)  -> the deadline check in the callers, wait_impl
 *   wake_waiters(w, all) -> wake(ALL) / wake(1)
 *   basic_shared_mutex (-DSHARED_MUTEX): enter_as_reader + take_shared,
 *   unlock_shared, take_exclusive, unlock
 *                         -> sm_lock_shared, sm_unlock_shared, sm_lock,
 *                            the writer's give in thread()
 *   counting_semaphore (-DSEMAPHORE): try_acquire, take, release
 *                         -> sem_try_acquire, sem_acquire, sem_release
 *
 * The park state of each waiter is the scheduler's: RUNNING, PARKING
 * (switching away to its worker), PARKED, NOTIFIED (one permit), DEAD
 * (finished).  A PARKED fiber runs again once an unpark has moved it to
 * RUNNING (make_ready).  A timer: the deadline passes at any moment while
 * a timed call is in progress (expired[t]); a worker then takes the
 * fiber's timer if it is registered (armed[t]) and unparks the fiber, so a
 * timer's unpark may land late, in a later park (a spurious wake-up).  So
 * may a call's unpark (finish() unparks after the count reaches 0, when
 * the caller may already have returned), and a wake's (the waiter returns
 * once it sees its mark, before the unpark that follows it); and a wake's
 * unpark may be taken by the park of a call the waiter is in.
 *
 * Clients (default: the mutex)
 *   Each thread runs NCS rounds of lock; critical section; unlock on one
 *   lock_word (w: 0 free, 1 held, 2 held and contended, 3 free while the
 *   head of the line comes back).  Threads in TIMED (a bit mask, default
 *   thread 1) use take_until, which may give up, instead of take.
 *   Threads in OS_THREADS (mask, default none) park as plain threads
 *   (park_thread) instead of fibers.  MAXP is home_mutex's max_passes
 *   (default 1, to reach hand-offs in few rounds).
 *   -DLATCH: instead, a latch of count 3: every thread counts down once
 *   (the last one wakes all), then waits until the count is 0; a thread
 *   in TIMED gives up at its deadline (as the timed waits of semaphores
 *   and condition variables do; std::latch has none).
 *   -DSHARED_MUTEX: instead, a shared mutex: w holds the gate in bits
 *   0-1 and the reader count above (one_reader = 4).  Threads in WRITERS
 *   (mask, default 2: thread 1) run NCS rounds of lock / unlock, the
 *   others of lock_shared / unlock_shared; timed ones (TIMED) use the
 *   try_..._until forms, which may give up (in the gate's line, or a
 *   writer waiting for the readers, who then gives the gate back).
 *   Steps (shared_mutex.hpp): enter_as_reader's CAS loop (one step:
 *   readers + 1 if the gate is free); else gate::take (try_take's CAS,
 *   else home_mutex::lock through the line); fetch_add(one_reader);
 *   gate::give (CAS held -> free, else unlock_contended).  unlock_shared:
 *   fetch_sub(one_reader); if it was the last reader and the gate was
 *   taken, wake_waiters(all).  take_exclusive: gate::take; then loop:
 *   load; no readers -> in; else wait_for_change (deadline passed: give
 *   the gate, false; else wait_impl: load, and if unchanged the futex
 *   wait on the whole word).  unlock: gate::give.
 *   -DSEMAPHORE: instead, a semaphore: w holds the gate in bits 6-7 (the
 *   code's bits 62-63) and the count below; initially SEM_INIT (default
 *   1; with 0, thread 0 first releases one unit).  Each thread runs NCS
 *   rounds of acquire / release (timed ones: try_acquire_until).  Steps
 *   (semaphore.hpp): try_acquire (load and CAS loop: one step, count - 1
 *   if the gate is free and the count > 0); else gate::take; load; loop:
 *   count > 0 -> CAS w - 1 from the word seen (on failure the word seen
 *   is the new one; go on), break; count 0 -> deadline passed: break;
 *   else wait_impl, load; then gate::give.  release: fetch_add(1); if
 *   the gate was taken, wake_waiters(one).
 *
 * Properties
 *   P1  mutual exclusion (assertion in the critical section);
 *   P2  no lost wake-up: pan's invalid-end-state check (every thread must
 *       finish; a thread parked forever, waiting for a wake that is not
 *       coming, is a deadlock; service threads and timers may wait for
 *       ever: end labels);
 *   P3  a wake lands in the wait it was for: when a mark is left,
 *       assert(live[t] && (tk[t] == mark || tk[t] + 1 == mark)) (the
 *       waiter is still in the wait that queued the entry; otherwise the
 *       wake went to a waiter that has gone, and is lost to the others).  Also: when a wait starts,
 *       nothing may still refer to the previous one (no queue entry, no
 *       taken entry, no wake_waiter in flight whose mark is not left yet:
 *       ghost ref[t]).
 *   P4  bounded passing: the head of a lock's line is passed over at
 *       most MAXP times (assertion where a request takes a lock that is
 *       free while the head comes back).
 *   P5  a head that came back and found the lock taken is passed over no
 *       more: the next unlock gives it the lock (same assertion; the
 *       ghost `rebuffed` is set when it comes back for nothing, cleared
 *       when it gets the lock or leaves the line).
 *   P1 for the gated types: a writer enters with no reader counted in and
 *       no writer inside; a reader is counted in with no writer inside; at
 *       most SEM_UNITS threads hold a semaphore unit.  Unit and reader
 *       conservation: the word's count (readers, or units) equals a ghost
 *       kept beside it (nr: readers counted in; units: initial + releases
 *       - acquires), asserted at each of the type's own accesses to the
 *       word, and a semaphore's count is > 0 whenever a unit is taken.
 *   Once nothing can move (timeout) and every thread finished: no queue
 *   entry, no line, the lock free, the word 0 (mutex, latch, shared
 *   mutex) or the count SEM_UNITS (semaphore).
 *
 * Options (spin -DNAME)
 *   NCS=n            mutex rounds per thread (default 1); NCS0, NCS1,
 *                    NCS2 set one thread's
 *   TIMED=mask       threads that use take_until (default 2: thread 1)
 *   OS_THREADS=mask  threads that park as non-fiber threads (default 0)
 *   MAXP=n           the passes the head of the line allows (default 1)
 *   LATCH            the latch client instead of the mutex
 *   SHARED_MUTEX     the shared mutex client; WRITERS=mask its writers
 *                    (default 2: thread 1)
 *   SEMAPHORE        the semaphore client; SEM_INIT=n its initial count
 *                    (default 1; 0: thread 0 releases a unit first)
 * Options: deliberately broken protocols (SPIN must find an error)
 *   BUG_CHECK_OUTSIDE_LOCK   the home compares the word, then enqueues in
 *                            a separate step (a wake can run in between)
 *   BUG_NO_HANDOFF           unlock_here never gives the lock to the head
 *                            directly (passes are not bounded: P4)
 *   BUG_PASS_AFTER_RETURN    a head that came back for nothing may be
 *                            passed over again, up to MAXP in all (P5;
 *                            with MAXP=1 the same as the code)
 *   BUG_TIMED_OUT_STAYS_AWAY a waiter woken to come back does not once its
 *                            deadline has passed (the lock stays promised
 *                            to it: the others wait for ever)
 *   BUG_TIMEOUT_RETURNS_AT_ONCE  a timed-out waiter whose cancel finds the
 *                            entry gone (a wake took it) returns at once
 *                            instead of waiting for its mark
 *   BUG_NO_PERMIT            unpark of a RUNNING waiter is dropped (no
 *                            NOTIFIED permit)
 *   BUG_UNPARK_BEFORE_MARK   unpark_with_mark unparks first, then leaves
 *                            the mark
 *   BUG_ANY_MARK             a waiter takes any mark as its wake
 *                            (wake_mark() != 0), not its own ticket: the
 *                            mark of its previous wait stays
 *   BUG_DEQUEUE_BY_TICKET_ONLY  dequeue matches the entry's ticket alone,
 *                            not its waiter (tickets are per node)
 *   BUG_LAST_READER_NO_WAKE  unlock_shared never wakes (a writer waiting
 *                            for the readers sleeps for ever; needs an
 *                            untimed writer)
 *   BUG_SEM_RELEASE_NO_WAKE  release never wakes the gate's holder
 *   BUG_GATE_CLOBBERS_OTHER_BITS  home_mutex's lock_state::store writes
 *                            the whole word (the state alone), dropping
 *                            the readers or the count
 *   BUG_READER_IGNORES_GATE  enter_as_reader's CAS does not check the
 *                            gate: a reader comes in past a writer
 *
 * Step granularity: a step holds at most one access to a shared variable
 * that is not protected by a lock, plus local work; a critical section of
 * the wait-table lock touches only the table and one load of w, so it is
 * one step (lock: right mover, unlock: left mover).  Receiving a message
 * (one consumer per channel) is a right mover and is merged with what the
 * handler does next; sends are not merged with what follows, since two
 * threads of node 0 post to the same rings (a call's expect, local work
 * before its post, is merged with the post).  A completion's done() is
 * merged with announce()'s load and CAS (count 0 stays 0, so done()
 * seeing 0 and announce seeing 0 are the same outcome).  The ghosts (live,
 * ref, incs) and the timer's view of a call (tactive: it has a deadline)
 * are set in whatever step is nearest; nothing but the timer reads
 * tactive.  The gated types: every access of the type to the word is a
 * step of its own (a load, a fetch_add / fetch_sub, a CAS), except the
 * CAS loops whose failed iterations only re-read the word (try_take,
 * give, enter_as_reader, try_acquire): each is one step, at its last
 * access.  The deadline check of wait_for_change reads only the clock.
 */

/* ---------------------------------------------------------------- bounds */
#if defined(SHARED_MUTEX) + defined(SEMAPHORE) + defined(LATCH) > 1
#error "choose one client: LATCH, SHARED_MUTEX or SEMAPHORE"
#endif
#ifndef NCS
#define NCS 1           /* mutex rounds per thread                        */
#endif
#ifndef NCS0
#define NCS0 NCS        /* ... of thread 0 (on the home node)             */
#endif
#ifndef NCS1
#define NCS1 NCS
#endif
#ifndef NCS2
#define NCS2 NCS
#endif
#define ROUNDS(t) ((t) == 0 -> NCS0 : ((t) == 1 -> NCS1 : NCS2))
#ifndef TIMED
#define TIMED 2         /* thread 1 */
#endif
#ifndef MAXP
#define MAXP 1          /* home_mutex::max_passes                         */
#endif
#ifndef OS_THREADS
#define OS_THREADS 0
#endif

#ifndef WRITERS
#define WRITERS 2       /* SHARED_MUTEX: the writers (mask; thread 1)     */
#endif
#ifndef SEM_INIT
#define SEM_INIT 1      /* SEMAPHORE: the initial count (0: thread 0      */
#endif                  /* releases a unit first)                         */
#define SEM_UNITS (SEM_INIT + (SEM_INIT == 0))   /* units in circulation  */

/* The lock's state in the word: two bits at GS (lock_bits<Shift>); the
 * word's other bits are its type's.  A mutex's word is the state alone;
 * a shared mutex keeps it at bit 0 and its readers above (one_reader =
 * 4); a semaphore keeps it in the top two bits (shift 62; the model's
 * word is a byte: bits 6-7) and its count below. */
#ifdef SEMAPHORE
#define GS 6
#else
#define GS 0
#endif
#define GST(v) (((v) >> GS) & 3)                 /* lock_state::of        */
#define WITH(v, st) (((v) & (255 - (3 << GS))) | ((st) << GS))
#define GCHANGE(st) w = WITH(w, st)              /* change(): a CAS from  */
                                                 /* the word seen          */
#ifdef BUG_GATE_CLOBBERS_OTHER_BITS
#define GSTORE(st) w = (st) << GS                /* the whole word        */
#else
#define GSTORE(st) w = WITH(w, st)               /* store(): a CAS loop   */
#endif
#define ONE_READER 4
#define NRD(v) ((v) >> 2)                        /* readers               */
#define CNT(v) ((v) & 63)                        /* the semaphore's count */

#define NN 3            /* nodes                                          */
#define NT 3            /* threads; thread t runs on node t               */
#define HOME 0          /* the word's home                                */
#define NODE(t) (t)
#define CAP 4           /* ring capacity in messages (never reached)      */
#define ALL 255         /* wake count: all                                */

/* Park states (scheduler.cpp). */
#define RUNNING  0
#define PARKING  1
#define PARKED   2
#define NOTIFIED 3
#define DEAD     4

/* Messages: type, thread (the waiter's id; its node is the thread's),
 * argument, ticket. */
#define M_WAIT   1      /* node -> home: futex_wait call, arg = expected  */
#define M_CANCEL 2      /* node -> home: futex_cancel call                */
#define M_WAKE   3      /* node -> home: futex_wake, arg = count          */
#define M_REPLY  4      /* home -> node: reply to thread's call, arg      */
#define M_WAKE_WAITER 5 /* home -> node: wake_waiter, ticket = the mark   */
#define M_LOCK   6      /* node -> home: mutex_lock call, arg = returning */
#define M_LCANCEL 7     /* node -> home: mutex_cancel call                */
#define M_UNLOCK 8      /* node -> home: mutex_unlock                     */

chan c2h[NN] = [CAP] of { byte, byte, byte, byte };  /* node n -> home    */
chan h2c[NN] = [CAP] of { byte, byte, byte, byte };  /* home -> node n    */

byte w;                 /* the futex word (the lock word / latch count)   */
byte q[NT];             /* its wait queue at the home: entries (waiter,   */
byte qt[NT];            /* ticket), oldest first                          */
byte qlen;
byte lq[NT];            /* the lock's line at the home (home_mutex's      */
byte lqt[NT];           /* table): the queue, oldest first, ...           */
byte lqlen;
byte cm;                /* the lock's line: the head woken to come back   */
byte cmt;               /* (waiter + 1, 0: none) and its mark; the lock   */
bit  heldfor;           /* held for it; passes of the head                */
byte passes;
bit  rebuffed;          /* ghost: the head came back and found it taken   */

byte pst[NT];           /* park states                                    */
byte mark[NT];          /* the waiter's wake mark (0: none yet)           */
byte tk[NT];            /* the node's ticket counter = the current wait's */
bit  ccnt[NT];          /* the completion of thread t's call: its count,  */
bit  cpk[NT];           /* its parked bit                                 */
bit  reply[NT];         /* and the call's reply                           */
bit  tactive[NT];       /* a timed call is running (it has a deadline)    */
bit  expired[NT];       /* ... and its deadline has passed                */
bit  armed[NT];         /* the fiber's timer is registered                */

bit  live[NT];          /* ghost: thread t is inside a wait               */
bit  ref[NT];           /* ghost: something refers to t's wait: a queue   */
                        /* entry, a taken entry, a wake_waiter in flight  */
bit  incs;              /* ghost: a thread is in the critical section     */
                        /* (SHARED_MUTEX: a writer)                       */
byte nr;                /* ghost (SHARED_MUTEX): readers counted in       */
byte units;             /* ghost (SEMAPHORE): the count the word must     */
                        /* hold (initial + releases - acquires)           */
byte hold;              /* ghost (SEMAPHORE): threads holding a unit      */

/* ------------------------------------------------------ park and unpark */

/* sched::unpark(u): one CAS loop, so one atomic step. */
inline unpark(u)
{
  atomic {
    if
    :: pst[u] == PARKED -> pst[u] = RUNNING     /* make_ready / futex wake */
    :: pst[u] == NOTIFIED || pst[u] == DEAD -> skip
#ifdef BUG_NO_PERMIT
    :: pst[u] == RUNNING -> skip                /* the permit is dropped   */
    :: pst[u] == PARKING -> pst[u] = NOTIFIED
#else
    :: pst[u] == RUNNING || pst[u] == PARKING -> pst[u] = NOTIFIED
#endif
    fi
  }
}

/* sched::park() of thread t (locals: pk, os). */
inline park()
{
  if
  :: !os ->
     /* the fiber: CAS running -> parking, or consume the permit */
     atomic {
       if
       :: pst[t] == RUNNING -> pst[t] = PARKING; pk = 1
       :: else -> pst[t] = RUNNING                /* exchange(running)    */
       fi
     };
     if
     :: pk ->
        /* its worker (worker_loop): CAS parking -> parked, or, if an
         * unpark came while it was switching, requeue it; a parked fiber
         * runs again once unparked */
        atomic {
          pk = 0;
          if
          :: pst[t] == PARKING -> pst[t] = PARKED; pst[t] != PARKED
          :: else -> pst[t] = RUNNING
          fi
        }
     :: else
     fi
  :: os ->
     /* park_thread: CAS running -> parked, or consume the permit; sleep
      * while parked */
     atomic {
       if
       :: pst[t] == RUNNING -> pst[t] = PARKED; pst[t] != PARKED
       :: else -> pst[t] = RUNNING
       fi
     }
  fi
}

/* sched::park_until(deadline) of thread t. */
inline park_until()
{
  if
  :: !os ->
     if
     :: expired[t] -> skip                      /* now >= deadline         */
     :: else ->
        armed[t] = 1;                           /* timers.emplace          */
        park();
        armed[t] = 0                            /* erase it if still there */
     fi
  :: os ->
     /* park_thread(timed): sleep while parked and before the deadline;
      * then CAS parked -> running (an unpark may have come first) */
     atomic {
       if
       :: pst[t] == RUNNING -> pst[t] = PARKED; pk = 1
       :: else -> pst[t] = RUNNING
       fi
     };
     if
     :: pk ->
        atomic {
          pk = 0;
          pst[t] != PARKED || expired[t];
          if :: pst[t] == PARKED -> pst[t] = RUNNING :: else fi
        }
     :: else
     fi
  fi
}

/* The timers of thread t: its deadline passes at some moment of a timed
 * call; then a worker takes the fiber's timer, if registered, and unparks
 * the fiber (take_due_timers, then unpark, outside the lock). */
proctype timer(byte t)
{
end_timer:
  do
  :: atomic { tactive[t] && !expired[t] -> expired[t] = 1 }
  :: atomic { armed[t] && expired[t] -> armed[t] = 0 };
     unpark(t)
  od
}

/* The mark's store in unpark_with_mark(u, m) (P3: the wait it is for is
 * the waiter's current one). */
inline leave_mark(u, m)
{
  assert(live[u] && (tk[u] == m || tk[u] + 1 == m)); mark[u] = m; ref[u] = 0
}

/* unpark_with_mark(u, m): the mark, then the unpark. */
inline unpark_with_mark(u, m)
{
#ifdef BUG_UNPARK_BEFORE_MARK
  unpark(u);
  atomic { leave_mark(u, m) }
#else
  atomic { leave_mark(u, m) };
  unpark(u)
#endif
}

/* ------------------------------------------------------ the wait table */

/* The queues: the futex's wait queue (q, qt, qlen) and the lock's line
 * (lq, lqt, lqlen) are two tables at the home, each under its own lock
 * (wait_table, lock_table); the operations below are written once for
 * both (cpp macros: Promela's inlines take no array names). */

/* Under the table's lock: append (u, tkt). */
#define ENQUEUE_IN(Q, QT, QL, u, tkt) \
  Q[QL] = u; QT[QL] = tkt; QL++; ref[u] = 1
inline enqueue(u, tkt) { ENQUEUE_IN(q, qt, qlen, u, tkt) }
inline line_enqueue(u, tkt) { ENQUEUE_IN(lq, lqt, lqlen, u, tkt) }

/* dequeue(word, mine): remove the entry whose waiter is u and whose ticket
 * is tkt (BUG_DEQUEUE_BY_TICKET_ONLY: the first entry with that ticket);
 * res = found.  (home_mutex's cancel_here finds its entry the same way.) */
#ifndef BUG_DEQUEUE_BY_TICKET_ONLY
#define MATCHES(Q, QT, u, tkt) (Q[k] == u && QT[k] == tkt)
#else
#define MATCHES(Q, QT, u, tkt) (QT[k] == tkt)
#endif
#define DEQUEUE_IN(Q, QT, QL, u, tkt) \
  res = 0; k = 0; \
  do \
  :: k < QL && MATCHES(Q, QT, u, tkt) -> res = 1; break \
  :: k < QL && !MATCHES(Q, QT, u, tkt) -> k++ \
  :: k >= QL -> break \
  od; \
  if \
  :: res -> \
     ref[Q[k]] = 0; \
     do \
     :: k + 1 < QL -> Q[k] = Q[k + 1]; QT[k] = QT[k + 1]; k++ \
     :: else -> break \
     od; \
     QL--; Q[QL] = 0; QT[QL] = 0 \
  :: else \
  fi; \
  k = 0
inline dequeue(u, tkt) { DEQUEUE_IN(q, qt, qlen, u, tkt) }
inline line_dequeue(u, tkt) { DEQUEUE_IN(lq, lqt, lqlen, u, tkt) }

/* wake_at_home, the part under the lock: take up to cnt entries (and
 * unlock_here's pop of the line's front). */
#define POP_IN(Q, QT, QL, cnt) \
  k = 0; \
  do \
  :: k < cnt && QL > 0 -> \
     taken[ntaken] = Q[0]; takent[ntaken] = QT[0]; ntaken++; \
     Q[0] = Q[1]; Q[1] = Q[2]; Q[2] = 0; \
     QT[0] = QT[1]; QT[1] = QT[2]; QT[2] = 0; \
     QL--; k++ \
  :: else -> break \
  od; \
  k = 0
inline wake_pop(cnt) { POP_IN(q, qt, qlen, cnt) }
inline line_pop() { POP_IN(lq, lqt, lqlen, 1) }

/* wake_at_home, after the lock: sched::wake(who, ticket) for each taken
 * entry, in order: wake_here on node 0, else a wake_waiter message. */
inline wake_deliver()
{
  k = 0;
  do
  :: k < ntaken && NODE(taken[k]) == HOME ->
     u = taken[k];
     unpark_with_mark(u, takent[k]);
     atomic { taken[k] = 0; takent[k] = 0; k++; u = 0 }
  :: atomic {
       k < ntaken && NODE(taken[k]) != HOME ->
       h2c[NODE(taken[k])] ! M_WAKE_WAITER, taken[k], 0, takent[k];
       taken[k] = 0; takent[k] = 0; k++
     }
  :: else -> break
  od;
  k = 0; ntaken = 0
}

/* ----------------------------------------------- the lock's line (home) */

/* Under the table lock: put (u, tkt) at the head of the queue. */
inline push_front(u_, tkt_)
{
  k = lqlen;
  do
  :: k > 0 -> lq[k] = lq[k - 1]; lqt[k] = lqt[k - 1]; k--
  :: else -> break
  od;
  lq[0] = u_; lqt[0] = tkt_; lqlen++; ref[u_] = 1
}

/* home_mutex's request_here(word, shift, (rw, rt), ret), one step under
 * the table lock: res = 1 (the lock is the caller's) or 0 (queued).  The
 * word's state is GST(w); lock_state's change() (a CAS from the word
 * seen) and store() (a CAS loop) keep the other bits (GCHANGE, GSTORE).
 * The code's loop of loads and CASes is one step: a failed CAS only
 * re-reads, and the state cannot leave 3 (or a held state with the line
 * at its head) but under this lock: the fast paths need 0 (take) or 1
 * (give). */
inline request_here(rw, rt, ret)
{
  if
  :: ret ->
     assert(cm == rw + 1);                      /* it was woken to come back */
     ok = heldfor; cm = 0; cmt = 0; heldfor = 0;
     if
     :: ok || GST(w) == 3 ->
        passes = 0; rebuffed = 0; res = 1;
        if :: lqlen == 0 -> GSTORE(1) :: else -> GSTORE(2) fi  /* held_state */
     :: else -> assert(GST(w) == 2); push_front(rw, rt); res = 0;
#ifndef BUG_PASS_AFTER_RETURN
        passes = MAXP;                          /* passed over no more   */
#endif
        rebuffed = 1
     fi;
     ok = 0
  :: !ret ->
     if
     :: GST(w) == 0 -> GCHANGE(1); res = 1
     :: GST(w) == 1 || GST(w) == 2 -> GCHANGE(2); line_enqueue(rw, rt); res = 0
     :: GST(w) == 3 -> GSTORE(2); passes++; assert(passes <= MAXP && !rebuffed); res = 1   /* P4, P5 */
     fi
  fi
}

/* cancel_here(word, (cw, ct)): res = 1 if it was still queued. */
inline cancel_here(cw, ct)
{
  ok = (lqlen > 0 && lq[0] == cw && lqt[0] == ct && cm == 0);
  line_dequeue(cw, ct);
  if :: res && ok -> passes = 0; rebuffed = 0 :: else fi;     /* the head left */
  ok = 0
}

/* unlock_here(word), the part under the lock; the wake it decides is left
 * in taken/takent for wake_deliver. */
inline unlock_here()
{
  if
  :: cm != 0 ->
     if
#ifndef BUG_NO_HANDOFF
     :: passes >= MAXP -> heldfor = 1           /* held for the head      */
#endif
     :: else -> GSTORE(3)                       /* free while it comes    */
     fi
  :: cm == 0 && lqlen == 0 -> GSTORE(0)         /* no line (timed out)    */
  :: cm == 0 && lqlen > 0 ->
     line_pop();
     if
#ifndef BUG_NO_HANDOFF
     :: passes >= MAXP ->                       /* the lock is the head's */
        takent[0] = takent[0] + 1; passes = 0; rebuffed = 0;
        if :: lqlen == 0 -> GSTORE(1) :: else -> GSTORE(2) fi
#endif
     :: else -> cm = taken[0] + 1; cmt = takent[0]; GSTORE(3)   /* come back */
     fi
  fi
}

/* ------------------------------------------------------- the home node */

/* Node 0's service thread: futex_wait, futex_cancel, futex_wake, and
 * home_mutex's mutex_lock, mutex_cancel, mutex_unlock. */
proctype home_service()
{
  byte typ, t, a, tkt, res, k, u, ntaken;
  byte taken[NT], takent[NT];
  bit ok;
end_home:
  do
  :: atomic {
       if
       :: c2h[1] ? typ, t, a, tkt
       :: c2h[2] ? typ, t, a, tkt
       fi;
       if
       :: typ == M_WAIT ->                      /* on_wait               */
#ifdef BUG_CHECK_OUTSIDE_LOCK
          ok = (w == a)
#else
          if
          :: w == a -> enqueue(t, tkt); res = 1
          :: else -> res = 0
          fi
#endif
       :: typ == M_CANCEL -> dequeue(t, tkt)    /* on_cancel             */
       :: typ == M_WAKE -> wake_pop(a)          /* on_wake               */
       :: typ == M_LOCK -> request_here(t, tkt, a)   /* home_mutex        */
       :: typ == M_LCANCEL -> cancel_here(t, tkt)
       :: typ == M_UNLOCK -> unlock_here()
       fi;
       a = 0
     };
#ifdef BUG_CHECK_OUTSIDE_LOCK
     if
     :: typ == M_WAIT -> atomic { if :: ok -> enqueue(t, tkt) :: else fi; res = ok; ok = 0 }
     :: else
     fi;
#endif
     if
     :: typ == M_WAKE || typ == M_UNLOCK -> wake_deliver(); atomic { typ = 0; t = 0; tkt = 0 }
     :: else -> atomic { h2c[NODE(t)] ! M_REPLY, t, res, 0; typ = 0; t = 0; res = 0; tkt = 0 }
     fi
  od
}

/* Node n's service thread (n > 0): replies (the completion's finish) and
 * wake_waiter (remote_wake.cpp's on_wake -> wake_here). */
proctype node_service(byte n)
{
  byte typ, t, a, tkt;
end_node:
  do
  :: atomic {
       h2c[n] ? typ, t, a, tkt;
       if
       :: typ == M_REPLY ->
          /* the reply's bytes, then finish(): fetch_sub, which returns
           * the parked bit */
          reply[t] = a; ccnt[t] = 0; a = cpk[t]
       :: typ == M_WAKE_WAITER ->
#ifdef BUG_UNPARK_BEFORE_MARK
          skip
#else
          leave_mark(t, tkt)
#endif
       fi
     };
     if
     :: typ == M_REPLY ->
        if :: a -> unpark(t) :: else fi;        /* finish(): the waiter   */
        atomic { typ = 0; t = 0; a = 0 }
     :: typ == M_WAKE_WAITER ->
#ifdef BUG_UNPARK_BEFORE_MARK
        unpark(t);
        atomic { leave_mark(t, tkt) };
#else
        unpark(t);
#endif
        atomic { typ = 0; t = 0; tkt = 0 }
     fi
  od
}

/* ------------------------------------------------------------- waiters */

/* A transport call from thread t to the home (typed call(): expect, post,
 * completion wait).  A fiber parks until the reply's finish() (announce
 * the parked bit while the count is not 0, park, re-check); a thread that
 * runs no fiber blocks on the completion's word (no park state). */
inline call_home(typ_, arg_)
{
  atomic { ccnt[t] = 1; c2h[n] ! typ_, t, arg_, tk[t] };   /* expect; post */
  do
  :: atomic {                                   /* done(): the reply       */
       ccnt[t] == 0 -> res = reply[t]; reply[t] = 0; cpk[t] = 0
     };
     break
  :: atomic { !os && ccnt[t] != 0 -> cpk[t] = 1 };   /* announce(parked_bit) */
     park()
  od
}

/* The waiter's check: its wake mark is this wait's ticket. */
#ifdef BUG_ANY_MARK
#define WOKEN (mark[t] != 0)
#else
#define WOKEN (mark[t] == tk[t])
#endif

/* home_futex::wait / wait_until (wait_impl) of thread t on w. */
inline futex_wait(expected)
{
  atomic {                                      /* mine{name, next_ticket()} */
    assert(!ref[t]);                            /* P3: the last wait is over */
    live[t] = 1; tk[t] = tk[t] + 2
  };
  /* queue */
  if
  :: n == HOME ->
#ifdef BUG_CHECK_OUTSIDE_LOCK
     ok = (w == expected);
     atomic { if :: ok -> enqueue(t, tk[t]) :: else fi; res = ok; ok = 0 }
#else
     atomic {
       if
       :: w == expected -> enqueue(t, tk[t]); res = 1
       :: else -> res = 0
       fi
     }
#endif
  :: n != HOME -> call_home(M_WAIT, expected)
  fi;
  if
  :: res == 0                                   /* not queued: changed     */
  :: res == 1 ->
     res = 0;
     do
     :: WOKEN -> break                          /* woken                   */
     :: !WOKEN && !timed -> park()
     :: !WOKEN && timed ->
        park_until();
        if
        :: WOKEN                                /* continue                */
        :: !WOKEN && !expired[t]                /* before the deadline     */
        :: !WOKEN && expired[t] ->
           /* unqueue */
           if
           :: n == HOME -> atomic { dequeue(t, tk[t]) }
           :: n != HOME -> call_home(M_CANCEL, 0)
           fi;
           if
           :: res -> res = 0; break             /* timed out, off the queue */
           :: !res ->
#ifdef BUG_TIMEOUT_RETURNS_AT_ONCE
              break
#else
              /* a wake took us: wait for it to land */
              do
              :: WOKEN -> break
              :: !WOKEN -> park()
              od;
              break
#endif
           fi
        fi
     od
  fi;
  live[t] = 0                                   /* the wait is over        */
}

/* home_futex::wake(w, cnt) by thread t. */
inline wake(cnt)
{
  if
  :: n == HOME -> atomic { wake_pop(cnt) }; wake_deliver()
  :: n != HOME -> c2h[n] ! M_WAKE, t, cnt, 0
  fi
}

/* -------------------------------------------------------------- clients */

/* The waiter's check in home_mutex::lock: its mark, or its mark + 1 (the
 * lock is its own). */
#ifdef BUG_ANY_MARK
#define WOKEN_M (mark[t] != 0)
#else
#define WOKEN_M (mark[t] == tk[t] || mark[t] == tk[t] + 1)
#endif

/* home_mutex::lock(w, deadline) of thread t: request; if queued,
 * park_until_marked (cancel at the deadline); a plain wake means come back
 * (returning, with a fresh mark), even past the deadline. */
inline mutex_lock()
{
  do
  :: atomic {                                   /* mine{name, fresh_mark()} */
       assert(!ref[t]);                         /* P3: the last wait is over */
       live[t] = 1; tk[t] = tk[t] + 2
     };
     if
     :: n == HOME -> atomic { request_here(t, tk[t], back) }
     :: n != HOME -> call_home(M_LOCK, back)
     fi;
     back = 0;
     if
     :: res == 1 -> res = 0; got = 1; live[t] = 0; break   /* the owner    */
     :: res == 0 ->
        do
        :: WOKEN_M -> break
        :: !WOKEN_M && !timed -> park()
        :: !WOKEN_M && timed ->
           park_until();
           if
           :: WOKEN_M
           :: !WOKEN_M && !expired[t]
           :: !WOKEN_M && expired[t] ->
              if
              :: n == HOME -> atomic { cancel_here(t, tk[t]) }
              :: n != HOME -> call_home(M_LCANCEL, 0)
              fi;
              if
              :: res -> break                   /* timed out, out of line  */
              :: !res ->
#ifdef BUG_TIMEOUT_RETURNS_AT_ONCE
                 break
#else
                 do                             /* a wake took us: wait    */
                 :: WOKEN_M -> break
                 :: !WOKEN_M -> park()
                 od;
                 break
#endif
              fi
           fi
        od;
        if
        :: res == 1 -> res = 0; live[t] = 0; break     /* false            */
        :: res == 0 && mark[t] == tk[t] + 1 -> got = 1; live[t] = 0; break
        :: res == 0 && mark[t] != tk[t] + 1 ->
#ifdef BUG_TIMED_OUT_STAYS_AWAY
           if :: timed && expired[t] -> live[t] = 0; break :: else fi;
#endif
           live[t] = 0; back = 1                /* come back for it        */
        fi
     fi
  od
}

/* lock_bits<GS>::try_take(w, guess), inside an atomic step: the code's
 * loop of CASes (v | held from v, while v's state is free) is one step,
 * since a failed CAS only re-reads: the state free -> held, the other bits
 * kept. */
inline gate_try_take()
{
  if :: GST(w) == 0 -> GCHANGE(1); got = 1 :: else fi
}

/* lock_bits<GS>::give's CAS loop (v & ~mask from v, while v's state is
 * held): one step, as above; old = 1 if it gave the lock. */
inline gate_give_cas()
{
  if :: GST(w) == 1 -> GCHANGE(0); old = 1 :: else fi
}

/* ... else unlock_contended: home_mutex::unlock (at home: unlock_here then
 * the wake; elsewhere a message). */
inline gate_give_rest()
{
  if
  :: old -> old = 0                             /* nobody waited           */
  :: else ->
     if
     :: n == HOME -> atomic { unlock_here() }; wake_deliver()
     :: n != HOME -> c2h[n] ! M_UNLOCK, t, 0, 0
     fi
  fi
}

/* lock_bits::take (try_take, else lock_contended: home_mutex::lock);
 * got = 1 if it took the lock. */
inline gate_take()
{
  atomic { gate_try_take() };
  if :: !got -> mutex_lock() :: else fi
}

/* lock_bits::give. */
inline gate_give()
{
  atomic { gate_give_cas() };
  gate_give_rest()
}

/* lock_word::take / take_until; home_lock::lock: CAS 0 -> 1, else
 * home_mutex::lock. */
inline lock_take()
{
  atomic {
    tactive[t] = timed;                         /* the deadline            */
    gate_try_take()                             /* try_take: CAS 0 -> 1    */
  };
  if
  :: !got -> mutex_lock()
  :: else
  fi;
  atomic { tactive[t] = 0; expired[t] = 0 }
}

/* lock_word::give; home_lock::unlock: CAS 1 -> 0, else home_mutex::unlock. */
inline lock_give()
{
  atomic { gate_give_cas() };                   /* CAS 1 -> 0              */
  gate_give_rest()
}

/* dstd::detail::wait_impl (atomic_runtime.cpp) for an 8-byte word, as
 * wait_for_change calls it once its deadline has not passed: load the
 * word; if it is still `seen`, home_futex::wait(_until)(w, word). */
inline wait_impl(seen)
{
  if
  :: w == seen -> futex_wait(seen)              /* hw::load: unchanged     */
  :: else                                       /* changed: return         */
  fi
}

/* ----------------------------------------- shared mutex (-DSHARED_MUTEX) */
/* shared_mutex.hpp: the gate at bit 0 (GS 0), the reader count above it
 * (one_reader = 4).  Ghosts: nr, the readers counted in (the count the
 * word must hold); incs, a writer inside. */

/* take_shared(until): enter_as_reader, else the gate, fetch_add, give. */
inline sm_lock_shared()
{
  atomic {                                      /* enter_as_reader: CAS    */
    tactive[t] = timed;                         /* s + one_reader from s,  */
#ifdef BUG_READER_IGNORES_GATE                  /* while s's gate is free  */
    w = w + ONE_READER; nr++; inu = 1; assert(!incs)   /* P1 */
#else
    if
    :: GST(w) == 0 -> w = w + ONE_READER; nr++; inu = 1; assert(!incs)   /* P1 */
    :: else
    fi
#endif
  };
  if
  :: !inu ->
     gate_take();                               /* gate::take(w_, 0, until) */
     if
     :: got ->
        atomic {                                /* fetch_add(one_reader)   */
          assert(NRD(w) == nr);                 /* the count is kept       */
          w = w + ONE_READER; nr++; inu = 1; got = 0; assert(!incs)   /* P1 */
        };
        gate_give()                             /* give(w_, s + one_reader) */
     :: else                                    /* timed out: false        */
     fi
  :: else
  fi;
  atomic { tactive[t] = 0; expired[t] = 0 }
}

/* unlock_shared: fetch_sub(one_reader); the last reader out with the gate
 * taken wakes all (the writer waiting for the readers). */
inline sm_unlock_shared()
{
  atomic {                                      /* fetch_sub(one_reader)   */
    assert(nr > 0 && NRD(w) == nr);             /* the count is kept       */
    old = w; w = w - ONE_READER; nr--; inu = 0
  };
  if
#ifndef BUG_LAST_READER_NO_WAKE
  :: NRD(old) == 1 && GST(old) != 0 -> old = 0; wake(ALL)  /* wake_waiters(w, all) */
#endif
  :: else -> old = 0
  fi
}

/* take_exclusive(until): the gate, then wait until no reader is inside;
 * a timed writer whose deadline passed gives the gate back. */
inline sm_lock()
{
  atomic { tactive[t] = timed; gate_try_take() };
  if :: !got -> mutex_lock() :: else fi;        /* gate::take(w_, 0, until) */
  if
  :: got ->
     do
     :: atomic { s = w };                       /* load                    */
        if
        :: s < ONE_READER -> s = 0; break       /* no reader inside        */
        :: else ->                              /* wait_for_change(w, s, until) */
           if
           :: timed && expired[t] ->            /* now >= deadline: false  */
              s = 0; got = 0; gate_give(); break   /* give(w_, 0)          */
           :: else -> wait_impl(s)
           fi
        fi
     od
  :: else
  fi;
  atomic { tactive[t] = 0; expired[t] = 0 }
}

/* ---------------------------------------------- semaphore (-DSEMAPHORE) */
/* semaphore.hpp: the gate in the word's top two bits (lock_bits<62>; in
 * the model's byte, bits 6-7: GS 6), the count below it.  Ghosts: units,
 * the count the word must hold (initial + releases - acquires); hold, the
 * threads holding a unit. */

/* try_acquire, inside an atomic step: load, then CAS w - 1 from w while
 * the gate is free and w > 0 (one step: a failed CAS only re-reads). */
inline sem_try_acquire()
{
  assert(CNT(w) == units);                      /* no unit lost or made    */
  if
  :: GST(w) == 0 && CNT(w) > 0 -> w = w - 1; units--; inu = 1
  :: else
  fi
}

/* take(until): try_acquire, else the gate; then, holding it, take a unit
 * when there is one, else wait for a change; give the gate. */
inline sem_acquire()
{
  atomic { tactive[t] = timed; sem_try_acquire() };
  if
  :: !inu ->
     gate_take();                               /* gate::take(word_, 0, until) */
     if
     :: got ->
        atomic { assert(CNT(w) == units); s = w };   /* load               */
        do
        :: CNT(s) > 0 ->                        /* CAS(w, w - 1)           */
           atomic {
             assert(CNT(w) == units);
             if
             :: w == s -> w = w - 1; units--; inu = 1
             :: else -> s = w                   /* continue                */
             fi
           };
           if :: inu -> break :: else fi
        :: CNT(s) == 0 ->
           if
           :: timed && expired[t] -> break      /* wait_for_change: false  */
           :: else ->
              wait_impl(s);
              atomic { assert(CNT(w) == units); s = w }   /* load          */
           fi
        od;
        s = 0; got = 0;
        gate_give()                             /* give(word_, w - 1 or w) */
     :: else                                    /* timed out in the line   */
     fi
  :: else
  fi;
  atomic { tactive[t] = 0; expired[t] = 0 }
}

/* release(1): fetch_add(1); if the gate was taken, wake one (its holder). */
inline sem_release()
{
  atomic {
    assert(CNT(w) == units);
    old = w; w = w + 1; units++; hold = hold - inu; inu = 0
  };
  if
#ifndef BUG_SEM_RELEASE_NO_WAKE
  :: GST(old) != 0 -> old = 0; wake(1)          /* wake_waiters(w, false)  */
#endif
  :: else -> old = 0
  fi
}

/* latch::count_down(); latch::wait() (a timed thread: a wait that gives up
 * at its deadline, as semaphores' and condition variables' timed waits
 * do; std::latch has none). */
inline latch_arrive_and_wait()
{
  atomic { old = w; w = w - 1 };                /* fetch_sub(1)            */
  if
  :: old == 1 -> old = 0; wake(ALL)
  :: else -> old = 0
  fi;
  tactive[t] = timed;                           /* a timed wait's deadline */
  do
  :: atomic { w == 0 -> old = 0 }; break        /* load                    */
  :: atomic { w != 0 -> old = w };              /* load: c                 */
     if
     :: timed && expired[t] -> old = 0; break   /* give up                 */
     :: !(timed && expired[t]) ->
        if                                      /* wait_while_equal(_until)*/
        :: w == old -> futex_wait(old)          /* (w, c)                  */
        :: else
        fi
     fi
  od;
  atomic { tactive[t] = 0; expired[t] = 0 }
}

proctype thread(byte t)
{
  byte n = NODE(t);
  bit timed = (TIMED >> t) & 1;
  bit os = (OS_THREADS >> t) & 1;
  byte old, res, k, u, ntaken, round;
  byte taken[NT], takent[NT];
  bit got, pk, ok, back;
#if defined(SHARED_MUTEX) || defined(SEMAPHORE)
  byte s;
  bit inu;
#endif

#ifdef LATCH
  latch_arrive_and_wait();
#elif defined(SHARED_MUTEX)
  round = 0;
  do
  :: round < ROUNDS(t) && ((WRITERS >> t) & 1) ->   /* a writer           */
     sm_lock();
     if
     :: got ->
        atomic { assert(!incs && nr == 0); incs = 1 };   /* P1             */
        got = 0;
        atomic { incs = 0; gate_give_cas() };   /* unlock: give(w_, 0)     */
        gate_give_rest()
     :: else                                    /* try_lock_until: false   */
     fi;
     round++
  :: round < ROUNDS(t) && !((WRITERS >> t) & 1) ->  /* a reader           */
     sm_lock_shared();
     if
     :: inu -> sm_unlock_shared()               /* (P1: asserted at entry) */
     :: else                                    /* try_lock_shared_until   */
     fi;
     round++
  :: else -> break
  od;
#elif defined(SEMAPHORE)
  if
  :: SEM_INIT == 0 && t == 0 -> sem_release()   /* the first unit          */
  :: else
  fi;
  round = 0;
  do
  :: round < ROUNDS(t) ->
     sem_acquire();
     if
     :: inu ->
        atomic { assert(hold < SEM_UNITS); hold++ };   /* P1               */
        sem_release()
     :: else                                    /* try_acquire_until: false */
     fi;
     round++
  :: else -> break
  od;
#else
  round = 0;
  do
  :: round < ROUNDS(t) ->
     lock_take();
     if
     :: got ->
        atomic { assert(!incs); incs = 1 };     /* P1                      */
        incs = 0;
        lock_give();
        got = 0
     :: else                                    /* take_until timed out    */
     fi;
     round++
  :: else -> break
  od;
#endif
  atomic { pst[t] = DEAD; tk[t] = 0; mark[t] = 0 }   /* retire (no wait   */
                                                /* of t is left)           */
}

init
{
  atomic {
#ifdef LATCH
    w = NT;
#endif
#ifdef SEMAPHORE
    w = SEM_INIT; units = SEM_INIT;
#endif
    run home_service();
    run node_service(1);
    run node_service(2);
    run thread(0);
    run thread(1);
    run thread(2);
    if :: (TIMED & 1) -> run timer(0) :: else fi;
    if :: (TIMED & 2) -> run timer(1) :: else fi;
    if :: (TIMED & 4) -> run timer(2) :: else fi
  };
  /* Once nothing can move: if every thread finished, nothing is left
   * behind (no queue entry, no line, the lock free, the count kept). */
  timeout ->
  if
  :: pst[0] == DEAD && pst[1] == DEAD && pst[2] == DEAD ->
     assert(qlen == 0 && lqlen == 0 && cm == 0 && GST(w) == 0);
#ifdef SHARED_MUTEX
     assert(w == 0 && nr == 0)
#elif defined(SEMAPHORE)
     assert(CNT(w) == units && units == SEM_UNITS && hold == 0)
#elif defined(LATCH)
     assert(w == 0)
#else
     assert(w == 0)
#endif
  :: else                                       /* a deadlock: P2 reports it */
  fi
}
